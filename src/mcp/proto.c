/*
 * mcp/proto: the client's side of each MCP exchange (see mcp/proto.h).
 * Requests are matched to their pend by id; an answer to an id we no
 * longer wait for (a cancelled call) is dropped.  A listing collects its
 * pages in s->listing and installs the tools once the last page is in.
 */
#include "mcp/proto.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "mcp/http.h"
#include "base/xmalloc.h"

static void request_prompts(struct mcp_server *s);

/* Ask for (the next page of) the tool list. */
static void
request_list(struct mcp_server *s, const char *cursor)
{
	cJSON *params = NULL;

	if (cursor) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "cursor", cursor);
	}
	s->listing_busy = 1;
	(void)mcp_server_request(s, "tools/list", params, "tools/list");
}

/* A tools/list page arrived. */
static void
on_list(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	struct buf warnings = BUF_INIT;
	struct err e = ERR_INIT;
	char *cursor = NULL;

	if (msg->kind == MCP_WIRE_ERROR) {
		struct buf why = BUF_INIT;

		buf_addf(&why, "refused tools/list: %s", msg->err_message);
		mcp_server_fail(s, why.data);
		buf_release(&why);
		return;
	}
	if (mcp_wire_tools(msg->result, &s->listing, &s->nlisting, &cursor, &warnings, &e) < 0) {
		mcp_server_fail(s, e.msg);
		return;
	}
	if (warnings.len) {
		buf_rtrim(&warnings);
		mcp_report(s->m, "mcp server %s: %s", s->name, warnings.data);
	}
	buf_release(&warnings);
	if (cursor && ++s->pages < MCP_PROTO_MAX_PAGES) {
		request_list(s, cursor);
		free(cursor);
		return;
	}
	free(cursor);
	s->listing_busy = 0;
	s->pages = 0;
	mcp_tools_install(s);
	if (s->state == SRV_STARTING) {
		s->state = SRV_READY;
		request_prompts(s);
		mcp_server_release_held(s); /* calls made while a new HTTP session started */
	}
	if (s->relist) {
		s->relist = 0;
		request_list(s, NULL);
	}
}

/* Free s's prompts. */
void
mcp_proto_prompts_free(struct mcp_server *s)
{
	size_t i, j;

	for (i = 0; i < s->nprompts; i++) {
		for (j = 0; s->prompts[i].args && s->prompts[i].args[j]; j++)
			free(s->prompts[i].args[j]);
		free(s->prompts[i].args);
		free(s->prompts[i].name);
		free(s->prompts[i].description);
	}
	free(s->prompts);
	s->prompts = NULL;
	s->nprompts = 0;
}

/* Ask for the prompts (one page: prompts are few). */
static void
request_prompts(struct mcp_server *s)
{
	if (s->prompts_busy || !s->has_prompts)
		return;
	s->prompts_busy = 1;
	(void)mcp_server_request(s, "prompts/list", NULL, "prompts/list");
}

/* The prompts/list answer: replace s's prompts (a refusal is reported, not fatal). */
static void
on_prompts(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	const cJSON *list = json_arr(msg->result, "prompts"), *p;
	size_t n = 0;

	s->prompts_busy = 0;
	if (msg->kind == MCP_WIRE_ERROR || !list) {
		mcp_report(s->m, "mcp server %s: prompts/list: %s; its prompts are not available", s->name,
			   msg->kind == MCP_WIRE_ERROR ? msg->err_message : "no \"prompts\" array");
		return;
	}
	mcp_proto_prompts_free(s);
	s->prompts = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *s->prompts);
	cJSON_ArrayForEach(p, list) {
		const char *name = json_str(p, "name"), *desc = json_str(p, "description");
		const cJSON *args = json_arr(p, "arguments"), *a;
		struct mcp_prompt *pr;
		size_t k = 0;

		if (!name || !*name)
			continue;
		pr = &s->prompts[n++];
		pr->name = xstrdup(name);
		pr->description = xstrdup(desc ? desc : "");
		pr->args = xcalloc((size_t)cJSON_GetArraySize(args) + 1, sizeof *pr->args);
		cJSON_ArrayForEach(a, args) {
			int req = 0;

			if (!json_str(a, "name"))
				continue;
			(void)json_bool(a, "required", &req);
			if (req && k < 32)
				pr->required |= 1u << k;
			pr->args[k++] = xstrdup(json_str(a, "name"));
		}
	}
	s->nprompts = n;
}

/* A prompts/get answer: the text of its messages to whoever waits. */
static void
on_prompt_get(struct mcp_server *s, struct pend *p, const struct mcp_wire_msg *msg)
{
	const cJSON *msgs = json_arr(msg->result, "messages"), *m;
	struct buf text = BUF_INIT, line = BUF_INIT;

	if (msg->kind == MCP_WIRE_ERROR) {
		buf_addf(&line, "mcp server %s: %s: error %ld: %s", s->name, p->what, msg->err_code,
			 msg->err_message);
		p->pfn(p->parg, 0, line.data);
		buf_release(&line);
		return;
	}
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *c = json_obj(m, "content");
		const char *t = json_str(c, "text");
		const cJSON *res = json_obj(c, "resource");

		if (!t)
			t = json_str(res, "text");
		if (!t)
			continue;
		if (text.len)
			buf_adds(&text, "\n\n");
		buf_adds(&text, t);
	}
	if (!text.len) {
		buf_addf(&line, "mcp server %s: %s gave no text", s->name, p->what);
		p->pfn(p->parg, 0, line.data);
	} else {
		p->pfn(p->parg, 1, text.data);
	}
	buf_release(&text);
	buf_release(&line);
}

/* The initialize answer: check it, confirm, and list the tools. */
static void
on_initialize(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	struct buf line = BUF_INIT;
	const cJSON *caps;

	if (msg->kind == MCP_WIRE_ERROR) {
		buf_addf(&line, "refused initialize: %s", msg->err_message);
		mcp_server_fail(s, line.data);
		buf_release(&line);
		return;
	}
	if (!json_str(msg->result, "protocolVersion")) {
		mcp_server_fail(s, "answered initialize without a protocolVersion");
		return;
	}
	caps = json_obj(msg->result, "capabilities");
	s->has_resources = json_obj(caps, "resources") != NULL;
	s->has_prompts = json_obj(caps, "prompts") != NULL;
	mcp_wire_notify(&line, "notifications/initialized", NULL);
	mcp_server_send(s, &line);
	buf_release(&line);
	mcp_http_initialized(s);
	request_list(s, NULL);
}

/* A response: find its request and hand it on. */
static void
on_response(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	struct pend *p;

	for (p = s->pends; p && (p->id != msg->id || p->held); p = p->next)
		;
	if (!p)
		return; /* a late answer to a cancelled call */
	mcp_server_unlink(s, p);
	if (p->job)
		mcp_tools_answer(s, p->job, msg);
	else if (p->pfn)
		on_prompt_get(s, p, msg);
	else if (!strcmp(p->what, "initialize"))
		on_initialize(s, msg);
	else if (!strcmp(p->what, "prompts/list"))
		on_prompts(s, msg);
	else
		on_list(s, msg);
	free(p);
}

/* A request from the server: we answer ping and nothing else. */
static void
on_request(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	struct buf line = BUF_INIT;

	if (!strcmp(msg->method, "ping"))
		mcp_wire_reply(&line, msg->id_raw, NULL);
	else
		mcp_wire_reply_error(&line, msg->id_raw, -32601, "method not found");
	mcp_server_send(s, &line);
	buf_release(&line);
}

/* One message from the server. */
void
mcp_proto_dispatch(struct mcp_server *s, const struct mcp_wire_msg *msg)
{
	switch (msg->kind) {
	case MCP_WIRE_RESULT:
	case MCP_WIRE_ERROR:
		on_response(s, msg);
		break;
	case MCP_WIRE_REQUEST:
		on_request(s, msg);
		break;
	case MCP_WIRE_NOTIFICATION:
		if (!strcmp(msg->method, "notifications/progress")) {
			const cJSON *tok = cJSON_GetObjectItemCaseSensitive(msg->params, "progressToken");

			if (cJSON_IsNumber(tok))
				mcp_server_progress(s, (long)tok->valuedouble);
			break;
		}
		if (!strcmp(msg->method, "notifications/prompts/list_changed")) {
			request_prompts(s);
			break;
		}
		/* notifications/resources/list_changed: nothing kept (list_resources asks each time) */
		if (strcmp(msg->method, "notifications/tools/list_changed"))
			break;
		if (s->listing_busy || s->state == SRV_STARTING)
			s->relist = 1;
		else
			request_list(s, NULL);
		break;
	}
}

/*
 * mcp/tools: MCP tools in the registry (see mcp/tools.h).
 *
 * Names: "mcp__" + server + "__" + tool, each character outside
 * [A-Za-z0-9_-] replaced by '_' and the whole cut at 64 characters (the
 * limit providers put on tool names).  Two tools that end up with the
 * same name: the first wins, the other is reported and left out.
 */
#include "mcp/tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "io/loop.h"
#include "base/xmalloc.h"

#define MCP_TOOLS_NAME_MAX 64
#define MCP_TOOLS_DESC_MAX 2048

/* Append s with characters providers refuse in tool names replaced by '_'. */
static void
add_safe(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == '-';

		buf_addch(b, ok ? c : '_');
	}
}

/* "mcp__" + server + "__" + name, made safe and cut at MCP_TOOLS_NAME_MAX. */
void
mcp_tools_name(struct buf *b, const char *server, const char *name)
{
	size_t start = b->len;

	buf_adds(b, "mcp__");
	add_safe(b, server);
	buf_adds(b, "__");
	add_safe(b, name);
	if (b->len - start > MCP_TOOLS_NAME_MAX)
		buf_setlen(b, start + MCP_TOOLS_NAME_MAX);
}

/* Start a call: tools/call on the tool's server. */
void
mcp_tools_call(struct tool_job *job, const cJSON *args)
{
	const struct mcp_tool *t = (const struct mcp_tool *)job->tool;
	struct mcp_server *s = t->srv;
	cJSON *params, *meta;
	char what[96];
	struct pend *p;

	if (s->state == SRV_DEAD) {
		tool_job_fail(job, "mcp server %s is not running (it failed earlier); this tool is gone",
			      s->name);
		return;
	}
	if (s->state == SRV_STARTING && s->transport == MCP_HTTP) { /* no session yet: a POST now is refused */
		snprintf(what, sizeof what, "tools/call %s (held for the server's new session)", t->remote);
		mcp_server_hold(s, job, args, what);
		return;
	}
	params = cJSON_CreateObject();
	if (t->kind == MCP_TOOL_LIST_RESOURCES) {
		const char *cur = json_str(args, "cursor");

		if (cur)
			cJSON_AddStringToObject(params, "cursor", cur);
		p = mcp_server_request(s, "resources/list", params, "resources/list");
	} else if (t->kind == MCP_TOOL_READ_RESOURCE) {
		const char *uri = json_str(args, "uri");

		cJSON_AddStringToObject(params, "uri", uri ? uri : "");
		snprintf(what, sizeof what, "resources/read %.80s", uri ? uri : "");
		p = mcp_server_request(s, "resources/read", params, what);
	} else {
		cJSON_AddStringToObject(params, "name", t->remote);
		cJSON_AddItemToObject(params, "arguments", cJSON_Duplicate(args, 1));
		/* the progress token is the request id (the next one): progress extends the wait */
		meta = cJSON_AddObjectToObject(params, "_meta");
		cJSON_AddNumberToObject(meta, "progressToken", (double)(s->next_id + 1));
		snprintf(what, sizeof what, "tools/call %s", t->remote);
		p = mcp_server_request(s, "tools/call", params, what);
	}
	if (!p) {
		if (!job->finished)
			tool_job_fail(job, "mcp server %s stopped before the call could be sent", s->name);
		return;
	}
	p->job = job;
	job->priv = p;
}

/* The agent aborts the turn: cancel the call on the server. */
static void
mcp_tools_cancel(struct tool_job *job)
{
	struct pend *p = job->priv;

	if (!p) {
		tool_job_fail(job, "cancelled");
		return;
	}
	mcp_server_cancel(p->srv, p, "the user aborted the turn", "cancelled: the user aborted the turn");
}

/* The answer of a tools/call. */
void
mcp_tools_answer(struct mcp_server *s, struct tool_job *job, const struct mcp_wire_msg *msg)
{
	struct err e = ERR_INIT;

	job->priv = NULL;
	if (msg->kind == MCP_WIRE_ERROR) {
		tool_job_fail(job, "mcp server %s: error %ld: %s", s->name, msg->err_code,
			      msg->err_message);
		return;
	}
	if (((const struct mcp_tool *)job->tool)->kind != MCP_TOOL_CALL) {
		if (mcp_wire_resources_text(msg->result, &job->out, &e) < 0) {
			tool_job_fail(job, "mcp server %s: %s", s->name, e.msg);
			return;
		}
		tool_job_done(job);
		return;
	}
	if (mcp_wire_call_text(msg->result, &job->out, &job->is_error, &e) < 0) {
		tool_job_fail(job, "mcp server %s: %s", s->name, e.msg);
		return;
	}
	tool_job_done(job);
}

/* A tool struct for one listed tool (kept on m->tools until mcp_free). */
static struct mcp_tool *
make_tool(struct mcp_server *s, const struct mcp_wire_tool *w)
{
	struct mcp_tool *t = xcalloc(1, sizeof *t);
	struct buf name = BUF_INIT;
	size_t dl = strlen(w->description);

	mcp_tools_name(&name, s->name, w->name);
	t->name = buf_detach(&name, NULL);
	if (dl > MCP_TOOLS_DESC_MAX) {
		dl = MCP_TOOLS_DESC_MAX;
		while (dl && ((unsigned char)w->description[dl] & 0xC0) == 0x80)
			dl--;
	}
	t->desc = xstrndup(w->description, dl);
	t->schema = xstrdup(w->schema);
	t->remote = xstrdup(w->name);
	t->srv = s;
	t->t.name = t->name;
	t->t.description = t->desc;
	t->t.schema_json = t->schema;
	/* unless the server says it only reads, a call may change files: checkpoint first */
	t->t.flags = TOOL_EXTERNAL | (w->read_only ? TOOL_READ_ONLY : TOOL_MUTATES | TOOL_NEEDS_APPROVAL);
	t->t.start = mcp_tools_call;
	t->t.cancel = mcp_tools_cancel;
	/* a "path" argument is held to the workspace like a built-in tool's; the
	 * other members keep their defaults (arguments as JSON, no preview) */
	t->t.paths = tool_path_arg;
	t->next = s->m->tools;
	s->m->tools = t;
	return t;
}

/* Unregister all of s's tools. */
void
mcp_tools_unregister_all(struct mcp_server *s)
{
	size_t i;

	for (i = 0; i < s->nreg; i++)
		tool_unregister(&s->reg[i]->t);
	s->nreg = 0;
}

/* The two resource tools of a server that has resources (read-only). */
static void
add_resource_tools(struct mcp_server *s)
{
	static const struct {
		enum mcp_tool_kind kind;
		const char *name, *desc, *schema;
	} rt[] = {
		{ MCP_TOOL_LIST_RESOURCES, "list_resources",
		  "List the resources (documents, data) this MCP server offers: uri, name, type.",
		  "{\"type\":\"object\",\"properties\":{\"cursor\":{\"type\":\"string\","
		  "\"description\":\"nextCursor of the previous page\"}}}" },
		{ MCP_TOOL_READ_RESOURCE, "read_resource",
		  "Read one resource of this MCP server by its uri (from list_resources).",
		  "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},"
		  "\"required\":[\"uri\"]}" },
	};
	size_t i;

	for (i = 0; i < sizeof rt / sizeof rt[0]; i++) {
		struct mcp_wire_tool w = { (char *)rt[i].name, (char *)rt[i].desc, (char *)rt[i].schema, 1 };
		struct mcp_tool *t = make_tool(s, &w);

		t->kind = rt[i].kind;
		t->t.paths = NULL; /* a uri, not a workspace path */
		s->reg = xrealloc(s->reg, (s->nreg + 1) * sizeof *s->reg);
		if (tool_register(&t->t) == 0)
			s->reg[s->nreg++] = t;
		else
			mcp_report(s->m, "mcp server %s: its %s tool is left out: the name %s is already taken",
				   s->name, rt[i].name, t->name);
	}
}

/* Register the finished listing in place of s's current tools. */
void
mcp_tools_install(struct mcp_server *s)
{
	size_t i;

	mcp_tools_unregister_all(s);
	s->reg = xrealloc(s->reg, (s->nlisting + 1) * sizeof *s->reg);
	for (i = 0; i < s->nlisting; i++) {
		struct mcp_tool *t = make_tool(s, &s->listing[i]);
		struct buf line = BUF_INIT;

		if (tool_register(&t->t) == 0) {
			s->reg[s->nreg++] = t;
			continue;
		}
		buf_addf(&line, "mcp server %s: tool \"%s\" left out: the name %s is already taken",
			 s->name, s->listing[i].name, t->name);
		if (s->m->report)
			s->m->report(s->m->report_arg, line.data);
		else
			buf_addf(&s->m->queued, "%s\n", line.data);
		buf_release(&line);
	}
	if (s->has_resources)
		add_resource_tools(s);
	mcp_wire_tools_free(s->listing, s->nlisting);
	s->listing = NULL;
	s->nlisting = 0;
}

/* Free every tool struct. */
void
mcp_tools_free_all(struct mcp *m)
{
	struct mcp_tool *t, *next;

	for (t = m->tools; t; t = next) {
		next = t->next;
		tool_unregister(&t->t);
		free(t->name);
		free(t->desc);
		free(t->schema);
		free(t->remote);
		free(t);
	}
	m->tools = NULL;
}

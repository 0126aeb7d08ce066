/*
 * anthropic/wire: Anthropic Messages request body, stream decoder and
 * error classification (contract in anthropic/wire.h).  Pure: no I/O.
 *
 * The request is built as a cJSON tree (insertion order is kept, so the
 * bytes are deterministic): messages are appended through struct aw_msgs,
 * which merges a block into the previous message when the role repeats;
 * a second pass (aw_pair) makes tool_use / tool_result pairing valid and
 * a third places the cache breakpoints.
 *
 * The decoder keeps one struct anthropic_wire_block per wire block index
 * (what type it is, which llm tool index it got, whether it is open) and
 * the thinking blocks with their signatures.  Invariant: once `over` is
 * set nothing more is emitted.
 */
#include "anthropic/wire.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

/* ---- model table ----------------------------------------------------- */

static const struct {
	const char *prefix;
	struct anthropic_wire_caps caps;
} aw_models[] = {
	/* protocols.md B6: these reject manual thinking and non-default sampling */
	{ "claude-fable", { 0, 1, 0 } },      { "claude-mythos", { 0, 1, 0 } },
	{ "claude-sonnet-5", { 0, 1, 0 } },   { "claude-opus-5", { 0, 1, 0 } },
	{ "claude-haiku-5", { 0, 1, 0 } },    { "claude-opus-4-8", { 0, 1, 0 } },
	{ "claude-opus-4-7", { 0, 1, 0 } },
	/* older models: manual budgets and sampling are fine */
	{ "claude-opus-4-6", { 1, 1, 1 } },   { "claude-sonnet-4-6", { 1, 1, 1 } },
	{ "claude-haiku-4-5", { 1, 0, 1 } },  { "claude-sonnet-4", { 1, 0, 1 } },
	{ "claude-opus-4", { 1, 0, 1 } },     { "claude-3-7", { 1, 0, 1 } },
	{ "claude-3", { 0, 0, 1 } },
};

/* Default ids per tier (protocols.md B6). */
const char *
anthropic_wire_tier_model(enum anthropic_wire_tier t)
{
	return t == ANTHROPIC_WIRE_HAIKU ? "claude-haiku-4-5" :
	       t == ANTHROPIC_WIRE_OPUS  ? "claude-opus-5" : "claude-sonnet-5";
}

/* Tier names as written in settings and commands. */
int
anthropic_wire_tier_parse(const char *name, enum anthropic_wire_tier *out)
{
	static const char *const names[] = { "haiku", "sonnet", "opus" };
	int i;

	for (i = 0; i < 3; i++)
		if (name && !strcmp(name, names[i])) {
			*out = (enum anthropic_wire_tier)i;
			return 0;
		}
	return -1;
}

/* Options with defaults: no sampling fields, default budgets. */
void
anthropic_wire_opts_init(struct anthropic_wire_opts *o, const char *model)
{
	memset(o, 0, sizeof *o);
	o->model = model;
	o->temperature = -1;
	o->top_p = -1;
	o->top_k = -1;
}

/* Look the model up; unknown Claude ids get the strict rules, others (llama) the lax ones. */
void
anthropic_wire_caps(const char *model, struct anthropic_wire_caps *out)
{
	static const struct anthropic_wire_caps strict = { 0, 1, 0 }, lax = { 1, 0, 1 };
	size_t i;

	if (!model)
		model = "";
	for (i = 0; i < sizeof aw_models / sizeof aw_models[0]; i++)
		if (!strncmp(model, aw_models[i].prefix, strlen(aw_models[i].prefix))) {
			*out = aw_models[i].caps;
			return;
		}
	*out = !strncmp(model, "claude-", 7) ? strict : lax;
}

/* ---- tool ids -------------------------------------------------------- */

/* Whether id is already an Anthropic-style id we can send unchanged. */
static int
aw_id_ok(const char *id)
{
	size_t n = strlen(id), i;

	if (n <= 6 || n > 64 || strncmp(id, "toolu_", 6))
		return 0;
	for (i = 0; i < n; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* Keep valid ids; map others to "toolu_h" + FNV-1a 64 of the original. */
void
anthropic_wire_tool_id(const char *id, struct buf *out)
{
	uint64_t h = 1469598103934665603ull;
	const char *p;

	if (id && aw_id_ok(id)) {
		buf_adds(out, id);
		return;
	}
	for (p = id ? id : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	buf_addf(out, "toolu_h%016llx", (unsigned long long)h);
}

/* ---- request --------------------------------------------------------- */

struct aw_msgs {
	cJSON *arr;
	cJSON *content; /* content array of the newest message */
	enum conv_role role;
};

/* Insert at position which, or append when which is the end (old cJSON refuses that). */
static void
aw_insert(cJSON *arr, int which, cJSON *item)
{
	if (which >= cJSON_GetArraySize(arr))
		cJSON_AddItemToArray(arr, item);
	else
		cJSON_InsertItemInArray(arr, which, item);
}

/* Leading tool_result blocks of a content array. */
static int
aw_nresults(const cJSON *content)
{
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach(it, content) {
		const char *t = json_str(it, "type");

		if (!t || strcmp(t, "tool_result"))
			break;
		n++;
	}
	return n;
}

/* Add a block to a message of role (merging with the newest); results go first. */
static void
aw_add(struct aw_msgs *mm, enum conv_role role, cJSON *block, int is_result)
{
	if (!mm->content || mm->role != role) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "role", role == CONV_USER ? "user" : "assistant");
		mm->content = cJSON_AddArrayToObject(m, "content");
		mm->role = role;
		cJSON_AddItemToArray(mm->arr, m);
	}
	if (is_result)
		aw_insert(mm->content, aw_nresults(mm->content), block);
	else
		cJSON_AddItemToArray(mm->content, block);
}

/* A {type, <key>: text} block. */
static cJSON *
aw_block(const char *type, const char *key, const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", type);
	if (key)
		cJSON_AddStringToObject(b, key, text ? text : "");
	return b;
}

/* A tool_use or tool_result block with the mapped id. */
static cJSON *
aw_tool_block(const struct conv_block *b)
{
	struct buf id = BUF_INIT;
	cJSON *o, *input;

	anthropic_wire_tool_id(b->id, &id);
	if (b->kind == CONV_TOOL_CALL) {
		o = aw_block("tool_use", "id", id.data);
		cJSON_AddStringToObject(o, "name", b->name ? b->name : "");
		input = cJSON_Parse(b->text);
		if (!cJSON_IsObject(input)) {
			cJSON_Delete(input);
			input = cJSON_CreateObject();
		}
		cJSON_AddItemToObject(o, "input", input);
	} else {
		o = aw_block("tool_result", "tool_use_id", id.data);
		cJSON_AddStringToObject(o, "content", b->text);
		if (b->is_error)
			cJSON_AddBoolToObject(o, "is_error", 1);
	}
	buf_release(&id);
	return o;
}

/* One assistant block, or NULL when it is not sent to Anthropic. */
static cJSON *
aw_assistant_block(const struct conv_block *b)
{
	cJSON *o;

	switch (b->kind) {
	case CONV_TEXT:
		return b->text[0] ? aw_block("text", "text", b->text) : NULL;
	case CONV_TOOL_CALL:
		return aw_tool_block(b);
	case CONV_REASONING:
		if (!b->provider || strcmp(b->provider, "anthropic") || !b->signature || !b->signature[0])
			return NULL;
		if (b->name && !strcmp(b->name, "redacted_thinking"))
			return aw_block("redacted_thinking", "data", b->signature);
		o = aw_block("thinking", "thinking", b->text);
		cJSON_AddStringToObject(o, "signature", b->signature);
		return o;
	default:
		return NULL;
	}
}

/* One user block, or NULL when empty. */
static cJSON *
aw_user_block(const struct conv_block *b)
{
	cJSON *o, *src;

	switch (b->kind) {
	case CONV_TEXT:
		return b->text[0] ? aw_block("text", "text", b->text) : NULL;
	case CONV_TOOL_RESULT:
		return aw_tool_block(b);
	case CONV_IMAGE:
		o = aw_block("image", NULL, NULL);
		src = cJSON_AddObjectToObject(o, "source");
		cJSON_AddStringToObject(src, "type", "base64");
		cJSON_AddStringToObject(src, "media_type", b->name ? b->name : "image/png");
		cJSON_AddStringToObject(src, "data", b->text);
		return o;
	default:
		return NULL;
	}
}

/* Whether the content array holds a tool_use / tool_result with this id. */
static int
aw_has_id(const cJSON *content, const char *type, const char *key, const char *id)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, content) {
		const char *t = json_str(it, "type"), *v = json_str(it, key);

		if (t && v && !strcmp(t, type) && !strcmp(v, id))
			return 1;
	}
	return 0;
}

/* Rebuild a user message: results answering `uses` first, orphans as text, the rest. */
static void
aw_fix_user(cJSON *content, const cJSON *uses)
{
	cJSON *it = content->child, *rest = cJSON_CreateArray();
	int nres = 0;

	while (it) {
		cJSON *next = it->next;
		const char *t = json_str(it, "type"), *id = json_str(it, "tool_use_id");

		cJSON_DetachItemViaPointer(content, it);
		if (t && !strcmp(t, "tool_result") && uses && aw_has_id(uses, "tool_use", "id", id)) {
			aw_insert(content, nres++, it);
		} else if (t && !strcmp(t, "tool_result")) {
			struct buf s = BUF_INIT;

			buf_addf(&s, "(result of tool call %s)\n%s", id ? id : "?",
				 json_str(it, "content") ? json_str(it, "content") : "");
			cJSON_AddItemToArray(rest, aw_block("text", "text", s.data));
			buf_release(&s);
			cJSON_Delete(it);
		} else {
			cJSON_AddItemToArray(rest, it);
		}
		it = next;
	}
	while (rest->child)
		cJSON_AddItemToArray(content, cJSON_DetachItemViaPointer(rest, rest->child));
	cJSON_Delete(rest);
}

/* Give every tool_use of the assistant message at i a result in message i + 1. */
static void
aw_answer(cJSON *arr, int i, const cJSON *content)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, content) {
		const char *t = json_str(it, "type"), *id = json_str(it, "id");
		cJSON *next = cJSON_GetArrayItem(arr, i + 1), *results, *r;

		if (!t || strcmp(t, "tool_use") || !id)
			continue;
		if (!next || strcmp(json_str(next, "role"), "user")) {
			next = cJSON_CreateObject();
			cJSON_AddStringToObject(next, "role", "user");
			cJSON_AddArrayToObject(next, "content");
			aw_insert(arr, i + 1, next);
		}
		results = cJSON_GetObjectItemCaseSensitive(next, "content");
		if (aw_has_id(results, "tool_result", "tool_use_id", id))
			continue;
		r = aw_block("tool_result", "tool_use_id", id);
		cJSON_AddStringToObject(r, "content",
					"no result: the turn was interrupted before this tool ran");
		cJSON_AddBoolToObject(r, "is_error", 1);
		cJSON_AddItemToArray(results, r);
	}
}

/* Every tool_use answered in the next user message, every result matched to a use. */
static void
aw_pair(cJSON *arr)
{
	const cJSON *uses = NULL;
	int i;

	for (i = 0; i < cJSON_GetArraySize(arr); i++) {
		cJSON *m = cJSON_GetArrayItem(arr, i);
		cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");

		if (!strcmp(json_str(m, "role"), "user")) {
			aw_fix_user(content, uses);
			uses = NULL;
		} else {
			aw_answer(arr, i, content);
			uses = content;
		}
	}
}

/* Mark the last cacheable block of a message (thinking blocks cannot carry one). */
static void
aw_mark(cJSON *msg)
{
	cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content"), *it, *last = NULL;

	cJSON_ArrayForEach(it, content) {
		const char *t = json_str(it, "type");

		if (t && strcmp(t, "thinking") && strcmp(t, "redacted_thinking"))
			last = it;
	}
	if (last)
		cJSON_AddItemToObject(last, "cache_control", aw_block("ephemeral", NULL, NULL));
}

/*
 * Breakpoints on the final message (the whole request is append-only, so
 * the next request reads it back) and on the previous user message (the
 * previous request's end, in case this turn added more than the 20-block
 * lookback).  Tools and system take the other two of the four allowed.
 */
static void
aw_cache_messages(cJSON *arr)
{
	int i = cJSON_GetArraySize(arr) - 1;

	if (i < 0)
		return;
	aw_mark(cJSON_GetArrayItem(arr, i));
	while (--i >= 0) {
		cJSON *m = cJSON_GetArrayItem(arr, i);

		if (!strcmp(json_str(m, "role"), "user")) {
			aw_mark(m);
			return;
		}
	}
}

/* The conv's messages in Anthropic form. */
static cJSON *
aw_messages(const struct conv *cv, const char *consult)
{
	struct aw_msgs mm = { cJSON_CreateArray(), NULL, CONV_USER };
	size_t i, j;

	for (i = 0; i < cv->nmsgs; i++) {
		const struct conv_msg *m = &cv->msgs[i];

		for (j = 0; j < m->nblocks; j++) {
			const struct conv_block *b = &m->blocks[j];
			cJSON *o = m->role == CONV_USER ? aw_user_block(b) : aw_assistant_block(b);

			if (o)
				aw_add(&mm, m->role, o, b->kind == CONV_TOOL_RESULT);
		}
	}
	if (consult && *consult)
		aw_add(&mm, CONV_USER, aw_block("text", "text", consult), 0);
	aw_pair(mm.arr);
	aw_cache_messages(mm.arr);
	return mm.arr;
}

/* Tools in the registry's order, the last one a cache breakpoint. */
static cJSON *
aw_tools(const struct provider_req *req)
{
	cJSON *tools = cJSON_CreateArray(), *o = NULL;
	size_t i;

	for (i = 0; i < req->ntools; i++) {
		const struct tool *t = req->tools[i];
		cJSON *schema = cJSON_Parse(t->schema_json);

		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "description", t->description);
		cJSON_AddItemToObject(o, "input_schema",
				      cJSON_IsObject(schema) ? schema : cJSON_CreateObject());
		if (!cJSON_IsObject(schema))
			cJSON_Delete(schema);
		cJSON_AddItemToArray(tools, o);
	}
	if (o)
		cJSON_AddItemToObject(o, "cache_control", aw_block("ephemeral", NULL, NULL));
	return tools;
}

/* thinking and sampling fields, as far as the model accepts them. */
static void
aw_params(const struct anthropic_wire_opts *o, int thinking, int max_tokens, cJSON *root)
{
	struct anthropic_wire_caps caps;
	int budget = o->budget_tokens > 0 ? o->budget_tokens : ANTHROPIC_WIRE_BUDGET;
	cJSON *t;

	anthropic_wire_caps(o->model, &caps);
	if (budget >= max_tokens)
		budget = max_tokens - 1;
	if (thinking && caps.manual_thinking && budget >= 1024) {
		t = cJSON_AddObjectToObject(root, "thinking");
		cJSON_AddStringToObject(t, "type", "enabled");
		cJSON_AddNumberToObject(t, "budget_tokens", budget);
	} else if (thinking && caps.adaptive) {
		t = cJSON_AddObjectToObject(root, "thinking");
		cJSON_AddStringToObject(t, "type", "adaptive");
	} else {
		thinking = 0;
	}
	if (!caps.sampling)
		return;
	/* with thinking on, only top_p in [0.95, 1] is allowed */
	if (o->temperature >= 0 && !thinking)
		cJSON_AddNumberToObject(root, "temperature", o->temperature);
	if (o->top_p >= 0 && (!thinking || o->top_p >= 0.95))
		cJSON_AddNumberToObject(root, "top_p", o->top_p);
	if (o->top_k >= 0 && !thinking)
		cJSON_AddNumberToObject(root, "top_k", o->top_k);
}

/* Serialise the request; same inputs give the same bytes. */
void
anthropic_wire_request(const struct anthropic_wire_opts *o, const struct provider_req *req,
		      struct buf *out)
{
	cJSON *root = cJSON_CreateObject();
	int max_tokens = o->max_tokens > 0 ? o->max_tokens : ANTHROPIC_WIRE_MAX_TOKENS;
	char *text;

	json_init();
	cJSON_AddStringToObject(root, "model", o->model ? o->model : "");
	cJSON_AddNumberToObject(root, "max_tokens", max_tokens);
	if (req->conv->system && req->conv->system[0]) {
		cJSON *sys = cJSON_AddArrayToObject(root, "system");
		cJSON *b = aw_block("text", "text", req->conv->system);

		cJSON_AddItemToObject(b, "cache_control", aw_block("ephemeral", NULL, NULL));
		cJSON_AddItemToArray(sys, b);
	}
	cJSON_AddItemToObject(root, "messages", aw_messages(req->conv, o->consult));
	if (req->ntools)
		cJSON_AddItemToObject(root, "tools", aw_tools(req));
	if (req->ntools && o->consult && *o->consult)
		cJSON_AddItemToObject(root, "tool_choice", aw_block("none", NULL, NULL));
	cJSON_AddBoolToObject(root, "stream", 1);
	aw_params(o, req->thinking, max_tokens, root);
	text = cJSON_PrintUnformatted(root);
	buf_adds(out, text ? text : "{}");
	cJSON_free(text);
	cJSON_Delete(root);
}

/* Whether listed id is model or a dated snapshot of the alias model. */
static int
aw_id_matches(const char *id, const char *model)
{
	size_t n = strlen(model), i;

	if (strncmp(id, model, n))
		return 0;
	if (!id[n])
		return 1;
	if (id[n] != '-' || strlen(id + n + 1) != 8)
		return 0;
	for (i = n + 1; id[i]; i++)
		if (id[i] < '0' || id[i] > '9')
			return 0;
	return 1;
}

/* Look model up in a /v1/models answer. */
int
anthropic_wire_models_has(const char *json, size_t n, const char *model, struct buf *ids,
			 struct err *e)
{
	cJSON *root = json_parse(json, n, e);
	const cJSON *data = json_arr(root, "data"), *it;
	int found = 0;

	if (!root)
		return -1;
	if (!data) {
		cJSON_Delete(root);
		return err_set(e, "GET /v1/models: no data array in the answer");
	}
	cJSON_ArrayForEach(it, data) {
		const char *id = json_str(it, "id");

		if (!id)
			continue;
		found |= aw_id_matches(id, model ? model : "");
		if (ids->len)
			buf_adds(ids, ", ");
		buf_adds(ids, id);
	}
	cJSON_Delete(root);
	return found;
}

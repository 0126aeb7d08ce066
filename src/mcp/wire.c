/*
 * mcp/wire: MCP's newline-delimited JSON-RPC 2.0, pure (see mcp/wire.h).
 *
 * The line reader keeps received bytes in one buf; `pos` is the start of
 * the first line not yet handed out and `scan` how far past pos we have
 * already looked for a newline, so a long line arriving in small pieces
 * is scanned once (linear, not quadratic).  Consumed bytes are dropped
 * when they make up more than half the buffer.
 */
#include "mcp/wire.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"

/* Empty reader. */
void
mcp_wire_lines_init(struct mcp_wire_lines *lr)
{
	buf_init(&lr->acc, 0);
	lr->pos = 0;
	lr->scan = 0;
}

/* Free the buffer. */
void
mcp_wire_lines_release(struct mcp_wire_lines *lr)
{
	buf_release(&lr->acc);
	lr->pos = 0;
	lr->scan = 0;
}

/* Append bytes, first dropping what was handed out when that is most of the buffer. */
void
mcp_wire_lines_add(struct mcp_wire_lines *lr, const char *data, size_t n)
{
	if (lr->pos && lr->pos >= lr->acc.len / 2) {
		buf_remove(&lr->acc, 0, lr->pos);
		lr->pos = 0;
	}
	buf_add(&lr->acc, data, n);
}

/* The next complete line, or 0 / -1 (too long). */
int
mcp_wire_lines_next(struct mcp_wire_lines *lr, const char **line, size_t *len, struct err *e)
{
	const char *start = lr->acc.data + lr->pos;
	size_t avail = lr->acc.len - lr->pos;
	const char *nl = memchr(start + lr->scan, '\n', avail - lr->scan);
	size_t n;

	if (!nl) {
		lr->scan = avail;
		if (avail > MCP_WIRE_MAX_LINE)
			return err_set(e, "sent a line longer than %u MB without a newline",
				       MCP_WIRE_MAX_LINE >> 20);
		return 0;
	}
	n = (size_t)(nl - start);
	if (n > MCP_WIRE_MAX_LINE)
		return err_set(e, "sent a line longer than %u MB", MCP_WIRE_MAX_LINE >> 20);
	lr->pos += n + 1;
	lr->scan = 0;
	if (n && start[n - 1] == '\r')
		n--;
	*line = start;
	*len = n;
	return 1;
}

/* The id as a long when it is an integral number, else -1. */
static long
msg_id(const cJSON *id)
{
	/* the range first: converting a double long cannot hold is undefined */
	if (!cJSON_IsNumber(id) || !(id->valuedouble >= 0 && id->valuedouble <= 1e15) ||
	    id->valuedouble != (double)(long)id->valuedouble)
		return -1;
	return (long)id->valuedouble;
}

/* Fill the error fields of an error response; -1 + e when malformed. */
static int
parse_error(const cJSON *err, struct mcp_wire_msg *m, struct err *e)
{
	const char *msg = json_str(err, "message");

	if (!cJSON_IsObject(err))
		return err_set(e, "sent an error response whose \"error\" is not an object");
	if (json_long(err, "code", &m->err_code) < 0)
		m->err_code = 0;
	m->err_message = msg ? msg : "(no message)";
	m->kind = MCP_WIRE_ERROR;
	return 0;
}

/* Classify the parsed object m->root. */
static int
classify(struct mcp_wire_msg *m, struct err *e)
{
	const cJSON *o = m->root, *id = cJSON_GetObjectItemCaseSensitive(o, "id");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(o, "method");
	const cJSON *result = cJSON_GetObjectItemCaseSensitive(o, "result");
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(o, "error");
	const char *ver = json_str(o, "jsonrpc");

	if (!ver || strcmp(ver, "2.0"))
		return err_set(e, "sent a message without \"jsonrpc\": \"2.0\"");
	m->id_raw = id;
	m->id = msg_id(id);
	m->params = cJSON_GetObjectItemCaseSensitive(o, "params");
	if (method) {
		if (!cJSON_IsString(method) || !method->valuestring[0])
			return err_set(e, "sent a message whose \"method\" is not a string");
		m->method = method->valuestring;
		if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))
			return err_set(e, "sent a request whose \"id\" is neither a number nor a string");
		m->kind = id ? MCP_WIRE_REQUEST : MCP_WIRE_NOTIFICATION;
		return 0;
	}
	if (!id)
		return err_set(e, "sent a message with neither \"method\" nor \"id\"");
	if (result && error)
		return err_set(e, "sent a response with both \"result\" and \"error\"");
	if (error)
		return parse_error(error, m, e);
	if (!result)
		return err_set(e, "sent a response with neither \"result\" nor \"error\"");
	m->result = result;
	m->kind = MCP_WIRE_RESULT;
	return 0;
}

/* Parse and classify one line. */
int
mcp_wire_parse(const char *line, size_t n, struct mcp_wire_msg *m, struct err *e)
{
	struct err pe = ERR_INIT;

	memset(m, 0, sizeof *m);
	m->id = -1;
	m->root = json_parse(line, n, &pe);
	if (!m->root)
		return err_set(e, "sent %s", pe.msg);
	if (!cJSON_IsObject(m->root)) {
		mcp_wire_msg_free(m);
		return err_set(e, "sent a JSON value that is not an object (batches are not used by MCP)");
	}
	if (classify(m, e) < 0) {
		mcp_wire_msg_free(m);
		return -1;
	}
	return 0;
}

/* Free the tree. */
void
mcp_wire_msg_free(struct mcp_wire_msg *m)
{
	cJSON_Delete(m->root);
	memset(m, 0, sizeof *m);
}

/* Print o as one line and free it. */
static void
emit(struct buf *out, cJSON *o)
{
	char *s = json_print(o);

	buf_adds(out, s);
	buf_addch(out, '\n');
	free(s);
	cJSON_Delete(o);
}

/* A fresh {"jsonrpc": "2.0"}. */
static cJSON *
envelope(void)
{
	cJSON *o;

	json_init();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	return o;
}

/* A request line. */
void
mcp_wire_request(struct buf *out, long id, const char *method, cJSON *params)
{
	cJSON *o = envelope();

	cJSON_AddNumberToObject(o, "id", (double)id);
	cJSON_AddStringToObject(o, "method", method);
	if (params)
		cJSON_AddItemToObject(o, "params", params);
	emit(out, o);
}

/* A notification line. */
void
mcp_wire_notify(struct buf *out, const char *method, cJSON *params)
{
	cJSON *o = envelope();

	cJSON_AddStringToObject(o, "method", method);
	if (params)
		cJSON_AddItemToObject(o, "params", params);
	emit(out, o);
}

/* A result line for the server's request. */
void
mcp_wire_reply(struct buf *out, const cJSON *id, cJSON *result)
{
	cJSON *o = envelope();

	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "result", result ? result : cJSON_CreateObject());
	emit(out, o);
}

/* An error line for the server's request. */
void
mcp_wire_reply_error(struct buf *out, const cJSON *id, int code, const char *message)
{
	cJSON *o = envelope(), *err = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	cJSON_AddItemToObject(o, "error", err);
	emit(out, o);
}

/* initialize's params: we are a client without roots, sampling or elicitation. */
cJSON *
mcp_wire_init_params(const char *name, const char *version)
{
	cJSON *p, *info;

	json_init();
	p = cJSON_CreateObject();
	info = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "protocolVersion", MCP_WIRE_PROTOCOL);
	cJSON_AddItemToObject(p, "capabilities", cJSON_CreateObject());
	cJSON_AddStringToObject(info, "name", name);
	cJSON_AddStringToObject(info, "version", version);
	cJSON_AddItemToObject(p, "clientInfo", info);
	return p;
}

/* notifications/cancelled's params. */
cJSON *
mcp_wire_cancel_params(long id, const char *reason)
{
	cJSON *p;

	json_init();
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "requestId", (double)id);
	cJSON_AddStringToObject(p, "reason", reason);
	return p;
}

/* One tool entry, or a warning when it is unusable. */
static void
add_tool(const cJSON *t, struct mcp_wire_tool **v, size_t *n, struct buf *warnings)
{
	const char *name = json_str(t, "name"), *desc = json_str(t, "description");
	const cJSON *schema = json_obj(t, "inputSchema");
	const char *type = json_str(schema, "type");
	struct mcp_wire_tool *w;

	if (!name || !*name || strlen(name) > 128) {
		buf_adds(warnings, "a tool without a usable name (1-128 characters) was skipped\n");
		return;
	}
	if (!type || strcmp(type, "object")) {
		buf_addf(warnings, "tool \"%.128s\" was skipped: its inputSchema is not an object schema\n",
			 name);
		return;
	}
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	w = &(*v)[(*n)++];
	w->name = xstrdup(name);
	w->description = xstrdup(desc ? desc : "");
	w->schema = json_print(schema);
	w->read_only = 0;
	(void)json_bool(json_obj(t, "annotations"), "readOnlyHint", &w->read_only);
}

/* One tools/list page. */
int
mcp_wire_tools(const cJSON *result, struct mcp_wire_tool **v, size_t *n, char **cursor,
	      struct buf *warnings, struct err *e)
{
	const cJSON *tools = json_arr(result, "tools"), *t;
	const char *next = json_str(result, "nextCursor");

	*cursor = NULL;
	if (!tools)
		return err_set(e, "answered tools/list without a \"tools\" array");
	cJSON_ArrayForEach(t, tools)
		add_tool(t, v, n, warnings);
	if (next && *next)
		*cursor = xstrdup(next);
	return 0;
}

/* Free a tool list. */
void
mcp_wire_tools_free(struct mcp_wire_tool *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].description);
		free(v[i].schema);
	}
	free(v);
}

/* One content item as text for the model. */
static void
add_content(const cJSON *c, struct buf *out)
{
	const char *type = json_str(c, "type"), *text = json_str(c, "text");
	const char *mime = json_str(c, "mimeType"), *data = json_str(c, "data");
	const cJSON *res = json_obj(c, "resource");

	if (out->len)
		buf_addch(out, '\n');
	if (type && !strcmp(type, "text") && text) {
		buf_adds(out, text);
	} else if (type && (!strcmp(type, "image") || !strcmp(type, "audio"))) {
		buf_addf(out, "[%s %s, %zu KB]", type, mime ? mime : "?",
			 data ? strlen(data) * 3 / 4 / 1024 : (size_t)0);
	} else if (res && json_str(res, "text")) {
		buf_adds(out, json_str(res, "text"));
	} else if (json_str(c, "uri") || json_str(res, "uri")) {
		buf_addf(out, "[resource %s]", json_str(c, "uri") ? json_str(c, "uri")
								 : json_str(res, "uri"));
	} else {
		buf_addf(out, "[%s content]", type ? type : "unknown");
	}
}

/* Append text to out, capped at MCP_WIRE_MAX_OUTPUT with a note. */
static void
add_capped(struct buf *out, const struct buf *text)
{
	size_t keep = MCP_WIRE_MAX_OUTPUT;

	if (text->len <= keep) {
		buf_add(out, text->data, text->len);
		return;
	}
	while (keep && ((unsigned char)text->data[keep] & 0xC0) == 0x80)
		keep--; /* do not cut a UTF-8 sequence */
	buf_add(out, text->data, keep);
	buf_addf(out, "\n[output truncated: %zu of %zu bytes shown]", keep, text->len);
}

/* A resources/list or resources/read result as text. */
int
mcp_wire_resources_text(const cJSON *result, struct buf *out, struct err *e)
{
	const cJSON *list = json_arr(result, "resources"), *contents = json_arr(result, "contents"), *c;
	struct buf text = BUF_INIT;

	if (!cJSON_IsObject(result) || (!list && !contents))
		return err_set(e, "answered with neither \"resources\" nor \"contents\"");
	cJSON_ArrayForEach(c, list) {
		const char *uri = json_str(c, "uri"), *name = json_str(c, "name"), *mime = json_str(c, "mimeType");
		const char *desc = json_str(c, "description");

		if (!uri)
			continue;
		buf_addf(&text, "%s", uri);
		if (name)
			buf_addf(&text, "  %s", name);
		if (mime)
			buf_addf(&text, " (%s)", mime);
		if (desc)
			buf_addf(&text, ": %.*s", (int)strcspn(desc, "\n"), desc);
		buf_addch(&text, '\n');
	}
	if (list && !cJSON_GetArraySize(list))
		buf_adds(&text, "(no resources)\n");
	if (list && json_str(result, "nextCursor"))
		buf_addf(&text, "more: call again with cursor %s\n", json_str(result, "nextCursor"));
	cJSON_ArrayForEach(c, contents) {
		const char *t = json_str(c, "text"), *blob = json_str(c, "blob"), *mime = json_str(c, "mimeType");

		buf_end_line(&text);
		if (t)
			buf_adds(&text, t);
		else
			buf_addf(&text, "[%s %s, %zu KB of binary data]", json_str(c, "uri") ? json_str(c, "uri") : "resource",
				 mime ? mime : "?", blob ? strlen(blob) * 3 / 4 / 1024 : (size_t)0);
	}
	add_capped(out, &text);
	if (!text.len)
		buf_adds(out, "(empty)");
	buf_release(&text);
	return 0;
}

/* A tools/call result as text. */
int
mcp_wire_call_text(const cJSON *result, struct buf *out, int *is_error, struct err *e)
{
	const cJSON *content = json_arr(result, "content"), *c;
	size_t start = out->len;
	struct buf text = BUF_INIT;

	*is_error = 0;
	if (!cJSON_IsObject(result))
		return err_set(e, "answered tools/call with a result that is not an object");
	(void)json_bool(result, "isError", is_error);
	cJSON_ArrayForEach(c, content)
		add_content(c, &text);
	if (!text.len && json_obj(result, "structuredContent")) {
		char *s = json_print(json_obj(result, "structuredContent"));

		buf_adds(&text, s);
		free(s);
	}
	if (text.len > MCP_WIRE_MAX_OUTPUT) {
		size_t keep = MCP_WIRE_MAX_OUTPUT;

		while (keep && ((unsigned char)text.data[keep] & 0xC0) == 0x80)
			keep--; /* do not cut a UTF-8 sequence */
		buf_add(out, text.data, keep);
		buf_addf(out, "\n[output truncated: %zu of %zu bytes shown]", keep, text.len);
	} else {
		buf_add(out, text.data, text.len);
	}
	if (out->len == start)
		buf_adds(out, "(no output)");
	buf_release(&text);
	return 0;
}

/* One word of a prompt's arguments: its text, and the argument it names (-1: none). */
struct prompt_word {
	struct buf text;
	long named;
};

/*
 * The next word of *p into w (blanks skipped first): 1, 0 at the end, -1
 * with err on an unclosed quote.  NAME= counts when NAME is unquoted.
 */
static int
prompt_word(const char **p, char *const *names, struct prompt_word *w, struct buf *err)
{
	const char *s = *p + strspn(*p, " \t\n\r");
	int quoted = 0;
	size_t k;

	buf_reset(&w->text);
	w->named = -1;
	if (!*s) {
		*p = s;
		return 0;
	}
	while (*s && !strchr(" \t\n\r", *s)) {
		if (*s == '=' && !quoted && w->named < 0) {
			for (k = 0; names[k]; k++)
				if (!strcmp(names[k], w->text.data)) {
					w->named = (long)k;
					buf_reset(&w->text);
					break;
				}
			if (w->named >= 0) {
				s++;
				continue;
			}
		}
		if (*s == '\'' || *s == '"') {
			char q = *s++;

			quoted = 1;
			while (*s && *s != q) {
				if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				buf_addch(&w->text, *s++);
			}
			if (!*s) {
				buf_addf(err, "has an unclosed %c quote (close it, or escape it with \\%c)", q, q);
				return -1;
			}
			s++;
			continue;
		}
		if (*s == '\\' && s[1])
			s++;
		buf_addch(&w->text, *s++);
	}
	*p = s;
	return 1;
}

/* A prompt's arguments from the user's words. */
int
mcp_wire_prompt_args(char *const *names, unsigned required, const char *args, cJSON *out, struct buf *err)
{
	struct prompt_word w = { BUF_INIT, -1 };
	struct buf rest = BUF_INIT;
	size_t n, k, pos = 0;
	long last = -1;
	unsigned char *set;
	int rc = 0, r;

	for (n = 0; names[n]; n++)
		;
	set = xcalloc(n + 1, 1);
	while (rc == 0 && (r = prompt_word(&args, names, &w, err)) != 0) {
		if (r < 0) {
			rc = -1;
		} else if (w.named >= 0) {
			if (set[w.named]) {
				buf_addf(err, "got %s twice", names[w.named]);
				rc = -1;
			} else {
				set[w.named] = 2; /* by name */
				cJSON_AddStringToObject(out, names[w.named], w.text.data);
			}
		} else {
			/* the next argument not set yet; past the last, the last positional one takes it */
			while (pos < n && set[pos])
				pos++;
			if (pos < n) {
				set[pos] = 1;
				cJSON_AddStringToObject(out, names[pos], w.text.data);
				last = (long)pos;
			} else if (last >= 0) {
				cJSON *v = cJSON_GetObjectItemCaseSensitive(out, names[last]);

				buf_reset(&rest);
				buf_addf(&rest, "%s %s", cJSON_GetStringValue(v), w.text.data);
				cJSON_ReplaceItemInObjectCaseSensitive(out, names[last], cJSON_CreateString(rest.data));
			} else {
				if (n)
					buf_addf(err, "got \"%s\" but every argument is already given by name", w.text.data);
				else
					buf_adds(err, "takes no arguments");
				rc = -1;
			}
		}
	}
	for (k = 0; rc == 0 && k < n; k++)
		if (!set[k] && k < 32 && required & (1u << k)) {
			buf_addf(err, "needs %s", names[k]);
			rc = -1;
		}
	free(set);
	buf_release(&w.text);
	buf_release(&rest);
	return rc;
}

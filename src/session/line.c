/*
 * session/line: encoding and decoding of one session entry line.
 *
 * No state: the block kind names below are indexed by enum conv_kind and
 * are the only table.  A decoded entry owns everything it points to; the
 * message's blocks are freed by borrowing a struct conv (which knows how
 * to free blocks), so the block layout stays conv's business.
 */
#include "session/line.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "base/xmalloc.h"

static const char *const kinds[] = { "text", "reasoning", "tool_call", "tool_result", "image" };

#define NKINDS (sizeof kinds / sizeof *kinds)

/* Append `"key":"value",` when value is non-NULL. */
static void
add_field(struct buf *b, const char *key, const char *v)
{
	if (!v)
		return;
	buf_addf(b, "\"%s\":", key);
	json_add_escaped(b, v, strlen(v));
	buf_addch(b, ',');
}

/* Start the object of an entry; the payload functions finish it. */
void
session_line_add_head(struct buf *b, const char *id, const char *parent, const char *type,
		  const char *ts)
{
	buf_adds(b, "{\"id\":\"");
	buf_adds(b, id);
	buf_adds(b, "\",\"parent\":");
	if (parent)
		json_add_escaped(b, parent, strlen(parent));
	else
		buf_adds(b, "null");
	buf_addf(b, ",\"type\":\"%s\",\"ts\":\"%s\",", type, ts);
}

/* Message payload: role, aborted, then every block with all its fields. */
void
session_line_add_msg(struct buf *b, const struct conv_msg *m)
{
	size_t i;

	buf_addf(b, "\"message\":{\"role\":\"%s\",\"aborted\":%s,\"blocks\":[",
		 m->role == CONV_USER ? "user" : "assistant", m->aborted ? "true" : "false");
	for (i = 0; i < m->nblocks; i++) {
		const struct conv_block *k = &m->blocks[i];
		buf_addf(b, "%s{", i ? "," : "");
		add_field(b, "text", k->text);
		add_field(b, "id", k->id);
		add_field(b, "name", k->name);
		add_field(b, "provider", k->provider);
		add_field(b, "signature", k->signature);
		if (k->is_error)
			buf_adds(b, "\"is_error\":true,");
		buf_addf(b, "\"kind\":\"%s\"}", kinds[k->kind]);
	}
	buf_adds(b, "]}}\n");
}

/* Meta payload: the non-NULL fields, without a trailing comma. */
void
session_line_add_meta(struct buf *b, const struct session_meta *m)
{
	buf_adds(b, "\"meta\":{");
	add_field(b, "cwd", m->cwd);
	add_field(b, "model", m->model);
	add_field(b, "server", m->server);
	add_field(b, "created", m->created);
	add_field(b, "forked_from", m->forked_from);
	if (b->data[b->len - 1] == ',')
		buf_setlen(b, b->len - 1);
	buf_adds(b, "}}\n");
}

/* Usage payload: one turn's tokens. */
void
session_line_add_usage(struct buf *b, long tokens_in, long tokens_out)
{
	buf_addf(b, "\"usage\":{\"in\":%ld,\"out\":%ld}}\n", tokens_in, tokens_out);
}

/* Notice payload: the text for the user. */
void
session_line_add_notice(struct buf *b, const char *text)
{
	buf_adds(b, "\"text\":");
	json_add_escaped(b, text ? text : "", text ? strlen(text) : 0);
	buf_adds(b, "}\n");
}

/* Append "FILE:N: why"-style warnings. */
static void warn(const struct session_line_src *src, const char *fmt, ...) ERR_PRINTF(2, 3);
static void
warn(const struct session_line_src *src, const char *fmt, ...)
{
	va_list ap;

	if (!src->warn)
		return;
	buf_addf(src->warn, "%s:%zu: ", src->path, src->ln);
	va_start(ap, fmt);
	buf_vaddf(src->warn, fmt, ap);
	va_end(ap);
	buf_addch(src->warn, '\n');
}

/* A string member; a present non-string value warns and reads as absent. */
static char *
get_str(const struct session_line_src *src, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v && !cJSON_IsString(v) && !cJSON_IsNull(v))
		warn(src, "field \"%s\" is not a string; ignored", key);
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

/* Decode one block into m; an unknown kind is dropped with a warning. */
static void
read_block(const struct session_line_src *src, const cJSON *o, struct conv_msg *m)
{
	const char *k = json_str(o, "kind");
	struct conv_block *b;
	char *t;
	size_t i;

	for (i = 0; k && i < NKINDS && strcmp(k, kinds[i]); i++)
		;
	if (!k || i == NKINDS) {
		warn(src, "a block of unknown kind \"%s\"; block skipped", k ? k : "?");
		return;
	}
	b = conv_add_block(m, (enum conv_kind)i, NULL, NULL, NULL); /* text "" */
	if ((t = get_str(src, o, "text")) != NULL) {
		free(b->text);
		b->text = t;
	}
	b->id = get_str(src, o, "id");
	b->name = get_str(src, o, "name");
	b->provider = get_str(src, o, "provider");
	b->signature = get_str(src, o, "signature");
	json_bool(o, "is_error", &b->is_error);
}

/* Decode a message payload; -1 when it has no valid role. */
static int
read_msg(const struct session_line_src *src, const cJSON *o, struct conv_msg *m)
{
	const char *role = json_str(o, "role");
	const cJSON *bl = json_arr(o, "blocks"), *it;

	if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
		return -1;
	memset(m, 0, sizeof *m);
	m->role = strcmp(role, "user") ? CONV_ASSISTANT : CONV_USER;
	json_bool(o, "aborted", &m->aborted);
	cJSON_ArrayForEach(it, bl)
		if (cJSON_IsObject(it))
			read_block(src, it, m);
	return 0;
}

/* Decode a meta payload (a missing object gives all NULL). */
static void
read_meta(const struct session_line_src *src, const cJSON *o, struct session_meta *m)
{
	m->cwd = get_str(src, o, "cwd");
	m->model = get_str(src, o, "model");
	m->server = get_str(src, o, "server");
	m->created = get_str(src, o, "created");
	m->forked_from = get_str(src, o, "forked_from");
}

/* Why a parsed object is not an entry (NULL when it is one; fills x->msg). */
static const char *
reject(const struct session_line_src *src, const cJSON *o, struct session_line_entry *x)
{
	const char *type = json_str(o, "type"), *id = json_str(o, "id");

	/* an empty id (also one that starts with a raw NUL byte) names nothing */
	if (!id || !id[0])
		return "not a session entry (no id)";
	if (!type)
		return "not a session entry (no type)";
	if (strcmp(type, "message"))
		return NULL;
	if (!cJSON_IsObject(json_obj(o, "message")))
		return "a message entry without a message object";
	if (read_msg(src, json_obj(o, "message"), &x->msg) < 0)
		return "a message without a valid role";
	return NULL;
}

/* Decode one line into an entry, or skip it with a warning. */
int
session_line_decode(const char *line, size_t len, const struct session_line_src *src,
		struct session_line_entry *x)
{
	struct err e = ERR_INIT;
	const char *type, *why;
	cJSON *o;

	memset(x, 0, sizeof *x);
	if (strspn(line, " \t\r") >= len)
		return 0;
	if (!(o = json_parse(line, len, &e))) {
		if (src->last)
			warn(src, "incomplete last line (cut off mid-write?); skipped");
		else
			warn(src, "%s; skipped", e.msg);
		return -1;
	}
	if ((why = reject(src, o, x)) != NULL) {
		warn(src, "%s; skipped", why);
		cJSON_Delete(o);
		return -1;
	}
	type = json_str(o, "type");
	x->type = !strcmp(type, "message") ? SESSION_LINE_MSG :
		  !strcmp(type, "meta") ? SESSION_LINE_META :
		  !strcmp(type, "usage") ? SESSION_LINE_USAGE : SESSION_LINE_OTHER;
	if (x->type == SESSION_LINE_META)
		read_meta(src, json_obj(o, "meta"), &x->meta);
	if (x->type == SESSION_LINE_USAGE) { /* a bad count reads as 0: the entry stays in the chain */
		const cJSON *u = json_obj(o, "usage");

		if (json_long(u, "in", &x->tokens_in) < 0 || x->tokens_in < 0)
			x->tokens_in = 0;
		if (json_long(u, "out", &x->tokens_out) < 0 || x->tokens_out < 0)
			x->tokens_out = 0;
	}
	x->id = xstrdup(json_str(o, "id"));
	x->parent = json_str(o, "parent") ? xstrdup(json_str(o, "parent")) : NULL;
	cJSON_Delete(o);
	return 1;
}

/* Free one entry. */
void
session_line_entry_release(struct session_line_entry *x)
{
	struct conv c;

	free(x->id), free(x->parent);
	session_meta_release(&x->meta);
	if (x->msg.blocks) {
		conv_init(&c); /* conv frees a message's blocks; borrow it for that */
		*conv_add_msg(&c, CONV_USER) = x->msg;
		conv_release(&c);
	}
	memset(x, 0, sizeof *x);
}

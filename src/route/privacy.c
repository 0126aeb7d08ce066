/*
 * route/privacy: the privacy globs and the filter over a conv copy (see
 * route/privacy.h).  Calls are looked up by id among the assistant
 * messages seen so far (a result always follows its call), so one pass
 * over the conv suffices.
 */
#include "route/privacy.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "llm/tool.h"

/* The privacy glob covering path, or NULL. */
static const char *
route_privacy_glob(const struct route_policy *p, const char *path)
{
	const char *t;
	size_t i;

	if (!path || !*path)
		return NULL;
	for (i = 0; i < p->nprivacy; i++) {
		if (fs_glob_match(p->privacy[i], path))
			return p->privacy[i];
		for (t = strchr(p->privacy[i], '/') ? strchr(path, '/') : NULL; t;
		     t = strchr(t + 1, '/'))
			if (t[1] && fs_glob_match(p->privacy[i], t + 1))
				return p->privacy[i];
	}
	return NULL;
}

/* Whether path is private. */
int
route_privacy_match(const struct route_policy *p, const char *path)
{
	return route_privacy_glob(p, path) != NULL;
}

/* Content or its notice. */
int
route_privacy_redact(const struct route_policy *p, const char *path, const char *content, size_t len,
	     struct buf *out)
{
	const char *g = route_privacy_glob(p, path);

	if (!g) {
		buf_add(out, content ? content : "", content ? len : 0);
		return 0;
	}
	buf_addf(out, "[hearth: the contents of %s (%zu bytes) are not shown to Claude: "
		 "it matches the privacy glob \"%s\" (routing.privacy)]", path, len, g);
	return 1;
}

/* The tool a call block names (NULL: unknown, or no call). */
static const struct tool *
route_privacy_tool(const struct conv_block *call)
{
	return call && call->name ? tool_find(call->name) : NULL;
}

/* Whether a shell command names a privacy-listed file. */
int
route_privacy_command(const struct route_policy *p, const char *cmd)
{
	static const char seps[] = " \t\n\"'`<>|;&()=$";
	const char *s = cmd;

	while (s && *s) {
		size_t n;
		char *word;
		int hit;

		s += strspn(s, seps);
		n = strcspn(s, seps);
		if (!n)
			break;
		/* the word however long (a fixed buffer of 512 let a longer path
		 * through, and the command's output with it: issue 20) */
		word = xstrndup(s, n);
		hit = route_privacy_match(p, word);
		free(word);
		if (hit)
			return 1;
		s += n;
	}
	return 0;
}

/* The call with this id among the messages before index end. */
static const struct conv_block *
route_privacy_find_call(const struct conv *c, size_t end, const char *id)
{
	size_t i, j;

	for (i = end; id && i-- > 0;)
		for (j = 0; j < c->msgs[i].nblocks; j++) {
			const struct conv_block *b = &c->msgs[i].blocks[j];

			if (b->kind == CONV_TOOL_CALL && b->id && !strcmp(b->id, id))
				return b;
		}
	return NULL;
}

/* A private path the call names (struct tool.paths), or NULL (borrowed from args). */
static const char *
route_privacy_private_path(const struct route_policy *p, const struct tool *t, const cJSON *args)
{
	const char *v[8];
	size_t i, n;

	if (!t)
		return NULL;
	n = tool_paths(t, args, v, sizeof v / sizeof v[0]);
	for (i = 0; i < n; i++)
		if (route_privacy_match(p, v[i]))
			return v[i];
	return NULL;
}

/* grep output without the lines of private files, one notice instead. */
static int
route_privacy_grep(const struct route_policy *p, const char *text, struct buf *out)
{
	const char *s = text ? text : "";
	size_t dropped = 0;

	while (*s) {
		size_t n = strcspn(s, "\n"), k = strcspn(s, ":\n");
		/* the path before the first ':', however long (a fixed buffer let a
		 * path of 1,024 characters or more through: issue 20) */
		char *path = k < n && k > 0 ? xstrndup(s, k) : NULL;

		if (path && route_privacy_match(p, path))
			dropped++;
		else
			buf_add(out, s, n + (s[n] == '\n'));
		free(path);
		s += n + (s[n] == '\n');
	}
	if (dropped)
		buf_addf(out, "%s[hearth: %zu matching line%s of privacy-listed files not shown to Claude (routing.privacy)]",
			 out->len && out->data[out->len - 1] != '\n' ? "\n" : "", dropped,
			 dropped == 1 ? "" : "s");
	return dropped > 0;
}

/* What Claude sees of a tool result; returns 1 when it differs. */
static int
route_privacy_result(const struct route_policy *p, const struct conv_block *call,
	      const struct conv_block *res, struct buf *out)
{
	const struct tool *t = route_privacy_tool(call);
	cJSON *args = call ? cJSON_Parse(call->text ? call->text : "") : NULL;
	const char *path = route_privacy_private_path(p, t, args), *text = res->text ? res->text : "";
	int changed = 0;

	if (path && (t->flags & TOOL_SHOWS_FILE)) {
		changed = route_privacy_redact(p, path, text, strlen(text), out);
	} else if (t && (t->flags & TOOL_SHOWS_MATCHES)) {
		changed = route_privacy_grep(p, text, out);
	} else if (t && tool_command(t, args) && route_privacy_command(p, tool_command(t, args))) {
		buf_addf(out, "[hearth: the output of this command (%zu bytes) is not shown to Claude: "
			 "the command names a privacy-listed file (routing.privacy)]", strlen(text));
		changed = 1;
	}
	if (!changed)
		buf_adds(out, text);
	cJSON_Delete(args);
	return changed;
}

/*
 * A call that edits a private file (TOOL_EDITS: write, edit) with its
 * content arguments -- every string argument but the paths -- replaced.
 */
static int
route_privacy_call(const struct route_policy *p, const struct conv_block *call, struct buf *out)
{
	const struct tool *t = route_privacy_tool(call);
	cJSON *args = cJSON_Parse(call->text ? call->text : ""), *it;
	const char *path = route_privacy_private_path(p, t, args), *v[8] = { NULL };
	size_t n, i;
	int changed = 0;
	char *s;

	if (!path || !(t->flags & TOOL_EDITS)) {
		cJSON_Delete(args);
		return 0;
	}
	/* the path arguments stay (a private path has a tool, t) */
	n = tool_paths(t, args, v, sizeof v / sizeof v[0]);
	for (it = args->child; it; it = it->next) {
		struct buf note = BUF_INIT;

		for (i = 0; i < n && v[i] != it->valuestring; i++)
			;
		if (!cJSON_IsString(it) || i < n)
			continue;
		route_privacy_redact(p, path, it->valuestring, strlen(it->valuestring), &note);
		cJSON_SetValuestring(it, note.data);
		buf_release(&note);
		changed = 1;
	}
	s = cJSON_PrintUnformatted(args);
	buf_adds(out, s ? s : "{}");
	cJSON_free(s);
	cJSON_Delete(args);
	return changed;
}

/*
 * A user text with @path attachments (front_attach: "<file path=\"REL\">\nCONTENT\n</file>")
 * whose private files' contents are replaced; returns 1 when it differs.
 */
static int
route_privacy_text(const struct route_policy *p, const char *text, struct buf *out)
{
	static const char open[] = "<file path=\"", close[] = "\n</file>";
	const char *s = text ? text : "", *at, *q, *body, *end;
	char *path;
	int changed = 0;

	while ((at = strstr(s, open)) != NULL) {
		q = strchr(at + sizeof open - 1, '"');
		body = q ? strstr(q, "\">\n") : NULL;
		end = body ? strstr(body + 3, close) : NULL;
		if (!q || !end || body != q)
			break;
		/* however long the path (a fixed buffer sent a path of 1,024
		 * characters or more, and the rest of the text, unredacted: issue 20) */
		path = xstrndup(at + sizeof open - 1, (size_t)(q - at) - (sizeof open - 1));
		body += 3;
		buf_add(out, s, (size_t)(body - s));
		changed |= route_privacy_redact(p, path, body, (size_t)(end - body), out);
		free(path);
		s = end;
	}
	buf_adds(out, s);
	return changed;
}

/* Copy one block, filtered. */
static size_t
route_privacy_block(const struct route_policy *p, const struct conv *in, size_t mi,
	     const struct conv_block *b, struct conv_msg *m)
{
	struct buf t = BUF_INIT;
	struct conv_block *nb;
	int changed = 0;

	if (b->kind == CONV_TOOL_RESULT)
		changed = route_privacy_result(p, route_privacy_find_call(in, mi, b->id), b, &t);
	else if (b->kind == CONV_TOOL_CALL)
		changed = route_privacy_call(p, b, &t);
	else if (b->kind == CONV_TEXT && in->msgs[mi].role == CONV_USER)
		changed = route_privacy_text(p, b->text, &t);
	nb = conv_add_block(m, b->kind, changed ? t.data : b->text, b->id, b->name);
	nb->is_error = b->is_error;
	nb->provider = b->provider ? xstrdup(b->provider) : NULL;
	nb->signature = b->signature ? xstrdup(b->signature) : NULL;
	buf_release(&t);
	return changed ? 1 : 0;
}

/* The filtered copy. */
size_t
route_privacy_conv(const struct route_policy *p, const struct conv *in, struct conv *out)
{
	size_t i, j, n = 0;

	conv_set_system(out, in->system);
	for (i = 0; i < in->nmsgs; i++) {
		struct conv_msg *m = conv_add_msg(out, in->msgs[i].role);

		m->aborted = in->msgs[i].aborted;
		for (j = 0; j < in->msgs[i].nblocks; j++)
			n += route_privacy_block(p, in, i, &in->msgs[i].blocks[j], m);
	}
	return n;
}

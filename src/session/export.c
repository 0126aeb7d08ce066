/*
 * session/export: Markdown and HTML exports of a loaded session.
 *
 * No state: each exporter appends to the caller's buffer, message by
 * message and block by block.  Every piece of session text that reaches
 * HTML passes through html_esc (which also repairs UTF-8); Markdown text
 * is written as is, with code fences sized to what they hold.
 */
#include "session/export.h"

#include <string.h>

#include "base/fs.h"

/* Append text in a fence longer than any backtick run inside it. */
static void
md_fence(struct buf *b, const char *lang, const char *text)
{
	size_t run = 0, max = 2, i;

	for (i = 0; text && text[i]; i++) {
		run = text[i] == '`' ? run + 1 : 0;
		max = run > max ? run : max;
	}
	for (i = 0; i <= max; i++)
		buf_addch(b, '`');
	buf_addf(b, "%s\n%s", lang, text ? text : "");
	if (b->len && b->data[b->len - 1] != '\n')
		buf_addch(b, '\n');
	for (i = 0; i <= max; i++)
		buf_addch(b, '`');
	buf_adds(b, "\n\n");
}

/* Markdown of one block. */
static void
md_block(struct buf *b, const struct conv_block *k)
{
	switch (k->kind) {
	case CONV_TEXT:
		buf_addf(b, "%s\n\n", k->text ? k->text : "");
		break;
	case CONV_REASONING:
		buf_adds(b, "*Thinking:*\n\n");
		md_fence(b, "", k->text);
		break;
	case CONV_TOOL_CALL:
		buf_addf(b, "**Tool call** `%s`:\n\n", k->name ? k->name : "?");
		md_fence(b, "json", k->text);
		break;
	case CONV_TOOL_RESULT:
		buf_addf(b, "**Tool result** `%s`%s:\n\n", k->name ? k->name : "?",
			 k->is_error ? " (error)" : "");
		md_fence(b, "", k->text);
		break;
	case CONV_IMAGE:
		buf_addf(b, "*[image %s, %zu bytes of base64]*\n\n", k->name ? k->name : "",
			 k->text ? strlen(k->text) : 0);
		break;
	}
}

/* Markdown of a loaded session. */
void
session_export_md(const struct session_loaded *l, const char *title, struct buf *out)
{
	size_t i, j;

	buf_addf(out, "# %s\n\n", title);
	if (l->meta.cwd || l->meta.model)
		buf_addf(out, "- directory: %s\n- model: %s\n- created: %s\n\n",
			 l->meta.cwd ? l->meta.cwd : "?", l->meta.model ? l->meta.model : "?",
			 l->meta.created ? l->meta.created : "?");
	for (i = 0; i < l->conv.nmsgs; i++) {
		const struct conv_msg *m = &l->conv.msgs[i];
		buf_addf(out, "## %s%s\n\n", m->role == CONV_USER ? "User" : "Assistant",
			 m->aborted ? " (interrupted)" : "");
		for (j = 0; j < m->nblocks; j++)
			md_block(out, &m->blocks[j]);
	}
}

/* Append HTML-escaped text (invalid UTF-8 becomes U+FFFD). */
static void
html_esc(struct buf *b, const char *s)
{
	struct buf t = BUF_INIT;
	size_t i;

	fs_add_utf8(&t, s ? s : "", s ? strlen(s) : 0);
	for (i = 0; i < t.len; i++) {
		char c = t.data[i];
		if (c == '&')
			buf_adds(b, "&amp;");
		else if (c == '<')
			buf_adds(b, "&lt;");
		else if (c == '>')
			buf_adds(b, "&gt;");
		else if (c == '"')
			buf_adds(b, "&quot;");
		else if (c == '\'')
			buf_adds(b, "&#39;");
		else
			buf_addch(b, c);
	}
	buf_release(&t);
}

/* HTML of one block. */
static void
html_block(struct buf *b, const struct conv_block *k)
{
	static const char *const cls[] = { "text", "think", "call", "result", "image" };

	buf_addf(b, "<div class=\"%s%s\">", cls[k->kind], k->is_error ? " error" : "");
	if (k->kind == CONV_TOOL_CALL || k->kind == CONV_TOOL_RESULT) {
		buf_adds(b, k->kind == CONV_TOOL_CALL ? "<b>tool call</b> " : "<b>result</b> ");
		html_esc(b, k->name);
	}
	if (k->kind == CONV_IMAGE) {
		buf_adds(b, "[image ");
		html_esc(b, k->name);
		buf_adds(b, "]</div>\n");
		return;
	}
	buf_adds(b, k->kind == CONV_REASONING ? "<details><summary>thinking</summary><pre>" :
		 "<pre>");
	html_esc(b, k->text);
	buf_adds(b, k->kind == CONV_REASONING ? "</pre></details></div>\n" : "</pre></div>\n");
}

/* The page up to the first message: doctype, title, inline CSS, heading, meta line. */
static void
html_head(const struct session_loaded *l, const char *title, struct buf *out)
{
	buf_adds(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html_esc(out, title);
	buf_adds(out, "</title>\n<style>body{font:15px/1.5 sans-serif;max-width:60em;margin:auto;"
		 "padding:1em;background:#fafafa;color:#222}pre{white-space:pre-wrap;margin:.3em 0;"
		 "font:13px monospace}.msg{border-radius:6px;padding:.5em 1em;margin:1em 0}"
		 ".user{background:#e8f0fe}.assistant{background:#fff;border:1px solid #ddd}"
		 ".call,.result{background:#f3f3f3;padding:.3em .6em;margin:.4em 0}"
		 ".error{background:#fde8e8}.think{color:#777}h2{font-size:1em;margin:0}</style>"
		 "</head><body>\n<h1>");
	html_esc(out, title);
	buf_adds(out, "</h1>\n<p>");
	html_esc(out, l->meta.cwd);
	buf_adds(out, " &middot; ");
	html_esc(out, l->meta.model);
	buf_adds(out, "</p>\n");
}

/* One self-contained HTML page. */
static void
session_export_html(const struct session_loaded *l, const char *title, struct buf *out)
{
	size_t i, j;

	html_head(l, title, out);
	for (i = 0; i < l->conv.nmsgs; i++) {
		const struct conv_msg *m = &l->conv.msgs[i];
		buf_addf(out, "<div class=\"msg %s\"><h2>%s%s</h2>\n",
			 m->role == CONV_USER ? "user" : "assistant",
			 m->role == CONV_USER ? "User" : "Assistant", m->aborted ? " (interrupted)" : "");
		for (j = 0; j < m->nblocks; j++)
			html_block(out, &m->blocks[j]);
		buf_adds(out, "</div>\n");
	}
	buf_adds(out, "</body></html>\n");
}

/* Load src_path and write its export to out_path. */
int
session_export_file(const char *src_path, const char *out_path, struct buf *warnings,
		struct err *e)
{
	struct session_loaded l;
	struct buf out = BUF_INIT, title = BUF_INIT;
	const char *base = strrchr(src_path, '/') ? strrchr(src_path, '/') + 1 : src_path;
	size_t n = strlen(out_path);
	int rc, html = (n > 5 && !strcmp(out_path + n - 5, ".html")) ||
		       (n > 4 && !strcmp(out_path + n - 4, ".htm"));

	if (session_load(src_path, &l, warnings, e) < 0)
		return -1;
	buf_addf(&title, "hearth session %.*s", (int)strcspn(base, "."), base);
	if (html)
		session_export_html(&l, title.data, &out);
	else
		session_export_md(&l, title.data, &out);
	rc = fs_write_private(out_path, out.data, out.len, e); /* the conversation: the owner's only */
	session_loaded_release(&l);
	buf_release(&out);
	buf_release(&title);
	return rc;
}

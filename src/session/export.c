/*
 * session/export: Markdown and HTML exports of a loaded session.
 *
 * No state: each exporter appends to the caller's buffer, message by
 * message and block by block.  Every piece of session text that reaches
 * HTML passes through html_clean (controls made visible, UTF-8 repaired)
 * and is escaped or rendered by md4c with raw HTML off; Markdown text
 * is written as is, with code fences sized to what they hold.
 */
#include "session/export.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <md4c-html.h>

#include "base/fs.h"
#include "base/sanitize.h"

static int html_is_tool_msg(const struct conv_msg *m);

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
	buf_end_line(b);
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
		buf_addf(out, "## %s%s\n\n", m->role == CONV_USER && html_is_tool_msg(m) ? "Tool results" :
			 m->role == CONV_USER ? "User" : "Assistant", m->aborted ? " (interrupted)" : "");
		for (j = 0; j < m->nblocks; j++)
			md_block(out, &m->blocks[j]);
	}
}

/* The terminal-safe text of s (ESC and other controls visible, invalid UTF-8 → U+FFFD). */
static void
html_clean(struct buf *t, const char *s)
{
	sanitize_term(t, s ? s : "", s ? strlen(s) : 0);
}

/* Append n bytes of clean text, HTML-escaped. */
static void
html_esc_n(struct buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];
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
}

/* Append session text s, cleaned and HTML-escaped. */
static void
html_esc(struct buf *b, const char *s)
{
	struct buf t = BUF_INIT;

	html_clean(&t, s);
	html_esc_n(b, t.data ? t.data : "", t.len);
	buf_release(&t);
}

/* Whether clean text looks like a unified diff (a "@@ -N" hunk header at a line start). */
static int
html_is_diff(const char *s)
{
	const char *p = s;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "@@ -", 4) && p[4] >= '0' && p[4] <= '9')
			return 1;
	return 0;
}

/*
 * Append already-escaped lines (as in a <pre>), each in a span coloured by
 * its diff mark: "+" added, "-" removed, "@@" hunk, "+++"/"---" file.
 */
static void
html_diff_lines(struct buf *b, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		const char *l = s + i, *nl = memchr(l, '\n', n - i);
		size_t len = nl ? (size_t)(nl - l) : n - i;
		const char *cls = NULL;

		if (len >= 3 && (!strncmp(l, "+++", 3) || !strncmp(l, "---", 3)))
			cls = "df";
		else if (len >= 2 && !strncmp(l, "@@", 2))
			cls = "dh";
		else if (len && l[0] == '+')
			cls = "da";
		else if (len && l[0] == '-')
			cls = "dd";
		if (cls)
			buf_addf(b, "<span class=\"%s\">", cls);
		buf_add(b, l, len);
		if (cls)
			buf_adds(b, "</span>");
		if (nl)
			buf_addch(b, '\n');
		i += len + (nl ? 1 : 0);
	}
}

/* Append session text as a <pre>: escaped, and coloured when it is a diff. */
static void
html_pre(struct buf *b, const char *s)
{
	struct buf t = BUF_INIT, e = BUF_INIT;

	html_clean(&t, s);
	html_esc_n(&e, t.data ? t.data : "", t.len);
	buf_adds(b, "<pre>");
	if (html_is_diff(t.data))
		html_diff_lines(b, e.data ? e.data : "", e.len);
	else
		buf_add(b, e.data ? e.data : "", e.len);
	buf_adds(b, "</pre>");
	buf_release(&t);
	buf_release(&e);
}

static void
html_md_out(const MD_CHAR *text, MD_SIZE n, void *b)
{
	buf_add(b, text, n);
}

/*
 * Whether an (escaped) link target may stay: no scheme (relative, #anchor) or
 * http, https, mailto; an image only as data:image/.  Anything else
 * (javascript:, data:text/html, file:, vbscript:) is dropped.
 */
static int
html_url_ok(const char *u, size_t n, int image)
{
	size_t i = 0;

	if (image)
		return n > 11 && !strncmp(u, "data:image/", 11);
	while (i < n && (isalnum((unsigned char)u[i]) || u[i] == '+' || u[i] == '-' || u[i] == '.'))
		i++;
	if (i == n || u[i] != ':' || !i || !isalpha((unsigned char)u[0]))
		return 1; /* no scheme */
	return (i == 4 && !strncasecmp(u, "http", 4)) || (i == 5 && !strncasecmp(u, "https", 5)) ||
	       (i == 6 && !strncasecmp(u, "mailto", 6));
}

/*
 * md4c's HTML made shareable: link targets checked (html_url_ok), and the lines
 * of ```diff blocks coloured.  Safe to do on the output as text: every '<'
 * and '"' in it is md4c's own (text and attributes come escaped).
 */
static void
html_md_fix(struct buf *b, const char *s, size_t n)
{
	static const char diff_open[] = "<pre><code class=\"language-diff\">";
	size_t i = 0;

	while (i < n) {
		const char *p = s + i;
		size_t rest = n - i;

		if (rest > 9 && (!strncmp(p, "<a href=\"", 9) || !strncmp(p, "<img src=\"", 10))) {
			size_t k = p[1] == 'a' ? 9 : 10;
			const char *q = memchr(p + k, '"', rest - k);
			size_t ulen = q ? (size_t)(q - p - k) : rest - k;

			const char *alt, *gt;

			if (html_url_ok(p + k, ulen, p[1] == 'i')) {
				buf_add(b, p, k + ulen);
				i += k + ulen;
			} else if (p[1] == 'a') {
				buf_add(b, p, k);
				buf_adds(b, "#blocked");
				i += k + ulen;
			} else if (q && (gt = memchr(q, '>', rest - (size_t)(q - p))) != NULL) {
				/* an image from elsewhere is not loaded: its alt text stands in */
				buf_adds(b, "<span class=\"image\">[image");
				alt = strstr(q, "alt=\"");
				if (alt && alt < gt) {
					const char *ae = memchr(alt + 5, '"', (size_t)(gt - alt - 5));

					buf_adds(b, ": ");
					buf_add(b, alt + 5, ae ? (size_t)(ae - alt - 5) : 0);
				}
				buf_adds(b, "]</span>");
				i = (size_t)(gt + 1 - s);
			} else {
				break; /* cannot happen: md4c closes its tags */
			}
		} else if (rest > sizeof diff_open - 1 && !strncmp(p, diff_open, sizeof diff_open - 1)) {
			const char *q = strstr(p, "</code></pre>");
			size_t body = q ? (size_t)(q - p) - (sizeof diff_open - 1) : rest - (sizeof diff_open - 1);

			buf_adds(b, diff_open);
			html_diff_lines(b, p + sizeof diff_open - 1, body);
			i += sizeof diff_open - 1 + body;
		} else {
			buf_addch(b, *p);
			i++;
		}
	}
}

/* Append Markdown text rendered (md4c, GitHub dialect, raw HTML shown as text). */
static void
html_markdown(struct buf *b, const char *s)
{
	struct buf t = BUF_INIT, h = BUF_INIT;

	html_clean(&t, s);
	if (md_html(t.data ? t.data : "", (MD_SIZE)t.len, html_md_out, &h,
		    MD_DIALECT_GITHUB | MD_FLAG_NOHTML, 0) == 0) {
		buf_adds(b, "<div class=\"md\">");
		html_md_fix(b, h.data ? h.data : "", h.len);
		buf_adds(b, "</div>");
	} else { /* md4c failed (out of memory): the text as it is */
		buf_adds(b, "<div class=\"plain\">");
		html_esc_n(b, t.data ? t.data : "", t.len);
		buf_adds(b, "</div>");
	}
	buf_release(&t);
	buf_release(&h);
}

/* The first line of a tool call's arguments, shortened, for its summary. */
static void
html_call_gist(struct buf *b, const char *args)
{
	struct buf t = BUF_INIT;
	size_t n, cut;

	html_clean(&t, args);
	n = strcspn(t.data ? t.data : "", "\n");
	cut = n > 100 ? 100 : n;
	while (cut < n && cut > 0 && ((unsigned char)t.data[cut] & 0xC0) == 0x80)
		cut--; /* not inside a UTF-8 sequence */
	html_esc_n(b, t.data ? t.data : "", cut);
	if (cut < n || n < t.len)
		buf_adds(b, "&hellip;");
	buf_release(&t);
}

/* The number of lines of s (0 for NULL or ""; a last line without '\n' counts). */
static size_t
html_nlines(const char *s)
{
	const char *p = s;
	size_t n = 0;

	for (; p && *p; p++)
		n += *p == '\n';
	return p && p > s && p[-1] != '\n' ? n + 1 : n;
}

/* HTML of one block; role_user: a user's text is shown as typed, not as Markdown. */
static void
html_block(struct buf *b, const struct conv_block *k, int role_user)
{
	switch (k->kind) {
	case CONV_TEXT:
		if (!k->text || !*k->text)
			return;
		if (role_user) {
			buf_adds(b, "<div class=\"plain\">");
			html_esc(b, k->text);
			buf_adds(b, "</div>\n");
		} else {
			html_markdown(b, k->text);
			buf_addch(b, '\n');
		}
		break;
	case CONV_REASONING:
		buf_adds(b, "<details class=\"think\"><summary>Thinking</summary><div class=\"plain\">");
		html_esc(b, k->text);
		buf_adds(b, "</div></details>\n");
		break;
	case CONV_TOOL_CALL:
		buf_adds(b, "<details class=\"call\"><summary><span class=\"tool\">");
		html_esc(b, k->name ? k->name : "?");
		buf_adds(b, "</span> <code>");
		html_call_gist(b, k->text);
		buf_adds(b, "</code></summary>");
		html_pre(b, k->text);
		buf_adds(b, "</details>\n");
		break;
	case CONV_TOOL_RESULT:
		buf_addf(b, "<details class=\"result%s\"><summary><span class=\"tool\">",
			 k->is_error ? " error" : "");
		html_esc(b, k->name ? k->name : "?");
		buf_addf(b, "</span> %s &middot; %zu line%s</summary>", k->is_error ? "failed" : "result",
			 html_nlines(k->text), html_nlines(k->text) == 1 ? "" : "s");
		html_pre(b, k->text);
		buf_adds(b, "</details>\n");
		break;
	case CONV_IMAGE:
		buf_adds(b, "<p class=\"image\">[image ");
		html_esc(b, k->name);
		buf_addf(b, ", %zu KB, not embedded]</p>\n", k->text ? strlen(k->text) * 3 / 4 / 1024 : 0);
		break;
	}
}

/* Whether m carries only tool results (and images): the tools' turn, not the user's. */
static int
html_is_tool_msg(const struct conv_msg *m)
{
	size_t j;
	int any = 0;

	for (j = 0; j < m->nblocks; j++) {
		if (m->blocks[j].kind == CONV_TOOL_RESULT)
			any = 1;
		else if (m->blocks[j].kind != CONV_IMAGE)
			return 0;
	}
	return any;
}

/* The page up to the first message: doctype, title, inline CSS, heading, meta line. */
static void
html_head(const struct session_loaded *l, const char *title, struct buf *out)
{
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		 "style-src 'unsafe-inline'; img-src data:\">"
		 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>");
	html_esc(out, title);
	buf_adds(out, "</title>\n<style>\n"
		 ":root{--bg:#fafafa;--fg:#1f2328;--mut:#6e7781;--card:#fff;--line:#d0d7de;--user:#ddf4ff;"
		 "--tool:#f6f8fa;--add:#dafbe1;--addf:#116329;--del:#ffebe9;--delf:#82071e;--hunk:#ddf4ff;--err:#ffebe9}\n"
		 "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mut:#8d96a0;--card:#161b22;"
		 "--line:#30363d;--user:#0c2d6b;--tool:#161b22;--add:#12361f;--addf:#7ee787;--del:#4c1719;"
		 "--delf:#ffa198;--hunk:#0c2d6b;--err:#4c1719}}\n"
		 "body{font:15px/1.55 system-ui,sans-serif;max-width:56em;margin:auto;padding:1em;"
		 "background:var(--bg);color:var(--fg)}\n"
		 "h1{font-size:1.4em;margin:.2em 0}.meta{color:var(--mut);margin:0 0 1.5em}\n"
		 ".msg{border:1px solid var(--line);border-radius:8px;padding:.6em 1em;margin:1em 0;"
		 "background:var(--card)}\n.msg.user{background:var(--user)}\n"
		 ".msg.tool{background:var(--tool);padding:.3em 1em}\n"
		 ".role{font-weight:600;font-size:.8em;text-transform:uppercase;letter-spacing:.05em;"
		 "color:var(--mut);margin-bottom:.3em}\n"
		 ".plain{white-space:pre-wrap;overflow-wrap:anywhere}\n"
		 "pre{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.45 ui-monospace,monospace;"
		 "margin:.4em 0;padding:.5em;background:var(--tool);border-radius:6px}\n"
		 "code{font:13px ui-monospace,monospace}\n"
		 "details{margin:.3em 0}summary{cursor:pointer;color:var(--mut)}\n"
		 "summary code{color:var(--fg)}.tool{font-weight:600;color:var(--fg)}\n"
		 ".error summary,.error .tool{color:var(--delf)}.error pre{background:var(--err)}\n"
		 ".think .plain{color:var(--mut);font-style:italic}\n"
		 ".da{background:var(--add);color:var(--addf);display:inline-block;min-width:100%}\n"
		 ".dd{background:var(--del);color:var(--delf);display:inline-block;min-width:100%}\n"
		 ".dh{color:var(--mut);background:var(--hunk)}.df{font-weight:600}\n"
		 "table{border-collapse:collapse}th,td{border:1px solid var(--line);padding:.2em .6em}\n"
		 ".md p:first-child{margin-top:0}.image{color:var(--mut)}\n"
		 "</style></head><body>\n<h1>");
	html_esc(out, title);
	buf_adds(out, "</h1>\n<p class=\"meta\">");
	html_esc(out, l->meta.cwd ? l->meta.cwd : "?");
	buf_adds(out, " &middot; ");
	html_esc(out, l->meta.model ? l->meta.model : "?");
	if (l->meta.created) {
		buf_adds(out, " &middot; ");
		html_esc(out, l->meta.created);
	}
	buf_addf(out, " &middot; %zu messages</p>\n", l->conv.nmsgs);
}

/* One self-contained HTML page. */
static void
session_export_html(const struct session_loaded *l, const char *title, struct buf *out)
{
	size_t i, j;

	html_head(l, title, out);
	for (i = 0; i < l->conv.nmsgs; i++) {
		const struct conv_msg *m = &l->conv.msgs[i];
		int tool = m->role == CONV_USER && html_is_tool_msg(m);
		const char *cls = tool ? "tool" : m->role == CONV_USER ? "user" : "assistant";
		const char *label = tool ? "Tool results" : m->role == CONV_USER ? "User" : "Assistant";

		buf_addf(out, "<section class=\"msg %s\"><div class=\"role\">%s%s</div>\n", cls, label,
			 m->aborted ? " (interrupted)" : "");
		for (j = 0; j < m->nblocks; j++)
			html_block(out, &m->blocks[j], m->role == CONV_USER);
		buf_adds(out, "</section>\n");
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

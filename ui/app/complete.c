/*
 * ui/app/complete: Tab completion in the editor (see ui/app/complete.h).
 *
 * @path works only by inserting at the cursor (editor_insert): it never
 * removes what was typed, so it needs nothing of the editor's internals
 * beyond its text and cursor.  The candidates are front_attach_complete's lines;
 * their longest common prefix is computed byte-wise and cut back to a
 * UTF-8 character boundary.  /command candidates are front_cmd_complete's
 * lines (names without the '/'); the whole text is replaced (editor_set)
 * only when the completion reaches at least as far as what was typed.
 */
#include "ui/app/complete.h"

#include <string.h>

#include "front/attach.h"
#include "ui/term/draw.h"
#include "ui/term/theme.h"

/* Length of the common prefix of the lines of list. */
static size_t
common_prefix(const char *list)
{
	size_t common = strcspn(list, "\n"), len;
	const char *p;

	for (p = list; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		while (common && (common > len || memcmp(p, list, common)))
			common--;
	}
	while (common && ((unsigned char)list[common] & 0xC0) == 0x80)
		common--;
	return common;
}

/* The candidate list, one a line (the popup's lines). */
static void
list_notice(const char *list, size_t n, struct buf *notice)
{
	const char *p = list;
	size_t i, len;

	for (i = 0; *p && i < APP_COMPLETE_PATH_LIST; i++, p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		buf_addf(notice, "%s@%.*s", i ? "\n" : "", (int)len, p);
	}
	if (n > APP_COMPLETE_PATH_LIST)
		buf_addf(notice, "\n… %zu more", n - APP_COMPLETE_PATH_LIST);
}

/* Tab after an @word (EDITOR_IGNORED: the cursor is not after one). */
static enum editor_result
complete_path(struct editor *ed, const char *root, struct buf *notice)
{
	struct buf prefix = BUF_INIT, list = BUF_INIT;
	size_t s = ed->cur, n, common;
	enum editor_result r = EDITOR_DONE;

	if (!root)
		return EDITOR_IGNORED;
	while (s > 0 && !strchr(" \t\n(", ed->text.data[s - 1]))
		s--;
	if (s == ed->cur || ed->text.data[s] != '@')
		return EDITOR_IGNORED;
	buf_add(&prefix, ed->text.data + s + 1, ed->cur - s - 1);
	n = front_attach_complete(root, prefix.data ? prefix.data : "", &list);
	if (n) {
		common = common_prefix(list.data);
		if (common > prefix.len)
			editor_insert(ed, list.data + prefix.len, common - prefix.len);
		if (n == 1 && list.data[common - 1] != '/')
			editor_insert(ed, " ", 1);
		if (n > 1 && notice) {
			list_notice(list.data, n, notice);
			r = EDITOR_NOTICE;
		}
	}
	buf_release(&prefix);
	buf_release(&list);
	return r;
}

/* Tab: complete "/prefix" from the registry (several: their common prefix, and a list). */
static enum editor_result
complete_cmd(struct editor *ed, const struct front_cmd *cmds, struct buf *notice)
{
	struct buf list = BUF_INIT, line = BUF_INIT;
	size_t common, n = 0, len;
	const char *p;

	if (!cmds || !ed->text.len || ed->text.data[0] != '/' || ed->cur != ed->text.len ||
	    strpbrk(ed->text.data, " \t\n"))
		return EDITOR_DONE;
	front_cmd_complete(cmds, ed->text.data + 1, &list);
	common = strcspn(list.data, "\n");
	for (p = list.data; *p; p += len + (p[len] == '\n'), n++) {
		len = strcspn(p, "\n");
		while (common && (common > len || memcmp(p, list.data, common)))
			common--;
		buf_addf(&line, "%s/%.*s", n ? "\n" : "", (int)len, p);
	}
	if (n > 1 && notice)
		buf_add(notice, line.data, line.len);
	buf_setlen(&line, 0);
	buf_addf(&line, "/%.*s%s", (int)common, list.data, n == 1 ? " " : "");
	if (n && common >= ed->text.len)
		editor_set(ed, line.data);
	buf_release(&list);
	buf_release(&line);
	return n > 1 && notice ? EDITOR_NOTICE : EDITOR_DONE;
}

/* Tab: @path first, then /command. */
enum editor_result
app_complete_tab(struct editor *ed, const char *root, const struct front_cmd *cmds, struct buf *notice)
{
	enum editor_result r = complete_path(ed, root, notice);

	return r != EDITOR_IGNORED ? r : complete_cmd(ed, cmds, notice);
}

/* ---- the popup above the input ------------------------------------ */

/* Close the popup. */
void
app_complete_close(struct app_complete *c)
{
	buf_setlen(&c->lines, 0);
	c->n = 0;
	c->sel = -1;
	c->commands = 0;
}

/* Free the popup's text. */
void
app_complete_release(struct app_complete *c)
{
	buf_release(&c->lines);
	c->n = 0;
}

/* Show lines ("label\thelp" or "label", one a line) as the popup. */
void
app_complete_show(struct app_complete *c, const char *lines, int commands)
{
	const char *p;

	app_complete_close(c);
	buf_adds(&c->lines, lines);
	for (p = c->lines.data; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
		c->n++;
	c->commands = commands;
}

/* After a typed key: the command list while the text is "/prefix", else nothing. */
void
app_complete_update(struct app_complete *c, const struct editor *ed, const struct front_cmd *cmds)
{
	struct buf l = BUF_INIT, scratch = BUF_INIT;
	struct cmd cmd;
	size_t i, n;

	if (!cmds || !ed->text.len || ed->text.data[0] != '/' || ed->cur != ed->text.len ||
	    strpbrk(ed->text.data, " \t\n") || (ed->text.len > 1 && ed->text.data[1] == '/')) {
		app_complete_close(c);
		return;
	}
	n = ed->text.len - 1;
	for (i = 0; front_cmd_get(cmds, i, &cmd, &scratch) == 0; i++) /* MCP prompts after the rest */
		if (!strncmp(cmd.name, ed->text.data + 1, n))
			buf_addf(&l, "/%s%s%s\t%s\n", cmd.name, cmd.args[0] ? " " : "", cmd.args, cmd.help);
	if (l.len)
		app_complete_show(c, l.data, 1);
	else
		app_complete_close(c);
	buf_release(&l);
	buf_release(&scratch);
}

/* Line i of the popup: its label and help views. */
static void
popup_line(const struct app_complete *c, size_t i, const char **lab, size_t *ln, const char **help,
    size_t *hn)
{
	const char *p = c->lines.data;
	size_t len;

	for (; i > 0 && *p; i--)
		p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
	len = strcspn(p, "\n");
	*lab = p;
	*ln = strcspn(p, "\t");
	if (*ln > len)
		*ln = len;
	*help = *ln < len ? p + *ln + 1 : p + len;
	*hn = *ln < len ? len - *ln - 1 : 0;
}

/* Up/Down move the selection (wrapping); 1 when the popup took the key. */
int
app_complete_key(struct app_complete *c, const struct keys_event *ev, struct editor *ed)
{
	const char *lab, *help;
	size_t ln, hn, k;
	struct buf b = BUF_INIT;

	if (!c->n || !c->commands)
		return 0;
	if (ev->kind == KEYS_UP || ev->kind == KEYS_DOWN) {
		c->sel = ev->kind == KEYS_DOWN ? (c->sel + 1) % (long)c->n :
		    c->sel <= 0 ? (long)c->n - 1 : c->sel - 1;
		return 1;
	}
	if (ev->kind == KEYS_TAB && !(ev->mods & KEYS_MOD_SHIFT) && c->sel >= 0) {
		popup_line(c, (size_t)c->sel, &lab, &ln, &help, &hn);
		k = strcspn(lab, " \t\n"); /* the name, without its arguments */
		buf_addf(&b, "%.*s ", (int)k, lab);
		editor_set(ed, b.data);
		buf_release(&b);
		app_complete_close(c);
		return 1;
	}
	return 0;
}

/* Draw the popup over the rows above `above` (the input's rule), x..x+w. */
void
app_complete_draw(const struct app_complete *c, struct grid *g, int x, int above, int w)
{
	const char *lab, *help;
	size_t ln, hn, i, first = 0;
	int h = (int)c->n, lw = 0, y, cw;
	uint16_t role;

	if (!c->n || w < 8 || above < 2)
		return;
	if (h > APP_COMPLETE_ROWS)
		h = APP_COMPLETE_ROWS;
	if (h > above - 1)
		h = above - 1;
	if (c->sel >= h)
		first = (size_t)c->sel - (size_t)h + 1;
	for (i = 0; i < c->n; i++) {
		popup_line(c, i, &lab, &ln, &help, &hn);
		if (draw_width(lab, ln) > lw)
			lw = draw_width(lab, ln);
	}
	if (lw > w / 2)
		lw = w / 2;
	for (y = 0; y < h; y++) {
		i = first + (size_t)y;
		popup_line(c, i, &lab, &ln, &help, &hn);
		role = (long)i == c->sel ? THEME_SELECTION : THEME_STATUS_BG;
		grid_clear_rect(g, (struct grid_rect){ x, above - h + y, w, 1 }, role);
		draw_trunc(g, x + 1, above - h + y, lw, lab, ln, role);
		cw = w - lw - 4;
		if (hn && cw > 0)
			draw_trunc(g, x + lw + 3, above - h + y, cw, help, hn,
			    (long)i == c->sel ? role : THEME_MIX(THEME_DIM, THEME_STATUS_BG));
	}
}

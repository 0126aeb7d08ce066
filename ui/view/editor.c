/*
 * ui/view/editor: the input editor (see ui/view/editor.h for the contract).
 *
 * Data: `text` holds valid UTF-8 at all times; `cur` is a byte offset on
 * a character boundary that is never between a base character and its
 * combining marks.  A folded paste is the code point U+E000 + i with
 * pastes[i] holding the bytes; slots are never reused until the editor is
 * emptied, so a marker deleted and yanked back still finds its paste.
 * Layout is computed on demand by one walker (ed_walk) shared by
 * measuring, drawing and the cursor: a 2-column gutter ("› " on the first
 * row), then display units wrapped by character.
 */
#include "ui/view/editor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/theme.h"
#include "base/xmalloc.h"

#define ED_PUA 0xe000u
#define ED_GUTTER 2

/* One display unit: what a code point (or a marker) looks like. */
struct ed_unit {
	const char *s;
	size_t n;
	int width;    /* columns; 0 for a combining mark */
	int newline;
	uint16_t style;
	char tmp[40];
};

void
editor_init(struct editor *ed)
{
	memset(ed, 0, sizeof *ed);
	buf_init(&ed->text, 0);
	buf_init(&ed->kill, 0);
	buf_init(&ed->draft, 0);
	ed->hidx = -1;
}

/* Forget every folded paste (the buffer no longer refers to them). */
static void
ed_drop_pastes(struct editor *ed)
{
	size_t i;

	for (i = 0; i < ed->npastes; i++)
		free(ed->pastes[i].text);
	free(ed->pastes);
	ed->pastes = NULL;
	ed->npastes = 0;
}

void
editor_release(struct editor *ed)
{
	size_t i;

	ed_drop_pastes(ed);
	for (i = 0; i < ed->nhist; i++)
		free(ed->hist[i]);
	free(ed->hist);
	buf_release(&ed->text);
	buf_release(&ed->kill);
	buf_release(&ed->draft);
	memset(ed, 0, sizeof *ed);
}

/* The code point at byte pos (the buffer is valid UTF-8). */
static uint32_t
ed_cp(const struct editor *ed, size_t pos, size_t *len)
{
	uint32_t cp = 0xfffd;

	*len = grid_utf8_decode(ed->text.data + pos, ed->text.len - pos, &cp);
	*len += !*len;
	return cp;
}

/* Whether cp is a combining mark (drawn on the previous cell). */
static int
ed_is_mark(uint32_t cp)
{
	return cp >= 0x300 && grid_cp_width(cp) == 0;
}

/* The boundary after the character at pos (its marks included). */
static size_t
ed_next(const struct editor *ed, size_t pos)
{
	size_t n;

	if (pos >= ed->text.len)
		return ed->text.len;
	ed_cp(ed, pos, &n);
	pos += n;
	while (pos < ed->text.len && ed_is_mark(ed_cp(ed, pos, &n)))
		pos += n;
	return pos;
}

/* The boundary before pos (back over marks to their base). */
static size_t
ed_prev(const struct editor *ed, size_t pos)
{
	size_t n;

	while (pos > 0) {
		do
			pos--;
		while (pos > 0 && ((unsigned char)ed->text.data[pos] & 0xc0) == 0x80);
		if (!ed_is_mark(ed_cp(ed, pos, &n)))
			break;
	}
	return pos;
}

/* Append the UTF-8 of cp to b. */
static void
ed_add_cp(struct buf *b, uint32_t cp)
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4, i;
	char u[4];

	for (i = n - 1; i > 0; i--, cp >>= 6)
		u[i] = (char)(0x80 | (cp & 0x3f));
	u[0] = (char)(lead[n] | cp);
	buf_add(b, u, (size_t)n);
}

/* Append s to out as valid UTF-8: bad bytes and forged markers become U+FFFD, CR becomes LF. */
static void
ed_clean(const char *s, size_t n, struct buf *out)
{
	size_t i = 0, k;
	uint32_t cp;

	for (; i < n; i += k) {
		if (!(k = grid_utf8_decode(s + i, n - i, &cp)) ||
		    (cp >= ED_PUA && cp < ED_PUA + EDITOR_PASTES_MAX))
			cp = 0xfffd;
		ed_add_cp(out, cp == '\r' ? '\n' : cp);
		k += !k;
	}
}

/* Insert clean UTF-8 at the cursor. */
static void
ed_put(struct editor *ed, const struct buf *b)
{
	buf_insert(&ed->text, ed->cur, b->data, b->len);
	ed->cur += b->len;
}

void
editor_insert(struct editor *ed, const char *s, size_t n)
{
	struct buf b = BUF_INIT;

	ed_clean(s, n, &b);
	ed_put(ed, &b);
	buf_release(&b);
}

void
editor_paste(struct editor *ed, const char *s, size_t n)
{
	struct buf b = BUF_INIT, m = BUF_INIT;
	struct editor_paste *p;
	long lines = 0;
	size_t i;

	for (i = 0; i < n; i++)
		lines += s[i] == '\n';
	lines += n && s[n - 1] != '\n';
	ed_clean(s, n, &b);
	if (lines <= EDITOR_PASTE_FOLD || ed->npastes >= EDITOR_PASTES_MAX) {
		ed_put(ed, &b);
	} else {
		ed->pastes = xrealloc(ed->pastes, (ed->npastes + 1) * sizeof *ed->pastes);
		p = &ed->pastes[ed->npastes];
		p->lines = lines;
		p->text = buf_detach(&b, &p->len);
		ed_add_cp(&m, ED_PUA + (uint32_t)ed->npastes++);
		ed_put(ed, &m);
	}
	buf_release(&b);
	buf_release(&m);
}

/* The paste a code point stands for, or NULL. */
static const struct editor_paste *
ed_paste_of(const struct editor *ed, uint32_t cp)
{
	if (cp < ED_PUA || cp >= ED_PUA + ed->npastes)
		return NULL;
	return &ed->pastes[cp - ED_PUA];
}

/* Append text[from, to) to out with markers expanded. */
static void
ed_expand(const struct editor *ed, size_t from, size_t to, struct buf *out)
{
	size_t n;

	while (from < to) {
		uint32_t cp = ed_cp(ed, from, &n);
		const struct editor_paste *p = ed_paste_of(ed, cp);

		if (p)
			buf_add(out, p->text, p->len);
		else
			buf_add(out, ed->text.data + from, n);
		from += n;
	}
}

void
editor_text(const struct editor *ed, struct buf *out)
{
	ed_expand(ed, 0, ed->text.len, out);
}

/* Describe the code point at pos as a display unit. */
static size_t
ed_unit(const struct editor *ed, size_t pos, struct ed_unit *u)
{
	size_t n;
	uint32_t cp = ed_cp(ed, pos, &n);
	const struct editor_paste *p = ed_paste_of(ed, cp);

	u->s = ed->text.data + pos;
	u->n = n;
	u->newline = cp == '\n';
	u->style = THEME_TEXT;
	u->width = grid_cp_width(cp);
	if (u->newline) {
		return pos + n;
	} else if (p) {
		snprintf(u->tmp, sizeof u->tmp, "[paste: %ld lines]", p->lines);
		u->style = THEME_ACCENT;
	} else if (cp == '\t') {
		snprintf(u->tmp, sizeof u->tmp, "    ");
	} else if (cp < 0x20 || cp == 0x7f) {
		snprintf(u->tmp, sizeof u->tmp, "^%c", cp == 0x7f ? '?' : (char)(cp + '@'));
		u->style = THEME_DIM;
	} else if (cp >= 0x80 && cp < 0xa0) {
		snprintf(u->tmp, sizeof u->tmp, "<U+%04X>", (unsigned)cp);
		u->style = THEME_DIM;
	} else if (u->width < 0 || (u->width == 0 && !ed_is_mark(cp))) {
		snprintf(u->tmp, sizeof u->tmp, "\xef\xbf\xbd");
	} else {
		return pos + n;
	}
	u->s = u->tmp;
	u->n = strlen(u->tmp);
	u->width = u->s[0] == '\xef' ? 1 : (int)u->n;
	return pos + n;
}

typedef void (*ed_visit_fn)(void *arg, size_t pos, const struct ed_unit *u, int row, int col);

/* Lay the text out at tw text columns; visit each unit (u NULL: the end). Returns the rows. */
static int
ed_walk(const struct editor *ed, int tw, ed_visit_fn fn, void *arg)
{
	struct ed_unit u;
	size_t pos = 0, next;
	int row = 0, col = 0;

	if (tw < 1)
		tw = 1;
	while (pos < ed->text.len) {
		next = ed_unit(ed, pos, &u);
		if (!u.newline && u.width > 0 && col > 0 && col + u.width > tw)
			row++, col = 0;
		if (fn)
			fn(arg, pos, &u, row, col);
		row += u.newline;
		col = u.newline ? 0 : col + u.width;
		pos = next;
	}
	if (col >= tw)
		row++, col = 0;
	if (fn)
		fn(arg, pos, NULL, row, col);
	return row + 1;
}

int
editor_rows(const struct editor *ed, int w)
{
	return ed_walk(ed, w - ED_GUTTER, NULL, NULL);
}

struct ed_draw {
	const struct editor *ed;
	struct grid *g;
	struct grid_rect r;
	int skip, crow, ccol; /* rows scrolled off; the cursor's layout cell */
};

/* Walker: remember where the cursor is. */
static void
ed_find_cursor(void *arg, size_t pos, const struct ed_unit *u, int row, int col)
{
	struct ed_draw *d = arg;

	(void)u;
	if (pos == d->ed->cur) {
		d->crow = row;
		d->ccol = col;
	}
}

/* Walker: draw one unit if its row is shown. */
static void
ed_draw_unit(void *arg, size_t pos, const struct ed_unit *u, int row, int col)
{
	struct ed_draw *d = arg;
	int y = d->r.y + row - d->skip, x = d->r.x + ED_GUTTER + col;

	(void)pos;
	if (!u || u->newline || row < d->skip || row >= d->skip + d->r.h)
		return;
	if (u->width == 0)
		grid_attach(d->g, x - 1, y, u->s, u->n);
	else if (u->s == u->tmp)
		grid_put(d->g, x, y, d->r.x + d->r.w - x, u->s, u->n, u->style);
	else if (x + u->width <= d->r.x + d->r.w)
		grid_put_char(d->g, x, y, u->s, u->n, u->width, u->style);
}

void
editor_draw(const struct editor *ed, struct grid *g, struct grid_rect r, int *cx, int *cy)
{
	struct ed_draw d = { ed, g, r, 0, 0, 0 };
	int tw = r.w - ED_GUTTER;

	grid_clear_rect(g, r, THEME_TEXT);
	ed_walk(ed, tw, ed_find_cursor, &d);
	if (r.h > 0 && d.crow >= r.h)
		d.skip = d.crow - r.h + 1;
	if (d.skip == 0 && r.h > 0)
		grid_put(g, r.x, r.y, r.w, "\xe2\x80\xba ", 4, THEME_ACCENT);
	ed_walk(ed, tw, ed_draw_unit, &d);
	*cx = r.x + ED_GUTTER + d.ccol;
	*cy = r.y + d.crow - d.skip;
	if (*cx >= r.x + r.w)
		*cx = r.x + r.w - 1;
}

void
editor_display(const struct editor *ed, struct buf *out)
{
	struct ed_unit u;
	size_t pos = 0;

	while (pos < ed->text.len) {
		pos = ed_unit(ed, pos, &u);
		buf_add(out, u.s, u.n);
	}
}

/* Delete text[from, to), saving it to the kill ring when kill is set. */
static void
ed_delete(struct editor *ed, size_t from, size_t to, int kill)
{
	if (to <= from)
		return;
	if (kill) {
		buf_setlen(&ed->kill, 0);
		ed_expand(ed, from, to, &ed->kill);
	}
	buf_remove(&ed->text, from, to - from);
	ed->cur = from;
}

/* Start of the line the cursor is on. */
static size_t
ed_bol(const struct editor *ed, size_t pos)
{
	while (pos > 0 && ed->text.data[pos - 1] != '\n')
		pos--;
	return pos;
}

/* End of the line the cursor is on (at its '\n' or the end). */
static size_t
ed_eol(const struct editor *ed, size_t pos)
{
	while (pos < ed->text.len && ed->text.data[pos] != '\n')
		pos++;
	return pos;
}

/* Ctrl-W: the word before the cursor (blanks first, then non-blanks). */
static void
ed_kill_word(struct editor *ed)
{
	size_t p = ed->cur;

	while (p > 0 && (ed->text.data[p - 1] == ' ' || ed->text.data[p - 1] == '\t'))
		p--;
	while (p > 0 && ed->text.data[p - 1] != ' ' && ed->text.data[p - 1] != '\t' &&
	       ed->text.data[p - 1] != '\n')
		p = ed_prev(ed, p);
	ed_delete(ed, p, ed->cur, 1);
}

/* Replace the whole buffer with s, cursor at the end (history, completion). */
void
editor_set(struct editor *ed, const char *s)
{
	buf_setlen(&ed->text, 0);
	ed->cur = 0;
	ed_drop_pastes(ed);
	editor_insert(ed, s, strlen(s));
}

/* Move to the line starting at bol, at the cursor's character column (or its end). */
static void
ed_vmove(struct editor *ed, size_t bol)
{
	size_t p = ed_bol(ed, ed->cur), eol = ed_eol(ed, bol);
	long col = 0;

	for (; p < ed->cur; p = ed_next(ed, p))
		col++;
	for (ed->cur = bol; col-- > 0 && ed->cur < eol;)
		ed->cur = ed_next(ed, ed->cur);
}

/* Up: the previous line, or the previous history entry on the first line. */
static void
ed_up(struct editor *ed)
{
	size_t bol = ed_bol(ed, ed->cur);

	if (bol > 0) {
		ed_vmove(ed, ed_bol(ed, bol - 1));
		return;
	}
	if (!ed->nhist || ed->hidx == 0)
		return;
	if (ed->hidx < 0) {
		buf_setlen(&ed->draft, 0);
		editor_text(ed, &ed->draft);
		ed->hidx = (long)ed->nhist;
	}
	ed->hidx--;
	editor_set(ed, ed->hist[ed->hidx]);
}

/* Down: the next line, or the next history entry (then the draft) on the last line. */
static void
ed_down(struct editor *ed)
{
	size_t eol = ed_eol(ed, ed->cur);

	if (eol < ed->text.len) {
		ed_vmove(ed, eol + 1);
		return;
	}
	if (ed->hidx < 0)
		return;
	if (++ed->hidx >= (long)ed->nhist) {
		ed->hidx = -1;
		editor_set(ed, ed->draft.data ? ed->draft.data : "");
		return;
	}
	editor_set(ed, ed->hist[ed->hidx]);
}

/* Ctrl-letter keys. */
static enum editor_result
ed_ctrl(struct editor *ed, uint32_t c)
{
	switch (c) {
	case 'a': ed->cur = ed_bol(ed, ed->cur); break;
	case 'e': ed->cur = ed_eol(ed, ed->cur); break;
	case 'k':
		ed_delete(ed, ed->cur, ed_eol(ed, ed->cur) == ed->cur && ed->cur < ed->text.len ?
		    ed->cur + 1 : ed_eol(ed, ed->cur), 1);
		break;
	case 'u': ed_delete(ed, ed_bol(ed, ed->cur), ed->cur, 1); break;
	case 'w': ed_kill_word(ed); break;
	case 'y': editor_paste(ed, ed->kill.data, ed->kill.len); break;
	default: return EDITOR_IGNORED;
	}
	return EDITOR_DONE;
}

enum editor_result
editor_key(struct editor *ed, const struct keys_event *ev)
{
	switch (ev->kind) {
	case KEYS_CHAR:
		if (ev->mods & KEYS_MOD_CTRL)
			return ed_ctrl(ed, ev->cp);
		if (ev->mods & KEYS_MOD_ALT)
			return EDITOR_IGNORED;
		editor_insert(ed, ev->utf8, strlen(ev->utf8));
		return EDITOR_DONE;
	case KEYS_ENTER:
		if (!(ev->mods & KEYS_MOD_ALT))
			return EDITOR_SUBMIT;
		editor_insert(ed, "\n", 1);
		return EDITOR_DONE;
	case KEYS_PASTE: editor_paste(ed, ev->paste, ev->paste_len); return EDITOR_DONE;
	case KEYS_BACKSPACE: ed_delete(ed, ed_prev(ed, ed->cur), ed->cur, 0); return EDITOR_DONE;
	case KEYS_DELETE: ed_delete(ed, ed->cur, ed_next(ed, ed->cur), 0); return EDITOR_DONE;
	case KEYS_LEFT: ed->cur = ed_prev(ed, ed->cur); return EDITOR_DONE;
	case KEYS_RIGHT: ed->cur = ed_next(ed, ed->cur); return EDITOR_DONE;
	case KEYS_HOME: ed->cur = ed_bol(ed, ed->cur); return EDITOR_DONE;
	case KEYS_END: ed->cur = ed_eol(ed, ed->cur); return EDITOR_DONE;
	case KEYS_UP: ed_up(ed); return EDITOR_DONE;
	case KEYS_DOWN: ed_down(ed); return EDITOR_DONE;
	default: return EDITOR_IGNORED;
	}
}

void
editor_history_add(struct editor *ed, const char *s)
{
	if (!*s || (ed->nhist && !strcmp(ed->hist[ed->nhist - 1], s)))
		return;
	if (ed->nhist == EDITOR_HISTORY_MAX) {
		free(ed->hist[0]);
		memmove(ed->hist, ed->hist + 1, (ed->nhist - 1) * sizeof *ed->hist);
		ed->nhist--;
	}
	ed->hist = xrealloc(ed->hist, (ed->nhist + 1) * sizeof *ed->hist);
	ed->hist[ed->nhist++] = xstrdup(s);
}

void
editor_clear(struct editor *ed)
{
	editor_set(ed, "");
	ed->hidx = -1;
	buf_setlen(&ed->draft, 0);
}

void
editor_take(struct editor *ed, struct buf *out)
{
	size_t start = out->len;

	editor_text(ed, out);
	editor_history_add(ed, out->data + start);
	editor_clear(ed);
}

int
editor_empty(const struct editor *ed)
{
	return ed->text.len == 0;
}

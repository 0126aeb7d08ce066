/*
 * ui/term/draw: sanitised text into the grid (see ui/term/draw.h).
 *
 * Text is read through a unit iterator (struct src): each step yields one
 * display unit — a printable character with its width, a space, a tab, a
 * line break or a zero-width mark.  Bytes that must not reach a terminal
 * are turned into the characters of their visible escape ("^[", "<U+009B>")
 * inside the iterator, so every consumer (wrap, measure, one-row draws)
 * sees only safe units and measures exactly what it draws.  The iterator
 * is a small value: copying it saves a position (used to look ahead over a
 * word before placing it).
 */
#include "ui/term/draw.h"

#include <stdio.h>
#include <string.h>

enum unit_kind { U_CHAR, U_SPACE, U_TAB, U_NL, U_MARK };

struct unit {
	const char *p; /* bytes (into the source or the escape buffer) */
	size_t n;
	int w;
	enum unit_kind kind;
};

struct src {
	const char *s;
	size_t n, i;
	int oneline;  /* '\n' is shown as ^J */
	char esc[16]; /* pending visible escape */
	size_t escn, escpos;
};

/* The wrap/measure state: a cursor over rows of `width` columns. */
struct lay {
	struct grid *g; /* NULL: measure only */
	struct grid_rect r;
	int skip;
	uint16_t style;
	int width, row, col;
	int soft; /* the current row began at a soft wrap */
};

static int draw_ascii;

/* Whether cp must be shown as <U+XXXX> (C1 controls, bidi overrides). */
static int
escaped_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* Start a pending escape string. */
static void
src_escape(struct src *r, const char *text)
{
	r->escn = strlen(text);
	memcpy(r->esc, text, r->escn);
	r->escpos = 0;
}

/* Classify a decoded character at r->i of k bytes. */
static void
src_classify(struct src *r, uint32_t cp, size_t k, struct unit *u)
{
	char tmp[16];

	u->p = r->s + r->i;
	u->n = k;
	u->w = 1;
	u->kind = U_CHAR;
	if (cp == ' ')
		u->kind = U_SPACE;
	else if (cp == '\t')
		u->kind = U_TAB;
	else if (cp == '\n' && !r->oneline)
		u->kind = U_NL;
	else if (cp < 0x20 || cp == 0x7f) {
		snprintf(tmp, sizeof tmp, "^%c", cp == 0x7f ? '?' : (char)(cp + 0x40));
		src_escape(r, tmp);
	} else if (escaped_cp(cp)) {
		snprintf(tmp, sizeof tmp, "<U+%04X>", (unsigned)cp);
		src_escape(r, tmp);
	} else if ((u->w = grid_cp_width(cp)) == 0) {
		u->kind = U_MARK;
	} else if (u->w < 0) {
		u->p = "\xef\xbf\xbd";
		u->n = 3;
		u->w = 1;
	}
}

/* Next display unit; 0 at the end of the text. */
static int
src_next(struct src *r, struct unit *u)
{
	uint32_t cp;
	size_t k;

	if (r->escpos < r->escn) {
		u->p = r->esc + r->escpos++;
		u->n = 1;
		u->w = 1;
		u->kind = U_CHAR;
		return 1;
	}
	if (r->i >= r->n)
		return 0;
	if (r->s[r->i] == '\r' && r->i + 1 < r->n && r->s[r->i + 1] == '\n' && !r->oneline)
		r->i++; /* CRLF is a line break */
	k = grid_utf8_decode(r->s + r->i, r->n - r->i, &cp);
	if (!k) {
		u->p = "\xef\xbf\xbd";
		u->n = 3;
		u->w = 1;
		u->kind = U_CHAR;
		r->i++;
		return 1;
	}
	src_classify(r, cp, k, u);
	r->i += k;
	if (r->escpos < r->escn)
		return src_next(r, u);
	return 1;
}

/* Iterator over n bytes of s. */
static struct src
src_init(const char *s, size_t n, int oneline)
{
	struct src r;

	memset(&r, 0, sizeof r);
	r.s = s ? s : "";
	r.n = s ? n : 0;
	r.oneline = oneline;
	return r;
}

/* Draw a unit at the layout cursor when its row is visible; advance. */
static void
lay_emit(struct lay *L, const char *p, size_t n, int w, int mark)
{
	int y = L->row - L->skip;

	if (L->g && y >= 0 && y < L->r.h) {
		if (mark) {
			if (L->col > 0)
				grid_attach(L->g, L->r.x + L->col - 1, L->r.y + y, p, n);
		} else {
			grid_put_char(L->g, L->r.x + L->col, L->r.y + y, p, n, w, L->style);
		}
	}
	if (!mark)
		L->col += w;
}

/* Start a new row. */
static void
lay_break(struct lay *L, int soft)
{
	L->row++;
	L->col = 0;
	L->soft = soft;
}

/* Width of the word starting at *r (stops before a space, tab or break). */
static int
word_width(struct src r)
{
	struct unit u;
	int w = 0;

	while (src_next(&r, &u)) {
		if (u.kind == U_SPACE || u.kind == U_TAB || u.kind == U_NL)
			break;
		w += u.kind == U_MARK ? 0 : u.w;
	}
	return w;
}

/* Place one blank run unit (space or tab) unless it falls at a wrap. */
static void
lay_blank(struct lay *L, const struct unit *u)
{
	int w = u->kind == U_TAB ? 8 - L->col % 8 : 1;

	if (L->col == 0 && L->soft)
		return; /* spaces at a soft break are dropped */
	if (L->col + w > L->width)
		w = L->width - L->col;
	while (w-- > 0)
		lay_emit(L, " ", 1, 1, 0);
}

/* Place one character of a word, breaking the row when it does not fit. */
static void
lay_char(struct lay *L, const struct unit *u)
{
	if (u->kind == U_MARK) {
		lay_emit(L, u->p, u->n, 0, 1);
		return;
	}
	if (L->col + u->w > L->width && L->col > 0)
		lay_break(L, 1);
	if (u->w > L->width) /* a wide character in a 1-column rect */
		lay_emit(L, "\xef\xbf\xbd", 3, 1, 0);
	else
		lay_emit(L, u->p, u->n, u->w, 0);
}

/* The greedy word-wrap shared by draw_wrap and draw_measure. */
static int
lay_run(struct lay *L, const char *s, size_t n)
{
	struct src r = src_init(s, n, 0), save;
	struct unit u;
	int ww, inword = 0;

	if (L->width < 1)
		L->width = 1;
	for (save = r; src_next(&r, &u); save = r) {
		if (u.kind == U_NL) {
			lay_break(L, 0);
			inword = 0;
		} else if (u.kind == U_SPACE || u.kind == U_TAB) {
			lay_blank(L, &u);
			inword = 0;
		} else {
			if (!inword) {
				ww = word_width(save);
				if (L->col > 0 && L->col + ww > L->width)
					lay_break(L, 1);
				inword = 1;
			}
			lay_char(L, &u);
		}
	}
	return L->row + 1;
}

/* Wrap and draw the visible rows. */
int
draw_wrap(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n,
    uint16_t style)
{
	struct lay L;

	memset(&L, 0, sizeof L);
	L.g = g;
	L.r = r;
	L.skip = skip;
	L.style = style;
	L.width = r.w;
	return lay_run(&L, s, n);
}

/* Wrap without drawing. */
int
draw_measure(int width, const char *s, size_t n)
{
	struct lay L;

	memset(&L, 0, sizeof L);
	L.width = width;
	return lay_run(&L, s, n);
}

/* Put w columns of unit u at (x, y): a character, or blanks for space/tab. */
static void
put_unit(struct grid *g, int x, int y, const struct unit *u, int w, uint16_t style)
{
	int i;

	if (!g)
		return;
	if (u->kind == U_CHAR) {
		grid_put_char(g, x, y, u->p, u->n, w, style);
		return;
	}
	for (i = 0; i < w; i++)
		grid_put_char(g, x + i, y, " ", 1, 1, style);
}

/* One row, clipped at maxw columns; a wide character cut there shows as a space. */
int
draw_text(struct grid *g, int x, int y, int maxw, const char *s, size_t n,
    uint16_t style)
{
	static const struct unit blank = { " ", 1, 1, U_SPACE };
	struct src r = src_init(s, n, 1);
	struct unit u;
	int col = 0, w;

	while (col < maxw && src_next(&r, &u)) {
		if (u.kind == U_MARK) {
			if (col > 0 && g)
				grid_attach(g, x + col - 1, y, u.p, u.n);
			continue;
		}
		w = u.kind == U_TAB ? 8 - col % 8 : u.w;
		if (col + w > maxw) {
			w = maxw - col;
			if (u.kind == U_CHAR)
				u = blank;
		}
		put_unit(g, x + col, y, &u, w, style);
		col += w;
	}
	return col;
}

/* Sanitised single-row width. */
int
draw_width(const char *s, size_t n)
{
	return draw_text(NULL, 0, 0, 1 << 30, s, n, 0);
}

/* One row with an ellipsis when cut. */
int
draw_trunc(struct grid *g, int x, int y, int w, const char *s, size_t n,
    uint16_t style)
{
	int used;

	if (w <= 0)
		return 0;
	if (draw_width(s, n) <= w)
		return draw_text(g, x, y, w, s, n, style);
	used = draw_text(g, x, y, w - 1, s, n, style);
	grid_put_char(g, x + used, y, draw_ascii ? "~" : "\xe2\x80\xa6", draw_ascii ? 1 : 3,
	    1, style);
	return used + 1;
}

/* Fill a rectangle with one character. */
void
draw_fill(struct grid *g, struct grid_rect r, const char *ch, uint16_t style)
{
	int x, y;

	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			grid_put_char(g, x, y, ch, strlen(ch), 1, style);
}

/* Horizontal rule. */
void
draw_hline(struct grid *g, int x, int y, int w, uint16_t style)
{
	struct grid_rect r = { x, y, w, 1 };

	draw_fill(g, r, draw_ascii ? "-" : "\xe2\x94\x80", style);
}

/* Vertical rule. */
void
draw_vline(struct grid *g, int x, int y, int h, uint16_t style)
{
	struct grid_rect r = { x, y, 1, h };

	draw_fill(g, r, draw_ascii ? "|" : "\xe2\x94\x82", style);
}

/* Box outline with corners. */
void
draw_box(struct grid *g, struct grid_rect r, uint16_t style)
{
	static const char *const uc[4] = { "\xe2\x94\x8c", "\xe2\x94\x90", "\xe2\x94\x94",
		"\xe2\x94\x98" };
	int i;

	if (r.w < 2 || r.h < 2)
		return;
	draw_hline(g, r.x + 1, r.y, r.w - 2, style);
	draw_hline(g, r.x + 1, r.y + r.h - 1, r.w - 2, style);
	draw_vline(g, r.x, r.y + 1, r.h - 2, style);
	draw_vline(g, r.x + r.w - 1, r.y + 1, r.h - 2, style);
	for (i = 0; i < 4; i++)
		grid_put_char(g, i % 2 ? r.x + r.w - 1 : r.x, i < 2 ? r.y : r.y + r.h - 1,
		    draw_ascii ? "+" : uc[i], draw_ascii ? 1 : 3, 1, style);
}

/* Choose ASCII line drawing. */
void
draw_set_ascii(int ascii)
{
	draw_ascii = ascii;
}

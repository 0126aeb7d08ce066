/*
 * ui/view/highlight: cached syntax roles and coloured code rows (see ui/view/highlight.h).
 *
 * Cache: `cache[]` holds up to HIGHLIGHT_CACHE entries, each a copy of the
 * text it was computed from (so a hit is a length compare plus memcmp,
 * never a stale colouring of different bytes), the language and a role
 * per byte; `next` is the slot the next miss replaces (round robin).  A
 * text that is plain is cached too (roles NULL), so an unknown language
 * costs one lookup per frame, not a parse.  An entry of
 * highlight_roles_growing (`growing`) is coloured in chunks and is found
 * only by that function (a whole colouring is found by both).
 */
#include "ui/view/highlight.h"

#include <stdlib.h>
#include <string.h>

#include "ui/term/draw.h"
#include "base/xmalloc.h"

struct entry {
	const struct code_lang *lang;
	char *text;
	size_t n, cap;
	uint16_t *roles; /* NULL: plain */
	int used;
	int growing;     /* highlight_roles_growing's: coloured chunk by chunk */
	size_t settled;  /* growing: roles[0..settled) are final (whole chunks) */
};

static struct entry cache[HIGHLIGHT_CACHE];
static size_t next;
static const struct theme *theme;

/* Use the theme's capture map. */
void
highlight_set_theme(const struct theme *th)
{
	theme = th;
	highlight_reset(); /* roles depend on the map */
}

/* Free every cached entry. */
void
highlight_reset(void)
{
	size_t i;

	for (i = 0; i < HIGHLIGHT_CACHE; i++) {
		free(cache[i].text);
		free(cache[i].roles);
		memset(&cache[i], 0, sizeof cache[i]);
	}
	next = 0;
}

/* Role of one span: the theme's capture map, else syn's kind. */
static uint16_t
span_role(const struct code_span *sp)
{
	int r;

	if (theme) {
		r = theme_capture_role(theme, sp->capture);
		if (r != THEME_TEXT)
			return (uint16_t)r;
	}
	return (uint16_t)(THEME_KEYWORD + (int)sp->kind - CODE_KEYWORD);
}

/* Highlight text into a new role array; NULL when plain. */
static uint16_t *
compute(const struct code_lang *lang, const char *text, size_t n)
{
	struct code_hl h;
	struct err e = ERR_INIT;
	uint16_t *roles = NULL;
	size_t i, j;

	if (!lang || code_highlight(lang, text, n, &h, &e) < 0 || h.n == 0) {
		if (lang)
			code_hl_release(&h);
		return NULL;
	}
	roles = xmalloc((n ? n : 1) * sizeof *roles);
	for (i = 0; i < n; i++)
		roles[i] = THEME_TEXT;
	for (i = 0; i < h.n; i++)
		for (j = h.spans[i].start; j < h.spans[i].end && j < n; j++)
			roles[j] = span_role(&h.spans[i]);
	code_hl_release(&h);
	return roles;
}

/* The next slot, emptied, for lang. */
static struct entry *
take_slot(const struct code_lang *lang)
{
	struct entry *e = &cache[next];

	next = (next + 1) % HIGHLIGHT_CACHE;
	free(e->text);
	free(e->roles);
	memset(e, 0, sizeof *e);
	e->lang = lang;
	e->used = 1;
	return e;
}

/* Cached per-byte roles of a text. */
const uint16_t *
highlight_roles(const struct code_lang *lang, const char *text, size_t n)
{
	struct entry *e;
	size_t i;

	if (!lang || !text || !n || n > CODE_HL_MAX_BYTES)
		return NULL; /* huge texts stay plain: no copy, no parse per frame */
	for (i = 0; i < HIGHLIGHT_CACHE; i++) {
		e = &cache[i];
		if (e->used && !e->growing && e->lang == lang && e->n == n && !memcmp(e->text, text, n))
			return e->roles;
	}
	e = take_slot(lang);
	e->text = xmalloc(n);
	memcpy(e->text, text, n);
	e->n = e->cap = n;
	e->roles = compute(lang, text, n);
	return e->roles;
}

/*
 * Colour text[a..b) of e on its own into e->roles (THEME_TEXT where
 * plain).  e->roles holds at least b entries.
 */
static void
colour_chunk(struct entry *e, const char *text, size_t a, size_t b)
{
	uint16_t *r = compute(e->lang, text + a, b - a);
	size_t i;

	if (r)
		memcpy(e->roles + a, r, (b - a) * sizeof *r);
	else
		for (i = a; i < b; i++)
			e->roles[i] = THEME_TEXT;
	free(r);
}

/*
 * Roles of a block that is still growing (see ui/view/highlight.h): whole
 * chunks of about HIGHLIGHT_CHUNK bytes (cut at a line start) are coloured
 * once and kept; only the tail after the last one is coloured again.
 */
const uint16_t *
highlight_roles_growing(const struct code_lang *lang, const char *text, size_t n)
{
	struct entry *e, *grow = NULL;
	size_t i, b;
	const char *nl;

	if (!lang || !text || !n || n > CODE_HL_MAX_BYTES)
		return NULL;
	for (i = 0; i < HIGHLIGHT_CACHE; i++) {
		e = &cache[i];
		if (!e->used || e->lang != lang)
			continue;
		if (e->n == n && !memcmp(e->text, text, n))
			return e->roles; /* a whole colouring is as good */
		if (e->growing && e->n < n && e->settled <= e->n && (!grow || e->n > grow->n) &&
		    !memcmp(e->text, text, e->n))
			grow = e;
	}
	if (!(e = grow)) {
		e = take_slot(lang);
		e->growing = 1;
	}
	if (n > e->cap) {
		e->cap = n + n / 2 + 64;
		e->text = xrealloc(e->text, e->cap);
		e->roles = xrealloc(e->roles, e->cap * sizeof *e->roles);
	}
	memcpy(e->text + e->n, text + e->n, n - e->n); /* text[0..e->n) is e's already */
	e->n = n;
	while (n - e->settled > HIGHLIGHT_CHUNK) { /* a whole chunk more: colour it for good */
		b = e->settled + HIGHLIGHT_CHUNK;
		for (nl = NULL, i = b; i > e->settled + HIGHLIGHT_CHUNK / 2; i--)
			if (text[i - 1] == '\n') {
				nl = text + i;
				break;
			}
		if (nl)
			b = (size_t)(nl - text);
		colour_chunk(e, text, e->settled, b);
		e->settled = b;
	}
	colour_chunk(e, text, e->settled, n);
	return e->roles;
}

/* Draw a code line in runs of one role each. */
int
highlight_line(struct grid *g, int x, int y, int w, const char *s, size_t n,
    const uint16_t *roles, uint16_t base)
{
	struct buf e = BUF_INIT;
	uint16_t *er = xmalloc((n * 8 + 1) * sizeof *er);
	size_t i, a, b;
	int col = 0, lim, total;

	for (i = 0; i < n; i++) {
		uint16_t r = roles && roles[i] != THEME_TEXT ? roles[i] : base;
		if (s[i] == '\t') {
			do {
				er[e.len] = r;
				buf_addch(&e, ' ');
			} while (++col % 8);
			continue;
		}
		er[e.len] = r;
		buf_addch(&e, s[i]);
		col += ((unsigned char)s[i] & 0xC0) != 0x80;
	}
	total = draw_width(e.data ? e.data : "", e.len);
	lim = total > w ? w - 1 : w;
	col = 0;
	for (a = 0; a < e.len && col < lim; a = b) {
		for (b = a + 1; b < e.len && er[b] == er[a]; b++)
			;
		while (b < e.len && ((unsigned char)e.data[b] & 0xC0) == 0x80)
			b++; /* never split a character */
		col += draw_text(g, x + col, y, lim - col, e.data + a, b - a, er[a]);
	}
	if (total > w && w > 0)
		col += draw_text(g, x + col, y, 1, "\xe2\x80\xa6", 3, base);
	buf_release(&e);
	free(er);
	return col;
}

/* The "+++ " file name of a diff's lines, NUL-terminated in out. */
static void
diff_path(const char *const *ls, const size_t *ln, size_t nl, char *out, size_t cap)
{
	size_t k, m;
	const char *p;

	out[0] = '\0';
	for (k = 0; k < nl; k++) {
		if (ln[k] < 4 || memcmp(ls[k], "+++ ", 4))
			continue;
		p = ls[k] + 4;
		m = ln[k] - 4;
		if (m >= 2 && !memcmp(p, "b/", 2))
			p += 2, m -= 2;
		if (m >= cap)
			m = cap - 1;
		memcpy(out, p, m);
		out[m] = '\0';
		return;
	}
}

/* Whether line k is a hunk body line ('+', '-', ' ' or empty context). */
static int
body_line(const char *const *ls, const size_t *ln, size_t k, char *sign)
{
	if (ln[k] >= 3 && (!memcmp(ls[k], "---", 3) || !memcmp(ls[k], "+++", 3)))
		return 0;
	if (ln[k] >= 2 && !memcmp(ls[k], "@@", 2))
		return 0;
	*sign = ln[k] ? ls[k][0] : ' ';
	return *sign == '+' || *sign == '-' || *sign == ' ';
}

/* Rebuild both sides of the diff and highlight them. */
void
highlight_diff_init(struct highlight_diff *d, const char *const *ls, const size_t *ln, size_t nl)
{
	struct buf side[2] = { BUF_INIT, BUF_INIT };
	const struct code_lang *lang;
	const uint16_t *r;
	char path[512], sign;
	size_t k;
	int s;

	memset(d, 0, sizeof *d);
	d->nlines = nl;
	d->off = xmalloc((nl ? nl : 1) * sizeof *d->off);
	diff_path(ls, ln, nl, path, sizeof path);
	lang = code_lang_for_path(path);
	for (k = 0; k < nl; k++) {
		d->off[k] = (size_t)-1;
		if (!lang || !body_line(ls, ln, k, &sign))
			continue;
		s = sign == '+';
		d->off[k] = side[s].len;
		buf_add(&side[s], ln[k] ? ls[k] + 1 : "", ln[k] ? ln[k] - 1 : 0);
		buf_addch(&side[s], '\n');
		if (sign == ' ') /* context belongs to both sides */
			buf_add(&side[1], ln[k] ? ls[k] + 1 : "", ln[k] ? ln[k] - 1 : 0),
			buf_addch(&side[1], '\n');
	}
	for (s = 0; s < 2; s++) {
		if ((r = highlight_roles(lang, side[s].data, side[s].len)) != NULL) {
			d->side[s] = xmalloc(side[s].len * sizeof *r);
			memcpy(d->side[s], r, side[s].len * sizeof *r);
		}
		buf_release(&side[s]);
	}
}

/* Roles of line k's text, from the side it belongs to. */
const uint16_t *
highlight_diff_line(const struct highlight_diff *d, const char *const *ls, const size_t *ln,
    size_t k)
{
	const uint16_t *side;

	if (k >= d->nlines || d->off[k] == (size_t)-1)
		return NULL;
	side = d->side[ln[k] && ls[k][0] == '+'];
	return side ? side + d->off[k] : NULL;
}

/* Free the sides. */
void
highlight_diff_release(struct highlight_diff *d)
{
	free(d->off);
	free(d->side[0]);
	free(d->side[1]);
	memset(d, 0, sizeof *d);
}

/* Build both sides of a parsed diff and highlight them. */
void
highlight_lines_init(struct highlight_lines *h, const struct diff *d, const char *path)
{
	const struct code_lang *lang = code_lang_for_path(path);
	struct buf side[2] = { BUF_INIT, BUF_INIT };
	size_t *off, k;
	int s;

	memset(h, 0, sizeof *h);
	if (!lang || !d->nlines)
		return;
	off = xmalloc(d->nlines * sizeof *off);
	for (k = 0; k < d->nlines; k++) {
		const struct diff_line *l = &d->lines[k];
		s = l->kind == DIFF_ADD;
		off[k] = side[s].len;
		buf_add(&side[s], l->text, l->len);
		buf_addch(&side[s], '\n');
		if (l->kind == DIFF_CTX) {
			buf_add(&side[1], l->text, l->len);
			buf_addch(&side[1], '\n');
		}
	}
	for (s = 0; s < 2; s++)
		if (side[s].len <= CODE_HL_MAX_BYTES)
			h->side[s] = compute(lang, side[s].data, side[s].len);
	h->n = d->nlines;
	h->line = xcalloc(d->nlines, sizeof *h->line);
	for (k = 0; k < d->nlines; k++) {
		s = d->lines[k].kind == DIFF_ADD;
		h->line[k] = h->side[s] ? h->side[s] + off[k] : NULL;
	}
	free(off);
	buf_release(&side[0]);
	buf_release(&side[1]);
}

/* Free the sides. */
void
highlight_lines_release(struct highlight_lines *h)
{
	free(h->line);
	free(h->side[0]);
	free(h->side[1]);
	memset(h, 0, sizeof *h);
}

/* Expand tabs to 4-column stops, carrying each byte's syntax role into er. */
static void
expand4(struct buf *out, uint16_t *er, const char *s, const uint16_t *syn, size_t a,
    size_t b, int *col)
{
	size_t i;

	for (i = a; i < b; i++) {
		do {
			er[out->len] = syn ? syn[i] : THEME_TEXT;
			buf_addch(out, s[i] == '\t' ? ' ' : s[i]);
		} while (s[i] == '\t' && ++*col % 4);
		if (s[i] != '\t')
			*col += ((unsigned char)s[i] & 0xC0) != 0x80;
	}
}

/* Draw e[a..b) in base with the syntax roles er mixed over it. */
static int
put_mixed(struct grid *g, int x, int y, int w, const struct buf *e, const uint16_t *er,
    size_t a, size_t b, uint16_t base)
{
	int col = 0;
	size_t j;
	uint16_t r;

	while (a < b && col < w) {
		for (j = a + 1; j < b && er[j] == er[a]; j++)
			;
		while (j < b && ((unsigned char)e->data[j] & 0xC0) == 0x80)
			j++;
		r = er[a] == THEME_TEXT ? base : base == THEME_TEXT ? er[a] : THEME_MIX(er[a], base);
		col += draw_text(g, x + col, y, w - col, e->data + a, j - a, r);
		a = j;
	}
	return col;
}

/* A diff line's text in three segments, syntax mixed over each. */
int
highlight_diff_text(struct grid *g, int x, int y, int w, const char *s, size_t n,
    const uint16_t *syn, size_t pre, size_t suf, uint16_t role, uint16_t wrole)
{
	struct buf e = BUF_INIT;
	uint16_t *er = xmalloc((n * 4 + 1) * sizeof *er);
	size_t a, b;
	int col = 0, cx = 0;

	if (pre > n)
		pre = n;
	if (suf > n - pre)
		suf = n - pre;
	expand4(&e, er, s, syn, 0, pre, &col);
	a = e.len;
	expand4(&e, er, s, syn, pre, n - suf, &col);
	b = e.len;
	expand4(&e, er, s, syn, n - suf, n, &col);
	cx += put_mixed(g, x + cx, y, w - cx, &e, er, 0, a, role);
	cx += put_mixed(g, x + cx, y, w - cx, &e, er, a, b, wrole);
	cx += put_mixed(g, x + cx, y, w - cx, &e, er, b, e.len, role);
	buf_release(&e);
	free(er);
	return cx;
}

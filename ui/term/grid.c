/*
 * ui/term/grid: cells, wide-character padding and dirty rows (see ui/term/grid.h).
 *
 * Every write goes through cell_set(), which marks the row as possibly
 * changed when the value differs; the wide character invariants (lead +
 * padding, never split) are repaired by unpair() before a cell is
 * overwritten.  `front` holds each row as it was at its last grid_clean()
 * (what the backend shows), so a row cleared and redrawn identically in one
 * frame is not dirty: dirty[] is 0 (same as front), 1 (written since:
 * compare with front) or 2 (forced: resize, grid_touch).
 */
#include "ui/term/grid.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "base/sanitize.h"
#include "base/xmalloc.h"

#define REPLACEMENT "\xef\xbf\xbd"

/* Mutable cell pointer; callers have checked the bounds. */
static struct grid_cell *
cell(struct grid *g, int x, int y)
{
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/* Store text/width/style into c, marking row y dirty if anything changed. */
static void
cell_set(struct grid *g, int x, int y, const char *s, size_t n, int width,
    uint16_t style)
{
	struct grid_cell *c = cell(g, x, y);

	if (n > GRID_CELL_BYTES)
		n = GRID_CELL_BYTES;
	if (c->width == width && c->style == style && strlen(c->text) == n &&
	    memcmp(c->text, s, n) == 0)
		return;
	memset(c->text, 0, sizeof c->text);
	memcpy(c->text, s, n);
	c->width = (uint8_t)width;
	c->style = style;
	g->dirty[y] = 1;
}

/* Blank one cell. */
static void
cell_blank(struct grid *g, int x, int y, uint16_t style)
{
	cell_set(g, x, y, " ", 1, 1, style);
}

/*
 * Before (x, y) is overwritten: if it is half of a wide character, blank
 * the other half so no orphan lead or padding remains.
 */
static void
unpair(struct grid *g, int x, int y)
{
	struct grid_cell *c = cell(g, x, y);

	if (c->width == 0 && x > 0)
		cell_blank(g, x - 1, y, cell(g, x - 1, y)->style);
	else if (c->width == 2 && x + 1 < g->w)
		cell_blank(g, x + 1, y, cell(g, x + 1, y)->style);
}

/* Make *c a space, keeping its style (no dirty marking: resize marks all). */
static void
raw_blank(struct grid_cell *c)
{
	memset(c->text, 0, sizeof c->text);
	c->text[0] = ' ';
	c->width = 1;
}

/* Allocate a grid of w×h blank cells. */
struct grid *
grid_new(int w, int h)
{
	struct grid *g = xcalloc(1, sizeof *g);

	grid_resize(g, w, h);
	return g;
}

/* Free the grid and its arrays. */
void
grid_free(struct grid *g)
{
	if (!g)
		return;
	free(g->cells);
	free(g->front);
	free(g->dirty);
	free(g);
}

/* Reallocate, copying the top-left part that fits. */
void
grid_resize(struct grid *g, int w, int h)
{
	struct grid_cell *cells;
	struct grid_cell *c;
	int x, y;

	w = w < 0 ? 0 : w;
	h = h < 0 ? 0 : h;
	cells = xcalloc((size_t)w * (size_t)h + 1, sizeof *cells);
	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			c = &cells[(size_t)y * (size_t)w + (size_t)x];
			if (y < g->h && x < g->w)
				*c = *cell(g, x, y);
			else
				raw_blank(c);
		}
		c = &cells[(size_t)y * (size_t)w + (size_t)w - 1];
		if (w > 0 && c->width == 2)
			raw_blank(c); /* its padding fell off the new edge */
	}
	free(g->cells);
	free(g->front);
	free(g->dirty);
	g->cells = cells;
	g->front = xcalloc((size_t)w * (size_t)h + 1, sizeof *cells);
	g->dirty = xmalloc((size_t)h + 1);
	memset(g->dirty, 2, (size_t)h + 1);
	g->w = w;
	g->h = h;
}

/* Blank everything. */
void
grid_clear(struct grid *g, uint16_t style)
{
	struct grid_rect r = { 0, 0, g->w, g->h };

	grid_clear_rect(g, r, style);
}

/* Blank a clipped rectangle, repairing wide characters cut at its sides. */
void
grid_clear_rect(struct grid *g, struct grid_rect r, uint16_t style)
{
	int x, y, x1, y1;

	x1 = r.x + r.w > g->w ? g->w : r.x + r.w;
	y1 = r.y + r.h > g->h ? g->h : r.y + r.h;
	r.x = r.x < 0 ? 0 : r.x;
	r.y = r.y < 0 ? 0 : r.y;
	for (y = r.y; y < y1; y++) {
		for (x = r.x; x < x1; x++) {
			unpair(g, x, y);
			cell_blank(g, x, y, style);
		}
	}
}

/* Bounds-checked read access. */
const struct grid_cell *
grid_at(const struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/*
 * Whether s holds only printable UTF-8: no C0, DEL, C1, invalid bytes, and
 * no bidi override/isolate (U+202A–202E, U+2066–2069), which could reorder
 * what a bidi-aware terminal shows.
 */
static int
printable(const char *s, size_t n)
{
	size_t i = 0, k;
	uint32_t cp;

	if (n == 0)
		return 0;
	while (i < n) {
		k = grid_utf8_decode(s + i, n - i, &cp);
		if (!k || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ||
		    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			return 0;
		i += k;
	}
	return 1;
}

/* Place one grapheme, keeping the wide-character invariants. */
int
grid_put_char(struct grid *g, int x, int y, const char *s, size_t n, int width,
    uint16_t style)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return 0;
	if (!printable(s, n)) {
		s = REPLACEMENT;
		n = 3;
		width = 1;
	}
	if (width != 2)
		width = 1;
	if (width == 2 && x + 1 >= g->w) {
		s = " ";
		n = 1;
		width = 1;
	}
	unpair(g, x, y);
	if (width == 2)
		unpair(g, x + 1, y);
	cell_set(g, x, y, s, n, width, style);
	if (width == 2)
		cell_set(g, x + 1, y, "", 0, 0, style);
	return width;
}

/* Append a combining mark to an existing grapheme. */
void
grid_attach(struct grid *g, int x, int y, const char *s, size_t n)
{
	struct grid_cell *c;
	char text[GRID_CELL_BYTES + 1];
	size_t len;

	if (x < 0 || y < 0 || x >= g->w || y >= g->h || !printable(s, n))
		return;
	c = cell(g, x, y);
	if (c->width == 0) {
		if (x == 0)
			return;
		c = cell(g, --x, y);
	}
	len = strlen(c->text);
	if (len + n > GRID_CELL_BYTES)
		return;
	memcpy(text, c->text, len);
	memcpy(text + len, s, n);
	cell_set(g, x, y, text, len + n, c->width, c->style);
}

/* Place a UTF-8 run on one row with clipping. */
int
grid_put(struct grid *g, int x, int y, int maxw, const char *s, size_t n,
    uint16_t style)
{
	size_t i = 0, k;
	uint32_t cp;
	int w, x1 = maxw < 0 || x + maxw > g->w ? g->w : x + maxw;

	while (i < n && x < x1) {
		k = grid_utf8_decode(s + i, n - i, &cp);
		if (!k) {
			x += grid_put_char(g, x, y, REPLACEMENT, 3, 1, style);
			i++;
			continue;
		}
		w = grid_cp_width(cp);
		if (w == 0) {
			if (x > 0)
				grid_attach(g, x - 1, y, s + i, k);
		} else if (w < 0) {
			x += grid_put_char(g, x, y, REPLACEMENT, 3, 1, style);
		} else if (w == 2 && x + 1 >= x1) {
			x += grid_put_char(g, x, y, " ", 1, 1, style);
		} else {
			x += grid_put_char(g, x, y, s + i, k, w, style);
		}
		i += k;
	}
	return x;
}

/* Whether row y differs from what it was at its last grid_clean. */
int
grid_dirty(const struct grid *g, int y)
{
	size_t off = (size_t)y * (size_t)g->w, x;
	const struct grid_cell *a, *b;

	if (y < 0 || y >= g->h || !g->dirty[y])
		return 0;
	if (g->dirty[y] == 2)
		return 1;
	for (x = 0; x < (size_t)g->w; x++) {
		a = &g->cells[off + x];
		b = &g->front[off + x];
		if (a->width != b->width || a->style != b->style ||
		    memcmp(a->text, b->text, sizeof a->text) != 0)
			return 1;
	}
	return 0;
}

/* Force a full repaint. */
void
grid_touch(struct grid *g)
{
	memset(g->dirty, 2, (size_t)g->h);
}

/* Record rows as shown: copy them to front and clear their marks. */
void
grid_clean(struct grid *g, int y)
{
	int y0 = y < 0 ? 0 : y, y1 = y < 0 ? g->h : y + 1;
	size_t w = (size_t)g->w;

	if (y >= g->h)
		return;
	for (y = y0; y < y1; y++) {
		memcpy(&g->front[(size_t)y * w], &g->cells[(size_t)y * w], w * sizeof *g->cells);
		g->dirty[y] = 0;
	}
}

/* UTF-8 decoding on top of the strict validator in sanitize. */
size_t
grid_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k = sanitize_utf8_len(u, n);

	switch (k) {
	case 1:
		*cp = u[0];
		break;
	case 2:
		*cp = (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
		break;
	case 3:
		*cp = (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
		break;
	case 4:
		*cp = (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3f) << 12 |
		    (uint32_t)(u[2] & 0x3f) << 6 | (u[3] & 0x3f);
		break;
	default:
		*cp = 0xfffd;
	}
	return k;
}

/* wcwidth with controls reported as unprintable. */
int
grid_cp_width(uint32_t cp)
{
	int w;

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return -1;
	w = wcwidth((wchar_t)cp);
	return w > 2 ? 2 : w;
}

/* One row as text, trailing blanks dropped. */
void
grid_row_text(const struct grid *g, int y, struct buf *out)
{
	size_t start = out->len;
	int x;

	for (x = 0; x < g->w; x++)
		buf_adds(out, grid_at(g, x, y)->text);
	while (out->len > start && out->data[out->len - 1] == ' ')
		buf_setlen(out, out->len - 1);
}

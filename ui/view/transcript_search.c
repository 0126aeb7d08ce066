/*
 * ui/view/transcript_search: `/` search in the transcript (see ui/view/transcript_search.h).
 *
 * Finding matches: each item is laid out alone (an item's rows do not
 * depend on the items around it), which gives every item's first content
 * row; an item whose raw text contains the query is drawn alone into a
 * scratch grid and each of its rows that shows the query is a match.
 * Rows are matched on their cells' text, so what is found is what is
 * seen.  The cost of a search is one layout pass plus drawing the items
 * that contain the query.
 */
#include "ui/view/transcript_search.h"

#include <stdlib.h>
#include <string.h>

#include "ui/term/draw.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"
#include "base/xmalloc.h"

/* Whether matching ignores case: the query has no capital (smart case). */
static int
ts_fold(const struct transcript_search *ts)
{
	size_t i;

	for (i = 0; i < ts->query.len; i++)
		if (ts->query.data[i] >= 'A' && ts->query.data[i] <= 'Z')
			return 0;
	return 1;
}

/* ASCII lower case when folding. */
static char
ts_low(char c, int fold)
{
	return fold && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Offset of the first q[0..qn) in s[from..n), or -1. */
static long
ts_find(const char *s, size_t n, size_t from, const char *q, size_t qn, int fold)
{
	size_t i, k;

	for (i = from; s && qn && i + qn <= n; i++) {
		for (k = 0; k < qn && ts_low(s[i + k], fold) == ts_low(q[k], fold); k++)
			;
		if (k == qn)
			return (long)i;
	}
	return -1;
}

/*
 * Match the query on row y of g between x0 and x0 + w; restyle the
 * matched cells with `style` unless style < 0.  Returns the matches.
 */
static int
ts_row(struct grid *g, int y, int x0, int w, const struct transcript_search *ts, int fold, int style)
{
	struct buf s = BUF_INIT;
	int *xs = xmalloc(((size_t)w * GRID_CELL_BYTES + 1) * sizeof *xs), x, found = 0;
	const struct grid_cell *c;
	long at = 0;
	size_t k, end;
	char text[GRID_CELL_BYTES + 1];

	for (x = x0; x < x0 + w; x++) {
		c = grid_at(g, x, y);
		if (!c || !c->width)
			continue;
		for (k = 0; c->text[k]; k++)
			xs[s.len + k] = x;
		buf_adds(&s, c->text);
	}
	while ((at = ts_find(s.data, s.len, (size_t)at, ts->query.data, ts->query.len, fold)) >= 0) {
		found++;
		end = (size_t)at + ts->query.len;
		for (k = (size_t)at; style >= 0 && k < end; k++) {
			if (k > (size_t)at && xs[k] == xs[k - 1])
				continue;
			c = grid_at(g, xs[k], y);
			memcpy(text, c->text, sizeof text);
			grid_put_char(g, xs[k], y, text, strlen(text), c->width, (uint16_t)style);
		}
		at = (long)end;
	}
	buf_release(&s);
	free(xs);
	return found;
}

/* Whether the raw text of an item contains the query. */
static int
ts_item_has(const struct view_item *it, const struct transcript_search *ts, int fold)
{
	const char *q = ts->query.data;
	size_t qn = ts->query.len;

	return ts_find(it->text.data, it->text.len, 0, q, qn, fold) >= 0 ||
	    ts_find(it->diff.data, it->diff.len, 0, q, qn, fold) >= 0 ||
	    (it->name && ts_find(it->name, strlen(it->name), 0, q, qn, fold) >= 0) ||
	    (it->args && ts_find(it->args, strlen(it->args), 0, q, qn, fold) >= 0);
}

/* Append a matching row. */
static void
ts_push(struct transcript_search *ts, long row)
{
	if (ts->nrows == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 32;
		ts->rows = xrealloc(ts->rows, ts->cap * sizeof *ts->rows);
	}
	ts->rows[ts->nrows++] = row;
}

/* Recompute the matching rows at width w. */
void
transcript_search_update(struct transcript_search *ts, const struct view_transcript *tv, int w)
{
	struct view_transcript one = *tv;
	struct grid *g = NULL;
	long start = 0, n;
	int fold = ts_fold(ts), y;
	size_t i;

	ts->nrows = 0;
	ts->cur = -1;
	ts->width = w;
	one.n = 1;
	one.open = -1;
	one.follow = 0;
	one.scroll = 0;
	for (i = 0; w > 0 && ts->query.len && i < tv->n; i++, start += n) {
		one.items = &tv->items[i];
		n = transcript_rows(&one, w);
		if (!n || !ts_item_has(&tv->items[i], ts, fold))
			continue;
		if (!g)
			g = grid_new(w, (int)n);
		else
			grid_resize(g, w, (int)n);
		transcript_draw(g, (struct grid_rect){ 0, 0, w, (int)n }, &one);
		for (y = 0; y < n; y++)
			if (ts_row(g, y, 0, w, ts, fold, -1))
				ts_push(ts, start + y);
	}
	grid_free(g);
}

/* The first content row the view shows (as transcript_draw computes it). */
static long
ts_top(const struct view_transcript *tv, struct grid_rect r)
{
	long total = transcript_rows(tv, r.w), maxtop = total > r.h ? total - r.h : 0;

	return tv->follow || tv->scroll > maxtop ? maxtop : tv->scroll < 0 ? 0 : tv->scroll;
}

/* Scroll the current match into view (a third from the top) when it is not shown. */
static void
ts_show(const struct transcript_search *ts, struct view_transcript *tv, struct grid_rect r)
{
	long row = ts->rows[ts->cur], top = ts_top(tv, r);

	if (row >= top && row < top + r.h)
		return;
	tv->follow = 0;
	tv->scroll = row - r.h / 3 > 0 ? row - r.h / 3 : 0;
}

/*
 * Go to the next or previous match.  The rows are found again first (the
 * transcript may have grown, or the width changed); the step is taken
 * from the row of the current match.
 */
void
transcript_search_jump(struct transcript_search *ts, struct view_transcript *tv, int dir, struct grid_rect r)
{
	long from = ts->cur >= 0 && ts->cur < (long)ts->nrows ? ts->rows[ts->cur] : -1, i;
	int on = 0;

	if (ts->width != r.w)
		from = -1; /* rows at another width say nothing about this one */
	transcript_search_update(ts, tv, r.w);
	ts->wrapped = 0;
	if (!ts->nrows)
		return;
	if (from < 0) {
		from = ts->origin;
		dir = 1;
	} else {
		on = 1;
	}
	for (i = 0; i < (long)ts->nrows && ts->rows[i] < from; i++)
		;
	if (dir > 0)
		i += on && i < (long)ts->nrows && ts->rows[i] == from;
	else
		i--;
	ts->wrapped = i < 0 || i >= (long)ts->nrows;
	ts->cur = i < 0 ? (long)ts->nrows - 1 : i >= (long)ts->nrows ? 0 : i;
	ts_show(ts, tv, r);
}

/* Start a search in the prompt phase. */
void
transcript_search_start(struct transcript_search *ts, const struct view_transcript *tv, struct grid_rect r)
{
	ts->active = ts->editing = 1;
	ts->origin = ts_top(tv, r);
	buf_setlen(&ts->query, 0);
	ts->nrows = 0;
	ts->cur = -1;
	ts->wrapped = 0;
}

/* Leave the search. */
void
transcript_search_stop(struct transcript_search *ts)
{
	ts->active = ts->editing = 0;
	ts->nrows = 0;
	ts->cur = -1;
}

void
transcript_search_release(struct transcript_search *ts)
{
	buf_release(&ts->query);
	free(ts->rows);
	memset(ts, 0, sizeof *ts);
}

/* The query changed: search again from the origin. */
static void
ts_changed(struct transcript_search *ts, struct view_transcript *tv, struct grid_rect r)
{
	ts->cur = -1;
	transcript_search_jump(ts, tv, 1, r);
}

/* A key in the prompt phase. */
static int
ts_edit_key(struct transcript_search *ts, struct view_transcript *tv, const struct keys_event *ev,
    struct grid_rect r)
{
	size_t n = ts->query.len;

	if (ev->kind == KEYS_CHAR && !(ev->mods & (KEYS_MOD_CTRL | KEYS_MOD_ALT))) {
		buf_adds(&ts->query, ev->utf8);
		ts_changed(ts, tv, r);
	} else if (ev->kind == KEYS_PASTE) {
		return 1;
	} else if (ev->kind == KEYS_BACKSPACE) {
		while (n > 0 && ((unsigned char)ts->query.data[n - 1] & 0xC0) == 0x80)
			n--;
		buf_setlen(&ts->query, n > 0 ? n - 1 : 0);
		ts_changed(ts, tv, r);
	} else if (ev->kind == KEYS_ENTER) {
		ts->editing = 0;
	} else if (ev->kind == KEYS_DOWN) {
		transcript_search_jump(ts, tv, 1, r);
	} else if (ev->kind == KEYS_UP) {
		transcript_search_jump(ts, tv, -1, r);
	} else {
		return 0;
	}
	return 1;
}

/* One key while active (see ui/view/transcript_search.h). */
int
transcript_search_key(struct transcript_search *ts, struct view_transcript *tv, const struct keys_event *ev,
    struct grid_rect r)
{
	uint32_t c = ev->kind == KEYS_CHAR && !(ev->mods & (KEYS_MOD_CTRL | KEYS_MOD_ALT)) ? ev->cp : 0;

	if (!ts->active)
		return 0;
	if (ev->kind == KEYS_ESC) {
		transcript_search_stop(ts);
		return 1;
	}
	if (ts->editing)
		return ts_edit_key(ts, tv, ev, r);
	if (c == 'n' || (ev->kind == KEYS_ENTER && !(ev->mods & KEYS_MOD_ALT)) || ev->kind == KEYS_DOWN)
		transcript_search_jump(ts, tv, 1, r);
	else if (c == 'N' || (ev->kind == KEYS_ENTER && (ev->mods & KEYS_MOD_ALT)) || ev->kind == KEYS_UP)
		transcript_search_jump(ts, tv, -1, r);
	else if (c == '/')
		ts->editing = 1;
	else if (c || ev->kind == KEYS_END || ev->kind == KEYS_PASTE || ev->kind == KEYS_BACKSPACE) {
		transcript_search_stop(ts);
		return 0;
	} else
		return 0;
	return 1;
}

/* Restyle the matches drawn in r. */
void
transcript_search_highlight(struct grid *g, struct grid_rect r, const struct transcript_search *ts,
    const struct view_transcript *tv)
{
	long top, cur;
	int y, fold = ts_fold(ts);

	if (!ts->active || !ts->query.len || r.w <= 0)
		return;
	top = ts_top(tv, r);
	cur = ts->cur >= 0 && ts->cur < (long)ts->nrows ? ts->rows[ts->cur] : -1;
	for (y = 0; y < r.h; y++)
		ts_row(g, r.y + y, r.x, r.w, ts, fold,
		    top + y == cur ? THEME_STATUS_BG : THEME_SELECTION);
}

/* The prompt line. */
void
transcript_search_draw_prompt(struct grid *g, int x, int y, int w, const struct transcript_search *ts, int *cx)
{
	struct buf b = BUF_INIT;
	int qx;

	grid_clear_rect(g, (struct grid_rect){ x, y, w, 1 }, THEME_TEXT);
	qx = x + draw_text(g, x, y, w, "/", 1, THEME_ACCENT);
	qx += draw_text(g, qx, y, x + w - qx, ts->query.data ? ts->query.data : "", ts->query.len,
	    THEME_TEXT);
	*cx = ts->editing ? qx : -1;
	if (!ts->query.len)
		buf_adds(&b, "  type to search · Esc leaves");
	else if (!ts->nrows)
		buf_adds(&b, "  no match · Esc leaves");
	else
		buf_addf(&b, "  %ld/%zu%s · %s · Esc leaves", ts->cur + 1, ts->nrows,
		    ts->wrapped ? " (wrapped)" : "",
		    ts->editing ? "Enter done, ↑/↓ prev/next" : "n/N next/prev, / edit");
	draw_trunc(g, qx, y, x + w - qx, b.data, b.len, THEME_DIM);
	buf_release(&b);
}

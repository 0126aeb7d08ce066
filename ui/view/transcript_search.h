/*
 * ui/view/transcript_search: `/` search in the transcript.
 *
 * A search has a prompt phase (typed characters edit the query; every
 * change searches again and jumps to the first match at or below where
 * the view was when the search started) and a browse phase after Enter
 * (n / Enter next match, N previous, / edits the query again).  Up / Down
 * in the prompt go to the previous / next match too.  Esc leaves the
 * search (the view stays where it is; End follows the stream again); in
 * the browse phase any other printable key leaves it and goes on to the
 * editor.  Matching is case-insensitive unless the query has a capital
 * (smart case), over what is drawn (after markdown, at the view's width):
 * a folded diff or a collapsed tool output is not searched until
 * expanded.  Matches are rows: jumping scrolls the row into view (a third
 * from the top); every match on screen is drawn in THEME_SELECTION, the
 * current one's row in THEME_STATUS_BG.
 *
 * State: rows[0..nrows) ascending content rows that hold a match at width
 * `width`; cur indexes rows (-1: none).  Computed by transcript_search_update; the
 * caller redraws.  The query is raw text (drawn sanitised).
 *
 * Lifetime: zero-initialise; transcript_search_release frees (and leaves it off).
 */
#ifndef HEARTH_UI_VIEW_TRANSCRIPT_SEARCH_H
#define HEARTH_UI_VIEW_TRANSCRIPT_SEARCH_H

#include <stddef.h>

#include "base/buf.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/view/view.h"

struct transcript_search {
	int active;        /* the search is on */
	int editing;       /* prompt phase: keys edit the query */
	struct buf query;
	long *rows;
	size_t nrows, cap;
	long cur;
	long origin;       /* view top when the search started */
	int width;
	int wrapped;       /* the last jump wrapped around an end */
};

/* Start a search in the prompt phase (the view's top row is the origin). */
void transcript_search_start(struct transcript_search *ts, const struct view_transcript *tv, struct grid_rect r);
/* Leave the search (matches forgotten, query kept for the next one). */
void transcript_search_stop(struct transcript_search *ts);
void transcript_search_release(struct transcript_search *ts);
/*
 * One key while active, the transcript shown in r: 1 when consumed, 0
 * when the caller should handle it (the search may have been left: check
 * ts->active).  Jumps scroll tv.
 */
int transcript_search_key(struct transcript_search *ts, struct view_transcript *tv, const struct keys_event *ev,
    struct grid_rect r);
/* Recompute the matching rows for the current query at width w. */
void transcript_search_update(struct transcript_search *ts, const struct view_transcript *tv, int w);
/* Go to the next (dir 1) or previous (dir -1) match and scroll it into view. */
void transcript_search_jump(struct transcript_search *ts, struct view_transcript *tv, int dir, struct grid_rect r);
/* Restyle the matches drawn in r (after transcript_draw into the same r). */
void transcript_search_highlight(struct grid *g, struct grid_rect r, const struct transcript_search *ts,
    const struct view_transcript *tv);
/* The prompt line "/query  2/7 · …" at (x, y), w wide; *cx gets the cursor column. */
void transcript_search_draw_prompt(struct grid *g, int x, int y, int w, const struct transcript_search *ts, int *cx);

#endif

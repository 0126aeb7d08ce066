/*
 * ui/view/diff_view: the full-screen diff viewer (`/diff`, Ctrl-T on an edit).
 *
 * It shows one unified diff text (one file or several, as diff_format and
 * the session diff write them: each file starts with "--- " + "+++ "
 * lines).  Below DIFF_VIEW_SBS_MIN columns the view is
 * unified: "old new ± text" with both line numbers; from DIFF_VIEW_SBS_MIN
 * on it is side by side: the old text on the left, the new on the right,
 * a removed run paired with the added run after it.  Added and removed
 * lines use the diff roles; the changed span of a -/+ pair is in the
 * word roles (markdown_diff_span, the same rule as the transcript's
 * inline diffs).  Row 0 is a title bar (file i/N, hunk j/M, +/- counts,
 * the keys).
 *
 * Keys (diff_view_key): n / p next / previous hunk, ] / [ next / previous
 * file (Tab / Shift-Tab too), j k Up Down a row, PgDn / space and PgUp / b
 * a page, g Home / G End, q or Esc close.  e (handled by the caller through
 * diff_view_target) opens the place in the editor.
 *
 * State: rows[0..nrows) is the layout for the current mode (sbs), rebuilt
 * by diff_view_layout when the mode for the width changes; `top` is the
 * first row shown (0 <= top < max(nrows, 1)).  Every diff_line text
 * points into `text`, which the view owns.  Drawing is pure.
 *
 * Lifetime: zero-initialise (or diff_view_close), diff_view_open, ...,
 * diff_view_close (frees everything; the struct can be opened again).
 */
#ifndef HEARTH_UI_VIEW_DIFF_VIEW_H
#define HEARTH_UI_VIEW_DIFF_VIEW_H

#include <stddef.h>

#include "ui/view/highlight.h"
#include "base/diff.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"

#define DIFF_VIEW_SBS_MIN 140

enum diff_view_row_kind { DIFF_VIEW_FILE, DIFF_VIEW_HUNK, DIFF_VIEW_LINE };

struct diff_view_row {
	enum diff_view_row_kind kind;
	int file;     /* index into files */
	int hunk;     /* index over all files' hunks (the hunk the row belongs to) */
	long a, b;    /* LINE: line indexes into files[file].d.lines, -1 none: unified a = the
			 line, b = its -/+ partner; side by side a = left (old), b = right (new) */
};

struct diff_view_file {
	char *path;
	struct diff d;
	struct highlight_lines hl; /* syntax roles of d's lines (ui/view/highlight.h) */
};

struct diff_view {
	int open;
	char *text;
	struct diff_view_file *files;
	size_t nfiles;
	int nhunks;
	struct diff_view_row *rows;
	size_t nrows, cap;
	int sbs;      /* rows are laid out side by side */
	long top;
	char title[128];
};

/*
 * Open the viewer on unified diff text (copied); title names it when the
 * text has no file headers.  Returns 0, or -1 (viewer left closed) when
 * the text has no hunk.
 */
int diff_view_open(struct diff_view *dv, const char *title, const char *text, size_t len);
/* Close and free (NULL-safe contents; the struct is zeroed). */
void diff_view_close(struct diff_view *dv);
/* Lay out the rows for a screen w columns wide (unified or side by side). */
void diff_view_layout(struct diff_view *dv, int w);
/*
 * One key in a w×h screen: 1 when handled (the viewer may have closed:
 * check dv->open), 0 when the viewer does not use it.
 */
int diff_view_key(struct diff_view *dv, const struct keys_event *ev, int w, int h);
/* Draw into r (rows laid out for r.w by diff_view_layout first). */
void diff_view_draw(struct grid *g, struct grid_rect r, const struct diff_view *dv);
/*
 * The place the top row shows, for opening it in an editor: the file's
 * path (borrowed) and the first new-side line number at or below the top
 * row in that file (1 when the file has none).  -1 when nothing is open.
 */
int diff_view_target(const struct diff_view *dv, const char **path, long *line);
/* The file and hunk (0-based) of the row at the top; -1 each when none. */
void diff_view_where(const struct diff_view *dv, int *file, int *hunk);

#endif

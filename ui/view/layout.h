/*
 * ui/view/layout: where each view goes for a terminal size (screens.md).
 *
 * Wide (w >= LAYOUT_PANEL_MIN and the panel on):
 *   row 0        status line
 *   rows 1..h-2  a box: transcript on the left, a rule, the server panel
 *                (LAYOUT_PANEL_W columns) on the right; a rule above the
 *                input rows at the bottom of the box
 *   row h-1      help line
 * Otherwise (compact): status line, transcript, a rule, the input rows,
 * and on the last row the server panel folded into one line.
 * Below LAYOUT_MIN_W × LAYOUT_MIN_H only `too_small` is set; the caller
 * draws layout_draw_too_small instead of any view.
 *
 * Every rect is inside the terminal and has w, h >= 0; an unused one
 * (the panel in compact mode, the help row) is all zero.
 */
#ifndef HEARTH_UI_VIEW_LAYOUT_H
#define HEARTH_UI_VIEW_LAYOUT_H

#include "ui/term/grid.h"
#include "ui/view/view.h"

#define LAYOUT_MIN_W 60
#define LAYOUT_MIN_H 15
#define LAYOUT_PANEL_MIN 100
#define LAYOUT_PANEL_W 31
#define LAYOUT_INPUT_MAX 8

struct layout {
	int w, h;
	int too_small;
	int wide;                     /* boxed, with the panel */
	struct grid_rect status;      /* top line */
	struct grid_rect transcript;
	struct grid_rect panel;       /* wide only */
	struct grid_rect input;       /* where the editor draws */
	struct grid_rect help;        /* wide only: key hints */
	struct grid_rect server_line; /* compact only: folded server panel */
	int rule_y;                   /* the rule above the input */
	int panel_rule_x;             /* wide: the rule left of the panel */
};

/*
 * Compute the rects for a w×h terminal; input_rows is what the editor
 * wants (clamped to 1..LAYOUT_INPUT_MAX and to leave the transcript at
 * least 3 rows).
 */
void layout_compute(struct layout *l, int w, int h, int panel_on, int input_rows);
/*
 * One frame: frame, status, transcript, panel or folded line, help line;
 * the input rect is cleared and left to the editor.  Draws the notice
 * instead when l->too_small.
 */
void layout_draw(struct grid *g, const struct layout *l, const struct view_transcript *tv,
    const struct view_server *srv, const struct view_status *st);

#endif

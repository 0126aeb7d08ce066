/*
 * ui/view/layout: rect arithmetic for the two screen forms, and the frame.
 *
 * All rects are derived from (w, h, panel_on, input_rows) alone, so a
 * resize is just layout_compute + a full redraw.
 */
#include <stdio.h>
#include <string.h>

#include "ui/term/draw.h"
#include "ui/view/layout.h"
#include "ui/view/server_panel.h"
#include "ui/view/status.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"

/* A rect (negative sizes become 0). */
static struct grid_rect
rect(int x, int y, int w, int h)
{
	struct grid_rect r = { x, y, w > 0 ? w : 0, h > 0 ? h : 0 };

	return r;
}

/* The boxed form with the panel on the right. */
static void
wide(struct layout *l, int in)
{
	int bottom = l->h - 2;            /* the box's bottom border */
	int px = l->w - 1 - LAYOUT_PANEL_W;

	l->wide = 1;
	l->rule_y = bottom - in - 1;
	l->panel_rule_x = px - 1;
	l->transcript = rect(2, 2, px - 1 - 3, l->rule_y - 2);
	l->panel = rect(px + 1, 2, LAYOUT_PANEL_W - 1, l->rule_y - 2);
	l->input = rect(2, l->rule_y + 1, l->w - 4, in);
	l->help = rect(0, l->h - 1, l->w, 1);
}

/* The compact form: no box, the panel folded into the last row. */
static void
compact(struct layout *l, int in)
{
	l->rule_y = l->h - 2 - in;
	l->transcript = rect(1, 1, l->w - 2, l->rule_y - 1);
	l->input = rect(1, l->rule_y + 1, l->w - 2, in);
	l->server_line = rect(0, l->h - 1, l->w, 1);
}

/* Compute the rects for a w×h terminal. */
void
layout_compute(struct layout *l, int w, int h, int panel_on, int input_rows)
{
	int in = input_rows < 1 ? 1 : input_rows > LAYOUT_INPUT_MAX ? LAYOUT_INPUT_MAX : input_rows;

	memset(l, 0, sizeof(*l));
	l->w = w;
	l->h = h;
	if (w < LAYOUT_MIN_W || h < LAYOUT_MIN_H) {
		l->too_small = 1;
		return;
	}
	l->status = rect(0, 0, w, 1);
	if (panel_on && w >= LAYOUT_PANEL_MIN) {
		if (in > h - 9)
			in = h - 9;
		wide(l, in);
	} else {
		if (in > h - 6)
			in = h - 6;
		compact(l, in);
	}
}

/* Draw the box and rules of l. */
static void
layout_draw_frame(struct grid *g, const struct layout *l)
{
	struct grid_rect box = { 0, 1, l->w, l->h - 2 };

	if (l->too_small)
		return;
	if (!l->wide) {
		draw_hline(g, 0, l->rule_y, l->w, THEME_BORDER);
		return;
	}
	draw_box(g, box, THEME_BORDER);
	draw_hline(g, 1, l->rule_y, l->w - 2, THEME_BORDER);
	draw_vline(g, l->panel_rule_x, 2, l->rule_y - 2, THEME_BORDER);
}

/* Clear g and centre a "window too small" notice. */
static void
layout_draw_too_small(struct grid *g)
{
	char s[64];
	int n, y = g->h / 2;

	grid_clear(g, THEME_TEXT);
	n = snprintf(s, sizeof(s), "window too small (%d×%d, need %d×%d)", g->w, g->h,
	    LAYOUT_MIN_W, LAYOUT_MIN_H);
	n = draw_width(s, (size_t)n);
	draw_trunc(g, n < g->w ? (g->w - n) / 2 : 0, y, g->w, s, strlen(s), THEME_WARNING);
}

/* One frame of every view but the editor. */
void
layout_draw(struct grid *g, const struct layout *l, const struct view_transcript *tv,
    const struct view_server *srv, const struct view_status *st)
{
	if (l->too_small) {
		layout_draw_too_small(g);
		return;
	}
	grid_clear(g, THEME_TEXT);
	layout_draw_frame(g, l);
	status_draw(g, l->status, st, srv);
	transcript_draw(g, l->transcript, tv);
	if (l->wide) {
		server_panel_draw(g, l->panel, srv);
		status_draw_help(g, l->help, st);
	} else if (*st->wait) {
		status_draw_wait(g, l->server_line, st);
	} else {
		struct grid_rect sl = l->server_line;
		int x = status_draw_live(g, sl, st);

		sl.x += x;
		sl.w -= x;
		if (sl.w > 0)
			status_draw_server(g, sl, srv);
	}
}

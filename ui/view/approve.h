/*
 * ui/view/approve: the full screen's approval question (perm/gate.h).  While shown it
 * covers the bottom of the transcript area with a box: what the call is,
 * why it asks, the command or the diff it would make (scrollable), and the
 * keys — y yes, n or Esc no, a always (the session rule is shown).
 *
 * approve_show copies the question; the view owns its strings until the
 * next show or approve_release.
 */
#ifndef HEARTH_UI_VIEW_APPROVE_H
#define HEARTH_UI_VIEW_APPROVE_H

#include "base/buf.h"
#include "perm/gate.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"

enum { APPROVE_PASS = -2, APPROVE_KEEP = -1 }; /* approve_key: not ours / consumed */

struct approve {
	int on;
	int is_diff; /* colour the detail as a unified diff */
	int scroll;  /* first detail line shown */
	int nlines;  /* detail lines */
	struct buf title, why, detail, always;
};

void approve_init(struct approve *ap);
void approve_release(struct approve *ap);
/* Show question q (copied). */
void approve_show(struct approve *ap, const struct perm_gate_question *q);
void approve_hide(struct approve *ap);
/*
 * A key while shown: PERM_GATE_YES / PERM_GATE_NO / PERM_GATE_ALWAYS when answered (the
 * view hides itself), APPROVE_KEEP when consumed (scrolling, other
 * letters), APPROVE_PASS for keys the screen keeps (Ctrl-C, resize...).
 */
int approve_key(struct approve *ap, const struct keys_event *ev);
/* Draw over the bottom of r (the transcript area). */
void approve_draw(struct approve *ap, struct grid *g, struct grid_rect r);

#endif

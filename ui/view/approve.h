/*
 * ui/view/approve: the full screen's approval question.  While shown it
 * covers the bottom of the transcript area with a box: what the call is,
 * why it asks, the command or the diff it would make, wrapped whole over
 * as many rows as it needs (scrollable when taller than the room, with
 * "↑↓ PgUp PgDn scroll · rows a-b of n"), and the keys — y yes, n or Esc
 * no, a always — with the session rules "always" adds, wrapped whole too.
 *
 * The question comes from the permission gate (perm/gate.h): ui/app copies
 * its perm_gate_question into an approve_question and turns the
 * approve_answer back into a perm_gate_answer, so the view knows nothing
 * of perm/.  approve_show copies the question; the view owns its strings
 * until the next show or approve_release.
 */
#ifndef HEARTH_UI_VIEW_APPROVE_H
#define HEARTH_UI_VIEW_APPROVE_H

#include "base/buf.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"

enum { APPROVE_PASS = -2, APPROVE_KEEP = -1 }; /* approve_key: not ours / consumed */

/* The user's answer (approve_key). */
enum approve_answer { APPROVE_NO, APPROVE_YES, APPROVE_ALWAYS };

/* What the box shows (the strings are copied by approve_show). */
struct approve_question {
	const char *tool;   /* tool name */
	const char *title;  /* one line: "bash: make test", "edit src/a.c" */
	const char *detail; /* the command, or the diff the call would make ("" = none) */
	const char *why;    /* why it asks */
	const char *always; /* the session rules "always" adds, one per line */
	int is_diff;        /* detail is a unified diff (coloured as one) */
};

struct approve {
	int on;
	int is_diff; /* colour the detail as a unified diff */
	int scroll;  /* first detail row shown (rows wrapped at the box width) */
	int nlines;  /* detail lines */
	int wrap_w, wrap_rows; /* the detail's wrapped rows at width wrap_w (-1: not yet) */
	struct buf title, why, detail, always;
};

void approve_init(struct approve *ap);
void approve_release(struct approve *ap);
/* Show question q (copied). */
void approve_show(struct approve *ap, const struct approve_question *q);
void approve_hide(struct approve *ap);
/*
 * A key while shown: APPROVE_YES / APPROVE_NO / APPROVE_ALWAYS when answered (the
 * view hides itself), APPROVE_KEEP when consumed (scrolling, other
 * letters), APPROVE_PASS for keys the screen keeps (Ctrl-C, resize...).
 */
int approve_key(struct approve *ap, const struct keys_event *ev);
/* Draw over the bottom of r (the transcript area). */
void approve_draw(struct approve *ap, struct grid *g, struct grid_rect r);

#endif

/*
 * route/failures: the failure signals of a turn, read from the conv (issue 5's
 * step-level routing; docs/routing.md).
 *
 * route_failures_scan walks the messages from index `from` (the turn's start,
 * or the end of the last consult) and collects what route_decide wants:
 * the tool calls (name + canonical arguments, oldest first), the runs of
 * test commands (passed = the bash result ends with "exit code: 0";
 * after_edit = a write or edit succeeded since the previous run of the
 * same command) and whether a file changed (a successful write or edit).
 * A change also restarts the list of calls: a call repeated across a
 * change (edit, then the same test command again) is progress, not a
 * loop.  Bash commands that change files some other way are not counted as
 * changes: the max_steps rule then errs toward asking for help.
 *
 * Ownership: a struct route_failures owns its arrays and strings (it copies
 * from the conv); route_failures_release frees them.  route_signals.calls /
 * tests may point into it until then.
 */
#ifndef HEARTH_ROUTE_FAILURES_H
#define HEARTH_ROUTE_FAILURES_H

#include <stddef.h>

#include "llm/conv.h"
#include "route/route.h"

struct route_failures {
	struct route_call *calls;
	size_t ncalls, acalls;
	struct route_test *tests;
	size_t ntests, atests;
	int files_changed;
};

/* Collect the signals of c's messages from index from on (s is overwritten). */
void route_failures_scan(struct route_failures *s, const struct route_policy *p, const struct conv *c,
		   size_t from);
/* Free what s owns; s is left empty. */
void route_failures_release(struct route_failures *s);

#endif

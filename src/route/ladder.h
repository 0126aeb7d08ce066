/*
 * route/ladder: the tiers of the servers setting as rungs of a ladder,
 * interactive → workhorse → Claude (issue 17, docs/routing.md "Tiers").
 *
 * A turn starts on the first interactive rung that is up, unless @NAME,
 * /route NAME (--route NAME) or a task pattern with a "tier" names one.
 * Between steps, a failure rule that fires on a rung (tool-call failures,
 * a repeated call, tests still failing, the step limit) moves the turn to
 * the next workhorse rung before it goes to Claude; the context rule moves
 * it to a rung whose per-slot context has room; a rung that stops
 * answering is marked down and the turn goes on on the next rung of its
 * role, then up.  Each move is a decision with its reason, shown as
 * "→ NAME (role): reason".  Usage and wall time are kept per rung.
 *
 * The rungs live in struct route_escalate (route/escalate.h); their
 * providers are borrowed from the front.  Nothing here does I/O.
 */
#ifndef HEARTH_ROUTE_LADDER_H
#define HEARTH_ROUTE_LADDER_H

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "route/escalate.h"
#include "route/outcomes.h"

/*
 * The rung to move to from rung from (-1 none): with same_role first the
 * next rungs of from's role (a server that is down), then the workhorse
 * rungs after it; with need_ctx > 0 only rungs whose known context has
 * room for need_ctx tokens (the policy's context_fraction of it).
 */
int route_ladder_next(const struct route_escalate *x, int from, int same_role, long need_ctx);
/*
 * Between steps: d is the decision on the rung the turn is on.  When its
 * rule can climb the ladder, the agent moves to the next rung (the
 * decision recorded, the line in note) and 1 is returned; 0 when the
 * decision stands (Claude or local as it says).
 */
int route_ladder_step(struct route_escalate *x, struct agent *a, const struct route_decision *d,
		      long prompt_tokens, struct buf *note);
/*
 * At a turn's start, after the decision in x->last: the rung of the turn
 * (an "@NAME " prefix of *text is taken off; the pin; a task pattern's
 * tier; a rule that fired climbs) becomes x->rung, x->local and x->n_ctx.
 * 1 when that choice overrides the decision (the turn is local, on that
 * rung; recorded, and the line for the user in note); 0 otherwise.
 */
int route_ladder_turn(struct route_escalate *x, const char **text, struct buf *note);
/*
 * Rung from did not answer discovery: marked down; the turn goes to the
 * next rung (its role first, then a workhorse) unless a tier is pinned.
 * Returns its provider (the move recorded, the line in note), or NULL.
 */
struct provider *route_ladder_skip_down(struct route_escalate *x, int from, struct buf *note);
/*
 * The full screen and the line session: their own server (provider own,
 * a rung's) answered discovery (down 0: n_ctx, when known, is its
 * context) or not (down 1).  Down: the rung turns start on instead, the
 * line for the user in note; -1 when none can take them (no tiers, the
 * turns pinned to it, nothing else up): the front end waits for it.
 * Up: its rung, or -1 without tiers.
 */
int route_ladder_own(struct route_escalate *x, const struct provider *own, long n_ctx, int down, struct buf *note);
/*
 * A task pattern whose "tier" names no tier of the servers setting would
 * be silent (its tasks start where any task does): one line per such
 * pattern appended to w, saying what to do.  Returns how many.
 */
int route_ladder_check_patterns(const struct route_escalate *x, struct buf *w);
/* Usage d (nreq requests, ms of wall time) belongs to the rung the turn is on. */
void route_ladder_account(struct route_escalate *x, const struct route_usage *d, int nreq, double ms);
/* A turn starts: each tier's figures so far, so the turn's own can be told (route_ladder_turn_tiers). */
void route_ladder_turn_start(struct route_escalate *x);
/* The tiers that served the turn since route_ladder_turn_start (at most max), Claude last; how many. */
size_t route_ladder_turn_tiers(const struct route_escalate *x, struct route_outcomes_tier *out, size_t max);
/* The "tiers" array: each rung's usage, time and cost, then Claude's. */
cJSON *route_ladder_json(const struct route_escalate *x);

#endif

/*
 * route/outcomes: the outcomes log — one JSON line per finished turn
 * (where it went, why, steps, tokens, cost, wall time), appended and
 * never rewritten; read back for /route stats and the daily spend cap.
 * The log's path is the caller's (route/escalate: under the state dir).
 */
#ifndef HEARTH_ROUTE_OUTCOMES_H
#define HEARTH_ROUTE_OUTCOMES_H

#include <time.h>

#include "base/buf.h"
#include "base/err.h"
#include "route/cost.h"
#include "route/route.h"

/* What one tier (a server of the servers setting, or Claude) did in a turn. */
struct route_outcomes_tier {
	char name[32];
	const char *role;      /* "interactive", "workhorse" or "claude" */
	int requests;
	struct route_usage tokens;
	double ms, cost_usd;
};

#define ROUTE_OUTCOMES_TIERS 9 /* the ladder's rungs and Claude */

/* One finished turn, for the outcomes log. */
struct route_outcomes_turn {
	enum route_target target;
	enum route_mode mode;
	const char *reason;    /* NULL or "" for a default local turn */
	int steps;
	int answered;          /* the turn ended with an answer (AGENT_END_OK) */
	int files_changed;
	struct route_usage tokens;
	double cost_usd;
	double wall_s;
	time_t ts;             /* 0 = now */
	const struct route_outcomes_tier *tiers; /* with tiers: those that served the turn */
	size_t ntiers;
};

/*
 * Append o as one JSON line to path (created 0600, parent directories
 * made), with O_APPEND and fsync.  0 / -1 + e; the file is never
 * truncated or rewritten.
 */
int route_outcomes_append(const char *path, const struct route_outcomes_turn *o, struct err *e);

/*
 * A summary table of the outcomes log: turns, tokens, cost and wall time
 * per route, and what escalations bought (answered, files changed); then,
 * when turns ran on tiers, one row per tier: turns, requests, tokens,
 * time and cost.
 * Unreadable lines are skipped and counted.  A missing file is a short
 * note, not an error.  0 / -1 + e when the file cannot be read.
 */
int route_outcomes_stats(const char *path, struct buf *out, struct err *e);

/*
 * What the log records as spent (cost_usd summed) on the UTC calendar day
 * of `now`, for route_signals.spent_day_usd.  A missing log is 0 spent.
 * 0 / -1 + e (then *usd = 0).
 */
int route_outcomes_spent_day(const char *path, time_t now, double *usd, struct err *e);

#endif

/*
 * escalate: which model answers a turn — the local llama-server or
 * Claude — decided by the routing policy (route.h) and made visible.
 *
 * Per turn: a leading "@claude" or a pending /claude asks for Claude;
 * /local and routing mode "local" keep everything on the machine; the
 * policy's rules (task patterns, context size, failure signals) may
 * escalate on their own.  Guards always apply: without an API key, in
 * mode local or at a spend cap nothing leaves the machine, and the user
 * is told once why.  Each turn's outcome (route, reason, steps, answered,
 * files changed, tokens, cost, time) is appended to the outcomes log
 * that `hearth stats` summarises.
 *
 * The Anthropic provider is created only when a turn goes to Claude.
 * Borrows loop and http; owns the policy and the provider.
 */
#ifndef HEARTH_ESCALATE_H
#define HEARTH_ESCALATE_H

#include "buf.h"
#include "err.h"
#include "route.h"

#include <stdint.h>

struct loop;
struct http;
struct provider;
struct agent_stats;
struct anthropic;

struct escalate {
	struct loop *loop;
	struct http *http;
	struct route_policy policy;
	struct anthropic *an;
	char *key, *base_url, *model;
	char *log_path;           /* <state>/routes.jsonl */
	unsigned told;
	int pending;              /* /claude or /local for the next turn */
	double spent_session, spent_day;
	struct route_decision last;
	struct route_usage usage_before;
	uint64_t began_ms;
	int steps_before;
};

/* Policy from the settings files under cwd; key/base URL from the environment. */
void escalate_init(struct escalate *x, struct loop *l, struct http *h, const char *cwd,
		   const char *state_dir, struct buf *warnings);
void escalate_release(struct escalate *x);
/* --route / /route auto|local|claude. */
int escalate_set_mode(struct escalate *x, const char *mode, struct err *e);
/*
 * Choose the provider for a turn.  *text loses a leading "@claude".
 * Returns local or the Claude provider; x->last holds the decision.
 * A line for the user (the route and its reason, or why a rule could not
 * escalate) is appended to note when there is something to say.
 */
struct provider *escalate_turn(struct escalate *x, const char **text, struct provider *local,
			       long n_ctx, const struct agent_stats *st, struct buf *note);
/* The turn ended: add its cost to the spend and append the outcome. */
void escalate_turn_end(struct escalate *x, const struct agent_stats *st, int answered,
		       int files_changed, double wall_s);
/*
 * Interactive turns: route the text (a leading @claude removed), switch
 * the agent's provider and remember when the turn began; escalate_end
 * records its outcome.  The note says where the turn went, or why not.
 */
struct agent;
const char *escalate_begin(struct escalate *x, struct agent *a, struct provider *local,
			   const char *text, long n_ctx, struct buf *note);
void escalate_end(struct escalate *x, struct agent *a, int answered);
/* `hearth stats`: the outcomes table. */
int escalate_stats(const char *state_dir, struct buf *out, struct err *e);

#endif

/*
 * route/step: step-level routing and per-route accounting (see route/step.h).
 * The hook never fails: a decision it cannot act on keeps the turn where
 * it is.
 */
#include "route/step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anthropic/anthropic.h"
#include "llm/provider.h"
#include "route/config.h"
#include "route/failures.h"
#include "route/ladder.h"
#include "io/loop.h"
#include "route/cost.h"
#include "base/xmalloc.h"

/* What a consult asks of Claude. */
void
route_step_consult_text(const char *reason, struct buf *out)
{
	buf_adds(out, "[hearth] You are consulted for one answer");
	if (reason && *reason)
		buf_addf(out, " (%s)", reason);
	buf_adds(out, ": a local model will carry out the task with the tools after you, "
		 "with your answer in its context. Give a concise plan or diagnosis for the task "
		 "above: what is wrong, what to change, in which files, in what order, and how to "
		 "check it. Do not call tools in this answer.");
}

/* Consult on/off on the Claude provider. */
void
route_step_consult(struct route_escalate *x, int on, const char *reason)
{
	struct buf t = BUF_INIT;

	x->consulting = on;
	if (!x->an)
		return;
	if (on)
		route_step_consult_text(reason, &t);
	anthropic_set_consult(x->an, on ? t.data : NULL);
	buf_release(&t);
}

/* Usage counters of the agent in route form (input excludes the cached parts). */
static struct route_usage
route_step_usage(const struct agent_stats *st)
{
	struct route_usage u;

	u.cache_read = st->cached_tokens;
	u.cache_write = st->cache_write_tokens;
	u.input = st->prompt_tokens - st->cached_tokens - st->cache_write_tokens;
	u.output = st->completion_tokens;
	return u;
}

/* Add b to a. */
static void
route_step_add(struct route_usage *a, const struct route_usage *b)
{
	a->input += b->input;
	a->output += b->output;
	a->cache_read += b->cache_read;
	a->cache_write += b->cache_write;
}

/* Account the usage since the last call to the route that made it. */
void
route_step_account(struct route_escalate *x, const struct agent_stats *st)
{
	struct route_usage now = route_step_usage(st), d;
	int t = x->on_claude ? ROUTE_CLAUDE : ROUTE_LOCAL, nreq = st->requests - x->snap_requests;
	double usd = 0, ms = 0;
	uint64_t now_ms = x->loop ? loop_now_ms(x->loop) : 0;

	if (x->timing && now_ms >= x->snap_ms)
		ms = (double)(now_ms - x->snap_ms);
	x->snap_ms = now_ms;

	if (nreq < 0 || now.input < x->snap.input || now.output < x->snap.output) {
		x->snap = now; /* another agent (a new session): start over */
		x->snap_requests = st->requests;
		return;
	}
	d.input = now.input - x->snap.input;
	d.output = now.output - x->snap.output;
	d.cache_read = now.cache_read - x->snap.cache_read;
	d.cache_write = now.cache_write - x->snap.cache_write;
	x->snap = now;
	x->snap_requests = st->requests;
	if (nreq > 0)
		x->last_prompt = (d.input + d.cache_read + d.cache_write) / nreq;
	route_step_add(&x->route_use[t], &d);
	route_step_add(&x->turn_use, &d);
	if (t == ROUTE_CLAUDE) {
		x->claude_ms += ms;
		x->claude_requests += nreq;
	} else {
		route_ladder_account(x, &d, nreq, ms);
	}
	if (t == ROUTE_CLAUDE && x->an) {
		route_cost_usd(&x->policy, anthropic_provider(x->an)->model(x->an), &d, &usd);
		x->route_cost[t] += usd;
		x->turn_cost += usd;
		x->spent_session += usd;
	}
}

/* Remember a decision. */
void
route_step_record(struct route_escalate *x, const struct route_decision *d, int step)
{
	struct route_escalate_decision *r;

	if (x->ndec == x->adec) {
		x->adec = x->adec ? x->adec * 2 : 4;
		x->dec = xrealloc(x->dec, x->adec * sizeof *x->dec);
	}
	r = &x->dec[x->ndec++];
	r->step = step;
	r->tier[0] = 0;
	r->target = d->target;
	r->mode = d->mode;
	r->blocked = d->blocked;
	snprintf(r->reason, sizeof r->reason, "%s", d->reason);
}

/* The consult answer is in: back to the local model with a note in the conv. */
static int
route_step_after_consult(struct route_escalate *x, struct agent *a, struct buf *note)
{
	struct conv *c = agent_conv(a);
	struct buf t = BUF_INIT;

	route_step_consult(x, 0, NULL);
	x->on_claude = 0;
	agent_set_provider(a, x->local);
	buf_addf(&t, "[hearth] Claude was consulted (%s) and answered above. Continue the task "
		 "yourself with the tools, following that plan where it helps.", x->last.reason);
	conv_add_user_text(c, t.data);
	buf_release(&t);
	x->window0 = c->nmsgs;
	x->cf_base = agent_stats(a)->consecutive_tool_failures;
	buf_adds(note, "← local: continuing with Claude's plan (consult)");
	return 1;
}

/* On Claude: at a spend cap the rest of the turn goes back to the local model. */
static int
route_step_on_claude(struct route_escalate *x, struct agent *a, enum agent_step_why why,
		  struct buf *note)
{
	double cap = x->policy.spend_cap_session_usd, day = x->policy.spend_cap_day_usd;
	struct route_decision d;

	if (why != AGENT_STEP_NEXT || (x->spent_session < cap && x->spent_day + x->spent_session < day))
		return 0;
	memset(&d, 0, sizeof d);
	d.target = ROUTE_LOCAL;
	snprintf(d.reason, sizeof d.reason, "spend cap reached ($%.2f spent)",
		 x->spent_session < cap ? x->spent_day + x->spent_session : x->spent_session);
	route_step_record(x, &d, agent_stats(a)->steps);
	x->last = d;
	x->on_claude = 0;
	agent_set_provider(a, x->local);
	buf_addf(note, "← local: %s; the rest of the turn stays local", d.reason);
	return 0;
}

/* The signals of the turn so far, for route_decide. */
static void
route_step_signals(struct route_escalate *x, struct agent *a, enum agent_step_why why,
		const struct route_failures *rs, struct route_signals *s)
{
	const struct agent_stats *st = agent_stats(a);

	memset(s, 0, sizeof *s);
	s->prompt_tokens = x->last_prompt;
	s->n_ctx = x->n_ctx;
	s->consecutive_tool_failures = st->consecutive_tool_failures >= x->cf_base ?
		st->consecutive_tool_failures - x->cf_base : st->consecutive_tool_failures;
	s->calls = rs->calls;
	s->ncalls = rs->ncalls;
	s->tests = rs->tests;
	s->ntests = rs->ntests;
	s->max_steps_hit = why == AGENT_STEP_MAX_STEPS;
	s->files_changed = rs->files_changed;
	s->server_down = why == AGENT_STEP_SERVER_DOWN || why == AGENT_STEP_STREAM_CUT;
	s->have_key = x->key != NULL;
	s->spent_session_usd = x->spent_session;
	s->spent_day_usd = x->spent_day + x->spent_session;
	s->told = x->told;
}

/* On the local model: decide, and switch when a rule fires. */
static int
route_step_on_local(struct route_escalate *x, struct agent *a, enum agent_step_why why,
		 struct buf *note)
{
	struct route_failures rs;
	struct route_signals s;
	struct route_decision d;

	memset(&rs, 0, sizeof rs);
	route_failures_scan(&rs, &x->policy, agent_conv(a), x->window0);
	route_step_signals(x, a, why, &rs, &s);
	route_decide(&x->policy, &s, ROUTE_REQ_NONE, &d);
	route_failures_release(&rs);
	if (route_ladder_step(x, a, &d, s.prompt_tokens, note))
		return 1; /* the next rung of the tiers takes the turn */
	x->told = d.told;
	if (d.target != ROUTE_CLAUDE) {
		if (d.blocked)
			route_step_record(x, &d, agent_stats(a)->steps);
		if (d.notify && d.blocked_why[0])
			buf_adds(note, d.blocked_why);
		return 0;
	}
	if (d.mode == ROUTE_CONSULT && x->turn_consults > 0) { /* consulted already: hand off */
		d.mode = ROUTE_HANDOFF;
		snprintf(d.reason + strlen(d.reason), sizeof d.reason - strlen(d.reason),
			 ", again after a consult");
	}
	x->last = d;
	route_step_record(x, &d, agent_stats(a)->steps);
	agent_set_provider(a, route_escalate_claude(x));
	x->on_claude = 1;
	if (d.mode == ROUTE_CONSULT) {
		route_step_consult(x, 1, d.reason);
		x->turn_consults++;
	} else {
		x->handed_off = 1;
	}
	buf_addf(note, "→ claude (%s): %s", route_config_mode_name(d.mode), d.reason);
	return 1;
}

/* A stream cut mid-answer on a tier: the next rung takes the same request, or nothing happens. */
static int
route_step_cut(struct route_escalate *x, struct agent *a, enum agent_step_why why, struct buf *note)
{
	struct route_failures rs;
	struct route_signals s;
	struct route_decision d;

	if (!x->nrungs || x->pin >= 0)
		return 0;
	memset(&rs, 0, sizeof rs);
	route_step_signals(x, a, why, &rs, &s);
	route_decide(&x->policy, &s, ROUTE_REQ_NONE, &d);
	return route_ladder_step(x, a, &d, s.prompt_tokens, note);
}

/* The decision between two steps. */
static int
route_step_decide(struct route_escalate *x, struct agent *a, enum agent_step_why why, struct buf *note)
{
	if (why == AGENT_STEP_STREAM_CUT) /* only another tier takes a cut answer over: else it ends as it did */
		return !x->consulting && !x->on_claude ? route_step_cut(x, a, why, note) : 0;
	if (x->consulting)
		return why == AGENT_STEP_SERVER_DOWN ? 0 : route_step_after_consult(x, a, note);
	if (x->on_claude)
		return route_step_on_claude(x, a, why, note);
	if (why == AGENT_STEP_ANSWERED ||
	    (x->policy.mode == ROUTE_ONLY_LOCAL && (!x->nrungs || x->pin >= 0))) /* tiers climb in mode local */
		return 0;
	return route_step_on_local(x, a, why, note);
}

/* The step hook: account, decide, and pass on a pending model-check warning. */
int
route_step_hook(void *arg, struct agent *a, enum agent_step_why why, struct buf *note)
{
	struct route_escalate *x = arg;
	struct buf w = BUF_INIT;
	struct provider *before = agent_provider(a);
	int go;

	if (x->policy.mode != ROUTE_ONLY_LOCAL) /* the step's tools may have changed private files */
		route_escalate_rescan(x);
	route_step_account(x, agent_stats(a));
	go = route_step_decide(x, a, why, note);
	if (x->announce) { /* print mode: at once, a refusal only when verbose */
		if (note->len)
			x->announce(x->announce_arg, note->data, agent_provider(a) != before);
		buf_reset(note);
		if (route_escalate_take_warning(x, &w))
			x->announce(x->announce_arg, w.data, 1);
	} else if (route_escalate_take_warning(x, &w)) {
		if (note->len)
			buf_addch(note, '\n');
		buf_add(note, w.data, w.len);
	}
	buf_release(&w);
	return go;
}

/* One route's usage and cost as json. */
static cJSON *
route_step_route_json(const struct route_usage *u, double usd)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->cache_read);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->cache_write);
	cJSON_AddNumberToObject(o, "cost_usd", usd);
	return o;
}

/* Decisions and per-route usage for print-mode json. */
cJSON *
route_step_json(struct route_escalate *x, const struct agent_stats *st)
{
	cJSON *o = cJSON_CreateObject(), *arr, *routes;
	size_t i;

	if (st)
		route_step_account(x, st);
	arr = cJSON_AddArrayToObject(o, "decisions");
	for (i = 0; i < x->ndec; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddNumberToObject(d, "step", x->dec[i].step);
		cJSON_AddStringToObject(d, "target", route_target_name(x->dec[i].target));
		if (x->dec[i].tier[0])
			cJSON_AddStringToObject(d, "tier", x->dec[i].tier);
		if (x->dec[i].target == ROUTE_CLAUDE)
			cJSON_AddStringToObject(d, "mode", route_config_mode_name(x->dec[i].mode));
		cJSON_AddStringToObject(d, "reason", x->dec[i].reason);
		cJSON_AddBoolToObject(d, "blocked", x->dec[i].blocked);
		cJSON_AddItemToArray(arr, d);
	}
	routes = cJSON_AddObjectToObject(o, "routes");
	cJSON_AddItemToObject(routes, "local", route_step_route_json(&x->route_use[0], 0));
	cJSON_AddItemToObject(routes, "claude", route_step_route_json(&x->route_use[1], x->route_cost[1]));
	if (x->nrungs)
		cJSON_AddItemToObject(o, "tiers", route_ladder_json(x));
	cJSON_AddNumberToObject(o, "cost_usd", x->route_cost[1]);
	cJSON_AddNumberToObject(o, "spent_day_usd", x->spent_day + x->spent_session);
	return o;
}

/*
 * route/ladder: interactive → workhorse → Claude (see route/ladder.h).
 */
#include "route/ladder.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "llm/provider.h"
#include "route/config.h"
#include "route/step.h"

/* Register a tier. */
int
route_escalate_add_rung(struct route_escalate *x, const char *name, int workhorse, struct provider *p)
{
	struct route_escalate_rung *r;

	if (x->nrungs == ROUTE_ESCALATE_RUNGS)
		return -1;
	if (x->nrungs == 0)
		x->rung = x->start = x->pin = x->warm = -1;
	r = &x->rungs[x->nrungs];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->workhorse = workhorse;
	r->p = p;
	if (x->start < 0 && !workhorse)
		x->start = (int)x->nrungs;
	return (int)x->nrungs++;
}

/* Discovery of a rung finished. */
void
route_escalate_rung_ready(struct route_escalate *x, int i, long n_ctx, int down)
{
	if (i < 0 || (size_t)i >= x->nrungs)
		return;
	x->rungs[i].n_ctx = n_ctx;
	x->rungs[i].down = down;
}

/* A rung's slots. */
void
route_escalate_rung_slots(struct route_escalate *x, int i, int slots, int idle)
{
	if (i < 0 || (size_t)i >= x->nrungs)
		return;
	x->rungs[i].slots = slots;
	x->rungs[i].idle = idle;
}

/* A rung's load. */
void
route_escalate_rung_load(struct route_escalate *x, int i, int known, double running, double waiting)
{
	if (i < 0 || (size_t)i >= x->nrungs)
		return;
	x->rungs[i].load_known = known;
	x->rungs[i].running = running;
	x->rungs[i].waiting = waiting;
}

/* The index of a rung by name. */
int
route_escalate_rung_find(const struct route_escalate *x, const char *name, size_t len)
{
	size_t i;

	for (i = 0; name && len && i < x->nrungs; i++)
		if (strlen(x->rungs[i].name) == len && strncasecmp(x->rungs[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* Who answers now. */
const char *
route_escalate_where(const struct route_escalate *x)
{
	if (x->on_claude)
		return "claude";
	if (x->nrungs && x->rung >= 0)
		return x->rungs[x->rung].name;
	return "local";
}

/* Whether rung i can take a prompt of need tokens. */
static int
route_ladder_fits(const struct route_escalate *x, int i, long need)
{
	long n = x->rungs[i].n_ctx;

	return need <= 0 || (n > 0 && (double)need <= x->policy.context_fraction * (double)n);
}

/*
 * Whether a rung can start a request at once: a free slot where /slots
 * tells, else nothing queued where /metrics tells, else (nothing known)
 * only when the other is not known either.
 */
static int
route_ladder_free(const struct route_escalate_rung *r)
{
	if (r->slots > 0)
		return r->idle > 0;
	return r->load_known && r->waiting <= 0;
}

/*
 * Whether rung a is a better choice than rung b among servers that can
 * take the turn: the session's warm cache first, then a free slot (or
 * an empty queue), then the least loaded: fewer requests running and
 * queued where both servers' /metrics tell, else more free slots; equal:
 * the order of the setting.
 */
static int
route_ladder_better(const struct route_escalate *x, int a, int b)
{
	const struct route_escalate_rung *ra, *rb;

	if (b < 0) /* no choice yet (rungs[-1] is never formed: UBSan) */
		return 1;
	ra = &x->rungs[a], rb = &x->rungs[b];
	if ((a == x->warm) != (b == x->warm))
		return a == x->warm;
	if (route_ladder_free(ra) != route_ladder_free(rb))
		return route_ladder_free(ra);
	if (ra->load_known && rb->load_known && ra->running + ra->waiting != rb->running + rb->waiting)
		return ra->running + ra->waiting < rb->running + rb->waiting;
	return ra->idle > rb->idle;
}

/* The next rung up (see route/ladder.h). */
int
route_ladder_next(const struct route_escalate *x, int from, int same_role, long need_ctx)
{
	int wh = from >= 0 ? x->rungs[from].workhorse : 0, pass, i, best = -1;

	for (pass = same_role ? 0 : 1; pass < 2 && best < 0; pass++)
		for (i = 0; i < (int)x->nrungs; i++) {
			const struct route_escalate_rung *r = &x->rungs[i];

			if (i == from || r->down || !r->p)
				continue;
			if (pass == 0 && r->workhorse != wh)
				continue;
			if (pass == 1 && (!r->workhorse || (wh && i < from)))
				continue;
			if (route_ladder_fits(x, i, need_ctx) && route_ladder_better(x, i, best))
				best = i;
		}
	return best;
}

/*
 * Where a turn starts: among the up interactive rungs (all of them when
 * there is none), the better one (warm, free slot, least loaded).
 */
static int
route_ladder_first(const struct route_escalate *x)
{
	int i, best = -1, any_interactive = 0;

	for (i = 0; i < (int)x->nrungs; i++)
		any_interactive |= !x->rungs[i].workhorse && !x->rungs[i].down && x->rungs[i].p;
	for (i = 0; i < (int)x->nrungs; i++) {
		const struct route_escalate_rung *r = &x->rungs[i];

		if (r->down || !r->p || (any_interactive && r->workhorse))
			continue;
		if (route_ladder_better(x, i, best))
			best = i;
	}
	return best >= 0 ? best : x->start >= 0 ? x->start : 0;
}

/* Record a move to rung to and say it. */
static void
route_ladder_record(struct route_escalate *x, int to, const char *reason, int step, struct buf *note)
{
	struct route_decision d;
	const struct route_escalate_rung *r = &x->rungs[to];

	memset(&d, 0, sizeof d);
	d.target = ROUTE_LOCAL;
	d.mode = ROUTE_HANDOFF;
	d.rule = -1;
	snprintf(d.reason, sizeof d.reason, "%s", reason);
	route_step_record(x, &d, step);
	snprintf(x->dec[x->ndec - 1].tier, sizeof x->dec[x->ndec - 1].tier, "%s", r->name);
	x->last = d;
	if (note->len)
		buf_addch(note, '\n');
	buf_addf(note, "→ %s (%s): %s", r->name, r->workhorse ? "workhorse" : "interactive", reason);
}

/* Local requests go to rung to (its provider and context). */
static void
route_ladder_go(struct route_escalate *x, int to)
{
	x->rung = to;
	if (x->rungs[to].p) {
		x->local = x->rungs[to].p;
		x->n_ctx = x->rungs[to].n_ctx;
	}
}

/* Move the turn to rung to: the move recorded and said, and local requests go there. */
static void
route_ladder_move(struct route_escalate *x, int to, const char *reason, int step, struct buf *note)
{
	route_ladder_record(x, to, reason, step, note);
	route_ladder_go(x, to);
}

/* Whether a rule climbs the ladder before Claude. */
static int
route_ladder_climbs(const struct route_decision *d)
{
	return d->rule >= 0 && d->rule < ROUTE_RULE_COUNT && (d->target == ROUTE_CLAUDE || d->blocked);
}

/* Between steps (see route/ladder.h). */
int
route_ladder_step(struct route_escalate *x, struct agent *a, const struct route_decision *d,
		  long prompt_tokens, struct buf *note)
{
	int from = x->rung, to, down = d->rule == ROUTE_RULE_SERVER_DOWN;
	char why[ROUTE_REASON_MAX];
	struct conv *c;

	if (!x->nrungs || from < 0 || x->pin >= 0 || !route_ladder_climbs(d))
		return 0;
	if (down)
		x->rungs[from].down = 1;
	to = route_ladder_next(x, from, down, d->rule == ROUTE_RULE_CONTEXT ? prompt_tokens : 0);
	if (to < 0)
		return 0;
	if (down)
		snprintf(why, sizeof why, "%s stopped answering; skipped, the session goes on", x->rungs[from].name);
	else
		snprintf(why, sizeof why, "%.120s on %.31s", d->reason, x->rungs[from].name);
	route_ladder_move(x, to, why, agent_stats(a)->steps, note);
	agent_set_provider(a, x->local);
	c = agent_conv(a);
	x->window0 = c->nmsgs; /* the new rung's failure signals start over */
	x->cf_base = agent_stats(a)->consecutive_tool_failures;
	return 1;
}

/* At a turn's start (see route/ladder.h). */
int
route_ladder_turn(struct route_escalate *x, const char **text, struct buf *note)
{
	const char *t = *text ? *text + strspn(*text, " \t\r\n") : NULL;
	char why[ROUTE_REASON_MAX];
	int at = -1, to;

	if (!x->nrungs)
		return 0;
	for (to = 0; to < (int)x->nrungs; to++) /* the caller's server: its context as discovery found it */
		if (x->rungs[to].p == x->local && x->n_ctx > 0)
			x->rungs[to].n_ctx = x->n_ctx;
	if (t && *t == '@') {
		size_t n = strcspn(t + 1, " \t\r\n:,");

		if ((at = route_escalate_rung_find(x, t + 1, n)) >= 0) {
			t += 1 + n + (t[1 + n] == ':' || t[1 + n] == ',');
			*text = t + strspn(t, " \t\r\n");
		}
	}
	x->rung = x->start >= 0 ? x->start : 0;
	why[0] = 0;
	if (at >= 0) {
		x->rung = at;
		snprintf(why, sizeof why, "requested with @%s", x->rungs[at].name);
	} else if (x->pin >= 0) {
		x->rung = x->pin;
	} else if (x->last.tier && (to = route_escalate_rung_find(x, x->last.tier, strlen(x->last.tier))) >= 0) {
		x->rung = to;
		snprintf(why, sizeof why, "%s", x->last.reason);
	} else if ((to = route_ladder_first(x)) != x->rung) {
		const struct route_escalate_rung *f = &x->rungs[x->rung], *r = &x->rungs[to];

		if (f->down || !f->p)
			snprintf(why, sizeof why, "%s is down; skipped", f->name);
		else if (to != x->warm && f->load_known && r->load_known &&
			 (f->slots <= 0 || r->slots <= 0 || f->idle == r->idle))
			snprintf(why, sizeof why, "%s is busier (%.0f running, %.0f queued), %s has %.0f running, %.0f queued",
				 f->name, f->running, f->waiting, r->name, r->running, r->waiting);
		else if (to != x->warm && f->idle == 0 && f->slots > 0)
			snprintf(why, sizeof why, "%s has no free slot (0 of %d), %s has %d", f->name, f->slots,
				 r->name, r->idle);
		else if (to != x->warm)
			snprintf(why, sizeof why, "%s has %d free slot%s, %s %d", r->name, r->idle,
				 r->idle == 1 ? "" : "s", f->name, f->idle);
		x->rung = to; /* the warm one: quietly, as the last turn */
	}
	if (!why[0] && x->pin < 0 && route_ladder_climbs(&x->last) &&
	    (to = route_ladder_next(x, x->rung, 0, x->last.rule == ROUTE_RULE_CONTEXT ? x->last_prompt : 0)) >= 0) {
		snprintf(why, sizeof why, "%.120s on %.31s", x->last.reason, x->rungs[x->rung].name);
		x->rung = to;
	}
	if (!why[0]) {
		route_ladder_go(x, x->rung);
		return 0;
	}
	route_ladder_move(x, x->rung, why, x->steps_before, note);
	return 1;
}

/* The start rung is down before the turn (see route/ladder.h). */
struct provider *
route_ladder_skip_down(struct route_escalate *x, int from, struct buf *note)
{
	char why[ROUTE_REASON_MAX];
	int to;

	if (!x->nrungs || from < 0 || (size_t)from >= x->nrungs || x->pin >= 0)
		return NULL;
	x->rungs[from].down = 1;
	if ((to = route_ladder_next(x, from, 1, 0)) < 0)
		return NULL;
	snprintf(why, sizeof why, "%s does not answer; skipped", x->rungs[from].name);
	route_ladder_move(x, to, why, x->steps_before, note);
	x->on_claude = 0;
	return x->local;
}

/* The session's own server answered discovery, or not (see route/ladder.h). */
int
route_ladder_own(struct route_escalate *x, const struct provider *own, long n_ctx, int down, struct buf *note)
{
	int i, from = -1, to;

	for (i = 0; i < (int)x->nrungs && from < 0; i++)
		if (x->rungs[i].p == own)
			from = i;
	if (from < 0)
		return -1;
	x->rungs[from].down = down;
	if (!down) {
		if (n_ctx > 0)
			x->rungs[from].n_ctx = n_ctx;
		return from;
	}
	if (x->pin == from)
		return -1;
	to = x->pin >= 0 ? (x->rungs[x->pin].down ? -1 : x->pin) : route_ladder_next(x, from, 1, 0);
	if (to < 0)
		return -1;
	if (note)
		buf_addf(note, "%s does not answer; turns start on %s (%s) until it does (hearth keeps asking)",
			 x->rungs[from].name, x->rungs[to].name, x->rungs[to].workhorse ? "workhorse" : "interactive");
	return to;
}

/* Task patterns naming a tier that is not there (see route/ladder.h). */
int
route_ladder_check_patterns(const struct route_escalate *x, struct buf *w)
{
	size_t i, k;
	int bad = 0;

	for (i = 0; i < x->policy.npatterns; i++) {
		const struct route_pattern *p = &x->policy.patterns[i];

		if (!p->tier || route_escalate_rung_find(x, p->tier, strlen(p->tier)) >= 0)
			continue;
		bad++;
		buf_addf(w, "routing.patterns \"%s\": tier \"%s\" is not in the servers setting", p->text, p->tier);
		if (!x->nrungs) {
			buf_adds(w, " (there is none): add {\"name\": \"");
			buf_adds(w, p->tier);
			buf_adds(w, "\", \"url\": ...} to \"servers\", or remove \"tier\" from the pattern; tasks it matches stay local\n");
			continue;
		}
		buf_adds(w, " (tiers: ");
		for (k = 0; k < x->nrungs; k++)
			buf_addf(w, "%s%s", k ? ", " : "", x->rungs[k].name);
		buf_adds(w, "): use one of those names, or add a server by that name; tasks it matches start where any task does\n");
	}
	return bad;
}

/* Usage of the rung the turn is on. */
void
route_ladder_account(struct route_escalate *x, const struct route_usage *d, int nreq, double ms)
{
	struct route_escalate_rung *r;
	double usd = 0;

	if (!x->nrungs || x->rung < 0)
		return;
	r = &x->rungs[x->rung];
	r->use.input += d->input;
	r->use.output += d->output;
	r->use.cache_read += d->cache_read;
	r->use.cache_write += d->cache_write;
	r->requests += nreq;
	r->ms += ms;
	if (r->p && route_cost_usd(&x->policy, r->p->model(r->p->self), d, &usd) == 0)
		r->cost += usd; /* a local tier costs only what a price in the settings says */
}

/* A turn starts (see route/ladder.h). */
void
route_ladder_turn_start(struct route_escalate *x)
{
	size_t i;

	for (i = 0; i < x->nrungs; i++) {
		x->rungs[i].use0 = x->rungs[i].use;
		x->rungs[i].ms0 = x->rungs[i].ms;
		x->rungs[i].cost0 = x->rungs[i].cost;
		x->rungs[i].requests0 = x->rungs[i].requests;
	}
	x->claude_use0 = x->route_use[ROUTE_CLAUDE];
	x->claude_ms0 = x->claude_ms;
	x->claude_cost0 = x->route_cost[ROUTE_CLAUDE];
	x->claude_requests0 = x->claude_requests;
}

/* One tier's figures of the turn: now less then. */
static void
route_ladder_turn_tier(struct route_outcomes_tier *t, const char *name, const char *role, int nreq,
		       const struct route_usage *u, const struct route_usage *u0, double ms, double usd)
{
	snprintf(t->name, sizeof t->name, "%s", name);
	t->role = role;
	t->requests = nreq;
	t->tokens.input = u->input - u0->input;
	t->tokens.output = u->output - u0->output;
	t->tokens.cache_read = u->cache_read - u0->cache_read;
	t->tokens.cache_write = u->cache_write - u0->cache_write;
	t->ms = ms;
	t->cost_usd = usd;
}

/* The turn's tiers (see route/ladder.h). */
size_t
route_ladder_turn_tiers(const struct route_escalate *x, struct route_outcomes_tier *out, size_t max)
{
	size_t i, n = 0;

	if (!x->nrungs)
		return 0;
	for (i = 0; i < x->nrungs && n < max; i++) {
		const struct route_escalate_rung *r = &x->rungs[i];

		if (r->requests > r->requests0)
			route_ladder_turn_tier(&out[n++], r->name, r->workhorse ? "workhorse" : "interactive",
					       r->requests - r->requests0, &r->use, &r->use0, r->ms - r->ms0,
					       r->cost - r->cost0);
	}
	if (n < max && x->claude_requests > x->claude_requests0)
		route_ladder_turn_tier(&out[n++], "claude", "claude", x->claude_requests - x->claude_requests0,
				       &x->route_use[ROUTE_CLAUDE], &x->claude_use0, x->claude_ms - x->claude_ms0,
				       x->route_cost[ROUTE_CLAUDE] - x->claude_cost0);
	return n;
}

/* One entry of "tiers". */
static cJSON *
route_ladder_entry(const char *name, const char *role, const struct route_usage *u, int nreq,
		   double ms, double usd)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "role", role);
	cJSON_AddNumberToObject(o, "requests", nreq);
	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->cache_read);
	cJSON_AddNumberToObject(o, "ms", ms);
	cJSON_AddNumberToObject(o, "cost_usd", usd);
	return o;
}

/* The "tiers" array. */
cJSON *
route_ladder_json(const struct route_escalate *x)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < x->nrungs; i++) {
		const struct route_escalate_rung *r = &x->rungs[i];
		cJSON *e = route_ladder_entry(r->name, r->workhorse ? "workhorse" : "interactive", &r->use,
					      r->requests, r->ms, r->cost);

		if (r->down)
			cJSON_AddBoolToObject(e, "down", 1);
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddItemToArray(arr, route_ladder_entry("claude", "claude", &x->route_use[ROUTE_CLAUDE],
						     x->claude_requests, x->claude_ms, x->route_cost[ROUTE_CLAUDE]));
	return arr;
}

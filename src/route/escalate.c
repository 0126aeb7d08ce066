/*
 * route/escalate: per-turn routing between the local server and Claude (see
 * route/escalate.h); what happens between the steps of a turn is route_step's.
 * Spend is accounted from the agent's counters per route (route_step).
 */
#include "route/escalate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent.h"
#include "anthropic/anthropic.h"
#include "route/step.h"
#include "route/ladder.h"
#include "route/outcomes.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "route/privacy.h"
#include "route/privlines.h"
#include "io/work.h"
#include "route/config.h"
#include "base/secret.h"
#include "base/xmalloc.h"

/* Policy, keys, spend so far today. */
void
route_escalate_init(struct route_escalate *x, struct loop *l, struct http *h, const char *cwd,
	      const char *state_dir, struct buf *warnings)
{
	const char *key = getenv("ANTHROPIC_API_KEY"), *base = getenv("ANTHROPIC_BASE_URL");
	struct buf path = BUF_INIT;

	memset(x, 0, sizeof *x);
	x->loop = l;
	x->http = h;
	route_config_defaults(&x->policy);
	route_config_load(&x->policy, cwd, warnings);
	anthropic_config_defaults(&x->claude);
	anthropic_config_load(&x->claude, cwd, warnings);
	if (key && *key)
		x->key = xstrdup(key);
	else if (x->claude.api_key)
		x->key = xstrdup(x->claude.api_key);
	secret_add("anthropic.api_key", x->claude.api_key); /* masked in tool results (base/secret.h) */
	x->base_url = base && *base ? xstrdup(base) : NULL;
	buf_addf(&path, "%s/routes.jsonl", state_dir);
	x->log_path = buf_detach(&path, NULL);
	x->root = xstrdup(cwd);
	buf_init(&x->warning, 0);
	route_outcomes_spent_day(x->log_path, time(NULL), &x->spent_day, NULL);
	route_escalate_rescan(x);
}

/* One scan of the private lines, owned by the job (x NULL once the escalation is released). */
struct route_escalate_scan {
	struct route_escalate *x;
	char *root;
	char **globs;
	size_t n;
	struct route_privlines *res;
};

/* On the worker: the walk (touches only the job). */
static void
route_escalate_scan_run(void *arg)
{
	struct route_escalate_scan *j = arg;

	j->res = route_privlines_build(j->root, (const char *const *)j->globs, j->n, NULL);
}

/* On the loop: adopt the set; scan again when asked meanwhile. */
static void
route_escalate_scan_done(void *arg, int ran)
{
	struct route_escalate_scan *j = arg;
	struct route_escalate *x = j->x;
	size_t i;

	if (x && ran) {
		route_privlines_free(x->plines);
		x->plines = j->res;
		j->res = NULL;
	}
	route_privlines_free(j->res);
	for (i = 0; i < j->n; i++)
		free(j->globs[i]);
	free(j->globs);
	free(j->root);
	free(j);
	if (x) {
		x->pscan = NULL;
		if (x->prescan && ran) {
			x->prescan = 0;
			route_escalate_rescan(x);
		}
	}
}

/* Start a scan (or ask for one after the running one). */
void
route_escalate_rescan(struct route_escalate *x)
{
	struct route_escalate_scan *j;
	struct err e = ERR_INIT;
	size_t i;

	if (!x->root || !x->policy.nprivacy || !x->key)
		return;
	if (x->pscan) {
		x->prescan = 1;
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->x = x;
	j->root = xstrdup(x->root);
	j->n = x->policy.nprivacy;
	j->globs = xcalloc(j->n, sizeof *j->globs);
	for (i = 0; i < j->n; i++)
		j->globs[i] = xstrdup(x->policy.privacy[i]);
	x->pscan = j;
	if (work_submit(x->loop, route_escalate_scan_run, route_escalate_scan_done, j, &e) < 0) {
		route_escalate_scan_run(j); /* no worker: in place, once */
		route_escalate_scan_done(j, 1);
	}
}

/* Free. */
void
route_escalate_release(struct route_escalate *x)
{
	route_config_release(&x->policy);
	anthropic_config_release(&x->claude);
	anthropic_free(x->an);
	if (x->key) /* do not leave the key in freed memory */
		memset(x->key, 0, strlen(x->key));
	free(x->key);
	free(x->base_url);
	free(x->model);
	free(x->log_path);
	free(x->dec);
	if (x->pscan)
		x->pscan->x = NULL; /* its done() frees it */
	route_privlines_free(x->plines);
	free(x->root);
	buf_release(&x->warning);
	memset(x, 0, sizeof *x);
}

/* --route / /route: a mode, or a tier's name (pinned; nothing climbs past it). */
int
route_escalate_set_mode(struct route_escalate *x, const char *mode, struct err *e)
{
	int i = mode ? route_escalate_rung_find(x, mode, strlen(mode)) : -1;

	if (i >= 0) {
		x->pin = i;
		return route_config_set_mode(&x->policy, "local", e);
	}
	if (route_config_set_mode(&x->policy, mode, e) < 0) {
		if (x->nrungs) {
			struct buf names = BUF_INIT;
			size_t k;

			for (k = 0; k < x->nrungs; k++)
				buf_addf(&names, "%s%s", k ? ", " : "", x->rungs[k].name);
			err_set(e, "unknown route \"%s\": use auto, local, claude or a tier (%s)", mode ? mode : "",
				names.data);
			buf_release(&names);
		}
		return -1;
	}
	if (x->nrungs)
		x->pin = -1;
	return 0;
}

/*
 * What Claude may see: the privacy filter over the conv (calls that name
 * a private file), then the private lines wherever they show up.
 */
static int
route_escalate_filter(void *arg, const struct conv *in, struct conv *out)
{
	struct route_escalate *x = arg;
	size_t n = route_privacy_conv(&x->policy, in, out);

	return n + route_privlines_conv(x->plines, out) > 0;
}

/* The model check answered: keep a warning when the id is unknown. */
static void
route_escalate_models_done(int rc, int found, const char *msg, void *arg)
{
	struct route_escalate *x = arg;

	if (rc == 0 && !found && msg && *msg)
		buf_addf(&x->warning, "%s%s", x->warning.len ? "\n" : "", msg);
}

/* The Claude provider, created on first use; its model id checked once. */
struct provider *
route_escalate_claude(struct route_escalate *x)
{
	struct anthropic_opts o;

	if (!x->an) {
		anthropic_opts_init(&o);
		o.base_url = x->base_url;
		o.api_key = x->key;
		o.model = anthropic_config_model(&x->claude);
		o.max_tokens = x->claude.max_tokens;
		o.max_attempts = x->claude.retries + 1;
		o.idle_timeout_ms = x->idle_timeout_ms;
		x->an = anthropic_new(x->loop, x->http, &o);
		anthropic_set_filter(x->an, route_escalate_filter, x);
	}
	if (!x->models_checked && x->key) {
		x->models_checked = 1;
		anthropic_check_models(x->an, route_escalate_models_done, x, NULL);
	}
	return anthropic_provider(x->an);
}

/* Settling: the check answered or time is up. */
static void
route_escalate_settle_stop(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* Before each poll while settling: stop once the check answered. */
static void
route_escalate_settle_hook(struct loop *l, void *arg)
{
	if (!anthropic_models_pending(arg))
		loop_stop(l);
}

/*
 * Let a model check still in flight answer (at most max_ms), so its
 * warning is not lost.  Replaces the loop's before-sleep hook (the run
 * is over when this is called).
 */
void
route_escalate_settle(struct route_escalate *x, int max_ms)
{
	long t;

	if (!anthropic_models_pending(x->an))
		return;
	loop_set_before_sleep(x->loop, route_escalate_settle_hook, x->an);
	t = loop_timer_add(x->loop, (uint64_t)max_ms, route_escalate_settle_stop, NULL);
	loop_run(x->loop, NULL);
	loop_timer_del(x->loop, t);
	loop_set_before_sleep(x->loop, NULL, NULL);
}

/* Pending warning. */
int
route_escalate_take_warning(struct route_escalate *x, struct buf *out)
{
	if (!x->warning.len)
		return 0;
	buf_add(out, x->warning.data, x->warning.len);
	buf_reset(&x->warning);
	return 1;
}

/* The line the user sees for a decision. */
static void
route_escalate_note(const struct route_decision *d, struct buf *note)
{
	if (d->notify && d->blocked_why[0])
		buf_adds(note, d->blocked_why);
	else if (d->target == ROUTE_CLAUDE)
		buf_addf(note, "→ claude (%s): %s", route_config_mode_name(d->mode), d->reason);
}

/* A new turn begins: reset what the step hook follows. */
static void
route_escalate_turn_reset(struct route_escalate *x, struct provider *local, long n_ctx)
{
	x->local = local;
	x->n_ctx = n_ctx;
	x->handed_off = 0;
	x->turn_consults = 0;
	x->turn_use = (struct route_usage){ 0, 0, 0, 0 };
	x->turn_cost = 0;
	route_ladder_turn_start(x);
	if (x->consulting)
		route_step_consult(x, 0, NULL);
}

/* Decide this turn's provider. */
struct provider *
route_escalate_turn(struct route_escalate *x, const char **text, struct provider *local, long n_ctx,
	      const struct agent_stats *st, struct buf *note)
{
	struct route_signals s;
	enum route_request req = (enum route_request)x->pending;
	const char *stripped = route_strip_at_claude(*text);

	if (stripped) {
		*text = stripped;
		req = ROUTE_REQ_AT_CLAUDE;
	}
	x->pending = ROUTE_REQ_NONE;
	if (x->policy.mode != ROUTE_ONLY_LOCAL) /* files may have changed since the last turn */
		route_escalate_rescan(x);
	if (st)
		route_step_account(x, st);
	route_escalate_turn_reset(x, local, n_ctx);
	memset(&s, 0, sizeof s);
	s.task = *text;
	s.prompt_tokens = x->last_prompt;
	s.n_ctx = n_ctx;
	s.have_key = x->key != NULL;
	s.spent_session_usd = x->spent_session;
	s.spent_day_usd = x->spent_day + x->spent_session;
	s.told = x->told;
	route_decide(&x->policy, &s, req, &x->last);
	x->told = x->last.told;
	if (st)
		x->steps_before = st->steps;
	if (route_ladder_turn(x, text, note)) { /* a tier takes the turn */
		x->on_claude = 0;
		return x->local;
	}
	route_escalate_note(&x->last, note);
	route_step_record(x, &x->last, st ? st->steps : 0);
	if (st)
		x->steps_before = st->steps;
	x->on_claude = x->last.target == ROUTE_CLAUDE;
	if (!x->on_claude)
		return x->local;
	route_escalate_claude(x);
	if (x->last.mode == ROUTE_CONSULT) {
		route_step_consult(x, 1, x->last.reason);
		x->turn_consults++;
	} else {
		x->handed_off = 1;
	}
	return anthropic_provider(x->an);
}

/* Follow the agent's steps. */
void
route_escalate_attach(struct route_escalate *x, struct agent *a)
{
	const struct agent_stats *st = agent_stats(a);

	x->agent = a;
	x->window0 = agent_conv(a)->nmsgs;
	x->cf_base = st->consecutive_tool_failures;
	route_step_account(x, st); /* usage before this turn is not this turn's */
	x->turn_use = (struct route_usage){ 0, 0, 0, 0 };
	x->timing = 1;
	x->snap_ms = loop_now_ms(x->loop);
	agent_set_step_hook(a, route_step_hook, x);
}

/* The local server is down before the turn (print mode). */
struct provider *
route_escalate_server_down(struct route_escalate *x, struct provider *local, struct buf *note)
{
	struct route_signals s;
	struct route_decision d;

	if (x->on_claude && x->consulting) { /* a consult cannot hand back: Claude continues */
		route_step_consult(x, 0, NULL);
		x->last.mode = ROUTE_HANDOFF;
		x->handed_off = 1;
		buf_addf(note, "→ claude (handoff): %s (the local server is unreachable, so Claude continues)",
			 x->last.reason);
		return anthropic_provider(x->an);
	}
	memset(&s, 0, sizeof s);
	s.server_down = 1;
	s.have_key = x->key != NULL;
	s.spent_session_usd = x->spent_session;
	s.spent_day_usd = x->spent_day + x->spent_session;
	s.told = x->told;
	route_decide(&x->policy, &s, ROUTE_REQ_NONE, &d);
	x->told = d.told;
	route_escalate_note(&d, note);
	if (d.target != ROUTE_CLAUDE)
		return NULL;
	x->last = d;
	route_step_record(x, &d, 0);
	route_escalate_turn_reset(x, local, 0);
	x->on_claude = 1;
	x->handed_off = 1; /* a consult could not hand back to a server that is down */
	x->last.mode = ROUTE_HANDOFF;
	return route_escalate_claude(x);
}

/* Spend of this session. */
double
route_escalate_spent(const struct route_escalate *x)
{
	return x->spent_session;
}

/* Spend and outcome of the finished turn. */
void
route_escalate_turn_end(struct route_escalate *x, const struct agent_stats *st, int answered,
		  int files_changed, double wall_s)
{
	struct route_outcomes_turn o;
	struct route_outcomes_tier tiers[ROUTE_OUTCOMES_TIERS];

	route_step_account(x, st);
	x->timing = 0;
	if (x->nrungs && !x->on_claude && x->rung >= 0)
		x->warm = x->rung; /* the session's cache is there now */
	memset(&o, 0, sizeof o);
	o.tokens = x->turn_use;
	o.target = x->last.target;
	o.mode = x->last.mode;
	o.reason = x->last.reason;
	o.steps = st->steps - x->steps_before;
	o.answered = answered;
	o.files_changed = files_changed;
	o.cost_usd = x->turn_cost;
	o.wall_s = wall_s;
	o.tiers = tiers;
	o.ntiers = route_ladder_turn_tiers(x, tiers, ROUTE_OUTCOMES_TIERS);
	route_outcomes_append(x->log_path, &o, NULL);
	x->turn_use = (struct route_usage){ 0, 0, 0, 0 };
	x->turn_cost = 0;
	if (x->consulting)
		route_step_consult(x, 0, NULL);
}

/* Route an interactive turn and point the agent at the chosen provider. */
const char *
route_escalate_begin(struct route_escalate *x, struct agent *a, struct provider *local, const char *text,
	       long n_ctx, struct buf *note)
{
	const char *t = text;

	agent_set_provider(a, route_escalate_turn(x, &t, local, n_ctx, agent_stats(a), note));
	route_escalate_attach(x, a);
	x->began_ms = loop_now_ms(x->loop);
	if (x->warning.len && note->len)
		buf_addch(note, '\n');
	route_escalate_take_warning(x, note);
	return t;
}

/* The server_down rule asked without acting on it (see route/escalate.h). */
int
route_escalate_down_possible(const struct route_escalate *x)
{
	struct route_signals s;
	struct route_decision d;

	memset(&s, 0, sizeof s);
	s.server_down = 1;
	s.have_key = x->key != NULL;
	s.spent_session_usd = x->spent_session;
	s.spent_day_usd = x->spent_day + x->spent_session;
	s.told = x->told;
	route_decide(&x->policy, &s, ROUTE_REQ_NONE, &d);
	return d.target == ROUTE_CLAUDE;
}

/* An interactive turn with the local server down (see route/escalate.h). */
int
route_escalate_begin_down(struct route_escalate *x, struct agent *a, struct provider *local, struct buf *note)
{
	struct provider *p = route_escalate_server_down(x, local, note);

	if (!p)
		return 0;
	agent_set_provider(a, p);
	route_escalate_attach(x, a);
	x->began_ms = loop_now_ms(x->loop);
	return 1;
}

/* The interactive turn ended. */
void
route_escalate_end(struct route_escalate *x, struct agent *a, int answered)
{
	route_escalate_turn_end(x, agent_stats(a), answered, 0,
			  (double)(loop_now_ms(x->loop) - x->began_ms) / 1000.0);
}

/* The outcomes table for `hearth stats`. */
int
route_escalate_stats(const char *state_dir, struct buf *out, struct err *e)
{
	struct buf path = BUF_INIT;
	int rc;

	buf_addf(&path, "%s/routes.jsonl", state_dir);
	rc = route_outcomes_stats(path.data, out, e);
	buf_release(&path);
	return rc;
}

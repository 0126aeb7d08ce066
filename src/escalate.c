/*
 * escalate: per-turn routing between the local server and Claude (see
 * escalate.h).  Spend is computed from the usage the agent counted during
 * the turn (difference of agent_stats before and after).
 */
#include "escalate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "anthropic.h"
#include "loop.h"
#include "provider.h"
#include "routecfg.h"
#include "xmalloc.h"

/* Policy, keys, spend so far today. */
void
escalate_init(struct escalate *x, struct loop *l, struct http *h, const char *cwd,
	      const char *state_dir, struct buf *warnings)
{
	const char *key = getenv("ANTHROPIC_API_KEY"), *base = getenv("ANTHROPIC_BASE_URL");
	struct buf path = BUF_INIT;

	memset(x, 0, sizeof *x);
	x->loop = l;
	x->http = h;
	routecfg_defaults(&x->policy);
	routecfg_load(&x->policy, cwd, warnings);
	x->key = key && *key ? xstrdup(key) : NULL;
	x->base_url = base && *base ? xstrdup(base) : NULL;
	buf_addf(&path, "%s/routes.jsonl", state_dir);
	x->log_path = buf_detach(&path, NULL);
	route_spent_day(x->log_path, time(NULL), &x->spent_day, NULL);
}

/* Free. */
void
escalate_release(struct escalate *x)
{
	routecfg_release(&x->policy);
	anthropic_free(x->an);
	if (x->key) /* do not leave the key in freed memory */
		memset(x->key, 0, strlen(x->key));
	free(x->key);
	free(x->base_url);
	free(x->model);
	free(x->log_path);
	memset(x, 0, sizeof *x);
}

/* --route / /route. */
int
escalate_set_mode(struct escalate *x, const char *mode, struct err *e)
{
	return routecfg_set_mode(&x->policy, mode, e);
}

/* The Claude provider, created on first use. */
static struct provider *
escalate_claude(struct escalate *x)
{
	struct anthropic_opts o;

	if (!x->an) {
		anthropic_opts_init(&o);
		o.base_url = x->base_url;
		o.api_key = x->key;
		x->an = anthropic_new(x->loop, x->http, &o);
	}
	return anthropic_provider(x->an);
}

/* Usage counted so far, as the policy's cost function wants it. */
static struct route_usage
escalate_usage(const struct agent_stats *st)
{
	struct route_usage u;

	u.input = st->prompt_tokens - st->cached_tokens;
	u.output = st->completion_tokens;
	u.cache_write = 0;
	u.cache_read = st->cached_tokens;
	return u;
}

/* Decide this turn's provider. */
struct provider *
escalate_turn(struct escalate *x, const char **text, struct provider *local, long n_ctx,
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
	memset(&s, 0, sizeof s);
	s.task = *text;
	s.prompt_tokens = st ? st->prompt_tokens / (st->requests ? st->requests : 1) : 0;
	s.n_ctx = n_ctx;
	s.consecutive_tool_failures = st ? st->consecutive_tool_failures : 0;
	s.have_key = x->key != NULL;
	s.spent_session_usd = x->spent_session;
	s.spent_day_usd = x->spent_day + x->spent_session;
	s.told = x->told;
	route_decide(&x->policy, &s, req, &x->last);
	x->told = x->last.told;
	if (x->last.notify && x->last.blocked_why[0])
		buf_adds(note, x->last.blocked_why);
	else if (x->last.target == ROUTE_CLAUDE)
		buf_addf(note, "→ claude (%s): %s", routecfg_mode_name(x->last.mode), x->last.reason);
	if (st) {
		x->usage_before = escalate_usage(st);
		x->steps_before = st->steps;
	}
	return x->last.target == ROUTE_CLAUDE ? escalate_claude(x) : local;
}

/* Spend and outcome of the finished turn. */
void
escalate_turn_end(struct escalate *x, const struct agent_stats *st, int answered,
		  int files_changed, double wall_s)
{
	struct route_outcome o;
	struct route_usage now = escalate_usage(st);
	double usd = 0;

	memset(&o, 0, sizeof o);
	o.tokens.input = now.input - x->usage_before.input;
	o.tokens.output = now.output - x->usage_before.output;
	o.tokens.cache_read = now.cache_read - x->usage_before.cache_read;
	if (x->last.target == ROUTE_CLAUDE && x->an) {
		route_cost_usd(&x->policy, anthropic_provider(x->an)->model(x->an), &o.tokens, &usd);
		x->spent_session += usd;
	}
	o.target = x->last.target;
	o.mode = x->last.mode;
	o.reason = x->last.reason;
	o.steps = st->steps - x->steps_before;
	o.answered = answered;
	o.files_changed = files_changed;
	o.cost_usd = usd;
	o.wall_s = wall_s;
	route_outcome_append(x->log_path, &o, NULL);
}

/* Route an interactive turn and point the agent at the chosen provider. */
const char *
escalate_begin(struct escalate *x, struct agent *a, struct provider *local, const char *text,
	       long n_ctx, struct buf *note)
{
	const char *t = text;

	agent_set_provider(a, escalate_turn(x, &t, local, n_ctx, agent_stats(a), note));
	x->began_ms = loop_now_ms(x->loop);
	return t;
}

/* The interactive turn ended. */
void
escalate_end(struct escalate *x, struct agent *a, int answered)
{
	escalate_turn_end(x, agent_stats(a), answered, 0,
			  (double)(loop_now_ms(x->loop) - x->began_ms) / 1000.0);
}

/* The outcomes table for `hearth stats`. */
int
escalate_stats(const char *state_dir, struct buf *out, struct err *e)
{
	struct buf path = BUF_INIT;
	int rc;

	buf_addf(&path, "%s/routes.jsonl", state_dir);
	rc = route_stats(path.data, out, e);
	buf_release(&path);
	return rc;
}

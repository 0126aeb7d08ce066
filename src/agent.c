/*
 * agent: turn loop state machine.
 *
 * States: IDLE → STREAMING (a provider request is in flight; the step's
 * text, reasoning and tool calls accumulate) → TOOLS (calls run one after
 * another; synchronous tools finish inside start(), so running them is a
 * trampoline, never recursion) → STREAMING for the next step, or IDLE
 * when the turn ends.  Step completion is deferred to a zero-delay timer
 * so that the provider's callbacks have returned before the next request
 * starts.  `gen` counts turns so a stale timer or tool callback from an
 * aborted turn is ignored.
 */
#include "agent.h"
#include "compact.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "loop.h"
#include "provider.h"
#include "shellro.h"
#include "textgate.h"
#include "callfix.h"
#include "cfg.h"
#include "cutoff.h"
#include "toolset.h"
#include "toolparse.h"
#include "xmalloc.h"

enum agent_state { ST_IDLE, ST_STREAMING, ST_TOOLS };

struct agent {
	struct loop *loop;
	struct provider *prov;
	const struct tool_env *env;
	struct agent_opts opts;
	struct agent_observer obs;
	struct conv conv;
	struct agent_stats stats;
	enum agent_state state;
	int turn_steps;
	/* current step */
	struct buf text, reasoning;
	struct agent_call *calls;
	size_t ncalls, acalls;
	int *call_index; /* provider index of each call */
	char *stop_reason;
	int parse_retried;
	int step_failures;
	size_t next_call;
	int running_tools; /* trampoline guard */
	cJSON *gate_args;  /* the current call's arguments while the gate decides */
	int gate_wait;     /* pre_tool asked, no answer yet */
	long timer;
	long loading_waited_ms;
	unsigned long call_seq;
	struct buf err_msg;
	struct textgate gate;   /* what of the streamed text may be shown live */
	struct buf shown;       /* scratch for gated text */
	struct buf planned;     /* why the next request's prefix changes on purpose ("" = it does not) */
	struct compact_run *compacting; /* a summary request in flight (before the turn's text) */
	int compact_pending;    /* /compact asked for one */
	char *compact_focus;
	char *compact_text;     /* the turn's text, sent once compaction ended */
	int retries;            /* transient-error retries of the current step */
	int parse_fail_streak;  /* steps in a row whose tool call could not be parsed */
	struct callfix_tools tools; /* the enabled tools, for recovery and checks */
	const struct tool **toolv;  /* opts.tools + extension tools, fixed for a turn */
	size_t committed;       /* messages already passed to on_commit */
	int changed;            /* before_change ran this turn */
	struct cutoff cut;      /* explore→produce cutoff */
	int think_next, turn_think; /* thinking for the next / this turn only */
	agent_step_fn step_fn;  /* the router between steps (agent_set_step_hook) */
	void *step_arg;
	enum llm_err_kind err_kind; /* of the error that ends the step */
};

#define AGENT_MAX_RETRIES 2
#define AGENT_MAX_PARSE_STREAK 3

static void agent_start_step(struct agent *a);
static void agent_run_tools(struct agent *a);

/* Allocate an idle agent. */
struct agent *
agent_new(struct loop *l, struct provider *p, const struct tool_env *env,
	  const struct agent_opts *o, const struct agent_observer *obs)
{
	struct agent *a = xcalloc(1, sizeof *a);

	a->loop = l;
	a->prov = p;
	a->env = env;
	a->opts = *o;
	if (a->opts.max_steps <= 0)
		a->opts.max_steps = 40;
	if (a->opts.loading_wait_s <= 0)
		a->opts.loading_wait_s = 300;
	a->tools.v = a->opts.tools;
	a->tools.n = a->opts.ntools;
	a->cut.limit = o->cfg ? o->cfg->explore_cutoff : 0;
	if (env && env->toolset)
		a->stats.schema_tokens_saved = env->toolset->saved_tokens;
	if (obs)
		a->obs = *obs;
	conv_init(&a->conv);
	buf_init(&a->text, 0);
	buf_init(&a->reasoning, 0);
	buf_init(&a->err_msg, 0);
	buf_init(&a->shown, 0);
	buf_init(&a->planned, 0);
	textgate_init(&a->gate);
	return a;
}

/* Forget the current step's calls. */
static void
agent_clear_calls(struct agent *a)
{
	size_t i;

	for (i = 0; i < a->ncalls; i++) {
		free(a->calls[i].id);
		free(a->calls[i].name);
		buf_release(&a->calls[i].args);
		tool_job_release(&a->calls[i].job);
	}
	a->ncalls = 0;
	a->next_call = 0;
}

/* Reset per-step accumulators. */
static void
agent_clear_step(struct agent *a)
{
	agent_clear_calls(a);
	buf_reset(&a->text);
	buf_reset(&a->reasoning);
	free(a->stop_reason);
	a->stop_reason = NULL;
}

/* Free the agent (aborting silently). */
void
agent_free(struct agent *a)
{
	if (!a)
		return;
	a->obs.on_end = NULL;
	a->opts.gate.turn_end = NULL;
	if (a->state != ST_IDLE)
		agent_abort(a);
	if (a->timer)
		loop_timer_del(a->loop, a->timer);
	agent_clear_step(a);
	free(a->calls);
	free(a->call_index);
	free(a->toolv);
	buf_release(&a->text);
	buf_release(&a->reasoning);
	buf_release(&a->err_msg);
	buf_release(&a->shown);
	buf_release(&a->planned);
	compact_cancel(a->compacting);
	free(a->compact_focus);
	free(a->compact_text);
	textgate_release(&a->gate);
	conv_release(&a->conv);
	free(a);
}

/* The transcript. */
struct conv *
agent_conv(struct agent *a)
{
	return &a->conv;
}

/* Whether a turn is running. */
int
agent_busy(const struct agent *a)
{
	return a->state != ST_IDLE || a->compacting;
}

/* Counters for output and routing. */
const struct agent_stats *
agent_stats(const struct agent *a)
{
	return &a->stats;
}

/* Report every complete message not reported yet (see on_commit). */
static void
agent_sync(struct agent *a)
{
	if (a->committed > a->conv.nmsgs) /* the caller removed messages (/clear) */
		a->committed = a->conv.nmsgs;
	while (a->committed < a->conv.nmsgs) {
		const struct conv_msg *m = &a->conv.msgs[a->committed++];

		if (a->obs.on_commit)
			a->obs.on_commit(a->obs.commit_arg, m);
	}
}

/* Current provider. */
struct provider *
agent_provider(const struct agent *a)
{
	return a->prov;
}

/* Switch providers; the conv is provider-neutral, so history carries over. */
void
agent_set_provider(struct agent *a, struct provider *p)
{
	if (a->state == ST_STREAMING)
		a->prov->cancel(a->prov->self);
	a->prov = p;
}

/* Messages already in the conv are not to be reported. */
void
agent_mark_committed(struct agent *a)
{
	a->committed = a->conv.nmsgs;
}

/* Tell the observer a one-line notice. */
static void
agent_notice(struct agent *a, const char *line)
{
	if (a->obs.on_notice)
		a->obs.on_notice(a->obs.arg, line);
}

/* The router's step hook. */
void
agent_set_step_hook(struct agent *a, agent_step_fn fn, void *arg)
{
	a->step_fn = fn;
	a->step_arg = arg;
}

/* Ask the step hook; 1 = go on with another step. */
static int
agent_hook(struct agent *a, enum agent_step_why why)
{
	struct buf note = BUF_INIT;
	int go = 0;

	if (a->step_fn) {
		go = a->step_fn(a->step_arg, a, why, &note);
		if (note.len)
			agent_notice(a, note.data);
	}
	buf_release(&note);
	return go;
}

/* End the turn and report. */
static void
agent_end(struct agent *a, enum agent_end end, const char *message)
{
	if (a->timer)
		loop_timer_del(a->loop, a->timer);
	a->timer = 0;
	a->state = ST_IDLE;
	agent_clear_step(a);
	agent_sync(a);
	if (a->changed && a->opts.hooks.turn_end)
		a->opts.hooks.turn_end(a->opts.hooks.arg);
	a->changed = 0;
	if (a->opts.gate.turn_end)
		a->opts.gate.turn_end(a->opts.gate.arg, end, message ? message : "");
	if (a->obs.on_end)
		a->obs.on_end(a->obs.arg, end, message ? message : "");
}

/* Append a new (empty) call for provider index idx. */
static struct agent_call *
agent_add_call(struct agent *a, int idx, const char *id, const char *name)
{
	struct agent_call *c;

	if (a->ncalls == a->acalls) {
		a->acalls = a->acalls ? a->acalls * 2 : 4;
		a->calls = xrealloc(a->calls, a->acalls * sizeof *a->calls);
		a->call_index = xrealloc(a->call_index, a->acalls * sizeof *a->call_index);
	}
	c = &a->calls[a->ncalls];
	memset(c, 0, sizeof *c);
	a->call_index[a->ncalls++] = idx;
	buf_init(&c->args, 0);
	buf_init(&c->job.out, 0);
	if (id && *id) {
		c->id = xstrdup(id);
	} else {
		char gen[32];

		snprintf(gen, sizeof gen, "call_%lu", ++a->call_seq);
		c->id = xstrdup(gen);
	}
	c->name = xstrdup(name ? name : "");
	return c;
}

/* The call with provider index idx. */
static struct agent_call *
agent_find_call(struct agent *a, int idx)
{
	size_t i;

	for (i = 0; i < a->ncalls; i++)
		if (a->call_index[i] == idx)
			return &a->calls[i];
	return NULL;
}

/* Zero-delay continuation after a stream ended. */
static void
agent_defer(struct agent *a, loop_timer_fn fn)
{
	if (a->timer)
		loop_timer_del(a->loop, a->timer);
	a->timer = loop_timer_add(a->loop, 0, fn, a);
}

/* Move recovered calls from text into the step; returns how many. */
static size_t
agent_recover_calls(struct agent *a)
{
	struct toolparse_result out;
	size_t i, n;

	callfix_recover(&a->tools, a->text.data, a->text.len, &out);
	n = out.ncalls;
	for (i = 0; i < n; i++) {
		struct agent_call *c = agent_add_call(a, -1 - (int)i, NULL, out.calls[i].name);

		buf_adds(&c->args, out.calls[i].args_json);
	}
	if (n || out.reasoning.len) {
		buf_reset(&a->text);
		buf_add(&a->text, out.text.data, out.text.len);
		buf_add(&a->reasoning, out.reasoning.data, out.reasoning.len);
	}
	toolparse_release(&out);
	return n;
}

/* Append the step's assistant message to the conv (told to the observer if notify). */
static void
agent_commit_message(struct agent *a, int aborted, int notify)
{
	struct conv_msg *m;
	size_t i;

	if (!a->text.len && !a->reasoning.len && !a->ncalls)
		return;
	m = conv_add_msg(&a->conv, CONV_ASSISTANT);
	m->aborted = aborted;
	if (a->reasoning.len && a->prov->add_reasoning) {
		a->prov->add_reasoning(a->prov->self, m);
	} else if (a->reasoning.len) {
		struct conv_block *b = conv_add_block(m, CONV_REASONING, a->reasoning.data, NULL, NULL);

		b->provider = xstrdup(a->prov->name);
	}
	if (a->text.len)
		conv_add_block(m, CONV_TEXT, a->text.data, NULL, NULL);
	for (i = 0; i < a->ncalls; i++)
		conv_add_block(m, CONV_TOOL_CALL, a->calls[i].args.len ? a->calls[i].args.data : "{}",
			       a->calls[i].id, a->calls[i].name);
	agent_sync(a);
	if (notify && a->obs.on_message)
		a->obs.on_message(a->obs.arg, &a->conv.msgs[a->conv.nmsgs - 1]);
}

/* The usual case: append and tell the observer. */
static void
agent_commit_assistant(struct agent *a, int aborted)
{
	agent_commit_message(a, aborted, 1);
}

/* The stream finished normally: decide between answer and tools. */
static void
agent_after_stream(struct loop *l, long id, void *arg)
{
	struct agent *a = arg;
	size_t recovered = 0;

	(void)l;
	(void)id;
	a->timer = 0;
	if (!a->ncalls && (recovered = agent_recover_calls(a)) > 0) {
		char line[96];

		snprintf(line, sizeof line, "recovered %zu tool call%s written as text", recovered,
			 recovered == 1 ? "" : "s");
		agent_notice(a, line);
	}
	a->parse_fail_streak = 0;
	if (!a->ncalls && a->stop_reason && !strcmp(a->stop_reason, "length")) {
		int empty = !a->text.len;

		agent_commit_assistant(a, 0);
		agent_end(a, AGENT_END_ERROR, empty ?
			  "the model hit its token limit before answering (finish_reason length): raise max_tokens, or turn thinking off" :
			  "the answer was cut off at the token limit (finish_reason length): raise max_tokens in settings or -n on the server");
		return;
	}
	agent_commit_assistant(a, 0);
	if (!a->ncalls && agent_hook(a, AGENT_STEP_ANSWERED)) {
		agent_clear_step(a);
		agent_start_step(a);
		return;
	}
	if (!a->ncalls) {
		agent_end(a, AGENT_END_OK, NULL);
		return;
	}
	a->state = ST_TOOLS;
	a->step_failures = 0;
	agent_run_tools(a);
}

/* Retry the same request (after a delay for a loading server). */
static void
agent_retry_timer(struct loop *l, long id, void *arg)
{
	struct agent *a = arg;

	(void)l;
	(void)id;
	a->timer = 0;
	agent_clear_step(a);
	a->turn_steps--;
	a->stats.steps--;
	agent_start_step(a);
}

/* Tell the model its tool call could not be parsed, then go on. */
static void
agent_report_parse_failure(struct loop *l, long id, void *arg)
{
	struct agent *a = arg;
	struct buf note = BUF_INIT;

	(void)l;
	(void)id;
	a->timer = 0;
	a->stats.tool_failures++;
	a->stats.consecutive_tool_failures++;
	if (++a->parse_fail_streak >= AGENT_MAX_PARSE_STREAK && agent_hook(a, AGENT_STEP_PARSE_FAILED))
		a->parse_fail_streak = 0;
	else if (a->parse_fail_streak >= AGENT_MAX_PARSE_STREAK) {
		struct buf msg = BUF_INIT;

		buf_addf(&msg, "the model's tool calls could not be parsed %d times in a row (%s): use a model and chat template with tool-call support, or --no-tools",
			 a->parse_fail_streak, a->err_msg.data);
		agent_commit_assistant(a, 1);
		agent_end(a, AGENT_END_ERROR, msg.data);
		buf_release(&msg);
		return;
	}
	if (!a->text.len) /* the wire needs content; the observer never sees this placeholder */
		buf_adds(&a->text, "(tool call that could not be parsed)");
	agent_commit_message(a, 0, a->text.len && strcmp(a->text.data, "(tool call that could not be parsed)"));
	buf_addf(&note, "Your last tool call could not be parsed (%s). Call one tool at a time with arguments that are a valid JSON object matching its schema, or answer in plain text.",
		 a->err_msg.data);
	conv_add_user_text(&a->conv, note.data);
	buf_release(&note);
	agent_notice(a, "the tool call could not be parsed twice; told the model and continuing");
	a->parse_retried = 0;
	agent_clear_step(a);
	if (a->parse_fail_streak)
		agent_hook(a, AGENT_STEP_NEXT);
	agent_start_step(a);
}

/* End the turn with the provider's description of an error. */
static void
agent_fail_timer(struct loop *l, long id, void *arg)
{
	struct agent *a = arg;

	(void)l;
	(void)id;
	a->timer = 0;
	if (a->err_kind == LLM_ERR_CONNECT && !a->text.len && !a->ncalls &&
	    agent_hook(a, AGENT_STEP_SERVER_DOWN)) {
		agent_clear_step(a);
		a->turn_steps--;
		a->stats.steps--;
		a->retries = 0;
		agent_start_step(a);
		return;
	}
	agent_commit_assistant(a, 1);
	agent_end(a, AGENT_END_ERROR, a->err_msg.data);
}

/* A stream error: recover, retry, or end the turn. */
static void
agent_on_error(struct agent *a, const struct llm_event *ev)
{
	buf_reset(&a->err_msg);
	a->err_kind = ev->error.kind;
	if (ev->error.kind == LLM_ERR_TOOL_PARSE) {
		buf_add(&a->err_msg, ev->text.p, ev->text.len);
		if (callfix_count(&a->tools, a->text.data, a->text.len)) {
			agent_defer(a, agent_after_stream);
		} else if (!a->parse_retried) {
			a->parse_retried = 1;
			agent_notice(a, "llama-server could not parse the model's tool call; retrying once");
			agent_defer(a, agent_retry_timer);
		} else {
			agent_defer(a, agent_report_parse_failure);
		}
		return;
	}
	if (ev->error.kind == LLM_ERR_LOADING &&
	    a->loading_waited_ms < a->opts.loading_wait_s * 1000L) {
		if (!a->loading_waited_ms)
			agent_notice(a, "llama-server is loading the model; waiting");
		a->loading_waited_ms += 1000;
		if (a->timer)
			loop_timer_del(a->loop, a->timer);
		a->timer = loop_timer_add(a->loop, 1000, agent_retry_timer, a);
		return;
	}
	a->prov->describe_error(a->prov->self, ev, &a->err_msg);
	if (ev->error.retryable && a->retries < AGENT_MAX_RETRIES && !a->text.len &&
	    !a->reasoning.len && !a->ncalls) {
		struct buf note = BUF_INIT;
		uint64_t delay = 1000u << a->retries++;

		buf_addf(&note, "%s; retrying in %llu s", a->err_msg.data,
			 (unsigned long long)(delay / 1000));
		agent_notice(a, note.data);
		buf_release(&note);
		if (a->timer)
			loop_timer_del(a->loop, a->timer);
		a->timer = loop_timer_add(a->loop, delay, agent_retry_timer, a);
		return;
	}
	agent_defer(a, agent_fail_timer);
}

/* Pass an event to the observer; answer text goes through the tool-call gate. */
static void
agent_forward(struct agent *a, const struct llm_event *ev)
{
	struct llm_event shown;

	if (!a->obs.on_event)
		return;
	if (ev->kind != LLM_TEXT && ev->kind != LLM_DONE) {
		a->obs.on_event(a->obs.arg, ev);
		return;
	}
	buf_reset(&a->shown);
	if (ev->kind == LLM_TEXT)
		textgate_feed(&a->gate, ev->text.p, ev->text.len, &a->shown);
	else
		textgate_flush(&a->gate, &a->shown);
	if (a->shown.len) {
		memset(&shown, 0, sizeof shown);
		shown.kind = LLM_TEXT;
		shown.text = str_make(a->shown.data, a->shown.len);
		a->obs.on_event(a->obs.arg, &shown);
	}
	if (ev->kind == LLM_DONE)
		a->obs.on_event(a->obs.arg, ev);
}

/* Provider sink: accumulate the step and forward to the observer. */
static void
agent_sink(void *ctx, const struct llm_event *ev)
{
	struct agent *a = ctx;
	struct agent_call *c;

	if (a->state != ST_STREAMING)
		return;
	agent_forward(a, ev);
	switch (ev->kind) {
	case LLM_TEXT:
		buf_add(&a->text, ev->text.p, ev->text.len);
		break;
	case LLM_REASONING:
		buf_add(&a->reasoning, ev->text.p, ev->text.len);
		break;
	case LLM_TOOL_CALL_BEGIN:
		if (!agent_find_call(a, ev->index))
			agent_add_call(a, ev->index, ev->id, ev->name);
		break;
	case LLM_TOOL_CALL_ARGS:
		if ((c = agent_find_call(a, ev->index)) != NULL)
			buf_add(&c->args, ev->text.p, ev->text.len);
		break;
	case LLM_TIMINGS:
		a->stats.last_timings = ev->timings;
		a->stats.have_timings = 1;
		a->stats.prompt_ms += ev->timings.prompt_ms;
		a->stats.predicted_ms += ev->timings.predicted_ms;
		break;
	case LLM_USAGE:
		a->stats.prompt_tokens += ev->usage.prompt_tokens;
		a->stats.completion_tokens += ev->usage.completion_tokens;
		a->stats.cached_tokens += ev->usage.cached_tokens;
		a->stats.cache_write_tokens += ev->usage.cache_write_tokens;
		break;
	case LLM_DONE:
		free(a->stop_reason);
		a->stop_reason = xstrdup(ev->stop_reason ? ev->stop_reason : "stop");
		agent_defer(a, agent_after_stream);
		break;
	case LLM_ERROR:
		agent_on_error(a, ev);
		break;
	default:
		break;
	}
}

/* Start one model request (a step), unless the step budget is spent. */
static void
agent_start_step(struct agent *a)
{
	struct provider_req req = { 0 };
	struct err e = ERR_INIT;

	if (a->turn_steps >= a->opts.max_steps && agent_hook(a, AGENT_STEP_MAX_STEPS))
		a->turn_steps = 0;
	if (a->turn_steps >= a->opts.max_steps) {
		char msg[160];

		snprintf(msg, sizeof msg,
			 "stopped after %d steps (--max-steps %d); the task may be unfinished: raise --max-steps or split the task",
			 a->turn_steps, a->opts.max_steps);
		agent_end(a, AGENT_END_MAX_STEPS, msg);
		return;
	}
	agent_sync(a);
	a->turn_steps++;
	a->stats.steps++;
	a->stats.requests++;
	a->state = ST_STREAMING;
	textgate_reset(&a->gate);
	req.conv = &a->conv;
	req.tools = a->tools.v;
	req.ntools = a->tools.n;
	if (a->env && a->env->toolset) {
		req.tools = a->env->toolset->offered;
		req.ntools = a->env->toolset->noffered;
		a->stats.schema_tokens_saved = a->env->toolset->saved_tokens;
		a->stats.tools_loaded = a->env->toolset->added;
		toolset_take_loaded(a->env->toolset, &a->planned); /* an expected cache break */
	}
	req.thinking = a->opts.thinking || a->turn_think;
	req.retry = a->parse_retried;
	req.planned_change = a->planned.len ? a->planned.data : NULL;
	if (a->prov->start(a->prov->self, &req, agent_sink, a, &e) < 0)
		agent_end(a, AGENT_END_ERROR, e.msg);
	buf_reset(&a->planned);
}

static void agent_begin_turn(struct agent *a, const char *text);

/* Compaction ended: go on with the turn's text, or end the /compact turn. */
static void
agent_compacted(void *arg, int rc, const char *msg)
{
	struct agent *a = arg;
	char *text = a->compact_text;

	a->compacting = NULL;
	a->compact_text = NULL;
	agent_notice(a, msg);
	if (rc == 0) {
		agent_mark_committed(a); /* the session file keeps the full history */
		buf_reset(&a->planned);
		buf_adds(&a->planned, msg);
	}
	if (text && *text)
		agent_begin_turn(a, text);
	else
		agent_end(a, rc == 0 ? AGENT_END_OK : AGENT_END_ERROR, rc == 0 ? NULL : msg);
	free(text);
}

/* Before a turn: compact when asked to or when the next request would not fit; 1 if started. */
static int
agent_compact_first(struct agent *a, const char *text)
{
	const struct llm_timings *t = &a->stats.last_timings;
	long n_ctx = a->prov->n_ctx ? a->prov->n_ctx(a->prov->self) : 0;
	long used = t->cache_n + t->prompt_n + t->predicted_n + (long)strlen(text) / 3 + 16;
	long reserve = a->opts.context_reserve > 0 ? a->opts.context_reserve : 4096;
	struct err e = ERR_INIT;

	if (!a->compact_pending && !(a->stats.have_timings && compact_due(used, n_ctx, reserve)))
		return 0;
	a->compact_pending = 0;
	/* the tools the conversation's requests offer: the same prompt prefix */
	a->compacting = compact_start(a->loop, a->prov, &a->conv,
				      a->env && a->env->toolset ? a->env->toolset->offered : a->opts.tools,
				      a->env && a->env->toolset ? a->env->toolset->noffered : a->opts.ntools,
				      COMPACT_KEEP_TURNS, a->compact_focus, agent_compacted, a, &e);
	free(a->compact_focus);
	a->compact_focus = NULL;
	if (!a->compacting) {
		agent_notice(a, e.msg);
		return 0;
	}
	a->compact_text = xstrdup(text);
	agent_notice(a, "compacting the conversation: the model summarises the older turns…");
	return 1;
}

/* /compact: the next submit summarises first. */
int
agent_compact(struct agent *a, const char *focus, struct err *e)
{
	if (agent_busy(a))
		return err_set(e, "a turn is running: wait for it or stop it first");
	if (!compact_keep_from(&a->conv, COMPACT_KEEP_TURNS))
		return err_set(e, "nothing to compact yet: the conversation is only its last turns");
	free(a->compact_focus);
	a->compact_focus = focus && *focus ? xstrdup(focus) : NULL;
	a->compact_pending = 1;
	return 0;
}

/* Thinking for the next turn only. */
void
agent_think_next(struct agent *a)
{
	a->think_next = 1;
}

/* The turn's tools: the enabled built-ins, then the extension tools registered now (MCP). */
static void
agent_refresh_tools(struct agent *a)
{
	size_t nx = 0;
	const struct tool *const *x = a->opts.ntools ? tool_extra(&nx) : NULL;

	a->toolv = xrealloc(a->toolv, (a->opts.ntools + nx + 1) * sizeof *a->toolv);
	if (a->opts.ntools)
		memcpy(a->toolv, a->opts.tools, a->opts.ntools * sizeof *a->toolv);
	if (nx)
		memcpy(a->toolv + a->opts.ntools, x, nx * sizeof *x);
	a->tools.v = a->toolv;
	a->tools.n = a->opts.ntools + nx;
	if (a->env && a->env->toolset && a->opts.ntools)
		toolset_sync(a->env->toolset, x, nx);
}

/* Begin a turn with the user's text. */
int
agent_submit(struct agent *a, const char *text, struct err *e)
{
	if (agent_busy(a))
		return err_set(e, "a turn is already running; wait or abort it first");
	buf_reset(&a->planned);
	if (agent_compact_first(a, text))
		return 0;
	if (!*text)
		return err_set(e, "nothing to send: type a task");
	agent_begin_turn(a, text);
	return 0;
}

/* The turn proper: the user's text, then the first step. */
static void
agent_begin_turn(struct agent *a, const char *text)
{
	struct buf why = BUF_INIT;

	if (microcompact_turn(&a->conv, a->opts.microcompact_keep, &a->stats.mc, &why) > 0) {
		if (a->planned.len)
			buf_adds(&a->planned, "; ");
		buf_adds(&a->planned, why.data);
		agent_notice(a, why.data);
	}
	buf_release(&why);
	conv_add_user_text(&a->conv, text);
	agent_refresh_tools(a);
	a->turn_think = a->think_next || (a->opts.cfg && a->opts.cfg->think_word &&
					  *a->opts.cfg->think_word && strstr(text, a->opts.cfg->think_word));
	a->think_next = 0;
	a->stats.think_turns += a->turn_think && !a->opts.thinking;
	cutoff_reset(&a->cut);
	a->turn_steps = 0;
	a->parse_retried = 0;
	a->retries = 0;
	a->parse_fail_streak = 0;
	a->loading_waited_ms = 0;
	agent_clear_step(a);
	agent_start_step(a);
}

/* Tool finished (possibly inside its own start()). */
static void
agent_tool_done(struct tool_job *job, void *arg)
{
	struct agent *a = arg;
	struct agent_call *c = &a->calls[a->next_call];

	(void)job;
	c->finished = 1;
	c->t_end_ms = loop_now_ms(a->loop);
	if (a->obs.on_tool_done)
		a->obs.on_tool_done(a->obs.arg, c);
	if (a->opts.gate.post_tool && !c->invalid && !c->refused)
		a->opts.gate.post_tool(a->opts.gate.arg, c);
	a->next_call++;
	if (!a->running_tools && a->state == ST_TOOLS)
		agent_run_tools(a);
}

/* Before the turn's first change: let the workspace take a checkpoint. */
static void
agent_maybe_checkpoint(struct agent *a, const struct tool *t, const cJSON *args)
{
	struct buf note = BUF_INIT;

	if (a->changed || !a->opts.hooks.before_change || !(t->flags & TOOL_MUTATES))
		return;
	if (!strcmp(t->name, "bash") && shellro_is_read_only(json_str(args, "command")))
		return;
	a->changed = 1;
	a->opts.hooks.before_change(a->opts.hooks.arg, &note);
	if (note.len)
		agent_notice(a, note.data);
	buf_release(&note);
}

/* The gate decided about the current call: start it, or finish it refused. */
void
agent_gate_done(struct agent *a, int allow, const char *reason)
{
	struct agent_call *c = &a->calls[a->next_call];
	cJSON *args = a->gate_args;

	if (!a->gate_wait)
		return;
	a->gate_wait = 0;
	a->gate_args = NULL;
	if (allow) {
		agent_maybe_checkpoint(a, c->tool, args);
		c->tool->start(&c->job, args);
	} else {
		c->refused = 1;
		c->job.is_error = 1;
		buf_adds(&c->job.out, reason && *reason ? reason : "refused");
		tool_job_done(&c->job);
	}
	cJSON_Delete(args);
}

/* Check call c and start it; a rejected call finishes at once with the problem. */
static void
agent_start_call(struct agent *a, struct agent_call *c)
{
	cJSON *args;

	c->tool = callfix_tool(&a->tools, c->name);
	tool_job_init(&c->job, c->tool, a->env, agent_tool_done, a);
	c->started = 1;
	c->t_start_ms = loop_now_ms(a->loop);
	a->stats.tool_calls++;
	if (a->obs.on_tool_start)
		a->obs.on_tool_start(a->obs.arg, c);
	args = callfix_check(&a->tools, c->name, c->args.data, c->args.len, &c->job.out);
	if (args && cutoff_refuses(&a->cut, c->tool, &c->job.out)) {
		cJSON_Delete(args); /* not a malformed call: not counted as a failure */
		c->job.is_error = 1;
		tool_job_done(&c->job);
		return;
	}
	if (!args) {
		c->invalid = 1;
		c->job.is_error = 1;
		a->step_failures++;
		tool_job_done(&c->job);
		return;
	}
	if (a->opts.gate.pre_tool) {
		a->gate_args = args;
		a->gate_wait = 1;
		a->opts.gate.pre_tool(a->opts.gate.arg, a, c, args);
		return;
	}
	agent_maybe_checkpoint(a, c->tool, args);
	c->tool->start(&c->job, args);
	cJSON_Delete(args);
}

/* After the limit of look-only steps: append the cutoff note to the results message. */
static void
agent_cutoff_note(struct agent *a, struct conv_msg *m)
{
	struct buf note = BUF_INIT;

	if (cutoff_after_step(&a->cut, a->calls, a->ncalls, &note)) {
		conv_add_block(m, CONV_TEXT, note.data, NULL, NULL);
		a->stats.explore_cutoffs = a->cut.engaged;
		agent_notice(a, "explored for too long without a change: only edit, write and bash from now on");
	}
	buf_release(&note);
}

/* All calls ran: append their results and take the next step. */
static void
agent_finish_tools(struct agent *a)
{
	struct conv_msg *m = conv_add_msg(&a->conv, CONV_USER);
	size_t i;

	for (i = 0; i < a->ncalls; i++) {
		struct conv_block *b = conv_add_block(m, CONV_TOOL_RESULT, a->calls[i].job.out.data,
						      a->calls[i].id, a->calls[i].name);

		b->is_error = a->calls[i].job.is_error;
	}
	agent_cutoff_note(a, m);
	if (a->step_failures) {
		a->stats.tool_failures += a->step_failures;
		a->stats.consecutive_tool_failures++;
	} else {
		a->stats.consecutive_tool_failures = 0;
	}
	a->parse_retried = 0;
	a->retries = 0;
	agent_clear_step(a);
	agent_hook(a, AGENT_STEP_NEXT);
	agent_start_step(a);
}

/* Run calls in order; synchronous ones complete inside the loop below. */
static void
agent_run_tools(struct agent *a)
{
	a->running_tools = 1;
	while (a->state == ST_TOOLS && a->next_call < a->ncalls) {
		struct agent_call *c = &a->calls[a->next_call];

		if (!c->started)
			agent_start_call(a, c);
		if (!c->finished)
			break; /* asynchronous: agent_tool_done resumes us */
	}
	a->running_tools = 0;
	if (a->state == ST_TOOLS && a->next_call >= a->ncalls)
		agent_finish_tools(a);
}

/* User abort: stop the stream or the running tool, keep what we have. */
void
agent_abort(struct agent *a)
{
	size_t i;

	if (a->compacting) {
		compact_cancel(a->compacting);
		a->compacting = NULL;
		free(a->compact_text);
		a->compact_text = NULL;
		agent_end(a, AGENT_END_ABORTED, "compaction stopped; the conversation is unchanged");
		return;
	}
	if (a->state == ST_IDLE)
		return;
	if (a->state == ST_STREAMING) {
		a->prov->cancel(a->prov->self);
		agent_clear_calls(a); /* incomplete calls cannot be answered */
		agent_commit_assistant(a, 1);
	} else {
		enum agent_state was = a->state;

		a->state = ST_IDLE; /* tool_done must not resume the loop */
		if (a->gate_wait) { /* the gate's question is withdrawn; the call never ran */
			a->gate_wait = 0;
			cJSON_Delete(a->gate_args);
			a->gate_args = NULL;
			a->calls[a->next_call].started = 0;
			if (a->opts.gate.cancel)
				a->opts.gate.cancel(a->opts.gate.arg);
		}
		for (i = a->next_call; i < a->ncalls; i++) {
			struct agent_call *c = &a->calls[i];

			if (c->started && !c->finished && c->tool && c->tool->cancel)
				c->tool->cancel(&c->job);
			if (!c->finished) {
				if (!c->started)
					buf_adds(&c->job.out, "[not run: the user aborted the turn]");
				c->job.is_error = 1;
				c->finished = 1;
			}
		}
		(void)was;
		{
			struct conv_msg *m = conv_add_msg(&a->conv, CONV_USER);

			for (i = 0; i < a->ncalls; i++)
				conv_add_block(m, CONV_TOOL_RESULT, a->calls[i].job.out.data,
					       a->calls[i].id, a->calls[i].name)->is_error =
					a->calls[i].job.is_error;
			m->aborted = 1;
		}
	}
	agent_end(a, AGENT_END_ABORTED, "aborted");
}

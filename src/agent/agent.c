/*
 * agent/agent: the turn loop's lifetime, the turn and the step.
 *
 * The state machine and struct agent are described in agent/agent-int.h, which
 * also names the other parts (agent/stream.c, agent/tools.c).  This file
 * starts and ends turns and steps (compacting the conversation first when
 * it is due or asked for), commits the assistant message, and aborts.
 */
#include "agent/agent.h"
#include "agent/agent-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/compact.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "llm/textcall_gate.h"
#include "base/cfg.h"
#include "agent/cutoff.h"
#include "llm/toolset.h"
#include "base/xmalloc.h"

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
	if (a->opts.loading_wait_s == 0)
		a->opts.loading_wait_s = 300;
	else if (a->opts.loading_wait_s < 0)
		a->opts.loading_wait_s = 0;
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
	textcall_gate_init(&a->gate);
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
void
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
	agent_compact_cancel(a->compacting);
	free(a->compact_focus);
	free(a->compact_text);
	textcall_gate_release(&a->gate);
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
void
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
void
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
int
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

/* The conversation and the tools offered (the tool set's choice when there is one). */
static void
agent_req_init(struct agent *a, struct provider_req *req)
{
	req->conv = &a->conv;
	req->tools = a->tools.v;
	req->ntools = a->tools.n;
	if (a->env && a->env->toolset) {
		req->tools = a->env->toolset->offered;
		req->ntools = a->env->toolset->noffered;
	}
}

/*
 * The turn ended on an answer (the last message is the assistant's, without
 * tool calls): let the provider warm its cache for the next turn.
 */
static void
agent_prime(struct agent *a)
{
	struct provider_req req = { 0 };
	const struct conv_msg *m;
	size_t i;

	if (!a->prov || !a->prov->prime || !a->conv.nmsgs)
		return;
	m = &a->conv.msgs[a->conv.nmsgs - 1];
	if (m->role != CONV_ASSISTANT || m->aborted)
		return;
	for (i = 0; i < m->nblocks; i++)
		if (m->blocks[i].kind == CONV_TOOL_CALL)
			return;
	agent_req_init(a, &req);
	req.thinking = a->opts.thinking;
	a->prov->prime(a->prov->self, &req);
}

/* End the turn and report. */
void
agent_end(struct agent *a, enum agent_end end, const char *message)
{
	agent_wait_over(a);
	if (a->timer)
		loop_timer_del(a->loop, a->timer);
	a->timer = 0;
	a->state = ST_IDLE;
	agent_clear_step(a);
	agent_sync(a);
	if (end == AGENT_END_OK || end == AGENT_END_ERROR)
		agent_prime(a);
	if (a->changed && a->opts.hooks.turn_end)
		a->opts.hooks.turn_end(a->opts.hooks.arg);
	a->changed = 0;
	if (a->opts.gate.turn_end)
		a->opts.gate.turn_end(a->opts.gate.arg, end, message ? message : "");
	if (a->obs.on_end)
		a->obs.on_end(a->obs.arg, end, message ? message : "");
}

/* Append the step's assistant message to the conv (told to the observer if notify). */
void
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
void
agent_commit_assistant(struct agent *a, int aborted)
{
	agent_commit_message(a, aborted, 1);
}

/* Start one model request (a step), unless the step budget is spent. */
void
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
	textcall_gate_reset(&a->gate);
	agent_req_init(a, &req);
	if (a->env && a->env->toolset) {
		a->stats.schema_tokens_saved = a->env->toolset->saved_tokens;
		a->stats.tools_loaded = a->env->toolset->added;
		toolset_take_loaded(a->env->toolset, &a->planned); /* an expected cache break */
	}
	req.thinking = a->opts.thinking || a->turn_think;
	req.retry = a->parse_retried;
	req.planned_change = a->planned.len ? a->planned.data : NULL;
	if (a->prov->start(a->prov->self, &req, agent_stream_sink, a, &e) < 0)
		agent_end(a, AGENT_END_ERROR, e.msg);
	buf_reset(&a->planned);
}

/*
 * Compaction before a turn, and /compact.  Before a turn's text is added,
 * the conversation is summarised (agent/compact.h) when /compact asked for
 * it or when the next request would not fit the context; the turn's text
 * waits in compact_text and is sent once the summary request ended (or
 * the /compact turn just ends).
 */

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
	const struct llm_usage *u = &a->stats.last_usage;
	/* llama-server's timings; a server without them reports usage (prompt_tokens includes the cached) */
	long fill = a->stats.have_timings ? t->cache_n + t->prompt_n + t->predicted_n :
		    u->prompt_tokens + u->completion_tokens;
	long used = fill + (long)strlen(text) / 3 + 16;
	long reserve = a->opts.context_reserve > 0 ? a->opts.context_reserve : 4096;
	int known = a->stats.have_timings || a->stats.have_usage;
	struct err e = ERR_INIT;

	if (!a->compact_pending && !(known && agent_compact_due(used, n_ctx, reserve)))
		return 0;
	a->compact_pending = 0;
	/* the tools the conversation's requests offer: the same prompt prefix */
	a->compacting = agent_compact_start(a->loop, a->prov, &a->conv,
				      a->env && a->env->toolset ? a->env->toolset->offered : a->opts.tools,
				      a->env && a->env->toolset ? a->env->toolset->noffered : a->opts.ntools,
				      AGENT_COMPACT_KEEP_TURNS, a->compact_focus, agent_compacted, a, &e);
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
	if (!agent_compact_keep_from(&a->conv, AGENT_COMPACT_KEEP_TURNS))
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

/* Begin a turn with the user's text. */
int
agent_submit(struct agent *a, const char *text, struct err *e)
{
	if (agent_busy(a))
		return err_set(e, "a turn is already running; wait or abort it first");
	buf_reset(&a->planned);
	{ /* a message that cannot fit whatever is compacted: never sent, never kept */
		long n_ctx = a->prov->n_ctx ? a->prov->n_ctx(a->prov->self) : 0;
		long est = (long)strlen(text) / 4; /* few tokenizers do better than 4 bytes a token */

		if (n_ctx > 0 && est > n_ctx)
			return err_set(e, "the message is about %ld tokens and the server's context is %ld per slot: it was not sent; shorten it or attach less",
				       est, n_ctx);
	}
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

	if (agent_microcompact_turn(&a->conv, a->opts.agent_microcompact_keep, &a->stats.mc, &why) > 0) {
		if (a->planned.len)
			buf_adds(&a->planned, "; ");
		buf_adds(&a->planned, why.data);
		agent_notice(a, why.data);
	}
	buf_release(&why);
	a->turn_first = a->conv.nmsgs;
	conv_add_user_text(&a->conv, text);
	agent_tools_refresh(a);
	a->turn_think = a->think_next || (a->opts.cfg && a->opts.cfg->think_word &&
					  *a->opts.cfg->think_word && strstr(text, a->opts.cfg->think_word));
	a->think_next = 0;
	a->stats.think_turns += a->turn_think && !a->opts.thinking;
	agent_cutoff_reset(&a->cut);
	a->turn_steps = 0;
	a->parse_retried = 0;
	a->retries = 0;
	a->parse_fail_streak = 0;
	a->loading_since_ms = 0;
	agent_clear_step(a);
	agent_start_step(a);
}

/* User abort: stop the stream or the running tool, keep what we have. */
void
agent_abort(struct agent *a)
{
	if (a->compacting) {
		agent_compact_cancel(a->compacting);
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
		agent_tools_abort(a);
	}
	agent_end(a, AGENT_END_ABORTED, "aborted");
}

/*
 * agent/stream: the provider's events during a step (private part of the
 * agent, see agent/agent-int.h).
 *
 * The sink accumulates the step's text, reasoning and tool calls and
 * forwards events to the observer, answer text through the tool-call gate.
 * When the stream ends, a zero-delay timer decides between the answer and
 * the tools (recovering calls written as text first).  Errors: a server-side
 * tool-call parse error is recovered from the text, else retried once,
 * else reported to the model (AGENT_MAX_PARSE_STREAK in a row end the
 * turn); a loading server is waited for (loading_wait_s, counted down
 * through the observer's on_wait); a retryable error before any
 * output is retried AGENT_MAX_RETRIES times with backoff; anything else
 * ends the turn.
 */
#include "agent/agent-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/loop.h"
#include "llm/provider.h"
#include "llm/textcall.h"
#include "base/xmalloc.h"

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
	struct textcall_result out;
	size_t i, n;

	agent_repair_recover(&a->tools, a->text.data, a->text.len, &out);
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
	textcall_release(&out);
	return n;
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
	agent_tools_run(a);
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
	int partial;

	(void)l;
	(void)id;
	a->timer = 0;
	partial = a->text.len || a->reasoning.len || a->ncalls;
	/*
	 * Nothing listening, or the stream cut mid-answer (a server killed
	 * while it streamed; retried first when nothing had come): the router
	 * may move the turn to another server.  The partial answer is not
	 * committed, so the conversation it continues from is the one this
	 * step was sent.
	 */
	if (((a->err_kind == LLM_ERR_CONNECT && !partial &&  agent_hook(a, AGENT_STEP_SERVER_DOWN)) ||
	     (a->err_kind == LLM_ERR_DISCONNECTED && agent_hook(a, AGENT_STEP_STREAM_CUT)))) {
		if (partial)
			agent_notice(a, "the partial answer it was streaming is discarded; the next server answers the same request");
		agent_clear_step(a);
		a->turn_steps--;
		a->stats.steps--;
		a->retries = 0;
		agent_start_step(a);
		return;
	}
	agent_commit_assistant(a, 1);
	if (a->err_kind == LLM_ERR_CONTEXT && a->conv.nmsgs > a->turn_first)
		agent_drop_turn(a);
	agent_end(a, AGENT_END_ERROR, a->err_msg.data);
}

/*
 * The server rejected the turn as longer than its context: take the turn's
 * messages (the user's text with its attachments, and the steps so far) out
 * of the conversation, so the next turn does not send them again.
 */
void
agent_drop_turn(struct agent *a)
{
	static const char why[] =
		"the rejected turn (its message and attachments) is left out of the conversation; /compact makes room, or send a shorter message";
	size_t n = a->conv.nmsgs - a->turn_first;

	agent_sync(a);
	while (a->conv.nmsgs > a->turn_first)
		conv_pop(&a->conv);
	a->committed = a->conv.nmsgs;
	if (a->obs.on_rewind)
		a->obs.on_rewind(a->obs.commit_arg, n, why);
	a->stats.have_timings = a->stats.have_usage = 0; /* the last request's size is not the conversation's */
	agent_notice(a, why);
}

/* Tell the observer a wait is over. */
void
agent_wait_over(struct agent *a)
{
	if (!a->waiting)
		return;
	a->waiting = 0;
	if (a->obs.on_wait)
		a->obs.on_wait(a->obs.arg, NULL);
}

/*
 * llama-server answered "Loading model": ask again in a second, counting
 * down from loading_wait_s after the turn's first such answer (by the
 * clock, however long each request took).  0 once the time is up.
 */
static int
agent_wait_loading(struct agent *a)
{
	uint64_t now = loop_now_ms(a->loop), limit = (uint64_t)a->opts.loading_wait_s * 1000u, gone;
	char line[128];
	long left;

	if (!a->loading_since_ms) {
		a->loading_since_ms = now ? now : 1;
		snprintf(line, sizeof line, "llama-server is loading the model; waiting up to %d:%02d (loading_wait)",
			 a->opts.loading_wait_s / 60, a->opts.loading_wait_s % 60);
		if (limit)
			agent_notice(a, line);
	}
	gone = now - a->loading_since_ms;
	if (gone >= limit) {
		agent_wait_over(a);
		return 0;
	}
	left = (long)((limit - gone + 999) / 1000);
	snprintf(line, sizeof line, "llama-server is loading the model · %ld:%02ld left", left / 60, left % 60);
	a->waiting = 1;
	if (a->obs.on_wait)
		a->obs.on_wait(a->obs.arg, line);
	if (a->timer)
		loop_timer_del(a->loop, a->timer);
	a->timer = loop_timer_add(a->loop, 1000, agent_retry_timer, a);
	return 1;
}

/* A stream error: recover, retry, or end the turn. */
static void
agent_on_error(struct agent *a, const struct llm_event *ev)
{
	buf_reset(&a->err_msg);
	a->err_kind = ev->error.kind;
	if (ev->error.kind == LLM_ERR_TOOL_PARSE) {
		buf_add(&a->err_msg, ev->text.p, ev->text.len);
		if (agent_repair_count(&a->tools, a->text.data, a->text.len)) {
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
	if (ev->error.kind == LLM_ERR_LOADING && agent_wait_loading(a))
		return;
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
		textcall_gate_feed(&a->gate, ev->text.p, ev->text.len, &a->shown);
	else
		textcall_gate_flush(&a->gate, &a->shown);
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
void
agent_stream_sink(void *ctx, const struct llm_event *ev)
{
	struct agent *a = ctx;
	struct agent_call *c;

	if (a->state != ST_STREAMING)
		return;
	if (ev->kind != LLM_ERROR)
		agent_wait_over(a); /* the server answers again */
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
		a->stats.last_usage = ev->usage;
		a->stats.have_usage = 1;
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

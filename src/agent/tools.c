/*
 * agent/tools: running a step's tool calls (private part of the agent, see
 * agent/agent-int.h).
 *
 * Calls run in order; a synchronous tool finishes inside its start(), so
 * agent_tools_run is a trampoline (running_tools guards re-entry), never
 * recursion.  Each call is checked (agent_repair), may be refused by the
 * explore cutoff, then asks the gate (pre_tool) and waits for
 * agent_gate_done; the turn's first mutating call lets the workspace take a
 * checkpoint first.  When all finished, their results form one user message
 * and the next step starts.
 */
#include "agent/agent-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/secret.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "llm/toolset.h"
#include "base/xmalloc.h"

/* The turn's tools: the enabled built-ins, then the extension tools registered now (MCP). */
void
agent_tools_refresh(struct agent *a)
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
	if (a->env && a->env->toolset && a->opts.ntools) {
		struct toolset *ts = a->env->toolset;

		toolset_sync(ts, x, nx);
		if (ts->overflow + ts->dropped != a->overflow_noted) {
			char line[300];

			a->overflow_noted = ts->overflow + ts->dropped;
			if (ts->dropped)
				snprintf(line, sizeof line,
					 "%zu extension tools do not fit even behind tool_search (%d tools at most) "
					 "and are left out; %zu more wait behind tool_search (/mcp lists them)",
					 ts->dropped, TOOLSET_DEFER_MAX, ts->overflow);
			else
				snprintf(line, sizeof line,
					 "%zu extension tools do not fit the %d tools a request offers: they wait "
					 "behind tool_search, which finds and loads them (/mcp lists them)",
					 ts->overflow, TOOLSET_MAX);
			if (a->overflow_noted)
				agent_notice(a, line);
		}
	}
}

/*
 * The one door a tool result passes before it goes anywhere (the
 * observer and the screen, the conv and so the session file, every
 * request, exports): the secrets hearth holds are masked here
 * (base/secret.h), for built-in and MCP tools alike.
 */
static void
agent_mask_result(struct tool_job *job)
{
	secret_mask(&job->out);
	secret_mask_str(&job->diff);
}

/* Tool finished (possibly inside its own start()). */
static void
agent_tool_done(struct tool_job *job, void *arg)
{
	struct agent *a = arg;
	struct agent_call *c = &a->calls[a->next_call];

	agent_mask_result(job);
	c->finished = 1;
	c->t_end_ms = loop_now_ms(a->loop);
	if (a->obs.on_tool_done)
		a->obs.on_tool_done(a->obs.arg, c);
	if (a->opts.gate.post_tool && !c->invalid && !c->refused)
		a->opts.gate.post_tool(a->opts.gate.arg, c);
	a->next_call++;
	if (!a->running_tools && a->state == ST_TOOLS)
		agent_tools_run(a);
}

/*
 * A running call's output so far (tool_job_progress): its tail, masked like
 * a result (a secret cut by an earlier chunk is whole in the tail and
 * masked now), goes to the observer.
 */
static void
agent_tool_progress(struct tool_job *job, void *arg)
{
	struct agent *a = arg;
	struct agent_call *c = &a->calls[a->next_call];

	if (&c->job != job)
		return;
	secret_mask(&job->live);
	if (a->obs.on_tool_output)
		a->obs.on_tool_output(a->obs.arg, c);
}

/* The call's execution begins (after any question and checkpoint): its time
 * counts from now; args are consumed. */
static void
agent_tool_begin(struct agent *a, struct agent_call *c, cJSON *args)
{
	c->t_start_ms = loop_now_ms(a->loop);
	if (a->obs.on_tool_output)
		a->obs.on_tool_output(a->obs.arg, c);
	c->tool->start(&c->job, args);
	cJSON_Delete(args);
}

/* Start call c (args are consumed); the turn's first change waits for the checkpoint. */
static void
agent_run_call(struct agent *a, struct agent_call *c, cJSON *args)
{
	if (!a->changed && a->opts.hooks.before_change && (c->tool->flags & TOOL_MUTATES) &&
	    !tool_is_read_only(c->tool, args)) {
		a->changed = 1;
		a->change_args = args;
		a->change_wait = 1;
		a->opts.hooks.before_change(a->opts.hooks.arg, a);
		return;
	}
	agent_tool_begin(a, c, args);
}

/* The checkpoint was taken (or could not be): start the call that waited. */
void
agent_change_ready(struct agent *a, const char *note)
{
	struct agent_call *c = &a->calls[a->next_call];
	cJSON *args = a->change_args;

	if (!a->change_wait)
		return;
	a->change_wait = 0;
	a->change_args = NULL;
	if (note && *note)
		agent_notice(a, note);
	agent_tool_begin(a, c, args);
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
		agent_run_call(a, c, args);
		return;
	}
	c->refused = 1;
	c->job.is_error = 1;
	buf_adds(&c->job.out, reason && *reason ? reason : "refused");
	tool_job_done(&c->job);
	cJSON_Delete(args);
}

/*
 * The output call c may add: the context left after the last request and
 * the results of this step so far (about 3 bytes a token), less the
 * reserve compaction keeps, shared by the calls still to run; 0 when the
 * context is not known.  At least AGENT_ROOM_MIN, so a read still shows
 * something (and says how to read the rest).
 */
#define AGENT_ROOM_MIN 2048
static long
agent_tool_room(const struct agent *a, const struct agent_call *c)
{
	const struct llm_timings *t = &a->stats.last_timings;
	long n_ctx = a->prov->n_ctx ? a->prov->n_ctx(a->prov->self) : 0;
	long reserve = a->opts.context_reserve > 0 ? a->opts.context_reserve : 4096, used, room;
	size_t i, left = a->ncalls - (size_t)(c - a->calls);

	if (n_ctx <= 0 || !a->stats.have_timings)
		return 0;
	if (reserve > n_ctx / 4)
		reserve = n_ctx / 4;
	used = t->cache_n + t->prompt_n + t->predicted_n;
	for (i = 0; i < a->ncalls && &a->calls[i] != c; i++)
		used += (long)(a->calls[i].job.out.len / 3);
	room = (n_ctx - reserve - used) * 3 / (long)(left ? left : 1);
	return room < AGENT_ROOM_MIN ? AGENT_ROOM_MIN : room;
}

/* Check call c and start it; a rejected call finishes at once with the problem. */
static void
agent_start_call(struct agent *a, struct agent_call *c)
{
	cJSON *args;

	c->tool = agent_repair_tool(&a->tools, c->name);
	tool_job_init(&c->job, c->tool, a->env, agent_tool_done, a);
	c->job.progress = agent_tool_progress;
	c->job.progress_arg = a;
	c->job.room_bytes = agent_tool_room(a, c);
	c->started = 1;
	c->t_start_ms = loop_now_ms(a->loop);
	a->stats.tool_calls++;
	if (a->obs.on_tool_start)
		a->obs.on_tool_start(a->obs.arg, c);
	args = agent_repair_check(&a->tools, c->name, c->args.data, c->args.len, &c->job.out);
	if (args && agent_cutoff_refuses(&a->cut, c->tool, &c->job.out)) {
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
	agent_run_call(a, c, args);
}

/* After the limit of look-only steps: append the cutoff note to the results message. */
static void
agent_cutoff_note(struct agent *a, struct conv_msg *m)
{
	struct buf note = BUF_INIT;

	if (agent_cutoff_after_step(&a->cut, a->calls, a->ncalls, &note)) {
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
void
agent_tools_run(struct agent *a)
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

/* Abort while tools run: withdraw the question, cancel the call, record every result. */
void
agent_tools_abort(struct agent *a)
{
	size_t i;

	a->state = ST_IDLE; /* tool_done must not resume the loop */
	if (a->gate_wait) { /* the gate's question is withdrawn; the call never ran */
		a->gate_wait = 0;
		cJSON_Delete(a->gate_args);
		a->gate_args = NULL;
		a->calls[a->next_call].started = 0;
		if (a->opts.gate.cancel)
			a->opts.gate.cancel(a->opts.gate.arg);
	}
	if (a->change_wait) { /* the checkpoint's answer is dropped; the call never ran */
		a->change_wait = 0;
		cJSON_Delete(a->change_args);
		a->change_args = NULL;
		a->calls[a->next_call].started = 0;
		if (a->opts.hooks.change_cancel)
			a->opts.hooks.change_cancel(a->opts.hooks.arg);
	}
	for (i = a->next_call; i < a->ncalls; i++) {
		struct agent_call *c = &a->calls[i];

		if (c->started && !c->finished && c->tool && c->tool->cancel)
			c->tool->cancel(&c->job);
		if (!c->finished) {
			agent_mask_result(&c->job);
			if (!c->started)
				buf_adds(&c->job.out, "[not run: the user aborted the turn]");
			c->job.is_error = 1;
			c->finished = 1;
		}
	}
	{
		struct conv_msg *m = conv_add_msg(&a->conv, CONV_USER);

		for (i = 0; i < a->ncalls; i++)
			conv_add_block(m, CONV_TOOL_RESULT, a->calls[i].job.out.data,
				       a->calls[i].id, a->calls[i].name)->is_error =
				a->calls[i].job.is_error;
		m->aborted = 1;
	}
}

/*
 * front/turn: the turn controller (see front/turn.h).  Its agent observer
 * forwards every event to the view; on_end first lets the router record
 * a routed turn.
 */
#include "front/turn.h"

#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "front/attach.h"
#include "front/checkpoint.h"
#include "llama/llama.h"
#include "perm/gate.h"
#include "route/escalate.h"
#include "session/journal.h"

static void
front_turn_on_event(void *arg, const struct llm_event *ev)
{
	struct front_turn *t = arg;

	if (t->v.on_event)
		t->v.on_event(t->v.arg, ev);
}

static void
front_turn_on_message(void *arg, const struct conv_msg *m)
{
	struct front_turn *t = arg;

	if (t->v.on_message)
		t->v.on_message(t->v.arg, m);
}

static void
front_turn_on_tool_start(void *arg, const struct agent_call *c)
{
	struct front_turn *t = arg;

	if (t->v.on_tool_start)
		t->v.on_tool_start(t->v.arg, c);
}

static void
front_turn_on_tool_done(void *arg, const struct agent_call *c)
{
	struct front_turn *t = arg;

	if (t->v.on_tool_done)
		t->v.on_tool_done(t->v.arg, c);
}

static void
front_turn_on_tool_output(void *arg, const struct agent_call *c)
{
	struct front_turn *t = arg;

	if (t->v.on_tool_output)
		t->v.on_tool_output(t->v.arg, c);
}

static void
front_turn_on_notice(void *arg, const char *line)
{
	struct front_turn *t = arg;

	if (t->v.on_notice)
		t->v.on_notice(t->v.arg, line);
}

/* The agent: on_commit goes to the journal (commit_arg is the controller). */
static void
front_turn_on_commit(void *arg, const struct conv_msg *m)
{
	struct front_turn *t = arg;

	session_journal_commit(t->s->journal, m);
}

/* The agent took the rejected turn out: out of the journal's branch too, and the view marks it. */
static void
front_turn_on_rewind(void *arg, size_t n, const char *why)
{
	struct front_turn *t = arg;

	if (t->s->journal)
		session_journal_rewind(t->s->journal, n, why);
	if (t->v.on_rejected)
		t->v.on_rejected(t->v.arg, why);
}

static void
front_turn_on_wait(void *arg, const char *line)
{
	struct front_turn *t = arg;

	if (t->v.on_wait)
		t->v.on_wait(t->v.arg, line);
}

/* The turn ended: the router records a routed turn, then the view hears it. */
static void
front_turn_on_end(void *arg, enum agent_end end, const char *message)
{
	struct front_turn *t = arg;

	if (t->routed && t->s->esc)
		route_escalate_end(t->s->esc, t->agent, end == AGENT_END_OK);
	t->routed = 0;
	if (t->s->journal) { /* the turn's tokens, so a resume shows the session's in/out */
		const struct agent_stats *st = agent_stats(t->agent);

		session_journal_usage(t->s->journal, st->prompt_tokens - t->tok_in,
		    st->completion_tokens - t->tok_out);
		t->tok_in = st->prompt_tokens, t->tok_out = st->completion_tokens;
	}
	if (t->v.on_end)
		t->v.on_end(t->v.arg, end, message);
}

/* Tell the view a line of the controller's own. */
static void
front_turn_say(struct front_turn *t, enum front_turn_say kind, const char *text)
{
	if (t->v.say)
		t->v.say(t->v.arg, kind, text);
}

/* The agent, wired the same way for every front end. */
void
front_turn_init(struct front_turn *t, const struct front_session *s, struct provider *p,
    const struct front_turn_view *v)
{
	struct agent_observer obs = { 0 };
	struct agent_opts ao = { 0 };

	memset(t, 0, sizeof *t);
	t->s = s;
	t->v = *v;
	t->local = s->local ? s->local : llama_provider(s->llama);
	obs.arg = t;
	obs.on_event = front_turn_on_event;
	obs.on_message = front_turn_on_message;
	obs.on_tool_start = front_turn_on_tool_start;
	obs.on_tool_done = front_turn_on_tool_done;
	obs.on_tool_output = front_turn_on_tool_output;
	obs.on_notice = front_turn_on_notice;
	obs.on_wait = front_turn_on_wait;
	obs.on_end = front_turn_on_end;
	if (s->journal)
		obs.on_commit = front_turn_on_commit;
	obs.on_rewind = front_turn_on_rewind;
	obs.commit_arg = t;
	ao.max_steps = s->cfg->max_steps;
	ao.loading_wait_s = s->cfg->loading_wait_s > 0 ? s->cfg->loading_wait_s : -1;
	ao.thinking = s->cfg->thinking;
	ao.agent_microcompact_keep = s->cfg->agent_microcompact_keep;
	ao.context_reserve = s->cfg->context_reserve;
	ao.cfg = s->cfg;
	ao.tools = s->tools;
	ao.ntools = s->ntools;
	if (s->checkpoint) {
		ao.hooks.arg = s->checkpoint;
		ao.hooks.before_change = front_checkpoint_before_change;
		ao.hooks.change_cancel = front_checkpoint_change_cancel;
		ao.hooks.turn_end = front_checkpoint_turn_end;
	}
	if (s->gate)
		ao.gate = perm_gate_agent(s->gate);
	t->agent = agent_new(s->loop, p ? p : t->local, s->env, &ao, &obs);
	conv_set_system(agent_conv(t->agent), s->system ? s->system : "");
	if (s->resumed && s->resumed->nmsgs) {
		char line[96];

		snprintf(line, sizeof line, "resumed session %s (%zu messages)",
		    s->journal ? session_journal_id(s->journal) : "", s->resumed->nmsgs);
		if (t->v.on_resumed)
			t->v.on_resumed(t->v.arg, s->resumed, line);
		conv_move_msgs(agent_conv(t->agent), s->resumed);
		agent_mark_committed(t->agent);
	}
}

/* Free the agent. */
void
front_turn_release(struct front_turn *t)
{
	agent_free(t->agent);
	t->agent = NULL;
}

/* Route, then attach and submit. */
enum front_turn_rc
front_turn_send(struct front_turn *t, const char *text, int server_down)
{
	const struct front_session *s = t->s;
	struct buf note = BUF_INIT;
	int go = 1;

	if (s->esc) {
		t->routed = 1;
		if (server_down)
			go = route_escalate_begin_down(s->esc, t->agent, t->local, &note);
		else
			text = route_escalate_begin(s->esc, t->agent, t->local, text,
			    s->llama ? llama_info(s->llama)->n_ctx : 0, &note);
		if (note.len)
			front_turn_say(t, FRONT_TURN_SAY_ROUTE, note.data);
	}
	buf_release(&note);
	if (!go)
		return FRONT_TURN_WAIT;
	return front_turn_submit(t, text);
}

/* Attach the @paths and submit. */
enum front_turn_rc
front_turn_submit(struct front_turn *t, const char *text)
{
	const struct front_session *s = t->s;
	struct err e = ERR_INIT;
	struct buf msg = BUF_INIT, notes = BUF_INIT;
	int rc;

	if (t->v.on_user)
		t->v.on_user(t->v.arg, text);
	front_attach_expand(s->env->root, s->env->allow_outside, text,
	    s->esc && s->esc->on_claude ? &s->esc->policy : NULL, &msg, &notes);
	if (notes.len) {
		buf_rtrim(&notes);
		front_turn_say(t, FRONT_TURN_SAY_ATTACH, notes.data);
	}
	rc = agent_submit(t->agent, msg.data, &e);
	buf_release(&msg);
	buf_release(&notes);
	if (rc < 0) {
		front_turn_say(t, FRONT_TURN_SAY_ERROR, e.msg);
		return FRONT_TURN_FAILED;
	}
	return FRONT_TURN_STARTED;
}

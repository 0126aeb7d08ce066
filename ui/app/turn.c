/*
 * ui/app/turn: the view of the turn controller and the sending of turns (see ui/app/turn.h).
 * Every callback only updates the views and sets a->dirty; the frame is
 * drawn once per loop pass by ui/app/app.c.
 */
#include "ui/app/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app/cmd.h"
#include "front/turn.h"
#include "io/loop.h"
#include "base/cfg.h"
#include "route/escalate.h"
#include "session/journal.h"
#include "perm/gate.h"
#include "io/loop.h"
#include "io/sandbox.h"
#include "ui/view/server_panel.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_conv.h"

/* A stream event: the transcript and the server panel. */
static void
app_turn_on_event(void *arg, const struct llm_event *ev)
{
	struct app *a = arg;

	transcript_on_event(&a->tv, ev);
	server_panel_on_event(&a->srv, ev);
	if (ev->kind == LLM_TEXT || ev->kind == LLM_REASONING || ev->kind == LLM_TOOL_CALL_ARGS) {
		if (!a->tok_t0) /* the decode speed counts from the request's first delta */
			a->tok_t0 = loop_now_ms(a->d->loop);
		a->tok_n++;
	} else if (ev->kind == LLM_PROGRESS || ev->kind == LLM_DONE) {
		a->tok_t0 = 0;
		a->tok_n = 0;
	}
	a->dirty = 1;
}

/* A tool call started: a running tool item. */
static void
app_turn_on_tool_start(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_start(&a->tv, c);
	a->dirty = 1;
}

/* A tool call finished: its status, output and diff. */
static void
app_turn_on_tool_done(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_done(&a->tv, c);
	server_panel_wait(&a->srv, loop_now_ms(a->d->loop)); /* the results go back: the next request */
	a->dirty = 1;
}

/* A call began to run or wrote output: drawn at the next tick (at most every APP_TICK_MS). */
static void
app_turn_on_tool_output(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_output(&a->tv, c);
	app_state_tick(a);
}

/* The status line's sandbox: known once the probe has ended (it has by the first turn). */
void
app_turn_sandbox(struct app *a)
{
	struct buf d = BUF_INIT;
	struct sandbox *sb = a->d->env ? a->d->env->sandbox : NULL;

	if (!sb || !sandbox_probed(sb))
		return;
	sandbox_describe(sb, &d);
	snprintf(a->st.sandbox, sizeof a->st.sandbox, "%s", d.data);
	buf_release(&d);
}

/* The agent waits for a loading model: the countdown in the status lines (NULL: over). */
static void
app_turn_on_wait(void *arg, const char *line)
{
	struct app *a = arg;

	snprintf(a->st.wait, sizeof a->st.wait, "%s", line ? line : "");
	a->dirty = 1;
}

/* A notice from the agent (retry, recovery...). */
static void
app_turn_on_notice(void *arg, const char *line)
{
	struct app *a = arg;

	app_state_notice(arg, THEME_DIM, line);
	if (a->d->esc) { /* a handoff or consult mid-turn changes the route and the spend */
		snprintf(a->st.route, sizeof a->st.route, "%s", route_escalate_where(a->d->esc));
		a->st.spend_usd = route_escalate_spent(a->d->esc);
	}
}

/* The turn ended (the router has recorded it): report, ring, send what was queued. */
static void
app_turn_on_end(void *arg, enum agent_end end, const char *message)
{
	struct app *a = arg;
	char *next;

	a->busy = a->st.busy = a->srv.waiting = 0;
	a->st.turns++;
	a->tok_t0 = 0;
	a->tok_n = 0;
	if (end == AGENT_END_ABORTED) { /* the cut is marked; nothing is in flight any more */
		transcript_interrupted(&a->tv);
		server_panel_stopped(&a->srv);
		app_poll_in(a, 300);
	}
	if (a->d->esc) /* the controller has recorded the turn */
		a->st.spend_usd = route_escalate_spent(a->d->esc);
	if (end != AGENT_END_OK && end != AGENT_END_ABORTED && message && *message)
		app_state_notice(a, THEME_ERROR, message);
	if (getenv("TMUX") && a->term)
		term_bell(a->term);
	app_state_git(a);
	a->dirty = 1;
	if (a->queued.len && a->state == AS_READY) {
		next = buf_detach(&a->queued, NULL);
		app_turn_send(a, next);
		free(next);
	}
}

/* The controller's own lines: routing stands out, attachments are dim, a refused turn an error. */
static void
app_turn_say(void *arg, enum front_turn_say kind, const char *text)
{
	app_state_notice(arg, kind == FRONT_TURN_SAY_ROUTE ? THEME_ACCENT
	    : kind == FRONT_TURN_SAY_ATTACH ? THEME_DIM : THEME_ERROR, text);
}

/* The turn goes ahead: the user's message in the transcript, which now shows. */
static void
app_turn_on_user(void *arg, const char *text)
{
	struct app *a = arg;

	a->talked = 1;
	a->first_run = 0; /* from now on the transcript shows, also while the server is away */
	if (!transcript_unqueue(&a->tv)) /* queued: already shown as typed */
		transcript_add_user(&a->tv, text, strlen(text));
	transcript_follow(&a->tv);
}

/* The turn was rejected as too long and left out of the conversation: its message is marked. */
static void
app_turn_on_rejected(void *arg, const char *why)
{
	struct app *a = arg;

	(void)why; /* the agent's notice that follows says it in full */
	transcript_reject_last_user(&a->tv);
	a->dirty = 1;
}

/* A resumed session: its messages in the transcript, its line, its turns and context (estimated). */
static void
app_turn_on_resumed(void *arg, const struct conv *msgs, const char *line)
{
	struct app *a = arg;

	int turns;
	long bytes;

	transcript_conv_load(&a->tv, msgs);
	app_state_notice(a, THEME_DIM, line);
	transcript_conv_counts(msgs, &turns, &bytes);
	a->st.turns = turns; /* the earlier turns count; ctx: ~4 bytes a token until the first answer says */
	if (a->d->journal) { /* the in/out tokens the session's "usage" entries saved */
		a->srv.session_in = a->d->journal->resumed_in;
		a->srv.session_out = a->d->journal->resumed_out;
	}
	a->resumed_bytes = bytes;
	if (!a->srv.ctx_used)
		a->srv.ctx_used = bytes / 4;
}

/*
 * Something was entered while the first-run guidance covers the transcript:
 * the guidance becomes a notice in it and the transcript shows (the queued
 * message, a command's answer), also while the server is away.
 */
static void
app_turn_uncover(struct app *a)
{
	if (!a->first_run)
		return;
	a->first_run = 0;
	a->talked = 1;
	if (a->first_run_text.len)
		app_state_notice(a, THEME_TEXT, a->first_run_text.data);
}

/* A message that waits for the server: in the transcript at once, marked queued. */
static void
app_turn_show_queued(struct app *a, const char *text)
{
	app_turn_uncover(a);
	transcript_add_queued(&a->tv, text, strlen(text));
	transcript_follow(&a->tv);
	a->dirty = 1;
}

/*
 * Start a turn with text as the user's message (queue it when not possible
 * now).  While the local server does not answer, Claude takes the turn
 * when the server_down rule allows it, otherwise it waits in the queue.
 */
void
app_turn_send(struct app *a, const char *text)
{
	int down = !a->busy && a->state != AS_READY && a->server_down && a->d->esc && !a->queued.len;
	enum front_turn_rc rc;

	if (!down && (a->busy || a->state != AS_READY)) {
		if (a->queued.len)
			buf_adds(&a->queued, "\n\n");
		buf_adds(&a->queued, text);
		if (a->busy)
			app_state_notice(a, THEME_DIM, "queued: sent when this turn ends");
		else
			app_turn_show_queued(a, text);
		return;
	}
	app_state_boot(a);
	rc = front_turn_send(&a->turn, text, down);
	if (rc == FRONT_TURN_WAIT) {
		buf_adds(&a->queued, text);
		app_turn_show_queued(a, text);
		return;
	}
	if (a->d->esc)
		snprintf(a->st.route, sizeof a->st.route, "%s", route_escalate_where(a->d->esc));
	if (rc != FRONT_TURN_STARTED)
		return;
	a->busy = a->st.busy = 1;
	server_panel_wait(&a->srv, loop_now_ms(a->d->loop));
	a->turn_t0 = loop_now_ms(a->d->loop);
	a->tok_t0 = 0;
	a->tok_n = 0;
	app_state_tick(a);
	app_turn_sandbox(a);
	a->dirty = 1;
	app_poll_in(a, APP_POLL_BUSY_MS);
}

/* Enter: a slash command, or a message. */
void
app_turn_submit(struct app *a, const char *text)
{
	struct buf out = BUF_INIT;
	enum cmd_result rc;

	if (app_cmd_answer(a, text))
		return;
	if (!*text)
		return;
	app_turn_uncover(a);
	if (text[0] != '/' || text[1] == '/') {
		app_turn_send(a, text[0] == '/' ? text + 1 : text);
		return;
	}
	rc = front_cmd_run(&a->cmds.reg, a, text, &out);
	if (rc == CMD_QUIT) {
		app_state_quit(a);
	} else if (rc == CMD_SUBMIT) {
		app_turn_send(a, out.data);
	} else if (out.len) {
		buf_rtrim(&out);
		app_state_notice(a, rc == CMD_ERROR ? THEME_ERROR : THEME_TEXT, out.data);
	}
	buf_release(&out);
}

/* The gate asks: show the question box (answered in app_keys). */
static void
app_turn_ask(void *arg, const struct perm_gate_question *q)
{
	struct app *a = arg;
	const struct approve_question aq = {
		.tool = q->tool, .title = q->title, .detail = q->detail, .why = q->why,
		.always = q->always, .is_diff = q->is_diff,
	};

	approve_show(&a->ap, &aq);
	if (getenv("TMUX") && a->term)
		term_bell(a->term);
	a->dirty = 1;
}

/* The question was withdrawn (the turn was aborted). */
static void
app_turn_withdraw(void *arg)
{
	approve_hide(&((struct app *)arg)->ap);
	((struct app *)arg)->dirty = 1;
}

/* The gate's notices (a refused call, a failed hook) stand out. */
static void
app_turn_gate_notice(void *arg, const char *line)
{
	app_state_notice(arg, THEME_WARNING, line);
}

/* The turn controller and its agent, with the full screen as its view. */
void
app_turn_agent(struct app *a)
{
	struct front_turn_view v = { 0 };

	v.arg = a;
	v.on_event = app_turn_on_event;
	v.on_tool_start = app_turn_on_tool_start;
	v.on_tool_done = app_turn_on_tool_done;
	v.on_tool_output = app_turn_on_tool_output;
	v.on_notice = app_turn_on_notice;
	v.on_wait = app_turn_on_wait;
	v.on_end = app_turn_on_end;
	v.say = app_turn_say;
	v.on_user = app_turn_on_user;
	v.on_rejected = app_turn_on_rejected;
	v.on_resumed = app_turn_on_resumed;
	if (a->d->gate) {
		struct perm_gate_ui ui = { a, app_turn_ask, app_turn_withdraw, app_turn_gate_notice };

		perm_gate_set_ui(a->d->gate, &ui);
	}
	front_turn_init(&a->turn, a->d, NULL, &v);
}

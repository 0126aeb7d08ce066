/*
 * ui/app/turn: the agent's observer and the sending of turns (see ui/app/turn.h).
 * Every callback only updates the views and sets a->dirty; the frame is
 * drawn once per loop pass by ui/app/app.c.
 */
#include "ui/app/turn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app/cmd.h"
#include "front/attach.h"
#include "base/cfg.h"
#include "front/checkpoint.h"
#include "route/escalate.h"
#include "perm/gate.h"
#include "session/journal.h"
#include "llama/llama.h"
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
	a->dirty = 1;
}

/* A notice from the agent (retry, recovery...). */
static void
app_turn_on_notice(void *arg, const char *line)
{
	struct app *a = arg;

	app_state_notice(arg, THEME_DIM, line);
	if (a->d->esc) { /* a handoff or consult mid-turn changes the route and the spend */
		snprintf(a->st.route, sizeof a->st.route, "%s", a->d->esc->on_claude ? "claude" : "local");
		a->st.spend_usd = route_escalate_spent(a->d->esc);
	}
}

/* The turn ended: report, ring, send what was queued. */
static void
app_turn_on_end(void *arg, enum agent_end end, const char *message)
{
	struct app *a = arg;
	char *next;

	a->busy = a->st.busy = 0;
	a->st.turns++;
	if (a->d->esc) {
		route_escalate_end(a->d->esc, a->agent, end == AGENT_END_OK);
		a->st.spend_usd = route_escalate_spent(a->d->esc);
	}
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

static void app_turn_start(struct app *a, const char *text);

/*
 * A message while the local server does not answer: Claude takes the turn
 * when the server_down rule allows it, otherwise it waits in the queue.
 */
static void
app_turn_send_down(struct app *a, const char *text)
{
	struct buf note = BUF_INIT;
	int claude;

	app_state_boot(a);
	claude = route_escalate_begin_down(a->d->esc, a->agent, llama_provider(a->d->llama), &note);
	if (note.len)
		app_state_notice(a, THEME_ACCENT, note.data);
	buf_release(&note);
	if (!claude) {
		buf_adds(&a->queued, text);
		app_state_notice(a, THEME_DIM, "queued: sent when the server answers");
		return;
	}
	snprintf(a->st.route, sizeof a->st.route, "claude");
	app_turn_start(a, text);
}

/* Start a turn with text as the user's message (queue it when not possible now). */
void
app_turn_send(struct app *a, const char *text)
{
	if (!a->busy && a->state != AS_READY && a->server_down && a->d->esc && !a->queued.len) {
		app_turn_send_down(a, text);
		return;
	}
	if (a->busy || a->state != AS_READY) {
		if (a->queued.len)
			buf_adds(&a->queued, "\n\n");
		buf_adds(&a->queued, text);
		app_state_notice(a, THEME_DIM, a->busy ? "queued: sent when this turn ends"
		    : "queued: sent when the server answers");
		return;
	}
	app_state_boot(a);
	if (a->d->esc) {
		struct buf note = BUF_INIT;

		text = route_escalate_begin(a->d->esc, a->agent, llama_provider(a->d->llama), text,
				      llama_info(a->d->llama)->n_ctx, &note);
		if (note.len)
			app_state_notice(a, THEME_ACCENT, note.data);
		snprintf(a->st.route, sizeof a->st.route, "%s",
			 a->d->esc->last.target == ROUTE_CLAUDE ? "claude" : "local");
		buf_release(&note);
	}
	app_turn_start(a, text);
}

/* Show text as the user's message, attach its @paths and submit it on the agent's provider. */
static void
app_turn_start(struct app *a, const char *text)
{
	struct err e = ERR_INIT;
	struct buf msg = BUF_INIT, notes = BUF_INIT;
	int rc;

	a->talked = 1;
	a->first_run = 0; /* from now on the transcript shows, also while the server is away */
	transcript_add_user(&a->tv, text, strlen(text));
	transcript_follow(&a->tv);
	front_attach_expand(a->d->env->root, a->d->env->allow_outside, text,
	    a->d->esc && agent_provider(a->agent) != llama_provider(a->d->llama) ?
	    &a->d->esc->policy : NULL, &msg, &notes);
	if (notes.len) {
		buf_rtrim(&notes);
		app_state_notice(a, THEME_DIM, notes.data);
	}
	rc = agent_submit(a->agent, msg.data, &e);
	buf_release(&msg);
	buf_release(&notes);
	if (rc < 0) {
		app_state_notice(a, THEME_ERROR, e.msg);
		return;
	}
	a->busy = a->st.busy = 1;
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
	const struct approve_question aq = { q->tool, q->title, q->detail, q->why, q->always };

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

/* The agent, wired like the line-mode session's. */
void
app_turn_agent(struct app *a)
{
	const struct front_line_deps *d = a->d;
	struct agent_observer obs = { 0 };
	struct agent_opts ao = { 0 };
	char line[96];

	obs.arg = a;
	obs.on_event = app_turn_on_event;
	obs.on_tool_start = app_turn_on_tool_start;
	obs.on_tool_done = app_turn_on_tool_done;
	obs.on_notice = app_turn_on_notice;
	obs.on_end = app_turn_on_end;
	if (d->journal) {
		obs.on_commit = session_journal_commit;
		obs.commit_arg = d->journal;
	}
	ao.max_steps = d->cfg->max_steps;
	ao.thinking = d->cfg->thinking;
	ao.agent_microcompact_keep = d->cfg->agent_microcompact_keep;
	ao.context_reserve = d->cfg->context_reserve;
	ao.cfg = d->cfg;
	ao.tools = d->tools;
	ao.ntools = d->ntools;
	if (d->checkpoint) {
		ao.hooks.arg = d->checkpoint;
		ao.hooks.before_change = front_checkpoint_before_change;
		ao.hooks.turn_end = front_checkpoint_turn_end;
	}
	if (d->gate) {
		struct perm_gate_ui ui = { a, app_turn_ask, app_turn_withdraw, app_turn_gate_notice };

		ao.gate = perm_gate_agent(d->gate);
		perm_gate_set_ui(d->gate, &ui);
	}
	a->agent = agent_new(d->loop, llama_provider(d->llama), d->env, &ao, &obs);
	conv_set_system(agent_conv(a->agent), d->system);
	if (d->resumed && d->resumed->nmsgs) {
		snprintf(line, sizeof line, "resumed session %s (%zu messages)",
		    d->journal ? session_journal_id(d->journal) : "", d->resumed->nmsgs);
		transcript_conv_load(&a->tv, d->resumed);
		conv_move_msgs(agent_conv(a->agent), d->resumed);
		agent_mark_committed(a->agent);
		app_state_notice(a, THEME_DIM, line);
	}
}

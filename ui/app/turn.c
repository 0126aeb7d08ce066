/*
 * appturn: the agent's observer and the sending of turns (see appturn.h).
 * Every callback only updates the views and sets a->dirty; the frame is
 * drawn once per loop pass by app.c.
 */
#include "appturn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appcmd.h"
#include "apppoll.h"
#include "atref.h"
#include "cfg.h"
#include "checkpoint.h"
#include "escalate.h"
#include "gate.h"
#include "journal.h"
#include "llama.h"
#include "srvpanel.h"
#include "transcript.h"
#include "tvconv.h"

/* A stream event: the transcript and the server panel. */
static void
appturn_on_event(void *arg, const struct llm_event *ev)
{
	struct app *a = arg;

	transcript_on_event(&a->tv, ev);
	srvpanel_on_event(&a->srv, ev);
	a->dirty = 1;
}

/* A tool call started: a running tool item. */
static void
appturn_on_tool_start(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_start(&a->tv, c);
	a->dirty = 1;
}

/* A tool call finished: its status, output and diff. */
static void
appturn_on_tool_done(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_done(&a->tv, c);
	a->dirty = 1;
}

/* A notice from the agent (retry, recovery...). */
static void
appturn_on_notice(void *arg, const char *line)
{
	struct app *a = arg;

	appstate_notice(arg, THEME_DIM, line);
	if (a->d->esc) { /* a handoff or consult mid-turn changes the route and the spend */
		snprintf(a->st.route, sizeof a->st.route, "%s", a->d->esc->on_claude ? "claude" : "local");
		a->st.spend_usd = escalate_spent(a->d->esc);
	}
}

/* The turn ended: report, ring, send what was queued. */
static void
appturn_on_end(void *arg, enum agent_end end, const char *message)
{
	struct app *a = arg;
	char *next;

	a->busy = a->st.busy = 0;
	a->st.turns++;
	if (a->d->esc) {
		escalate_end(a->d->esc, a->agent, end == AGENT_END_OK);
		a->st.spend_usd = escalate_spent(a->d->esc);
	}
	if (end != AGENT_END_OK && end != AGENT_END_ABORTED && message && *message)
		appstate_notice(a, THEME_ERROR, message);
	if (getenv("TMUX") && a->term)
		term_bell(a->term);
	appstate_git(a);
	a->dirty = 1;
	if (a->queued.len && a->state == AS_READY) {
		next = buf_detach(&a->queued, NULL);
		appturn_send(a, next);
		free(next);
	}
}

static void appturn_start(struct app *a, const char *text);

/*
 * A message while the local server does not answer: Claude takes the turn
 * when the server_down rule allows it, otherwise it waits in the queue.
 */
static void
appturn_send_down(struct app *a, const char *text)
{
	struct buf note = BUF_INIT;
	int claude;

	appstate_boot(a);
	claude = escalate_begin_down(a->d->esc, a->agent, llama_provider(a->d->llama), &note);
	if (note.len)
		appstate_notice(a, THEME_ACCENT, note.data);
	buf_release(&note);
	if (!claude) {
		buf_adds(&a->queued, text);
		appstate_notice(a, THEME_DIM, "queued: sent when the server answers");
		return;
	}
	snprintf(a->st.route, sizeof a->st.route, "claude");
	appturn_start(a, text);
}

/* Start a turn with text as the user's message (queue it when not possible now). */
void
appturn_send(struct app *a, const char *text)
{
	if (!a->busy && a->state != AS_READY && a->server_down && a->d->esc && !a->queued.len) {
		appturn_send_down(a, text);
		return;
	}
	if (a->busy || a->state != AS_READY) {
		if (a->queued.len)
			buf_adds(&a->queued, "\n\n");
		buf_adds(&a->queued, text);
		appstate_notice(a, THEME_DIM, a->busy ? "queued: sent when this turn ends"
		    : "queued: sent when the server answers");
		return;
	}
	appstate_boot(a);
	if (a->d->esc) {
		struct buf note = BUF_INIT;

		text = escalate_begin(a->d->esc, a->agent, llama_provider(a->d->llama), text,
				      llama_info(a->d->llama)->n_ctx, &note);
		if (note.len)
			appstate_notice(a, THEME_ACCENT, note.data);
		snprintf(a->st.route, sizeof a->st.route, "%s",
			 a->d->esc->last.target == ROUTE_CLAUDE ? "claude" : "local");
		buf_release(&note);
	}
	appturn_start(a, text);
}

/* Show text as the user's message, attach its @paths and submit it on the agent's provider. */
static void
appturn_start(struct app *a, const char *text)
{
	struct err e = ERR_INIT;
	struct buf msg = BUF_INIT, notes = BUF_INIT;
	int rc;

	a->talked = 1;
	a->first_run = 0; /* from now on the transcript shows, also while the server is away */
	transcript_add_user(&a->tv, text, strlen(text));
	transcript_follow(&a->tv);
	atref_expand(a->d->env->root, a->d->env->allow_outside, text,
	    a->d->esc && agent_provider(a->agent) != llama_provider(a->d->llama) ?
	    &a->d->esc->policy : NULL, &msg, &notes);
	if (notes.len) {
		buf_rtrim(&notes);
		appstate_notice(a, THEME_DIM, notes.data);
	}
	rc = agent_submit(a->agent, msg.data, &e);
	buf_release(&msg);
	buf_release(&notes);
	if (rc < 0) {
		appstate_notice(a, THEME_ERROR, e.msg);
		return;
	}
	a->busy = a->st.busy = 1;
	a->dirty = 1;
	apppoll_in(a, APP_POLL_BUSY_MS);
}

/* Enter: a slash command, or a message. */
void
appturn_submit(struct app *a, const char *text)
{
	struct buf out = BUF_INIT;
	enum cmd_result rc;

	if (appcmd_answer(a, text))
		return;
	if (!*text)
		return;
	if (text[0] != '/' || text[1] == '/') {
		appturn_send(a, text[0] == '/' ? text + 1 : text);
		return;
	}
	rc = cmdreg_run(&a->cmds.reg, a, text, &out);
	if (rc == CMD_QUIT) {
		appstate_quit(a);
	} else if (rc == CMD_SUBMIT) {
		appturn_send(a, out.data);
	} else if (out.len) {
		buf_rtrim(&out);
		appstate_notice(a, rc == CMD_ERROR ? THEME_ERROR : THEME_TEXT, out.data);
	}
	buf_release(&out);
}

/* The gate asks: show the question box (answered in appkeys). */
static void
appturn_ask(void *arg, const struct gate_question *q)
{
	struct app *a = arg;

	approve_show(&a->ap, q);
	if (getenv("TMUX") && a->term)
		term_bell(a->term);
	a->dirty = 1;
}

/* The question was withdrawn (the turn was aborted). */
static void
appturn_withdraw(void *arg)
{
	approve_hide(&((struct app *)arg)->ap);
	((struct app *)arg)->dirty = 1;
}

/* The gate's notices (a refused call, a failed hook) stand out. */
static void
appturn_gate_notice(void *arg, const char *line)
{
	appstate_notice(arg, THEME_WARNING, line);
}

/* The agent, wired like the line-mode session's. */
void
appturn_agent(struct app *a)
{
	const struct repl_deps *d = a->d;
	struct agent_observer obs = { 0 };
	struct agent_opts ao = { 0 };
	char line[96];

	obs.arg = a;
	obs.on_event = appturn_on_event;
	obs.on_tool_start = appturn_on_tool_start;
	obs.on_tool_done = appturn_on_tool_done;
	obs.on_notice = appturn_on_notice;
	obs.on_end = appturn_on_end;
	if (d->journal) {
		obs.on_commit = journal_commit;
		obs.commit_arg = d->journal;
	}
	ao.max_steps = d->cfg->max_steps;
	ao.thinking = d->cfg->thinking;
	ao.microcompact_keep = d->cfg->microcompact_keep;
	ao.context_reserve = d->cfg->context_reserve;
	ao.cfg = d->cfg;
	ao.tools = d->tools;
	ao.ntools = d->ntools;
	if (d->checkpoint) {
		ao.hooks.arg = d->checkpoint;
		ao.hooks.before_change = checkpoint_before_change;
		ao.hooks.turn_end = checkpoint_turn_end;
	}
	if (d->gate) {
		struct gate_ui ui = { a, appturn_ask, appturn_withdraw, appturn_gate_notice };

		ao.gate = gate_agent(d->gate);
		gate_set_ui(d->gate, &ui);
	}
	a->agent = agent_new(d->loop, llama_provider(d->llama), d->env, &ao, &obs);
	conv_set_system(agent_conv(a->agent), d->system);
	if (d->resumed && d->resumed->nmsgs) {
		snprintf(line, sizeof line, "resumed session %s (%zu messages)",
		    d->journal ? journal_id(d->journal) : "", d->resumed->nmsgs);
		tvconv_load(&a->tv, d->resumed);
		conv_move_msgs(agent_conv(a->agent), d->resumed);
		agent_mark_committed(a->agent);
		appstate_notice(a, THEME_DIM, line);
	}
}

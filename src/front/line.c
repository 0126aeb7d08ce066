/*
 * front/line: line-mode session.
 *
 * States: PROBING (discovery in flight, or waiting to retry it) → PROMPT
 * (stdin watched for a line) → TURN (stdin not watched; the agent runs)
 * → PROMPT.  Streamed text is written as it arrives; a UTF-8 sequence cut
 * between two deltas is held back (`carry`) so it is not mistaken for
 * invalid bytes.  struct front_line is in front/line-int.h (private); the agent
 * observer is in front/line_view.c.
 */
#include "front/line.h"
#include "front/line-int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "base/fs.h"
#include "base/cfg.h"
#include "llama/llama.h"
#include "io/loop.h"
#include "mcp/mcp.h"
#include "route/escalate.h"
#include "route/ladder.h"
#include "perm/gate.h"
#include "base/sanitize.h"
#include "base/xmalloc.h"
#include "front/commands.h"
#include "front/turn.h"

/* Write bytes to the output fd (best effort). */
void
front_line_out(struct front_line *r, const char *s, size_t n)
{
	(void)fs_write_all(r->d->out_fd, s, n); /* a closed terminal: nothing to tell */
}

/* Write a sanitised line, starting on a fresh line. */
void
front_line_say(struct front_line *r, const char *s)
{
	struct buf b = BUF_INIT;

	if (!r->at_line_start)
		buf_addch(&b, '\n');
	sanitize_term(&b, s, strlen(s));
	buf_addch(&b, '\n');
	front_line_out(r, b.data, b.len);
	buf_release(&b);
	r->at_line_start = 1;
}

static void front_line_cmd_changed(void *arg);
static void front_line_send(struct front_line *r, const char *text);

/* Shared commands; the line session has no view to reset on /clear. */
static void
front_line_commands(struct front_line *r)
{
	struct buf warnings = BUF_INIT;

	front_commands_init(&r->cmds, r->turn.agent, r->d,
		     "Type a task and press Enter. Ctrl-C stops a running turn; Ctrl-D or /quit leaves.",
		     &warnings);
	r->cmds.ui.changed = front_line_cmd_changed;
	r->cmds.ui.arg = r;
	if (warnings.len) {
		buf_rtrim(&warnings);
		front_line_say(r, warnings.data);
	}
	buf_release(&warnings);
}

/* The session prompt, read once while discovery runs and before any turn (front_session.prompt). */
static void
front_line_boot(struct front_line *r)
{
	struct buf w = BUF_INIT;

	if (r->booted || !r->d->prompt)
		return;
	r->booted = 1;
	conv_set_system(agent_conv(r->turn.agent), r->d->prompt(r->d->prompt_arg, &w));
	buf_rtrim(&w);
	if (w.len)
		front_line_say(r, w.data);
	buf_release(&w);
}

/* Send text to the model as the user's message (front/turn.h). */
static void
front_line_send(struct front_line *r, const char *text)
{
	front_line_boot(r);
	r->state = RS_TURN;
	loop_unwatch(r->d->loop, r->d->in_fd);
	switch (front_turn_send(&r->turn, text, r->server_down)) {
	case FRONT_TURN_WAIT: /* Claude may not take it: the local server gets it anyway */
		if (front_turn_submit(&r->turn, text) == FRONT_TURN_STARTED)
			break;
		/* fall through */
	case FRONT_TURN_FAILED:
		front_line_prompt(r);
		break;
	case FRONT_TURN_STARTED:
		break;
	}
}

/* A whole line arrived: a command, or a task. */
static void
front_line_submit(struct front_line *r, const char *text)
{
	struct buf out = BUF_INIT;

	if (r->cmds.ui.state == FRONT_CMD_UI_ASK) {
		front_cmd_ui_answer(&r->cmds.ui, text);
		return;
	}
	if (!*text) {
		front_line_prompt(r);
		return;
	}
	if (text[0] == '/' && text[1] != '/') {
		switch (front_cmd_run(&r->cmds.reg, r, text, &out)) {
		case CMD_QUIT:
			r->state = RS_QUIT;
			loop_stop(r->d->loop);
			break;
		case CMD_SUBMIT:
			front_line_send(r, out.data);
			break;
		case CMD_PENDING:
			break; /* the front_cmd_ui goes on (front_line_cmd_changed) */
		default:
			if (out.len) {
				buf_rtrim(&out);
				front_line_say(r, out.data);
			}
			front_line_prompt(r);
			break;
		}
		buf_release(&out);
		return;
	}
	front_line_send(r, text[0] == '/' ? text + 1 : text);
}

/* An answer line to the gate's question: y, n (or empty), a; anything else asks again. */
static void
front_line_answer(struct front_line *r, const char *text)
{
	enum perm_gate_answer ans;

	if (!strcmp(text, "y") || !strcmp(text, "yes"))
		ans = PERM_GATE_YES;
	else if (!strcmp(text, "a") || !strcmp(text, "always"))
		ans = PERM_GATE_ALWAYS;
	else if (!*text || !strcmp(text, "n") || !strcmp(text, "no"))
		ans = PERM_GATE_NO;
	else {
		front_line_out(r, "answer y, n or a: ", strlen("answer y, n or a: "));
		r->at_line_start = 0;
		return;
	}
	r->asking = 0;
	if (r->state == RS_TURN)
		loop_unwatch(r->d->loop, r->d->in_fd);
	perm_gate_answer(r->d->gate, ans);
}

static void front_line_drain(struct front_line *r);

/* The MCP servers may have listed their prompts by now: go on with the lines. */
static void
front_line_mcp_ready(struct loop *l, long id, void *arg)
{
	struct front_line *r = arg;

	(void)l;
	(void)id;
	r->mcp_timer = 0;
	front_line_drain(r);
}

/*
 * The next line is an MCP prompt's command (/mcp__...) while servers still
 * start: it waits for their prompts (typed or piped ahead at start-up).
 * 1 while it waits (a timer drains again), 0 to go on.
 */
static int
front_line_mcp_wait(struct front_line *r)
{
	if (r->asking || r->cmds.ui.state != FRONT_CMD_UI_IDLE || r->line.len < 6 ||
	    strncmp(r->line.data, "/mcp__", 6) || !mcp_starting(r->d->mcp))
		return 0;
	if (!r->told_mcp_wait++)
		front_line_say(r, "(waiting for the MCP servers to list their prompts)");
	if (!r->mcp_timer)
		r->mcp_timer = loop_timer_add(r->d->loop, 100, front_line_mcp_ready, r);
	return 1;
}

/* Run the complete lines already read: answers while asked, tasks at the prompt; at EOF, quit. */
static void
front_line_drain(struct front_line *r)
{
	char *nl, *text;
	size_t len;

	if (r->draining)
		return; /* a command inside the loop below re-prompted */
	r->draining = 1;
	while ((r->state == RS_PROMPT || r->asking) &&
	       (nl = memchr(r->line.data, '\n', r->line.len)) != NULL && !front_line_mcp_wait(r)) {
		len = (size_t)(nl - r->line.data);
		text = xstrndup(r->line.data, len);
		buf_remove(&r->line, 0, len + 1);
		r->at_line_start = isatty(r->d->in_fd); /* the terminal echoed the Enter */
		if (r->asking)
			front_line_answer(r, text);
		else
			front_line_submit(r, text);
		free(text);
	}
	r->draining = 0;
	if (r->asking && r->eof) {
		front_line_say(r, "(stdin ended: no)");
		front_line_answer(r, "n");
	}
	if (r->state == RS_PROMPT && r->eof && !r->mcp_timer) {
		front_line_out(r, "\n", 1);
		r->state = RS_QUIT;
		loop_stop(r->d->loop);
	}
}

/* stdin readable: collect lines; EOF quits once the lines read are done. */
static void
front_line_on_stdin(struct loop *l, int fd, int events, void *arg)
{
	struct front_line *r = arg;
	char chunk[4096];
	ssize_t n = read(fd, chunk, sizeof chunk);

	(void)events;
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		r->eof = 1;
		loop_unwatch(l, fd);
	} else {
		buf_add(&r->line, chunk, (size_t)n);
	}
	front_line_drain(r);
}

/* Whether the title already shows the whole detail ("NAME: DETAIL", or the same text). */
static int
front_line_title_says(const char *title, const char *detail)
{
	size_t tl = strlen(title), dl = strlen(detail);

	if (!strcmp(title, detail))
		return 1;
	return tl >= dl + 2 && !strcmp(title + tl - dl, detail) && !strncmp(title + tl - dl - 2, ": ", 2);
}

/* The gate asks: show the call and read y / n / a from stdin. */
static void
front_line_ask(void *arg, const struct perm_gate_question *q)
{
	struct front_line *r = arg;
	struct buf b = BUF_INIT;

	buf_addf(&b, "? allow %s\n  (%s)", q->title, q->why);
	front_line_say(r, b.data);
	if (*q->detail && !front_line_title_says(q->title, q->detail))
		front_line_say(r, q->detail);
	buf_reset(&b);
	buf_addf(&b, "y = yes, n = no, a = always (%s) [y/N/a] ", q->always);
	front_line_view_text(r, b.data, b.len);
	buf_release(&b);
	r->asking = 1;
	if (!r->eof)
		loop_watch(r->d->loop, r->d->in_fd, LOOP_READ, front_line_on_stdin, r);
	front_line_drain(r); /* an answer typed (or piped) ahead */
}

/* The question was withdrawn (Ctrl-C aborted the turn). */
static void
front_line_withdraw(void *arg)
{
	struct front_line *r = arg;

	r->asking = 0;
	if (r->state == RS_TURN)
		loop_unwatch(r->d->loop, r->d->in_fd);
}

/* Show the prompt and listen to stdin. */
void
front_line_prompt(struct front_line *r)
{
	r->state = RS_PROMPT;
	if (!r->at_line_start)
		front_line_out(r, "\n", 1);
	front_line_out(r, "› ", strlen("› "));
	r->at_line_start = 0;
	if (!r->eof)
		loop_watch(r->d->loop, r->d->in_fd, LOOP_READ, front_line_on_stdin, r);
	front_line_drain(r); /* lines typed (or piped) ahead */
}

/* A pending command moved on: show its text, then its question, wait, or prompt. */
static void
front_line_cmd_changed(void *arg)
{
	struct front_line *r = arg;
	struct buf text = BUF_INIT;

	front_cmd_ui_take(&r->cmds.ui, &text);
	buf_rtrim(&text);
	if (text.len)
		front_line_say(r, text.data);
	buf_reset(&text);
	if (front_cmd_ui_take_submit(&r->cmds.ui, &text)) { /* an MCP prompt's text: the user's turn */
		front_line_send(r, text.data);
		buf_release(&text);
		return;
	}
	buf_release(&text);
	if (r->cmds.ui.state == FRONT_CMD_UI_BUSY) {
		r->state = RS_CMD;
		loop_unwatch(r->d->loop, r->d->in_fd);
	} else if (r->cmds.ui.state == FRONT_CMD_UI_ASK) {
		if (r->cmds.ui.text)
			front_line_say(r, r->cmds.ui.prefill.data);
		front_line_say(r, r->cmds.ui.question.data);
		r->state = RS_PROMPT;
		if (!r->eof)
			loop_watch(r->d->loop, r->d->in_fd, LOOP_READ, front_line_on_stdin, r);
		front_line_drain(r);
	} else if (r->state != RS_QUIT) {
		front_line_prompt(r);
	}
}

/* Ctrl-C: abort the turn, or quit at the prompt. */
static void
front_line_on_sigint(struct loop *l, int signo, void *arg)
{
	struct front_line *r = arg;

	(void)signo;
	if (r->cmds.ui.state != FRONT_CMD_UI_IDLE) {
		front_cmd_ui_cancel(&r->cmds.ui);
		return;
	}
	if (r->state == RS_TURN && r->turn.agent) {
		agent_abort(r->turn.agent);
		return;
	}
	r->state = RS_QUIT;
	front_line_out(r, "\n", 1);
	loop_stop(l);
}

static void front_line_probe(struct front_line *r);

/* The server answers 503 "Loading model" (a managed server is loading its model): a countdown. */
static void
front_line_on_loading(void *arg, long left_ms)
{
	char line[128];
	long left = (left_ms + 999) / 1000;

	snprintf(line, sizeof line, "llama-server is loading the model · %ld:%02ld left", left / 60, left % 60);
	front_line_view_on_wait(arg, line);
}

static void front_line_on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg,
			  void *arg);

/* Retry discovery after a pause. */
static void
front_line_retry(struct loop *l, long id, void *arg)
{
	(void)l;
	(void)id;
	struct front_line *r = arg;

	r->retry_timer = 0;
	if ((r->server_down || r->skipped) && r->state != RS_PROBING) /* at the prompt or in a turn elsewhere */
		llama_probe(r->d->llama, r->d->cfg->loading_wait_s * 1000L, front_line_on_loading, front_line_on_probe, r);
	else
		front_line_probe(r);
}

/* The first-run text: what hearth needs and how to get it (both front ends). */
void
front_line_first_run_text(const char *url, const char *why, const char *quit, struct buf *out)
{
	buf_addf(out,
		 "hearth needs a llama-server to talk to, and none answers at %s.\n"
		 "\n"
		 "  1. Get llama.cpp's llama-server and a GGUF model (e.g. a Qwen3.5 9B Q4_K_M).\n"
		 "  2. Start it:  llama-server -m MODEL.gguf --jinja -c 32768 -np 1\n"
		 "  3. hearth connects by itself when it is up (it keeps trying).\n"
		 "\n"
		 "Elsewhere? hearth --server http://HOST:PORT, or HEARTH_SERVER=... in the environment.\n",
		 url);
	if (why && *why) /* NULL or "": the first line said it */
		buf_addf(out, "(%s)\n", why);
	buf_addf(out, "waiting for the server... %s", quit);
}

/* The first-run screen of the line session. */
static void
front_line_first_run(struct front_line *r, const char *why)
{
	struct buf b = BUF_INIT;

	front_line_first_run_text(r->d->cfg->server_url, why, "Ctrl-C quits", &b);
	front_line_say(r, b.data);
	buf_release(&b);
}

/* The provider of the session's own server (a tier of the ladder when there are tiers). */
static const struct provider *
front_line_own(const struct front_line *r)
{
	return r->d->local ? r->d->local : llama_provider(r->d->llama);
}

/* Discovery finished. */
static void
front_line_on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct front_line *r = arg;
	const struct llama_info *info = llama_info(lm);
	char line[256];

	(void)kind;
	if (r->state == RS_QUIT)
		return;
	front_line_view_on_wait(r, NULL);
	if (rc < 0 && !r->skipped && r->state == RS_PROBING && r->d->esc) {
		struct buf note = BUF_INIT;

		if (route_ladder_own(r->d->esc, front_line_own(r), 0, 1, &note) >= 0) {
			/* another tier takes the turns: skipped with a notice, asked again in the background */
			r->skipped = 1;
			front_line_say(r, note.data);
			buf_release(&note);
			r->retry_timer = loop_timer_add(r->d->loop, 2000, front_line_retry, r);
			front_line_prompt(r);
			return;
		}
		buf_release(&note);
	}
	if (rc < 0 && r->skipped) { /* still down: quietly again */
		r->retry_timer = loop_timer_add(r->d->loop, 2000, front_line_retry, r);
		return;
	}
	if (rc < 0) {
		if (!r->told_first_run++)
			front_line_first_run(r, msg);
		r->retry_timer = loop_timer_add(r->d->loop, 2000, front_line_retry, r);
		if (r->state == RS_PROBING && r->d->esc && route_escalate_down_possible(r->d->esc)) {
			r->server_down = 1;
			front_line_say(r, "meanwhile Claude takes your tasks (routing: server_down)");
			front_line_prompt(r);
		}
		return;
	}
	r->server_down = 0;
	if (r->d->esc)
		route_ladder_own(r->d->esc, front_line_own(r), info->n_ctx, 0, NULL);
	if (r->skipped) {
		r->skipped = 0;
		snprintf(line, sizeof line, "%s answers again: turns start there · %s · ctx %ld per slot",
			 r->d->cfg->server_url, info->model_id ? info->model_id : "?", info->n_ctx);
		front_line_say(r, line);
		return;
	}
	snprintf(line, sizeof line, "hearth %s · %s · %s · ctx %ld per slot · %d slot%s · %s",
		 HEARTH_VERSION, r->d->cfg->server_url, info->model_id ? info->model_id : "?",
		 info->n_ctx, info->total_slots, info->total_slots == 1 ? "" : "s",
		 r->d->env->root);
	front_line_say(r, line);
	front_line_say(r, "type a task; /help lists the commands");
	if (r->state != RS_TURN) /* a Claude turn taken while the server was away prompts when it ends */
		front_line_prompt(r);
}

/* Start (or restart) discovery. */
static void
front_line_probe(struct front_line *r)
{
	r->state = RS_PROBING;
	llama_probe(r->d->llama, r->d->cfg->loading_wait_s * 1000L, front_line_on_loading, front_line_on_probe, r);
}

/* Run the session. */
int
front_line_run(const struct front_session *d)
{
	struct front_line r;
	struct front_turn_view v = { 0 };

	memset(&r, 0, sizeof r);
	r.d = d;
	r.at_line_start = 1;
	buf_init(&r.line, 0);
	v.arg = &r;
	v.on_event = front_line_view_on_event;
	v.on_tool_start = front_line_view_on_tool_start;
	v.on_tool_done = front_line_view_on_tool_done;
	v.on_notice = front_line_view_on_notice;
	v.on_wait = front_line_view_on_wait;
	v.on_end = front_line_view_on_end;
	v.say = front_line_view_say;
	v.on_resumed = front_line_view_on_resumed;
	if (d->gate) {
		struct perm_gate_ui ui = { &r, front_line_ask, front_line_withdraw, front_line_view_on_notice };

		perm_gate_set_ui(d->gate, &ui);
	}
	front_turn_init(&r.turn, d, NULL, &v);
	front_line_commands(&r);
	mcp_set_report(d->mcp, front_line_view_on_notice, &r);
	loop_signal(d->loop, SIGINT, front_line_on_sigint, &r, NULL);
	front_line_probe(&r);
	for (int i = 0; i < 3; i++) /* discovery on the wire first (connect, send) */
		loop_run_once(d->loop, 0, NULL);
	front_line_boot(&r);
	loop_run(d->loop, NULL);
	if (r.retry_timer)
		loop_timer_del(d->loop, r.retry_timer);
	if (r.mcp_timer)
		loop_timer_del(d->loop, r.mcp_timer);
	loop_unwatch(d->loop, d->in_fd);
	mcp_set_report(d->mcp, NULL, NULL);
	front_turn_release(&r.turn);
	if (d->gate)
		perm_gate_set_ui(d->gate, NULL);
	front_commands_release(&r.cmds);
	buf_release(&r.line);
	return 0;
}

/*
 * app: the full-screen session (see app.h).
 *
 * States: PROBING (discovery in flight or waiting 2 s to retry; the
 * first-run guidance fills the transcript area once a probe failed) →
 * READY (the agent may run a turn: `busy`) → QUIT.  Everything is driven
 * by the loop; nothing here blocks.  The screen is redrawn in the loop's
 * before-sleep hook when `dirty` is set, so a burst of events costs one
 * frame, and the grid only blits rows that changed.
 *
 * Timers: the Esc timer (keys.h rule), the discovery retry, the /slots
 * poll (one pending timer or one request in flight, never both), and the
 * Ctrl-C hint expiry.  Idle with a server there is only the 5 s poll.
 */
#include "app.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfg.h"
#include "checkpoint.h"
#include "sesscmd.h"
#include "draw.h"
#include "editor.h"
#include "escalate.h"
#include "gitinfo.h"
#include "journal.h"
#include "layout.h"
#include "llama.h"
#include "loop.h"
#include "srvpanel.h"
#include "term.h"
#include "transcript.h"

enum app_state { AS_PROBING, AS_READY, AS_QUIT };

#define APP_POLL_BUSY_MS 500
#define APP_POLL_IDLE_MS 5000
#define APP_RETRY_MS 2000
#define APP_ESC_MS 30
#define APP_CTRLC_MS 2000

struct app {
	const struct repl_deps *d;
	struct agent *agent;
	struct term *term;
	struct grid *grid;
	struct keys keys;
	struct editor ed;
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
	struct layout lay;
	struct sesscmd cmds;
	enum app_state state;
	int busy, dirty, panel_on, first_run;
	long esc_timer, retry_timer, poll_timer, hint_timer;
	int poll_inflight, poll_backoff;
	uint64_t t0_ms, ctrlc_ms;
	struct buf queued;   /* messages typed during a turn, sent when it ends */
	struct buf first_run_text;
};

/* Add a notice line to the transcript. */
static void
app_notice(struct app *a, uint16_t role, const char *s)
{
	transcript_add_notice(&a->tv, role, s, strlen(s));
	a->dirty = 1;
}

/* Leave the session at the end of this loop pass. */
static void
app_quit(struct app *a)
{
	a->state = AS_QUIT;
	loop_stop(a->d->loop);
}

/* ---- the /slots poll ----------------------------------------------- */

static void app_poll_fire(struct loop *l, long id, void *arg);

/* Schedule the next poll in ms (replacing a pending one; none while one is in flight). */
static void
app_poll_in(struct app *a, uint64_t ms)
{
	if (a->poll_inflight || a->state == AS_QUIT)
		return;
	if (a->poll_timer)
		loop_timer_del(a->d->loop, a->poll_timer);
	a->poll_timer = loop_timer_add(a->d->loop, ms, app_poll_fire, a);
}

/* GET /slots answered (or failed). */
static void
app_on_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e, void *arg)
{
	struct app *a = arg;

	(void)e;
	a->poll_inflight = 0;
	if (a->state == AS_QUIT)
		return;
	a->dirty = 1;
	if (status == 200) {
		a->poll_backoff = 0;
		srvpanel_set_slots(&a->srv, slots, n, llama_slot(a->d->llama), loop_now_ms(a->d->loop));
	} else if (status == 501) {
		a->poll_backoff = 0;
		srvpanel_no_slots(&a->srv);
		srvpanel_reconnecting(&a->srv, -1);
	} else {
		a->poll_backoff = a->poll_backoff ? a->poll_backoff * 2 : 1;
		if (a->poll_backoff > 30)
			a->poll_backoff = 30;
		srvpanel_reconnecting(&a->srv, a->poll_backoff);
		app_poll_in(a, (uint64_t)a->poll_backoff * 1000);
		return;
	}
	app_poll_in(a, a->busy ? APP_POLL_BUSY_MS : APP_POLL_IDLE_MS);
}

/* The poll timer fired: one request, unless one is already out. */
static void
app_poll_fire(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->poll_timer = 0;
	if (a->poll_inflight || a->state != AS_READY)
		return;
	a->poll_inflight = 1;
	llama_get_slots(a->d->llama, app_on_slots, a);
}

/* ---- the agent's observer ------------------------------------------ */

static void
app_on_event(void *arg, const struct llm_event *ev)
{
	struct app *a = arg;

	transcript_on_event(&a->tv, ev);
	srvpanel_on_event(&a->srv, ev);
	a->dirty = 1;
}

static void
app_on_tool_start(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_start(&a->tv, c);
	a->dirty = 1;
}

static void
app_on_tool_done(void *arg, const struct agent_call *c)
{
	struct app *a = arg;

	transcript_tool_done(&a->tv, c);
	a->dirty = 1;
}

static void
app_on_notice(void *arg, const char *line)
{
	struct app *a = arg;

	app_notice(arg, THEME_DIM, line);
	if (a->d->esc) { /* a handoff or consult mid-turn changes the route and the spend */
		snprintf(a->st.route, sizeof a->st.route, "%s", a->d->esc->on_claude ? "claude" : "local");
		a->st.spend_usd = escalate_spent(a->d->esc);
	}
}

/* Git branch and changed-file count for the status line. */
static void
app_git(struct app *a)
{
	struct gitinfo gi = GITINFO_INIT;
	struct err e = ERR_INIT;

	gitinfo_read(a->d->env->root, &gi, &e);
	snprintf(a->st.branch, sizeof a->st.branch, "%s", gi.branch ? gi.branch : "");
	a->st.dirty = (int)(gi.modified + gi.added + gi.deleted + gi.renamed + gi.untracked);
	gitinfo_release(&gi);
}

static void app_send(struct app *a, const char *text);

/* The turn ended: report, ring, send what was queued. */
static void
app_on_end(void *arg, enum agent_end end, const char *message)
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
		app_notice(a, THEME_ERROR, message);
	if (getenv("TMUX") && a->term)
		term_bell(a->term);
	app_git(a);
	a->dirty = 1;
	if (a->queued.len && a->state == AS_READY) {
		next = buf_detach(&a->queued, NULL);
		app_send(a, next);
		free(next);
	}
}

/* ---- commands ------------------------------------------------------ */

/* /slots: show or hide the server panel. */
static enum cmd_result
app_cmd_slots(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;

	(void)self;
	(void)args;
	a->panel_on = !a->panel_on;
	buf_addf(out, "server panel %s", a->panel_on ? "on (when the width allows)" : "off");
	return CMD_DONE;
}

/* /clear and /new: the transcript view starts over too. */
static void
app_on_clear(void *arg)
{
	struct app *a = arg;

	transcript_release(&a->tv);
	transcript_init(&a->tv);
}

/* The shared session commands, plus /slots. */
static void
app_commands(struct app *a)
{
	static const struct cmd slots = { "slots", "", "show or hide the server panel", app_cmd_slots, NULL };
	struct buf warnings = BUF_INIT;

	sesscmd_init(&a->cmds, a->agent, a->d,
		     "Enter sends · Alt-Enter newline · Esc stops a turn · Ctrl-C twice or Ctrl-D quits · "
		     "PgUp/PgDn scroll, End follows · Ctrl-O expands the last tool call · Tab completes commands",
		     &warnings);
	a->cmds.on_clear = app_on_clear;
	a->cmds.arg = a;
	cmdreg_add(&a->cmds.reg, &slots);
	if (warnings.len) {
		buf_rtrim(&warnings);
		app_notice(a, THEME_WARNING, warnings.data);
	}
	buf_release(&warnings);
}

/* ---- sending ------------------------------------------------------- */

/* Start a turn with text as the user's message (queue it when not possible now). */
static void
app_send(struct app *a, const char *text)
{
	struct err e = ERR_INIT;

	if (a->busy || a->state != AS_READY) {
		if (a->queued.len)
			buf_adds(&a->queued, "\n\n");
		buf_adds(&a->queued, text);
		app_notice(a, THEME_DIM, a->busy ? "queued: sent when this turn ends"
		    : "queued: sent when the server answers");
		return;
	}
	if (a->d->esc) {
		struct buf note = BUF_INIT;

		text = escalate_begin(a->d->esc, a->agent, llama_provider(a->d->llama), text,
				      llama_info(a->d->llama)->n_ctx, &note);
		if (note.len)
			app_notice(a, THEME_ACCENT, note.data);
		snprintf(a->st.route, sizeof a->st.route, "%s",
			 a->d->esc->last.target == ROUTE_CLAUDE ? "claude" : "local");
		buf_release(&note);
	}
	transcript_add_user(&a->tv, text, strlen(text));
	transcript_follow(&a->tv);
	if (agent_submit(a->agent, text, &e) < 0) {
		app_notice(a, THEME_ERROR, e.msg);
		return;
	}
	a->busy = a->st.busy = 1;
	a->dirty = 1;
	app_poll_in(a, APP_POLL_BUSY_MS);
}

/* Enter: a slash command, or a message. */
static void
app_submit(struct app *a, const char *text)
{
	struct buf out = BUF_INIT;
	enum cmd_result rc;

	if (!*text)
		return;
	if (text[0] != '/' || text[1] == '/') {
		app_send(a, text[0] == '/' ? text + 1 : text);
		return;
	}
	rc = cmdreg_run(&a->cmds.reg, a, text, &out);
	if (rc == CMD_QUIT) {
		app_quit(a);
	} else if (rc == CMD_SUBMIT) {
		app_send(a, out.data);
	} else if (out.len) {
		buf_rtrim(&out);
		app_notice(a, rc == CMD_ERROR ? THEME_ERROR : THEME_TEXT, out.data);
	}
	buf_release(&out);
}

/* ---- keys ---------------------------------------------------------- */

/* The Ctrl-C hint expired. */
static void
app_hint_done(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->hint_timer = 0;
	a->dirty = 1;
}

/* Ctrl-C: the second within 2 s quits; the first shows a hint. */
static void
app_ctrl_c(struct app *a)
{
	uint64_t now = loop_now_ms(a->d->loop);

	if (a->ctrlc_ms && now - a->ctrlc_ms < APP_CTRLC_MS) {
		app_quit(a);
		return;
	}
	a->ctrlc_ms = now;
	if (a->hint_timer)
		loop_timer_del(a->d->loop, a->hint_timer);
	a->hint_timer = loop_timer_add(a->d->loop, APP_CTRLC_MS, app_hint_done, a);
}

/* Keys the screen handles before the editor; 1 when consumed. */
static int
app_screen_key(struct app *a, const struct keys_event *ev)
{
	struct grid_rect r = a->lay.transcript;
	long page = r.h > 2 ? r.h - 2 : 1;

	if (ev->kind == KEYS_CHAR && (ev->mods & KEYS_MOD_CTRL)) {
		switch (ev->cp) {
		case 'c': app_ctrl_c(a); return 1;
		case 'd':
			if (editor_empty(&a->ed))
				app_quit(a);
			return 1;
		case 'o': transcript_toggle_last(&a->tv); return 1;
		case 'l': grid_touch(a->grid); return 1;
		default: return 0;
		}
	}
	switch (ev->kind) {
	case KEYS_ESC:
		if (a->queued.len) { /* before the abort, whose on_end would send it */
			buf_setlen(&a->queued, 0);
			app_notice(a, THEME_DIM, "queued message dropped");
		}
		if (a->busy)
			agent_abort(a->agent);
		return 1;
	case KEYS_PGUP: transcript_scroll(&a->tv, -page, r.w, r.h); return 1;
	case KEYS_PGDN: transcript_scroll(&a->tv, page, r.w, r.h); return 1;
	case KEYS_WHEEL_UP: transcript_scroll(&a->tv, -3, r.w, r.h); return 1;
	case KEYS_WHEEL_DOWN: transcript_scroll(&a->tv, 3, r.w, r.h); return 1;
	case KEYS_END: transcript_follow(&a->tv); return 0;
	default: return 0;
	}
}

/* One key event. */
static void
app_key(struct app *a, const struct keys_event *ev)
{
	struct buf note = BUF_INIT, text = BUF_INIT;

	a->dirty = 1;
	if (app_screen_key(a, ev))
		return;
	switch (editor_key(&a->ed, ev, &a->cmds.reg, &note)) {
	case EDITOR_SUBMIT:
		editor_take(&a->ed, &text);
		app_submit(a, text.data);
		break;
	case EDITOR_NOTICE:
		app_notice(a, THEME_DIM, note.data);
		break;
	default:
		break;
	}
	buf_release(&note);
	buf_release(&text);
}

/* Drain decoded events. */
static void
app_drain(struct app *a)
{
	struct keys_event ev;

	while (a->state != AS_QUIT && keys_next(&a->keys, &ev))
		app_key(a, &ev);
}

/* The Esc timer fired: the held ESC was a key on its own. */
static void
app_esc_fire(struct loop *l, long id, void *arg)
{
	struct app *a = arg;
	struct keys_event ev;

	(void)l;
	(void)id;
	a->esc_timer = 0;
	if (keys_flush(&a->keys, &ev))
		app_key(a, &ev);
	app_drain(a);
}

/* The terminal is readable. */
static void
app_on_input(struct loop *l, int fd, int events, void *arg)
{
	struct app *a = arg;
	struct err e = ERR_INIT;

	(void)fd;
	(void)events;
	if (term_read_keys(a->term, &a->keys, &e) < 0) {
		app_quit(a);
		return;
	}
	if (a->esc_timer) {
		loop_timer_del(l, a->esc_timer);
		a->esc_timer = 0;
	}
	app_drain(a);
	if (a->state != AS_QUIT && keys_waiting(&a->keys))
		a->esc_timer = loop_timer_add(l, APP_ESC_MS, app_esc_fire, a);
}

/* ---- drawing ------------------------------------------------------- */

/* The first-run guidance (the same words as the line-mode session). */
static void
app_first_run_text(struct app *a, const char *why)
{
	buf_setlen(&a->first_run_text, 0);
	repl_first_run_text(a->d->cfg->server_url, why, "Ctrl-C twice quits", &a->first_run_text);
}

/* The Ctrl-C hint over the help line (or the rule in compact layouts). */
static void
app_draw_hint(struct app *a)
{
	static const char hint[] = " press Ctrl-C again to quit ";
	int y = a->lay.help.h ? a->lay.help.y : a->lay.rule_y;

	if (!a->hint_timer || a->lay.too_small)
		return;
	grid_clear_rect(a->grid, (struct grid_rect){ 0, y, a->lay.w, 1 }, THEME_WARNING);
	draw_text(a->grid, 0, y, a->lay.w, hint, sizeof hint - 1, THEME_WARNING);
}

/* Redraw when something changed (the loop's before-sleep hook). */
static void
app_render(struct loop *l, void *arg)
{
	struct app *a = arg;
	int w, h, cx = -1, cy = -1;

	if (!a->dirty || a->state == AS_QUIT)
		return;
	a->dirty = 0;
	term_size(a->term, &w, &h);
	if (w != a->grid->w || h != a->grid->h)
		grid_resize(a->grid, w, h);
	layout_compute(&a->lay, w, h, a->panel_on, 1);
	layout_compute(&a->lay, w, h, a->panel_on, editor_rows(&a->ed, a->lay.input.w));
	a->tv.now_ms = loop_now_ms(l);
	a->st.elapsed_s = (long)((a->tv.now_ms - a->t0_ms) / 1000);
	layout_draw(a->grid, &a->lay, &a->tv, &a->srv, &a->st);
	if (!a->lay.too_small) {
		if (a->first_run && a->state == AS_PROBING) {
			grid_clear_rect(a->grid, a->lay.transcript, THEME_TEXT);
			draw_wrap(a->grid, a->lay.transcript, 0, a->first_run_text.data,
			    a->first_run_text.len, THEME_TEXT);
		}
		editor_draw(&a->ed, a->grid, a->lay.input, &cx, &cy);
		app_draw_hint(a);
	}
	term_cursor(a->term, cx, cy);
	if (term_present(a->term, a->grid) < 0)
		app_quit(a);
}

/* ---- discovery and signals ----------------------------------------- */

static void app_probe(struct app *a);

static void
app_retry(struct loop *l, long id, void *arg)
{
	(void)l;
	(void)id;
	((struct app *)arg)->retry_timer = 0;
	app_probe(arg);
}

/* The server address without its scheme, for the panel. */
static const char *
app_host(const struct app *a)
{
	const char *u = a->d->cfg->server_url, *p = strstr(u, "://");

	return p ? p + 3 : u;
}

/* Discovery finished: the banner and the first poll, or the first-run screen and a retry. */
static void
app_on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct app *a = arg;
	const struct llama_info *info = llama_info(lm);
	char line[512];

	(void)kind;
	if (a->state == AS_QUIT)
		return;
	a->dirty = 1;
	if (rc < 0) {
		a->first_run = 1;
		app_first_run_text(a, msg);
		a->retry_timer = loop_timer_add(a->d->loop, APP_RETRY_MS, app_retry, a);
		return;
	}
	a->state = AS_READY;
	srvpanel_set_info(&a->srv, app_host(a), info);
	snprintf(a->st.model, sizeof a->st.model, "%s", info->model_id ? info->model_id : "?");
	snprintf(line, sizeof line, "hearth %s · %s · %s · ctx %ld per slot · %d slot%s · %s",
	    HEARTH_VERSION, a->d->cfg->server_url, a->st.model, info->n_ctx, info->total_slots,
	    info->total_slots == 1 ? "" : "s", a->d->env->root);
	app_notice(a, THEME_DIM, line);
	app_notice(a, THEME_DIM, "type a task; /help lists the commands and keys");
	app_poll_in(a, 0);
	if (a->queued.len) {
		char *next = buf_detach(&a->queued, NULL);

		app_send(a, next);
		free(next);
	}
}

static void
app_probe(struct app *a)
{
	a->state = AS_PROBING;
	llama_probe(a->d->llama, 300000, NULL, app_on_probe, a);
}

/* SIGWINCH: re-read the size and redraw everything. */
static void
app_on_winch(struct loop *l, int signo, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)signo;
	term_resized(a->term);
	grid_touch(a->grid);
	a->dirty = 1;
}

/* SIGTERM / SIGHUP: leave (the terminal is restored on the way out); SIGINT: as Ctrl-C. */
static void
app_on_signal(struct loop *l, int signo, void *arg)
{
	(void)l;
	if (signo == SIGINT)
		app_ctrl_c(arg);
	else
		app_quit(arg);
	((struct app *)arg)->dirty = 1;
}

/* ---- setup --------------------------------------------------------- */

/* The agent, wired like the line-mode session's. */
static void
app_agent(struct app *a)
{
	const struct repl_deps *d = a->d;
	struct agent_observer obs = { 0 };
	struct agent_opts ao = { 0 };
	char line[96];

	obs.arg = a;
	obs.on_event = app_on_event;
	obs.on_tool_start = app_on_tool_start;
	obs.on_tool_done = app_on_tool_done;
	obs.on_notice = app_on_notice;
	obs.on_end = app_on_end;
	if (d->journal) {
		obs.on_commit = journal_commit;
		obs.commit_arg = d->journal;
	}
	ao.max_steps = d->cfg->max_steps;
	ao.thinking = d->cfg->thinking;
	ao.tools = d->tools;
	ao.ntools = d->ntools;
	if (d->checkpoint) {
		ao.hooks.arg = d->checkpoint;
		ao.hooks.before_change = checkpoint_before_change;
		ao.hooks.turn_end = checkpoint_turn_end;
	}
	a->agent = agent_new(d->loop, llama_provider(d->llama), d->env, &ao, &obs);
	conv_set_system(agent_conv(a->agent), d->system);
	if (d->resumed && d->resumed->nmsgs) {
		snprintf(line, sizeof line, "resumed session %s (%zu messages)",
		    d->journal ? journal_id(d->journal) : "", d->resumed->nmsgs);
		conv_move_msgs(agent_conv(a->agent), d->resumed);
		agent_mark_committed(a->agent);
		app_notice(a, THEME_DIM, line);
	}
}

/* The view state before the first frame. */
static void
app_views(struct app *a)
{
	const char *home = getenv("HOME");
	const char *root = a->d->env->root;
	size_t hl = home ? strlen(home) : 0;

	transcript_init(&a->tv);
	srvpanel_init(&a->srv);
	srvpanel_set_info(&a->srv, app_host(a), NULL);
	if (hl > 1 && !strncmp(root, home, hl) && (root[hl] == '/' || !root[hl]))
		snprintf(a->st.cwd, sizeof a->st.cwd, "~%s", root + hl);
	else
		snprintf(a->st.cwd, sizeof a->st.cwd, "%s", root);
	snprintf(a->st.route, sizeof a->st.route, "local");
	snprintf(a->st.model, sizeof a->st.model, "connecting…");
	app_git(a);
	a->panel_on = 1;
	a->dirty = 1;
}

/* Take the terminal; -1 with a message on stderr when it cannot be. */
static int
app_term(struct app *a)
{
	struct term_curses_opts o = { 0, 1 };
	struct theme th;
	struct err e = ERR_INIT;
	struct loop *l = a->d->loop;

	setlocale(LC_CTYPE, "");
	loop_signal(l, SIGWINCH, app_on_winch, a, NULL);
	loop_signal(l, SIGTERM, app_on_signal, a, NULL);
	loop_signal(l, SIGHUP, app_on_signal, a, NULL);
	loop_signal(l, SIGINT, app_on_signal, a, NULL);
	theme_default(&th, theme_depth_env());
	if (!(a->term = term_curses_new(&th, &o, &e))) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		return -1;
	}
	a->grid = grid_new(0, 0);
	loop_watch(l, term_input_fd(a->term), LOOP_READ, app_on_input, a);
	loop_set_before_sleep(l, app_render, a);
	return 0;
}

/* Undo app_term and free what app_run made. */
static void
app_release(struct app *a)
{
	struct loop *l = a->d->loop;
	long *timers[] = { &a->esc_timer, &a->retry_timer, &a->poll_timer, &a->hint_timer };
	size_t i;

	for (i = 0; i < sizeof timers / sizeof timers[0]; i++)
		if (*timers[i])
			loop_timer_del(l, *timers[i]);
	loop_set_before_sleep(l, NULL, NULL);
	if (a->term)
		loop_unwatch(l, term_input_fd(a->term));
	term_free(a->term);
	loop_signal(l, SIGWINCH, NULL, NULL, NULL);
	loop_signal(l, SIGTERM, NULL, NULL, NULL);
	loop_signal(l, SIGHUP, NULL, NULL, NULL);
	loop_signal(l, SIGINT, NULL, NULL, NULL);
	agent_free(a->agent);
	grid_free(a->grid);
	keys_release(&a->keys);
	editor_release(&a->ed);
	transcript_release(&a->tv);
	sesscmd_release(&a->cmds);
	buf_release(&a->queued);
	buf_release(&a->first_run_text);
}

int
app_run(const struct repl_deps *d)
{
	struct app a;
	int rc = 0;

	memset(&a, 0, sizeof a);
	a.d = d;
	keys_init(&a.keys);
	editor_init(&a.ed);
	app_views(&a);
	a.t0_ms = loop_now_ms(d->loop);
	if (app_term(&a) < 0) { /* nothing of d used yet: the caller can fall back */
		rc = 1;
	} else {
		app_agent(&a);
		app_commands(&a);
		app_probe(&a);
		loop_run(d->loop, NULL);
	}
	app_release(&a);
	return rc;
}

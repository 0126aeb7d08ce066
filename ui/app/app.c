/*
 * ui/app/app: the full-screen session (see ui/app/app.h) — its lifetime, the frame,
 * discovery, the /slots poll, signals, and the helpers every part uses
 * (ui/app/state.h).  The parts (ui/app/state.h lists them) share one
 * struct app.
 *
 * States: PROBING (discovery in flight or waiting 2 s to retry; the
 * first-run guidance fills the transcript area once a probe failed) →
 * READY (the agent may run a turn: `busy`) → QUIT.  Everything is driven
 * by the loop; nothing here blocks.  The screen is redrawn in the loop's
 * before-sleep hook when `dirty` is set, so a burst of events costs one
 * frame, and the grid only blits rows that changed.
 *
 * Timers: the Esc timer (ui/term/keys.h rule), the discovery retry, the /slots
 * poll (one pending timer or one request in flight, never both), and the
 * Ctrl-C hint expiry.  Idle with a server there is only the 5 s poll.
 */
#include "ui/app/app.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app/cmd.h"
#include "ui/app/keys.h"
#include "ui/app/state.h"
#include "ui/app/turn.h"
#include "front/line.h"
#include "base/cfg.h"
#include "ui/view/highlight.h"
#include "ui/view/diff_view.h"
#include "ui/term/draw.h"
#include "perm/gate.h"
#include "llama/llama.h"
#include "io/loop.h"
#include "mcp/mcp.h"
#include "route/escalate.h"
#include "route/ladder.h"
#include "ui/view/server_panel.h"
#include "ui/app/themes.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_search.h"
#include "repo/info.h"

static void app_tiers(struct app *a);

/* ---- helpers every part uses (ui/app/state.h) ----------------------- */

/* Add a notice line to the transcript. */
void
app_state_notice(struct app *a, uint16_t role, const char *s)
{
	transcript_add_notice(&a->tv, role, s, strlen(s));
	a->dirty = 1;
}

/* The tick: the next frame is drawn; again while the turn runs. */
static void
app_tick_fire(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->tick_timer = 0;
	a->st.spin++;
	a->dirty = 1;
	app_state_tick(a);
}

/* Arm the tick while busy (none pending, none when idle: idle costs no wake-ups). */
void
app_state_tick(struct app *a)
{
	if (a->busy && !a->tick_timer && a->state != AS_QUIT)
		a->tick_timer = loop_timer_add(a->d->loop, APP_TICK_MS, app_tick_fire, a);
}

/* Leave the session at the end of this loop pass. */
void
app_state_quit(struct app *a)
{
	a->state = AS_QUIT;
	loop_stop(a->d->loop);
}

/* Git branch and changed-file count for the status line. */
void
app_state_git(struct app *a)
{
	struct repo_info gi = REPO_INFO_INIT;
	struct err e = ERR_INIT;

	repo_info_read(a->d->env->root, &gi, &e);
	snprintf(a->st.branch, sizeof a->st.branch, "%s", gi.branch ? gi.branch : "");
	a->st.dirty = (int)(gi.modified + gi.added + gi.deleted + gi.renamed + gi.untracked);
	repo_info_release(&gi);
}

/* The session prompt and the git summary, once (see ui/app/state.h). */
void
app_state_boot(struct app *a)
{
	struct buf w = BUF_INIT;

	if (a->booted)
		return;
	a->booted = 1;
	if (a->d->prompt)
		conv_set_system(agent_conv(a->turn.agent), a->d->prompt(a->d->prompt_arg, &w));
	if (a->resumed_bytes && agent_conv(a->turn.agent)->system && a->srv.ctx_used == a->resumed_bytes / 4)
		a->srv.ctx_used = (a->resumed_bytes + (long)strlen(agent_conv(a->turn.agent)->system)) / 4;
	buf_rtrim(&w);
	if (w.len)
		app_state_notice(a, THEME_WARNING, w.data);
	buf_release(&w);
	app_state_git(a);
	app_turn_sandbox(a);
	a->dirty = 1;
}

/* ---- drawing ------------------------------------------------------- */

/* The first-run guidance (the same words as the line-mode session). */
static void
app_first_run_text(struct app *a, const char *why)
{
	char *nl;

	buf_setlen(&a->first_run_text, 0);
	/* "no llama-server at URL (...): start one..." says again what the guidance says */
	front_line_first_run_text(a->d->cfg->server_url, why && strncmp(why, "no llama-server at ", 19) ?
	    why : NULL, "Ctrl-C twice quits", &a->first_run_text);
	/* its last line ("waiting for the server...") is the status's waiting line here */
	if ((nl = strrchr(a->first_run_text.data, '\n')))
		buf_setlen(&a->first_run_text, (size_t)(nl - a->first_run_text.data));
	buf_adds(&a->first_run_text, "\nCtrl-C twice quits; commands (/help) work meanwhile.");
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

/* The search's highlight and its prompt over the help line (the rule in compact layouts). */
static void
app_draw_search(struct app *a, int *cx, int *cy)
{
	int y = a->lay.help.h ? a->lay.help.y : a->lay.rule_y, x = -1;

	if (!a->search.active)
		return;
	transcript_search_highlight(a->grid, a->lay.transcript, &a->search, &a->tv);
	transcript_search_draw_prompt(a->grid, 0, y, a->lay.w, &a->search, &x);
	if (x >= 0) {
		*cx = x;
		*cy = y;
	}
}

/* The frame timer fired: the next before-sleep hook draws. */
static void
app_frame_due(struct loop *l, long id, void *arg)
{
	(void)l;
	(void)id;
	((struct app *)arg)->frame_timer = 0;
}

/*
 * Whether a frame may be drawn now: not within APP_FRAME_MS of the last
 * one (then the frame timer is set for the rest of the interval).
 */
static int
app_frame_now(struct app *a, struct loop *l)
{
	uint64_t now = loop_now_ms(l);

	if (a->frame_timer)
		return 0;
	if (a->frame_ms && now - a->frame_ms < APP_FRAME_MS) {
		a->frame_timer = loop_timer_add(l, APP_FRAME_MS - (now - a->frame_ms), app_frame_due, a);
		return 0;
	}
	a->frame_ms = now;
	return 1;
}

/* The spinner's next frame. */
static void
app_spin_due(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->spin_timer = 0;
	a->dirty = 1;
}

/* After the first frame: the slow start-up reads (app_state_boot). */
static void
app_boot_timer(struct loop *l, long id, void *arg)
{
	(void)l;
	(void)id;
	((struct app *)arg)->boot_timer = 0;
	app_state_boot(arg);
}

/* Redraw when something changed (the loop's before-sleep hook), at most one frame per APP_FRAME_MS. */
static void
app_render(struct loop *l, void *arg)
{
	struct app *a = arg;
	int w, h, cx = -1, cy = -1;

	if (!a->dirty || a->state == AS_QUIT || !app_frame_now(a, l))
		return;
	a->dirty = 0;
	term_size(a->term, &w, &h);
	if (w != a->grid->w || h != a->grid->h)
		grid_resize(a->grid, w, h);
	layout_compute(&a->lay, w, h, a->panel_on, 1);
	layout_compute(&a->lay, w, h, a->panel_on, editor_rows(&a->ed, a->lay.input.w));
	a->tv.now_ms = loop_now_ms(l);
	a->srv.now_ms = a->tv.now_ms;
	app_tiers(a);
	if (a->srv.waiting && !a->spin_timer) /* the spinner turns and its seconds count: a frame every 100 ms */
		a->spin_timer = loop_timer_add(l, 100, app_spin_due, a);
	a->st.elapsed_s = (long)((a->tv.now_ms - a->t0_ms) / 1000);
	a->st.turn_ms = a->busy && a->turn_t0 ? a->tv.now_ms - a->turn_t0 : 0;
	a->st.tps = a->tok_t0 && a->tv.now_ms > a->tok_t0 + 500 ?
	    (double)(a->tok_n - 1) * 1000.0 / (double)(a->tv.now_ms - a->tok_t0) : 0;
	a->st.scrolled = !a->tv.follow;
	if (a->dv.open && !a->lay.too_small) {
		diff_view_layout(&a->dv, w);
		diff_view_draw(a->grid, (struct grid_rect){ 0, 0, w, h }, &a->dv);
	} else {
		layout_draw(a->grid, &a->lay, &a->tv, &a->srv, &a->st);
	}
	if (!a->lay.too_small && !a->dv.open) {
		if (a->first_run && a->state == AS_PROBING) {
			grid_clear_rect(a->grid, a->lay.transcript, THEME_TEXT);
			draw_wrap(a->grid, a->lay.transcript, 0, a->first_run_text.data,
			    a->first_run_text.len, THEME_TEXT);
		}
		editor_draw(&a->ed, a->grid, a->lay.input, &cx, &cy);
		if (!a->ap.on)
			app_complete_draw(&a->pop, a->grid, a->lay.input.x - 1, a->lay.rule_y,
			    a->lay.input.w + 2);
		approve_draw(&a->ap, a->grid, a->lay.transcript);
		app_draw_search(a, &cx, &cy);
		app_draw_hint(a);
	}
	term_cursor(a->term, cx, cy);
	if (term_present(a->term, a->grid) < 0)
		app_state_quit(a);
	else if (!a->booted && !a->boot_timer)
		a->boot_timer = loop_timer_add(l, 1, app_boot_timer, a);
}

/* ---- discovery and signals ----------------------------------------- */

static void app_probe(struct app *a);

/* The server address without its scheme, for the panel. */
static const char *
app_host(const struct app *a)
{
	const char *u = a->d->cfg->server_url, *p = strstr(u, "://");

	return p ? p + 3 : u;
}

/* The one waiting line (status), rewritten in place as the countdown runs. */
static void
app_wait_line(struct app *a)
{
	snprintf(a->st.wait, sizeof a->st.wait, "waiting for llama-server at %s (next try in %ds)",
	    app_host(a), a->retry_left);
	a->dirty = 1;
}

/* A second of the retry countdown: the line again, or the next probe. */
static void
app_retry(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)id;
	a->retry_timer = 0;
	if (--a->retry_left > 0) {
		app_wait_line(a);
		a->retry_timer = loop_timer_add(l, 1000, app_retry, a);
		return;
	}
	if (!a->skipped)
		snprintf(a->st.wait, sizeof a->st.wait, "waiting for llama-server at %s (trying now)", app_host(a));
	app_probe(a);
}

/* The provider of the session's own server (a tier of the ladder when there are tiers). */
static const struct provider *
app_own(const struct app *a)
{
	return a->d->local ? a->d->local : llama_provider(a->d->llama);
}

/* Discovery finished: the banner and the first poll, or the first-run screen and a retry. */
static void
app_on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct app *a = arg;
	const struct llama_info *info = llama_info(lm);
	struct server_panel_info pi;
	char line[512];

	(void)kind;
	if (a->state == AS_QUIT)
		return;
	a->dirty = 1;
	a->st.wait[0] = '\0'; /* the loading countdown, if any, is over */
	if (rc < 0 && !a->skipped && a->d->esc) {
		struct buf note = BUF_INIT;

		if (route_ladder_own(a->d->esc, app_own(a), 0, 1, &note) >= 0) {
			/* another tier takes the turns: skipped with a notice, asked again in the background */
			a->skipped = 1;
			a->state = AS_READY;
			app_state_notice(a, THEME_WARNING, note.data);
			buf_release(&note);
			app_state_notice(a, THEME_DIM, "type a task; /help lists the commands and keys");
			a->retry_left = APP_RETRY_MS / 1000;
			a->retry_timer = loop_timer_add(a->d->loop, 1000, app_retry, a);
			if (a->queued.len) {
				char *next = buf_detach(&a->queued, NULL);

				app_turn_send(a, next);
				free(next);
			}
			return;
		}
		buf_release(&note);
	}
	if (rc < 0 && a->skipped) { /* still down: quietly again */
		a->retry_left = APP_RETRY_MS / 1000;
		a->retry_timer = loop_timer_add(a->d->loop, 1000, app_retry, a);
		return;
	}
	if (rc < 0) {
		a->first_run = !a->talked;
		a->server_down = 1;
		app_first_run_text(a, msg);
		a->retry_left = APP_RETRY_MS / 1000;
		app_wait_line(a);
		a->retry_timer = loop_timer_add(a->d->loop, 1000, app_retry, a);
		return;
	}
	a->state = AS_READY;
	a->server_down = 0;
	if (a->d->esc)
		route_ladder_own(a->d->esc, app_own(a), info->n_ctx, 0, NULL);
	if (a->skipped) {
		a->skipped = 0;
		snprintf(line, sizeof line, "%s answers again: turns start there", app_host(a));
		app_state_notice(a, THEME_DIM, line);
	}
	pi.model = info->model_id;
	pi.build = info->build_info;
	pi.n_ctx = info->n_ctx;
	pi.total_slots = info->total_slots;
	server_panel_set_info(&a->srv, app_host(a), &pi);
	snprintf(a->st.model, sizeof a->st.model, "%s", info->model_id ? info->model_id : "?");
	snprintf(line, sizeof line, "hearth %s · %s · %s · ctx %ld per slot · %d slot%s · %s",
	    HEARTH_VERSION, a->d->cfg->server_url, a->st.model, info->n_ctx, info->total_slots,
	    info->total_slots == 1 ? "" : "s", a->d->env->root);
	app_state_notice(a, THEME_DIM, line);
	app_state_notice(a, THEME_DIM, "type a task; /help lists the commands and keys");
	app_poll_in(a, 0);
	if (a->queued.len) {
		char *next = buf_detach(&a->queued, NULL);

		app_turn_send(a, next);
		free(next);
	}
}

/* The server answers 503 "Loading model" (a managed server is loading its model): a
 * notice once, and the countdown in the status lines. */
static void
app_on_loading(void *arg, long left_ms)
{
	struct app *a = arg;
	long left = (left_ms + 999) / 1000;

	if (!*a->st.wait)
		app_state_notice(a, THEME_DIM, "llama-server is loading the model; waiting");
	snprintf(a->st.wait, sizeof a->st.wait, "llama-server is loading the model · %ld:%02ld left",
		 left / 60, left % 60);
	a->dirty = 1;
}

/* The ladder's servers (route/ladder.h) for the panel: state, load, speed, the active one. */
static void
app_tiers(struct app *a)
{
	const struct route_escalate *x = a->d->esc;
	size_t i;

	a->srv.ntiers = 0;
	for (i = 0; x && i < x->nrungs && i < VIEW_TIERS_MAX; i++) {
		const struct route_escalate_rung *r = &x->rungs[i];
		struct view_tier *t = &a->srv.tiers[a->srv.ntiers++];

		snprintf(t->name, sizeof t->name, "%s", r->name);
		t->workhorse = r->workhorse;
		t->slots = r->slots;
		t->idle = r->idle;
		t->down = r->down;
		t->active = !x->on_claude && (int)i == (x->rung >= 0 ? x->rung : x->start);
		t->tps = r->ms > 0 ? (double)r->use.output * 1000.0 / r->ms : 0;
		t->requests = r->requests;
		t->tokens = r->use.input + r->use.cache_read + r->use.cache_write + r->use.output;
		t->secs = r->ms / 1000.0;
		t->cost = r->cost;
	}
}

static void
app_probe(struct app *a)
{
	if (!a->skipped) /* skipped: the session goes on on another tier meanwhile */
		a->state = AS_PROBING;
	llama_probe(a->d->llama, a->d->cfg->loading_wait_s * 1000L, app_on_loading, app_on_probe, a);
}

/* ---- the GET /slots poll (app_poll_in, ui/app/state.h) --------------- */

static void app_poll_fire(struct loop *l, long id, void *arg);

/* Schedule the next poll in ms (replacing a pending one; none while one is in flight). */
void
app_poll_in(struct app *a, uint64_t ms)
{
	if (a->poll_inflight || a->state == AS_QUIT)
		return;
	if (a->poll_timer)
		loop_timer_del(a->d->loop, a->poll_timer);
	a->poll_timer = loop_timer_add(a->d->loop, ms, app_poll_fire, a);
}

/* Our slot still works (a stopped turn the server has not dropped yet): poll at the busy pace until it is idle. */
static int
app_poll_ours_busy(const struct view_server *srv)
{
	int i;

	for (i = 0; i < srv->nslots; i++)
		if (srv->slots[i].is_ours && srv->slots[i].state != VIEW_SLOT_IDLE)
			return 1;
	return 0;
}

/* GET /slots answered (or failed). */
static void
app_poll_on_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e,
    void *arg)
{
	struct app *a = arg;
	struct server_panel_slot v[VIEW_SLOTS_MAX];
	size_t i;

	(void)e;
	a->poll_inflight = 0;
	if (a->state == AS_QUIT)
		return;
	a->dirty = 1;
	if (!a->st.sandbox[0])
		app_turn_sandbox(a); /* the probe may have ended after the boot */
	if (status == 200) {
		a->poll_backoff = 0;
		for (i = 0; i < n && i < VIEW_SLOTS_MAX; i++) {
			v[i].id = slots[i].id;
			v[i].n_ctx = slots[i].n_ctx;
			v[i].is_processing = slots[i].is_processing;
			v[i].n_prompt_tokens = slots[i].n_prompt_tokens;
			v[i].n_prompt_tokens_processed = slots[i].n_prompt_tokens_processed;
			v[i].n_decoded = slots[i].n_decoded;
		}
		server_panel_set_slots(&a->srv, v, i, llama_slot(a->d->llama), loop_now_ms(a->d->loop));
	} else if (status == 501) {
		a->poll_backoff = 0;
		server_panel_no_slots(&a->srv);
		server_panel_reconnecting(&a->srv, -1);
	} else if (status == 404 || status == 405) { /* not llama-server: the panel shows what is known, no more polls */
		a->poll_backoff = 0;
		server_panel_slots_absent(&a->srv);
		server_panel_reconnecting(&a->srv, -1);
		return;
	} else {
		a->poll_backoff = a->poll_backoff ? a->poll_backoff * 2 : 1;
		if (a->poll_backoff > 30)
			a->poll_backoff = 30;
		server_panel_reconnecting(&a->srv, a->poll_backoff);
		app_poll_in(a, (uint64_t)a->poll_backoff * 1000);
		return;
	}
	app_poll_in(a, a->busy || app_poll_ours_busy(&a->srv) ? APP_POLL_BUSY_MS : APP_POLL_IDLE_MS);
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
	llama_get_slots(a->d->llama, app_poll_on_slots, a);
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
		app_keys_ctrl_c(arg);
	else
		app_state_quit(arg);
	((struct app *)arg)->dirty = 1;
}

/* ---- setup --------------------------------------------------------- */

/* The view state before the first frame. */
static void
app_views(struct app *a)
{
	const char *home = getenv("HOME");
	const char *root = a->d->env->root;
	size_t hl = home ? strlen(home) : 0;

	transcript_init(&a->tv);
	server_panel_init(&a->srv);
	server_panel_set_info(&a->srv, app_host(a), NULL);
	if (hl > 1 && !strncmp(root, home, hl) && (root[hl] == '/' || !root[hl]))
		snprintf(a->st.cwd, sizeof a->st.cwd, "~%s", root + hl);
	else
		snprintf(a->st.cwd, sizeof a->st.cwd, "%s", root);
	snprintf(a->st.route, sizeof a->st.route, "local");
	snprintf(a->st.model, sizeof a->st.model, "connecting…");
	a->panel_on = 1;
	a->dirty = 1;
}

/* Take the terminal; -1 with a message on stderr when it cannot be. */
static int
app_term(struct app *a)
{
	struct term_curses_opts o = { a->d->cfg->mouse != 0, 1 }; /* mouse: the wheel scrolls */
	struct err e = ERR_INIT;
	struct loop *l = a->d->loop;

	setlocale(LC_CTYPE, "");
	loop_signal(l, SIGWINCH, app_on_winch, a, NULL);
	loop_signal(l, SIGTERM, app_on_signal, a, NULL);
	loop_signal(l, SIGHUP, app_on_signal, a, NULL);
	loop_signal(l, SIGINT, app_on_signal, a, NULL);
	if (app_themes_load(&a->th, a->d->cfg->theme, app_themes_depth(), &e) < 0)
		app_state_notice(a, THEME_WARNING, e.msg);
	highlight_set_theme(&a->th);
	if (!(a->term = term_curses_new(&a->th, &o, &e))) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		return -1;
	}
	a->grid = grid_new(0, 0);
	loop_watch(l, term_input_fd(a->term), LOOP_READ, app_keys_on_input, a);
	loop_set_before_sleep(l, app_render, a);
	return 0;
}

/* An MCP server's report (a failure) as a warning in the transcript. */
static void
app_on_mcp(void *arg, const char *line)
{
	app_state_notice(arg, THEME_WARNING, line);
}

/* Undo app_term and free what app_run made. */
static void
app_release(struct app *a)
{
	struct loop *l = a->d->loop;
	long *timers[] = { &a->esc_timer, &a->retry_timer, &a->poll_timer, &a->hint_timer,
			   &a->frame_timer, &a->boot_timer, &a->spin_timer, &a->tick_timer };
	size_t i;

	for (i = 0; i < sizeof timers / sizeof timers[0]; i++)
		if (*timers[i])
			loop_timer_del(l, *timers[i]);
	loop_set_before_sleep(l, NULL, NULL);
	/* a /slots poll or the probe still out would call back into a gone
	 * app: the llama object lives on (front_run_release saves the slot
	 * through the same loop) */
	if (a->d->llama)
		llama_forget(a->d->llama, a);
	mcp_set_report(a->d->mcp, NULL, NULL);
	if (a->term)
		loop_unwatch(l, term_input_fd(a->term));
	term_free(a->term);
	loop_signal(l, SIGWINCH, NULL, NULL, NULL);
	loop_signal(l, SIGTERM, NULL, NULL, NULL);
	loop_signal(l, SIGHUP, NULL, NULL, NULL);
	loop_signal(l, SIGINT, NULL, NULL, NULL);
	front_turn_release(&a->turn);
	if (a->d->gate)
		perm_gate_set_ui(a->d->gate, NULL);
	approve_release(&a->ap);
	app_complete_release(&a->pop);
	grid_free(a->grid);
	keys_release(&a->keys);
	editor_release(&a->ed);
	transcript_release(&a->tv);
	front_commands_release(&a->cmds);
	diff_view_close(&a->dv);
	transcript_search_release(&a->search);
	buf_release(&a->queued);
	buf_release(&a->first_run_text);
	highlight_set_theme(NULL);
}

int
app_run(const struct front_session *d)
{
	struct app a;
	int rc = 0;

	memset(&a, 0, sizeof a);
	a.d = d;
	approve_init(&a.ap);
	app_complete_close(&a.pop);
	keys_init(&a.keys);
	editor_init(&a.ed);
	app_views(&a);
	a.t0_ms = loop_now_ms(d->loop);
	if (app_term(&a) < 0) { /* nothing of d used yet: the caller can fall back */
		rc = 1;
	} else {
		app_turn_agent(&a);
		mcp_set_report(d->mcp, app_on_mcp, &a);
		app_cmd_init(&a);
		app_probe(&a);
		loop_run(d->loop, NULL);
	}
	app_release(&a);
	return rc;
}

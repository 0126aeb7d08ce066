/* ui/app/demo: the recorded session of `hearth --demo` (see ui/app/demo.h). */
#include "ui/app/demo.h"

#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "agent/agent.h"
#include "base/buf.h"
#include "base/str.h"
#include "io/loop.h"
#include "llm/event.h"
#include "ui/app/themes.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/term/term.h"
#include "ui/term/theme.h"
#include "ui/view/editor.h"
#include "ui/view/highlight.h"
#include "ui/view/layout.h"
#include "ui/view/server_panel.h"
#include "ui/view/transcript.h"
#include "ui/view/view.h"

#define DEMO_TICK_MS 40
#define DEMO_TEXT_STEP 6   /* bytes of an answer per tick */

enum demo_kind {
	D_TYPE,      /* text typed into the input, then sent as the user's message */
	D_PREFILL,   /* a prompt of n tokens (cache of them reused) processed over ms */
	D_TEXT,      /* the model's answer streamed */
	D_TOOL,      /* a tool call: name, args (JSON), output, diff; ms running */
	D_DONE,      /* the request ends: timings and usage (n prompt, cache reused, gen generated) */
	D_NOTICE,    /* a notice line (role) */
	D_ROUTE,     /* the status line's route ("claude", "local"), spend */
	D_WAIT,      /* nothing for ms */
	D_END
};

struct demo_step {
	enum demo_kind kind;
	const char *text, *args, *out, *diff;
	long n, cache, gen, ms;
	int role;
	int error;   /* D_TOOL: the call failed (a failing test run) */
	int clean;   /* D_NOTICE: the workspace has no changes afterwards (an undo) */
	double usd;
};

#define CART_DIFF "--- a/src/cart.c\n+++ b/src/cart.c\n@@ -12,7 +12,7 @@ long cart_total(const struct cart *c)\n" \
	" {\n \tlong sum = 0;\n \n-\tfor (size_t i = 0; i <= c->n; i++)\n+\tfor (size_t i = 0; i < c->n; i++)\n" \
	" \t\tsum += c->items[i].price * c->items[i].qty;\n \treturn sum;\n }\n"
#define DISCOUNT_DIFF "--- a/src/discount.c\n+++ b/src/discount.c\n@@ -20,6 +20,6 @@ long apply_discount(long total, int percent)\n" \
	" {\n \tif (percent <= 0)\n \t\treturn total;\n-\treturn total - total / 100 * percent;\n" \
	"+\treturn total - total * percent / 100;\n }\n"

/* The recorded session: a shop's cart total is off by one, a test still fails, Claude is consulted. */
static const struct demo_step demo_steps[] = {
	{ D_WAIT, .ms = 600 },
	{ D_TYPE, .text = "fix the off-by-one in cart_total and run the tests" },
	{ D_PREFILL, .n = 14230, .cache = 11890, .ms = 2600 },
	{ D_TEXT, .text = "Let me read `cart_total` first." },
	{ D_TOOL, "read", "{\"path\":\"src/cart.c\"}", "    10\tlong\n    11\tcart_total(const struct cart *c)\n"
	  "    12\t{\n    13\t\tlong sum = 0;\n    14\t\n    15\t\tfor (size_t i = 0; i <= c->n; i++)\n", NULL, .ms = 300 },
	{ D_PREFILL, .n = 14902, .cache = 14230, .ms = 700 },
	{ D_TEXT, .text = "The loop reads one item past the end (`<=`). Fixing it:" },
	{ D_TOOL, "edit", "{\"path\":\"src/cart.c\",\"old_string\":\"i <= c->n\",\"new_string\":\"i < c->n\"}",
	  "edited src/cart.c (1 replacement)", CART_DIFF, .ms = 400 },
	{ D_PREFILL, .n = 15110, .cache = 14902, .ms = 500 },
	{ D_TOOL, "bash", "{\"command\":\"make test\"}",
	  "cc -o test_cart tests/test_cart.c src/cart.c src/discount.c\n./test_cart\n"
	  "9 passed, 1 failed\nFAIL test_discount_rounding: want 1335, got 1300", NULL, .ms = 1800, .error = 1 },
	{ D_PREFILL, .n = 15380, .cache = 15110, .ms = 500 },
	{ D_TEXT, .text = "Fixed `cart_total`: the loop now stops at `c->n`. **9 of 10 tests pass**; "
		  "`test_discount_rounding` fails in `apply_discount`, which I did not touch." },
	{ D_DONE, .n = 15380, .cache = 15110, .gen = 96 },
	{ D_WAIT, .ms = 1500 },
	{ D_TYPE, .text = "/undo" },
	{ D_NOTICE, .text = "undo: 1 file\nM src/cart.c +1 -1  (restored to before the turn)", .role = THEME_ACCENT, .clean = 1 },
	{ D_WAIT, .ms = 1200 },
	{ D_TYPE, .text = "fix cart_total again, and the discount rounding too" },
	{ D_PREFILL, .n = 15702, .cache = 15380, .ms = 600 },
	{ D_TOOL, "edit", "{\"path\":\"src/cart.c\",\"old_string\":\"i <= c->n\",\"new_string\":\"i < c->n\"}",
	  "edited src/cart.c (1 replacement)", CART_DIFF, .ms = 300 },
	{ D_TOOL, "bash", "{\"command\":\"make test\"}", "9 passed, 1 failed\nFAIL test_discount_rounding: want 1335, got 1300",
	  NULL, .ms = 1200, .error = 1 },
	{ D_PREFILL, .n = 15990, .cache = 15702, .ms = 500 },
	{ D_TOOL, "bash", "{\"command\":\"make test\"}", "9 passed, 1 failed\nFAIL test_discount_rounding: want 1335, got 1300",
	  NULL, .ms = 1200, .error = 1 },
	{ D_NOTICE, .text = "claude (consult): `make test` still failing after 3 edit-test cycles", .role = THEME_WARNING },
	{ D_ROUTE, .text = "claude", .usd = 0.0184 },
	{ D_TEXT, .text = "`apply_discount` divides before it multiplies: `total / 100 * percent` drops the remainder "
		  "(1335 / 100 = 13). Multiply first:" },
	{ D_TOOL, "edit", "{\"path\":\"src/discount.c\",\"old_string\":\"total / 100 * percent\","
		  "\"new_string\":\"total * percent / 100\"}", "edited src/discount.c (1 replacement)", DISCOUNT_DIFF, .ms = 400 },
	{ D_TOOL, "bash", "{\"command\":\"make test\"}", "10 passed", NULL, .ms = 1100 },
	{ D_ROUTE, .text = "local", .usd = 0.0231 },
	{ D_TEXT, .text = "All **10 tests pass**. Back to the local model for the next turn." },
	{ D_DONE, .n = 16420, .cache = 15990, .gen = 141 },
	{ D_NOTICE, .text = "— end of the demo: q quits (hearth -p \"task\" or hearth for the real thing) —",
	  .role = THEME_DIM },
	{ D_END, .ms = 0 },
};

struct demo {
	struct loop *loop;
	struct term *term;
	struct grid *grid;
	struct keys keys;
	struct editor ed;
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
	struct layout lay;
	struct theme th;
	size_t step;
	long at;           /* ms or bytes into the current step */
	long timer;
	int dirty, paused, quit, tool_open, calls;
	uint64_t t0;
};

static void
demo_event(struct demo *d, enum llm_kind k, const char *text)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = k;
	if (text)
		ev.text = str_make(text, strlen(text));
	transcript_on_event(&d->tv, &ev);
	server_panel_on_event(&d->srv, &ev);
}

/* One slot of two busy (state) with tokens in its KV, as a /slots answer would say. */
static void
demo_slots(struct demo *d, int processing, long prompt, long processed, long decoded)
{
	struct server_panel_slot sl[2];

	memset(sl, 0, sizeof sl);
	sl[0].id = 0;
	sl[0].n_ctx = 32768;
	sl[0].is_processing = processing;
	sl[0].n_prompt_tokens = prompt;
	sl[0].n_prompt_tokens_processed = processed;
	sl[0].n_decoded = decoded;
	sl[1].id = 1;
	sl[1].n_ctx = 32768;
	sl[1].n_prompt_tokens = 3120;
	sl[1].n_prompt_tokens_processed = 3120;
	server_panel_set_slots(&d->srv, sl, 2, 0, loop_now_ms(d->loop));
}

static void
demo_tool(struct demo *d, const struct demo_step *s, int done)
{
	struct agent_call c;
	char id[16];

	memset(&c, 0, sizeof c);
	snprintf(id, sizeof id, "call_%d", d->calls);
	c.id = id;
	c.name = (char *)(uintptr_t)s->text;
	buf_init(&c.args, 0);
	buf_adds(&c.args, s->args);
	buf_init(&c.job.out, 0);
	c.t_start_ms = d->t0;
	c.t_end_ms = loop_now_ms(d->loop);
	if (!done) {
		c.t_start_ms = loop_now_ms(d->loop);
		transcript_tool_start(&d->tv, &c);
		transcript_tool_output(&d->tv, &c); /* a demo's call runs at once (no approval) */
	} else {
		buf_adds(&c.job.out, s->out);
		c.job.is_error = s->error;
		c.job.diff = (char *)(uintptr_t)s->diff;
		transcript_tool_done(&d->tv, &c);
	}
	buf_release(&c.args);
	buf_release(&c.job.out);
}

/* Advance the timeline by one tick. */
static void
demo_tick(struct loop *l, long id, void *arg)
{
	struct demo *d = arg;
	const struct demo_step *s = &demo_steps[d->step];
	int next = 0;

	(void)id;
	d->timer = loop_timer_add(l, DEMO_TICK_MS, demo_tick, d);
	if (d->paused)
		return;
	d->dirty = 1;
	switch (s->kind) {
	case D_TYPE: {
		size_t n = strlen(s->text);

		if ((size_t)d->at < n) {
			char one[2] = { s->text[d->at], 0 };
			struct buf b = BUF_INIT;

			buf_add(&b, s->text, (size_t)d->at);
			buf_adds(&b, one);
			editor_set(&d->ed, b.data);
			buf_release(&b);
			d->at++;
		} else if (d->at < (long)n + 8) {
			d->at++; /* a moment before Enter */
		} else {
			editor_set(&d->ed, "");
			transcript_add_user(&d->tv, s->text, n);
			transcript_follow(&d->tv);
			if (s->text[0] != '/')
				d->st.turns++;
			d->st.busy = s->text[0] != '/';
			next = 1;
		}
		break;
	}
	case D_PREFILL: {
		struct llm_event ev;
		long done = s->cache + (s->n - s->cache) * (d->at > s->ms ? s->ms : d->at) / s->ms;

		memset(&ev, 0, sizeof ev);
		ev.kind = LLM_PROGRESS;
		ev.progress.total = s->n;
		ev.progress.cache = s->cache;
		ev.progress.processed = done;
		ev.progress.time_ms = d->at;
		server_panel_on_event(&d->srv, &ev);
		demo_slots(d, 1, s->n, done, 0);
		d->at += DEMO_TICK_MS;
		next = d->at > s->ms;
		break;
	}
	case D_TEXT: {
		size_t n = strlen(s->text), k = (size_t)d->at;
		char chunk[DEMO_TEXT_STEP * 4 + 1];
		size_t m = 0;

		while (k + m < n && (m < DEMO_TEXT_STEP || ((unsigned char)s->text[k + m] & 0xC0) == 0x80))
			m++;
		memcpy(chunk, s->text + k, m);
		chunk[m] = 0;
		demo_event(d, LLM_TEXT, chunk);
		demo_slots(d, 1, s->n, s->n, (long)(k + m) / 4);
		d->at += (long)m;
		if ((size_t)d->at >= n) {
			demo_event(d, LLM_DONE, NULL);
			next = 1;
		}
		break;
	}
	case D_TOOL:
		if (d->at == 0) {
			demo_event(d, LLM_DONE, NULL); /* the request that asked for it ended */
			d->calls++;
			demo_tool(d, s, 0);
			demo_slots(d, 0, 0, 0, 0);
		}
		d->at += DEMO_TICK_MS;
		if (d->at > s->ms) {
			demo_tool(d, s, 1);
			if (s->diff)
				d->st.dirty = 1;
			next = 1;
		}
		break;
	case D_DONE: {
		struct llm_event ev;

		memset(&ev, 0, sizeof ev);
		ev.kind = LLM_TIMINGS;
		ev.timings.cache_n = s->cache;
		ev.timings.prompt_n = s->n - s->cache;
		ev.timings.predicted_n = s->gen;
		ev.timings.prompt_per_second = 1850;
		ev.timings.predicted_per_second = 71.5;
		server_panel_on_event(&d->srv, &ev);
		ev.kind = LLM_USAGE;
		ev.usage.prompt_tokens = s->n;
		ev.usage.completion_tokens = s->gen;
		ev.usage.cached_tokens = s->cache;
		server_panel_on_event(&d->srv, &ev);
		demo_event(d, LLM_DONE, NULL);
		demo_slots(d, 0, 0, 0, 0);
		d->st.busy = 0;
		next = 1;
		break;
	}
	case D_NOTICE:
		transcript_add_notice(&d->tv, (uint16_t)s->role, s->text, strlen(s->text));
		if (s->clean)
			d->st.dirty = 0;
		next = 1;
		break;
	case D_ROUTE:
		snprintf(d->st.route, sizeof d->st.route, "%s", s->text);
		d->st.spend_usd = s->usd;
		next = 1;
		break;
	case D_WAIT:
		d->at += DEMO_TICK_MS;
		next = d->at > s->ms;
		break;
	case D_END:
		d->dirty = 0;
		break;
	}
	if (next) {
		d->step++;
		d->at = 0;
	}
}

static void
demo_render(struct loop *l, void *arg)
{
	struct demo *d = arg;
	int w, h, cx = -1, cy = -1;

	if (!d->dirty || d->quit)
		return;
	d->dirty = 0;
	term_size(d->term, &w, &h);
	if (w != d->grid->w || h != d->grid->h)
		grid_resize(d->grid, w, h);
	layout_compute(&d->lay, w, h, 1, 1);
	d->tv.now_ms = loop_now_ms(l);
	d->st.elapsed_s = (long)((d->tv.now_ms - d->t0) / 1000);
	layout_draw(d->grid, &d->lay, &d->tv, &d->srv, &d->st);
	if (!d->lay.too_small)
		editor_draw(&d->ed, d->grid, d->lay.input, &cx, &cy);
	term_cursor(d->term, cx, cy);
	if (term_present(d->term, d->grid) < 0) {
		d->quit = 1;
		loop_stop(l);
	}
}

static void
demo_leave(struct demo *d)
{
	d->quit = 1;
	loop_stop(d->loop);
}

static void
demo_on_input(struct loop *l, int fd, int events, void *arg)
{
	struct demo *d = arg;
	struct keys_event ev;
	struct err e = ERR_INIT;

	(void)l;
	(void)fd;
	(void)events;
	if (term_read_keys(d->term, &d->keys, &e) < 0) {
		demo_leave(d);
		return;
	}
	while (keys_next(&d->keys, &ev)) {
		int page = d->lay.transcript.h > 2 ? d->lay.transcript.h - 2 : 1;

		if ((ev.kind == KEYS_CHAR && (ev.mods & KEYS_MOD_CTRL) && ev.cp == 'c') ||
		    (ev.kind == KEYS_CHAR && !ev.mods && (ev.cp == 'q' || ev.cp == 'Q'))) {
			demo_leave(d);
			return;
		}
		if (ev.kind == KEYS_CHAR && ev.cp == ' ')
			d->paused = !d->paused;
		else if (ev.kind == KEYS_UP || ev.kind == KEYS_WHEEL_UP)
			transcript_scroll(&d->tv, -1, d->lay.transcript.w, d->lay.transcript.h);
		else if (ev.kind == KEYS_DOWN || ev.kind == KEYS_WHEEL_DOWN)
			transcript_scroll(&d->tv, 1, d->lay.transcript.w, d->lay.transcript.h);
		else if (ev.kind == KEYS_PGUP)
			transcript_scroll(&d->tv, -page, d->lay.transcript.w, d->lay.transcript.h);
		else if (ev.kind == KEYS_PGDN)
			transcript_scroll(&d->tv, page, d->lay.transcript.w, d->lay.transcript.h);
		else if (ev.kind == KEYS_END)
			transcript_follow(&d->tv);
		d->dirty = 1;
	}
}

static void
demo_on_signal(struct loop *l, int signo, void *arg)
{
	struct demo *d = arg;

	(void)l;
	if (signo == SIGWINCH) {
		term_resized(d->term);
		grid_touch(d->grid);
		d->dirty = 1;
		return;
	}
	demo_leave(d);
}

int
app_demo_run(const char *theme)
{
	struct term_curses_opts o = { 1, 0 };
	struct server_panel_info info = { "Qwen3.5-9B-Q4_K_M.gguf", "b7120-demo", 32768, 2 };
	struct demo d;
	struct err e = ERR_INIT;
	int rc = 0;
	static const int sigs[] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP };
	size_t i;

	memset(&d, 0, sizeof d);
	setlocale(LC_CTYPE, "");
	if (!(d.loop = loop_new(&e))) {
		fprintf(stderr, "hearth: --demo: %s\n", e.msg);
		return 1;
	}
	if (app_themes_load(&d.th, theme, theme_depth_env(), &e) < 0) {
		fprintf(stderr, "hearth: %s (the default theme is used)\n", e.msg);
		app_themes_load(&d.th, NULL, theme_depth_env(), &e);
	}
	highlight_set_theme(&d.th);
	if (!(d.term = term_curses_new(&d.th, &o, &e))) {
		fprintf(stderr, "hearth: --demo needs a terminal: %s\n", e.msg);
		highlight_set_theme(NULL);
		loop_free(d.loop);
		return 1;
	}
	keys_init(&d.keys);
	editor_init(&d.ed);
	transcript_init(&d.tv);
	server_panel_init(&d.srv);
	server_panel_set_info(&d.srv, "127.0.0.1:8080 (demo)", &info);
	snprintf(d.st.cwd, sizeof d.st.cwd, "~/src/shop");
	snprintf(d.st.branch, sizeof d.st.branch, "main");
	snprintf(d.st.model, sizeof d.st.model, "%s", info.model);
	snprintf(d.st.route, sizeof d.st.route, "local");
	snprintf(d.st.route_mode, sizeof d.st.route_mode, "auto");
	snprintf(d.st.sandbox, sizeof d.st.sandbox, "workspace-write (demo)");
	{
		static const char hello[] = "hearth --demo: a recorded session, replayed (nothing runs). "
					    "q quits, space pauses, PgUp/PgDn scroll.";

		transcript_add_notice(&d.tv, THEME_DIM, hello, sizeof hello - 1);
	}
	demo_slots(&d, 0, 0, 0, 0);
	d.grid = grid_new(0, 0);
	d.t0 = loop_now_ms(d.loop);
	d.dirty = 1;
	for (i = 0; i < sizeof sigs / sizeof *sigs; i++)
		loop_signal(d.loop, sigs[i], demo_on_signal, &d, NULL);
	loop_watch(d.loop, term_input_fd(d.term), LOOP_READ, demo_on_input, &d);
	loop_set_before_sleep(d.loop, demo_render, &d);
	d.timer = loop_timer_add(d.loop, DEMO_TICK_MS, demo_tick, &d);
	if (loop_run(d.loop, &e) < 0)
		rc = 1;
	loop_timer_del(d.loop, d.timer);
	loop_set_before_sleep(d.loop, NULL, NULL);
	loop_unwatch(d.loop, term_input_fd(d.term));
	for (i = 0; i < sizeof sigs / sizeof *sigs; i++)
		loop_signal(d.loop, sigs[i], NULL, NULL, NULL);
	term_free(d.term);
	grid_free(d.grid);
	keys_release(&d.keys);
	editor_release(&d.ed);
	transcript_release(&d.tv);
	highlight_set_theme(NULL);
	loop_free(d.loop);
	return rc;
}

/* test_layout: rects per terminal size and whole-screen snapshots of a scripted turn. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/view/layout.h"
#include "ui/view/server_panel.h"
#include "ui/term/term.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"
#include "testutil.h"

struct scene {
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
};

/* Feed an event to both models, as the lead's observer will. */
static void
feed(struct scene *sc, struct llm_event *ev, enum llm_kind k, const char *t)
{
	ev->kind = k;
	ev->text.p = t;
	ev->text.len = strlen(t);
	transcript_on_event(&sc->tv, ev);
	server_panel_on_event(&sc->srv, ev);
}

/* A finished tool call into the transcript. */
static void
tool(struct scene *sc, const char *id, const char *name, const char *args, const char *diff,
    int running)
{
	struct agent_call c;

	memset(&c, 0, sizeof(c));
	c.id = (char *)(uintptr_t)id;
	c.name = (char *)(uintptr_t)name;
	buf_init(&c.args, 0);
	buf_adds(&c.args, args);
	buf_init(&c.job.out, 0);
	c.job.diff = (char *)(uintptr_t)diff;
	c.t_start_ms = 500;
	c.t_end_ms = 520;
	transcript_tool_start(&sc->tv, &c);
	if (!running)
		transcript_tool_done(&sc->tv, &c);
	buf_release(&c.args);
	buf_release(&c.job.out);
}

/*
 * The screens.md turn: a task, read/edit/bash, a streamed answer, a
 * cache break notice, and a second request part-way through its prefill.
 */
static void
scene_init(struct scene *sc)
{
	struct server_panel_info info = { "qwen3.6-35b-a3b", "b7120-8e5f3b1", 65536, 2 };
	struct server_panel_slot sl[2] = {
		{ 0, 65536, 0, 12000, 12000, 100 },
		{ 1, 65536, 1, 19900, 18400, 0 },
	};
	struct llm_event ev;

	memset(sc, 0, sizeof(*sc));
	transcript_init(&sc->tv);
	server_panel_init(&sc->srv);
	snprintf(sc->st.cwd, sizeof(sc->st.cwd), "~/src/shop");
	snprintf(sc->st.branch, sizeof(sc->st.branch), "main");
	sc->st.dirty = 3;
	snprintf(sc->st.model, sizeof(sc->st.model), "qwen3.6-35b-a3b");
	snprintf(sc->st.route, sizeof(sc->st.route), "local");
	snprintf(sc->st.route_mode, sizeof(sc->st.route_mode), "auto");
	sc->st.turns = 3;
	sc->st.elapsed_s = 42;
	sc->st.busy = 1;
	server_panel_set_info(&sc->srv, "127.0.0.1:8080", &info);
	transcript_add_user(&sc->tv, "fix the off-by-one in cart_total and run the tests", 50);
	tool(sc, "c1", "read", "{\"path\":\"src/cart.c\"}", NULL, 0);
	tool(sc, "c2", "edit", "{\"path\":\"src/cart.c\"}",
	    "--- a/src/cart.c\n+++ b/src/cart.c\n@@ -41 +41 @@\n"
	    "-for (i = 0; i <= n; i++)\n+for (i = 0; i < n; i++)\n", 0);
	tool(sc, "c3", "bash", "{\"command\":\"make test\"}", NULL, 0);
	memset(&ev, 0, sizeof(ev));
	feed(sc, &ev, LLM_TEXT, "The loop read one element past the end; ");
	feed(sc, &ev, LLM_TEXT, "fixed the bound. Tests: **24/24**.");
	ev.timings.cache_n = 16000;
	ev.timings.prompt_n = 200;
	ev.timings.predicted_per_second = 71;
	ev.timings.prompt_per_second = 1500;
	feed(sc, &ev, LLM_TIMINGS, "");
	ev.usage.prompt_tokens = 16200;
	ev.usage.completion_tokens = 2200;
	feed(sc, &ev, LLM_USAGE, "");
	ev.cache.is_break = 1;
	ev.cache.reuse = 0.2;
	ev.cache.expected = 0.98;
	ev.cache.cause = "AGENTS.md was reloaded";
	ev.cache.cache_n = 4000;
	ev.cache.prompt_n = 16000;
	feed(sc, &ev, LLM_CACHE, "");
	feed(sc, &ev, LLM_DONE, "");
	server_panel_set_slots(&sc->srv, sl, 2, 1, 1000);
	ev.progress.total = 19900;
	ev.progress.cache = 16000;
	ev.progress.processed = 18400;
	ev.progress.time_ms = 1600;
	feed(sc, &ev, LLM_PROGRESS, "");
}

/* Compare the rows of g with want[] (NULL-terminated, exactly g->h rows). */
static void
check_rows(const struct grid *g, const char *const *want)
{
	char *got = tu_grid_text(g), *line = got, *nl;
	int y;

	for (y = 0; y < g->h; y++) {
		assert_non_null(want[y]);
		nl = strchr(line, '\n');
		*nl = '\0';
		assert_string_equal(line, want[y]);
		line = nl + 1;
	}
	assert_null(want[g->h]);
	free(got);
}

/* Draw the scene at w×h and compare with want. */
static void
check_screen(int w, int h, const char *const *want)
{
	struct scene sc;
	struct layout l;
	struct grid *g = grid_new(w, h);

	scene_init(&sc);
	layout_compute(&l, w, h, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	check_rows(g, want);
	grid_free(g);
	transcript_release(&sc.tv);
}

static void
test_screen_60(void **state)
{
	static const char *const want[] = {
		" hearth · shop (main ✚3) · local · ctx 28%",
		" › fix the off-by-one in cart_total and run the tests",
		"",
		" ● read src/cart.c                                   0.0s ✓",
		" ● edit src/cart.c                            +1 −1  0.0s ✓",
		"    41 - for (i = 0; i <= n; i++)",
		"    41 + for (i = 0; i < n; i++)",
		" ● bash make test                                    0.0s ✓",
		" The loop read one element past the end; fixed the bound.",
		" Tests: 24/24.",
		"",
		" → cache break: AGENTS.md was reloaded (reuse 20.0%, expec…",
		"",
		"────────────────────────────────────────────────────────────",
		"",
		" ⠋ 0.0s · slot1 PREFILL █████████░ 92% ETA 1s       20.0%⚡",
		NULL
	};

	(void)state;
	check_screen(60, 16, want);
}

static void
test_screen_100(void **state)
{
	static const char *const want[] = {
		" hearth · ~/src/shop (main ✚3) · qwen3.6-35b-a3b · local               slot 1 · ctx 18.4k/65.5k 28%",
		"┌──────────────────────────────────────────────────────────────────────────────────────────────────┐",
		"│ › fix the off-by-one in cart_total and run the tests             │ llama-server 127.0.0.1:8080   │",
		"│                                                                  │ b7120 · 2 slots · ctx 65.5k   │",
		"│ ● read src/cart.c                                         0.0s ✓ │                               │",
		"│ ● edit src/cart.c                                  +1 −1  0.0s ✓ │ slot 0  idle     12.1k        │",
		"│    41 - for (i = 0; i <= n; i++)                                 │ slot 1  PREFILL  19.9k ◀ you  │",
		"│    41 + for (i = 0; i < n; i++)                                  │                               │",
		"│ ● bash make test                                          0.0s ✓ │  █████████████████████░░   92%│",
		"│ The loop read one element past the end; fixed the bound. Tests:  │  cached 16.0k                 │",
		"│ 24/24.                                                           │  2.4k/3.9k new · 1.5k tok/s   │",
		"│                                                                  │  ETA 1.0s                     │",
		"│ → cache break: AGENTS.md was reloaded (reuse 20.0%, expected 98… │                               │",
		"│                                                                  │ last turn                     │",
		"│                                                                  │  cache 20.0% (4.0k/20.0k)     │",
		"│                                                                  │  decode 71 tok/s              │",
		"│                                                                  │  prefill 1.5k tok/s           │",
		"│                                                                  │                               │",
		"│                                                                  │ session                       │",
		"│                                                                  │  in 16.2k · out 2.2k          │",
		"│──────────────────────────────────────────────────────────────────────────────────────────────────│",
		"│                                                                                                  │",
		"└──────────────────────────────────────────────────────────────────────────────────────────────────┘",
		" ⠋ 0.0s · esc stop · ctrl-o open · ctrl-p focus · ctrl-g editor · /he… route: auto · 3 turns · 0:42",
		NULL
	};

	(void)state;
	check_screen(100, 24, want);
}

static void
test_screen_160(void **state)
{
	static const char *const want[] = {
		" hearth · ~/src/shop (main ✚3) · qwen3.6-35b-a3b · local                                                                           slot 1 · ctx 18.4k/65.5k 28%",
		"┌──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┐",
		"│ › fix the off-by-one in cart_total and run the tests                                                                         │ llama-server 127.0.0.1:8080   │",
		"│                                                                                                                              │ b7120 · 2 slots · ctx 65.5k   │",
		"│ ● read src/cart.c                                                                                                     0.0s ✓ │                               │",
		"│ ● edit src/cart.c                                                                                              +1 −1  0.0s ✓ │ slot 0  idle     12.1k        │",
		"│    41 - for (i = 0; i <= n; i++)                                                                                             │ slot 1  PREFILL  19.9k ◀ you  │",
		"│    41 + for (i = 0; i < n; i++)                                                                                              │                               │",
		"│ ● bash make test                                                                                                      0.0s ✓ │  █████████████████████░░   92%│",
		"│ The loop read one element past the end; fixed the bound. Tests: 24/24.                                                       │  cached 16.0k                 │",
		"│                                                                                                                              │  2.4k/3.9k new · 1.5k tok/s   │",
		"│ → cache break: AGENTS.md was reloaded (reuse 20.0%, expected 98.0%)                                                          │  ETA 1.0s                     │",
		"│                                                                                                                              │                               │",
		"│                                                                                                                              │ last turn                     │",
		"│                                                                                                                              │  cache 20.0% (4.0k/20.0k)     │",
		"│                                                                                                                              │  decode 71 tok/s              │",
		"│                                                                                                                              │  prefill 1.5k tok/s           │",
		"│                                                                                                                              │                               │",
		"│                                                                                                                              │ session                       │",
		"│                                                                                                                              │  in 16.2k · out 2.2k          │",
		"│──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────│",
		"│                                                                                                                                                              │",
		"└──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┘",
		" ⠋ 0.0s · esc stop · ctrl-o open · ctrl-p focus · ctrl-g editor · /help                                                            route: auto · 3 turns · 0:42",
		NULL
	};

	(void)state;
	check_screen(160, 24, want);
}

/* Assert r equals {x, y, w, h}. */
static void
rect_is(struct grid_rect r, int x, int y, int w, int h)
{
	assert_int_equal(r.x, x);
	assert_int_equal(r.y, y);
	assert_int_equal(r.w, w);
	assert_int_equal(r.h, h);
}

/* The rects of both forms, the input clamp and the minimum size. */
static void
test_rects(void **state)
{
	struct layout l;

	(void)state;
	layout_compute(&l, 60, 20, 1, 1);
	assert_false(l.too_small || l.wide);
	rect_is(l.status, 0, 0, 60, 1);
	rect_is(l.transcript, 1, 1, 58, 16);
	assert_int_equal(l.rule_y, 17);
	rect_is(l.input, 1, 18, 58, 1);
	rect_is(l.server_line, 0, 19, 60, 1);
	rect_is(l.panel, 0, 0, 0, 0);
	layout_compute(&l, 100, 30, 1, 2);
	assert_true(l.wide);
	rect_is(l.transcript, 2, 2, 64, 23);
	rect_is(l.panel, 69, 2, 30, 23);
	assert_int_equal(l.panel_rule_x, 67);
	rect_is(l.input, 2, 26, 96, 2);
	rect_is(l.help, 0, 29, 100, 1);
	layout_compute(&l, 160, 40, 0, 1);
	assert_false(l.wide);
	layout_compute(&l, 99, 40, 1, 1);
	assert_false(l.wide);
	layout_compute(&l, 60, 15, 1, 100);
	assert_int_equal(l.input.h, LAYOUT_INPUT_MAX);
	assert_true(l.transcript.h >= 3);
	layout_compute(&l, 100, 15, 1, 100);
	assert_true(l.transcript.h >= 3);
	layout_compute(&l, 60, 15, 1, -3);
	assert_int_equal(l.input.h, 1);
	layout_compute(&l, 59, 40, 1, 1);
	assert_true(l.too_small);
	layout_compute(&l, 200, 14, 1, 1);
	assert_true(l.too_small);
	layout_compute(&l, -5, -5, 1, 1);
	assert_true(l.too_small);
}

/* Below 60×15 only the notice is drawn. */
static void
test_too_small(void **state)
{
	static const char *const want[] = {
		"", "", "", "", "",
		"  window too small (40×10, need 60×15)",
		"", "", "", "",
		NULL
	};
	struct scene sc;
	struct layout l;
	struct grid *g = grid_new(40, 10), *tiny = grid_new(3, 1);

	(void)state;
	scene_init(&sc);
	layout_compute(&l, 40, 10, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	check_rows(g, want);
	assert_int_equal(grid_at(g, 5, 5)->style, THEME_WARNING);
	layout_compute(&l, 3, 1, 1, 1);
	layout_draw(tiny, &l, &sc.tv, &sc.srv, &sc.st);
	assert_string_equal(grid_at(tiny, 0, 0)->text, "w");
	grid_free(g);
	grid_free(tiny);
	transcript_release(&sc.tv);
}

/* Full-screen roles: progress cached vs new, diff add/del, ctx colour. */
static void
test_screen_roles(void **state)
{
	struct scene sc;
	struct layout l;
	struct grid *g = grid_new(100, 24);

	(void)state;
	scene_init(&sc);
	layout_compute(&l, 100, 24, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	assert_int_equal(grid_at(g, 70, 8)->style, THEME_PROGRESS_CACHED);
	assert_int_equal(grid_at(g, 89, 8)->style, THEME_PROGRESS_NEW);
	assert_int_equal(grid_at(g, 91, 8)->style, THEME_PROGRESS_EMPTY);
	assert_int_equal(grid_at(g, 8, 6)->style, THEME_DIFF_DEL);
	assert_int_equal(grid_at(g, 8, 7)->style, THEME_DIFF_ADD);
	assert_int_equal(grid_at(g, 98, 0)->style, THEME_CTX_OK);
	assert_int_equal(grid_at(g, 0, 1)->style, THEME_BORDER);
	sc.srv.ctx_used = 60000;
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	assert_int_equal(grid_at(g, 98, 0)->style, THEME_CTX_CRIT);
	grid_free(g);
	transcript_release(&sc.tv);
}

/* A resize between draws leaves exactly what a fresh grid of the new size shows. */
static void
test_resize(void **state)
{
	struct scene sc;
	struct layout l;
	struct grid *g = grid_new(120, 40), *fresh = grid_new(60, 20);

	(void)state;
	scene_init(&sc);
	layout_compute(&l, 120, 40, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	grid_resize(g, 60, 20);
	layout_compute(&l, 60, 20, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	layout_draw(fresh, &l, &sc.tv, &sc.srv, &sc.st);
	tu_grid_same(g, fresh);
	grid_resize(g, 160, 50);
	layout_compute(&l, 160, 50, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	assert_true(l.wide);
	grid_free(g);
	grid_free(fresh);
	transcript_release(&sc.tv);
}

/* Through the headless terminal: an answer full of escapes reaches no cell raw. */
static void
test_injection_screen(void **state)
{
	struct scene sc;
	struct layout l;
	struct grid *g = grid_new(100, 24);
	struct term *t = term_text_new(100, 24);
	struct buf out = BUF_INIT;
	struct llm_event ev;

	(void)state;
	scene_init(&sc);
	memset(&ev, 0, sizeof(ev));
	feed(&sc, &ev, LLM_TEXT, "x\x1b]52;c;aGk=\x07 \x1b[2J \xc2\x9b" "2J \x9b\x1b[?1049l");
	layout_compute(&l, 100, 24, 1, 1);
	layout_draw(g, &l, &sc.tv, &sc.srv, &sc.st);
	assert_int_equal(term_present(t, g), 0);
	term_text_dump(t, &out, 0);
	assert_null(memchr(out.data, 0x1b, out.len));
	assert_null(strstr(out.data, "\xc2\x9b"));
	assert_non_null(strstr(out.data, "x^[]52;c;aGk=^G ^[[2J <U+009B>2J �^[[?1049l"));
	assert_non_null(strstr(out.data, "llama-server 127.0.0.1:8080"));
	buf_release(&out);
	term_free(t);
	grid_free(g);
	transcript_release(&sc.tv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen_60),
		cmocka_unit_test(test_screen_100),
		cmocka_unit_test(test_screen_160),
		cmocka_unit_test(test_rects),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_screen_roles),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_injection_screen),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

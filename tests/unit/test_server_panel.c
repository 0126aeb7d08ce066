/* test_srvpanel: server state from events and /slots, and the panel's text and roles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/view/server_panel.h"
#include "testutil.h"
#include "ui/term/theme.h"

/* Draw s into a fresh w×h grid and compare; the grid is returned for role checks. */
static struct grid *
check(const struct view_server *s, int w, int h, const char *want)
{
	struct grid *g = grid_new(w, h);
	struct grid_rect r = { 0, 0, w, h };

	server_panel_draw(g, r, s);
	tu_grid_expect(g, want);
	return g;
}

/* Feed an event of kind k. */
static void
feed(struct view_server *s, struct llm_event *ev, enum llm_kind k)
{
	ev->kind = k;
	server_panel_on_event(s, ev);
}

/* Two slots, ours (1) part-way through a prompt with 16k cached. */
static void
script_prefill(struct view_server *s)
{
	struct server_panel_info info = { "qwen3.6-35b-a3b", "b7120-8e5f3b1", 65536, 2 };
	struct server_panel_slot sl[2] = {
		{ 0, 65536, 0, 12000, 12000, 100 },
		{ 1, 65536, 1, 19900, 18400, 0 },
	};
	struct llm_event ev;

	server_panel_init(s);
	server_panel_set_info(s, "127.0.0.1:8080", &info);
	server_panel_set_slots(s, sl, 2, 1, 1000);
	memset(&ev, 0, sizeof(ev));
	ev.progress.total = 19900;
	ev.progress.cache = 16000;
	ev.progress.processed = 18400;
	ev.progress.time_ms = 1600;
	feed(s, &ev, LLM_PROGRESS);
}

static const char prefill_want[] =
    "llama-server 127.0.0.1:8080\n"
    "b7120 · 2 slots · ctx 65.5k\n"
    "\n"
    "slot 0  idle     12.1k\n"
    "slot 1  PREFILL  19.9k ◀ you\n"
    "\n"
    " █████████████████████░░   92%\n"
    " cached 16.0k\n"
    " 2.4k/3.9k new · 1.5k tok/s\n"
    " ETA 1.0s\n"
    "\n"
    "session\n"
    " in 0 · out 0\n"
    "\n";

/* The prefill bar with its cached part, rate and ETA; slot states. */
static void
test_prefill(void **state)
{
	struct view_server s;
	struct grid *g;
	int x;

	(void)state;
	script_prefill(&s);
	g = check(&s, 30, 14, prefill_want);
	/* 16000/19900 of 23 cells cached = 18, 18400/19900 processed = 21 */
	for (x = 1; x <= 23; x++)
		assert_int_equal(grid_at(g, x, 6)->style, x <= 18 ? THEME_PROGRESS_CACHED :
		    x <= 21 ? THEME_PROGRESS_NEW : THEME_PROGRESS_EMPTY);
	assert_int_equal(grid_at(g, 8, 3)->style, THEME_SLOT_IDLE);
	assert_int_equal(grid_at(g, 8, 4)->style, THEME_SLOT_PREFILL);
	assert_int_equal(grid_at(g, 24, 4)->style, THEME_ACCENT);
	grid_free(g);
	/* the same state in a shorter panel loses rows from the bottom only */
	g = check(&s, 30, 3, "llama-server 127.0.0.1:8080\nb7120 · 2 slots · ctx 65.5k\n\n");
	grid_free(g);
}

/* Decoding: slot state, live tok/s from n_decoded deltas, then the last turn. */
static void
test_decode_and_last_turn(void **state)
{
	struct view_server s;
	struct server_panel_slot sl = { 1, 65536, 1, 16200, 16200, 100 };
	struct llm_event ev;
	struct grid *g;

	(void)state;
	script_prefill(&s);
	memset(&ev, 0, sizeof(ev));
	feed(&s, &ev, LLM_TEXT);
	assert_false(s.prefill);
	server_panel_set_slots(&s, &sl, 1, 1, 2000);
	sl.n_decoded = 171;
	server_panel_set_slots(&s, &sl, 1, 1, 3000);
	assert_int_equal(s.slots[0].state, VIEW_SLOT_DECODING);
	assert_true(s.decode_tps > 70.9 && s.decode_tps < 71.1);
	ev.timings.cache_n = 16000;
	ev.timings.prompt_n = 200;
	ev.timings.predicted_per_second = 71.2;
	ev.timings.prompt_per_second = 1523.0;
	feed(&s, &ev, LLM_TIMINGS);
	ev.usage.prompt_tokens = 16200;
	ev.usage.completion_tokens = 171;
	feed(&s, &ev, LLM_USAGE);
	feed(&s, &ev, LLM_USAGE);
	g = check(&s, 30, 14,
	    "llama-server 127.0.0.1:8080\n"
	    "b7120 · 2 slots · ctx 65.5k\n"
	    "\n"
	    "slot 1  decode   16.4k ◀ you\n"
	    "\n"
	    " decoding 71 tok/s\n"
	    "\n"
	    "last turn\n"
	    " cache 98.8% (16.0k/16.2k)\n"
	    " decode 71 tok/s\n"
	    " prefill 1.5k tok/s\n"
	    "\n"
	    "session\n"
	    " in 32.4k · out 342\n");
	grid_free(g);
	assert_int_equal(s.ctx_used, 16371);
	feed(&s, &ev, LLM_DONE);
	assert_false(s.decoding);
	assert_true(s.decode_tps == 0);
	/* a cache break is flagged in the warning role */
	memset(&ev, 0, sizeof(ev));
	ev.cache.is_break = 1;
	ev.cache.cache_n = 10;
	ev.cache.prompt_n = 90;
	ev.cache.reuse = 0.1;
	feed(&s, &ev, LLM_CACHE);
	g = grid_new(30, 10);
	server_panel_draw(g, (struct grid_rect){ 0, 0, 30, 10 }, &s);
	assert_int_equal(grid_at(g, 1, 6)->style, THEME_WARNING);
	assert_string_equal(grid_at(g, 7, 6)->text, "1");
	grid_free(g);
}

/* 501 from /slots: the panel says so and keeps the progress bar; reconnecting. */
static void
test_no_slots_and_reconnect(void **state)
{
	struct view_server s;
	struct grid *g;

	(void)state;
	script_prefill(&s);
	server_panel_no_slots(&s);
	server_panel_reconnecting(&s, 4);
	g = check(&s, 30, 9,
	    "llama-server 127.0.0.1:8080\n"
	    "b7120 · 2 slots · ctx 65.5k\n"
	    "reconnecting in 4s\n"
	    "\n"
	    "slots endpoint disabled\n"
	    "(--no-slots)\n"
	    "\n"
	    " █████████████████████░░   92%\n"
	    " cached 16.0k\n");
	assert_int_equal(grid_at(g, 0, 2)->style, THEME_WARNING);
	grid_free(g);
	server_panel_reconnecting(&s, -1);
	assert_false(s.reconnecting);
	server_panel_reconnecting(&s, 2);
	server_panel_set_slots(&s, NULL, 0, -1, 5);
	assert_false(s.reconnecting);
	assert_false(s.slots_disabled);
}

/* A server without /slots and without prompt_progress: what is known, and a spinner with the seconds waited. */
static void
test_plain_server_wait(void **state)
{
	struct view_server s;
	struct server_panel_info info = { "plain-model-7b", NULL, 32768, 0 };
	struct grid *g;
	struct llm_event ev;
	char sp[32];

	(void)state;
	server_panel_init(&s);
	server_panel_set_info(&s, "127.0.0.1:8000", &info);
	server_panel_slots_absent(&s);
	server_panel_wait(&s, 10000);
	s.now_ms = 22350; /* 12.35 s later: frame 123 % 10 = 3 */
	server_panel_spinner(&s, sp, sizeof sp);
	assert_string_equal(sp, "⠸ 12s");
	g = check(&s, 30, 8,
	    "llama-server 127.0.0.1:8000\n"
	    "0 slots · ctx 32.8k\n"
	    "\n"
	    "no /slots on this server\n"
	    "\n"
	    " ⠸ 12s waiting for the server\n"
	    "\n"
	    "session\n");
	grid_free(g);
	memset(&ev, 0, sizeof ev);
	feed(&s, &ev, LLM_TEXT);
	assert_false(s.waiting);
	assert_true(s.decoding);
	server_panel_wait(&s, 30000);
	feed(&s, &ev, LLM_DONE);
	assert_false(s.waiting);
	server_panel_set_slots(&s, NULL, 0, -1, 5);
	assert_false(s.slots_absent);
}

/* Rates, ETA, counts and the bar's rounding. */
static void
test_numbers(void **state)
{
	struct llm_progress p = { 1000, 0, 0, 0 };
	struct grid *g = grid_new(10, 1);
	double tps, eta;
	char s[16];

	(void)state;
	assert_int_equal(server_panel_rate(&p, &tps, &eta), -1);
	p.processed = 250;
	p.time_ms = 500;
	assert_int_equal(server_panel_rate(&p, &tps, &eta), 0);
	assert_true(tps == 500.0 && eta == 1.5);
	p.cache = 250;
	assert_int_equal(server_panel_rate(&p, &tps, &eta), -1);
	server_panel_count(s, sizeof(s), 950);
	assert_string_equal(s, "950");
	server_panel_count(s, sizeof(s), 1500);
	assert_string_equal(s, "1.5k");
	server_panel_count(s, sizeof(s), 65536);
	assert_string_equal(s, "65.5k");
	server_panel_count(s, sizeof(s), 1234567);
	assert_string_equal(s, "1.2M");
	/* a tiny non-zero part still gets a cell; an empty bar is all EMPTY */
	p.total = 1000;
	p.cache = 1;
	p.processed = 2;
	server_panel_bar(g, 0, 0, 10, &p);
	assert_int_equal(grid_at(g, 0, 0)->style, THEME_PROGRESS_CACHED);
	assert_int_equal(grid_at(g, 1, 0)->style, THEME_PROGRESS_EMPTY);
	p.total = 0;
	server_panel_bar(g, 0, 0, 10, &p);
	assert_int_equal(grid_at(g, 0, 0)->style, THEME_PROGRESS_EMPTY);
	assert_string_equal(grid_at(g, 0, 0)->text, "░");
	grid_free(g);
}

/* Hostile or odd server data: escapes in the build, too many slots, tiny rects. */
static void
test_bad_input(void **state)
{
	struct view_server s;
	struct server_panel_info info = { NULL, "\x1b[2Jevil", 0, 1 };
	struct server_panel_slot many[40];
	struct grid *g;
	int i;

	(void)state;
	memset(many, 0, sizeof(many));
	for (i = 0; i < 40; i++)
		many[i].id = i;
	server_panel_init(&s);
	server_panel_set_info(&s, NULL, &info);
	server_panel_set_info(&s, "host:1", NULL);
	server_panel_set_slots(&s, many, 40, 39, 0);
	assert_int_equal(s.nslots, VIEW_SLOTS_MAX);
	g = check(&s, 20, 4, "llama-server host:1\n^[[2Jevil · 1 slot …\n\nslot 0  idle       …\n");
	/* absurd numbers are clamped, not overflowed */
	{
		struct llm_event ev;
		struct server_panel_slot huge = { 0, -5, 1, LONG_MAX, LONG_MAX, LONG_MAX };

		memset(&ev, 0, sizeof(ev));
		ev.progress.total = 1;
		ev.progress.cache = LONG_MAX;
		ev.progress.processed = LONG_MAX;
		ev.progress.time_ms = 1;
		feed(&s, &ev, LLM_PROGRESS);
		ev.usage.prompt_tokens = LONG_MAX;
		ev.usage.completion_tokens = LONG_MAX;
		feed(&s, &ev, LLM_USAGE);
		feed(&s, &ev, LLM_USAGE);
		ev.timings.cache_n = LONG_MAX;
		ev.timings.prompt_n = LONG_MAX;
		ev.timings.prompt_per_second = 1e300 * 1e300;
		ev.timings.predicted_per_second = -1;
		feed(&s, &ev, LLM_TIMINGS);
		assert_true(s.last_prefill_tps == 1e9 && s.last_decode_tps == 0);
		ev.cache.reuse = 0.0 / 0.0 + ev.timings.prompt_per_second;
		feed(&s, &ev, LLM_CACHE);
		assert_true(s.last_reuse >= 0 && s.last_reuse <= 1);
		server_panel_set_slots(&s, &huge, 1, 0, 1);
		huge.n_prompt_tokens = 1;
		server_panel_set_slots(&s, &huge, 1, 0, 2);
		assert_true(s.session_in > 0 && s.ctx_used > 0 && s.slots[0].tokens > 0);
		server_panel_draw(g, (struct grid_rect){ 0, 0, 20, 4 }, &s);
		grid_free(g);
		g = grid_new(30, 20);
		server_panel_draw(g, (struct grid_rect){ 0, 0, 30, 20 }, &s);
	}
	server_panel_draw(g, (struct grid_rect){ 0, 0, 0, 4 }, &s);
	server_panel_draw(g, (struct grid_rect){ 5, 5, 3, 3 }, &s);
	grid_free(g);
}

/* Every tier of the servers setting, with what each did this session (issue 17). */
static void
test_tiers(void **state)
{
	struct view_server s;
	struct grid *g;
	char *text;

	(void)state;
	server_panel_init(&s);
	s.ntiers = 3;
	memset(s.tiers, 0, sizeof s.tiers[0] * 3);
	snprintf(s.tiers[0].name, sizeof s.tiers[0].name, "small");
	s.tiers[0].slots = 2;
	s.tiers[0].idle = 1;
	s.tiers[0].active = 1;
	s.tiers[0].requests = 4;
	s.tiers[0].tokens = 12345;
	s.tiers[0].secs = 41.2;
	s.tiers[0].tps = 30;
	snprintf(s.tiers[1].name, sizeof s.tiers[1].name, "big");
	s.tiers[1].workhorse = 1;
	s.tiers[1].down = 1;
	snprintf(s.tiers[2].name, sizeof s.tiers[2].name, "paid");
	s.tiers[2].workhorse = 1;
	s.tiers[2].requests = 1;
	s.tiers[2].tokens = 800;
	s.tiers[2].secs = 2;
	s.tiers[2].cost = 0.0125;
	g = grid_new(40, 40);
	server_panel_draw(g, (struct grid_rect){ 0, 0, 40, 40 }, &s);
	text = tu_grid_text(g);
	assert_non_null(strstr(text, "servers\n"
				    "\xe2\x96\xb6 small I 1/2 free · 30 tok/s\n"
				    "    12.3k tok · 41 s\n"
				    "  big W down\n"
				    "  paid W up\n"
				    "    800 tok · 2 s · $0.013\n"));
	free(text);
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefill),
		cmocka_unit_test(test_decode_and_last_turn),
		cmocka_unit_test(test_no_slots_and_reconnect),
		cmocka_unit_test(test_plain_server_wait),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_tiers),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

/* test_status: the top line, the folded server line and the help line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/view/server_panel.h"
#include "ui/view/status.h"
#include "testutil.h"
#include "ui/term/theme.h"

/* Row y of g, trailing spaces trimmed (caller frees). */
static char *
row(const struct grid *g, int y)
{
	struct buf b = BUF_INIT;

	grid_row_text(g, y, &b);
	return buf_detach(&b, NULL);
}

/* Assert row 0 of g reads want. */
static void
check_row(const struct grid *g, const char *want)
{
	char *got = row(g, 0);

	assert_string_equal(got, want);
	free(got);
}

/* The sketch's state: ~/src/shop on main with 3 changes, slot 1, 18.4k of 65.5k. */
static void
script(struct view_status *st, struct view_server *srv)
{
	struct server_panel_slot sl = { 1, 65536, 0, 18000, 18000, 400 };

	memset(st, 0, sizeof(*st));
	snprintf(st->cwd, sizeof(st->cwd), "~/src/shop");
	snprintf(st->branch, sizeof(st->branch), "main");
	st->dirty = 3;
	snprintf(st->model, sizeof(st->model), "qwen3.6-35b-a3b");
	snprintf(st->route, sizeof(st->route), "local");
	server_panel_init(srv);
	srv->n_ctx = 65536;
	srv->ctx_used = 18400;
	server_panel_set_slots(srv, &sl, 1, 1, 0);
}

/* The long form at 120 columns and the short one at 60. */
static void
test_top_line(void **state)
{
	struct view_status st;
	struct view_server srv;
	struct grid *g = grid_new(120, 1), *n = grid_new(60, 1);
	struct grid_rect r = { 0, 0, 120, 1 }, rn = { 0, 0, 60, 1 };

	(void)state;
	script(&st, &srv);
	status_draw(g, r, &st, &srv);
	check_row(g, " hearth · ~/src/shop (main ✚3) · qwen3.6-35b-a3b · local"
	    "                                   slot 1 · ctx 18.4k/65.5k 28%");
	assert_int_equal(grid_at(g, 3, 0)->style, THEME_STATUS_FG);
	assert_int_equal(grid_at(g, 70, 0)->style, THEME_STATUS_BG);
	assert_int_equal(grid_at(g, 95, 0)->style, THEME_STATUS_FG);
	assert_int_equal(grid_at(g, 100, 0)->style, THEME_CTX_OK);
	assert_int_equal(grid_at(g, 110, 0)->style, THEME_CTX_OK);
	status_draw(n, rn, &st, &srv);
	check_row(n, " hearth · shop (main ✚3) · local · ctx 28%");
	assert_int_equal(grid_at(n, 40, 0)->style, THEME_CTX_OK);
	/* no git, no slot, no model */
	st.branch[0] = '\0';
	st.model[0] = '\0';
	srv.nslots = 0;
	status_draw(g, r, &st, &srv);
	check_row(g, " hearth · ~/src/shop · local"
	    "                                                                        ctx 18.4k/65.5k 28%");
	grid_free(g);
	grid_free(n);
}

/* The context part changes role at 70 % and 90 %. */
static void
test_ctx_roles(void **state)
{
	struct view_status st;
	struct view_server srv;
	struct grid *g = grid_new(120, 1);
	struct grid_rect r = { 0, 0, 120, 1 };
	static const struct {
		long used;
		uint16_t role;
	} cases[] = {
		{ 45874, THEME_CTX_OK }, { 45876, THEME_CTX_WARN }, { 58981, THEME_CTX_WARN },
		{ 58983, THEME_CTX_CRIT }, { 70000, THEME_CTX_CRIT },
	};
	size_t i;

	(void)state;
	script(&st, &srv);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		srv.ctx_used = cases[i].used;
		assert_int_equal(status_ctx_role(cases[i].used, 65536), cases[i].role);
		status_draw(g, r, &st, &srv);
		assert_int_equal(grid_at(g, 118, 0)->style, cases[i].role);
		assert_int_equal(grid_at(g, 10, 0)->style, THEME_STATUS_FG);
	}
	assert_int_equal(status_ctx_role(5, 0), THEME_CTX_OK);
	grid_free(g);
}

/* A long directory is cut, the context part stays. */
static void
test_narrow_cut(void **state)
{
	struct view_status st;
	struct view_server srv;
	struct grid *g = grid_new(60, 1);
	struct grid_rect r = { 0, 0, 60, 1 };

	(void)state;
	script(&st, &srv);
	snprintf(st.cwd, sizeof(st.cwd), "~/a-very-long-directory-name-for-a-project\x1b[2J");
	status_draw(g, r, &st, &srv);
	check_row(g, " hearth · a-very-long-directory-name-for-a-proje… · ctx 28%");
	grid_free(g);
}

/* The server panel folded into one row. */
static void
test_server_line(void **state)
{
	struct view_status st;
	struct view_server srv;
	struct llm_event ev;
	struct grid *g = grid_new(60, 1);
	struct grid_rect r = { 0, 0, 60, 1 };
	int x;

	(void)state;
	script(&st, &srv);
	srv.session_in = 41200;
	srv.session_out = 3100;
	status_draw_server(g, r, &srv);
	check_row(g, " idle · in 41.2k · out 3.1k");
	srv.have_last = 1;
	srv.last_reuse = 0.987;
	memset(&ev, 0, sizeof(ev));
	ev.kind = LLM_PROGRESS;
	ev.progress.total = 3900;
	ev.progress.cache = 1000;
	ev.progress.processed = 2400;
	ev.progress.time_ms = 1000;
	server_panel_on_event(&srv, &ev);
	status_draw_server(g, r, &srv);
	check_row(g, " slot1 PREFILL ██████░░░░ 61% ETA 2s                98.7%⚡");
	for (x = 15; x < 25; x++)
		assert_int_equal(grid_at(g, x, 0)->style, x < 17 ? THEME_PROGRESS_CACHED :
		    x < 21 ? THEME_PROGRESS_NEW : THEME_PROGRESS_EMPTY);
	assert_int_equal(grid_at(g, 1, 0)->style, THEME_SLOT_PREFILL);
	ev.kind = LLM_TEXT;
	server_panel_on_event(&srv, &ev);
	srv.decode_tps = 71.4;
	status_draw_server(g, r, &srv);
	check_row(g, " slot1 decode 71 tok/s                              98.7%⚡");
	server_panel_reconnecting(&srv, 3);
	status_draw_server(g, r, &srv);
	check_row(g, " reconnecting in 3s                                 98.7%⚡");
	assert_int_equal(grid_at(g, 1, 0)->style, THEME_WARNING);
	grid_free(g);
}

/* The help line with route mode, turns and elapsed time. */
static void
test_help_line(void **state)
{
	struct view_status st;
	struct view_server srv;
	struct grid *g = grid_new(100, 1);
	struct grid_rect r = { 0, 0, 100, 1 };

	(void)state;
	script(&st, &srv);
	st.busy = 1;
	snprintf(st.route_mode, sizeof(st.route_mode), "auto");
	st.turns = 3;
	st.elapsed_s = 42;
	status_draw_help(g, r, &st);
	check_row(g, " ⠋ 0.0s · esc stop · ctrl-o open · ctrl-p focus · ctrl-g editor · /he… "
	    "route: auto · 3 turns · 0:42");
	/* the turn's time, the decode speed, scrolled back */
	st.turn_ms = 12345;
	st.tps = 38.4;
	st.spin = 2;
	st.scrolled = 1;
	status_draw_help(g, r, &st);
	check_row(g, " ⠹ 12.3s · 38 tok/s · scrolled back — End to follow · esc stop · ctrl… "
	    "route: auto · 3 turns · 0:42");
	st.focus_mode = 1;
	status_draw_help(g, r, &st);
	check_row(g, " focus: ↑↓ move · enter open/close · a all · esc leave"
	    "                 route: auto · 3 turns · 0:42");
	st.focus_mode = 0;
	st.scrolled = 0;
	st.busy = 0;
	st.route_mode[0] = '\0';
	st.turns = 1;
	st.elapsed_s = 3725;
	status_draw_help(g, r, &st);
	check_row(g, " ctrl-o open · ctrl-p focus · ctrl-g editor · /help"
	    "                                  1 turn · 62:05");
	status_draw_help(g, (struct grid_rect){ 0, 0, 0, 1 }, &st);
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_line),
		cmocka_unit_test(test_ctx_roles),
		cmocka_unit_test(test_narrow_cut),
		cmocka_unit_test(test_server_line),
		cmocka_unit_test(test_help_line),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

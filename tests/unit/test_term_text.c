/* test_term_text: the headless backend — a composed screen as a snapshot. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/term/draw.h"
#include "ui/term/term.h"
#include "testutil.h"

/* A tiny screen: a status bar, a box holding a wrapped answer, an input line. */
static void
compose(struct grid *g)
{
	struct grid_rect bar = { 0, 0, 24, 1 }, box = { 0, 1, 24, 5 }, in = { 1, 2, 22, 3 };
	static const char answer[] = "fixed \xe4\xb8\xad\xe6\x96\x87 bound\x1b[2J ok";

	grid_clear(g, THEME_TEXT);
	draw_fill(g, bar, " ", THEME_STATUS_BG);
	draw_trunc(g, 1, 0, 22, "hearth \xc2\xb7 qwen3-coder-30b-a3b \xc2\xb7 local", 38,
	    THEME_STATUS_FG);
	draw_box(g, box, THEME_BORDER);
	draw_wrap(g, in, 0, answer, sizeof answer - 1, THEME_ASSISTANT);
	draw_text(g, 0, 6, 24, "> _", 3, THEME_USER);
}

/* 22 × "─" */
#define TOP "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80"

static void
test_snapshot(void **state)
{
	struct term *t = term_text_new(24, 7);
	struct grid *g = grid_new(24, 7);
	struct buf b = BUF_INIT;
	int w, h;

	(void)state;
	term_size(t, &w, &h);
	assert_int_equal(w, 24);
	assert_int_equal(h, 7);
	compose(g);
	assert_int_equal(term_present(t, g), 0);
	term_text_dump(t, &b, 1);
	assert_string_equal(b.data,
	    " hearth \xc2\xb7 qwen3-coder-\xe2\x80\xa6\n"
	    "stttttttttttttttttttttts\n"
	    "\xe2\x94\x8c" TOP "\xe2\x94\x90\n"
	    "cccccccccccccccccccccccc\n"
	    "\xe2\x94\x82" "fixed \xe4\xb8\xad\xe6\x96\x87 bound^[[2J \xe2\x94\x82\n"
	    "chhhhhhhhhhhhhhhhhhhhhhc\n"
	    "\xe2\x94\x82" "ok                    \xe2\x94\x82\n"
	    "chh....................c\n"
	    "\xe2\x94\x82                      \xe2\x94\x82\n"
	    "c......................c\n"
	    "\xe2\x94\x94" TOP "\xe2\x94\x98\n"
	    "cccccccccccccccccccccccc\n"
	    "> _\n"
	    "ggg.....................\n");
	/* everything was blitted once; the grid is clean */
	assert_int_equal(term_text_rows_blitted(t), 7);
	assert_false(grid_dirty(g, 0) || grid_dirty(g, 6));
	grid_free(g);
	buf_release(&b);
	term_free(t);
}

static void
test_dirty_only(void **state)
{
	struct term *t = term_text_new(24, 7);
	struct grid *g = grid_new(24, 7);
	struct buf b = BUF_INIT;
	int x, y;

	(void)state;
	compose(g);
	term_present(t, g);
	/* redrawing the same frame blits nothing */
	compose(g);
	term_present(t, g);
	assert_int_equal(term_text_rows_blitted(t), 7);
	/* one changed row is one blitted row */
	draw_text(g, 0, 6, 24, "> hello", 7, THEME_USER);
	term_cursor(t, 7, 6);
	term_present(t, g);
	assert_int_equal(term_text_rows_blitted(t), 8);
	term_text_cursor_at(t, &x, &y);
	assert_int_equal(x, 7);
	assert_int_equal(y, 6);
	term_text_dump(t, &b, 0);
	assert_non_null(strstr(b.data, "\n> hello\n"));
	term_bell(t);
	assert_int_equal(term_text_bells(t), 1);
	grid_free(g);
	buf_release(&b);
	term_free(t);
}

static void
test_resize_and_input(void **state)
{
	struct term *t = term_text_new(10, 3);
	struct grid *g = grid_new(10, 3);
	struct keys k;
	struct keys_event ev;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	int w, h;

	(void)state;
	grid_put(g, 0, 0, -1, "abcdefgh\xe4\xb8\xad", 11, 0);
	term_present(t, g);
	term_text_set_size(t, 9, 2);
	term_size(t, &w, &h);
	grid_resize(g, w, h);
	term_present(t, g);
	term_text_dump(t, &b, 0);
	assert_string_equal(b.data, "abcdefgh\n\n");
	/* a grid larger than the screen is clipped, never overflows it */
	grid_resize(g, 20, 5);
	grid_put(g, 0, 4, -1, "zzz", 3, 0);
	assert_int_equal(term_present(t, g), 0);
	/* typed bytes come back through the input fd as key events */
	keys_init(&k);
	term_text_type(t, "x\x1b[A\x1b[200~p\rq\x1b[201~", 19);
	assert_true(term_input_fd(t) >= 0);
	assert_int_equal(term_read_keys(t, &k, &e), 0);
	assert_int_equal(keys_next(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_CHAR);
	assert_int_equal(keys_next(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_UP);
	assert_int_equal(keys_next(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_PASTE);
	assert_int_equal(ev.paste_len, 3);
	assert_int_equal(keys_next(&k, &ev), 0);
	/* nothing more to read is not an error */
	assert_int_equal(term_read_keys(t, &k, &e), 0);
	assert_int_equal(term_suspend(t, &e), 0);
	assert_int_equal(term_resume(t, &e), 0);
	keys_release(&k);
	grid_free(g);
	buf_release(&b);
	term_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_dirty_only),
		cmocka_unit_test(test_resize_and_input),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

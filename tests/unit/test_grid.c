/* test_grid: cells, wide characters, combining marks, clipping, resize, dirty rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/term/grid.h"
#include "testutil.h"

/* Row y as text (padding cells contribute nothing), trailing spaces kept. */
static void
row_text(const struct grid *g, int y, struct buf *b)
{
	int x;

	buf_reset(b);
	for (x = 0; x < g->w; x++)
		buf_adds(b, grid_at(g, x, y)->text);
}

/* Check every row's text and the wide-character invariants. */
static void
check_rows(const struct grid *g, const char *const *want)
{
	struct buf b = BUF_INIT;
	const struct grid_cell *c;
	int x, y;

	for (y = 0; y < g->h; y++) {
		row_text(g, y, &b);
		assert_string_equal(b.data, want[y]);
		for (x = 0; x < g->w; x++) {
			c = grid_at(g, x, y);
			if (c->width == 2) {
				assert_true(x + 1 < g->w);
				assert_int_equal(grid_at(g, x + 1, y)->width, 0);
			}
			if (c->width == 0) {
				assert_true(x > 0);
				assert_int_equal(grid_at(g, x - 1, y)->width, 2);
			}
			assert_null(memchr(c->text, 0x1b, strlen(c->text)));
		}
	}
	buf_release(&b);
}

static void
test_ascii(void **state)
{
	struct grid *g = grid_new(10, 2);
	const char *want[] = { "hello     ", "          " };

	(void)state;
	assert_int_equal(grid_put(g, 0, 0, -1, "hello", 5, 3), 5);
	check_rows(g, want);
	assert_int_equal(grid_at(g, 0, 0)->style, 3);
	assert_int_equal(grid_at(g, 0, 0)->width, 1);
	assert_null(grid_at(g, 10, 0));
	assert_null(grid_at(g, -1, 0));
	grid_free(g);
}

static void
test_clip(void **state)
{
	struct grid *g = grid_new(6, 1);
	const char *want[] = { "abcdef" };
	const char *want2[] = { "xy12  " };

	(void)state;
	assert_int_equal(grid_put(g, 2, 0, -1, "cdefghij", 8, 0), 6);
	grid_put(g, 0, 0, -1, "ab", 2, 0);
	check_rows(g, want);
	/* maxw limits too; off-grid writes are ignored */
	grid_clear(g, 0);
	grid_put(g, 0, 0, 2, "xyz", 3, 0);
	grid_put(g, 2, 0, 2, "1234", 4, 0);
	grid_put(g, 0, 5, -1, "nope", 4, 0);
	grid_put(g, -3, 0, -1, "nope", 4, 0);
	check_rows(g, want2);
	grid_free(g);
}

static void
test_wide(void **state)
{
	struct grid *g = grid_new(7, 3);
	(void)state;
	/* 中文 = 2 wide chars */
	assert_int_equal(grid_put(g, 0, 0, -1, "\xe4\xb8\xad\xe6\x96\x87" "abc", 9, 0), 7);
	assert_int_equal(grid_at(g, 0, 0)->width, 2);
	assert_int_equal(grid_at(g, 1, 0)->width, 0);
	assert_string_equal(grid_at(g, 1, 0)->text, "");
	/* a wide char that would straddle the edge becomes a space */
	assert_int_equal(grid_put(g, 2, 1, -1, "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad", 9, 0), 7);
	/* emoji is wide too */
	grid_put(g, 5, 2, -1, "\xf0\x9f\x98\x80", 4, 0);
	{
		const char *w2[] = { "\xe4\xb8\xad\xe6\x96\x87" "abc",
			"  \xe4\xb8\xad\xe6\x96\x87 ", "     \xf0\x9f\x98\x80" };
		check_rows(g, w2);
	}
	/* overwriting half of a wide char blanks the other half */
	grid_put(g, 1, 0, -1, "x", 1, 0);
	grid_put(g, 2, 0, -1, "y", 1, 0);
	{
		const char *w3[] = { " xy abc", "  \xe4\xb8\xad\xe6\x96\x87 ",
			"     \xf0\x9f\x98\x80" };
		check_rows(g, w3);
	}
	grid_free(g);
}

static void
test_combining(void **state)
{
	struct grid *g = grid_new(6, 1);
	/* e + U+0301, then a wide char + U+0301 */
	const char *want[] = { "e\xcc\x81" "\xe4\xb8\xad\xcc\x81" "a  " };

	(void)state;
	assert_int_equal(grid_put(g, 0, 0, -1, "e\xcc\x81\xe4\xb8\xad\xcc\x81" "a", 9, 0), 4);
	check_rows(g, want);
	assert_int_equal(grid_at(g, 0, 0)->width, 1);
	/* a mark at column 0 has nothing to attach to and is dropped */
	grid_put(g, 0, 0, -1, "\xcc\x81", 2, 0);
	assert_string_equal(grid_at(g, 0, 0)->text, "e\xcc\x81");
	/* marks beyond the inline buffer are dropped, never overflow */
	grid_clear(g, 0);
	{
		struct buf b = BUF_INIT;
		int i;

		buf_adds(&b, "o");
		for (i = 0; i < 20; i++)
			buf_adds(&b, "\xcc\x81");
		grid_put(g, 0, 0, -1, b.data, b.len, 0);
		assert_true(strlen(grid_at(g, 0, 0)->text) <= GRID_CELL_BYTES);
		assert_int_equal(grid_at(g, 1, 0)->text[0], ' ');
		buf_release(&b);
	}
	grid_free(g);
}

static void
test_unsafe_bytes(void **state)
{
	struct grid *g = grid_new(8, 1);
	const char *want[] = { "\xef\xbf\xbd[2J\xef\xbf\xbd\xef\xbf\xbd" "a " };

	(void)state;
	/* grid_put never stores ESC, C1 or invalid bytes (draw shows them visibly) */
	grid_put(g, 0, 0, -1, "\x1b[2J\xc2\x9b\xff" "a", 8, 0);
	check_rows(g, want);
	assert_int_equal(grid_put_char(g, 0, 0, "\x07", 1, 1, 0), 1);
	assert_string_equal(grid_at(g, 0, 0)->text, "\xef\xbf\xbd");
	/* a bidi override never reaches a cell, alone or as a "mark" */
	grid_put_char(g, 1, 0, "\xe2\x80\xae", 3, 1, 0);
	assert_string_equal(grid_at(g, 1, 0)->text, "\xef\xbf\xbd");
	grid_put(g, 2, 0, -1, "x\xe2\x81\xa6", 4, 0);
	assert_string_equal(grid_at(g, 2, 0)->text, "x");
	grid_free(g);
}

static void
test_resize(void **state)
{
	struct grid *g = grid_new(6, 2);
	const char *want[] = { "ab ", "cd ", "   " };
	const char *want2[] = { "ab", "cd" };

	(void)state;
	grid_put(g, 0, 0, -1, "ab\xe4\xb8\xad", 5, 0);
	grid_put(g, 0, 1, -1, "cd", 2, 0);
	/* the wide char at columns 2-3 is cut by the new edge at 3 */
	grid_resize(g, 3, 3);
	check_rows(g, want);
	assert_true(grid_dirty(g, 0) && grid_dirty(g, 2));
	grid_resize(g, 2, 2);
	check_rows(g, want2);
	grid_resize(g, 0, 0);
	assert_int_equal(grid_put(g, 0, 0, -1, "x", 1, 0), 0);
	grid_resize(g, 4, 1);
	{
		const char *w3[] = { "    " };
		check_rows(g, w3);
	}
	grid_free(g);
}

static void
test_dirty(void **state)
{
	struct grid *g = grid_new(5, 3);
	struct grid_rect r = { 1, 1, 2, 1 };

	(void)state;
	assert_true(grid_dirty(g, 0));
	grid_clean(g, -1);
	assert_false(grid_dirty(g, 0) || grid_dirty(g, 1) || grid_dirty(g, 2));
	/* writing what is already there leaves the row clean */
	grid_put(g, 0, 1, -1, "     ", 5, 0);
	grid_clear(g, 0);
	assert_false(grid_dirty(g, 1));
	grid_put(g, 0, 1, -1, "abc", 3, 0);
	assert_true(grid_dirty(g, 1));
	assert_false(grid_dirty(g, 0) || grid_dirty(g, 2));
	grid_clean(g, 1);
	grid_put(g, 0, 1, -1, "abc", 3, 0);
	assert_false(grid_dirty(g, 1));
	grid_put(g, 0, 1, -1, "abc", 3, 2); /* a style change is a change */
	assert_true(grid_dirty(g, 1));
	grid_clean(g, -1);
	grid_clear_rect(g, r, 2);
	assert_true(grid_dirty(g, 1));
	assert_string_equal(grid_at(g, 1, 1)->text, " ");
	assert_string_equal(grid_at(g, 0, 1)->text, "a");
	assert_false(grid_dirty(g, -1) || grid_dirty(g, 3));
	grid_touch(g);
	assert_true(grid_dirty(g, 2));
	grid_free(g);
}

static void
test_redraw_same(void **state)
{
	struct grid *g = grid_new(8, 2);

	(void)state;
	grid_put(g, 0, 0, -1, "a\xe4\xb8\xad", 4, 1);
	grid_clean(g, -1);
	/* a frame cleared and drawn again identically is not dirty */
	grid_clear(g, 0);
	grid_put(g, 0, 0, -1, "a\xe4\xb8\xad", 4, 1);
	assert_false(grid_dirty(g, 0) || grid_dirty(g, 1));
	/* changed and changed back before the next present: not dirty */
	grid_put(g, 0, 1, -1, "x", 1, 0);
	grid_put(g, 0, 1, -1, " ", 1, 0);
	assert_false(grid_dirty(g, 1));
	grid_put(g, 1, 0, -1, "b", 1, 1);
	assert_true(grid_dirty(g, 0));
	grid_clean(g, 0);
	assert_false(grid_dirty(g, 0));
	grid_touch(g);
	assert_true(grid_dirty(g, 0) && grid_dirty(g, 1));
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_combining),
		cmocka_unit_test(test_unsafe_bytes),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_dirty),
		cmocka_unit_test(test_redraw_same),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

/* test_draw: sanitising, word wrap, truncation and boxes into the grid. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/term/draw.h"
#include "testutil.h"

/* Row y of g as text, trailing spaces trimmed. */
static void
row_text(const struct grid *g, int y, struct buf *b)
{
	int x;

	buf_reset(b);
	for (x = 0; x < g->w; x++)
		buf_adds(b, grid_at(g, x, y)->text);
	buf_rtrim(b);
}

/* Every row of g joined with '\n' (trailing spaces trimmed). */
static void
grid_text(const struct grid *g, struct buf *out)
{
	struct buf row = BUF_INIT;
	int y;

	buf_reset(out);
	for (y = 0; y < g->h; y++) {
		row_text(g, y, &row);
		buf_add(out, row.data, row.len);
		buf_addch(out, '\n');
	}
	buf_release(&row);
}

/* Wrap s into a fresh grid of width w and compare the rows. */
static void
check_wrap(int w, const char *s, const char *want, int want_rows)
{
	struct grid *g = grid_new(w, 8);
	struct grid_rect r = { 0, 0, w, 8 };
	struct buf b = BUF_INIT;

	assert_int_equal(draw_wrap(g, r, 0, s, strlen(s), 0), want_rows);
	assert_int_equal(draw_measure(w, s, strlen(s)), want_rows);
	grid_text(g, &b);
	while (b.len > 0 && b.data[b.len - 1] == '\n')
		buf_setlen(&b, b.len - 1);
	assert_string_equal(b.data, want);
	buf_release(&b);
	grid_free(g);
}

static void
test_wrap_small(void **state)
{
	(void)state;
	check_wrap(10, "hello world foo", "hello\nworld foo", 2);
	check_wrap(5, "abcdefghijkl", "abcde\nfghij\nkl", 3);
	check_wrap(5, "ab\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", "ab\xe4\xb8\xad\n\xe6\x96\x87\xe5\xad\x97", 2);
	check_wrap(10, "a\n\nb", "a\n\nb", 3);
	check_wrap(10, "", "", 1);
	check_wrap(12, "a\tb", "a       b", 1);
	check_wrap(10, "  indented text", "  indented\ntext", 2);
	check_wrap(6, "aaa    bbb", "aaa\nbbb", 2);
	check_wrap(10, "crlf\r\nline", "crlf\nline", 2);
	/* a combining mark stays with its letter across the break */
	check_wrap(4, "abce\xcc\x81" "f", "abce\xcc\x81\nf", 2);
	/* width 1 still terminates and never splits a wide char */
	check_wrap(1, "a\xe4\xb8\xad", "a\n\xef\xbf\xbd", 2);
}

static void
test_wrap_skip(void **state)
{
	struct grid *g = grid_new(5, 2);
	struct grid_rect r = { 0, 0, 5, 2 };
	struct buf b = BUF_INIT;

	(void)state;
	/* rows: "one", "two", "three"; show rows 1..2 */
	assert_int_equal(draw_wrap(g, r, 1, "one two three", 13, 0), 3);
	grid_text(g, &b);
	assert_string_equal(b.data, "two\nthree\n");
	/* a rect inside the grid: nothing drawn outside it */
	grid_clear(g, 0);
	r.x = 1;
	r.w = 3;
	r.h = 1;
	assert_int_equal(draw_wrap(g, r, 0, "abcdef", 6, 0), 2);
	grid_text(g, &b);
	assert_string_equal(b.data, " abc\n\n");
	buf_release(&b);
	grid_free(g);
}

/* Words of s separated by spaces/newlines, as a list in b (NUL-separated). */
static size_t
split_words(const char *s, char words[][64], size_t max)
{
	size_t n = 0, k;

	while (*s && n < max) {
		s += strspn(s, " \n");
		k = strcspn(s, " \n");
		if (k == 0)
			break;
		memcpy(words[n], s, k < 63 ? k : 63);
		words[n++][k < 63 ? k : 63] = '\0';
		s += k;
	}
	return n;
}

/* Wrap a long mixed-width text at w and check the greedy-wrap properties. */
static void
check_wrap_props(int w, const char *text)
{
	static char in[256][64], out[256][64];
	struct grid *g = grid_new(w, 60);
	struct grid_rect r = { 0, 0, w, 60 };
	struct buf all = BUF_INIT, row = BUF_INIT, next = BUF_INIT;
	size_t nin, nout, i;
	int rows, y;

	rows = draw_wrap(g, r, 0, text, strlen(text), 0);
	assert_int_equal(rows, draw_measure(w, text, strlen(text)));
	assert_true(rows > 1 && rows < 60);
	for (y = 0; y < rows; y++) {
		row_text(g, y, &row);
		assert_true(draw_width(row.data, row.len) <= w);
		assert_true(row.len > 0);
		if (y + 1 < rows) {
			/* greedy: the next row's first word did not fit here */
			row_text(g, y + 1, &next);
			next.data[strcspn(next.data, " ")] = '\0';
			assert_true(draw_width(row.data, row.len) + 1 +
			    draw_width(next.data, strlen(next.data)) > w);
		}
		buf_add(&all, row.data, row.len);
		buf_addch(&all, ' ');
	}
	for (y = rows; y < 60; y++) {
		row_text(g, y, &row);
		assert_int_equal(row.len, 0);
	}
	/* nothing lost: the words are the same (no word here is longer than w) */
	nin = split_words(text, in, 256);
	nout = split_words(all.data, out, 256);
	assert_int_equal(nin, nout);
	for (i = 0; i < nin; i++)
		assert_string_equal(in[i], out[i]);
	buf_release(&all);
	buf_release(&row);
	buf_release(&next);
	grid_free(g);
}

static void
test_wrap_widths(void **state)
{
	const char *para = "The model read src/cart.c and found the loop bound "
	    "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\xe7\xac\xa6 off by one; "
	    "caf\xc3\xa9 na\xc3\xafve e\xcc\x81t\xc3\xa9 \xf0\x9f\xa6\x8a fox "
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe6\x96\x87\xe7\xab\xa0 "
	    "tests 24/24 passed \xf0\x9f\x98\x80 then cache reuse 98.7% on slot 1. ";
	struct buf text = BUF_INIT;
	int i;

	(void)state;
	for (i = 0; i < 12; i++)
		buf_adds(&text, para);
	check_wrap_props(60, text.data);
	check_wrap_props(100, text.data);
	check_wrap_props(160, text.data);
	/* a word longer than the width is broken, and measuring agrees */
	buf_reset(&text);
	for (i = 0; i < 70; i++)
		buf_adds(&text, "\xe4\xb8\xad");
	assert_int_equal(draw_measure(60, text.data, text.len), 3);  /* 140 cols / 60 */
	assert_int_equal(draw_measure(100, text.data, text.len), 2);
	assert_int_equal(draw_measure(160, text.data, text.len), 1);
	assert_int_equal(draw_measure(59, text.data, text.len), 3);  /* 29 per row */
	buf_release(&text);
}

static void
test_injection(void **state)
{
	const char answer[] = "Done. \x1b]52;c;SGVsbG8=\x07 and \x1b[2J\x1b[H then "
	    "\xc2\x9b" "31m red \xc2\x85 bad \xff end\x7f \xe2\x80\xae" "evil";
	struct grid *g = grid_new(100, 3);
	struct grid_rect r = { 0, 0, 100, 3 };
	struct buf b = BUF_INIT;
	int x, y;

	(void)state;
	assert_int_equal(draw_wrap(g, r, 0, answer, sizeof answer - 1, 1), 1);
	grid_text(g, &b);
	assert_string_equal(b.data, "Done. ^[]52;c;SGVsbG8=^G and ^[[2J^[[H then <U+009B>31m "
	    "red <U+0085> bad \xef\xbf\xbd end^? <U+202E>evil\n\n\n");
	for (y = 0; y < g->h; y++) {
		for (x = 0; x < g->w; x++) {
			const char *t = grid_at(g, x, y)->text;

			assert_null(strchr(t, 0x1b));
			assert_null(strchr(t, 0x07));
			assert_null(strstr(t, "\xc2\x9b"));
		}
	}
	/* the one-row functions sanitise the same way */
	grid_clear(g, 0);
	draw_text(g, 0, 0, 100, "a\nb\x1b[0m", 7, 0);
	draw_trunc(g, 0, 1, 100, "\x1b]0;title\x07", 10, 0);
	grid_text(g, &b);
	assert_string_equal(b.data, "a^Jb^[[0m\n^[]0;title^G\n\n");
	assert_int_equal(draw_width("\x1b[2J", 4), 5);
	buf_release(&b);
	grid_free(g);
}

static void
test_trunc(void **state)
{
	struct grid *g = grid_new(12, 4);
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(draw_trunc(g, 0, 0, 8, "hello world", 11, 0), 8);
	assert_int_equal(draw_trunc(g, 0, 1, 5, "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad", 9, 0), 5);
	assert_int_equal(draw_trunc(g, 0, 2, 4, "\xe4\xb8\xad\xe6\x96\x87\xe4\xb8\xad", 9, 0), 4);
	assert_int_equal(draw_trunc(g, 0, 3, 12, "short", 5, 0), 5);
	assert_int_equal(draw_trunc(g, 0, 3, 0, "x", 1, 0), 0);
	grid_text(g, &b);
	assert_string_equal(b.data, "hello w\xe2\x80\xa6\n\xe4\xb8\xad\xe6\x96\x87\xe2\x80\xa6\n"
	    "\xe4\xb8\xad \xe2\x80\xa6\nshort\n");
	/* tabs in one row expand from the start column; a tab is cut cleanly */
	assert_int_equal(draw_width("a\tb", 3), 9);
	assert_int_equal(draw_text(g, 0, 0, 4, "a\tb", 3, 0), 4);
	buf_release(&b);
	grid_free(g);
}

static void
test_boxes(void **state)
{
	struct grid *g = grid_new(6, 4);
	struct grid_rect r = { 0, 0, 4, 3 };
	struct grid_rect f = { 4, 0, 2, 4 };
	struct buf b = BUF_INIT;

	(void)state;
	draw_box(g, r, 4);
	draw_fill(g, f, "\xe2\x96\x91", 5);
	draw_hline(g, 0, 3, 3, 4);
	grid_text(g, &b);
	assert_string_equal(b.data,
	    "\xe2\x94\x8c\xe2\x94\x80\xe2\x94\x80\xe2\x94\x90\xe2\x96\x91\xe2\x96\x91\n"
	    "\xe2\x94\x82  \xe2\x94\x82\xe2\x96\x91\xe2\x96\x91\n"
	    "\xe2\x94\x94\xe2\x94\x80\xe2\x94\x80\xe2\x94\x98\xe2\x96\x91\xe2\x96\x91\n"
	    "\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80 \xe2\x96\x91\xe2\x96\x91\n");
	assert_int_equal(grid_at(g, 0, 0)->style, 4);
	assert_int_equal(grid_at(g, 5, 3)->style, 5);
	draw_set_ascii(1);
	grid_clear(g, 0);
	draw_box(g, r, 4);
	draw_trunc(g, 0, 3, 3, "abcdef", 6, 0);
	grid_text(g, &b);
	assert_string_equal(b.data, "+--+\n|  |\n+--+\nab~\n");
	draw_set_ascii(0);
	/* boxes partly off the grid are clipped, tiny ones ignored */
	r.x = 4;
	r.y = 2;
	draw_box(g, r, 4);
	r.w = 1;
	draw_box(g, r, 4);
	buf_release(&b);
	grid_free(g);
}

static void
test_random_bytes(void **state)
{
	struct grid *g = grid_new(37, 20);
	struct grid_rect r = { 1, 1, 35, 18 };
	unsigned seed = 7, i, j;
	char text[512];
	int x, y;

	(void)state;
	for (i = 0; i < 300; i++) {
		for (j = 0; j < sizeof text; j++) {
			seed = seed * 1103515245u + 12345u;
			text[j] = (char)(seed >> 16);
		}
		grid_clear(g, 0);
		assert_int_equal(draw_wrap(g, r, (int)(i % 3), text, sizeof text, 1),
		    draw_measure(r.w, text, sizeof text));
		draw_trunc(g, 0, 19, 37, text, sizeof text, 2);
		for (y = 0; y < g->h; y++) {
			for (x = 0; x < g->w; x++) {
				const struct grid_cell *c = grid_at(g, x, y);

				size_t k, len = strlen(c->text);
				uint32_t cp;

				for (j = 0; j < len; j += (unsigned)k) {
					k = grid_utf8_decode(c->text + j, len - j, &cp);
					assert_true(k > 0);
					assert_true(cp >= 0x20 && !(cp >= 0x7f && cp < 0xa0));
				}

				if (c->width == 2)
					assert_int_equal(grid_at(g, x + 1, y)->width, 0);
			}
		}
	}
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_small),
		cmocka_unit_test(test_wrap_skip),
		cmocka_unit_test(test_wrap_widths),
		cmocka_unit_test(test_injection),
		cmocka_unit_test(test_trunc),
		cmocka_unit_test(test_boxes),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

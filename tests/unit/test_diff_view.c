/*
 * test_diffview: the full-screen diff viewer — snapshots at 100 and 160
 * columns, keys, bad input.  Each test gets a struct fx from the cmocka
 * setup fx_new (a closed viewer and the session diff of two_files()),
 * freed by fx_free with whatever the test left open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/diff.h"
#include "ui/view/diff_view.h"
#include "testutil.h"
#include "ui/term/theme.h"

static const char old_c[] =
	"#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs(\"hi\");\n\treturn 0;\n}\n"
	"/* a */\n/* b */\n/* c */\n/* d */\n/* e */\nint x = 1;\n";
static const char new_c[] =
	"#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs(\"hello, world\");\n\treturn 0;\n}\n"
	"/* a */\n/* b */\n/* c */\n/* d */\n/* e */\nint x = 2;\nint y = 3;\n";

struct fx {
	struct diff_view dv;
	struct buf t;   /* two_files() */
	struct grid *g; /* check()'s last grid */
};

/* Two files: hello.c (two hunks) and a new NOTES.md, as the session diff writes them. */
static void
two_files(struct buf *t)
{
	diff_unified("hello.c", old_c, strlen(old_c), new_c, strlen(new_c), t, NULL, NULL);
	diff_unified("NOTES.md", "", 0, "one\ntwo\n", 8, t, NULL, NULL);
}

/* cmocka setup: a struct fx. */
static int
fx_new(void **state)
{
	struct fx *x = calloc(1, sizeof *x);

	two_files(&x->t);
	*state = x;
	return 0;
}

/* cmocka teardown: free the struct fx and all it holds. */
static int
fx_free(void **state)
{
	struct fx *x = *state;

	grid_free(x->g);
	diff_view_close(&x->dv);
	buf_release(&x->t);
	free(x);
	return 0;
}

/* Open x's viewer on the two files under title. */
static void
open_two(struct fx *x, const char *title)
{
	assert_int_equal(diff_view_open(&x->dv, title, x->t.data, x->t.len), 0);
}

/* Draw x's viewer at w×h into x->g and compare the rows (trailing blanks trimmed) with want. */
static struct grid *
check(struct fx *x, int w, int h, const char *want)
{
	grid_free(x->g);
	x->g = grid_new(w, h);
	diff_view_layout(&x->dv, w);
	diff_view_draw(x->g, (struct grid_rect){ 0, 0, w, h }, &x->dv);
	tu_grid_expect(x->g, want);
	return x->g;
}

/* The style of the first cell of row y whose text is s (-1 when none). */
static int
style_of(const struct grid *g, int y, const char *s)
{
	int x;

	for (x = 0; x < g->w; x++)
		if (!strcmp(grid_at(g, x, y)->text, s))
			return grid_at(g, x, y)->style;
	return -1;
}

/* The diff role under that cell: its own, or a syntax mix's background (THEME_MIX). */
static int
role_of(const struct grid *g, int y, const char *s)
{
	int st = style_of(g, y, s);

	return st < THEME_ROLE_COUNT ? st : THEME_MIX_BG(st);
}

/* 100 columns: unified, both line numbers, the changed word highlighted. */
static void
test_unified_100(void **state)
{
	struct fx *x = *state;
	struct grid *g;

	open_two(x, "session");
	g = check(x, 100, 12,
	    " diff · file 1/2 · hunk 1/3 · +5 −2                                   n/p hunk · ]/[ file · q close\n"
	    "▌ hello.c  (+3 −2)\n"
	    "@@ -3,7 +3,7 @@\n"
	    "   3    3   int\n"
	    "   4    4   main(void)\n"
	    "   5    5   {\n"
	    "   6      -     puts(\"hi\");\n"
	    "        6 +     puts(\"hello, world\");\n"
	    "   7    7       return 0;\n"
	    "   8    8   }\n"
	    "   9    9   /* a */\n"
	    "@@ -11,4 +11,5 @@\n");
	assert_int_equal(role_of(g, 6, "h"), THEME_DIFF_DEL_WORD);
	assert_int_equal(role_of(g, 6, "p"), THEME_DIFF_DEL);
	assert_int_equal(role_of(g, 7, "w"), THEME_DIFF_ADD_WORD);
	assert_int_equal(role_of(g, 7, "+"), THEME_DIFF_ADD);
	assert_int_equal(role_of(g, 3, "3"), THEME_LINE_NO);
	/* syntax colours (hello.c is C) over the diff roles */
	assert_int_equal(style_of(g, 6, "p"), THEME_MIX(THEME_FUNCTION, THEME_DIFF_DEL));
	assert_int_equal(style_of(g, 7, "w"), THEME_MIX(THEME_STRING, THEME_DIFF_ADD_WORD));
	assert_int_equal(style_of(g, 3, "i"), THEME_TYPE);
	assert_int_equal(style_of(g, 10, "*"), THEME_COMMENT);
}

/* Press the character key cp (0: Esc) on x's viewer, w columns by 10 rows; diff_view_key's result. */
static int
press(struct fx *x, int cp, int w)
{
	struct keys_event ev = { .kind = cp ? KEYS_CHAR : KEYS_ESC, .cp = (uint32_t)cp };

	return diff_view_key(&x->dv, &ev, w, 10);
}

/* 160 columns: side by side, old on the left, new on the right, runs paired. */
static void
test_side_by_side_160(void **state)
{
	struct fx *x = *state;
	struct keys_event n = { .kind = KEYS_CHAR, .cp = 'n' };
	struct grid *g;

	open_two(x, "session");
	assert_int_equal(diff_view_key(&x->dv, &n, 160, 12), 1);
	g = check(x, 160, 12,
	    " diff · file 1/2 · hunk 1/3 · +5 −2                                                                                               n/p hunk · ]/[ file · q close\n"
	    "@@ -3,7 +3,7 @@\n"
	    "   3   int                                                                     │   3   int\n"
	    "   4   main(void)                                                              │   4   main(void)\n"
	    "   5   {                                                                       │   5   {\n"
	    "   6 -     puts(\"hi\");                                                         │   6 +     puts(\"hello, world\");\n"
	    "   7       return 0;                                                           │   7       return 0;\n"
	    "   8   }                                                                       │   8   }\n"
	    "   9   /* a */                                                                 │   9   /* a */\n"
	    "@@ -11,4 +11,5 @@\n"
	    "  11   /* c */                                                                 │  11   /* c */\n"
	    "  12   /* d */                                                                 │  12   /* d */\n");
	assert_int_equal(role_of(g, 5, "h"), THEME_DIFF_DEL_WORD);
	assert_int_equal(role_of(g, 5, "w"), THEME_DIFF_ADD_WORD);
	diff_view_key(&x->dv, &n, 160, 12);
	check(x, 160, 8,
	    " diff · file 1/2 · hunk 2/3 · +5 −2                                                                                               n/p hunk · ]/[ file · q close\n"
	    "@@ -11,4 +11,5 @@\n"
	    "  11   /* c */                                                                 │  11   /* c */\n"
	    "  12   /* d */                                                                 │  12   /* d */\n"
	    "  13   /* e */                                                                 │  13   /* e */\n"
	    "  14 - int x = 1;                                                              │  14 + int x = 2;\n"
	    "                                                                               │  15 + int y = 3;\n"
	    "▌ NOTES.md  (+2 −0)\n");
}

/* 60 columns: unified, the key hints dropped from the title, long lines cut at the edge. */
static void
test_narrow_60(void **state)
{
	struct fx *x = *state;
	static const char a[] = "short\nthe quick brown fox jumps over the lazy dog and keeps on running far away\n";
	static const char b[] = "short\nthe quick brown cat jumps over the lazy dog and keeps on running far away\n";
	struct grid *g;

	buf_reset(&x->t);
	diff_unified("a.txt", a, strlen(a), b, strlen(b), &x->t, NULL, NULL);
	assert_int_equal(diff_view_open(&x->dv, "x", x->t.data, x->t.len), 0);
	g = check(x, 60, 7,
	    " diff · file 1/1 · hunk 1/1 · +1 −1\n"
	    "▌ a.txt  (+1 −1)\n"
	    "@@ -1,2 +1,2 @@\n"
	    "   1    1   short\n"
	    "   2      - the quick brown fox jumps over the lazy dog and\n"
	    "        2 + the quick brown cat jumps over the lazy dog and\n"
	    "\n");
	assert_int_equal(role_of(g, 4, "f"), THEME_DIFF_DEL_WORD);
	assert_int_equal(role_of(g, 5, "a"), THEME_DIFF_ADD_WORD);
}

/* Assert the file and (unless -1) the hunk x's viewer is in. */
static void
at(struct fx *x, int file, int hunk)
{
	int f, h;

	diff_view_where(&x->dv, &f, &h);
	assert_int_equal(f, file);
	if (hunk >= 0)
		assert_int_equal(h, hunk);
}

/* n/p hunks, ]/[ files, scrolling stops at the last page, q and Esc close. */
static void
test_keys(void **state)
{
	struct fx *x = *state;
	struct diff_view *dv = &x->dv;

	open_two(x, "s");
	diff_view_layout(dv, 100);
	at(x, 0, 0);
	press(x, ']', 100);
	at(x, 1, 2);
	press(x, ']', 100); /* no further file: stays */
	at(x, 1, -1);
	press(x, 'p', 100);
	at(x, 0, 1);
	assert_int_equal(dv->rows[dv->top].kind, DIFF_VIEW_HUNK);
	press(x, '[', 100);
	assert_int_equal(dv->top, 0);
	press(x, 'G', 100);
	assert_int_equal(dv->top, (long)dv->nrows - 9);
	press(x, 'j', 100);
	assert_int_equal(dv->top, (long)dv->nrows - 9);
	assert_int_equal(press(x, 'x', 100), 0);
	assert_int_equal(press(x, 'q', 100), 1);
	assert_int_equal(dv->open, 0);
	open_two(x, "s");
	press(x, 0, 100);
	assert_int_equal(dv->open, 0);
	assert_int_equal(press(x, 0, 100), 0);
}

/* Assert x's viewer shows path (unless NULL) at line. */
static void
targets(struct fx *x, const char *want_path, long want_line)
{
	const char *path;
	long line;

	assert_int_equal(diff_view_target(&x->dv, &path, &line), 0);
	if (want_path)
		assert_string_equal(path, want_path);
	assert_int_equal(line, want_line);
}

/* e opens the place shown: the file and the first new-side line at the top, in both layouts. */
static void
test_target(void **state)
{
	static const int widths[] = { 100, 160 };
	struct fx *x = *state;
	const char *path;
	long line;
	size_t i;

	assert_int_equal(diff_view_target(&x->dv, &path, &line), -1);
	for (i = 0; i < 2; i++) {
		open_two(x, "s");
		diff_view_layout(&x->dv, widths[i]);
		targets(x, "hello.c", 3); /* hunk 1: three lines of context before line 6 */
		press(x, 'n', widths[i]); /* from the file header to hunk 1 */
		targets(x, NULL, 3);
		press(x, 'n', widths[i]);
		targets(x, NULL, 11); /* hunk 2: context before line 14 */
		press(x, ']', widths[i]);
		targets(x, "NOTES.md", 1);
		diff_view_close(&x->dv);
		assert_int_equal(diff_view_target(&x->dv, &path, &line), -1);
	}
}

/* A diff without file headers takes the title as its path; text without hunks does not open. */
static void
test_bad_input(void **state)
{
	struct fx *x = *state;
	struct diff_view *dv = &x->dv;
	static const char bare[] = "@@ -1 +1 @@\n-a\n+b\n";
	static const char broken[] = "--- a/x\n+++ b/x\n@@ -1,5 +1 @@\n-a\n";
	struct grid *g = grid_new(60, 4);
	struct buf b = BUF_INIT;

	assert_int_equal(diff_view_open(dv, "edit hello.c", bare, strlen(bare)), 0);
	diff_view_layout(dv, 60);
	diff_view_draw(g, (struct grid_rect){ 0, 0, 60, 4 }, dv);
	grid_row_text(g, 1, &b);
	assert_string_equal(b.data, "▌ edit hello.c  (+1 −1)");
	assert_int_equal(diff_view_open(dv, "x", "no diff here\n", 13), -1);
	assert_int_equal(dv->open, 0);
	assert_int_equal(diff_view_open(dv, "x", "", 0), -1);
	(void)diff_view_open(dv, "x", broken, strlen(broken)); /* a hunk cut short: no crash */
	diff_view_layout(dv, 200);
	diff_view_draw(g, (struct grid_rect){ 0, 0, 60, 4 }, dv);
	diff_view_close(dv);
	diff_view_close(dv);
	buf_release(&b);
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unified_100, fx_new, fx_free),
		cmocka_unit_test_setup_teardown(test_side_by_side_160, fx_new, fx_free),
		cmocka_unit_test_setup_teardown(test_narrow_60, fx_new, fx_free),
		cmocka_unit_test_setup_teardown(test_keys, fx_new, fx_free),
		cmocka_unit_test_setup_teardown(test_bad_input, fx_new, fx_free),
		cmocka_unit_test_setup_teardown(test_target, fx_new, fx_free),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

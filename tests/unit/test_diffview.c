/* test_diffview: the full-screen diff viewer — snapshots at 100 and 160 columns, keys, bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "diff.h"
#include "diffview.h"
#include "theme.h"

static const char old_c[] =
	"#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs(\"hi\");\n\treturn 0;\n}\n"
	"/* a */\n/* b */\n/* c */\n/* d */\n/* e */\nint x = 1;\n";
static const char new_c[] =
	"#include <stdio.h>\n\nint\nmain(void)\n{\n\tputs(\"hello, world\");\n\treturn 0;\n}\n"
	"/* a */\n/* b */\n/* c */\n/* d */\n/* e */\nint x = 2;\nint y = 3;\n";

static int
setup(void **state)
{
	(void)state;
	return setlocale(LC_CTYPE, "C.UTF-8") ? 0 : -1;
}

/* Two files: hello.c (two hunks) and a new NOTES.md, as the session diff writes them. */
static void
two_files(struct buf *t)
{
	diff_unified("hello.c", old_c, strlen(old_c), new_c, strlen(new_c), t, NULL, NULL);
	diff_unified("NOTES.md", "", 0, "one\ntwo\n", 8, t, NULL, NULL);
}

/* Draw dv at w×h and compare the rows (trailing blanks trimmed) with want. */
static struct grid *
check(struct diffview *dv, int w, int h, const char *want)
{
	struct grid *g = grid_new(w, h);
	struct buf b = BUF_INIT;
	int y;

	diffview_layout(dv, w);
	diffview_draw(g, (struct grid_rect){ 0, 0, w, h }, dv);
	for (y = 0; y < h; y++) {
		grid_row_text(g, y, &b);
		buf_addch(&b, '\n');
	}
	assert_string_equal(b.data, want);
	buf_release(&b);
	return g;
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
	struct diffview dv;
	struct buf t = BUF_INIT;
	struct grid *g;

	(void)state;
	memset(&dv, 0, sizeof dv);
	two_files(&t);
	assert_int_equal(diffview_open(&dv, "session", t.data, t.len), 0);
	g = check(&dv, 100, 12,
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
	grid_free(g);
	diffview_close(&dv);
	buf_release(&t);
}

/* 160 columns: side by side, old on the left, new on the right, runs paired. */
static void
test_side_by_side_160(void **state)
{
	struct diffview dv;
	struct buf t = BUF_INIT;
	struct keys_event n = { .kind = KEYS_CHAR, .cp = 'n' };
	struct grid *g;

	(void)state;
	memset(&dv, 0, sizeof dv);
	two_files(&t);
	assert_int_equal(diffview_open(&dv, "session", t.data, t.len), 0);
	assert_int_equal(diffview_key(&dv, &n, 160, 12), 1);
	g = check(&dv, 160, 12,
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
	grid_free(g);
	n.cp = 'n';
	diffview_key(&dv, &n, 160, 12);
	g = check(&dv, 160, 8,
	    " diff · file 1/2 · hunk 2/3 · +5 −2                                                                                               n/p hunk · ]/[ file · q close\n"
	    "@@ -11,4 +11,5 @@\n"
	    "  11   /* c */                                                                 │  11   /* c */\n"
	    "  12   /* d */                                                                 │  12   /* d */\n"
	    "  13   /* e */                                                                 │  13   /* e */\n"
	    "  14 - int x = 1;                                                              │  14 + int x = 2;\n"
	    "                                                                               │  15 + int y = 3;\n"
	    "▌ NOTES.md  (+2 −0)\n");
	grid_free(g);
	diffview_close(&dv);
	buf_release(&t);
}

/* 60 columns: unified, the key hints dropped from the title, long lines cut at the edge. */
static void
test_narrow_60(void **state)
{
	struct diffview dv;
	struct buf t = BUF_INIT;
	static const char a[] = "short\nthe quick brown fox jumps over the lazy dog and keeps on running far away\n";
	static const char b[] = "short\nthe quick brown cat jumps over the lazy dog and keeps on running far away\n";
	struct grid *g;

	(void)state;
	memset(&dv, 0, sizeof dv);
	diff_unified("a.txt", a, strlen(a), b, strlen(b), &t, NULL, NULL);
	assert_int_equal(diffview_open(&dv, "x", t.data, t.len), 0);
	g = check(&dv, 60, 7,
	    " diff · file 1/1 · hunk 1/1 · +1 −1\n"
	    "▌ a.txt  (+1 −1)\n"
	    "@@ -1,2 +1,2 @@\n"
	    "   1    1   short\n"
	    "   2      - the quick brown fox jumps over the lazy dog and\n"
	    "        2 + the quick brown cat jumps over the lazy dog and\n"
	    "\n");
	assert_int_equal(role_of(g, 4, "f"), THEME_DIFF_DEL_WORD);
	assert_int_equal(role_of(g, 5, "a"), THEME_DIFF_ADD_WORD);
	grid_free(g);
	diffview_close(&dv);
	buf_release(&t);
}

/* n/p hunks, ]/[ files, scrolling stops at the last page, q and Esc close. */
static void
test_keys(void **state)
{
	struct diffview dv;
	struct buf t = BUF_INIT;
	struct keys_event ev = { .kind = KEYS_CHAR };
	int f, h;

	(void)state;
	memset(&dv, 0, sizeof dv);
	two_files(&t);
	assert_int_equal(diffview_open(&dv, "s", t.data, t.len), 0);
	diffview_layout(&dv, 100);
	diffview_where(&dv, &f, &h);
	assert_int_equal(f, 0);
	assert_int_equal(h, 0);
	ev.cp = ']';
	diffview_key(&dv, &ev, 100, 10);
	diffview_where(&dv, &f, &h);
	assert_int_equal(f, 1);
	assert_int_equal(h, 2);
	diffview_key(&dv, &ev, 100, 10); /* no further file: stays */
	diffview_where(&dv, &f, &h);
	assert_int_equal(f, 1);
	ev.cp = 'p';
	diffview_key(&dv, &ev, 100, 10);
	diffview_where(&dv, &f, &h);
	assert_int_equal(f, 0);
	assert_int_equal(h, 1);
	assert_int_equal(dv.rows[dv.top].kind, DIFFVIEW_HUNK);
	ev.cp = '[';
	diffview_key(&dv, &ev, 100, 10);
	assert_int_equal(dv.top, 0);
	ev.cp = 'G';
	diffview_key(&dv, &ev, 100, 10);
	assert_int_equal(dv.top, (long)dv.nrows - 9);
	ev.cp = 'j';
	diffview_key(&dv, &ev, 100, 10);
	assert_int_equal(dv.top, (long)dv.nrows - 9);
	ev.cp = 'x';
	assert_int_equal(diffview_key(&dv, &ev, 100, 10), 0);
	ev.cp = 'q';
	assert_int_equal(diffview_key(&dv, &ev, 100, 10), 1);
	assert_int_equal(dv.open, 0);
	assert_int_equal(diffview_open(&dv, "s", t.data, t.len), 0);
	ev.kind = KEYS_ESC;
	diffview_key(&dv, &ev, 100, 10);
	assert_int_equal(dv.open, 0);
	assert_int_equal(diffview_key(&dv, &ev, 100, 10), 0);
	buf_release(&t);
}

/* e opens the place shown: the file and the first new-side line at the top, in both layouts. */
static void
test_target(void **state)
{
	static const int widths[] = { 100, 160 };
	struct keys_event ev = { .kind = KEYS_CHAR };
	struct diffview dv;
	struct buf t = BUF_INIT;
	const char *path;
	long line;
	size_t i;

	(void)state;
	memset(&dv, 0, sizeof dv);
	assert_int_equal(diffview_target(&dv, &path, &line), -1);
	two_files(&t);
	for (i = 0; i < 2; i++) {
		assert_int_equal(diffview_open(&dv, "s", t.data, t.len), 0);
		diffview_layout(&dv, widths[i]);
		assert_int_equal(diffview_target(&dv, &path, &line), 0);
		assert_string_equal(path, "hello.c");
		assert_int_equal(line, 3); /* hunk 1: three lines of context before line 6 */
		ev.cp = 'n';
		diffview_key(&dv, &ev, widths[i], 10); /* from the file header to hunk 1 */
		assert_int_equal(diffview_target(&dv, &path, &line), 0);
		assert_int_equal(line, 3);
		diffview_key(&dv, &ev, widths[i], 10);
		assert_int_equal(diffview_target(&dv, &path, &line), 0);
		assert_int_equal(line, 11); /* hunk 2: context before line 14 */
		ev.cp = ']';
		diffview_key(&dv, &ev, widths[i], 10);
		assert_int_equal(diffview_target(&dv, &path, &line), 0);
		assert_string_equal(path, "NOTES.md");
		assert_int_equal(line, 1);
		diffview_close(&dv);
		assert_int_equal(diffview_target(&dv, &path, &line), -1);
	}
	buf_release(&t);
}

/* A diff without file headers takes the title as its path; text without hunks does not open. */
static void
test_bad_input(void **state)
{
	struct diffview dv;
	static const char bare[] = "@@ -1 +1 @@\n-a\n+b\n";
	static const char broken[] = "--- a/x\n+++ b/x\n@@ -1,5 +1 @@\n-a\n";
	struct grid *g = grid_new(60, 4);
	struct buf b = BUF_INIT;

	(void)state;
	memset(&dv, 0, sizeof dv);
	assert_int_equal(diffview_open(&dv, "edit hello.c", bare, strlen(bare)), 0);
	diffview_layout(&dv, 60);
	diffview_draw(g, (struct grid_rect){ 0, 0, 60, 4 }, &dv);
	grid_row_text(g, 1, &b);
	assert_string_equal(b.data, "▌ edit hello.c  (+1 −1)");
	assert_int_equal(diffview_open(&dv, "x", "no diff here\n", 13), -1);
	assert_int_equal(dv.open, 0);
	assert_int_equal(diffview_open(&dv, "x", "", 0), -1);
	(void)diffview_open(&dv, "x", broken, strlen(broken)); /* a hunk cut short: no crash */
	diffview_layout(&dv, 200);
	diffview_draw(g, (struct grid_rect){ 0, 0, 60, 4 }, &dv);
	diffview_close(&dv);
	diffview_close(&dv);
	buf_release(&b);
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unified_100),
		cmocka_unit_test(test_side_by_side_160),
		cmocka_unit_test(test_narrow_60),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_target),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}

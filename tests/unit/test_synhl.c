/*
 * test_synhl: highlight spans from the embedded queries (sorted, not
 * overlapping, the right captures on a C line) and the full screen's code
 * hook colouring the cells of a drawn line.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codehl.h"
#include "draw.h"
#include "grid.h"
#include "synhl.h"
#include "theme.h"

static const char LINE[] = "int main(void) { return 42; } /* done */";

/* The capture of the span that starts at the first occurrence of word, or NULL. */
static const char *
capture_at(const struct syn_span *v, size_t n, const char *word)
{
	size_t at = (size_t)(strstr(LINE, word) - LINE), i;

	for (i = 0; i < n; i++)
		if (v[i].start == at)
			return v[i].capture;
	return NULL;
}

static void
test_spans_c(void **state)
{
	struct syn_span *v;
	size_t n, i;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(syn_highlight(syn_lang_by_name("c"), LINE, strlen(LINE), &v, &n, &e), 0);
	assert_true(n >= 4);
	for (i = 1; i < n; i++)
		assert_true(v[i].start >= v[i - 1].end);
	assert_non_null(capture_at(v, n, "return"));
	assert_string_equal(capture_at(v, n, "return"), "keyword");
	assert_string_equal(capture_at(v, n, "42"), "number");
	assert_string_equal(capture_at(v, n, "/*"), "comment");
	free(v);
}

static void
test_no_query(void **state)
{
	struct syn_span *v = (struct syn_span *)&v;
	size_t n = 7;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(syn_highlight(NULL, "x", 1, &v, &n, &e), -1);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_non_null(strstr(e.msg, "highlight"));
}

/* The hook colours "return" as a keyword and leaves plain text alone. */
static void
test_code_hook(void **state)
{
	struct theme th;
	struct grid *g = grid_new(60, 2);
	int col = (int)(strstr(LINE, "return") - LINE);

	(void)state;
	theme_default(&th, THEME_DEPTH_256);
	codehl_install(&th);
	draw_text(g, 2, 1, 58, LINE, strlen(LINE), THEME_TEXT);
	codehl_line(g, 2, 1, 58, "c", LINE, strlen(LINE));
	assert_int_equal(grid_at(g, 2 + col, 1)->style, THEME_KEYWORD);
	assert_int_equal(grid_at(g, 2 + col + 5, 1)->style, THEME_KEYWORD);
	assert_int_equal(grid_at(g, 2 + col + 6, 1)->style, THEME_TEXT);
	/* a kept line gives the same colours; an unknown language changes nothing */
	codehl_line(g, 2, 1, 58, "c", LINE, strlen(LINE));
	assert_int_equal(grid_at(g, 2 + col, 1)->style, THEME_KEYWORD);
	draw_text(g, 2, 0, 58, LINE, strlen(LINE), THEME_TEXT);
	codehl_line(g, 2, 0, 58, "klingon", LINE, strlen(LINE));
	assert_int_equal(grid_at(g, 2 + col, 0)->style, THEME_TEXT);
	codehl_uninstall();
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spans_c),
		cmocka_unit_test(test_no_query),
		cmocka_unit_test(test_code_hook),
	};

	setlocale(LC_CTYPE, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

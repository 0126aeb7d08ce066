/*
 * fuzz_markdown: libFuzzer harness for the markdown renderer
 * (ui/view/markdown.c).  The first byte picks a width (1-80 columns); the
 * rest is an answer, taken line by line as the transcript does: block
 * classes (markdown_line) with the fence state carried over, each line
 * wrapped into a small grid and measured without one (the two must agree,
 * at least one row and, for a non-empty line, no more rows than bytes plus
 * one), code lines drawn, fenced bodies measured (never past the text),
 * and the whole text drawn as a diff (folded and not) with its counts.
 * A grid cell never holds more than GRID_CELL_BYTES and never invalid
 * UTF-8 (the grid is what reaches the terminal).
 *
 * dict: "```"
 * dict: "```c\x0a"
 * dict: "# "
 * dict: "- "
 * dict: "1. "
 * dict: "**"
 * dict: "`"
 * dict: "_"
 * dict: "@@ -1,2 +1,3 @@\x0a"
 * dict: "\x0a+"
 * dict: "\x0a-"
 * dict: "\xe4\xb8\xad"
 * dict: "\xcc\x81"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/grid.h"
#include "ui/view/markdown.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROWS 6
#define MAX_INPUT 4096

/* Every cell of g holds valid UTF-8 within its bounds. */
static void
check_grid(const struct grid *g)
{
	int x, y;

	for (y = 0; y < g->h; y++)
		for (x = 0; x < g->w; x++) {
			const struct grid_cell *c = grid_at(g, x, y);
			size_t n = strnlen(c->text, sizeof c->text);

			FUZZ_CHECK(n <= GRID_CELL_BYTES);
			FUZZ_CHECK(c->width <= 2);
			FUZZ_CHECK(fuzz_utf8_valid(c->text, n));
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct markdown_state st;
	struct markdown_line ml;
	struct grid *g;
	struct grid_rect r;
	const char *s, *end;
	size_t pre, suf;
	long add, del;
	int w;

	if (!size)
		return 0;
	if (size > MAX_INPUT) /* an answer, not a book: keeps the run fast */
		size = MAX_INPUT;
	w = 1 + data[0] % 80;
	s = (const char *)data + 1;
	end = (const char *)data + size;
	g = grid_new(w, ROWS);
	r.x = 0, r.y = 0, r.w = w, r.h = ROWS;
	memset(&st, 0, sizeof st);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		int rows, drawn, skip;

		markdown_line(&st, s, n, &ml);
		FUZZ_CHECK(ml.off <= n);
		FUZZ_CHECK(memchr(ml.bullet, 0, sizeof ml.bullet) != NULL);
		FUZZ_CHECK(memchr(st.lang, 0, sizeof st.lang) != NULL);
		FUZZ_CHECK(markdown_fence_body(s, (size_t)(end - s)) <= (size_t)(end - s));
		rows = markdown_wrap(NULL, r, 0, s + ml.off, n - ml.off, THEME_TEXT);
		FUZZ_CHECK(rows >= 1 && (size_t)rows <= n - ml.off + 1);
		skip = rows > ROWS ? rows - ROWS : 0;
		drawn = markdown_wrap(g, r, skip, s + ml.off, n - ml.off, THEME_TEXT);
		FUZZ_CHECK(drawn == rows);
		if (ml.kind == MARKDOWN_CODE_LINE)
			markdown_code_line(g, 0, 0, w, st.lang, s, n, (int)(n & 1), s, n);
		if (nl && nl + 1 < end) { /* this line against the next, as a -/+ pair */
			const char *b = nl + 1, *bnl = memchr(b, '\n', (size_t)(end - b));
			size_t bn = bnl ? (size_t)(bnl - b) : (size_t)(end - b);

			markdown_diff_span(s, n, b, bn, &pre, &suf);
			FUZZ_CHECK(pre + suf <= n && pre + suf <= bn);
		}
		s += n + (nl != NULL);
	}
	check_grid(g);

	s = (const char *)data + 1;
	markdown_diff_counts(s, size - 1, &add, &del);
	FUZZ_CHECK(add >= 0 && del >= 0 && (size_t)(add + del) <= size);
	grid_clear(g, THEME_TEXT);
	FUZZ_CHECK(markdown_diff(g, r, 0, s, size - 1, 0) >= 0);
	FUZZ_CHECK(markdown_diff(g, r, 1, s, size - 1, 3) >= 0);
	FUZZ_CHECK(markdown_diff(NULL, r, 0, s, size - 1, 0) >= 0);
	check_grid(g);
	grid_free(g);
	return 0;
}

/* test_transcript_cache: the transcript's per-item row cache never disagrees with a fresh layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "ui/view/transcript.h"

/* Feed one event. */
static void
feed(struct view_transcript *tv, enum llm_kind k, const char *t)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = k;
	ev.text.p = t;
	ev.text.len = strlen(t);
	transcript_on_event(tv, &ev);
}

/* A finished (or running) tool call with a diff of `lines` added lines. */
static void
tool(struct view_transcript *tv, int done, int lines)
{
	static char id[] = "c1", name[] = "edit";
	struct agent_call c;
	struct buf d = BUF_INIT;
	int i;

	memset(&c, 0, sizeof c);
	c.id = id;
	c.name = name;
	buf_init(&c.args, 0);
	buf_adds(&c.args, "{\"path\":\"a.c\"}");
	buf_init(&c.job.out, 0);
	buf_adds(&c.job.out, "edited a.c\nline two\n");
	buf_addf(&d, "--- a/a.c\n+++ b/a.c\n@@ -0,0 +1,%d @@\n", lines);
	for (i = 0; i < lines; i++)
		buf_addf(&d, "+line %d\n", i);
	c.job.diff = d.data;
	if (!done)
		transcript_tool_start(tv, &c);
	else
		transcript_tool_done(tv, &c);
	buf_release(&d);
	buf_release(&c.args);
	buf_release(&c.job.out);
}

/* The script up to step n: a question, a streamed answer, reasoning, a tool call. */
static void
script(struct view_transcript *tv, int n)
{
	transcript_init(tv);
	transcript_add_user(tv, "a question that is long enough to wrap at forty columns", 55);
	if (n >= 1)
		feed(tv, LLM_REASONING, "thinking\nmore thinking\n");
	if (n >= 2)
		feed(tv, LLM_TEXT, "The answer starts here and is long enough to wrap, ");
	if (n >= 3)
		feed(tv, LLM_TEXT, "and it goes on\n\n- with a list\n- of two items\n");
	if (n >= 4)
		tool(tv, 0, 3);
	if (n >= 5)
		tool(tv, 1, 30);
}

/* After each change, at several widths, the cached count equals a fresh one. */
static void
test_agrees(void **state)
{
	struct view_transcript tv, fresh;
	static const int widths[] = { 40, 80, 40, 133 };
	int n, w;

	(void)state;
	transcript_init(&tv);
	for (n = 0; n <= 5; n++) {
		transcript_release(&tv);
		script(&tv, n);
		for (w = 0; w < 4; w++) {
			script(&fresh, n);
			assert_int_equal(transcript_rows(&tv, widths[w]), transcript_rows(&fresh, widths[w]));
			transcript_release(&fresh);
		}
	}
	/* growing the open item, expanding, showing reasoning: measured again */
	(void)transcript_rows(&tv, 40);
	transcript_toggle_last(&tv);
	script(&fresh, 5);
	transcript_toggle_last(&fresh);
	assert_int_equal(transcript_rows(&tv, 40), transcript_rows(&fresh, 40));
	tv.show_reasoning = fresh.show_reasoning = 1;
	assert_int_equal(transcript_rows(&tv, 40), transcript_rows(&fresh, 40));
	transcript_release(&fresh);
	transcript_release(&tv);
	script(&tv, 2);
	(void)transcript_rows(&tv, 40);
	feed(&tv, LLM_TEXT, "more text that makes the answer wrap onto more rows than before");
	script(&fresh, 2);
	feed(&fresh, LLM_TEXT, "more text that makes the answer wrap onto more rows than before");
	assert_int_equal(transcript_rows(&tv, 40), transcript_rows(&fresh, 40));
	transcript_release(&fresh);
	transcript_release(&tv);
}

/* The answer test_stream_checkpoints streams: every block kind, a table whose header comes first. */
static void
long_answer(struct buf *b)
{
	int i;

	for (i = 0; i < 40; i++) {
		buf_addf(b, "## Part %d\nA paragraph with **bold** and `code` that is long enough to "
		    "wrap twice at forty columns, number %d.\n\n", i, i);
		if (i % 4 == 1)
			buf_addf(b, "| name | value |\n|---|--:|\n| a%d | %d |\n| b | longer cell |\n\n", i, i);
		if (i % 4 == 2)
			buf_addf(b, "```c\n/* a comment\n   over lines */\nint x%d = %d;\n```\n", i, i);
		if (i % 4 == 3)
			buf_adds(b, "- one item\n  - nested item that wraps at forty columns for sure\n1. first\n");
	}
}

/*
 * Whether g (the view from content row top) shows what a layout of the
 * whole of ref from scratch shows there: ref is drawn into a grid of all
 * its rows with its checkpoints dropped, so none is used.
 */
static int
same_as_whole(const struct grid *g, long top, struct view_transcript *ref)
{
	long rows = transcript_rows(ref, g->w);
	struct grid *all = grid_new(g->w, (int)rows);
	struct grid_rect r = { 0, 0, g->w, (int)rows };
	int x, y, ok = 1;
	size_t k;

	for (k = 0; k < ref->n; k++) /* the item caches are set; drawing then lays out from the top */
		ref->items[k].nck = 0;
	transcript_draw(all, r, ref);
	for (y = 0; y < g->h && top + y < rows; y++)
		for (x = 0; x < g->w; x++)
			if (strcmp(grid_at(g, x, y)->text, grid_at(all, x, (int)top + y)->text) ||
			    grid_at(g, x, y)->width != grid_at(all, x, (int)top + y)->width ||
			    grid_at(g, x, y)->style != grid_at(all, x, (int)top + y)->style)
				ok = 0;
	grid_free(all);
	return ok;
}

/* The checkpoints inside paragraph lines the last stream_agrees left. */
static size_t last_mid;

/*
 * Stream ans in pieces of step bytes, drawing after every piece
 * (following, and now and then scrolled back into the answer): the view
 * is what a layout of the same text from scratch shows.  Returns the
 * checkpoints the answer has at the end.
 */
static size_t
stream_agrees(const struct buf *ans, size_t step)
{
	struct grid_rect r = { 0, 0, 40, 12 };
	struct grid *ga = grid_new(40, 12);
	struct view_transcript tv, fresh;
	struct buf pre = BUF_INIT;
	char piece[64];
	size_t i, nck;
	long rows;

	transcript_init(&tv);
	transcript_add_user(&tv, "q", 1);
	for (i = 0; i < ans->len; i += step) {
		size_t n = ans->len - i < step ? ans->len - i : step;

		memcpy(piece, ans->data + i, n);
		piece[n] = '\0';
		feed(&tv, LLM_TEXT, piece);
		transcript_init(&fresh);
		transcript_add_user(&fresh, "q", 1);
		buf_reset(&pre);
		buf_add(&pre, ans->data, i + n);
		feed(&fresh, LLM_TEXT, pre.data);
		rows = transcript_rows(&fresh, r.w);
		assert_int_equal(transcript_rows(&tv, r.w), rows);
		tv.follow = 1;
		transcript_draw(ga, r, &tv);
		assert_true(same_as_whole(ga, rows > r.h ? rows - r.h : 0, &fresh));
		if (rows > 3 * r.h && i % 5 == 0) { /* scrolled back into the answer */
			tv.follow = 0;
			tv.scroll = rows / 2 + (long)(i % 17);
			if (tv.scroll > rows - r.h)
				tv.scroll = rows - r.h;
			transcript_draw(ga, r, &tv);
			assert_true(same_as_whole(ga, tv.scroll, &fresh));
		}
		transcript_release(&fresh);
	}
	nck = tv.items[1].nck;
	for (last_mid = 0, i = 0; i < nck; i++)
		last_mid += tv.items[1].ck[i].mid != 0;
	feed(&tv, LLM_DONE, "");
	buf_release(&pre);
	transcript_release(&tv);
	grid_free(ga);
	return nck;
}

/*
 * A long streamed answer with every block kind looks the same as laid
 * out from scratch, and was laid out from its checkpoints; so do answers
 * of tables whose header row ends on each row a checkpoint may fall on
 * (shifted by blank lines): a header is a paragraph until its delimiter
 * row arrives, so no checkpoint may follow a line before the next one is
 * whole.
 */
static void
test_stream_checkpoints(void **state)
{
	struct buf ans = BUF_INIT;
	int shift, i;

	(void)state;
	long_answer(&ans);
	assert_true(stream_agrees(&ans, 19) >= 8); /* ~320 rows: a checkpoint every 32 */
	for (shift = 0; shift < 8; shift++) {
		buf_reset(&ans);
		for (i = 0; i < shift; i++)
			buf_adds(&ans, "\n");
		for (i = 0; i < 12; i++)
			buf_addf(&ans, "Row %d.\n| h%d | v |\n|---|---|\n| a | b |\n| c | d |\n\n", i, i);
		(void)stream_agrees(&ans, 3);
	}
	buf_release(&ans);
}

/* Words for a long line: plain, styled spans, stray markers, a word wider than the view. */
static void
long_line(struct buf *b, size_t len, int seed)
{
	static const char *const w[] = { "the", "loop", "reads", "**one element**", "past",
		"`the end`", "because", "a * b", "the **bound should", "be** smaller", "than",
		"*n*", "stray*star", "x", "supercalifragilisticexpialidociousandthensomemore",
		"`tick", "tock`", "plain", "words", "wrap" };
	size_t start = b->len;
	int k = seed;

	while (b->len - start < len) {
		buf_adds(b, w[k % 20]);
		buf_adds(b, k % 7 == 3 ? "  " : " ");
		k = k * 7 + 3;
		k %= 1009;
	}
}

/*
 * Long lines streamed without a line break (a paragraph, a list item, a
 * heading) and a long code block look the same as laid out from scratch
 * at every step, and the paragraphs were laid out from checkpoints inside
 * them (a frame costs the rows near the view, not the whole line).
 */
static void
test_stream_long_lines(void **state)
{
	struct buf ans = BUF_INIT;
	int i;

	(void)state;
	buf_adds(&ans, "Intro.\n\n");
	long_line(&ans, 3000, 1);
	buf_adds(&ans, "\n\n- ");
	long_line(&ans, 2600, 5);
	buf_adds(&ans, "\n\n## ");
	long_line(&ans, 2300, 11);
	/* a marker opened at the start and closed 2,500 bytes later restyles (and rewraps) it all */
	buf_adds(&ans, "\n\nA *start");
	for (i = 0; i < 450; i++) /* 2,900 bytes */
		buf_adds(&ans, i % 13 == 5 ? " elephantine" : " word");
	buf_adds(&ans, " end* done.");
	buf_adds(&ans, "\n\n```c\nint f(const int *v, int n) {\n\tint sum = 0; /* a comment\n");
	for (i = 0; i < 400; i++)
		buf_addf(&ans, "\tsum += v[%d] * \"s%d\"[0]; /* c */\n", i, i);
	buf_adds(&ans, "\treturn sum;\n}\n```\nAfter the block.\n");
	assert_true(stream_agrees(&ans, 37) >= 15);
	assert_true(last_mid >= 4); /* 10,800 bytes of long lines at 38 columns: ~320 rows */
	buf_release(&ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees),
		cmocka_unit_test(test_stream_checkpoints),
		cmocka_unit_test(test_stream_long_lines),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

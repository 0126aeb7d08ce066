/* test_tsearch: `/` search in the transcript — incremental matches, n/N, highlight, prompt, Esc. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "testutil.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_search.h"

static const struct grid_rect R = { 0, 0, 60, 10 };

/* 30 exchanges; answers 5, 17 and 25 mention the Needle (17 in bold). */
static void
fill(struct view_transcript *tv)
{
	struct llm_event ev;
	char s[128];
	int i;

	transcript_init(tv);
	for (i = 0; i < 30; i++) {
		snprintf(s, sizeof s, "question %d", i);
		transcript_add_user(tv, s, strlen(s));
		memset(&ev, 0, sizeof ev);
		ev.kind = LLM_TEXT;
		if (i == 5 || i == 25)
			snprintf(s, sizeof s, "answer %d has a needle in it", i);
		else if (i == 17)
			snprintf(s, sizeof s, "answer %d: **Needle** here", i);
		else
			snprintf(s, sizeof s, "answer %d", i);
		ev.text.p = s;
		ev.text.len = strlen(s);
		transcript_on_event(tv, &ev);
		ev.kind = LLM_DONE;
		transcript_on_event(tv, &ev);
	}
}

/* Send one key. */
static int
key(struct transcript_search *ts, struct view_transcript *tv, enum keys_kind k, uint32_t cp)
{
	struct keys_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = k;
	ev.cp = cp;
	ev.utf8[0] = (char)cp;
	return transcript_search_key(ts, tv, &ev, R);
}

/* Type s into the prompt. */
static void
type(struct transcript_search *ts, struct view_transcript *tv, const char *s)
{
	for (; *s; s++)
		assert_int_equal(key(ts, tv, KEYS_CHAR, (uint32_t)*s), 1);
}

/* The first content row the view shows. */
static long
top_of(const struct view_transcript *tv)
{
	long total = transcript_rows(tv, R.w), maxtop = total > R.h ? total - R.h : 0;

	return tv->follow || tv->scroll > maxtop ? maxtop : tv->scroll;
}

/* Typing searches from where the view was, smart case, n/N wrap, Esc leaves. */
static void
test_incremental(void **state)
{
	struct view_transcript tv;
	struct transcript_search ts;
	long first;

	(void)state;
	fill(&tv);
	memset(&ts, 0, sizeof ts);
	tv.follow = 0;
	tv.scroll = 0;
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "need");
	assert_int_equal(ts.nrows, 3);            /* smart case: "Needle" matches too */
	assert_int_equal(ts.cur, 0);
	first = ts.rows[0];
	assert_true(first >= top_of(&tv) && first < top_of(&tv) + R.h);
	type(&ts, &tv, "le in");
	assert_int_equal(ts.nrows, 2);
	assert_int_equal(key(&ts, &tv, KEYS_BACKSPACE, 0), 1);
	assert_int_equal(key(&ts, &tv, KEYS_BACKSPACE, 0), 1);
	assert_int_equal(key(&ts, &tv, KEYS_BACKSPACE, 0), 1);
	assert_string_equal(ts.query.data, "needle");
	assert_int_equal(ts.nrows, 3);
	assert_int_equal(key(&ts, &tv, KEYS_ENTER, 0), 1); /* prompt done: browse */
	assert_int_equal(ts.editing, 0);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'n'), 1);
	assert_int_equal(ts.cur, 1);
	assert_true(ts.rows[1] >= top_of(&tv) && ts.rows[1] < top_of(&tv) + R.h);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'n'), 1);
	assert_int_equal(ts.cur, 2);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'n'), 1);
	assert_int_equal(ts.cur, 0);
	assert_int_equal(ts.wrapped, 1);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'N'), 1);
	assert_int_equal(ts.cur, 2);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, '/'), 1);
	assert_int_equal(ts.editing, 1);
	type(&ts, &tv, "X");                      /* a capital: case matters now */
	assert_int_equal(ts.nrows, 0);
	assert_int_equal(key(&ts, &tv, KEYS_ESC, 0), 1);
	assert_int_equal(ts.active, 0);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'n'), 0);
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "Needle");
	assert_int_equal(ts.nrows, 1);
	transcript_search_release(&ts);
	transcript_release(&tv);
}

/* The search starts from the view: from the bottom it wraps to the first match. */
static void
test_origin(void **state)
{
	struct view_transcript tv;
	struct transcript_search ts;

	(void)state;
	fill(&tv);
	memset(&ts, 0, sizeof ts);
	tv.follow = 0;
	tv.scroll = transcript_rows(&tv, R.w) / 2;  /* past answer 5 */
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "needle");
	assert_int_equal(ts.cur, 1);
	assert_int_equal(ts.wrapped, 0);
	transcript_search_stop(&ts);
	tv.follow = 1;
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "needle");
	assert_int_equal(ts.cur, 0);
	assert_int_equal(ts.wrapped, 1);
	assert_int_equal(tv.follow, 0);
	/* in the browse phase a printable key leaves and goes on; End too */
	key(&ts, &tv, KEYS_ENTER, 0);
	assert_int_equal(key(&ts, &tv, KEYS_CHAR, 'x'), 0);
	assert_int_equal(ts.active, 0);
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "q");
	key(&ts, &tv, KEYS_ENTER, 0);
	assert_int_equal(key(&ts, &tv, KEYS_END, 0), 0);
	assert_int_equal(ts.active, 0);
	transcript_search_release(&ts);
	transcript_release(&tv);
}

/* Matches on screen are highlighted, the current one's row distinctly; the prompt says where. */
static void
test_highlight_and_prompt(void **state)
{
	struct view_transcript tv;
	struct transcript_search ts;
	struct grid *g = grid_new(R.w, R.h + 1);
	struct buf b = BUF_INIT;
	int y, x, cx = -1, cur = 0, other = 0;
	const struct grid_cell *c;

	(void)state;
	fill(&tv);
	memset(&ts, 0, sizeof ts);
	tv.follow = 0;
	tv.scroll = 0;
	transcript_search_start(&ts, &tv, R);
	type(&ts, &tv, "needle");
	transcript_draw(g, R, &tv);
	transcript_search_highlight(g, R, &ts, &tv);
	for (y = 0; y < R.h; y++)
		for (x = 0; x < R.w; x++) {
			c = grid_at(g, x, y);
			cur += c->style == THEME_STATUS_BG;
			other += (c->style == THEME_SELECTION || c->style == THEME_STATUS_BG) &&
			    !strchr("needl", c->text[0]);
		}
	assert_int_equal(cur, 6);
	assert_int_equal(other, 0);
	transcript_search_draw_prompt(g, 0, R.h, R.w, &ts, &cx);
	grid_row_text(g, R.h, &b);
	assert_string_equal(b.data, "/needle  1/3 · Enter done, ↑/↓ prev/next · Esc leaves");
	assert_int_equal(cx, 7);
	buf_release(&b);
	grid_free(g);
	transcript_search_release(&ts);
	transcript_release(&tv);
}

/* Empty transcript, empty query, zero width: nothing found, nothing crashes. */
static void
test_empty(void **state)
{
	struct view_transcript tv;
	struct transcript_search ts;
	struct grid_rect z = { 0, 0, 0, 0 };

	(void)state;
	transcript_init(&tv);
	memset(&ts, 0, sizeof ts);
	transcript_search_start(&ts, &tv, R);
	assert_int_equal(key(&ts, &tv, KEYS_BACKSPACE, 0), 1);
	type(&ts, &tv, "a");
	assert_int_equal(ts.nrows, 0);
	transcript_search_jump(&ts, &tv, 1, z);
	transcript_search_update(&ts, &tv, 0);
	assert_int_equal(ts.nrows, 0);
	transcript_search_release(&ts);
	transcript_release(&tv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_highlight_and_prompt),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

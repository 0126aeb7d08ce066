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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

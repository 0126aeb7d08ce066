/* test_tvconv: a resumed conversation drawn as transcript items (hearth -c / -r in the full screen). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "testutil.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_conv.h"

static const char edit_result[] =
	"edited hello.c: replaced 1 occurrence (+1 -1 lines)\n"
	"--- a/hello.c\n+++ b/hello.c\n@@ -1,3 +1,3 @@\n int main(void)\n-\tputs(\"hi\");\n"
	"+\tputs(\"hello, world\");\n }\n"
	"note: syntax check passed\n";

/* A session: a question, reasoning + text + an edit, a write that created a file, an aborted answer. */
static void
make_conv(struct conv *c)
{
	struct conv_msg *m;

	conv_init(c);
	conv_add_user_text(c, "change the greeting");
	m = conv_add_msg(c, CONV_ASSISTANT);
	conv_add_block(m, CONV_REASONING, "the user wants\na new greeting", NULL, NULL);
	conv_add_block(m, CONV_TEXT, "I will **edit** hello.c.", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"hello.c\",\"old_text\":\"hi\",\"new_text\":\"x\"}",
	    "c1", "edit");
	m = conv_add_msg(c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, edit_result, "c1", "edit");
	m = conv_add_msg(c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"NOTES.md\",\"content\":\"one\\ntwo\\n\"}", "c1",
	    "write");
	conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"false\"}", "c3", "bash");
	m = conv_add_msg(c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "created NOTES.md (2 lines, 8 bytes)", "c1", "write");
	conv_add_block(m, CONV_TOOL_RESULT, "exit 1", "c3", "bash")->is_error = 1;
	m = conv_add_msg(c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TEXT, "Done, partly", NULL, NULL);
	m->aborted = 1;
}

/* Every block becomes the item a live turn would have made, with diffs. */
static void
test_items(void **state)
{
	struct conv c;
	struct view_transcript tv;

	(void)state;
	make_conv(&c);
	transcript_init(&tv);
	transcript_conv_load(&tv, &c);
	assert_int_equal(tv.n, 7);
	assert_int_equal(tv.items[0].kind, VIEW_USER);
	assert_int_equal(tv.items[1].kind, VIEW_REASONING);
	assert_int_equal(tv.items[2].kind, VIEW_ASSISTANT);
	assert_int_equal(tv.items[3].kind, VIEW_TOOL);
	assert_string_equal(tv.items[3].name, "edit");
	assert_string_equal(tv.items[3].args, "hello.c");
	assert_int_equal(tv.items[3].status, VIEW_TOOL_OK);
	assert_non_null(strstr(tv.items[3].diff.data, "+\tputs(\"hello, world\");\n }\n"));
	assert_null(strstr(tv.items[3].diff.data, "note:"));
	assert_int_equal(tv.items[4].kind, VIEW_TOOL);
	assert_string_equal(tv.items[4].name, "write");
	assert_non_null(strstr(tv.items[4].diff.data, "+one\n+two\n"));
	assert_int_equal(tv.items[5].status, VIEW_TOOL_ERROR);
	assert_int_equal(tv.items[5].diff.len, 0);
	assert_int_equal(tv.items[6].kind, VIEW_ASSISTANT);
	assert_int_equal(tv.items[6].aborted, 1);
	assert_int_equal(tv.items[2].aborted, 0);
	assert_int_equal(tv.open, -1);
	assert_int_equal(tv.follow, 1);
	transcript_release(&tv);
	conv_release(&c);
}

/* What a person sees at 100 columns: the question, the answer, the edit's diff. */
static void
test_drawn(void **state)
{
	struct conv c;
	struct view_transcript tv;
	struct grid *g = grid_new(100, 30);
	struct buf b = BUF_INIT;
	int y;

	(void)state;
	make_conv(&c);
	transcript_init(&tv);
	transcript_conv_load(&tv, &c);
	transcript_draw(g, (struct grid_rect){ 0, 0, 100, 30 }, &tv);
	for (y = 0; y < g->h; y++) {
		grid_row_text(g, y, &b);
		buf_addch(&b, '\n');
	}
	assert_non_null(strstr(b.data, "› change the greeting"));
	assert_non_null(strstr(b.data, "I will edit hello.c."));
	assert_non_null(strstr(b.data, "● edit hello.c"));
	assert_non_null(strstr(b.data, "hello, world"));
	assert_non_null(strstr(b.data, "● write NOTES.md"));
	assert_non_null(strstr(b.data, "[interrupted]"));
	buf_release(&b);
	grid_free(g);
	transcript_release(&tv);
	conv_release(&c);
}

/* The diff inside a result text: none, one at the start, one with text after it. */
static void
test_result_diff(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	transcript_conv_result_diff("read 3 lines", &b);
	assert_int_equal(b.len, 0);
	transcript_conv_result_diff("@@ -1 +1 @@\n-a\n+b", &b);
	assert_string_equal(b.data, "@@ -1 +1 @@\n-a\n+b");
	buf_reset(&b);
	transcript_conv_result_diff(edit_result, &b);
	assert_true(!strncmp(b.data, "--- a/hello.c\n", 14));
	assert_true(b.len > 10 && !strcmp(b.data + b.len - 3, " }\n"));
	buf_release(&b);
}

/* A session with no messages, or calls without results, loads without crashing. */
static void
test_partial(void **state)
{
	struct conv c;
	struct view_transcript tv;
	struct conv_msg *m;

	(void)state;
	conv_init(&c);
	transcript_init(&tv);
	transcript_conv_load(&tv, &c);
	assert_int_equal(tv.n, 0);
	m = conv_add_msg(&c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, NULL, NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "not json", "x", "write");
	m = conv_add_msg(&c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "created y", "x", "write");
	transcript_conv_load(&tv, &c);
	assert_int_equal(tv.n, 2);
	assert_int_equal(tv.items[0].status, VIEW_TOOL_RUNNING);
	assert_int_equal(tv.items[1].diff.len, 0);
	transcript_release(&tv);
	conv_release(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_drawn),
		cmocka_unit_test(test_result_diff),
		cmocka_unit_test(test_partial),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

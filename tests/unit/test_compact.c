/* test_compact: where compaction cuts, the rewrite, the trigger and the instruction. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/compact.h"

/* n turns of: task, a tool call, its result, an answer. */
static void
build(struct conv *c, int n)
{
	int t;

	conv_init(c);
	conv_set_system(c, "sys");
	for (t = 0; t < n; t++) {
		struct conv_msg *m;
		char task[32], id[16];

		snprintf(task, sizeof task, "task %d", t);
		snprintf(id, sizeof id, "c%d", t);
		conv_add_user_text(c, task);
		m = conv_add_msg(c, CONV_ASSISTANT);
		conv_add_block(m, CONV_TOOL_CALL, "{}", id, "ls");
		m = conv_add_msg(c, CONV_USER);
		conv_add_block(m, CONV_TOOL_RESULT, "a.c\nb.c", id, "ls");
		m = conv_add_msg(c, CONV_ASSISTANT);
		conv_add_block(m, CONV_TEXT, "done", NULL, NULL);
	}
}

static void
test_keep_from(void **state)
{
	struct conv c;

	(void)state;
	build(&c, 1);
	assert_int_equal(agent_compact_keep_from(&c, 1), 0); /* only the last turn: nothing to summarise */
	conv_release(&c);
	build(&c, 3);
	assert_int_equal(agent_compact_keep_from(&c, 1), 8);
	assert_int_equal(agent_compact_keep_from(&c, 2), 4);
	assert_int_equal(agent_compact_keep_from(&c, 3), 0);
	assert_int_equal(agent_compact_keep_from(&c, 0), 8); /* at least one turn stays */
	conv_release(&c);
}

static void
test_rewrite(void **state)
{
	struct conv c;

	(void)state;
	build(&c, 3);
	agent_compact_rewrite(&c, 8, "## Goal\nship it");
	assert_int_equal(c.nmsgs, 4);
	assert_string_equal(c.system, "sys");
	assert_int_equal(c.msgs[0].role, CONV_USER);
	assert_int_equal(c.msgs[0].nblocks, 2);
	assert_string_equal(c.msgs[0].blocks[0].text, AGENT_COMPACT_MARK "## Goal\nship it");
	assert_string_equal(c.msgs[0].blocks[1].text, "task 2");
	/* the kept turn's call and result stay paired */
	assert_string_equal(c.msgs[1].blocks[0].id, "c2");
	assert_string_equal(c.msgs[2].blocks[0].id, "c2");
	assert_string_equal(c.msgs[2].blocks[0].text, "a.c\nb.c");
	assert_string_equal(c.msgs[3].blocks[0].text, "done");
	conv_release(&c);
}

static void
test_due_and_instruction(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_false(agent_compact_due(100000, 0, 4096));     /* unknown context: never */
	assert_false(agent_compact_due(60000, 65536, 4096));
	assert_true(agent_compact_due(62000, 65536, 4096));
	assert_false(agent_compact_due(5000, 8192, 4096));     /* the reserve is at most a quarter */
	assert_true(agent_compact_due(6200, 8192, 4096));
	agent_compact_instruction("the parser", &b);
	assert_non_null(strstr(b.data, "## Goal\n## Decisions\n## Files touched\n## Open problems\n## Next step"));
	assert_non_null(strstr(b.data, "Do not call any tool"));
	assert_non_null(strstr(b.data, "Pay particular attention to: the parser"));
	buf_reset(&b);
	agent_compact_instruction(NULL, &b);
	assert_null(strstr(b.data, "attention"));
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_from),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_due_and_instruction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

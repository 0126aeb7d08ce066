/*
 * test_forkcmd: /fork on a real session file — the list of typed user
 * messages, bad numbers, and a fork: new file with forked_from, the
 * journal and the agent switched to it, the message text handed back,
 * the original file byte for byte unchanged.
 */
#include "sess_fixture.h"

#include "agent/agent.h"
#include "front/cmd_fork.h"
#include "session/journal.h"
#include "io/loop.h"
#include "llm/provider.h"

/* Commit one message with a text (or a tool result) block. */
static void
commit(struct session_journal *j, enum conv_role role, enum conv_kind kind, const char *text)
{
	struct conv c;
	struct conv_msg *m;

	conv_init(&c);
	m = conv_add_msg(&c, role);
	conv_add_block(m, kind, text, kind == CONV_TOOL_RESULT ? "call_1" : NULL,
		       kind == CONV_TOOL_RESULT ? "read" : NULL);
	session_journal_commit(j, m);
	conv_release(&c);
}

static void
test_fork(void **state)
{
	struct loop *l = loop_new(NULL);
	struct provider prov = { 0 };
	struct agent_opts ao = { 0 };
	struct agent *a = agent_new(l, &prov, NULL, &ao, NULL);
	struct buf out = BUF_INIT, text = BUF_INIT;
	struct session_loaded sl;
	struct session_journal j;
	char old_id[64], *old_path, *before, *after;

	(void)state;
	session_journal_init(&j, ROOT, "http://x");
	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "", &out, &text), CMD_ERROR);
	assert_non_null(strstr(out.data, "nothing to fork yet"));
	buf_reset(&out);
	commit(&j, CONV_USER, CONV_TEXT, "first task");
	commit(&j, CONV_ASSISTANT, CONV_TEXT, "answer 1");
	commit(&j, CONV_USER, CONV_TOOL_RESULT, "file contents");
	commit(&j, CONV_USER, CONV_TEXT, "second task\nwith a second line");
	commit(&j, CONV_ASSISTANT, CONV_TEXT, "answer 2");
	commit(&j, CONV_USER, CONV_TEXT, "third task");
	commit(&j, CONV_ASSISTANT, CONV_TEXT, "answer 3");
	snprintf(old_id, sizeof old_id, "%s", session_journal_id(&j));
	old_path = xstrdup(session_journal_path(&j));
	before = slurp(old_path);

	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "", &out, &text), CMD_DONE);
	assert_non_null(strstr(out.data, "  1  first task\n  2  second task…\n  3  third task\n"));
	assert_int_equal(text.len, 0);
	buf_reset(&out);
	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "4", &out, &text), CMD_ERROR);
	assert_non_null(strstr(out.data, "from 1 to 3"));
	buf_reset(&out);
	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "2x", &out, &text), CMD_ERROR);
	buf_reset(&out);
	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "0", &out, &text), CMD_ERROR);
	buf_reset(&out);

	assert_int_equal(front_cmd_fork_run(a, &j, ROOT, "2", &out, &text), CMD_DONE);
	assert_string_equal(text.data, "second task\nwith a second line");
	assert_non_null(strstr(out.data, "3 messages kept"));
	assert_string_not_equal(session_journal_id(&j), old_id);
	assert_int_equal(agent_conv(a)->nmsgs, 3);
	assert_int_equal(agent_conv(a)->msgs[2].blocks[0].kind, CONV_TOOL_RESULT);
	memset(&sl, 0, sizeof sl);
	assert_int_equal(session_load(session_journal_path(&j), &sl, NULL, NULL), 0);
	assert_int_equal(sl.conv.nmsgs, 3);
	assert_non_null(sl.meta.forked_from);
	assert_memory_equal(sl.meta.forked_from, old_id, strlen(old_id));
	session_loaded_release(&sl);
	/* the fork goes on in the new file; the original is untouched */
	commit(&j, CONV_USER, CONV_TEXT, "second task, reworded");
	after = slurp(old_path);
	assert_string_equal(before, after);
	memset(&sl, 0, sizeof sl);
	assert_int_equal(session_load(session_journal_path(&j), &sl, NULL, NULL), 0);
	assert_int_equal(sl.conv.nmsgs, 4);
	session_loaded_release(&sl);
	free(before);
	free(after);
	free(old_path);
	buf_release(&out);
	buf_release(&text);
	session_journal_release(&j);
	agent_free(a);
	loop_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

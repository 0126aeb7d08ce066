/*
 * test_microcompact: the digests, the batch rule (once every K turns,
 * whole turns, the last K verbatim), stability (a digest never changes
 * and is never digested again) and the same result when a session is
 * resumed from its original messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/cfg.h"
#include "llm/conv.h"
#include "llama/wire.h"
#include "agent/microcompact.h"

static void
test_cutoff(void **state)
{
	(void)state;
	assert_int_equal(agent_microcompact_cutoff(5, 0), 0);
	assert_int_equal(agent_microcompact_cutoff(0, 3), 0);
	assert_int_equal(agent_microcompact_cutoff(5, 3), 0);
	assert_int_equal(agent_microcompact_cutoff(6, 3), 3);
	assert_int_equal(agent_microcompact_cutoff(8, 3), 3);
	assert_int_equal(agent_microcompact_cutoff(9, 3), 6);
	assert_int_equal(agent_microcompact_cutoff(12, 6), 6);
	assert_int_equal(agent_microcompact_cutoff(17, 6), 6);
	assert_int_equal(agent_microcompact_cutoff(18, 6), 12);
}

/* A long numbered read result: lines first..last. */
static void
read_result(struct buf *b, long first, long last, long total)
{
	long i;

	for (i = first; i <= last; i++)
		buf_addf(b, "%6ld\tline %ld of some source file with enough text to matter\n", i, i);
	buf_addf(b, "[showing lines %ld-%ld of %ld; call read with offset=%ld to continue]", first, last,
		 total, last + 1);
}

static void
test_digests(void **state)
{
	struct buf r = BUF_INIT, d = BUF_INIT;
	long i;

	(void)state;
	read_result(&r, 10, 60, 300);
	agent_microcompact_digest("read", "{\"path\":\"src/a.c\",\"offset\":10}", r.data, 0, &d);
	assert_string_equal(d.data, AGENT_MICROCOMPACT_MARK "read src/a.c lines 10-60 of 300; read it again if needed]");
	buf_reset(&r);
	buf_reset(&d);
	for (i = 0; i < 40; i++)
		buf_addf(&r, "compiling unit %ld\n", i);
	buf_adds(&r, "error: x undeclared\nexit code: 2");
	agent_microcompact_digest("bash", "{\"command\":\"make -j2\\nmake test\"}", r.data, 0, &d);
	assert_string_equal(d.data, AGENT_MICROCOMPACT_MARK "bash `make -j2 make test`, 42 lines of output, the last ones:\n"
				    "compiling unit 38\ncompiling unit 39\nerror: x undeclared\nexit code: 2]");
	buf_reset(&r);
	buf_reset(&d);
	for (i = 1; i <= 25; i++)
		buf_addf(&r, "src/f%ld.c:%ld:\tfoo(bar);\n", i, i * 3);
	agent_microcompact_digest("grep", "{\"pattern\":\"foo\\\\(\",\"path\":\"src\"}", r.data, 0, &d);
	assert_string_equal(d.data, AGENT_MICROCOMPACT_MARK "grep \"foo\\(\" in src: 25 matching lines; search again if needed]");
	buf_reset(&d);
	agent_microcompact_digest("outline", NULL, r.data, 1, &d);
	assert_string_equal(d.data, AGENT_MICROCOMPACT_MARK "(error) outline, 25 lines, 588 bytes; run it again if needed]");
	buf_reset(&d);
	agent_microcompact_digest(NULL, "not json", "", 0, &d); /* bad input: still one line, no crash */
	assert_string_equal(d.data, AGENT_MICROCOMPACT_MARK "tool, 0 lines, 0 bytes; run it again if needed]");
	buf_release(&r);
	buf_release(&d);
}

/* n turns: each a task, a read call, its long result, and an answer; one small result too. */
static void
build(struct conv *c, int from, int n)
{
	int t;

	conv_init(c);
	conv_set_system(c, "sys");
	for (t = from; t < from + n; t++) {
		struct conv_msg *m;
		struct buf r = BUF_INIT;
		char id[16], id2[16], task[32];

		snprintf(task, sizeof task, "task %d", t);
		conv_add_user_text(c, task);
		snprintf(id, sizeof id, "c%d", t);
		snprintf(id2, sizeof id2, "s%d", t);
		m = conv_add_msg(c, CONV_ASSISTANT);
		conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"f.c\"}", id, "read");
		conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"true\"}", id2, "bash");
		read_result(&r, 1, 40, 40);
		m = conv_add_msg(c, CONV_USER);
		conv_add_block(m, CONV_TOOL_RESULT, r.data, id, "read");
		conv_add_block(m, CONV_TOOL_RESULT, "exit code: 0", id2, "bash");
		m = conv_add_msg(c, CONV_ASSISTANT);
		conv_add_block(m, CONV_TEXT, "ok", NULL, NULL);
		buf_release(&r);
	}
}

static int
digested_turns(const struct conv *c)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->nmsgs; i++)
		n += c->msgs[i].role == CONV_USER && c->msgs[i].nblocks == 2 &&
		     !strncmp(c->msgs[i].blocks[0].text, AGENT_MICROCOMPACT_MARK, strlen(AGENT_MICROCOMPACT_MARK));
	return n;
}

static struct llama_wire_memo g_memo; /* the llama provider's kept prefix, across wire() calls */

/* Serialised messages as a llama request would send them; the kept prefix must agree. */
static void
wire(const struct conv *c, struct buf *out)
{
	struct cfg cfg;
	struct provider_req req = { 0 };
	struct buf kept = BUF_INIT;

	cfg_defaults(&cfg);
	req.conv = c;
	buf_reset(out);
	llama_wire_request(&cfg, "m", &req, out);
	llama_wire_request_memo(&cfg, "m", &req, NULL, &g_memo, &kept);
	assert_string_equal(kept.data, out->data); /* a digest touches its message (conv_msg_touch) */
	buf_release(&kept);
	cfg_release(&cfg);
}

static void
test_batches_and_stability(void **state)
{
	struct conv c, resumed;
	struct agent_microcompact_stats st = { 0 }, st2 = { 0 };
	struct buf before = BUF_INIT, after = BUF_INIT, why = BUF_INIT;
	int t, changes = 0;

	(void)state;
	llama_wire_memo_init(&g_memo);
	build(&c, 0, 0);
	for (t = 0; t < 20; t++) {
		struct conv one;
		int n;

		/* the session grows by one turn; then turn t+1 is about to start */
		build(&one, t, 1);
		conv_move_msgs(&c, &one);
		conv_release(&one);
		wire(&c, &before);
		buf_reset(&why);
		n = agent_microcompact_turn(&c, 3, &st, &why);
		wire(&c, &after);
		if (n) {
			changes++;
			assert_int_equal((t + 1) % 3, 0); /* only at batch turns */
			assert_int_equal(n, 3);           /* a whole batch of 3 turns (the small results stay) */
			assert_non_null(strstr(why.data, "MicroCompact: 3 old tool results digested"));
			assert_string_not_equal(before.data, after.data);
		} else {
			assert_string_equal(before.data, after.data); /* the prefix is untouched between batches */
			assert_int_equal(why.len, 0);
		}
		assert_int_equal(digested_turns(&c), agent_microcompact_cutoff(t + 1, 3));
		/* applying again changes nothing: digests are final */
		assert_int_equal(agent_microcompact_apply(&c, 3, &st2), 0);
	}
	assert_int_equal(changes, 5); /* turns 6, 9, 12, 15, 18 */
	assert_int_equal(st.events, 5);
	assert_int_equal(st.digested, 15);
	assert_true(st.bytes_after * 5 < st.bytes_before);
	/* a resumed session (original messages) digests the same at the same turn */
	build(&resumed, 0, 20);
	assert_int_equal(agent_microcompact_apply(&resumed, 3, &st2), 15);
	llama_wire_memo_release(&g_memo);
	wire(&resumed, &before);
	wire(&c, &after);
	assert_string_equal(before.data, after.data);
	assert_int_equal(agent_microcompact_apply(&resumed, 0, &st2), 0); /* off */
	llama_wire_memo_release(&g_memo);
	conv_release(&resumed);
	conv_release(&c);
	buf_release(&before);
	buf_release(&after);
	buf_release(&why);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cutoff),
		cmocka_unit_test(test_digests),
		cmocka_unit_test(test_batches_and_stability),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

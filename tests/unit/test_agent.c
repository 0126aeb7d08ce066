/*
 * test_agent: the turn loop against a scripted fake provider (fakeprov)
 * and the real tools in a temp workspace.  Each fake step is a list of
 * events that the provider delivers from a zero-delay timer, as a real
 * stream would be delivered from loop callbacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "llm/conv.h"
#include "fakeprov.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "testutil.h"
#include "llm/tool.h"

struct obs {
	struct buf shown; /* TEXT the observer was shown live */
	int commits;      /* on_commit calls */
	const struct conv_msg *last_commit;
	int ended;
	enum agent_end end;
	char msg[512];
	int notices, tool_done;
	struct buf text;
};

static void
obs_end(void *arg, enum agent_end end, const char *message)
{
	struct obs *o = arg;

	o->ended = 1;
	o->end = end;
	strncpy(o->msg, message, sizeof o->msg - 1);
}

static void
obs_event(void *arg, const struct llm_event *ev)
{
	struct obs *o = arg;

	if (ev->kind == LLM_TEXT)
		buf_add(&o->shown, ev->text.p, ev->text.len);
}

static void
obs_commit(void *arg, const struct conv_msg *m)
{
	struct obs *o = arg;

	o->commits++;
	o->last_commit = m;
}

static void
obs_notice(void *arg, const char *line)
{
	(void)line;
	((struct obs *)arg)->notices++;
}

static void
obs_tool_done(void *arg, const struct agent_call *c)
{
	(void)c;
	((struct obs *)arg)->tool_done++;
}

struct env {
	struct fakeprov_ws ws;
	struct fakeprov fake;
	struct obs obs;
	struct agent *agent;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);

	fakeprov_ws_init(&e->ws, "alpha\nbeta\n");
	fakeprov_init(&e->fake, e->ws.loop, "llama");
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	agent_free(e->agent);
	buf_release(&e->obs.shown);
	fakeprov_ws_release(&e->ws);
	free(e);
	return 0;
}

/* Build the agent with all tools and run one turn to its end. */
static void
run_turn(struct env *e, int max_steps, const char *task)
{
	struct agent_observer ob = { 0 };
	struct agent_opts ao = { 0 };
	size_t n;

	ao.tools = tool_all(&n);
	ao.ntools = n;
	ao.max_steps = max_steps;
	ob.arg = &e->obs;
	ob.on_end = obs_end;
	ob.on_notice = obs_notice;
	ob.on_tool_done = obs_tool_done;
	ob.on_event = obs_event;
	ob.on_commit = obs_commit;
	ob.commit_arg = &e->obs;
	e->agent = agent_new(e->ws.loop, &e->fake.prov, &e->ws.tenv, &ao, &ob);
	conv_set_system(agent_conv(e->agent), "system");
	assert_int_equal(agent_submit(e->agent, task, NULL), 0);
	assert_true(tu_run_until(e->ws.loop, &e->obs.ended, 5000));
}

/* The i-th block of message m. */
static const struct conv_block *
blk(struct env *e, size_t m, size_t i)
{
	struct conv *c = agent_conv(e->agent);

	assert_true(m < c->nmsgs);
	assert_true(i < c->msgs[m].nblocks);
	return &c->msgs[m].blocks[i];
}

static void
test_plain_answer(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_TEXT("Hel"), EV_TEXT("lo."), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	run_turn(e, 10, "say hello");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(agent_conv(e->agent)->nmsgs, 2);
	assert_string_equal(blk(e, 1, 0)->text, "Hello.");
	assert_int_equal(agent_stats(e->agent)->steps, 1);
	assert_int_equal(e->obs.commits, 2);
	agent_mark_committed(e->agent); /* nothing new: no more commits */
	assert_int_equal(e->obs.commits, 2);
}

static void
test_tool_call_then_answer(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_BEGIN(0, "id1", "read"), EV_ARGS(0, "{\"path\":"),
				EV_ARGS(0, "\"f.txt\"}"), EV_END(0), EV_DONE("tool_calls") };
	struct fakeprov_ev s1[] = { EV_TEXT("It says alpha."), EV_DONE("stop") };
	const struct conv_block *b;

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "read f.txt");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	/* user, assistant(tool_call), user(tool_result), assistant(text) */
	assert_int_equal(agent_conv(e->agent)->nmsgs, 4);
	b = blk(e, 1, 0);
	assert_int_equal(b->kind, CONV_TOOL_CALL);
	assert_string_equal(b->id, "id1");
	assert_string_equal(b->text, "{\"path\":\"f.txt\"}");
	b = blk(e, 2, 0);
	assert_int_equal(b->kind, CONV_TOOL_RESULT);
	assert_string_equal(b->id, "id1");
	assert_false(b->is_error);
	assert_non_null(strstr(b->text, "alpha"));
	assert_int_equal(e->fake.starts, 2);
	/* each request sees the previous one's messages plus the new ones */
	assert_int_equal(e->fake.nmsgs_at_start[0], 1);
	assert_int_equal(e->fake.nmsgs_at_start[1], 3);
	/* each message reported once, in order, for the session file */
	assert_int_equal(e->obs.commits, 4);
	assert_ptr_equal(e->obs.last_commit, &agent_conv(e->agent)->msgs[3]);
}

static void
test_tool_call_recovered_from_text(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = {
		EV_TEXT("Let me look.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": "),
		EV_TEXT("\"f.txt\"}}\n</tool_call>"), EV_DONE("stop")
	};
	struct fakeprov_ev s1[] = { EV_TEXT("Done."), EV_DONE("stop") };
	const struct conv_block *b;

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "read f.txt");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(e->obs.tool_done, 1);
	assert_true(e->obs.notices >= 1);
	/* visible text keeps the prose, loses the markup */
	b = blk(e, 1, 0);
	assert_int_equal(b->kind, CONV_TEXT);
	assert_null(strstr(b->text, "<tool_call>"));
	assert_non_null(strstr(b->text, "Let me look."));
	b = blk(e, 1, 1);
	assert_int_equal(b->kind, CONV_TOOL_CALL);
	assert_string_equal(b->name, "read");
	assert_non_null(blk(e, 1, 1)->id);
	assert_non_null(strstr(blk(e, 2, 0)->text, "beta"));
}

static void
test_parse_error_retried_once(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_TEXT("garbage"),
				EV_ERR(LLM_ERR_TOOL_PARSE, "does not match the expected format") };
	struct fakeprov_ev s1[] = { EV_TEXT("Fine."), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(e->fake.starts, 2);
	assert_int_equal(e->fake.retries, 1);
	/* the retry sent exactly the same conversation */
	assert_int_equal(e->fake.nmsgs_at_start[0], e->fake.nmsgs_at_start[1]);
	assert_int_equal(agent_stats(e->agent)->steps, 1);
}

static void
test_parse_error_twice_tells_model(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_ERR(LLM_ERR_TOOL_PARSE, "does not match the expected format") };
	struct fakeprov_ev s2[] = { EV_TEXT("Plain answer."), EV_DONE("stop") };
	struct conv *c;

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s0);
	FAKEPROV_STEP(&e->fake, 2, s2);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(e->fake.starts, 3);
	c = agent_conv(e->agent);
	/* user, assistant(placeholder), user(failure notice), assistant */
	assert_int_equal(c->nmsgs, 4);
	assert_non_null(strstr(blk(e, 2, 0)->text, "could not be parsed"));
	assert_int_equal(agent_stats(e->agent)->tool_failures, 1);
}

static void
test_text_call_in_errored_stream_is_used(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = {
		EV_TEXT("<tool_call>\n{\"name\":\"read\",\"arguments\":{\"path\":\"f.txt\"}}\n</tool_call>"),
		EV_ERR(LLM_ERR_TOOL_PARSE, "does not match the expected format")
	};
	struct fakeprov_ev s1[] = { EV_TEXT("ok"), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(e->fake.retries, 0);
	assert_int_equal(e->obs.tool_done, 1);
}

static void
test_invalid_arguments_go_back_to_model(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_BEGIN(0, "a", "read"), EV_ARGS(0, "{\"path\": oops"),
				EV_BEGIN(1, "b", "nosuch"), EV_ARGS(1, "{}"),
				EV_BEGIN(2, "c", "edit"), EV_ARGS(2, "{\"path\":\"f.txt\"}"),
				EV_DONE("tool_calls") };
	struct fakeprov_ev s1[] = { EV_TEXT("sorry"), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_true(blk(e, 2, 0)->is_error);
	assert_non_null(strstr(blk(e, 2, 0)->text, "not valid JSON"));
	assert_non_null(strstr(blk(e, 2, 0)->text, "\"path\"")); /* the schema is quoted */
	assert_true(blk(e, 2, 1)->is_error);
	assert_non_null(strstr(blk(e, 2, 1)->text, "unknown tool \"nosuch\""));
	assert_non_null(strstr(blk(e, 2, 1)->text, "read, write, edit"));
	assert_true(blk(e, 2, 2)->is_error);
	assert_non_null(strstr(blk(e, 2, 2)->text, "old_text"));
	assert_int_equal(agent_stats(e->agent)->tool_failures, 3);
	assert_int_equal(agent_stats(e->agent)->consecutive_tool_failures, 1);
	/* the file was not touched */
	{
		char *f = tu_read(e->ws.dir, "f.txt");

		assert_string_equal(f, "alpha\nbeta\n");
		free(f);
	}
}

static void
test_max_steps(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_BEGIN(0, NULL, "ls"), EV_ARGS(0, "{}"), EV_DONE("tool_calls") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	e->fake.repeat_last = 1;
	run_turn(e, 3, "loop forever");
	assert_int_equal(e->obs.end, AGENT_END_MAX_STEPS);
	assert_int_equal(e->fake.starts, 3);
	assert_non_null(strstr(e->obs.msg, "max-steps"));
	assert_int_equal(e->obs.tool_done, 3);
}

static void
test_error_ends_turn_with_description(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_TEXT("partial"), EV_ERR(LLM_ERR_DISCONNECTED, "connection lost") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_ERROR);
	assert_string_equal(e->obs.msg, "described: connection lost");
	/* the partial answer is kept and marked aborted */
	assert_int_equal(agent_conv(e->agent)->nmsgs, 2);
	assert_true(agent_conv(e->agent)->msgs[1].aborted);
}

static void
test_length_without_answer_is_an_error(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_DONE("length") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_ERROR);
	assert_non_null(strstr(e->obs.msg, "token limit"));
}

static void
test_abort_while_streaming(void **state)
{
	struct env *e = *state;
	struct agent_observer ob = { 0 };
	struct agent_opts ao = { 0 };

	/* nothing scripted: the provider never answers */
	ob.arg = &e->obs;
	ob.on_end = obs_end;
	e->agent = agent_new(e->ws.loop, &e->fake.prov, &e->ws.tenv, &ao, &ob);
	assert_int_equal(agent_submit(e->agent, "x", NULL), 0);
	assert_true(agent_busy(e->agent));
	assert_int_equal(agent_submit(e->agent, "y", NULL), -1);
	agent_abort(e->agent);
	assert_true(e->obs.ended);
	assert_int_equal(e->obs.end, AGENT_END_ABORTED);
	assert_int_equal(e->fake.cancels, 1);
	assert_false(agent_busy(e->agent));
}

static void
test_abort_kills_running_bash(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_BEGIN(0, "b1", "bash"), EV_ARGS(0, "{\"command\":\"sleep 30\"}"),
				EV_DONE("tool_calls") };
	struct agent_observer ob = { 0 };
	struct agent_opts ao = { 0 };
	size_t n;
	int spins = 0;

	FAKEPROV_STEP(&e->fake, 0, s0);
	ao.tools = tool_all(&n);
	ao.ntools = n;
	ob.arg = &e->obs;
	ob.on_end = obs_end;
	e->agent = agent_new(e->ws.loop, &e->fake.prov, &e->ws.tenv, &ao, &ob);
	assert_int_equal(agent_submit(e->agent, "x", NULL), 0);
	while (spins++ < 50)
		loop_run_once(e->ws.loop, 10, NULL);
	assert_false(e->obs.ended); /* bash is running */
	agent_abort(e->agent);
	assert_true(e->obs.ended);
	assert_int_equal(e->obs.end, AGENT_END_ABORTED);
	/* the tool result exists so the transcript stays well-formed */
	assert_int_equal(agent_conv(e->agent)->nmsgs, 3);
	assert_int_equal(blk(e, 2, 0)->kind, CONV_TOOL_RESULT);
	assert_true(blk(e, 2, 0)->is_error);
}

static void
test_markup_not_streamed(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_TEXT("Sure.\n<to"), EV_TEXT("ol_call>\n{\"name\": \"ls\", "),
				EV_TEXT("\"arguments\": {}}\n</tool_call>"), EV_DONE("stop") };
	struct fakeprov_ev s1[] = { EV_TEXT("a <b> c"), EV_TEXT(" <tool"), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	/* the markup never reached the observer; a held "<tool" was released at the end */
	assert_string_equal(e->obs.shown.data, "Sure.\na <b> c <tool");
	assert_int_equal(e->obs.tool_done, 1);
}

static void
test_cut_off_answer_is_an_error(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_TEXT("The answer is"), EV_DONE("length") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_ERROR);
	assert_non_null(strstr(e->obs.msg, "cut off"));
}

static void
test_parse_failures_in_a_row_end_the_turn(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_ERR(LLM_ERR_TOOL_PARSE, "does not match the expected format") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	e->fake.repeat_last = 1;
	run_turn(e, 40, "x");
	assert_int_equal(e->obs.end, AGENT_END_ERROR);
	assert_non_null(strstr(e->obs.msg, "3 times in a row"));
	assert_int_equal(e->fake.starts, 6); /* each step: request + one retry */
	assert_int_equal(agent_stats(e->agent)->requests, 6);
	assert_int_equal(agent_stats(e->agent)->steps, 3);
}

static void
test_transient_error_is_retried(void **state)
{
	struct env *e = *state;
	struct fakeprov_ev s0[] = { EV_ERR(LLM_ERR_HTTP, "bad gateway") };
	struct fakeprov_ev s1[] = { EV_TEXT("fine"), EV_DONE("stop") };

	FAKEPROV_STEP(&e->fake, 0, s0);
	FAKEPROV_STEP(&e->fake, 1, s1);
	run_turn(e, 10, "x");
	assert_int_equal(e->obs.end, AGENT_END_OK);
	assert_int_equal(e->fake.starts, 2);
	assert_true(e->obs.notices >= 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plain_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool_call_then_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool_call_recovered_from_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_error_retried_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_error_twice_tells_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_call_in_errored_stream_is_used, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_arguments_go_back_to_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_ends_turn_with_description, setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_without_answer_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_while_streaming, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_kills_running_bash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_markup_not_streamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_off_answer_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_failures_in_a_row_end_the_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transient_error_is_retried, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

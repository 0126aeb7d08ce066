/*
 * test_agentstep: the agent's step hook (the router's seat between
 * steps) with two scripted providers, "llama" and "anthropic": the hook
 * is asked between steps and where a turn would end, may switch the
 * provider and continue the turn; a provider's add_reasoning puts its
 * own reasoning blocks into the message.
 *
 * A script is a string, one letter per request: 't' a read tool call,
 * 'a' an answer, 'b' an invalid tool call (no arguments), 'c' a
 * connection error, 'd' part of an answer then the stream cut (a server
 * killed mid-answer); after the script, answers (fakeprov plays it).
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
#include "base/xmalloc.h"

struct env {
	struct fakeprov_ws ws;
	struct fakeprov local, claude;
	struct agent *agent;
	int ended;
	enum agent_end end;
	int whys[32], nwhys;
	int continue_on;          /* the why the hook answers 1 to (once), -1 none */
	int switch_on;            /* the why on which the hook switches to claude, -1 none */
	const char *add_note;     /* a user message the hook appends when it continues */
	int notices;
	int discarded;            /* notices that a partial answer was discarded */
};

/* The "anthropic" fake keeps its reasoning as a signed block. */
static void
fp_add_reasoning(void *self, struct conv_msg *m)
{
	struct conv_block *b = conv_add_block(m, CONV_REASONING, "signed thought", NULL, NULL);

	(void)self;
	b->provider = xstrdup("anthropic");
	b->signature = xstrdup("SIG");
}

/* A fake provider called name playing the script (see the top of the file). */
static void
fp_init(struct fakeprov *f, struct loop *l, const char *name, const char *script)
{
	const struct fakeprov_ev error[] = { EV_ERR(LLM_ERR_CONNECT, "connection refused") };
	const struct fakeprov_ev answer[] = { EV_REASONING("thinking..."), EV_TEXT(name), EV_DONE("stop") };
	const struct fakeprov_ev cut[] = { EV_REASONING("half a thought"), EV_TEXT("PARTIAL"),
					   EV_ERR(LLM_ERR_DISCONNECTED, "stream cut") };
	int i;

	fakeprov_init(f, l, name);
	for (i = 0; script[i]; i++)
		if (script[i] == 't' || script[i] == 'b')
			fakeprov_call(f, i, "call1", "read", script[i] == 't' ? "{\"path\":\"f.txt\"}" : "{}");
		else if (script[i] == 'c')
			FAKEPROV_STEP(f, i, error);
		else if (script[i] == 'd')
			FAKEPROV_STEP(f, i, cut);
		else
			FAKEPROV_STEP(f, i, answer);
	FAKEPROV_STEP(f, i, answer); /* and answers from then on */
	f->repeat_last = 1;
}

/* The hook under test: records, switches, continues. */
static int
hook(void *arg, struct agent *a, enum agent_step_why why, struct buf *note)
{
	struct env *e = arg;

	if (e->nwhys < 32)
		e->whys[e->nwhys++] = why;
	if ((int)why == e->switch_on) {
		agent_set_provider(a, &e->claude.prov);
		buf_adds(note, "switched");
		e->switch_on = -1;
	}
	if ((int)why != e->continue_on)
		return 0;
	e->continue_on = -1;
	if (e->add_note)
		conv_add_user_text(agent_conv(a), e->add_note);
	return 1;
}

static void
on_end(void *arg, enum agent_end end, const char *message)
{
	struct env *e = arg;

	(void)message;
	e->ended = 1;
	e->end = end;
}

static void
on_notice(void *arg, const char *line)
{
	struct env *e = arg;

	e->notices += strcmp(line, "switched") == 0;
	e->discarded += strstr(line, "partial answer") != NULL;
}

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof *e);

	fakeprov_ws_init(&e->ws, "alpha\n");
	e->continue_on = e->switch_on = -1;
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	agent_free(e->agent);
	fakeprov_ws_release(&e->ws);
	free(e);
	return 0;
}

/* Run one turn with the two scripts. */
static void
run(struct env *e, const char *local, const char *claude, int max_steps)
{
	struct agent_observer ob = { 0 };
	struct agent_opts ao = { 0 };
	size_t n;

	fp_init(&e->local, e->ws.loop, "llama", local);
	fp_init(&e->claude, e->ws.loop, "anthropic", claude);
	e->claude.prov.add_reasoning = fp_add_reasoning;
	ao.tools = tool_all(&n);
	ao.ntools = n;
	ao.max_steps = max_steps;
	ob.arg = e;
	ob.on_end = on_end;
	ob.on_notice = on_notice;
	e->agent = agent_new(e->ws.loop, &e->local.prov, &e->ws.tenv, &ao, &ob);
	agent_set_step_hook(e->agent, hook, e);
	assert_int_equal(agent_submit(e->agent, "task", NULL), 0);
	assert_true(tu_run_until(e->ws.loop, &e->ended, 5000));
}

/* Handoff between steps: the next request goes to the other provider. */
static void
test_next_switches(void **state)
{
	struct env *e = *state;
	struct conv *c;

	e->switch_on = AGENT_STEP_NEXT;
	run(e, "t", "a", 10);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(e->local.starts, 1);
	assert_int_equal(e->claude.starts, 1);
	assert_int_equal(e->notices, 1);
	assert_int_equal(e->whys[0], AGENT_STEP_NEXT);
	assert_int_equal(e->whys[1], AGENT_STEP_ANSWERED);
	c = agent_conv(e->agent);
	/* user, assistant(call), user(result), assistant(signed thinking + text) */
	assert_int_equal(c->nmsgs, 4);
	assert_int_equal(c->msgs[3].blocks[0].kind, CONV_REASONING);
	assert_string_equal(c->msgs[3].blocks[0].signature, "SIG");
	assert_string_equal(c->msgs[3].blocks[1].text, "anthropic");
}

/* A consult: the answer does not end the turn; the hook adds a note and goes back. */
static void
test_answered_continues(void **state)
{
	struct env *e = *state;
	struct conv *c;

	e->continue_on = AGENT_STEP_ANSWERED;
	e->add_note = "go on with the plan";
	run(e, "aa", "", 10);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(e->local.starts, 2);
	c = agent_conv(e->agent);
	assert_int_equal(c->nmsgs, 4);
	assert_string_equal(c->msgs[2].blocks[0].text, "go on with the plan");
	/* the local provider has no add_reasoning: its reasoning is one block, made by "llama" */
	assert_string_equal(c->msgs[1].blocks[0].provider, "llama");
	assert_null(c->msgs[1].blocks[0].signature);
}

/* At the step limit the hook may hand off with a fresh budget. */
static void
test_max_steps_handoff(void **state)
{
	struct env *e = *state;

	e->switch_on = AGENT_STEP_MAX_STEPS;
	e->continue_on = AGENT_STEP_MAX_STEPS;
	run(e, "tttt", "ta", 2);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(e->local.starts, 2);
	assert_int_equal(e->claude.starts, 2);
}

/* Without a continuing hook the step limit still ends the turn. */
static void
test_max_steps_ends(void **state)
{
	struct env *e = *state;

	run(e, "tttt", "", 2);
	assert_int_equal(e->end, AGENT_END_MAX_STEPS);
	assert_int_equal(e->whys[e->nwhys - 1], AGENT_STEP_MAX_STEPS);
}

/* Unreachable server: the hook is asked before the turn fails, and the step is redone. */
static void
test_server_down_handoff(void **state)
{
	struct env *e = *state;

	e->switch_on = AGENT_STEP_SERVER_DOWN;
	e->continue_on = AGENT_STEP_SERVER_DOWN;
	run(e, "c", "a", 10);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(e->claude.starts, 1);
	assert_int_equal(e->whys[0], AGENT_STEP_SERVER_DOWN);
	assert_int_equal(agent_stats(e->agent)->steps, 1);
}

/*
 * The stream is cut mid-answer (a server killed while it streamed): the
 * hook is asked, the other provider answers the same request, and the
 * partial answer is neither in the conversation nor sent again.
 */
static void
test_cut_mid_answer_moves_on(void **state)
{
	struct env *e = *state;
	struct conv *c;
	size_t i, j;

	e->switch_on = AGENT_STEP_STREAM_CUT;
	e->continue_on = AGENT_STEP_STREAM_CUT;
	run(e, "td", "a", 10);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(e->local.starts, 2);
	assert_int_equal(e->claude.starts, 1);
	assert_int_equal(e->whys[1], AGENT_STEP_STREAM_CUT);
	assert_int_equal(e->discarded, 1);
	c = agent_conv(e->agent);
	/* user, assistant(call), user(result), assistant(claude's answer) */
	assert_int_equal(c->nmsgs, 4);
	for (i = 0; i < c->nmsgs; i++)
		for (j = 0; j < c->msgs[i].nblocks; j++)
			assert_true(!c->msgs[i].blocks[j].text ||
				    (!strstr(c->msgs[i].blocks[j].text, "PARTIAL") &&
				     !strstr(c->msgs[i].blocks[j].text, "half a thought")));
	assert_string_equal(c->msgs[3].blocks[1].text, "anthropic");
	assert_int_equal(agent_stats(e->agent)->steps, 2);
}

/* Cut mid-answer with nobody to move to: the turn ends, the partial answer kept as aborted. */
static void
test_cut_mid_answer_ends_without_hook(void **state)
{
	struct env *e = *state;
	struct conv *c;

	run(e, "d", "", 10);
	assert_int_equal(e->end, AGENT_END_ERROR);
	assert_int_equal(e->whys[0], AGENT_STEP_STREAM_CUT);
	assert_int_equal(e->discarded, 0);
	c = agent_conv(e->agent);
	assert_int_equal(c->nmsgs, 2);
	assert_true(c->msgs[1].aborted);
}

/* Invalid calls count as consecutive failures the hook can read at NEXT. */
static void
test_failures_visible_at_next(void **state)
{
	struct env *e = *state;

	run(e, "bbba", "", 10);
	assert_int_equal(e->end, AGENT_END_OK);
	assert_int_equal(agent_stats(e->agent)->consecutive_tool_failures, 3);
	assert_int_equal(e->whys[2], AGENT_STEP_NEXT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_next_switches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answered_continues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_steps_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_steps_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_mid_answer_moves_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_mid_answer_ends_without_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_down_handoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_visible_at_next, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

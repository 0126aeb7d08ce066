/*
 * test_prefix: the prompt-cache contract over a whole session.  A
 * 20-turn scripted session runs through the real agent; every request is
 * serialised with the real llama wire format, and each request's messages
 * must be a byte-exact prefix of the next request's (the server can then
 * reuse everything it already has in the slot) — with one planned
 * exception at a new user turn: the assistant messages of earlier turns
 * lose their reasoning and, when the template probe found one, gain the
 * generation prefix (docs/cache.md: the chat template renders them that
 * way, so the rendered prompt stays a prefix).  That change happens once
 * per message: its bytes never change again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent.h"
#include "cfg.h"
#include "llamawire.h"
#include "loop.h"
#include "provider.h"
#include "testutil.h"
#include "tool.h"

#define TURNS 20
#define MAX_REQ 128

struct scripted {
	struct loop *loop;
	struct cfg cfg;
	char *msgs[MAX_REQ]; /* "messages" of each request, serialised */
	char *tools[MAX_REQ];
	int nreq;
	int step_in_turn;
	int turn_of[MAX_REQ]; /* the user turn each request belongs to */
	int turn;
	const char *gen_prefix;
	llm_sink_fn sink;
	void *ctx;
	long timer;
	char callid[32];
};

/* Emit: odd steps of a turn call a tool, even steps answer. */
static void
scripted_fire(struct loop *l, long id, void *arg)
{
	struct scripted *s = arg;
	struct llm_event ev;

	(void)l;
	(void)id;
	s->timer = 0;
	memset(&ev, 0, sizeof ev);
	if (s->step_in_turn++ == 0) {
		snprintf(s->callid, sizeof s->callid, "id%08d", s->nreq);
		ev.kind = LLM_REASONING;
		ev.text = str_from("planning…");
		s->sink(s->ctx, &ev);
		ev.kind = LLM_TEXT;
		ev.text = str_from("Reading \"f.txt\" — ünïcode ✓\n");
		s->sink(s->ctx, &ev);
		ev.kind = LLM_TOOL_CALL_BEGIN;
		ev.id = s->callid;
		ev.name = "read";
		s->sink(s->ctx, &ev);
		ev.kind = LLM_TOOL_CALL_ARGS;
		ev.text = str_from("{\"path\": \"f.txt\", \"limit\": 5}");
		s->sink(s->ctx, &ev);
		ev.kind = LLM_DONE;
		ev.stop_reason = "tool_calls";
		s->sink(s->ctx, &ev);
		return;
	}
	s->step_in_turn = 0;
	ev.kind = LLM_REASONING;
	ev.text = str_from("thinking…");
	s->sink(s->ctx, &ev);
	ev.kind = LLM_TEXT;
	ev.text = str_from("Done. It says alpha.\x1b[0m");
	s->sink(s->ctx, &ev);
	ev.kind = LLM_DONE;
	ev.stop_reason = "stop";
	s->sink(s->ctx, &ev);
}

/* provider.start: serialise exactly as the llama provider would, then answer. */
static int
scripted_start(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx,
	       struct err *e)
{
	struct scripted *s = self;
	struct buf body = BUF_INIT;
	cJSON *j;

	(void)e;
	llamawire_request_gen(&s->cfg, "m", req, s->gen_prefix, &body);
	j = cJSON_Parse(body.data);
	assert_non_null(j);
	assert_true(s->nreq < MAX_REQ);
	s->msgs[s->nreq] = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "messages"));
	s->tools[s->nreq] = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "tools"));
	s->turn_of[s->nreq] = s->turn;
	s->nreq++;
	cJSON_Delete(j);
	buf_release(&body);
	s->sink = sink;
	s->ctx = ctx;
	s->timer = loop_timer_add(s->loop, 0, scripted_fire, s);
	return 0;
}

static void
scripted_cancel(void *self)
{
	struct scripted *s = self;

	if (s->timer)
		loop_timer_del(s->loop, s->timer);
	s->timer = 0;
}

static const char *
scripted_model(void *self)
{
	(void)self;
	return "m";
}

static void
scripted_describe(void *self, const struct llm_event *ev, struct buf *out)
{
	(void)self;
	buf_add(out, ev->text.p, ev->text.len);
}

static void
on_end(void *arg, enum agent_end end, const char *message)
{
	(void)message;
	assert_int_equal(end, AGENT_END_OK);
	*(int *)arg = 1;
}

/* Message k of a request's messages JSON, printed (cJSON_free it). */
static char *
msg_at(const char *msgs, int k, int normalise, const char *gen_prefix)
{
	cJSON *arr = cJSON_Parse(msgs), *m = cJSON_GetArrayItem(arr, k), *c;
	char *out;

	assert_non_null(m);
	if (normalise) {
		cJSON_DeleteItemFromObject(m, "reasoning_content");
		c = cJSON_GetObjectItem(m, "content");
		if (gen_prefix && cJSON_IsString(c) &&
		    !strncmp(c->valuestring, gen_prefix, strlen(gen_prefix)))
			cJSON_ReplaceItemInObject(m, "content",
						  cJSON_CreateString(c->valuestring + strlen(gen_prefix)));
	}
	out = cJSON_PrintUnformatted(m);
	cJSON_Delete(arr);
	return out;
}

/* Within a turn: a byte prefix.  At a new turn: a prefix once normalised; no message changes twice. */
static void
check_prefixes(struct scripted *s)
{
	int i, k, n, changes[2 * MAX_REQ] = { 0 };

	for (i = 0; i + 1 < s->nreq; i++) {
		size_t pl = strlen(s->msgs[i]) - 1; /* without the closing ']' */
		cJSON *a = cJSON_Parse(s->msgs[i]);

		n = cJSON_GetArraySize(a);
		cJSON_Delete(a);
		if (s->turn_of[i] == s->turn_of[i + 1] &&
		    (strncmp(s->msgs[i], s->msgs[i + 1], pl) != 0 || s->msgs[i + 1][pl] != ','))
			fail_msg("request %d's messages are not a prefix of request %d's", i, i + 1);
		for (k = 0; k < n; k++) {
			char *x = msg_at(s->msgs[i], k, 0, NULL), *y = msg_at(s->msgs[i + 1], k, 0, NULL);
			char *nx = msg_at(s->msgs[i], k, 1, s->gen_prefix);
			char *ny = msg_at(s->msgs[i + 1], k, 1, s->gen_prefix);

			if (strcmp(nx, ny) != 0)
				fail_msg("request %d message %d changed beyond the planned rewrite", i + 1, k);
			if (strcmp(x, y) != 0 && ++changes[k] > 1)
				fail_msg("message %d changed twice (request %d)", k, i + 1);
			cJSON_free(x);
			cJSON_free(y);
			cJSON_free(nx);
			cJSON_free(ny);
		}
		assert_string_equal(s->tools[i], s->tools[i + 1]); /* tool schemas never move */
	}
	/* reasoning goes back within its turn only */
	assert_non_null(strstr(s->msgs[1], "\"reasoning_content\":\"planning"));
	assert_null(strstr(s->msgs[s->nreq - 1], "\"reasoning_content\":\"thinking"));
	n = 0;
	for (const char *p = s->msgs[s->nreq - 1]; (p = strstr(p, "planning")) != NULL; p++)
		n++;
	assert_int_equal(n, 1);
}

static void
run_session(const char *gen_prefix)
{
	struct scripted s;
	struct provider prov = { "llama", &s, scripted_start, scripted_cancel, scripted_model,
				 scripted_describe, NULL, NULL };
	struct tool_env env = { 0 };
	struct agent_opts ao = { 0 };
	struct agent_observer ob = { 0 };
	struct agent *a;
	char *dir = tu_tmpdir();
	int turn, i, ended;
	size_t n;

	memset(&s, 0, sizeof s);
	s.gen_prefix = gen_prefix;
	s.loop = loop_new(NULL);
	cfg_defaults(&s.cfg);
	tu_write(dir, "f.txt", "alpha\nbeta\n");
	env.loop = s.loop;
	env.root = dir;
	ao.tools = tool_all(&n);
	ao.ntools = n;
	ob.arg = &ended;
	ob.on_end = on_end;
	a = agent_new(s.loop, &prov, &env, &ao, &ob);
	conv_set_system(agent_conv(a), "You are a test. Date: 2026-11-21.");
	for (turn = 0; turn < TURNS; turn++) {
		char task[64];

		snprintf(task, sizeof task, "turn %d: read f.txt", turn);
		s.turn = turn;
		ended = 0;
		assert_int_equal(agent_submit(a, task, NULL), 0);
		assert_true(tu_run_until(s.loop, &ended, 5000));
	}
	assert_int_equal(s.nreq, 2 * TURNS);
	check_prefixes(&s);
	if (gen_prefix) /* the previous turns' answers carry it */
		assert_non_null(strstr(s.msgs[s.nreq - 1], "\"content\":\"<think>\\n\\n</think>\\n\\nDone."));
	for (i = 0; i < s.nreq; i++) {
		cJSON_free(s.msgs[i]);
		cJSON_free(s.tools[i]);
	}
	agent_free(a);
	cfg_release(&s.cfg);
	loop_free(s.loop);
	tu_rmrf(dir);
	free(dir);
}

static void
test_twenty_turns_prefix_property(void **state)
{
	(void)state;
	run_session(NULL);
}

static void
test_twenty_turns_with_generation_prefix(void **state)
{
	(void)state;
	run_session("<think>\n\n</think>\n\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twenty_turns_prefix_property),
		cmocka_unit_test(test_twenty_turns_with_generation_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

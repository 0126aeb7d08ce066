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

#include "agent/agent.h"
#include "base/cfg.h"
#include "fakeprov.h"
#include "llama/wire.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "testutil.h"
#include "llm/tool.h"

#define TURNS 20
#define MAX_REQ 128

struct scripted {
	struct fakeprov fake;  /* step 0 calls read, step 1 answers: one turn */
	struct fakeprov_ws ws;
	struct cfg cfg;
	char *msgs[MAX_REQ]; /* "messages" of each request, serialised */
	char *tools[MAX_REQ];
	int nreq;
	int turn_of[MAX_REQ]; /* the user turn each request belongs to */
	int turn;
	const char *gen_prefix;
	char callid[32];
	struct llama_wire_memo memo; /* the llama provider's way: equal bytes, checked each request */
};

static char *msg_at(const char *msgs, int k, int normalise, const char *gen_prefix);

/* fakeprov on_start: serialise exactly as the llama provider would; a fresh call id. */
static void
record(void *arg, const struct provider_req *req)
{
	struct scripted *s = arg;
	struct buf body = BUF_INIT;
	cJSON *j;

	struct buf kept = BUF_INIT;
	int k;

	llama_wire_request_gen(&s->cfg, "m", req, s->gen_prefix, &body);
	llama_wire_request_memo(&s->cfg, "m", req, s->gen_prefix, &s->memo, &kept);
	assert_string_equal(kept.data, body.data);
	buf_release(&kept);
	j = cJSON_Parse(body.data);
	/* what llama_cache is told: each message normalised, as it was parsed from the body before */
	assert_int_equal((int)s->memo.nnotes, cJSON_GetArraySize(cJSON_GetObjectItem(j, "messages")));
	for (k = 0; k < (int)s->memo.nnotes; k++) {
		char *all = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "messages"));
		char *want = msg_at(all, k, 1, s->gen_prefix);

		assert_string_equal(s->memo.notes[k], want);
		cJSON_free(want);
		cJSON_free(all);
	}
	assert_non_null(j);
	assert_true(s->nreq < MAX_REQ);
	s->msgs[s->nreq] = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "messages"));
	s->tools[s->nreq] = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "tools"));
	s->turn_of[s->nreq] = s->turn;
	s->nreq++;
	snprintf(s->callid, sizeof s->callid, "id%08d", s->nreq);
	cJSON_Delete(j);
	buf_release(&body);
}

/* The provider: every turn a read call (with reasoning, text and a fresh id), then an answer. */
static void
script(struct scripted *s)
{
	const struct fakeprov_ev call[] = {
		EV_REASONING("planning…"), EV_TEXT("Reading \"f.txt\" — ünïcode ✓\n"),
		EV_BEGIN(0, s->callid, "read"), EV_ARGS(0, "{\"path\": \"f.txt\", \"limit\": 5}"),
		EV_DONE("tool_calls")
	};
	const struct fakeprov_ev answer[] = {
		EV_REASONING("thinking…"), EV_TEXT("Done. It says alpha.\x1b[0m"), EV_DONE("stop")
	};

	fakeprov_init(&s->fake, s->ws.loop, "llama");
	FAKEPROV_STEP(&s->fake, 0, call);
	FAKEPROV_STEP(&s->fake, 1, answer);
	s->fake.cycle = 1;
	s->fake.on_start = record;
	s->fake.on_start_arg = s;
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
	struct agent_opts ao = { 0 };
	struct agent_observer ob = { 0 };
	struct agent *a;
	int turn, i, ended;
	size_t n;

	memset(&s, 0, sizeof s);
	s.gen_prefix = gen_prefix;
	llama_wire_memo_init(&s.memo);
	fakeprov_ws_init(&s.ws, "alpha\nbeta\n");
	cfg_defaults(&s.cfg);
	script(&s);
	ao.tools = tool_all(&n);
	ao.ntools = n;
	ob.arg = &ended;
	ob.on_end = on_end;
	a = agent_new(s.ws.loop, &s.fake.prov, &s.ws.tenv, &ao, &ob);
	conv_set_system(agent_conv(a), "You are a test. Date: 2026-11-21.");
	for (turn = 0; turn < TURNS; turn++) {
		char task[64];

		snprintf(task, sizeof task, "turn %d: read f.txt", turn);
		s.turn = turn;
		ended = 0;
		assert_int_equal(agent_submit(a, task, NULL), 0);
		assert_true(tu_run_until(s.ws.loop, &ended, 5000));
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
	llama_wire_memo_release(&s.memo);
	fakeprov_ws_release(&s.ws);
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

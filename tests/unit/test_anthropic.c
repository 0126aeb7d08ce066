/*
 * test_anthropic: the Anthropic provider against a forked loopback server
 * that records each request — headers and body, the llama-server fixture
 * one byte at a time, connection refused, cancel from inside the sink,
 * the /v1/models check — plus a local -> Claude -> local round trip of one
 * conversation.  Retries are in test_anthropic_retry.
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

#include "anthropic_fixture.h"
#include "anthropic/anthropic.h"
#include "base/cfg.h"
#include "llm/conv.h"
#include "llama/wire.h"

static void
test_prov_headers_and_stream(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };
	char *req;
	cJSON *body;

	sse_ok(&n->raw[0], synthetic);
	r.chunk = 7;
	net_serve(n, &r, 1);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_string_equal(n->rec.stop, "tool_calls");
	assert_string_equal(n->rec.args.data, "0:{\"comm0:and\": \"ls -0:la\"}");
	req = tu_server_req(&n->srv, 0);
	assert_non_null(req);
	assert_true(!strncmp(req, "POST /v1/messages HTTP/1.1\r\n", 28));
	assert_non_null(tu_strcasestr(req, "\r\nx-api-key: sk-ant-test-KEY123\r\n"));
	assert_non_null(tu_strcasestr(req, "\r\nanthropic-version: 2023-06-01\r\n"));
	assert_non_null(tu_strcasestr(req, "\r\ncontent-type: application/json\r\n"));
	body = cJSON_Parse(strstr(req, "\r\n\r\n") + 4);
	assert_string_equal(jstr(body, "model"), "claude-sonnet-5");
	cJSON_Delete(body);
	free(req);
	assert_int_equal(anthropic_attempts(n->an), 1);
	{
		size_t nth;
		const struct anthropic_decode_thinking *th = anthropic_thinking(n->an, &nth);
		struct conv cv;
		struct conv_msg *m;

		assert_int_equal(nth, 1);
		assert_string_equal(th[0].signature.data, "EqQBCgIYAhIM1gbcDa9GJwZA2b3h");
		conv_init(&cv);
		m = conv_add_msg(&cv, CONV_ASSISTANT);
		anthropic_add_thinking(n->an, m);
		assert_int_equal(m->nblocks, 1);
		assert_int_equal(m->blocks[0].kind, CONV_REASONING);
		assert_string_equal(m->blocks[0].provider, "anthropic");
		assert_string_equal(m->blocks[0].text, "Let me think.");
		assert_string_equal(m->blocks[0].signature, "EqQBCgIYAhIM1gbcDa9GJwZA2b3h");
		conv_release(&cv);
	}
}

static void
test_prov_llama_fixture_one_byte(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };
	struct buf fx = BUF_INIT;

	tu_fixture("v1_messages_stream.sse", &fx);
	sse_ok(&n->raw[0], fx.data);
	buf_release(&fx);
	r.chunk = 1;
	n->o.api_key = NULL; /* llama-server needs no key */
	net_serve(n, &r, 1);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_string_equal(n->rec.stop, "length");
	assert_int_equal(n->rec.usage.cached_tokens, 321);
	{
		char *req = tu_server_req(&n->srv, 0);

		assert_null(tu_strcasestr(req, "x-api-key"));
		free(req);
	}
}

static void
test_prov_connection_refused(void **state)
{
	struct net *n = *state;
	struct buf line = BUF_INIT;
	struct provider *p;

	n->o.max_attempts = 2;
	net_connect(n, tu_closed_port());
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_CONNECT);
	assert_int_equal(anthropic_attempts(n->an), 2);
	p = anthropic_provider(n->an);
	n->rec.last.text = str_from(n->rec.msg);
	p->describe_error(p->self, &n->rec.last, &line);
	assert_non_null(strstr(line.data, "cannot reach the Anthropic API"));
	buf_release(&line);
}

static void
test_prov_cancel_in_sink(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };

	sse_ok(&n->raw[0], synthetic);
	r.chunk = 64;
	r.delay_us = 2000;
	net_serve(n, &r, 1);
	n->cancel_on_text = 1;
	chat(n);
	assert_string_equal(n->rec.text.data, "I'll list \xc3\xa9 files.");
	assert_string_equal(n->rec.log.data, ""); /* no terminal event after cancel */
}

struct models_rec {
	int done, rc, found;
	char msg[512];
};

static void
on_models(int rc, int found, const char *msg, void *arg)
{
	struct models_rec *m = arg;

	m->done = 1;
	m->rc = rc;
	m->found = found;
	snprintf(m->msg, sizeof m->msg, "%s", msg);
}

static void
test_check_models(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2] = { { 0 } };
	struct models_rec m = { 0 };
	struct err e = ERR_INIT;
	char *req;
	static const char list[] = "{\"data\":[{\"id\":\"claude-opus-5\"},{\"id\":\"claude-haiku-4-5-20251001\"}],\"has_more\":false}";

	buf_addf(&n->raw[0], "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 strlen(list), list);
	buf_add(&n->raw[1], n->raw[0].data, n->raw[0].len);
	net_serve(n, r, 2);
	assert_int_equal(anthropic_check_models(n->an, on_models, &m, &e), 0);
	assert_true(tu_run_until(n->loop, &m.done, 5000));
	assert_int_equal(m.rc, 0);
	assert_int_equal(m.found, 0); /* the default sonnet id is not in the list */
	assert_non_null(strstr(m.msg, "claude-sonnet-5"));
	assert_non_null(strstr(m.msg, "claude-opus-5"));
	req = tu_server_req(&n->srv, 0);
	assert_true(!strncmp(req, "GET /v1/models", 14));
	assert_non_null(tu_strcasestr(req, "x-api-key: sk-ant-test-KEY123"));
	assert_non_null(tu_strcasestr(req, "anthropic-version: 2023-06-01"));
	free(req);
	anthropic_set_model(n->an, "claude-haiku-4-5");
	memset(&m, 0, sizeof m);
	assert_int_equal(anthropic_check_models(n->an, on_models, &m, &e), 0);
	assert_true(tu_run_until(n->loop, &m.done, 5000));
	assert_int_equal(m.found, 1);
	anthropic_free(n->an);
	n->o.api_key = NULL;
	net_connect(n, n->srv.port);
	assert_int_equal(anthropic_check_models(n->an, on_models, &m, &e), -1);
	assert_non_null(strstr(e.msg, "ANTHROPIC_API_KEY"));
}

/* ---- one conversation, two providers ----------------------------------- */

/* Whether message m holds a block of type with key == id. */
static int
has_block(const cJSON *m, const char *type, const char *key, const char *id)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, cJSON_GetObjectItem(m, "content"))
		if (!strcmp(jstr(b, "type"), type) && jstr(b, key) && !strcmp(jstr(b, key), id))
			return 1;
	return 0;
}

#define aw_has_use(m, id) has_block((m), "tool_use", "id", (id))
#define has_result(m, id) has_block((m), "tool_result", "tool_use_id", (id))

/* The Anthropic body obeys the API's structural rules; returns the tool_use count. */
static int
check_anthropic_valid(cJSON *j)
{
	cJSON *msgs = cJSON_GetObjectItem(j, "messages"), *m, *prev = NULL;
	int nuse = 0;

	assert_string_equal(jstr(msgs->child, "role"), "user");
	for (m = msgs->child; m; prev = m, m = m->next) {
		cJSON *c = cJSON_GetObjectItem(m, "content"), *b;
		int seen_other = 0;

		assert_true(cJSON_GetArraySize(c) > 0);
		if (prev)
			assert_string_not_equal(jstr(prev, "role"), jstr(m, "role"));
		cJSON_ArrayForEach(b, c) {
			const char *t = jstr(b, "type");

			if (!strcmp(t, "tool_result")) {
				assert_false(seen_other); /* results first */
				assert_true(id_valid(jstr(b, "tool_use_id")));
				assert_true(prev && aw_has_use(prev, jstr(b, "tool_use_id")));
			} else {
				seen_other = 1;
			}
			if (!strcmp(t, "tool_use")) {
				nuse++;
				assert_true(id_valid(jstr(b, "id")));
				assert_non_null(m->next);
				assert_true(has_result(m->next, jstr(b, "id")));
			}
		}
	}
	return nuse;
}

static void
test_round_trip_local_claude_local(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	struct conv_block *b;
	struct cfg cfg;
	struct provider_req req = { 0 };
	struct buf lb = BUF_INIT;
	cJSON *j, *lm, *it;
	char *txt;
	int ntool_msgs = 0, ncalls = 0;

	(void)state;
	conv_init(&cv);
	local_turn(&cv); /* local: llama id + call_1 */
	/* Claude continues: thinking with a signature, a tool call */
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	b = conv_add_block(m, CONV_REASONING, "claude thinks", NULL, NULL);
	b->provider = strdup("anthropic");
	b->signature = strdup("SIGNATURE-1");
	conv_add_block(m, CONV_TEXT, "Checking b.c.", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"b.c\"}", "toolu_01ABCdef", "read");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "int b;", "toolu_01ABCdef", "read");
	/* local again */
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	b = conv_add_block(m, CONV_REASONING, "local again", NULL, NULL);
	b->provider = strdup("llama");
	conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"make\"}", "call_7", "bash");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "ok", "call_7", "bash");

	/* Anthropic side: valid, every call kept, thinking only Claude's */
	j = wire(&cv, "claude-sonnet-5", 1, -1, 1);
	assert_int_equal(check_anthropic_valid(j), 4);
	txt = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(txt, "\"signature\":\"SIGNATURE-1\""));
	assert_non_null(strstr(txt, "toolu_01ABCdef"));
	assert_null(strstr(txt, "local thought"));
	assert_null(strstr(txt, "local again"));
	free(txt);
	cJSON_Delete(j);

	/* llama side: OpenAI shape with the original ids, no Claude thinking */
	cfg_defaults(&cfg);
	req.conv = &cv;
	llama_wire_request(&cfg, "local-tiny", &req, &lb);
	assert_null(strstr(lb.data, "claude thinks"));
	assert_null(strstr(lb.data, "SIGNATURE-1"));
	lm = cJSON_Parse(lb.data);
	assert_non_null(lm);
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(lm, "messages")) {
		const char *role = jstr(it, "role");
		cJSON *tc;

		if (!strcmp(role, "tool")) {
			ntool_msgs++;
			assert_true(!strcmp(jstr(it, "tool_call_id"), LLAMA_ID) ||
				    !strcmp(jstr(it, "tool_call_id"), "call_1") ||
				    !strcmp(jstr(it, "tool_call_id"), "toolu_01ABCdef") ||
				    !strcmp(jstr(it, "tool_call_id"), "call_7"));
		}
		cJSON_ArrayForEach(tc, cJSON_GetObjectItem(it, "tool_calls"))
			ncalls++;
	}
	assert_int_equal(ntool_msgs, 4);
	assert_int_equal(ncalls, 4);
	assert_non_null(strstr(lb.data, "\"reasoning_content\":\"local again\""));
	cJSON_Delete(lm);
	buf_release(&lb);
	cfg_release(&cfg);
	conv_release(&cv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prov_headers_and_stream, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_llama_fixture_one_byte, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_connection_refused, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_cancel_in_sink, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_check_models, net_setup, net_teardown),
		cmocka_unit_test(test_round_trip_local_claude_local),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

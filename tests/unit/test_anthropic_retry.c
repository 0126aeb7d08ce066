/*
 * test_anthropic_retry: the Anthropic provider's retries against a forked
 * loopback server — retry-after on 429, 529 and 500 then success with the
 * same bytes each attempt, 401 not retried, giving up after max_attempts,
 * connections dropped before and after output, an in-stream overloaded
 * error retried.
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

static void
test_prov_retry_after_429(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2] = { { 0 } };
	long ms;
	char *second;

	http_err(&n->raw[0], 429, "retry-after: 1\r\n",
		 "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow\"}}");
	sse_ok(&n->raw[1], synthetic);
	net_serve(n, r, 2);
	ms = chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_int_equal(anthropic_attempts(n->an), 2);
	assert_true(ms >= 1000); /* retry-after honoured over the 10 ms back-off */
	assert_true(ms < 4000);
	second = tu_server_req(&n->srv, 1);
	assert_non_null(second);
	free(second);
}

static void
test_prov_529_then_success(void **state)
{
	struct net *n = *state;
	struct tu_resp r[3] = { { 0 } };
	char *a, *b;

	http_err(&n->raw[0], 529, "", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
	http_err(&n->raw[1], 500, "", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}");
	sse_ok(&n->raw[2], synthetic);
	net_serve(n, r, 3);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_int_equal(anthropic_attempts(n->an), 3);
	/* every attempt sends the same bytes */
	a = tu_server_req(&n->srv, 0);
	b = tu_server_req(&n->srv, 2);
	assert_string_equal(strstr(a, "\r\n\r\n"), strstr(b, "\r\n\r\n"));
	free(a);
	free(b);
}

static void
test_prov_401_no_retry(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2] = { { 0 } };
	struct buf line = BUF_INIT;
	struct provider *p;
	char *second;

	http_err(&n->raw[0], 401, "", "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}");
	sse_ok(&n->raw[1], synthetic);
	net_serve(n, r, 2);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_string_equal(n->rec.msg, "ANTHROPIC_API_KEY missing or invalid");
	assert_int_equal(n->rec.last.error.http_status, 401);
	assert_int_equal(anthropic_attempts(n->an), 1);
	second = tu_server_req(&n->srv, 1);
	assert_null(second);
	p = anthropic_provider(n->an);
	n->rec.last.text = str_from(n->rec.msg);
	p->describe_error(p->self, &n->rec.last, &line);
	assert_string_equal(line.data, "ANTHROPIC_API_KEY missing or invalid");
	assert_null(strstr(line.data, "KEY123"));
	buf_release(&line);
}

static void
test_prov_gives_up(void **state)
{
	struct net *n = *state;
	struct tu_resp r[3] = { { 0 } };
	int i;

	for (i = 0; i < 3; i++)
		http_err(&n->raw[i], 503, "", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"down\"}}");
	n->o.max_attempts = 3;
	net_serve(n, r, 3);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(anthropic_attempts(n->an), 3);
	assert_false(n->rec.last.error.retryable); /* the agent must not stack retries */
	assert_non_null(strstr(n->rec.msg, "after 3 attempts"));
}

static void
test_prov_dropped(void **state)
{
	struct net *n = *state;
	struct tu_resp r[3] = { { 0 } };
	size_t cut = strstr(synthetic, "I'll list") - synthetic + 200;

	/* dropped before any event: retried; dropped after text: reported */
	sse_ok(&n->raw[0], synthetic);
	r[0].drop_after = 120;
	sse_ok(&n->raw[1], synthetic);
	r[1].drop_after = cut;
	net_serve(n, r, 2);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_DISCONNECTED);
	assert_int_equal(anthropic_attempts(n->an), 2);
	assert_string_equal(n->rec.reasoning.data, "Let me think.");
}

static void
test_prov_in_stream_overloaded_retried(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2] = { { 0 } };

	sse_ok(&n->raw[0], "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
			   "event: ping\ndata: {\"type\":\"ping\"}\n\n"
			   "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
	sse_ok(&n->raw[1], synthetic);
	net_serve(n, r, 2);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_int_equal(anthropic_attempts(n->an), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prov_retry_after_429, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_529_then_success, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_401_no_retry, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_gives_up, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_dropped, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_prov_in_stream_overloaded_retried, net_setup, net_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

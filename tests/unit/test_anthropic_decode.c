/*
 * test_anthropicdec: the Anthropic stream decoder at every split point of
 * the llama-server fixture and of synthetic streams (Anthropic's own shape
 * and llama-server's), in-stream errors and cut streams, and HTTP error
 * bodies turned into one-line messages.
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
#include "anthropic/decode.h"
#include "io/sse.h"

struct feed {
	struct anthropic_decode dec;
	struct rec *rec;
};

/* sse callback: hand one event to the decoder. */
static int
feed_event(void *ctx, struct str event, struct str data)
{
	struct feed *f = ctx;

	return anthropic_decode_event(&f->dec, event, data, rec_sink, f->rec);
}

/* Decode bytes split at `split` (0: in one piece); the decoder is left for inspection. */
static void
decode(struct feed *f, struct rec *r, const char *bytes, size_t n, size_t split)
{
	struct sse sse;

	rec_init(r);
	f->rec = r;
	anthropic_decode_init(&f->dec);
	sse_init(&sse);
	if (split && split < n) {
		if (sse_feed(&sse, bytes, split, feed_event, f) == 0)
			sse_feed(&sse, bytes + split, n - split, feed_event, f);
	} else {
		sse_feed(&sse, bytes, n, feed_event, f);
	}
	anthropic_decode_finish(&f->dec, rec_sink, r);
	sse_release(&sse);
}

static void
test_dec_llama_fixture_every_split(void **state)
{
	struct buf fx = BUF_INIT, whole = BUF_INIT;
	struct feed f;
	struct rec r;
	size_t split;

	(void)state;
	tu_fixture("v1_messages_stream.sse", &fx);
	decode(&f, &r, fx.data, fx.len, 0);
	assert_int_equal(r.last.kind, LLM_DONE);
	assert_string_equal(r.stop, "length");
	assert_string_equal(r.text.data,
			    "ompl insufficient teased Wander slogans relativity Unicorn Pik Unicorn Arnold Pauloospons");
	assert_int_equal(r.nusage, 1);
	assert_int_equal(r.usage.prompt_tokens, 27 + 321);
	assert_int_equal(r.usage.cached_tokens, 321);
	assert_int_equal(r.usage.completion_tokens, 12);
	assert_int_equal(r.after_end, 0);
	buf_addf(&whole, "%s|%s", r.log.data, r.text.data);
	anthropic_decode_release(&f.dec);
	rec_release(&r);
	for (split = 1; split < fx.len; split++) {
		struct buf got = BUF_INIT;

		decode(&f, &r, fx.data, fx.len, split);
		buf_addf(&got, "%s|%s", r.log.data, r.text.data);
		assert_string_equal(got.data, whole.data);
		assert_int_equal(r.after_end, 0);
		buf_release(&got);
		anthropic_decode_release(&f.dec);
		rec_release(&r);
	}
	buf_release(&whole);
	buf_release(&fx);
}

static void
test_dec_synthetic_every_split(void **state)
{
	size_t n = strlen(synthetic), split, nth;
	struct feed f;
	struct rec r;
	const struct anthropic_decode_thinking *th;

	(void)state;
	for (split = 0; split < n; split++) {
		decode(&f, &r, synthetic, n, split);
		assert_int_equal(r.last.kind, LLM_DONE);
		assert_string_equal(r.stop, "tool_calls");
		assert_string_equal(r.reasoning.data, "Let me think.");
		assert_string_equal(r.text.data, "I'll list \xc3\xa9 files.");
		assert_string_equal(r.args.data, "0:{\"comm0:and\": \"ls -0:la\"}");
		assert_string_equal(r.log.data, "begin 0 toolu_01T1x bash\nend 0\nusage 3210 3000 200 57\ndone tool_calls \n");
		th = anthropic_decode_thinking(&f.dec, &nth);
		assert_int_equal(nth, 1);
		assert_string_equal(th[0].text.data, "Let me think.");
		assert_string_equal(th[0].signature.data, "EqQBCgIYAhIM1gbcDa9GJwZA2b3h");
		assert_int_equal(r.after_end, 0);
		anthropic_decode_release(&f.dec);
		rec_release(&r);
	}
}

/* llama-server's shape: every block open until the end, then an empty signature_delta. */
static const char llama_style[] =
	"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"cache_read_input_tokens\":5,\"input_tokens\":7,\"output_tokens\":0}}}\n\n"
	": ping comment\n\n"
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n"
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n"
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"Xq3vT9bLk2PzR8mW\",\"name\":\"read\",\"input\":{}}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\"}}\n\n"
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"B2\",\"name\":\"ls\",\"input\":{}}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"a.c\\\"}\"}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"\"}}\n\n"
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"\"}}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\n"
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static void
test_dec_llama_style_every_split(void **state)
{
	size_t n = strlen(llama_style), split, nth;
	struct feed f;
	struct rec r;
	const struct anthropic_decode_thinking *th;

	(void)state;
	for (split = 0; split < n; split++) {
		decode(&f, &r, llama_style, n, split);
		assert_string_equal(r.log.data, "begin 0 Xq3vT9bLk2PzR8mW read\nbegin 1 B2 ls\nend 0\nend 1\n"
						"usage 12 5 0 9\ndone tool_calls \n");
		assert_string_equal(r.args.data, "0:{\"path\":0:\"a.c\"}");
		assert_string_equal(r.text.data, "ok");
		th = anthropic_decode_thinking(&f.dec, &nth);
		assert_int_equal(nth, 1);
		assert_string_equal(th[0].text.data, "hm");
		assert_string_equal(th[0].signature.data, "");
		anthropic_decode_release(&f.dec);
		rec_release(&r);
	}
}

/* Decode one whole stream; returns the recorder (release it). */
static void
decode_str(struct rec *r, const char *s)
{
	struct feed f;

	decode(&f, r, s, strlen(s), 0);
	anthropic_decode_release(&f.dec);
}

static void
test_dec_errors_and_ends(void **state)
{
	struct rec r;

	(void)state;
	/* in-stream overloaded error after HTTP 200 */
	decode_str(&r, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
		       "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
		       "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
	assert_int_equal(r.last.kind, LLM_ERROR);
	assert_true(r.last.error.retryable);
	assert_string_equal(r.type, "overloaded_error");
	assert_non_null(strstr(r.msg, "Overloaded"));
	assert_int_equal(r.after_end, 0);
	rec_release(&r);
	/* llama-server: event error with the bare object */
	decode_str(&r, "event: error\ndata: {\"code\":500,\"message\":\"Failed to parse input at pos 12\",\"type\":\"server_error\"}\n\n");
	assert_int_equal(r.last.kind, LLM_ERROR);
	assert_int_equal(r.last.error.kind, LLM_ERR_TOOL_PARSE);
	assert_false(r.last.error.retryable);
	rec_release(&r);
	/* not JSON */
	decode_str(&r, "event: content_block_delta\ndata: {nope\n\n");
	assert_int_equal(r.last.kind, LLM_ERROR);
	assert_int_equal(r.last.error.kind, LLM_ERR_PROTOCOL);
	rec_release(&r);
	/* not an object, index out of range */
	decode_str(&r, "data: [1,2]\n\n");
	assert_int_equal(r.last.error.kind, LLM_ERR_PROTOCOL);
	rec_release(&r);
	decode_str(&r, "event: content_block_start\ndata: {\"index\":99999,\"content_block\":{\"type\":\"text\"}}\n\n");
	assert_int_equal(r.last.error.kind, LLM_ERR_PROTOCOL);
	rec_release(&r);
	/* cut before message_stop */
	decode_str(&r, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
		       "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n");
	assert_int_equal(r.last.kind, LLM_ERROR);
	assert_int_equal(r.last.error.kind, LLM_ERR_DISCONNECTED);
	assert_string_equal(r.text.data, "hi");
	rec_release(&r);
	/* message_delta with a stop reason, then the connection closed: done; open tool ended */
	decode_str(&r, "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{\"path\":\".\"}}}\n\n"
		       "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}\n\n");
	assert_int_equal(r.last.kind, LLM_DONE);
	assert_string_equal(r.stop, "refusal");
	assert_string_equal(r.args.data, "0:{\"path\":\".\"}");
	assert_string_equal(r.log.data, "begin 0 t ls\nend 0\nusage 0 0 0 0\ndone refusal \n");
	rec_release(&r);
	/* nothing at all */
	decode_str(&r, "");
	assert_int_equal(r.last.error.kind, LLM_ERR_DISCONNECTED);
	rec_release(&r);
	assert_string_equal(anthropic_decode_stop_reason("end_turn"), "stop");
	assert_string_equal(anthropic_decode_stop_reason("max_tokens"), "length");
	assert_string_equal(anthropic_decode_stop_reason("pause_turn"), "pause_turn");
}

static void
check_body(int status, const char *body, const char *want_sub, int retryable, enum llm_err_kind kind)
{
	struct llm_event ev;
	struct buf msg = BUF_INIT;

	anthropic_decode_error_from_body(status, body, body ? strlen(body) : 0, &ev, &msg);
	assert_int_equal(ev.kind, LLM_ERROR);
	assert_int_equal(ev.error.kind, kind);
	assert_int_equal(ev.error.retryable, retryable);
	assert_int_equal(ev.text.len, strlen(msg.data));
	assert_null(memchr(ev.text.p, '\n', ev.text.len));
	if (!strstr(msg.data, want_sub))
		fail_msg("status %d: '%s' lacks '%s'", status, msg.data, want_sub);
	buf_release(&msg);
}

static void
test_error_bodies(void **state)
{
	struct llm_event ev;
	struct buf msg = BUF_INIT;
	static const char e401[] = "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"},\"request_id\":\"req_1\"}";

	(void)state;
	anthropic_decode_error_from_body(401, e401, strlen(e401), &ev, &msg);
	assert_string_equal(msg.data, "ANTHROPIC_API_KEY missing or invalid");
	assert_string_equal(ev.error.type, "authentication_error");
	assert_int_equal(ev.error.http_status, 401);
	assert_false(ev.error.retryable);
	buf_release(&msg);
	check_body(413, "{\"type\":\"error\",\"error\":{\"type\":\"request_too_large\",\"message\":\"Request exceeds the maximum size\"}}",
		   "request too large", 0, LLM_ERR_HTTP);
	check_body(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1: bad\\nthing\"}}",
		   "messages.1: bad thing", 0, LLM_ERR_HTTP);
	check_body(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}",
		   "210000", 0, LLM_ERR_CONTEXT);
	check_body(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}",
		   "rate limited", 1, LLM_ERR_HTTP);
	check_body(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
		   "overloaded", 1, LLM_ERR_HTTP);
	check_body(500, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal\"}}",
		   "Internal", 1, LLM_ERR_HTTP);
	check_body(404, "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"model: claude-x\"}}",
		   "model id", 0, LLM_ERR_HTTP);
	check_body(403, "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"no\"}}",
		   "may not", 0, LLM_ERR_HTTP);
	/* llama-server's OpenAI-shaped error, plain text, empty, HTML */
	check_body(400, "{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size\",\"type\":\"exceed_context_size_error\"}}",
		   "context size", 0, LLM_ERR_HTTP);
	check_body(502, "Bad Gateway\nmore", "Bad Gateway", 1, LLM_ERR_HTTP);
	check_body(503, NULL, "HTTP 503 with an empty body", 1, LLM_ERR_HTTP);
	check_body(400, "[1,2,3]", "[1,2,3]", 0, LLM_ERR_HTTP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dec_llama_fixture_every_split),
		cmocka_unit_test(test_dec_synthetic_every_split),
		cmocka_unit_test(test_dec_llama_style_every_split),
		cmocka_unit_test(test_dec_errors_and_ends),
		cmocka_unit_test(test_error_bodies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

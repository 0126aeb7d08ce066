/*
 * anthropic_fixture: helpers shared by the Anthropic provider tests
 * (test_anthropicwire, test_anthropicdec, test_anthropic,
 * test_anthropic_retry).  Header-only (static inline) so each test links
 * alone; every function aborts the running test on failure.
 *   - wire(): a conv turned into a request body and parsed back (cJSON),
 *     with local_turn() building a conv that holds a llama-made tool id.
 *   - struct rec: every provider event recorded; log holds one line per
 *     structural event so two runs can be compared byte for byte, and
 *     after_end counts events after the terminal one (must stay 0).
 *   - synthetic[]: the documented Anthropic event sequence.
 *   - struct net: a loop, http client, provider, recorder and a recording
 *     tu_server per test (cmocka setup/teardown net_setup/net_teardown).
 */
#ifndef HEARTH_ANTHROPIC_FIXTURE_H
#define HEARTH_ANTHROPIC_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "anthropic/anthropic.h"
#include "anthropic/decode.h"
#include "anthropic/wire.h"
#include "base/buf.h"
#include "llm/conv.h"
#include "io/http.h"
#include "llm/event.h"
#include "io/loop.h"
#include "testutil.h"
#include "llm/tool.h"

#define LLAMA_ID "Xq3vT9bLk2PzR8mW4nYc7dHs1fJg6aEu" /* 32 chars, as llama makes them */

/* ---- request bodies ---------------------------------------------------- */

/* Body for cv as parsed JSON (model, thinking and temperature as given). */
static inline cJSON *
wire(const struct conv *cv, const char *model, int thinking, double temp, int tools)
{
	struct anthropic_wire_opts o;
	struct provider_req req = { 0 };
	struct buf out = BUF_INIT;
	size_t n;
	cJSON *j;

	anthropic_wire_opts_init(&o, model);
	o.temperature = temp;
	req.conv = cv;
	req.thinking = thinking;
	if (tools) {
		req.tools = tool_all(&n);
		req.ntools = n;
	}
	anthropic_wire_request(&o, &req, &out);
	j = cJSON_Parse(out.data);
	assert_non_null(j);
	buf_release(&out);
	return j;
}

/* String member k of o, or NULL when absent or not a string. */
static inline const char *
jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Whether id matches the API's tool id pattern ^[a-zA-Z0-9_-]{1,64}$. */
static inline int
id_valid(const char *id)
{
	size_t i;

	if (!id || !id[0] || strlen(id) > 64)
		return 0;
	for (i = 0; id[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", id[i]))
			return 0;
	return 1;
}

/* A conv: local tool call with a llama id, its result, a question. */
static inline void
local_turn(struct conv *cv)
{
	struct conv_msg *m;
	struct conv_block *b;

	conv_set_system(cv, "You are a coding agent.");
	conv_add_user_text(cv, "list the files");
	m = conv_add_msg(cv, CONV_ASSISTANT);
	b = conv_add_block(m, CONV_REASONING, "local thought", NULL, NULL);
	b->provider = strdup("llama");
	conv_add_block(m, CONV_TEXT, "Let me look.", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"ls\"}", LLAMA_ID, "bash");
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"a.c\"}", "call_1", "read");
	m = conv_add_msg(cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "a.c\nb.c", LLAMA_ID, "bash");
	b = conv_add_block(m, CONV_TOOL_RESULT, "no such file", "call_1", "read");
	b->is_error = 1;
}

/* ---- event recorder ---------------------------------------------------- */

/* Every event as one line of a log, so runs can be compared. */
struct rec {
	struct buf log, text, reasoning, args;
	int ended, after_end, nusage;
	struct llm_event last;
	char msg[512], stop[32], type[64];
	struct llm_usage usage;
};

/* llm sink: add one event to the recorder r (ctx). */
static inline void
rec_sink(void *ctx, const struct llm_event *ev)
{
	struct rec *r = ctx;

	if (r->ended)
		r->after_end++;
	switch (ev->kind) {
	case LLM_TEXT:
		buf_add(&r->text, ev->text.p, ev->text.len);
		break;
	case LLM_REASONING:
		buf_add(&r->reasoning, ev->text.p, ev->text.len);
		break;
	case LLM_TOOL_CALL_BEGIN:
		buf_addf(&r->log, "begin %d %s %s\n", ev->index, ev->id ? ev->id : "-", ev->name);
		break;
	case LLM_TOOL_CALL_ARGS:
		buf_addf(&r->args, "%d:%.*s", ev->index, (int)ev->text.len, ev->text.p);
		break;
	case LLM_TOOL_CALL_END:
		buf_addf(&r->log, "end %d\n", ev->index);
		break;
	case LLM_USAGE:
		r->nusage++;
		r->usage = ev->usage;
		buf_addf(&r->log, "usage %ld %ld %ld %ld\n", ev->usage.prompt_tokens,
			 ev->usage.cached_tokens, ev->usage.cache_write_tokens, ev->usage.completion_tokens);
		break;
	case LLM_DONE:
	case LLM_ERROR:
		r->ended = 1;
		r->last = *ev;
		r->last.text = STR_NULL;
		snprintf(r->msg, sizeof r->msg, "%.*s", (int)ev->text.len, ev->text.p);
		snprintf(r->stop, sizeof r->stop, "%s", ev->stop_reason ? ev->stop_reason : "");
		snprintf(r->type, sizeof r->type, "%s", ev->error.type ? ev->error.type : "");
		r->last.error.type = NULL;
		r->last.stop_reason = NULL;
		buf_addf(&r->log, "%s %s %s\n", llm_event_kind_name(ev->kind), r->stop, r->msg);
		break;
	default:
		break;
	}
}

/* An empty recorder. */
static inline void
rec_init(struct rec *r)
{
	memset(r, 0, sizeof *r);
	buf_init(&r->log, 0);
	buf_init(&r->text, 0);
	buf_init(&r->reasoning, 0);
	buf_init(&r->args, 0);
}

/* Free what the recorder holds and leave it empty. */
static inline void
rec_release(struct rec *r)
{
	buf_release(&r->log);
	buf_release(&r->text);
	buf_release(&r->reasoning);
	buf_release(&r->args);
	rec_init(r);
}

/* The documented event sequence: ping, thinking + signature, text, a split tool call. */
static const char synthetic[] =
	"event: message_start\n"
	"data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
	"\"content\":[],\"model\":\"claude-sonnet-5\",\"stop_reason\":null,\"stop_sequence\":null,"
	"\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":200,\"cache_read_input_tokens\":3000,\"output_tokens\":1}}}\n\n"
	"event: ping\ndata: {\"type\": \"ping\"}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me \"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"think.\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3h\"}}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"I'll list \\u00e9 files.\"}}\n\n"
	"event: ping\ndata: {\"type\": \"ping\"}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x\",\"name\":\"bash\",\"input\":{}}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"comm\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"and\\\": \\\"ls -\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"la\\\"}\"}}\n\n"
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
	"event: future_event\ndata: {\"type\":\"future_event\",\"x\":1}\n\n"
	"event: message_delta\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":57}}\n\n"
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

/* ---- provider against a loopback server -------------------------------- */

struct net {
	struct loop *loop;
	struct http *http;
	struct anthropic *an;
	struct anthropic_opts o;
	struct tu_server srv; /* started with tu_server_record */
	struct rec rec;
	struct buf raw[4];
	int cancel_on_text;
};

/* cmocka setup: a loop, an http client and options with a test key and a 10 ms back-off. */
static inline int
net_setup(void **state)
{
	struct net *n = calloc(1, sizeof *n);

	n->loop = loop_new(NULL);
	n->http = http_new(n->loop, NULL);
	rec_init(&n->rec);
	anthropic_opts_init(&n->o);
	n->o.api_key = "sk-ant-test-KEY123";
	n->o.base_delay_ms = 10;
	*state = n;
	return 0;
}

/* cmocka teardown: free everything net_setup and the test made. */
static inline int
net_teardown(void **state)
{
	struct net *n = *state;
	int i;

	anthropic_free(n->an);
	http_free(n->http);
	loop_free(n->loop);
	tu_server_stop(&n->srv);
	rec_release(&n->rec);
	for (i = 0; i < 4; i++)
		buf_release(&n->raw[i]);
	free(n);
	return 0;
}

/* Make the provider, pointed at 127.0.0.1:port. */
static inline void
net_connect(struct net *n, int port)
{
	char url[64];

	snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
	n->o.base_url = url;
	n->an = anthropic_new(n->loop, n->http, &n->o);
	n->o.base_url = NULL;
}

/* Answer with n->raw[0..count) (r's other fields as the test set them) on a recording server; connect to it. */
static inline void
net_serve(struct net *n, struct tu_resp *r, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		r[i].raw = n->raw[i].data;
	tu_server_record(&n->srv, r, count);
	net_connect(n, n->srv.port);
}

/* Record ev; cancel on the first text when the test asks for it. */
static inline void
net_sink(void *ctx, const struct llm_event *ev)
{
	struct net *n = ctx;

	rec_sink(&n->rec, ev);
	if (n->cancel_on_text && ev->kind == LLM_TEXT) {
		struct provider *p = anthropic_provider(n->an);

		p->cancel(p->self);
		n->rec.ended = 1;
	}
}

/* Run one request for a small conv until its terminal event; returns the ms it took. */
static inline long
chat(struct net *n)
{
	struct conv cv;
	struct provider_req req = { 0 };
	struct provider *p = anthropic_provider(n->an);
	struct timespec t0, t1;
	int never = 0;

	conv_init(&cv);
	conv_add_user_text(&cv, "hi");
	req.conv = &cv;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(p->start(p->self, &req, net_sink, n, NULL), 0);
	assert_int_equal(n->rec.ended, 0); /* nothing from inside start() */
	assert_true(tu_run_until(n->loop, &n->rec.ended, 8000));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	conv_release(&cv);
	tu_run_until(n->loop, &never, 100); /* nothing may follow the terminal event */
	assert_int_equal(n->rec.after_end, 0);
	return (t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L;
}

/* A 200 event-stream response carrying body. */
static inline void
sse_ok(struct buf *raw, const char *body)
{
	buf_addf(raw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n%s", body);
}

/* A JSON error response with the given status and extra header lines. */
static inline void
http_err(struct buf *raw, int status, const char *extra_hdr, const char *body)
{
	buf_addf(raw, "HTTP/1.1 %d Error\r\nContent-Type: application/json\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 status, extra_hdr, strlen(body), body);
}

#endif

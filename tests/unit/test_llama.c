/*
 * test_llama: the llama-server provider — wire format against the recorded
 * fixtures (pure), and the streaming provider against a forked loopback
 * server replaying those fixtures in small chunks, dropping connections,
 * answering errors.
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

#include "base/cfg.h"
#include "llm/conv.h"
#include "io/http.h"
#include "base/json.h"
#include "llama/llama.h"
#include "io/loop.h"
#include "testutil.h"
#include "llm/tool.h"

/* ---- wire format ------------------------------------------------------ */

static cJSON *
build(const struct conv *cv, int with_tools)
{
	struct cfg cfg;
	struct provider_req req = { 0 };
	struct buf out = BUF_INIT;
	size_t n;
	cJSON *j;

	cfg_defaults(&cfg);
	req.conv = cv;
	if (with_tools) {
		req.tools = tool_all(&n);
		req.ntools = n;
	}
	llama_wire_request(&cfg, "local-tiny", &req, &out);
	j = cJSON_Parse(out.data);
	assert_non_null(j);
	buf_release(&out);
	cfg_release(&cfg);
	return j;
}

static void
test_request_fields(void **state)
{
	struct conv cv;
	cJSON *j, *tools;
	int i;

	(void)state;
	conv_init(&cv);
	conv_set_system(&cv, "You are a coding agent.");
	conv_add_user_text(&cv, "Read main.c and summarise it.");
	j = build(&cv, 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "stream")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "return_progress")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "cache_prompt")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "stream_options"), "include_usage")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "chat_template_kwargs"), "enable_thinking")));
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "id_slot")));
	assert_true(cJSON_GetObjectItem(j, "temperature")->valuedouble == 0.6);
	assert_true(cJSON_GetObjectItem(j, "top_p")->valuedouble == 0.95);
	assert_int_equal(cJSON_GetObjectItem(j, "top_k")->valueint, 20);
	assert_true(cJSON_GetObjectItem(j, "presence_penalty")->valuedouble == 0);
	tools = cJSON_GetObjectItem(j, "tools");
	assert_int_equal(cJSON_GetArraySize(tools), 10); /* read write edit bash grep find ls outline
							   * repo_map remember */
	for (i = 0; i < 10; i++) {
		cJSON *fn = cJSON_GetObjectItem(cJSON_GetArrayItem(tools, i), "function");

		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(tools, i), "type")->valuestring, "function");
		assert_true(cJSON_IsObject(cJSON_GetObjectItem(fn, "parameters")));
	}
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(tools, 0), "function")->child->valuestring, "read");
	/* the same keys as the recorded request that the real server accepted */
	{
		struct buf fx = BUF_INIT;
		cJSON *rec, *it;

		tu_fixture("requests/chat_tools.json", &fx);
		rec = cJSON_Parse(fx.data);
		cJSON_ArrayForEach(it, rec) {
			if (!strcmp(it->string, "max_tokens") || !strcmp(it->string, "timings_per_token"))
				continue;
			assert_non_null(cJSON_GetObjectItem(j, it->string));
			assert_int_equal(cJSON_GetObjectItem(j, it->string)->type & 0xff, it->type & 0xff);
		}
		cJSON_Delete(rec);
		buf_release(&fx);
	}
	cJSON_Delete(j);
	conv_release(&cv);
}

/*
 * The session part of the system prompt (after CONV_SESSION_MARK) opens the
 * first user message, so every session sends the same system message.
 */
static void
test_session_part_moves_to_first_user(void **state)
{
	struct conv cv;
	cJSON *j, *m;
	const char *u0, *u1;

	(void)state;
	conv_init(&cv);
	conv_set_system(&cv, "You are a coding agent." CONV_SESSION_MARK "Workspace root: /w/a\n");
	conv_add_user_text(&cv, "First task.");
	j = build(&cv, 0);
	m = cJSON_GetObjectItem(j, "messages");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 0), "content")->valuestring,
			    "You are a coding agent.");
	u0 = cJSON_GetObjectItem(cJSON_GetArrayItem(m, 1), "content")->valuestring;
	assert_string_equal(u0, "# This session\nWorkspace root: /w/a\n\nFirst task.");
	cJSON_Delete(j);
	/* a later turn: only the first user message carries it, unchanged */
	conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(&cv.msgs[cv.nmsgs - 1], CONV_TEXT, "Done.", NULL, NULL);
	conv_add_user_text(&cv, "Second task.");
	j = build(&cv, 0);
	m = cJSON_GetObjectItem(j, "messages");
	u1 = cJSON_GetObjectItem(cJSON_GetArrayItem(m, 1), "content")->valuestring;
	assert_string_equal(u1, "# This session\nWorkspace root: /w/a\n\nFirst task.");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 3), "content")->valuestring, "Second task.");
	cJSON_Delete(j);
	conv_release(&cv);
}

/* Messages of request k are a byte-exact prefix of request k+1's. */
static void
test_prefix_stability(void **state)
{
	struct conv cv;
	char *prev[8] = { 0 };
	int step, i;

	(void)state;
	conv_init(&cv);
	conv_set_system(&cv, "sys");
	conv_add_user_text(&cv, "task");
	for (step = 0; step < 8; step++) {
		cJSON *j = build(&cv, 1), *msgs = cJSON_GetObjectItem(j, "messages");
		struct conv_msg *m;
		char id[16], *cur;

		cur = cJSON_PrintUnformatted(msgs);
		if (step) {
			size_t pl = strlen(prev[step - 1]) - 1; /* drop the closing ']' */

			assert_true(strlen(cur) > pl);
			assert_memory_equal(prev[step - 1], cur, pl);
		}
		prev[step] = cur;
		cJSON_Delete(j);
		snprintf(id, sizeof id, "c%d", step);
		m = conv_add_msg(&cv, CONV_ASSISTANT);
		conv_add_block(m, CONV_TEXT, "thinking about it \"quoted\" \x01", NULL, NULL);
		conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"a.c\"}", id, "read");
		m = conv_add_msg(&cv, CONV_USER);
		conv_add_block(m, CONV_TOOL_RESULT, "line 1\nline 2 ✓", id, "read");
	}
	for (i = 0; i < 8; i++)
		free(prev[i]);
	conv_release(&cv);
}

/* Whatever bytes the transcript holds, the request body is valid JSON in valid UTF-8. */
static void
test_invalid_utf8_repaired(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	cJSON *j;
	const char *c;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "name\xff\xfe.c and \xe2\x82");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "ok \xc0\xaf", "i\xff", "ls");
	j = build(&cv, 0);
	c = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "messages"), 0), "content")->valuestring;
	assert_string_equal(c, "name\xef\xbf\xbd\xef\xbf\xbd.c and \xef\xbf\xbd\xef\xbf\xbd");
	cJSON_Delete(j);
	conv_release(&cv);
}

/* Request bytes from a memo, and from scratch: they must be equal. */
static void
memo_agrees(struct llama_wire_memo *memo, const struct conv *cv, const char *gp)
{
	struct cfg cfg;
	struct provider_req req = { 0 };
	struct buf want = BUF_INIT, got = BUF_INIT;
	size_t n;

	cfg_defaults(&cfg);
	req.conv = cv;
	req.tools = tool_all(&n);
	req.ntools = n;
	llama_wire_request_gen(&cfg, "local-tiny", &req, gp, &want);
	llama_wire_request_memo(&cfg, "local-tiny", &req, gp, memo, &got);
	assert_string_equal(got.data, want.data);
	buf_release(&want);
	buf_release(&got);
	cfg_release(&cfg);
}

/*
 * The kept serialised prefix (llama_wire_request_memo) gives the bytes a
 * fresh build gives, step after step: as turns are added (the session
 * part moving into the first user message, earlier answers losing their
 * reasoning), after a block edited in place (microcompact: conv_msg_touch)
 * with the same length, a message with no known gen edited in place, a new
 * system prompt, a different generation prefix, and a shorter conv.
 */
static void
test_request_memo(void **state)
{
	struct llama_wire_memo memo;
	struct conv cv;
	struct conv_msg *m;
	struct conv_block *b;
	char t[64];
	int i;

	(void)state;
	llama_wire_memo_init(&memo);
	conv_init(&cv);
	conv_set_system(&cv, "You are terse." CONV_SESSION_MARK "cwd: /tmp/x\n");
	memo_agrees(&memo, &cv, NULL);
	for (i = 0; i < 6; i++) {
		snprintf(t, sizeof t, "question %d", i);
		conv_add_user_text(&cv, t);
		memo_agrees(&memo, &cv, NULL);
		m = conv_add_msg(&cv, CONV_ASSISTANT);
		b = conv_add_block(m, CONV_REASONING, "thinking it over", NULL, NULL);
		b->provider = strdup("llama");
		conv_add_block(m, CONV_TEXT, "Reading.", NULL, NULL);
		snprintf(t, sizeof t, "id%d", i);
		conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"a.c\"}", t, "read");
		memo_agrees(&memo, &cv, NULL);
		m = conv_add_msg(&cv, CONV_USER);
		conv_add_block(m, CONV_TOOL_RESULT, "int main(void) { return 0; }", t, "read");
		memo_agrees(&memo, &cv, NULL);
	}
	assert_int_equal((int)memo.n, (int)cv.nmsgs);
	/* an old tool result rewritten in place, same length (the writer touches the message) */
	b = &cv.msgs[2].blocks[0];
	free(b->text);
	b->text = strdup("[cleared by microcompact: 28 b]");
	conv_msg_touch(&cv.msgs[2]);
	memo_agrees(&memo, &cv, NULL);
	/* a message whose gen is not known (0: made by hand) is compared byte for byte */
	cv.msgs[3].gen = 0;
	memo_agrees(&memo, &cv, NULL);
	b = &cv.msgs[3].blocks[0];
	free(b->text);
	b->text = strdup("question X");
	memo_agrees(&memo, &cv, NULL);
	/* a new system prompt: every message after it is written again where it moved */
	conv_set_system(&cv, "You are terser." CONV_SESSION_MARK "cwd: /tmp/y\n");
	memo_agrees(&memo, &cv, NULL);
	memo_agrees(&memo, &cv, NULL);
	memo_agrees(&memo, &cv, "<think>\n\n</think>\n\n");
	memo_agrees(&memo, &cv, NULL);
	conv_pop(&cv);
	conv_pop(&cv);
	memo_agrees(&memo, &cv, NULL);
	assert_int_equal((int)memo.n, (int)cv.nmsgs);
	conv_release(&cv);
	llama_wire_memo_release(&memo);
}

static void
test_wire_roles(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	struct conv_block *b;
	cJSON *j, *msgs, *a, *t;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "go");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	b = conv_add_block(m, CONV_REASONING, "secret claude thought", NULL, NULL);
	b->provider = strdup("anthropic");
	conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"ls\"}", "id7", "bash");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "a\nb", "id7", "bash");
	conv_add_block(m, CONV_TEXT, "and also this", NULL, NULL);
	j = build(&cv, 0);
	assert_null(cJSON_GetObjectItem(j, "tools"));
	msgs = cJSON_GetObjectItem(j, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 4); /* no system: none set */
	a = cJSON_GetArrayItem(msgs, 1);
	assert_string_equal(cJSON_GetObjectItem(a, "role")->valuestring, "assistant");
	assert_null(cJSON_GetObjectItem(a, "reasoning_content")); /* not ours to send */
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "tool_calls"), 0);
	assert_string_equal(cJSON_GetObjectItem(t, "id")->valuestring, "id7");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "function"), "arguments")->valuestring,
			    "{\"command\":\"ls\"}");
	t = cJSON_GetArrayItem(msgs, 2);
	assert_string_equal(cJSON_GetObjectItem(t, "role")->valuestring, "tool");
	assert_string_equal(cJSON_GetObjectItem(t, "tool_call_id")->valuestring, "id7");
	t = cJSON_GetArrayItem(msgs, 3);
	assert_string_equal(cJSON_GetObjectItem(t, "role")->valuestring, "user");
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_parse_discovery_fixtures(void **state)
{
	struct llama_info info = { 0 };
	struct llama_slot *slots;
	struct buf b = BUF_INIT;
	size_t n;

	(void)state;
	tu_fixture("props.json", &b);
	assert_int_equal(llama_wire_props(b.data, b.len, &info, NULL), 0);
	assert_int_equal(info.n_ctx, 8192);
	assert_int_equal(info.total_slots, 2);
	assert_non_null(info.build_info);
	buf_reset(&b);
	tu_fixture("v1_models.json", &b);
	assert_int_equal(llama_wire_models(b.data, b.len, &info, NULL), 0);
	assert_string_equal(info.model_id, "local-tiny");
	buf_reset(&b);
	tu_fixture("slots_idle.json", &b);
	assert_int_equal(llama_wire_slots(b.data, b.len, &slots, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(slots[1].id, 1);
	assert_int_equal(slots[1].n_ctx, 8192);
	assert_false(slots[0].is_processing);
	assert_int_equal(slots[0].id_task, -1);
	free(slots);
	buf_reset(&b);
	tu_fixture("slots_processing.json", &b);
	assert_int_equal(llama_wire_slots(b.data, b.len, &slots, &n, NULL), 0);
	assert_true(slots[0].is_processing);
	assert_int_equal(slots[0].n_prompt_tokens, 4096);
	assert_int_equal(slots[0].id_task, 0);
	free(slots);
	/* hostile input: not JSON, wrong shapes */
	assert_int_equal(llama_wire_slots("{\"x\":1}", 7, &slots, &n, NULL), -1);
	assert_int_equal(llama_wire_props("nope", 4, &info, NULL), -1);
	assert_int_equal(llama_wire_props("[1,2]", 5, &info, NULL), 0);
	assert_int_equal(llama_wire_models("{\"data\":7}", 10, &info, NULL), -1);
	assert_null(info.models); /* one model: no list */
	{ /* llama-server's router mode: several models with their status; llama-swap: plain ids */
		const char *router = "{\"data\": [{\"id\": \"qwen-9b\", \"status\": {\"value\": \"loaded\"}},"
				     " {\"id\": \"qwen-35b\", \"status\": {\"value\": \"unloaded\"}},"
				     " {\"id\": \"bad\", \"status\": {\"value\": \"unloaded\", \"failed\": true}},"
				     " {\"status\": \"no id\"}]}";
		const char *swap = "{\"data\": [{\"id\": \"a\"}, {\"id\": \"b\", \"status\": \"loading\"}]}";

		assert_int_equal(llama_wire_models(router, strlen(router), &info, NULL), 0);
		assert_string_equal(info.model_id, "qwen-9b");
		assert_string_equal(info.models, "qwen-9b (loaded)\nqwen-35b (unloaded)\nbad (unloaded, failed)");
		assert_int_equal(llama_wire_models(swap, strlen(swap), &info, NULL), 0);
		assert_string_equal(info.models, "a\nb (loading)");
	}
	llama_wire_info_release(&info);
	buf_release(&b);
}

/* ---- the streaming provider ---------------------------------------- */

struct rec {
	int ended;
	int nprogress, ntext, nusage, ntimings, nbegin;
	struct buf text;
	struct llm_event last;
	char msg[512];
	long prompt_tokens, cache_n;
	char stop[32];
	int after_end; /* events after the terminal one: must stay 0 */
	int nnotice, ncache;
};

static void
rec_sink(void *ctx, const struct llm_event *ev)
{
	struct rec *r = ctx;

	if (r->ended)
		r->after_end++;
	switch (ev->kind) {
	case LLM_PROGRESS: r->nprogress++; break;
	case LLM_TEXT: r->ntext++; buf_add(&r->text, ev->text.p, ev->text.len); break;
	case LLM_USAGE: r->nusage++; r->prompt_tokens = ev->usage.prompt_tokens; break;
	case LLM_TIMINGS: r->ntimings++; r->cache_n = ev->timings.cache_n; break;
	case LLM_TOOL_CALL_BEGIN: r->nbegin++; break;
	case LLM_NOTICE: r->nnotice++; break;
	case LLM_CACHE: r->ncache++; break;
	case LLM_DONE:
	case LLM_ERROR:
		r->ended = 1;
		r->last = *ev;
		snprintf(r->msg, sizeof r->msg, "%.*s", (int)ev->text.len, ev->text.p);
		if (ev->stop_reason)
			snprintf(r->stop, sizeof r->stop, "%s", ev->stop_reason);
		r->last.text = STR_NULL;
		break;
	default:
		break;
	}
}

struct net {
	struct loop *loop;
	struct http *http;
	struct cfg cfg;
	struct llama *lm;
	struct tu_server srv;
	struct rec rec;
	struct buf raw[4];
};

static int
net_setup(void **state)
{
	struct net *n = calloc(1, sizeof *n);

	n->loop = loop_new(NULL);
	n->http = http_new(n->loop, NULL);
	cfg_defaults(&n->cfg);
	*state = n;
	return 0;
}

static int
net_teardown(void **state)
{
	struct net *n = *state;
	int i;

	llama_free(n->lm);
	http_free(n->http);
	loop_free(n->loop);
	tu_server_stop(&n->srv);
	cfg_release(&n->cfg);
	buf_release(&n->rec.text);
	for (i = 0; i < 4; i++)
		buf_release(&n->raw[i]);
	free(n);
	return 0;
}

/* Point the provider at the test server. */
static void
net_connect(struct net *n, int port)
{
	char url[64];

	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	free(n->cfg.server_url);
	n->cfg.server_url = strdup(url);
	n->lm = llama_new(n->loop, n->http, &n->cfg);
}

/* An SSE response around a fixture body. */
static void
sse_response(struct buf *raw, const char *fixture)
{
	buf_adds(raw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
	tu_fixture(fixture, raw);
}

/* Start a chat and run until its terminal event. */
static void
chat(struct net *n)
{
	struct conv cv;
	struct provider_req req = { 0 };
	struct provider *p = llama_provider(n->lm);

	conv_init(&cv);
	conv_add_user_text(&cv, "hi");
	req.conv = &cv;
	assert_int_equal(p->start(p->self, &req, rec_sink, &n->rec, NULL), 0);
	assert_true(tu_run_until(n->loop, &n->rec.ended, 8000));
	conv_release(&cv);
	/* let the transfer finish, then make sure nothing else arrives */
	{
		int never = 0;

		tu_run_until(n->loop, &never, 100);
	}
	assert_int_equal(n->rec.after_end, 0);
}

static void
test_stream_fixture_in_small_chunks(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };

	sse_response(&n->raw[0], "chat_stream_tools.sse");
	r.raw = n->raw[0].data;
	r.chunk = 7;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_string_equal(n->rec.stop, "length");
	assert_int_equal(n->rec.nprogress, 2);
	assert_int_equal(n->rec.nusage, 1);
	assert_int_equal(n->rec.prompt_tokens, 352);
	assert_true(n->rec.ntext > 5);
	assert_non_null(strstr(n->rec.text.data, "illness Hunters"));
}

static void
test_stream_one_byte_writes(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };

	sse_response(&n->raw[0], "chat_stream_turn2_cache_hit.sse");
	r.raw = n->raw[0].data;
	r.chunk = 1;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_int_equal(n->rec.cache_n, 343);
	assert_int_equal(n->rec.ncache, 1); /* a cache report follows the timings */
}

static void
test_in_stream_toolparse_error(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };

	sse_response(&n->raw[0], "chat_stream_toolparse_error.sse");
	r.raw = n->raw[0].data;
	r.chunk = 512;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_TOOL_PARSE);
	assert_false(n->rec.last.error.retryable);
}

static void
test_context_exceeded(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };
	struct buf body = BUF_INIT, line = BUF_INIT;
	char *nl;

	tu_fixture("error_context_exceeded.txt", &body);
	nl = strchr(body.data, '\n');
	*nl = '\0';
	buf_addf(&n->raw[0], "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
			     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 strlen(body.data), body.data);
	r.raw = n->raw[0].data;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_CONTEXT);
	assert_int_equal(n->rec.last.error.n_prompt_tokens, 9036);
	assert_int_equal(n->rec.last.error.n_ctx, 8192);
	llama_describe_error("http://x", &n->rec.last, &line);
	assert_non_null(strstr(line.data, "9036"));
	assert_non_null(strstr(line.data, "8192"));
	assert_non_null(strstr(line.data, "-c"));
	assert_null(strchr(line.data, '\n'));
	buf_release(&line);
	buf_release(&body);
}

static void
test_dropped_mid_stream(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };

	sse_response(&n->raw[0], "chat_stream_tools.sse");
	r.raw = n->raw[0].data;
	r.drop_after = 1500;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_DISCONNECTED);
}

static void
test_connection_refused(void **state)
{
	struct net *n = *state;
	struct buf line = BUF_INIT;

	net_connect(n, tu_closed_port());
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_CONNECT);
	llama_describe_error(n->cfg.server_url, &n->rec.last, &line);
	assert_non_null(strstr(line.data, "no llama-server at"));
	buf_release(&line);
}

struct probe_rec {
	int done, rc, loading;
	enum llm_err_kind kind;
	char msg[512];
};

static void
probe_loading(void *arg, long left_ms)
{
	struct probe_rec *p = arg;

	assert_true(left_ms > 0 && left_ms <= 10000);
	p->loading++;
}

static void
probe_done(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct probe_rec *p = arg;

	(void)lm;
	p->done = 1;
	p->rc = rc;
	p->kind = kind;
	snprintf(p->msg, sizeof p->msg, "%s", msg ? msg : "");
}

static void
test_probe_waits_for_loading(void **state)
{
	struct net *n = *state;
	struct tu_resp r[6];
	struct probe_rec p = { 0 };
	static const char notfound[] = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";
	static const char loading[] =
		"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		"{\"error\":{\"message\":\"Loading model\",\"type\":\"unavailable_error\",\"code\":503}}";

	memset(r, 0, sizeof r);
	r[0].raw = loading;
	r[0].path = "/health";
	buf_adds(&n->raw[0], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"status\":\"ok\"}");
	r[1].raw = n->raw[0].data;
	r[1].path = "/health";
	buf_adds(&n->raw[1], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	tu_fixture("props.json", &n->raw[1]);
	r[2].raw = n->raw[1].data;
	r[2].path = "/props";
	buf_adds(&n->raw[2], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	tu_fixture("v1_models.json", &n->raw[2]);
	r[3].raw = n->raw[2].data;
	r[3].path = "/v1/models";
	r[4].raw = r[5].raw = notfound; /* the template probe: an old server */
	r[4].path = r[5].path = "/apply-template";
	tu_server_start(&n->srv, r, 6);
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 10000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.loading, 1);
	assert_string_equal(llama_info(n->lm)->model_id, "local-tiny");
	assert_int_equal(llama_info(n->lm)->n_ctx, 8192);
	assert_string_equal(llama_provider(n->lm)->model(n->lm), "local-tiny");
}

/* A 503 that is not "Loading model" (a proxy, a broken server): asked 3 times, then what to do. */
static void
test_probe_other_503(void **state)
{
	struct net *n = *state;
	struct tu_resp r[3];
	struct probe_rec p = { 0 };
	static const char down[] =
		"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
		"Service Unavailable";
	int i;

	memset(r, 0, sizeof r);
	for (i = 0; i < 3; i++) {
		r[i].raw = down;
		r[i].path = "/health";
	}
	tu_server_start(&n->srv, r, 3);
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 300000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_int_equal(p.rc, -1);
	assert_int_equal(p.loading, 0);
	assert_int_equal(p.kind, LLM_ERR_HTTP);
	assert_non_null(strstr(p.msg, "HTTP 503 3 times"));
	assert_non_null(strstr(p.msg, "restart it"));
}

static void
test_probe_no_server(void **state)
{
	struct net *n = *state;
	struct probe_rec p = { 0 };

	net_connect(n, tu_closed_port());
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 5000));
	assert_int_equal(p.rc, -1);
	assert_int_equal(p.kind, LLM_ERR_CONNECT);
	assert_non_null(strstr(p.msg, "no llama-server at"));
	assert_non_null(strstr(p.msg, "--server"));
}

/* Probing, not names: no /health → /v1/models; no /props → the context /v1/models states. */
static void
test_probe_plain_server(void **state)
{
	struct net *n = *state;
	struct tu_resp r[7];
	struct probe_rec p = { 0 };
	static const char notfound[] =
		"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"detail\":\"Not Found\"}";
	static const char models[] =
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		"{\"object\":\"list\",\"data\":[{\"id\":\"other\",\"max_model_len\":4096},"
		"{\"id\":\"Qwen/Qwen3-8B\",\"object\":\"model\",\"max_model_len\":40960}]}";
	int i;

	memset(r, 0, sizeof r);
	for (i = 0; i < 7; i++)
		r[i].raw = notfound;
	r[0].path = "/health";
	r[1].path = "/v1/models";
	r[1].raw = models;
	r[2].path = "/props";
	r[3].path = r[4].path = "/apply-template";
	r[5].path = "/slots";
	r[6].path = "/v1/models"; /* asked twice would be a bug: it would answer 404 */
	tu_server_start(&n->srv, r, 7);
	free(n->cfg.model);
	n->cfg.model = strdup("Qwen/Qwen3-8B");
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_string_equal(p.msg, "");
	assert_int_equal(p.rc, 0);
	assert_string_equal(llama_info(n->lm)->model_id, "Qwen/Qwen3-8B");
	assert_int_equal(llama_info(n->lm)->n_ctx, 40960);
	assert_int_equal(llama_info(n->lm)->has_health, 0);
	assert_int_equal(llama_info(n->lm)->has_props, 0);
	assert_int_equal(llama_info(n->lm)->has_slots, 0);
	assert_int_equal(llama_info(n->lm)->plain, 1);
	assert_int_equal(llama_slot(n->lm), -1);
}

/* The server_context setting wins over /v1/models metadata on a server without /props. */
static void
test_probe_plain_context_setting(void **state)
{
	struct net *n = *state;
	struct tu_resp r[6];
	struct probe_rec p = { 0 };
	static const char notfound[] = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";
	static const char models[] =
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"data\":[{\"id\":\"llama3\"}]}";
	int i;

	memset(r, 0, sizeof r);
	for (i = 0; i < 6; i++)
		r[i].raw = notfound;
	r[1].raw = models;
	r[1].path = "/v1/models";
	tu_server_start(&n->srv, r, 6);
	n->cfg.server_context = 12288;
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_int_equal(p.rc, 0);
	assert_int_equal(llama_info(n->lm)->n_ctx, 12288);
}

/* Neither /health nor /v1/models: one line that says what the URL should be. */
static void
test_probe_not_openai(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2];
	struct probe_rec p = { 0 };
	static const char notfound[] = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";

	memset(r, 0, sizeof r);
	r[0].raw = r[1].raw = notfound;
	tu_server_start(&n->srv, r, 2);
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_int_equal(p.rc, -1);
	assert_non_null(strstr(p.msg, "GET /health with HTTP 404 and GET /v1/models with HTTP 404"));
	assert_non_null(strstr(p.msg, "--server http://HOST:PORT/v1"));
}

/* A chat answered 401 (a server that guards only the chat): what to set. */
static void
test_describe_401(void **state)
{
	struct llm_event ev;
	struct buf line = BUF_INIT;

	(void)state;
	memset(&ev, 0, sizeof ev);
	ev.kind = LLM_ERROR;
	ev.error.kind = LLM_ERR_HTTP;
	ev.error.http_status = 401;
	ev.text = str_from("Invalid API Key");
	llama_describe_error("http://h:1/v1", &ev, &line);
	assert_string_equal(line.data, "server at http://h:1/v1 refused the request (HTTP 401: Invalid API Key): set OPENAI_API_KEY to its key (sent as a Bearer key)");
	buf_release(&line);
}

/* A base URL ending in /v1 (or /v1/) is the same server: no /v1/v1/... */
static void
test_url_with_v1(void **state)
{
	struct cfg c;
	struct buf u = BUF_INIT;
	static const char *const bases[] = { "http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/",
					      "http://h:1//v1//" };
	size_t i;

	(void)state;
	cfg_defaults(&c);
	for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		free(c.server_url);
		c.server_url = strdup(bases[i]);
		buf_reset(&u);
		llama_disco_url(&c, "/v1/models", &u);
		assert_string_equal(u.data, "http://h:1/v1/models");
	}
	free(c.server_url);
	c.server_url = strdup("https://api.example.com/openai/v1");
	buf_reset(&u);
	llama_disco_url(&c, "/v1/chat/completions", &u);
	assert_string_equal(u.data, "https://api.example.com/openai/v1/chat/completions");
	buf_release(&u);
	cfg_release(&c);
}

/* 401 on /props (llama-server --api-key): the key is registered and discovery starts over with it. */
static void
test_probe_api_key(void **state)
{
	struct net *n = *state;
	struct tu_resp r[12];
	struct probe_rec p = { 0 };
	static const char denied[] =
		"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		"{\"error\":{\"code\":401,\"message\":\"Invalid API Key\",\"type\":\"authentication_error\"}}";
	static const char notfound[] = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";
	static const char ok[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"status\":\"ok\"}";
	int i, k, health = 0, with_key = 0, before = 0;
	char *req;

	memset(r, 0, sizeof r);
	r[0].raw = ok;
	r[0].path = "/health";
	for (i = 1; i < 6; i++)
		r[i].raw = denied;
	r[1].path = "/props";
	r[2].path = "/v1/models";
	r[3].path = r[4].path = "/apply-template";
	r[5].path = "/slots";
	r[6].raw = ok;
	r[6].path = "/health";
	buf_adds(&n->raw[0], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	tu_fixture("props.json", &n->raw[0]);
	r[7].raw = n->raw[0].data;
	r[7].path = "/props";
	buf_adds(&n->raw[1], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	tu_fixture("v1_models.json", &n->raw[1]);
	r[8].raw = n->raw[1].data;
	r[8].path = "/v1/models";
	r[9].raw = r[10].raw = r[11].raw = notfound;
	tu_server_record(&n->srv, r, 12);
	n->cfg.server_api_key = strdup("sk-unit-0123456789");
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_string_equal(p.msg, "");
	assert_int_equal(p.rc, 0);
	assert_int_equal(llama_info(n->lm)->bearer, 1);
	assert_int_equal(llama_info(n->lm)->has_props, 1);
	assert_int_equal(llama_info(n->lm)->n_ctx, 8192);
	for (k = 0; (req = tu_server_req(&n->srv, k)) != NULL; k++) {
		int has = strstr(req, "Authorization: Bearer sk-unit-0123456789\r\n") != NULL;

		if (!strncmp(req, "GET /health", 11))
			health++;
		if (health < 2)
			before += has; /* the first round goes without the key */
		else
			with_key += has;
		if (health >= 2)
			assert_true(has);
		free(req);
	}
	assert_int_equal(health, 2);
	assert_int_equal(before, 0);
	assert_true(with_key >= 3);
}

/* The key refused, or none held: one line each that says what to set. */
static void
test_probe_api_key_missing(void **state)
{
	struct net *n = *state;
	struct tu_resp r[6];
	struct probe_rec p = { 0 };
	static const char denied[] = "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n";
	static const char notfound[] = "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n";
	int i;

	memset(r, 0, sizeof r);
	for (i = 0; i < 6; i++)
		r[i].raw = denied;
	r[0].raw = notfound;
	r[0].path = "/health";
	tu_server_start(&n->srv, r, 6);
	net_connect(n, n->srv.port);
	llama_probe(n->lm, 1000, probe_loading, probe_done, &p);
	assert_true(tu_run_until(n->loop, &p.done, 8000));
	assert_int_equal(p.rc, -1);
	assert_non_null(strstr(p.msg, "wants an API key (GET /v1/models: HTTP 401): set OPENAI_API_KEY"));
}

static void
test_cancel_mid_stream(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };
	struct conv cv;
	struct provider_req req = { 0 };
	struct provider *p;
	int spins = 0;

	sse_response(&n->raw[0], "chat_stream_prefill_progress.sse");
	r.raw = n->raw[0].data;
	r.chunk = 64;
	r.delay_us = 20000;
	tu_server_start(&n->srv, &r, 1);
	net_connect(n, n->srv.port);
	p = llama_provider(n->lm);
	conv_init(&cv);
	conv_add_user_text(&cv, "hi");
	req.conv = &cv;
	assert_int_equal(p->start(p->self, &req, rec_sink, &n->rec, NULL), 0);
	while (!n->rec.nprogress && spins++ < 300)
		loop_run_once(n->loop, 10, NULL);
	assert_true(n->rec.nprogress > 0);
	p->cancel(p->self);
	n->rec.ended = 1; /* anything from now on counts as after_end */
	spins = 0;
	while (spins++ < 30)
		loop_run_once(n->loop, 10, NULL);
	assert_int_equal(n->rec.after_end, 0);
	conv_release(&cv);
}

/* The server sends the first events, then freezes: the idle timer ends the call. */
static void
test_stream_idle_timeout(void **state)
{
	struct net *n = *state;
	struct tu_resp r = { 0 };
	struct buf fx = BUF_INIT;
	char *second;

	tu_fixture("chat_stream_tools.sse", &fx);
	second = strstr(fx.data, "\n\ndata: ") + 2; /* end of the first event */
	buf_adds(&n->raw[0], "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
	r.chunk = n->raw[0].len + (size_t)(second - fx.data);
	buf_add(&n->raw[0], fx.data, fx.len);
	r.raw = n->raw[0].data;
	r.delay_us = 4000000; /* frozen for 4 s after the first event */
	tu_server_start(&n->srv, &r, 1);
	n->cfg.stream_idle_timeout_s = 1;
	net_connect(n, n->srv.port);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_ERROR);
	assert_int_equal(n->rec.last.error.kind, LLM_ERR_DISCONNECTED);
	assert_non_null(strstr(n->rec.msg, "no data for 1 s"));
	assert_int_equal(n->rec.nprogress, 1);
	buf_release(&fx);
}

/* Pinned to slot 0, which another client holds: after slot_wait the request goes to any slot. */
static void
test_busy_slot_falls_back(void **state)
{
	struct net *n = *state;
	struct tu_resp r[3];
	struct conv cv;
	struct provider_req req = { 0 };
	struct provider *p;
	int notices = 0;

	memset(r, 0, sizeof r);
	r[0].path = "/v1/chat/completions";
	r[0].hold = 1; /* queued behind the other client: nothing comes back */
	r[0].raw = "";
	buf_adds(&n->raw[0], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
			     "[{\"id\":0,\"n_ctx\":8192,\"is_processing\":true,\"id_task\":7}]");
	r[1].path = "/slots";
	r[1].raw = n->raw[0].data;
	sse_response(&n->raw[1], "chat_stream_turn2_cache_hit.sse");
	r[2].path = "/v1/chat/completions";
	r[2].raw = n->raw[1].data;
	tu_server_start(&n->srv, r, 3);
	n->cfg.id_slot = 0;
	n->cfg.slot_wait_s = 1;
	net_connect(n, n->srv.port);
	assert_int_equal(llama_slot(n->lm), 0);
	p = llama_provider(n->lm);
	conv_init(&cv);
	conv_add_user_text(&cv, "hi");
	req.conv = &cv;
	n->rec.text.len = 0;
	assert_int_equal(p->start(p->self, &req, rec_sink, &n->rec, NULL), 0);
	assert_true(tu_run_until(n->loop, &n->rec.ended, 8000));
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	assert_int_equal(llama_slot(n->lm), -1);
	notices = n->rec.nnotice;
	assert_int_equal(notices, 1);
	conv_release(&cv);
}

/* Resumed session: the first request goes to any slot, then hearth pins the one that served it. */
static void
test_learns_slot_after_unpinned_request(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2];
	int never = 0;

	memset(r, 0, sizeof r);
	sse_response(&n->raw[0], "chat_stream_turn2_cache_hit.sse"); /* cache 343 + prompt 50 */
	r[0].path = "/v1/chat/completions";
	r[0].raw = n->raw[0].data;
	buf_adds(&n->raw[1], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
			     "[{\"id\":0,\"n_ctx\":8192,\"is_processing\":false,\"id_task\":3,\"n_prompt_tokens\":120},"
			     "{\"id\":1,\"n_ctx\":8192,\"is_processing\":false,\"id_task\":9,\"n_prompt_tokens\":393}]");
	r[1].path = "/slots";
	r[1].raw = n->raw[1].data;
	tu_server_start(&n->srv, r, 2);
	net_connect(n, n->srv.port);
	llama_prefer_warm_slot(n->lm);
	assert_int_equal(llama_slot(n->lm), -1);
	chat(n);
	assert_int_equal(n->rec.last.kind, LLM_DONE);
	tu_run_until(n->loop, &never, 300);
	assert_int_equal(llama_slot(n->lm), 1);
}

struct slots_rec {
	int done, status;
	size_t n;
	long n_prompt_tokens;
	char err[600];
};

static void
slots_done(int status, const struct llama_slot *slots, size_t n, const struct err *e, void *arg)
{
	struct slots_rec *s = arg;

	s->done = 1;
	s->status = status;
	s->n = n;
	s->n_prompt_tokens = n ? slots[0].n_prompt_tokens : -1;
	snprintf(s->err, sizeof s->err, "%s", e ? e->msg : "");
}

static void
test_get_slots(void **state)
{
	struct net *n = *state;
	struct tu_resp r[2];
	struct slots_rec s = { 0 };

	memset(r, 0, sizeof r);
	buf_adds(&n->raw[0], "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
	tu_fixture("slots_processing.json", &n->raw[0]);
	r[0].raw = n->raw[0].data;
	r[1].raw = "HTTP/1.1 501 Not Implemented\r\nConnection: close\r\n\r\n"
		   "{\"error\":{\"code\":501,\"message\":\"This server does not support slots endpoint.\",\"type\":\"not_supported_error\"}}";
	tu_server_start(&n->srv, r, 2);
	net_connect(n, n->srv.port);
	llama_get_slots(n->lm, slots_done, &s);
	assert_true(tu_run_until(n->loop, &s.done, 5000));
	assert_int_equal(s.status, 200);
	assert_true(s.n >= 1);
	assert_int_equal(s.n_prompt_tokens, 4096);
	memset(&s, 0, sizeof s);
	llama_get_slots(n->lm, slots_done, &s);
	assert_true(tu_run_until(n->loop, &s.done, 5000));
	assert_int_equal(s.status, 501); /* --no-slots: the panel says so */
	assert_int_equal(s.n, 0);
}

/* /metrics as a server's load: llama-server's, vLLM's and SGLang's gauges, summed over labels. */
static void
test_wire_load(void **state)
{
	static const char llama[] = "# HELP llamacpp:requests_processing Number of requests processing.\n"
		"# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 2\n"
		"llamacpp:requests_deferred 1\nllamacpp:prompt_tokens_total 500\n";
	static const char vllm[] = "vllm:num_requests_running{model_name=\"a\"} 3.0\r\n"
		"vllm:num_requests_running{model_name=\"b}\\\"x\"} 1.0 1700000000\n"
		"vllm:num_requests_waiting{model_name=\"a\"} 4.0\nvllm:num_requests_waiting_time 99\n";
	static const char sglang[] = "sglang:num_running_reqs{model_name=\"m\"} 0.0\nsglang:num_queue_reqs{model_name=\"m\"} 7\n";
	static const char none[] = "# nothing of the load\nprocess_cpu_seconds_total 1.5\n"
		"vllm:num_requests_running NaN\nvllm:num_requests_waiting -1\nsglang:num_queue_reqs{x=\"unterminated";
	struct llama_load l;

	(void)state;
	assert_int_equal(llama_wire_load(llama, strlen(llama), &l), 0);
	assert_true(l.known && l.running == 2 && l.waiting == 1);
	assert_int_equal(llama_wire_load(vllm, strlen(vllm), &l), 0);
	assert_true(l.running == 4 && l.waiting == 4);
	assert_int_equal(llama_wire_load(sglang, strlen(sglang), &l), 0);
	assert_true(l.running == 0 && l.waiting == 7);
	assert_int_equal(llama_wire_load(none, strlen(none), &l), -1);
	assert_false(l.known);
	assert_int_equal(llama_wire_load(llama, 40, &l), -1); /* cut inside the first comment */
	assert_int_equal(llama_wire_load(NULL, 0, &l), -1);
}

/* Router mode: a model's entry states its context (status.args) and whether it is loaded. */
static void
test_wire_router_entry(void **state)
{
	static const char j[] = "{\"data\": [{\"id\": \"a\", \"status\": {\"value\": \"loaded\", \"args\": [\"llama-server\", \"-c\", \"16384\", \"-np\", \"4\"]}},"
		" {\"id\": \"b\", \"status\": {\"value\": \"unloaded\", \"args\": [\"--parallel\", \"4\", \"--ctx-size\", \"32768\", \"--kv-unified\"]}},"
		" {\"id\": \"c\", \"status\": {\"value\": \"loading\", \"args\": [\"--ctx-size\", \"8192\"]}},"
		" {\"id\": \"d\", \"status\": {\"value\": \"loaded\", \"args\": [\"--ctx-size\"]}}]}";
	struct llama_info info;

	(void)state;
	memset(&info, 0, sizeof info);
	assert_int_equal(llama_wire_models_for(j, strlen(j), "a", &info, NULL), 0);
	assert_int_equal(info.ctx_meta, 4096);
	assert_false(info.model_loading);
	assert_int_equal(llama_wire_models_for(j, strlen(j), "b", &info, NULL), 0);
	assert_int_equal(info.ctx_meta, 32768); /* one unified cache: each slot may use all of it */
	assert_true(info.model_loading);
	assert_int_equal(llama_wire_models_for(j, strlen(j), "c", &info, NULL), 0);
	assert_int_equal(info.ctx_meta, 8192);
	assert_true(info.model_loading);
	assert_int_equal(llama_wire_models_for(j, strlen(j), "d", &info, NULL), 0);
	assert_int_equal(info.ctx_meta, 0);
	llama_wire_info_release(&info);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_fields),
		cmocka_unit_test(test_prefix_stability),
		cmocka_unit_test(test_wire_roles),
		cmocka_unit_test(test_wire_load),
		cmocka_unit_test(test_wire_router_entry),
		cmocka_unit_test(test_request_memo),
		cmocka_unit_test(test_invalid_utf8_repaired),
		cmocka_unit_test(test_parse_discovery_fixtures),
		cmocka_unit_test_setup_teardown(test_stream_fixture_in_small_chunks, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_stream_one_byte_writes, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_in_stream_toolparse_error, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_context_exceeded, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_dropped_mid_stream, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_connection_refused, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_waits_for_loading, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_other_503, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_no_server, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_plain_server, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_plain_context_setting, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_not_openai, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_api_key, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_probe_api_key_missing, net_setup, net_teardown),
		cmocka_unit_test(test_url_with_v1),
		cmocka_unit_test(test_describe_401),
		cmocka_unit_test_setup_teardown(test_cancel_mid_stream, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_get_slots, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_stream_idle_timeout, net_setup, net_teardown),
		cmocka_unit_test(test_session_part_moves_to_first_user),
		cmocka_unit_test_setup_teardown(test_busy_slot_falls_back, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_learns_slot_after_unpinned_request, net_setup, net_teardown),
	};
	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

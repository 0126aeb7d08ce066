/*
 * test_oai: the chat.completion.chunk decoder, fed through the SSE parser
 * from recorded llama-server streams (whole, byte by byte, every split),
 * on synthetic streams (parallel tool calls, late names, escapes split
 * across fragments, errors, cut streams) and the HTTP error classifier.
 *
 * Decoded events are serialised one per line to a canonical text; error
 * kinds print as numbers (4 = LLM_ERR_TOOL_PARSE, 7 = LLM_ERR_PROTOCOL...).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/json.h"
#include "llm/openai.h"
#include "io/sse.h"
#include "llm/textcall.h"

struct pipe {
	struct sse sse;
	struct openai_dec dec;
	struct buf out;  /* canonical events */
	struct buf text; /* concatenated TEXT */
	struct buf args[4]; /* concatenated ARGS per index < 4 */
};

/* llm_sink_fn: one canonical line per event. */
static void
sink(void *ctx, const struct llm_event *ev)
{
	struct pipe *p = ctx;
	struct buf *o = &p->out;
	const struct llm_timings *t = &ev->timings;
	const struct llm_error *e = &ev->error;
	enum llm_kind k = ev->kind;

	buf_adds(o, llm_event_kind_name(k));
	if (k == LLM_TEXT)
		buf_add(&p->text, ev->text.p, ev->text.len);
	if (k == LLM_TOOL_CALL_ARGS && ev->index >= 0 && ev->index < 4)
		buf_add(&p->args[ev->index], ev->text.p, ev->text.len);
	if (k == LLM_TOOL_CALL_BEGIN)
		buf_addf(o, " %d id=%s name=%s", ev->index, ev->id ? ev->id : "(null)", ev->name);
	else if (k == LLM_TOOL_CALL_ARGS || k == LLM_TOOL_CALL_END)
		buf_addf(o, " %d", ev->index);
	else if (k == LLM_PROGRESS)
		buf_addf(o, " %ld/%ld/%ld/%ld", ev->progress.total, ev->progress.cache,
			 ev->progress.processed, ev->progress.time_ms);
	else if (k == LLM_TIMINGS)
		buf_addf(o, " %ld/%ld/%ld %.6g %.6g %.6g %.6g", t->cache_n, t->prompt_n,
			 t->predicted_n, t->prompt_ms, t->prompt_per_second, t->predicted_ms,
			 t->predicted_per_second);
	else if (k == LLM_USAGE)
		buf_addf(o, " %ld/%ld/%ld", ev->usage.prompt_tokens, ev->usage.completion_tokens,
			 ev->usage.cached_tokens);
	else if (k == LLM_ERROR)
		buf_addf(o, " kind=%d http=%d retry=%d type=%s ctx=%ld/%ld", e->kind, e->http_status,
			 e->retryable, e->type ? e->type : "(null)", e->n_prompt_tokens, e->n_ctx);
	else if (k == LLM_DONE)
		buf_addf(o, " %s", ev->stop_reason);
	if (ev->text.len || k == LLM_ERROR) {
		buf_addch(o, ' ');
		json_add_escaped(o, ev->text.p, ev->text.len);
	}
	buf_addch(o, '\n');
}

/* sse_event_fn feeding the decoder. */
static int
on_sse(void *ctx, struct str name, struct str data)
{
	struct pipe *p = ctx;

	return openai_dec_event(&p->dec, name, data, sink, p);
}

/* A fresh SSE parser, decoder and logs. */
static void
pipe_init(struct pipe *p)
{
	int i;

	sse_init(&p->sse);
	openai_dec_init(&p->dec);
	buf_init(&p->out, 0);
	buf_init(&p->text, 0);
	for (i = 0; i < 4; i++)
		buf_init(&p->args[i], 0);
}

/* Free everything pipe_init made. */
static void
pipe_release(struct pipe *p)
{
	int i;

	sse_release(&p->sse);
	openai_dec_release(&p->dec);
	buf_release(&p->out);
	buf_release(&p->text);
	for (i = 0; i < 4; i++)
		buf_release(&p->args[i]);
}

/* Feed bytes; 1 (the stream is over) is a fine answer. */
static void
feed(struct pipe *p, const char *s, size_t n)
{
	assert_in_range(sse_feed(&p->sse, s, n, on_sse, p), 0, 1);
}

/* Decode s[0..n) into a fresh p: split at k, or in one-byte chunks when k > n. */
static void
decode(struct pipe *p, const char *s, size_t n, size_t k)
{
	size_t i;

	pipe_init(p);
	if (k > n) {
		for (i = 0; i < n; i++)
			feed(p, s + i, 1);
	} else {
		feed(p, s, k);
		feed(p, s + k, n - k);
	}
	assert_in_range(sse_finish(&p->sse, on_sse, p), 0, 1);
	openai_dec_finish(&p->dec, sink, p);
}

/* Every split of s[0..n), and one-byte chunks, decode like the whole in *w. */
static void
check_splits(const char *name, const char *s, size_t n, struct pipe *w)
{
	struct pipe p;
	size_t k;

	decode(w, s, n, n);
	for (k = 0; k <= n + 1; k++) {
		decode(&p, s, n, k);
		if (strcmp(p.out.data, w->out.data) != 0)
			fail_msg("%s: split at %zu differs:\n%s\nvs\n%s", name, k, p.out.data,
				 w->out.data);
		pipe_release(&p);
	}
}

/*
 * Every split point of a fixture, tested inside the event that holds it:
 * O(n * event size) instead of O(n^2), which matters under valgrind.
 * Splits across events are test_sse's job; the decoder sees whole events.
 */
static void
check_events(const char *name, const char *s, size_t n)
{
	struct pipe w;
	size_t a = 0, k;

	for (k = 1; k <= n; k++)
		if (k == n || (s[k - 1] == '\n' && s[k] == '\n')) {
			check_splits(name, s + a, k + (k < n) - a, &w);
			pipe_release(&w);
			a = k + (k < n);
		}
}

/* Read a fixture file into b. */
static void
load(struct buf *b, const char *name)
{
	struct err e = ERR_INIT;
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", FIXTURES, name);
	if (buf_read_file(b, path, 0, &e) < 0)
		fail_msg("%s", e.msg);
}

/* Decode a fixture whole into p (left for inspection), after the split checks. */
static void
fixture(struct pipe *p, const char *name)
{
	struct buf f = BUF_INIT;
	struct pipe q;

	load(&f, name);
	decode(p, f.data, f.len, f.len);
	decode(&q, f.data, f.len, f.len + 1);
	assert_string_equal(q.out.data, p->out.data);
	pipe_release(&q);
	check_events(name, f.data, f.len);
	buf_release(&f);
}

/* Whether s starts with prefix (ends: with suffix). */
static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int
ends(const char *s, const char *suffix)
{
	return strlen(s) >= strlen(suffix) && !strcmp(s + strlen(s) - strlen(suffix), suffix);
}

/* Number of lines of o starting with prefix. */
static int
count_lines(const char *o, const char *prefix)
{
	int n = 0;

	for (; o && *o; o = strchr(o, '\n'), o = o ? o + 1 : NULL)
		n += starts(o, prefix);
	return n;
}

static void
test_fixture_tools_and_error(void **state)
{
	struct pipe p;

	(void)state;
	fixture(&p, "chat_stream_tools.sse");
	assert_true(starts(p.out.data, "progress 352/0/0/0\nprogress 352/0/352/9\ntext \"illness\"\n"
				       "text \" Hunters\"\n"));
	assert_int_equal(count_lines(p.out.data, "text "), 24);
	assert_true(ends(p.out.data, "\ntimings 0/352/24 10.533 33418.8 79.973 300.101\n"
				     "usage 352/24/0\ndone length\n"));
	assert_int_equal(count_lines(p.out.data, "tool_call"), 0);
	pipe_release(&p);
	fixture(&p, "chat_stream_toolparse_error.sse");
	assert_true(starts(p.out.data, "progress 352/343/343/0\n"));
	assert_true(ends(p.out.data, "\nerror kind=4 http=500 retry=0 type=server_error ctx=0/0 "
				     "\"The model produced output that does not match the expected "
				     "peg-native format\"\n"));
	assert_int_equal(count_lines(p.out.data, "done"), 0);
	assert_int_equal(count_lines(p.out.data, "error"), 1);
	assert_true(count_lines(p.out.data, "text ") > 100);
	pipe_release(&p);
}

static void
test_fixture_cache_and_prefill(void **state)
{
	struct pipe p;

	(void)state;
	fixture(&p, "chat_stream_turn2_cache_hit.sse");
	assert_true(starts(p.out.data, "progress 393/343/343/0\nprogress 393/343/393/6\n"));
	assert_non_null(strstr(p.out.data, "\ntimings 343/50/24 6.881 7266.39 42.605 563.314\n"
					   "usage 393/24/343\ndone length\n"));
	assert_true(starts(p.text.data, "Whisbright drinkers"));
	pipe_release(&p);
	fixture(&p, "chat_stream_prefill_progress.sse");
	assert_int_equal(count_lines(p.out.data, "progress "), 13);
	assert_non_null(strstr(p.out.data, "progress 22723/0/2048/1240\n"));
	assert_non_null(strstr(p.out.data, "progress 22723/0/22723/86153\n"));
	assert_non_null(strstr(p.out.data, "timings 0/22723/8 86154 263.749 1858.88 4.30367\n"
					   "done length\n"));
	assert_int_equal(count_lines(p.out.data, "usage"), 0);
	pipe_release(&p);
}

static void
test_fixture_toolcall_in_content(void **state)
{
	struct pipe p;
	struct textcall_result r;

	(void)state;
	fixture(&p, "chat_stream_toolcall_in_content.sse");
	assert_string_equal(p.text.data, "<tool_call>\n{\"name\": \"read\", \"arguments\": "
					 "{\"path\": \"main.c\"}}\n</tool_call>");
	assert_non_null(strstr(p.out.data, "\ntimings 12/54/49 "));
	assert_non_null(strstr(p.out.data, "\nusage 66/49/12\ndone stop\n"));
	textcall_run(p.text.data, p.text.len, NULL, NULL, &r);
	assert_int_equal(r.ncalls, 1);
	assert_string_equal(r.calls[0].name, "read");
	assert_string_equal(r.calls[0].args_json, "{\"path\":\"main.c\"}");
	assert_string_equal(r.text.data, "");
	textcall_release(&r);
	pipe_release(&p);
}

/* Decode a synthetic stream (SSE text) into p, checking every split. */
static void
synth(struct pipe *p, const char *sse)
{
	check_splits("synthetic", sse, strlen(sse) <= 4096 ? strlen(sse) : 0, p);
	pipe_release(p);
	decode(p, sse, strlen(sse), strlen(sse));
}

/* A synthetic stream decodes to exactly want. */
static void
expect(const char *sse, const char *want)
{
	struct pipe p;

	synth(&p, sse);
	assert_string_equal(p.out.data, want);
	pipe_release(&p);
}

#define TC(body) "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" body "]}}]}\n\n"
#define FIN(r) "data: {\"choices\":[{\"index\":0,\"finish_reason\":\"" r "\",\"delta\":{}}]}\n\n"
#define DONE "data: [DONE]\n\n"

static void
test_parallel_calls(void **state)
{
	struct pipe p;

	(void)state;
	synth(&p, TC("{\"index\":0,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"read\","
		     "\"arguments\":\"\"}}")
		  TC("{\"index\":1,\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"ls\","
		     "\"arguments\":\"{\\\"pa\"}}")
		  TC("{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\"}}")
		  TC("{\"index\":1,\"function\":{\"arguments\":\"th\\\":\\\".\\\"}\"}}")
		  TC("{\"index\":0,\"function\":{\"arguments\":\"\\\"x.c\\\"}\"}}")
		  FIN("tool_calls") DONE);
	assert_string_equal(p.out.data, "tool_call_begin 0 id=a name=read\n"
					"tool_call_begin 1 id=b name=ls\n"
					"tool_call_args 1 \"{\\\"pa\"\n"
					"tool_call_args 0 \"{\\\"path\\\":\"\n"
					"tool_call_args 1 \"th\\\":\\\".\\\"}\"\n"
					"tool_call_args 0 \"\\\"x.c\\\"}\"\n"
					"tool_call_end 0\ntool_call_end 1\ndone tool_calls\n");
	assert_string_equal(p.args[0].data, "{\"path\":\"x.c\"}");
	assert_string_equal(p.args[1].data, "{\"path\":\".\"}");
	pipe_release(&p);
}

static void
test_late_name_and_resent(void **state)
{
	(void)state;
	/* Fragments before the name are held; BEGIN waits for the name; re-sent
	 * and revised names are ignored; a missing index means the last call. */
	expect(TC("{\"index\":0,\"function\":{\"arguments\":\"{\\\"a\\\"\"}}")
	       TC("{\"index\":0,\"function\":{\"arguments\":\":\"}}")
	       TC("{\"index\":0,\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":\"1\"}}")
	       TC("{\"index\":0,\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":\"}\"}}")
	       TC("{\"index\":0,\"id\":\"y\",\"function\":{\"name\":\"g\"}}")
	       TC("{\"function\":{\"arguments\":\" \"}}") FIN("tool_calls") DONE,
	       "tool_call_begin 0 id=x name=f\ntool_call_args 0 \"{\\\"a\\\":\"\n"
	       "tool_call_args 0 \"1\"\ntool_call_args 0 \"}\"\ntool_call_args 0 \" \"\n"
	       "tool_call_end 0\ndone tool_calls\n");
}

static void
test_split_escape(void **state)
{
	struct pipe p;
	cJSON *v;

	(void)state;
	/* The arguments text {"s":"a\"b\u00e9"} cut inside both escapes. */
	synth(&p, TC("{\"index\":0,\"id\":\"i\",\"function\":{\"name\":\"w\",\"arguments\":"
		     "\"{\\\"s\\\":\\\"a\\\\\"}}")
		  TC("{\"index\":0,\"function\":{\"arguments\":\"\\\"b\\\\u00\"}}")
		  TC("{\"index\":0,\"function\":{\"arguments\":\"e9\\\"}\"}}") FIN("tool_calls"));
	assert_string_equal(p.args[0].data, "{\"s\":\"a\\\"b\\u00e9\"}");
	v = json_parse(p.args[0].data, p.args[0].len, NULL);
	assert_non_null(v);
	assert_string_equal(json_str(v, "s"), "a\"b\xc3\xa9");
	cJSON_Delete(v);
	/* No [DONE]: finish after finish_reason gives DONE. */
	assert_true(ends(p.out.data, "\ndone tool_calls\n"));
	pipe_release(&p);
}

static void
test_nameless_and_limits(void **state)
{
	struct pipe p;
	struct buf s = BUF_INIT;
	int i;

	(void)state;
	/* A call that never got a name still delivers its arguments. */
	expect(TC("{\"index\":2,\"function\":{\"arguments\":\"{}\"}}") DONE,
	       "tool_call_begin 2 id=(null) name=\ntool_call_args 2 \"{}\"\n"
	       "tool_call_end 2\ndone stop\n");
	expect(TC("{\"index\":-1,\"function\":{\"name\":\"x\"}}") DONE,
	       "error kind=7 http=0 retry=0 type=(null) ctx=0/0 \"malformed chunk from the "
	       "server: tool call index out of range\"\n");
	for (i = 0; i <= OPENAI_MAX_CALLS; i++)
		buf_addf(&s, TC("{\"index\":%d,\"function\":{\"name\":\"n\"}}"), i);
	synth(&p, s.data);
	assert_true(ends(p.out.data, "\nerror kind=7 http=0 retry=0 type=(null) ctx=0/0 "
				     "\"malformed chunk from the server: too many tool calls\"\n"));
	assert_int_equal(count_lines(p.out.data, "tool_call_begin"), OPENAI_MAX_CALLS);
	pipe_release(&p);
	buf_release(&s);
}

/*
 * Issue 20: the edges of a tool call's delta: no index on the first call
 * (index 0), the largest index an int holds (and one past it), arguments
 * sent as an object (printed) or as another type (ignored), and two calls
 * with the finish_reason in one chunk: both begin, both end before the
 * chunk's usage, and a fragment after the finish_reason is dropped.
 */
static void
test_call_edges(void **state)
{
	(void)state;
	expect(TC("{\"id\":\"a\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}") FIN("tool_calls"),
	       "tool_call_begin 0 id=a name=ls\ntool_call_args 0 \"{}\"\ntool_call_end 0\n"
	       "done tool_calls\n");
	expect(TC("{\"index\":2147483647,\"function\":{\"name\":\"x\"}}") DONE,
	       "tool_call_begin 2147483647 id=(null) name=x\ntool_call_end 2147483647\ndone stop\n");
	expect(TC("{\"index\":2147483648,\"function\":{\"name\":\"x\"}}") DONE,
	       "error kind=7 http=0 retry=0 type=(null) ctx=0/0 \"malformed chunk from the "
	       "server: tool call index out of range\"\n");
	expect(TC("{\"index\":0,\"function\":{\"name\":\"r\",\"arguments\":{\"path\":\"x\"}}}")
	       TC("{\"index\":0,\"function\":{\"arguments\":5}}")
	       TC("{\"index\":0,\"function\":{\"arguments\":[\"y\"]}}") DONE,
	       "tool_call_begin 0 id=(null) name=r\ntool_call_args 0 \"{\\\"path\\\":\\\"x\\\"}\"\n"
	       "tool_call_end 0\ndone stop\n");
	expect("data: {\"choices\":[{\"index\":0,\"finish_reason\":\"tool_calls\",\"delta\":{\"tool_calls\":["
	       "{\"index\":0,\"function\":{\"name\":\"a\"}},{\"index\":1,\"function\":{\"name\":\"b\"}}]}}],"
	       "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n"
	       TC("{\"index\":0,\"function\":{\"arguments\":\"late\"}}") DONE,
	       "tool_call_begin 0 id=(null) name=a\ntool_call_begin 1 id=(null) name=b\n"
	       "tool_call_end 0\ntool_call_end 1\nusage 3/2/0\ndone tool_calls\n");
}

static void
test_text_reasoning(void **state)
{
	(void)state;
	/* Null/empty/wrongly typed fields, other choices, unknown members and
	 * empty events are skipped. */
	expect("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n"
	       "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\","
	       "\"content\":\"A\"}}]}\n\n"
	       "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}]}\n\n"
	       "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other choice\"}}]}\n\n"
	       "data: {\"choices\":[{\"delta\":{\"content\":5,\"reasoning_content\":[]}}]}\n\n"
	       "data: {\"choices\":{\"delta\":{}},\"prompt_progress\":{\"total\":\"x\"}}\n\n"
	       "data: {\"unknown\":true}\n\ndata: \n\n"
	       "data: {\"choices\":[{\"delta\":{\"content\":\"B\\u0001\"}}],\"usage\":7}\n\n"
	       "data: {\"choices\":[{\"finish_reason\":null,\"delta\":{}}]}\n\n" DONE,
	       "reasoning \"hm\"\ntext \"A\"\nprogress 0/0/0/0\ntext \"B\\u0001\"\ndone stop\n");
}

static void
test_malformed(void **state)
{
	(void)state;
	expect("data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {\"choices\":[\n\n"
	       "data: {\"choices\":[{\"delta\":{\"content\":\"never\"}}]}\n\n" DONE,
	       "text \"ok\"\nerror kind=7 http=0 retry=0 type=(null) ctx=0/0 \"malformed chunk "
	       "from the server: invalid JSON at line 1, column 12: near '['\"\n");
	expect("data: [1,2]\n\n", "error kind=7 http=0 retry=0 type=(null) ctx=0/0 \"malformed "
				  "chunk from the server: data is not a JSON object\"\n");
	expect("data: {\"a\":1}}\n\n", "error kind=7 http=0 retry=0 type=(null) ctx=0/0 "
				       "\"malformed chunk from the server: invalid JSON at line "
				       "1, column 8: near '}'\"\n");
}

static void
test_stream_errors(void **state)
{
	static const char *const cases[][2] = {
		{ "data: {\"error\":{\"code\":500,\"message\":\"boom\",\"type\":\"server_error\"}}\n\n" DONE,
		  "error kind=0 http=500 retry=1 type=server_error ctx=0/0 \"boom\"\n" },
		{ "data: {\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}\n\n",
		  "error kind=2 http=503 retry=1 type=unavailable_error ctx=0/0 \"Loading model\"\n" },
		{ "data: {\"error\":{\"code\":400,\"message\":\"too long\",\"type\":\"exceed_context_size_error\","
		  "\"n_prompt_tokens\":9036,\"n_ctx\":8192}}\n\n",
		  "error kind=3 http=400 retry=0 type=exceed_context_size_error ctx=9036/8192 \"too long\"\n" },
		{ "data: {\"error\":{\"code\":500,\"message\":\"Failed to parse input at pos 12: x\"}}\n\n",
		  "error kind=4 http=500 retry=0 type=(null) ctx=0/0 \"Failed to parse input at pos 12: x\"\n" },
		/* /v1/messages style: event: error with a bare object. */
		{ "event: error\ndata: {\"code\":500,\"message\":\"bare\",\"type\":\"server_error\"}\n\n",
		  "error kind=0 http=500 retry=1 type=server_error ctx=0/0 \"bare\"\n" },
		{ "data: {\"error\":\"plain\"}\n\n", "error kind=0 http=0 retry=0 type=(null) ctx=0/0 \"plain\"\n" },
		{ "data: {\"error\":{}}\n\n", "error kind=0 http=0 retry=0 type=(null) ctx=0/0 \"the server "
					     "reported an error without a message\"\n" },
		/* issue 20: an in-stream code stands in for the status only from 1 to 999 */
		{ "data: {\"error\":{\"code\":1,\"message\":\"m\"}}\n\n",
		  "error kind=0 http=1 retry=0 type=(null) ctx=0/0 \"m\"\n" },
		{ "data: {\"error\":{\"code\":999,\"message\":\"m\"}}\n\n",
		  "error kind=0 http=999 retry=0 type=(null) ctx=0/0 \"m\"\n" },
		{ "data: {\"error\":{\"code\":1000,\"message\":\"m\"}}\n\n",
		  "error kind=0 http=0 retry=0 type=(null) ctx=0/0 \"m\"\n" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect(cases[i][0], cases[i][1]);
}

static void
test_cut_streams(void **state)
{
	(void)state;
	/* Closed before finish_reason: disconnected; open calls are not ended. */
	expect("data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n"
	       TC("{\"index\":0,\"id\":\"q\",\"function\":{\"name\":\"bash\",\"arguments\":\"{\"}}"),
	       "text \"par\"\ntool_call_begin 0 id=q name=bash\ntool_call_args 0 \"{\"\n"
	       "error kind=5 http=0 retry=1 type=(null) ctx=0/0 \"the server closed the stream "
	       "before the answer finished\"\n");
	/* Cut in the middle of an event (no blank line): the partial JSON is malformed. */
	expect("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"choi",
	       "text \"x\"\nerror kind=7 http=0 retry=0 type=(null) ctx=0/0 \"malformed chunk "
	       "from the server: invalid JSON at line 1, column 3: near 'choi'\"\n");
	/* [DONE] without finish_reason: stop, and open calls end first. */
	expect(TC("{\"index\":0,\"id\":\"q\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}") DONE
	       "data: {\"choices\":[{\"delta\":{\"content\":\"after\"}}]}\n\n",
	       "tool_call_begin 0 id=q name=ls\ntool_call_args 0 \"{}\"\ntool_call_end 0\n"
	       "done stop\n");
	/* Nothing at all. */
	expect("", "error kind=5 http=0 retry=1 type=(null) ctx=0/0 \"the server closed the "
		   "stream before the answer finished\"\n");
}

/* Classify a fixture .txt: body on the first line, then "HTTP <status>". */
static void
body_fixture(const char *name, struct llm_event *ev, struct buf *msg)
{
	struct buf f = BUF_INIT;
	const char *http;
	size_t body;

	load(&f, name);
	http = strstr(f.data, "\nHTTP ");
	assert_non_null(http);
	body = (size_t)(http - f.data);
	openai_error_from_body(atoi(http + 6), f.data, body, ev, msg);
	buf_release(&f);
}

static void
test_error_bodies(void **state)
{
	static const struct {
		int status;
		const char *body, *text, *type;
		enum llm_err_kind kind;
		int retry;
	} cases[] = {
		{ 503, "{\"error\":{\"message\":\"Loading model\",\"type\":\"unavailable_error\",\"code\":503}}",
		  "Loading model", "unavailable_error", LLM_ERR_LOADING, 1 },
		{ 500, "{\"error\":{\"code\":500,\"message\":\"The model produced output that does not "
		       "match the expected peg-native format\",\"type\":\"server_error\"}}",
		  "The model produced output that does not match the expected peg-native format",
		  "server_error", LLM_ERR_TOOL_PARSE, 0 },
		{ 404, "{\"error\":{\"code\":404,\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}",
		  "File Not Found", "not_found_error", LLM_ERR_HTTP, 0 },
		{ 502, "<html>\r\n<head><title>502 Bad Gateway</title></head>",
		  "HTTP 502 with an HTML page instead of a llama-server answer (a proxy in between, or another server on that port?)",
		  NULL, LLM_ERR_HTTP, 1 },
		/* issue 20: spaces and line breaks before the page's '<' */
		{ 502, " \n\r<html>",
		  "HTTP 502 with an HTML page instead of a llama-server answer (a proxy in between, or another server on that port?)",
		  NULL, LLM_ERR_HTTP, 1 },
		{ 500, "", "HTTP 500 with an empty body", NULL, LLM_ERR_HTTP, 1 },
		{ 500, NULL, "HTTP 500 with an empty body", NULL, LLM_ERR_HTTP, 1 },
		/* a 503 that is not llama-server loading its model is an HTTP error, retried as usual */
		{ 503, "  Service \x01Unavailable \xff\xc3\xa9\n second line", "Service ?Unavailable ?\xc3\xa9",
		  NULL, LLM_ERR_HTTP, 1 },
		{ 503, "{\"error\":{\"code\":503,\"message\":\"no slot available\",\"type\":\"unavailable_error\"}}",
		  "no slot available", "unavailable_error", LLM_ERR_HTTP, 1 },
		{ 429, "{\"error\":\"slow down\"}", "slow down", NULL, LLM_ERR_HTTP, 1 },
		{ 401, "{\"code\":401,\"message\":\"Invalid API Key\",\"type\":\"authentication_error\"}",
		  "Invalid API Key", "authentication_error", LLM_ERR_HTTP, 0 },
		{ 500, "{\"error\":{\"code\":500,\"message\":\"tools param requires --jinja flag\"}}",
		  "tools param requires --jinja flag", NULL, LLM_ERR_HTTP, 0 },
		{ 400, "[\"not\", \"an\", \"error\"]", "[\"not\", \"an\", \"error\"]", NULL, LLM_ERR_HTTP, 0 },
		/* issue 20: the bounds of "a server error, retried" are 500 and 599 */
		{ 599, "odd gateway", "odd gateway", NULL, LLM_ERR_HTTP, 1 },
		{ 600, "odd gateway", "odd gateway", NULL, LLM_ERR_HTTP, 0 },
		{ 499, "client closed", "client closed", NULL, LLM_ERR_HTTP, 0 },
		/* issue 20: DEL (0x7f) is a control byte too; '~' (0x7e) is printable */
		{ 400, "a\x7f~b", "a?~b", NULL, LLM_ERR_HTTP, 0 },
	};
	struct llm_event ev;
	struct buf msg = BUF_INIT, body = BUF_INIT;
	char longb[600];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *b = cases[i].body;

		openai_error_from_body(cases[i].status, b, b ? strlen(b) : 0, &ev, &msg);
		assert_int_equal(ev.kind, LLM_ERROR);
		assert_int_equal(ev.error.http_status, cases[i].status);
		assert_int_equal(ev.error.kind, cases[i].kind);
		assert_int_equal(ev.error.retryable, cases[i].retry);
		assert_true(str_eq(ev.text, cases[i].text));
		assert_int_equal(msg.len, ev.text.len);
		if (cases[i].type)
			assert_string_equal(ev.error.type, cases[i].type);
		else
			assert_null(ev.error.type);
	}
	body_fixture("error_context_exceeded.txt", &ev, &msg);
	assert_int_equal(ev.error.kind, LLM_ERR_CONTEXT);
	assert_int_equal(ev.error.http_status, 400);
	assert_int_equal(ev.error.n_prompt_tokens, 9036);
	assert_int_equal(ev.error.n_ctx, 8192);
	assert_false(ev.error.retryable);
	assert_string_equal(ev.error.type, "exceed_context_size_error");
	assert_true(str_eq(ev.text, "request (9036 tokens) exceeds the available context size "
				    "(8192 tokens), try increasing it"));
	assert_ptr_equal(msg.data, ev.text.p);
	body_fixture("error_bad_json.txt", &ev, &msg);
	assert_int_equal(ev.error.kind, LLM_ERR_HTTP);
	assert_int_equal(ev.error.http_status, 500);
	assert_false(ev.error.retryable);
	assert_string_equal(ev.error.type, "server_error");
	assert_true(str_startswith(ev.text, "[json.exception.parse_error.101] parse error at line 1"));
	memset(longb, 'z', sizeof longb);
	openai_error_from_body(500, longb, sizeof longb, &ev, &msg);
	assert_int_equal(ev.text.len, 200);
	buf_release(&msg);
	/*
	 * Issue 20: the type lies in msg's own storage, NUL included, even
	 * when message, NUL, type and NUL are one byte more than the room the
	 * message alone needed (60 + 1 + 3 + 1 = 65 > 64, buf's first size).
	 */
	memset(longb, 'm', 60);
	longb[60] = '\0';
	buf_addf(&body, "{\"error\":{\"message\":\"%s\",\"type\":\"abc\"}}", longb);
	openai_error_from_body(400, body.data, body.len, &ev, &msg);
	assert_int_equal(ev.text.len, 60);
	assert_string_equal(ev.error.type, "abc");
	assert_true(ev.error.type >= msg.data && ev.error.type + 3 < msg.data + msg.alloc);
	buf_release(&msg);
	buf_release(&body);
}

/* One event straight into the decoder; its result (1: the stream is over). */
static int
dec1(struct pipe *p, const char *data)
{
	return openai_dec_event(&p->dec, str_make("", 0), str_make(data, strlen(data)), sink, p);
}

/*
 * Issue 20: the decoder's result says when the stream is over (the SSE
 * parser stops on it): 0 for a chunk, 1 for [DONE], for an in-stream
 * error and for malformed data, and 1 again, with no event, for anything
 * fed after that.
 */
static void
test_over_result(void **state)
{
	const char *chunk = "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}";
	struct pipe p;
	size_t n;

	(void)state;
	pipe_init(&p);
	assert_int_equal(dec1(&p, chunk), 0);
	assert_int_equal(dec1(&p, "[DONE]"), 1);
	n = p.out.len;
	assert_int_equal(dec1(&p, chunk), 1);
	assert_int_equal(p.out.len, n);
	pipe_release(&p);
	pipe_init(&p);
	assert_int_equal(dec1(&p, "{\"error\":{\"message\":\"boom\",\"code\":500}}"), 1);
	assert_non_null(strstr(p.out.data, "error"));
	n = p.out.len;
	assert_int_equal(dec1(&p, chunk), 1);
	assert_int_equal(dec1(&p, "[DONE]"), 1);
	assert_int_equal(p.out.len, n);
	pipe_release(&p);
	pipe_init(&p);
	assert_int_equal(dec1(&p, "{\"choices\":["), 1);
	assert_int_equal(count_lines(p.out.data, "error kind=7"), 1);
	pipe_release(&p);
}

/*
 * Issue 20: openai_dec_release leaves the decoder initialised, so a second
 * stream decodes from scratch: no leftover "over", no leftover calls.
 */
static void
test_release_reinitialises(void **state)
{
	struct pipe p;

	(void)state;
	pipe_init(&p);
	assert_int_equal(dec1(&p, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
			     "\"id\":\"a\",\"function\":{\"name\":\"ls\"}}]}}]}"), 0);
	assert_int_equal(dec1(&p, "[DONE]"), 1);
	openai_dec_release(&p.dec);
	assert_int_equal(p.dec.ncalls, 0);
	buf_reset(&p.out);
	assert_int_equal(dec1(&p, "{\"choices\":[{\"delta\":{\"content\":\"again\"}}]}"), 0);
	openai_dec_finish(&p.dec, sink, &p);
	assert_string_equal(p.out.data, "text \"again\"\nerror kind=5 http=0 retry=1 type=(null) "
			    "ctx=0/0 \"the server closed the stream before the answer finished\"\n");
	pipe_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_tools_and_error),
		cmocka_unit_test(test_fixture_cache_and_prefill),
		cmocka_unit_test(test_fixture_toolcall_in_content),
		cmocka_unit_test(test_parallel_calls),
		cmocka_unit_test(test_late_name_and_resent),
		cmocka_unit_test(test_split_escape),
		cmocka_unit_test(test_nameless_and_limits),
		cmocka_unit_test(test_call_edges),
		cmocka_unit_test(test_text_reasoning),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_stream_errors),
		cmocka_unit_test(test_cut_streams),
		cmocka_unit_test(test_error_bodies),
		cmocka_unit_test(test_over_result),
		cmocka_unit_test(test_release_reinitialises),
	};

	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

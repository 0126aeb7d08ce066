/*
 * llm/openai: chat.completion.chunk stream decoder (contract in llm/openai.h).
 *
 * Per stream the decoder keeps the tool calls seen so far (a short array
 * in order of first appearance, looked up by the wire `index`), the last
 * finish_reason, and `over` once a terminal event (DONE or ERROR) went
 * out.  Invariants: a call is `begun` only once its name is known (or at
 * the very end), its `pending` fragments are empty once begun, and an
 * `ended` call is never begun or fed again.  Each chunk's JSON tree is
 * parsed and freed inside openai_dec_event.
 */
#include "llm/openai.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"

#define BODY_LINE_MAX 200 /* bytes of a non-JSON error body quoted */

/* Start a decoder for one stream. */
void
openai_dec_init(struct openai_dec *d)
{
	memset(d, 0, sizeof *d);
	buf_init(&d->msg, 0);
}

/* Free all calls and buffers; d is left initialised. */
void
openai_dec_release(struct openai_dec *d)
{
	size_t i;

	for (i = 0; i < d->ncalls; i++) {
		free(d->calls[i].id);
		free(d->calls[i].name);
		buf_release(&d->calls[i].pending);
	}
	free(d->calls);
	free(d->finish_reason);
	buf_release(&d->msg);
	openai_dec_init(d);
}

/* A zeroed event of kind k. */
static struct llm_event
event(enum llm_kind k)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = k;
	return ev;
}

/* Emit a text-carrying event unless the text is empty. */
static void
emit_text(enum llm_kind k, int index, const char *s, size_t n, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(k);

	if (!n)
		return;
	ev.index = index;
	ev.text = str_make(s, n);
	sink(ctx, &ev);
}

/* Emit ev as the terminal error; nothing follows it. */
static void
emit_error(struct openai_dec *d, struct llm_event *ev, llm_sink_fn sink, void *ctx)
{
	ev->kind = LLM_ERROR;
	d->over = 1;
	sink(ctx, ev);
}

/* The stream broke the protocol: report why and stop. */
static void
protocol_error(struct openai_dec *d, const char *why, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_ERROR);

	buf_reset(&d->msg);
	buf_addf(&d->msg, "malformed chunk from the server: %s", why);
	ev.error.kind = LLM_ERR_PROTOCOL;
	ev.text = str_make(d->msg.data, d->msg.len);
	emit_error(d, &ev, sink, ctx);
}

/* Whether a server message says the model's tool call did not parse. */
static int
is_tool_parse(const char *m)
{
	return strstr(m, "does not match the expected") || strstr(m, "Failed to parse input") ||
	       strstr(m, "Invalid diff");
}

/* Whether a failure with this status and message may succeed if retried. */
static int
retryable(int status, const char *m)
{
	if (status == 429)
		return 1;
	if (status < 500 || status > 599)
		return 0;
	/* llama answers our own malformed requests with 500 (protocols.md C14). */
	return !(strstr(m, "json.exception") || strstr(m, "requires --jinja") ||
		 strstr(m, "Failed to parse tools"));
}

/*
 * Fill ev from an error object {code, message, type, ...}; status is the
 * HTTP status (0 in a stream, where the object's code stands in).
 * Strings stay borrowed from the tree.
 */
static void
classify(const cJSON *err, int status, int in_stream, struct llm_event *ev)
{
	const char *m = json_str(err, "message"), *type = json_str(err, "type");
	long code;

	*ev = event(LLM_ERROR);
	if (!m || !*m)
		m = type && *type ? type : "the server reported an error without a message";
	if (status == 0 && json_long(err, "code", &code) == 0 && code > 0 && code < 1000)
		status = (int)code;
	ev->text = str_from(m);
	ev->error.type = type;
	ev->error.http_status = status;
	if (is_tool_parse(m)) {
		ev->error.kind = LLM_ERR_TOOL_PARSE;
	} else if (type && strcmp(type, "exceed_context_size_error") == 0) {
		ev->error.kind = LLM_ERR_CONTEXT;
		json_long(err, "n_prompt_tokens", &ev->error.n_prompt_tokens);
		json_long(err, "n_ctx", &ev->error.n_ctx);
	} else if (strstr(m, "Loading model")) { /* llama-server's answer while it loads: waited out */
		ev->error.kind = LLM_ERR_LOADING;
		ev->error.retryable = 1;
	} else {
		ev->error.kind = in_stream ? LLM_ERR_OTHER : LLM_ERR_HTTP;
		ev->error.retryable = retryable(status, m);
	}
}

/* A stand-in error object {"message": m} for errors given as bare text. */
static cJSON *
message_obj(const char *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "message", m);
	return o;
}

/* The call with wire index idx, or NULL. */
static struct openai_call *
call_find(struct openai_dec *d, int idx)
{
	size_t i;

	for (i = 0; i < d->ncalls; i++)
		if (d->calls[i].index == idx)
			return &d->calls[i];
	return NULL;
}

/* Append a new call with wire index idx. */
static struct openai_call *
call_add(struct openai_dec *d, int idx)
{
	struct openai_call *c;

	if (d->ncalls == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 4;
		d->calls = xrealloc(d->calls, d->alloc * sizeof *d->calls);
	}
	c = &d->calls[d->ncalls++];
	memset(c, 0, sizeof *c);
	c->index = idx;
	buf_init(&c->pending, 0);
	return c;
}

/* Emit BEGIN for c, then the argument fragments held until now. */
static void
call_begin(struct openai_call *c, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_TOOL_CALL_BEGIN);

	ev.index = c->index;
	ev.id = c->id;
	ev.name = c->name ? c->name : "";
	c->begun = 1;
	sink(ctx, &ev);
	emit_text(LLM_TOOL_CALL_ARGS, c->index, c->pending.data, c->pending.len, sink, ctx);
	buf_release(&c->pending);
}

/* Replace *slot with a copy of s when s is a non-empty string. */
static void
set_str(char **slot, const char *s)
{
	if (!s || !*s)
		return;
	free(*slot);
	*slot = xstrdup(s);
}

/* Send or hold one arguments fragment (a string, or an object as text). */
static void
call_args(struct openai_call *c, const cJSON *args, llm_sink_fn sink, void *ctx)
{
	char *text = NULL;
	const char *s = NULL;

	if (cJSON_IsString(args))
		s = args->valuestring;
	else if (cJSON_IsObject(args))
		s = text = json_print(args);
	if (s && *s) {
		if (c->begun)
			emit_text(LLM_TOOL_CALL_ARGS, c->index, s, strlen(s), sink, ctx);
		else
			buf_adds(&c->pending, s);
	}
	free(text);
}

/* One element of delta.tool_calls. */
static void
tool_delta(struct openai_dec *d, const cJSON *tc, llm_sink_fn sink, void *ctx)
{
	const cJSON *fn = json_obj(tc, "function");
	struct openai_call *c;
	long idx;

	if (!cJSON_IsObject(tc))
		return;
	if (json_long(tc, "index", &idx) < 0)
		idx = d->ncalls ? d->calls[d->ncalls - 1].index : 0;
	if (idx < 0 || idx > INT_MAX) {
		protocol_error(d, "tool call index out of range", sink, ctx);
		return;
	}
	c = call_find(d, (int)idx);
	if (!c && d->ncalls == OPENAI_MAX_CALLS) {
		protocol_error(d, "too many tool calls", sink, ctx);
		return;
	}
	if (!c)
		c = call_add(d, (int)idx);
	if (c->ended)
		return;
	if (!c->begun) {
		set_str(&c->id, json_str(tc, "id"));
		set_str(&c->name, json_str(fn, "name"));
		if (c->name)
			call_begin(c, sink, ctx);
	}
	call_args(c, cJSON_GetObjectItemCaseSensitive(fn, "arguments"), sink, ctx);
}

/* End every open call (beginning nameless ones so nothing is lost). */
static void
end_calls(struct openai_dec *d, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_TOOL_CALL_END);
	size_t i;

	for (i = 0; i < d->ncalls; i++) {
		struct openai_call *c = &d->calls[i];

		if (c->ended)
			continue;
		if (!c->begun)
			call_begin(c, sink, ctx);
		c->ended = 1;
		ev.index = c->index;
		sink(ctx, &ev);
	}
}

/* Normal end: close calls, then DONE with the stop reason. */
static void
finish_ok(struct openai_dec *d, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_DONE);

	end_calls(d, sink, ctx);
	ev.stop_reason = d->finish_reason ? d->finish_reason : "stop";
	d->over = 1;
	sink(ctx, &ev);
}

/* One choice: reasoning, text and tool-call deltas, then finish_reason. */
static void
on_choice(struct openai_dec *d, const cJSON *ch, llm_sink_fn sink, void *ctx)
{
	const cJSON *delta = json_obj(ch, "delta"), *tc;
	const char *s, *fr;
	long idx;

	if (json_long(ch, "index", &idx) == 0 && idx != 0)
		return;
	if ((s = json_str(delta, "reasoning_content")))
		emit_text(LLM_REASONING, 0, s, strlen(s), sink, ctx);
	if ((s = json_str(delta, "content")))
		emit_text(LLM_TEXT, 0, s, strlen(s), sink, ctx);
	cJSON_ArrayForEach(tc, json_arr(delta, "tool_calls")) {
		tool_delta(d, tc, sink, ctx);
		if (d->over)
			return;
	}
	if ((fr = json_str(ch, "finish_reason")) && *fr) {
		set_str(&d->finish_reason, fr);
		end_calls(d, sink, ctx);
	}
}

/* Top-level prompt_progress: prefill state. */
static void
on_progress(const cJSON *p, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_PROGRESS);

	json_long(p, "total", &ev.progress.total);
	json_long(p, "cache", &ev.progress.cache);
	json_long(p, "processed", &ev.progress.processed);
	json_long(p, "time_ms", &ev.progress.time_ms);
	sink(ctx, &ev);
}

/* Top-level timings: the server's speed and cache counters. */
static void
on_timings(const cJSON *t, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_TIMINGS);

	json_long(t, "cache_n", &ev.timings.cache_n);
	json_long(t, "prompt_n", &ev.timings.prompt_n);
	json_long(t, "predicted_n", &ev.timings.predicted_n);
	json_double(t, "prompt_ms", &ev.timings.prompt_ms);
	json_double(t, "prompt_per_second", &ev.timings.prompt_per_second);
	json_double(t, "predicted_ms", &ev.timings.predicted_ms);
	json_double(t, "predicted_per_second", &ev.timings.predicted_per_second);
	sink(ctx, &ev);
}

/* Top-level usage (OpenAI semantics: prompt_tokens includes cached). */
static void
on_usage(const cJSON *u, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_USAGE);

	json_long(u, "prompt_tokens", &ev.usage.prompt_tokens);
	json_long(u, "completion_tokens", &ev.usage.completion_tokens);
	json_long(json_obj(u, "prompt_tokens_details"), "cached_tokens", &ev.usage.cached_tokens);
	sink(ctx, &ev);
}

/* A chunk object: progress, then choices, then timings and usage. */
static void
on_chunk(struct openai_dec *d, const cJSON *root, llm_sink_fn sink, void *ctx)
{
	const cJSON *o, *ch;

	if ((o = json_obj(root, "prompt_progress")))
		on_progress(o, sink, ctx);
	cJSON_ArrayForEach(ch, json_arr(root, "choices")) {
		on_choice(d, ch, sink, ctx);
		if (d->over)
			return;
	}
	if ((o = json_obj(root, "timings")))
		on_timings(o, sink, ctx);
	if ((o = json_obj(root, "usage")))
		on_usage(o, sink, ctx);
}

/* An error object inside the stream: the terminal event. */
static void
on_error(struct openai_dec *d, const cJSON *err, llm_sink_fn sink, void *ctx)
{
	cJSON *fake = cJSON_IsString(err) ? message_obj(err->valuestring) : NULL;
	struct llm_event ev;

	classify(fake ? fake : err, 0, 1, &ev);
	emit_error(d, &ev, sink, ctx);
	cJSON_Delete(fake);
}

/* Decode one SSE event's data. */
int
openai_dec_event(struct openai_dec *d, struct str event_name, struct str data,
	      llm_sink_fn sink, void *ctx)
{
	struct err e = ERR_INIT;
	const cJSON *err;
	cJSON *root;
	struct str t = str_trim(data);

	if (d->over)
		return 1;
	if (t.len == 0)
		return 0;
	if (str_eq(t, "[DONE]")) {
		finish_ok(d, sink, ctx);
		return 1;
	}
	root = json_parse(t.p, t.len, &e);
	if (!root) {
		protocol_error(d, e.msg, sink, ctx);
		return 1;
	}
	err = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (!cJSON_IsObject(root))
		protocol_error(d, "data is not a JSON object", sink, ctx);
	else if (cJSON_IsObject(err) || cJSON_IsString(err))
		on_error(d, err, sink, ctx);
	else if (str_eq(event_name, "error"))
		on_error(d, root, sink, ctx);
	else
		on_chunk(d, root, sink, ctx);
	cJSON_Delete(root);
	return d->over;
}

/* End of transport: DONE after a finish_reason, else a disconnect error. */
void
openai_dec_finish(struct openai_dec *d, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = event(LLM_ERROR);

	if (d->over)
		return;
	if (d->finish_reason) {
		finish_ok(d, sink, ctx);
		return;
	}
	ev.error.kind = LLM_ERR_DISCONNECTED;
	ev.error.retryable = 1;
	ev.text = str_from("the server closed the stream before the answer finished");
	emit_error(d, &ev, sink, ctx);
}

/* First line of a body, made printable and bounded, into msg. */
static void
first_line(const char *s, size_t n, struct buf *msg)
{
	struct str t = str_trim(str_make(s, n));
	size_t i = 0, len;

	while (i < t.len && t.p[i] != '\n' && t.p[i] != '\r' && msg->len < BODY_LINE_MAX) {
		unsigned char c = (unsigned char)t.p[i];

		if (c >= 0x80 && (len = json_utf8_len(t.p + i, t.len - i)) > 0) {
			buf_add(msg, t.p + i, len);
			i += len;
			continue;
		}
		buf_addch(msg, c < 0x20 || c >= 0x7f ? '?' : c);
		i++;
	}
}

/* Classify a non-stream HTTP error (see llm/openai.h). */
void
openai_error_from_body(int http_status, const char *body, size_t n,
		    struct llm_event *out_ev, struct buf *msg)
{
	cJSON *root, *fake = NULL;
	const cJSON *err = NULL;
	size_t mlen, tlen;

	if (!body)
		n = 0;
	root = json_parse(body, n, NULL);
	buf_reset(msg);
	if (cJSON_IsObject(root)) {
		err = cJSON_GetObjectItemCaseSensitive(root, "error");
		if (cJSON_IsString(err))
			err = fake = message_obj(err->valuestring);
		else if (!cJSON_IsObject(err))
			err = json_str(root, "message") ? root : NULL; /* bare {code, message} */
	}
	if (!err) {
		size_t i = 0;

		while (i < n && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r'))
			i++;
		if (i < n && body[i] == '<') /* an HTML page: a proxy or another server answered */
			buf_addf(msg, "HTTP %d with an HTML page instead of a llama-server answer (a proxy in between, or another server on that port?)",
				 http_status);
		else
			first_line(body ? body : "", n, msg);
		if (msg->len == 0)
			buf_addf(msg, "HTTP %d with an empty body", http_status);
		err = fake = message_obj(msg->data);
		buf_reset(msg);
	}
	classify(err, http_status, 0, out_ev);
	buf_add(msg, out_ev->text.p, out_ev->text.len);
	mlen = msg->len;
	if (out_ev->error.type) {
		/* Spare room past the message's NUL: msg->len stays the message. */
		tlen = strlen(out_ev->error.type);
		buf_grow(msg, tlen + 1);
		memcpy(msg->data + mlen + 1, out_ev->error.type, tlen + 1);
		out_ev->error.type = msg->data + mlen + 1;
	}
	out_ev->text = str_make(msg->data, mlen);
	cJSON_Delete(fake);
	cJSON_Delete(root);
}

/*
 * anthropic/decode: Anthropic stream decoder and error classification
 * (contract in anthropic/decode.h).
 *
 * Per stream: one struct anthropic_decode_block per wire block index (its
 * type, the llm tool index it got, whether it is still open), the
 * thinking blocks with their signatures, the mapped stop reason and the
 * cumulative usage.  Invariant: once `over` is set nothing more is
 * emitted.  Each event's JSON tree is parsed and freed in
 * anthropic_decode_event.
 */
#include "anthropic/decode.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"

enum { B_NONE, B_TEXT, B_TOOL, B_THINK, B_OTHER };

/* Empty decoder. */
void
anthropic_decode_init(struct anthropic_decode *d)
{
	memset(d, 0, sizeof *d);
	buf_init(&d->msg, 0);
}

/* Free everything; d is left initialised. */
void
anthropic_decode_release(struct anthropic_decode *d)
{
	size_t i;

	for (i = 0; i < d->nblocks; i++)
		free(d->blocks[i].start_input);
	for (i = 0; i < d->nthinking; i++) {
		buf_release(&d->thinking[i].text);
		buf_release(&d->thinking[i].signature);
	}
	free(d->blocks);
	free(d->thinking);
	free(d->stop_reason);
	buf_release(&d->msg);
	anthropic_decode_init(d);
}

/* Thinking blocks so far. */
const struct anthropic_decode_thinking *
anthropic_decode_thinking(const struct anthropic_decode *d, size_t *n)
{
	*n = d->nthinking;
	return d->thinking;
}

/* Wire stop reasons in llm terms. */
const char *
anthropic_decode_stop_reason(const char *wire)
{
	if (!wire || !strcmp(wire, "end_turn") || !strcmp(wire, "stop_sequence"))
		return "stop";
	if (!strcmp(wire, "tool_use"))
		return "tool_calls";
	if (!strcmp(wire, "max_tokens"))
		return "length";
	return wire;
}

/* Emit an event unless the stream is over; terminal kinds end it. */
static void
aw_emit(struct anthropic_decode *d, struct llm_event *ev, llm_sink_fn sink, void *ctx)
{
	if (d->over)
		return;
	if (ev->kind == LLM_DONE || ev->kind == LLM_ERROR)
		d->over = 1;
	sink(ctx, ev);
}

/* A text-like event (skipped when empty). */
static void
aw_emit_text(struct anthropic_decode *d, enum llm_kind k, int index, const char *s,
	     llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = { .kind = k };

	if (!s || !s[0])
		return;
	ev.index = index;
	ev.text = str_from(s);
	aw_emit(d, &ev, sink, ctx);
}

/* A protocol error with a reason. */
static void
aw_protocol(struct anthropic_decode *d, const char *why, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = { .kind = LLM_ERROR };

	buf_reset(&d->msg);
	buf_addf(&d->msg, "malformed event from the server: %s", why);
	ev.error.kind = LLM_ERR_PROTOCOL;
	ev.text = str_make(d->msg.data, d->msg.len);
	aw_emit(d, &ev, sink, ctx);
}

/* The block at wire index idx (grown on demand), or NULL when out of range. */
static struct anthropic_decode_block *
aw_blk(struct anthropic_decode *d, const cJSON *data)
{
	long idx;

	if (json_long(data, "index", &idx) < 0 || idx < 0 || idx >= ANTHROPIC_DECODE_MAX_BLOCKS)
		return NULL;
	if ((size_t)idx >= d->nblocks) {
		d->blocks = xrealloc(d->blocks, (size_t)(idx + 1) * sizeof *d->blocks);
		memset(d->blocks + d->nblocks, 0, ((size_t)idx + 1 - d->nblocks) * sizeof *d->blocks);
		d->nblocks = (size_t)idx + 1;
	}
	return &d->blocks[idx];
}

/* A new thinking entry for block b. */
static struct anthropic_decode_thinking *
aw_new_thinking(struct anthropic_decode *d, struct anthropic_decode_block *b)
{
	struct anthropic_decode_thinking *t;

	d->thinking = xrealloc(d->thinking, (d->nthinking + 1) * sizeof *d->thinking);
	t = &d->thinking[d->nthinking];
	buf_init(&t->text, 0);
	buf_init(&t->signature, 0);
	t->redacted = 0;
	b->type = B_THINK;
	b->thinking = (int)d->nthinking++;
	return t;
}

/* content_block_start: note the block; tool calls begin here. */
static void
aw_block_start(struct anthropic_decode *d, struct anthropic_decode_block *b, const cJSON *cb,
	       llm_sink_fn sink, void *ctx)
{
	const char *type = json_str(cb, "type");
	struct llm_event ev = { .kind = LLM_TOOL_CALL_BEGIN };
	const cJSON *input = json_obj(cb, "input");

	if (b->type != B_NONE || !type)
		return;
	b->open = 1;
	if (!strcmp(type, "text")) {
		b->type = B_TEXT;
		aw_emit_text(d, LLM_TEXT, 0, json_str(cb, "text"), sink, ctx);
	} else if (!strcmp(type, "tool_use")) {
		b->type = B_TOOL;
		b->call = d->ncalls++;
		if (input && input->child)
			b->start_input = json_print(input);
		ev.index = b->call;
		ev.id = json_str(cb, "id");
		ev.name = json_str(cb, "name") ? json_str(cb, "name") : "";
		aw_emit(d, &ev, sink, ctx);
	} else if (!strcmp(type, "thinking") || !strcmp(type, "redacted_thinking")) {
		struct anthropic_decode_thinking *t = aw_new_thinking(d, b);
		const char *s = json_str(cb, type[0] == 't' ? "signature" : "data");

		t->redacted = type[0] == 'r';
		buf_adds(&t->signature, s ? s : "");
		if (!t->redacted) {
			buf_adds(&t->text, json_str(cb, "thinking") ? json_str(cb, "thinking") : "");
			aw_emit_text(d, LLM_REASONING, 0, json_str(cb, "thinking"), sink, ctx);
		}
	} else {
		b->type = B_OTHER;
	}
}

/* content_block_delta: text, reasoning, argument fragments, signatures. */
static void
aw_block_delta(struct anthropic_decode *d, struct anthropic_decode_block *b, const cJSON *delta,
	       llm_sink_fn sink, void *ctx)
{
	const char *type = json_str(delta, "type"), *s;

	if (!type)
		return;
	if (!strcmp(type, "text_delta")) {
		aw_emit_text(d, LLM_TEXT, 0, json_str(delta, "text"), sink, ctx);
	} else if (!strcmp(type, "input_json_delta") && b->type == B_TOOL && b->open) {
		s = json_str(delta, "partial_json");
		b->args_seen |= s && s[0];
		aw_emit_text(d, LLM_TOOL_CALL_ARGS, b->call, s, sink, ctx);
	} else if (!strcmp(type, "thinking_delta") || !strcmp(type, "signature_delta")) {
		struct anthropic_decode_thinking *t = b->type == B_THINK ? &d->thinking[b->thinking] : NULL;

		if (!t && b->type == B_NONE && type[0] == 't') /* a thinking block nobody started */
			t = aw_new_thinking(d, b);
		if (!t) /* e.g. llama's empty signature_delta on a text block */
			return;
		if (type[0] == 's') {
			buf_adds(&t->signature, json_str(delta, "signature") ? json_str(delta, "signature") : "");
			return;
		}
		s = json_str(delta, "thinking");
		buf_adds(&t->text, s ? s : "");
		aw_emit_text(d, LLM_REASONING, 0, s, sink, ctx);
	}
}

/* content_block_stop (or the end of the message): a tool call's arguments are complete. */
static void
aw_block_stop(struct anthropic_decode *d, struct anthropic_decode_block *b, llm_sink_fn sink,
	      void *ctx)
{
	struct llm_event ev = { .kind = LLM_TOOL_CALL_END };

	if (!b->open)
		return;
	b->open = 0;
	if (b->type != B_TOOL)
		return;
	if (!b->args_seen && b->start_input)
		aw_emit_text(d, LLM_TOOL_CALL_ARGS, b->call, b->start_input, sink, ctx);
	ev.index = b->call;
	aw_emit(d, &ev, sink, ctx);
}

/* Usage counts present in u (cumulative: later values replace earlier ones). */
static void
aw_usage(struct anthropic_decode *d, const cJSON *u)
{
	long v;

	if (json_long(u, "input_tokens", &v) == 0)
		d->in_tokens = v;
	if (json_long(u, "cache_creation_input_tokens", &v) == 0)
		d->usage.cache_write_tokens = v;
	if (json_long(u, "cache_read_input_tokens", &v) == 0)
		d->usage.cached_tokens = v;
	if (json_long(u, "output_tokens", &v) == 0)
		d->usage.completion_tokens = v;
	d->usage.prompt_tokens = d->in_tokens + d->usage.cache_write_tokens + d->usage.cached_tokens;
}

/* message_stop: close open blocks, then USAGE and DONE. */
static void
aw_message_stop(struct anthropic_decode *d, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = { .kind = LLM_USAGE };
	size_t i;

	for (i = 0; i < d->nblocks; i++)
		aw_block_stop(d, &d->blocks[i], sink, ctx);
	ev.usage = d->usage;
	aw_emit(d, &ev, sink, ctx);
	memset(&ev, 0, sizeof ev);
	ev.kind = LLM_DONE;
	ev.stop_reason = d->stop_reason ? d->stop_reason : "stop";
	aw_emit(d, &ev, sink, ctx);
}

/* Copy s into one line (control bytes → space), at most max bytes. */
static void
aw_line(struct buf *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s && s[i] && i < max; i++)
		buf_addch(out, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i]);
	if (s && s[i])
		buf_adds(out, "...");
}

/* Whether a server message says the model's tool call did not parse (llama). */
static int
aw_tool_parse(const char *m)
{
	return strstr(m, "does not match the expected") || strstr(m, "Failed to parse input");
}

/*
 * Fill ev (LLM_ERROR) and msg from a status (0 in a stream), an error
 * type and a message.  The type is kept in msg past the message's NUL.
 */
static void
aw_classify(int status, const char *type, const char *m, struct llm_event *ev, struct buf *msg)
{
	static const char *const retry_types[] = { "overloaded_error", "api_error", "rate_limit_error",
						   "timeout_error", NULL };
	const char *t = type ? type : "";
	long a, b;
	size_t i, mlen;

	memset(ev, 0, sizeof *ev);
	ev->kind = LLM_ERROR;
	ev->error.kind = status ? LLM_ERR_HTTP : LLM_ERR_OTHER;
	ev->error.http_status = status;
	ev->error.retryable = status == 408 || status == 409 || status == 429 || status >= 500;
	for (i = 0; retry_types[i]; i++)
		ev->error.retryable |= !strcmp(t, retry_types[i]);
	buf_reset(msg);
	if (status == 401 || !strcmp(t, "authentication_error")) {
		buf_adds(msg, "ANTHROPIC_API_KEY missing or invalid");
	} else if (status == 413 || !strcmp(t, "request_too_large")) {
		buf_adds(msg, "request too large for the Anthropic API: start a new conversation or a smaller task");
	} else if (status == 403 || !strcmp(t, "permission_error")) {
		buf_adds(msg, "the API key may not do this: ");
		aw_line(msg, m, 200);
	} else if (status == 402 || !strcmp(t, "billing_error")) {
		buf_adds(msg, "billing problem on the Anthropic account (check console.anthropic.com): ");
		aw_line(msg, m, 200);
	} else if (status == 404 || !strcmp(t, "not_found_error")) {
		aw_line(msg, m, 200);
		buf_adds(msg, ": check the model id (GET /v1/models lists the valid ones)");
	} else if (status == 429 || !strcmp(t, "rate_limit_error")) {
		buf_adds(msg, "rate limited by the Anthropic API: ");
		aw_line(msg, m, 200);
	} else if (status == 529 || !strcmp(t, "overloaded_error")) {
		buf_adds(msg, "the Anthropic API is overloaded; try again in a minute: ");
		aw_line(msg, m, 200);
	} else if (m && aw_tool_parse(m)) {
		ev->error.kind = LLM_ERR_TOOL_PARSE;
		ev->error.retryable = 0;
		aw_line(msg, m, 200);
	} else if (m && sscanf(m, "prompt is too long: %ld tokens > %ld", &a, &b) == 2) {
		ev->error.kind = LLM_ERR_CONTEXT;
		ev->error.n_prompt_tokens = a;
		ev->error.n_ctx = b;
		ev->error.retryable = 0;
		buf_addf(msg, "the prompt (%ld tokens) exceeds the model's context (%ld tokens): start a new conversation or a smaller task",
			 a, b);
	} else {
		aw_line(msg, m && m[0] ? m : "error without a message", 200);
		if (status >= 500)
			buf_addf(msg, " (HTTP %d; try again)", status);
	}
	mlen = msg->len;
	if (type) {
		buf_grow(msg, strlen(type) + 1);
		memcpy(msg->data + mlen + 1, type, strlen(type) + 1);
		ev->error.type = msg->data + mlen + 1;
	}
	ev->text = str_make(msg->data, mlen);
}

/* The {type, message} object of an error document (Anthropic, OpenAI or bare). */
static const cJSON *
aw_error_obj(const cJSON *root)
{
	const cJSON *e = json_obj(root, "error");

	return e ? e : root;
}

/* Classify an HTTP error answer. */
void
anthropic_decode_error_from_body(int status, const char *body, size_t n, struct llm_event *ev,
			     struct buf *msg)
{
	cJSON *root = body && n ? json_parse(body, n, NULL) : NULL;
	const cJSON *e = cJSON_IsObject(root) ? aw_error_obj(root) : NULL;
	struct buf first = BUF_INIT;
	const char *m = json_str(e, "message");

	if (!m) {
		size_t i = 0;

		while (i < n && body[i] != '\n' && body[i] != '\r')
			i++;
		buf_add(&first, body ? body : "", i);
		if (!first.len)
			buf_addf(&first, "HTTP %d with an empty body", status);
		m = first.data;
	}
	aw_classify(status, json_str(e, "type"), m, ev, msg);
	buf_release(&first);
	cJSON_Delete(root);
}

/* An in-stream error event. */
static void
aw_stream_error(struct anthropic_decode *d, const cJSON *data, llm_sink_fn sink, void *ctx)
{
	const cJSON *e = aw_error_obj(data);
	struct llm_event ev;
	long code = 0;

	json_long(e, "code", &code);
	if (code < 400 || code > 599)
		code = 0;
	aw_classify((int)code, json_str(e, "type"), json_str(e, "message"), &ev, &d->msg);
	aw_emit(d, &ev, sink, ctx);
}

/* One parsed event. */
static void
aw_dispatch(struct anthropic_decode *d, const char *name, const cJSON *data, llm_sink_fn sink,
	    void *ctx)
{
	struct anthropic_decode_block *b;

	if (!strcmp(name, "error")) {
		aw_stream_error(d, data, sink, ctx);
	} else if (!strcmp(name, "message_start")) {
		d->started = 1;
		aw_usage(d, json_obj(json_obj(data, "message"), "usage"));
	} else if (!strcmp(name, "message_delta")) {
		const char *sr = json_str(json_obj(data, "delta"), "stop_reason");

		if (sr) {
			free(d->stop_reason);
			d->stop_reason = xstrdup(anthropic_decode_stop_reason(sr));
		}
		aw_usage(d, json_obj(data, "usage"));
	} else if (!strcmp(name, "message_stop")) {
		aw_message_stop(d, sink, ctx);
	} else if (!strncmp(name, "content_block_", 14)) {
		if (!(b = aw_blk(d, data))) {
			aw_protocol(d, "content block without a valid index", sink, ctx);
			return;
		}
		if (!strcmp(name + 14, "start"))
			aw_block_start(d, b, json_obj(data, "content_block"), sink, ctx);
		else if (!strcmp(name + 14, "delta"))
			aw_block_delta(d, b, json_obj(data, "delta"), sink, ctx);
		else if (!strcmp(name + 14, "stop"))
			aw_block_stop(d, b, sink, ctx);
	}
}

/* Decode one SSE event. */
int
anthropic_decode_event(struct anthropic_decode *d, struct str event, struct str data, llm_sink_fn sink,
		   void *ctx)
{
	struct err e = ERR_INIT;
	cJSON *root;
	char name[64];

	if (d->over)
		return 1;
	if (str_eq(event, "ping"))
		return 0;
	root = json_parse(data.p, data.len, &e);
	if (!cJSON_IsObject(root)) {
		aw_protocol(d, root ? "event data is not an object" : e.msg, sink, ctx);
		cJSON_Delete(root);
		return 1;
	}
	if (event.len && event.len < sizeof name)
		snprintf(name, sizeof name, "%.*s", (int)event.len, event.p);
	else
		snprintf(name, sizeof name, "%s", json_str(root, "type") ? json_str(root, "type") : "");
	aw_dispatch(d, name, root, sink, ctx);
	cJSON_Delete(root);
	return d->over;
}

/* End of transport. */
void
anthropic_decode_finish(struct anthropic_decode *d, llm_sink_fn sink, void *ctx)
{
	struct llm_event ev = { .kind = LLM_ERROR };

	if (d->over)
		return;
	if (d->stop_reason) {
		aw_message_stop(d, sink, ctx);
		return;
	}
	ev.error.kind = LLM_ERR_DISCONNECTED;
	ev.error.retryable = 1; /* worth another try when nothing was shown yet */
	ev.text = str_from(d->started ? "the stream ended before message_stop"
				      : "the connection closed before the answer started");
	aw_emit(d, &ev, sink, ctx);
}

/* Turn an error event into one line that says what to do. */
void
anthropic_decode_describe(const char *base_url, const struct llm_event *ev, struct buf *out)
{
	int n = (int)ev->text.len;

	switch (ev->error.kind) {
	case LLM_ERR_CONNECT:
		buf_addf(out, "cannot reach the Anthropic API at %s (%.*s): check the network or ANTHROPIC_BASE_URL",
			 base_url, n, ev->text.p);
		break;
	case LLM_ERR_DISCONNECTED:
		buf_addf(out, "the connection to the Anthropic API at %s was lost mid-answer (%.*s); try again",
			 base_url, n, ev->text.p);
		break;
	default:
		buf_add(out, ev->text.p, ev->text.len);
		break;
	}
}

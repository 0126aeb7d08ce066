/*
 * fuzz_anthropic: libFuzzer harness for the Anthropic Messages decoder
 * (anthropic/decode.c) fed through the SSE parser, its HTTP error
 * classifier and message describer, and the /v1/models reader
 * (anthropic/wire.c).  Checks the event grammar of anthropic/decode.h:
 * exactly one terminal event (DONE or ERROR) and nothing after it; a call
 * index gets BEGIN (with a name) before any ARGS, and at most one END,
 * after its BEGIN; an ERROR has a message; the kept thinking blocks lie
 * in memory the decoder owns.  An error-body message is one line without
 * NUL.  Violations abort.
 *
 * dict: "event: "
 * dict: "data: "
 * dict: "\x0a\x0a"
 * dict: "message_start"
 * dict: "content_block_start"
 * dict: "content_block_delta"
 * dict: "content_block_stop"
 * dict: "message_delta"
 * dict: "message_stop"
 * dict: "\"type\":"
 * dict: "\"index\":"
 * dict: "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"read\",\"input\":{}}"
 * dict: "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":"
 * dict: "\"delta\":{\"type\":\"text_delta\",\"text\":"
 * dict: "\"delta\":{\"type\":\"thinking_delta\",\"thinking\":"
 * dict: "\"signature_delta\""
 * dict: "\"redacted_thinking\""
 * dict: "\"stop_reason\":\"tool_use\""
 * dict: "\"usage\":{\"input_tokens\":"
 * dict: "\"cache_read_input_tokens\":"
 * dict: "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":"
 * dict: "prompt is too long: "
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anthropic/decode.h"
#include "anthropic/wire.h"
#include "io/sse.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct state {
	struct anthropic_decode dec;
	struct fuzz_events ev;
};

/* llm_sink_fn: check the event grammar (fuzz_util.h). */
static void
sink(void *ctx, const struct llm_event *ev)
{
	struct state *st = ctx;

	fuzz_events_check(&st->ev, ev);
}

/* sse_event_fn feeding the decoder. */
static int
on_sse(void *ctx, struct str name, struct str data)
{
	struct state *st = ctx;

	return anthropic_decode_event(&st->dec, name, data, sink, st);
}

/* The kept thinking blocks are readable. */
static void
check_thinking(const struct anthropic_decode *d)
{
	const struct anthropic_decode_thinking *t;
	size_t n, i;
	volatile unsigned sum = 0;

	t = anthropic_decode_thinking(d, &n);
	for (i = 0; i < n; i++) {
		if (t[i].text.len)
			sum += (unsigned char)t[i].text.data[t[i].text.len - 1];
		if (t[i].signature.len)
			sum += (unsigned char)t[i].signature.data[t[i].signature.len - 1];
	}
	(void)sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state st;
	struct sse p;
	struct llm_event ev;
	struct buf msg = BUF_INIT, out = BUF_INIT, ids = BUF_INIT;
	struct err e = ERR_INIT;
	size_t half = size / 2;

	/* As an SSE stream, in two chunks. */
	memset(&st, 0, sizeof st);
	anthropic_decode_init(&st.dec);
	sse_init(&p);
	if (sse_feed(&p, (const char *)data, half, on_sse, &st) == 0)
		if (sse_feed(&p, (const char *)data + half, size - half, on_sse, &st) == 0)
			sse_finish(&p, on_sse, &st);
	anthropic_decode_finish(&st.dec, sink, &st);
	FUZZ_CHECK(st.ev.over);
	check_thinking(&st.dec);
	sse_release(&p);
	anthropic_decode_release(&st.dec);

	/* As one event's data, named or not. */
	memset(&st, 0, sizeof st);
	anthropic_decode_init(&st.dec);
	anthropic_decode_event(&st.dec, str_make("error", size & 1 ? 5 : 0),
			       str_make((const char *)data, size), sink, &st);
	anthropic_decode_finish(&st.dec, sink, &st);
	FUZZ_CHECK(st.ev.over);
	anthropic_decode_release(&st.dec);

	/* As an HTTP error body, and its description. */
	anthropic_decode_error_from_body(size ? 400 + data[0] % 200 : 500, (const char *)data, size,
					 &ev, &msg);
	FUZZ_CHECK(ev.kind == LLM_ERROR && ev.text.p == msg.data && ev.text.len == strlen(msg.data));
	FUZZ_CHECK(msg.len && !memchr(ev.text.p, '\n', ev.text.len));
	anthropic_decode_describe("https://api.anthropic.com", &ev, &out);
	FUZZ_CHECK(out.len && !memchr(out.data, '\0', out.len));
	buf_release(&msg);
	buf_release(&out);

	/* As a /v1/models answer. */
	if (anthropic_wire_models_has((const char *)data, size, "claude-sonnet-4-5", &ids, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	buf_release(&ids);
	anthropic_decode_stop_reason(size ? "tool_use" : "end_turn");
	return 0;
}

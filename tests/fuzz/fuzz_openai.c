/*
 * fuzz_openai: libFuzzer harness for the chat.completion.chunk decoder, fed
 * through the SSE parser, and for the HTTP error classifier.  Checks the
 * event grammar the agent relies on: exactly one terminal event (DONE or
 * ERROR) and nothing after it; per call index BEGIN before any ARGS, one
 * END after BEGIN; an ERROR's message is never NULL.  Violations abort.
 *
 * Tokens for libFuzzer's -dict (mk/fuzz.mk extracts the "dict:" lines):
 * dict: "data: "
 * dict: "\x0a\x0a"
 * dict: "[DONE]"
 * dict: "event: error"
 * dict: "{\"choices\":[{\"index\":0,\"delta\":{"
 * dict: "\"content\":"
 * dict: "\"reasoning_content\":"
 * dict: "\"tool_calls\":[{"
 * dict: "\"index\":"
 * dict: "\"id\":"
 * dict: "\"function\":{"
 * dict: "\"name\":"
 * dict: "\"arguments\":"
 * dict: "\"finish_reason\":"
 * dict: "\"prompt_progress\":{"
 * dict: "\"timings\":{"
 * dict: "\"usage\":{"
 * dict: "{\"error\":{\"code\":500,\"message\":"
 * dict: "\"type\":\"exceed_context_size_error\""
 * dict: "Loading model"
 * dict: "does not match the expected"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/openai.h"
#include "io/sse.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct state {
	struct openai_dec dec;
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

	return openai_dec_event(&st->dec, name, data, sink, st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state st;
	struct sse p;
	struct llm_event ev;
	struct buf msg = BUF_INIT;
	size_t half = size / 2;

	/* As an SSE stream, in two chunks. */
	memset(&st, 0, sizeof st);
	openai_dec_init(&st.dec);
	sse_init(&p);
	if (sse_feed(&p, (const char *)data, half, on_sse, &st) == 0)
		if (sse_feed(&p, (const char *)data + half, size - half, on_sse, &st) == 0)
			sse_finish(&p, on_sse, &st);
	openai_dec_finish(&st.dec, sink, &st);
	if (!st.ev.over)
		abort();
	sse_release(&p);
	openai_dec_release(&st.dec);

	/* As one event's data. */
	memset(&st, 0, sizeof st);
	openai_dec_init(&st.dec);
	openai_dec_event(&st.dec, str_make("error", size & 1 ? 5 : 0),
		      str_make((const char *)data, size), sink, &st);
	openai_dec_finish(&st.dec, sink, &st);
	if (!st.ev.over)
		abort();
	openai_dec_release(&st.dec);

	/* As an HTTP error body. */
	openai_error_from_body(size ? 400 + data[0] % 200 : 500, (const char *)data, size, &ev, &msg);
	if (ev.kind != LLM_ERROR || ev.text.p != msg.data || ev.text.len != msg.len ||
	    memchr(msg.data, '\0', msg.len) != NULL || msg.len == 0)
		abort();
	buf_release(&msg);
	return 0;
}

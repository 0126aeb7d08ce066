/*
 * fuzz_sse: libFuzzer harness for the SSE parser.  The first input byte
 * picks a chunking (a split point or a chunk size); the rest is the
 * stream.  The events from one whole feed and from the chunked feeds must
 * be byte-identical (a difference aborts), and nothing may crash or leak.
 *
 * Tokens for libFuzzer's -dict (mk/fuzz.mk extracts the "dict:" lines):
 * dict: "data: "
 * dict: "data:"
 * dict: "event: "
 * dict: "\x0a\x0a"
 * dict: "\x0d\x0a"
 * dict: "\x0d"
 * dict: ": ping"
 * dict: "id: "
 * dict: "retry: "
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* sse_event_fn: length-prefixed name and data into a buf. */
static int
record(void *ctx, struct str event, struct str data)
{
	struct buf *b = ctx;

	buf_addf(b, "%zu:", event.len);
	buf_add(b, event.p, event.len);
	buf_addf(b, "|%zu:", data.len);
	buf_add(b, data.p, data.len);
	buf_addch(b, '\n');
	return 0;
}

/* Feed s in chunks of `step` bytes (step 0: split once at `at`). */
static void
run(const char *s, size_t n, size_t step, size_t at, struct buf *out)
{
	struct sse p;
	size_t i, k;

	sse_init(&p);
	if (step == 0) {
		sse_feed(&p, s, at, record, out);
		sse_feed(&p, s + at, n - at, record, out);
	} else {
		for (i = 0; i < n; i += k) {
			k = n - i < step ? n - i : step;
			sse_feed(&p, s + i, k, record, out);
		}
	}
	sse_finish(&p, record, out);
	sse_release(&p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = BUF_INIT, split = BUF_INIT;
	const char *s = (const char *)data + 1;
	size_t n;

	if (size == 0)
		return 0;
	n = size - 1;
	run(s, n, n ? n : 1, 0, &whole);
	if (data[0] < 128)
		run(s, n, 0, n ? (size_t)data[0] * 131 % (n + 1) : 0, &split);
	else
		run(s, n, (size_t)(data[0] - 127), 0, &split);
	if (whole.len != split.len || memcmp(whole.data, split.data, whole.len) != 0)
		abort();
	buf_release(&whole);
	buf_release(&split);
	return 0;
}

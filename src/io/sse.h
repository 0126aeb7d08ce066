/*
 * io/sse: an incremental Server-Sent Events parser (pure; no I/O).
 *
 * Feed bytes as they arrive, split anywhere (mid-line, mid-CRLF,
 * mid-UTF-8); each complete event (at a blank line) is delivered to the
 * callback with its `event:` name (empty string when none) and its data
 * (several `data:` lines joined with '\n').  Lines starting with ':' are
 * comments (llama-server pings) and are ignored.  LF, CR and CRLF all end
 * a line.  An event with no data lines is not delivered.  As the SSE
 * standard says, `id:` sets the last event ID (last_id; a value holding a
 * NUL byte is ignored), which takes effect when its event is dispatched
 * (even one without data, a "priming" event) and is kept for the later
 * events until another id: changes it (resuming a stream sends it as
 * Last-Event-ID); `retry:` with only digits sets retry_ms (0: none given).
 *
 * The callback returns 0 to continue or non-zero to stop parsing; that
 * value is returned from sse_feed.  Event strings are valid only during
 * the callback.  Input lines are bounded (SSE_MAX_EVENT bytes per event):
 * beyond it the event is dropped and sse_feed returns SSE_TOO_BIG.
 */
#ifndef HEARTH_IO_SSE_H
#define HEARTH_IO_SSE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/str.h"

#define SSE_MAX_EVENT (16u << 20)
#define SSE_TOO_BIG (-2)

typedef int (*sse_event_fn)(void *ctx, struct str event, struct str data);

struct sse {
	struct buf line;  /* current partial line */
	struct buf event; /* event: name */
	struct buf data;  /* joined data lines */
	int have_data;
	int last_cr;      /* previous chunk ended in CR: skip a leading LF */
	int overflow;
	struct buf id;      /* the id: of the event being read (the standard's "last event ID buffer") */
	struct buf last_id; /* the id of the last event dispatched ("" when none) */
	long retry_ms;      /* the last retry: (0: none) */
};

void sse_init(struct sse *p);
void sse_release(struct sse *p);
/* Parse n bytes; returns 0, the callback's non-zero value, or SSE_TOO_BIG. */
int sse_feed(struct sse *p, const char *data, size_t n, sse_event_fn fn, void *ctx);
/*
 * End of stream: an unterminated final line is processed and a pending
 * event is dispatched (servers that close without the last blank line).
 */
int sse_finish(struct sse *p, sse_event_fn fn, void *ctx);

#endif

/*
 * io/sse: incremental Server-Sent Events parsing (contract in io/sse.h).
 *
 * State between feeds: `line` holds the bytes of a line not yet ended
 * (complete lines inside one chunk are parsed in place, without a copy);
 * `event` and `data` accumulate the current event's fields; `have_data`
 * says whether any data: line was seen (an empty data: line still makes an
 * event); `last_cr` is set when a chunk ended in CR, so a LF opening the
 * next chunk is the second half of a CRLF, not an empty line.
 *
 * Size bound: line + event + data never exceed SSE_MAX_EVENT, where line
 * is the raw bytes of the line being read (without its terminator), held
 * or in place: a line is checked whole before it is parsed, so where the
 * stream is split does not move the bound.  Past it, `overflow` is set,
 * the event's bytes are discarded up to the blank line that ends it, and
 * the feed that crossed the bound returns SSE_TOO_BIG (after parsing the
 * rest of its chunk, so later events still arrive).
 */
#include "io/sse.h"

#include <string.h>

/* Start with empty buffers. */
void
sse_init(struct sse *p)
{
	buf_init(&p->line, 0);
	buf_init(&p->event, 0);
	buf_init(&p->data, 0);
	buf_init(&p->id, 0);
	buf_init(&p->last_id, 0);
	p->retry_ms = 0;
	p->have_data = 0;
	p->last_cr = 0;
	p->overflow = 0;
}

/* Free buffers; p is left initialised. */
void
sse_release(struct sse *p)
{
	buf_release(&p->line);
	buf_release(&p->event);
	buf_release(&p->data);
	buf_release(&p->id);
	buf_release(&p->last_id);
	sse_init(p);
}

/* Forget the current event's fields (keeping allocations). */
static void
reset_event(struct sse *p)
{
	buf_reset(&p->event);
	buf_reset(&p->data);
	p->have_data = 0;
}

/* Bytes held for the current event. */
static size_t
held(const struct sse *p)
{
	return p->line.len + p->event.len + p->data.len;
}

/* Enter the discarding state: the current event is dropped. */
static void
overflow(struct sse *p)
{
	reset_event(p);
	buf_reset(&p->line);
	p->overflow = 1;
}

/* Deliver the pending event (if it has data) and reset it. */
static int
dispatch(struct sse *p, sse_event_fn fn, void *ctx)
{
	int rc = 0;

	if (p->overflow) {
		p->overflow = 0;
		reset_event(p);
		return 0;
	}
	buf_reset(&p->last_id); /* the id takes effect with its event, data or not */
	buf_add(&p->last_id, p->id.data, p->id.len);
	if (p->have_data)
		rc = fn(ctx, str_make(p->event.data, p->event.len),
			str_make(p->data.data, p->data.len));
	reset_event(p);
	return rc;
}

/* Handle one complete line (without its terminator). */
static int
process_line(struct sse *p, const char *s, size_t n, sse_event_fn fn, void *ctx)
{
	const char *colon, *val;
	size_t flen, vlen;

	if (n == 0)
		return dispatch(p, fn, ctx);
	if (p->overflow || s[0] == ':')
		return 0;
	colon = memchr(s, ':', n);
	flen = colon ? (size_t)(colon - s) : n;
	val = colon ? colon + 1 : s + n;
	vlen = (size_t)(s + n - val);
	if (vlen && val[0] == ' ') {
		val++;
		vlen--;
	}
	if (flen == 4 && memcmp(s, "data", 4) == 0) {
		if (p->have_data)
			buf_addch(&p->data, '\n');
		buf_add(&p->data, val, vlen);
		p->have_data = 1;
	} else if (flen == 5 && memcmp(s, "event", 5) == 0) {
		buf_reset(&p->event);
		buf_add(&p->event, val, vlen);
	} else if (flen == 2 && memcmp(s, "id", 2) == 0 && !memchr(val, '\0', vlen) && vlen <= 1024) {
		buf_reset(&p->id);
		buf_add(&p->id, val, vlen);
	} else if (flen == 5 && memcmp(s, "retry", 5) == 0 && vlen && vlen < 10) {
		long ms = 0;
		size_t k;

		for (k = 0; k < vlen && val[k] >= '0' && val[k] <= '9'; k++)
			ms = ms * 10 + (val[k] - '0');
		if (k == vlen) /* digits only, else ignored */
			p->retry_ms = ms;
	}
	return 0;
}

/* Position of the first CR or LF in s[0..n), or n (CR is searched only before the LF). */
static size_t
find_eol(const char *s, size_t n)
{
	const char *lf = memchr(s, '\n', n), *cr;
	size_t end = lf ? (size_t)(lf - s) : n;

	cr = memchr(s, '\r', end);
	return cr ? (size_t)(cr - s) : end;
}

/*
 * Handle the complete line s[0..n) that ends a chunk span, joining it to
 * a partial line held from earlier chunks.  Sets *too_big when this line
 * pushed the event past the bound (a data: line adds at most its own
 * length to data, so parsing it keeps line + event + data within it).
 */
static int
end_line(struct sse *p, const char *s, size_t n, int *too_big, sse_event_fn fn, void *ctx)
{
	int rc;

	if (!p->overflow && held(p) + n > SSE_MAX_EVENT) {
		overflow(p);
		*too_big = 1;
		return 0;
	}
	if (p->line.len) {
		buf_add(&p->line, s, n);
		rc = process_line(p, p->line.data, p->line.len, fn, ctx);
		buf_reset(&p->line);
	} else {
		rc = process_line(p, s, n, fn, ctx);
	}
	return rc;
}

/* Parse a chunk; see io/sse.h for the return value. */
int
sse_feed(struct sse *p, const char *data, size_t n, sse_event_fn fn, void *ctx)
{
	size_t i = 0, e;
	int rc, too_big = 0;

	if (n == 0)
		return 0;
	if (p->last_cr && data[0] == '\n')
		i = 1;
	p->last_cr = 0;
	while (i < n) {
		e = i + find_eol(data + i, n - i);
		if (e == n) {
			/* Unterminated: keep it for the next chunk. */
			if (p->overflow)
				break;
			if (held(p) + (n - i) > SSE_MAX_EVENT) {
				overflow(p);
				too_big = 1;
			} else {
				buf_add(&p->line, data + i, n - i);
			}
			break;
		}
		rc = end_line(p, data + i, e - i, &too_big, fn, ctx);
		if (data[e] == '\r') {
			if (e + 1 == n)
				p->last_cr = 1;
			else if (data[e + 1] == '\n')
				e++;
		}
		i = e + 1;
		if (rc)
			return rc;
	}
	return too_big ? SSE_TOO_BIG : 0;
}

/* End of stream: finish the last line and event, leaving p empty. */
int
sse_finish(struct sse *p, sse_event_fn fn, void *ctx)
{
	int rc = 0, too_big = 0;

	p->last_cr = 0;
	if (p->line.len) {
		rc = end_line(p, "", 0, &too_big, fn, ctx);
		if (rc)
			goto out;
	}
	rc = dispatch(p, fn, ctx);
out:
	reset_event(p);
	buf_reset(&p->line);
	p->overflow = 0;
	return rc ? rc : too_big ? SSE_TOO_BIG : 0;
}

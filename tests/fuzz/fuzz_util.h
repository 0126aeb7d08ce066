/*
 * fuzz_util: helpers shared by the harnesses in tests/fuzz (header only,
 * so each harness stays one translation unit).
 */
#ifndef HEARTH_TESTS_FUZZ_UTIL_H
#define HEARTH_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/memfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "llm/event.h"

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), 0 if none. */
static inline size_t
fuzz_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = c & (0x3fu >> (len - 1));
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* 1 if s[0..n) is valid UTF-8. */
static inline int
fuzz_utf8_valid(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		k = fuzz_utf8_seq((const unsigned char *)s + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

/* abort() with a note when cond is false (the harness's invariant failed). */
#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/*
 * A path naming an in-memory regular file holding data[0..n) (memfd,
 * reached through /proc/self/fd), for loaders that only take a path.
 * Returns the fd (close it after) and writes the path to out.
 */
static inline int
fuzz_memfile(const uint8_t *data, size_t n, char *out, size_t size)
{
	int fd = (int)syscall(SYS_memfd_create, "fuzz", MFD_CLOEXEC); /* glibc's wrapper needs _GNU_SOURCE */
	size_t off = 0;

	if (fd < 0)
		abort();
	while (off < n) {
		ssize_t w = write(fd, data + off, n - off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	snprintf(out, size, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * The event grammar the agent relies on (llm/event.h), checked event by
 * event: exactly one terminal event (DONE with a stop reason, or ERROR with a
 * message) and nothing after it; per call index BEGIN (with a name) once,
 * before any ARGS, and one END after it.  Zero-initialise, feed every event.
 */
#define FUZZ_EVENTS_NIDX 64

struct fuzz_events {
	int over; /* the terminal event came */
	unsigned char begun[FUZZ_EVENTS_NIDX], ended[FUZZ_EVENTS_NIDX];
};

static inline void
fuzz_events_check(struct fuzz_events *st, const struct llm_event *ev)
{
	int i = ev->index;

	FUZZ_CHECK(!st->over);
	FUZZ_CHECK(!ev->text.len || ev->text.p);
	switch (ev->kind) {
	case LLM_TOOL_CALL_BEGIN:
		FUZZ_CHECK(i >= 0 && ev->name);
		FUZZ_CHECK(i >= FUZZ_EVENTS_NIDX || !st->begun[i]++);
		break;
	case LLM_TOOL_CALL_ARGS:
		FUZZ_CHECK(i >= 0);
		FUZZ_CHECK(i >= FUZZ_EVENTS_NIDX || (st->begun[i] && !st->ended[i]));
		break;
	case LLM_TOOL_CALL_END:
		FUZZ_CHECK(i >= 0);
		FUZZ_CHECK(i >= FUZZ_EVENTS_NIDX || (st->begun[i] && !st->ended[i]++));
		break;
	case LLM_DONE:
		FUZZ_CHECK(ev->stop_reason != NULL);
		st->over = 1;
		break;
	case LLM_ERROR:
		FUZZ_CHECK(ev->text.p != NULL);
		st->over = 1;
		break;
	default:
		break;
	}
}

#endif

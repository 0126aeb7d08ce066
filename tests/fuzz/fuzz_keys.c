/*
 * fuzz_keys: libFuzzer harness for the key decoder (ui/term/keys).  The
 * first byte picks a chunk size; the rest is terminal input, fed whole and
 * then in chunks (draining events after each, as the read loop does).
 * Without an Esc timer in between, both must decode the same events
 * (a difference aborts).  Each event is checked: a KEYS_CHAR's utf8 is
 * the code point's valid UTF-8 encoding, a paste lies in memory the
 * decoder owns, keys_name is NUL-terminated; at most one event per input
 * byte (plus the flushes at the end), so the decoder always makes progress.
 *
 * dict: "\x1b["
 * dict: "\x1bO"
 * dict: "\x1b[200~"
 * dict: "\x1b[201~"
 * dict: "\x1b[<64;10;5M"
 * dict: "\x1b[<0;1;1m"
 * dict: "\x1b[M"
 * dict: "\x1b[1;5A"
 * dict: "\x1b[3~"
 * dict: "\x1b[Z"
 * dict: "\x0d\x0a"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/keys.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check one event and append a record of it to log. */
static void
note(const struct keys_event *ev, struct buf *log)
{
	char name[64];

	FUZZ_CHECK(ev->kind > KEYS_NONE && ev->kind <= KEYS_UNKNOWN);
	if (ev->kind == KEYS_CHAR) {
		size_t n = strnlen(ev->utf8, sizeof ev->utf8);

		FUZZ_CHECK(n > 0 && n < sizeof ev->utf8);
		FUZZ_CHECK(fuzz_utf8_valid(ev->utf8, n));
		FUZZ_CHECK(fuzz_utf8_seq((const unsigned char *)ev->utf8, n) == n);
	}
	if (ev->kind == KEYS_PASTE && ev->paste_len)
		FUZZ_CHECK(ev->paste != NULL && memchr(ev->paste, 0, 0) == NULL);
	memset(name, 'x', sizeof name);
	keys_name(ev, name, sizeof name);
	FUZZ_CHECK(memchr(name, 0, sizeof name) != NULL);
	buf_addf(log, "%d %u %u %s %d %d|", (int)ev->kind, ev->mods, (unsigned)ev->cp,
		 ev->kind == KEYS_CHAR ? ev->utf8 : "", ev->x, ev->y);
	if (ev->kind == KEYS_PASTE) {
		buf_add(log, ev->paste, ev->paste_len);
		buf_addf(log, "|%zu\n", ev->paste_len);
	}
}

/* Decode what is held; at the end also flush (the Esc timer firing). */
static size_t
drain(struct keys *k, struct buf *log, int final)
{
	struct keys_event ev;
	size_t n = 0;

	for (;;) {
		memset(&ev, 0, sizeof ev);
		if (keys_next(k, &ev)) {
			note(&ev, log);
			n++;
			continue;
		}
		if (!final || !keys_waiting(k))
			break;
		memset(&ev, 0, sizeof ev);
		if (!keys_flush(k, &ev))
			break;
		note(&ev, log);
		n++;
	}
	return n;
}

/* Feed data in chunks of `chunk` bytes; the event log into log; returns the event count. */
static size_t
run(const char *s, size_t n, size_t chunk, struct buf *log)
{
	struct keys k;
	size_t off = 0, events = 0;

	keys_init(&k);
	while (off < n) {
		size_t c = n - off < chunk ? n - off : chunk;

		keys_feed(&k, s + off, c);
		off += c;
		events += drain(&k, log, 0);
	}
	events += drain(&k, log, 1);
	keys_release(&k);
	return events;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf whole = BUF_INIT, parts = BUF_INIT;
	size_t chunk, n1, n2;

	if (!size)
		return 0;
	chunk = 1 + data[0] % 16;
	data++, size--;
	n1 = run((const char *)data, size, size ? size : 1, &whole);
	n2 = run((const char *)data, size, chunk, &parts);
	FUZZ_CHECK(n1 <= 2 * size + 2 && n2 <= 2 * size + 2);
	FUZZ_CHECK(whole.len == parts.len && !memcmp(whole.data, parts.data, whole.len));
	buf_release(&whole);
	buf_release(&parts);
	return 0;
}

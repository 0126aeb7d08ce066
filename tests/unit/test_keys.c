/* test_keys: the key decoder at every split point of every sequence. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/term/keys.h"

/* Drain events from k into out as names separated by spaces. */
static void
drain(struct keys *k, struct buf *out, int flush)
{
	struct keys_event ev;
	char name[64];
	int got;

	for (;;) {
		got = keys_next(k, &ev);
		if (!got && flush && keys_waiting(k))
			got = keys_flush(k, &ev);
		if (!got)
			return;
		keys_name(&ev, name, sizeof name);
		if (out->len)
			buf_addch(out, ' ');
		buf_adds(out, name);
		if (ev.kind == KEYS_PASTE) {
			buf_addch(out, '=');
			buf_add(out, ev.paste, ev.paste_len);
		}
	}
}

/* Feed s in pieces ending at cuts[0..ncuts), then the rest; flush at the end only. */
static void
decode_split(const char *s, size_t n, const size_t *cuts, int ncuts, struct buf *out)
{
	struct keys k;
	size_t at = 0;
	int i;

	keys_init(&k);
	buf_reset(out);
	for (i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : n;

		keys_feed(&k, s + at, end - at);
		drain(&k, out, 0);
		at = end;
	}
	drain(&k, out, 1);
	keys_release(&k);
}

/* Same events whole, byte by byte, and at every two-way split. */
static void
check_keys(const char *s, size_t n, const char *want)
{
	struct buf got = BUF_INIT;
	size_t cuts[4096] = { 0 }, i;

	assert_true(n < 4096);
	decode_split(s, n, NULL, 0, &got);
	assert_string_equal(got.data, want);
	for (i = 1; i < n; i++)
		cuts[i - 1] = i;
	decode_split(s, n, cuts, (int)(n ? n - 1 : 0), &got);
	assert_string_equal(got.data, want);
	for (i = 1; i < n; i++) {
		decode_split(s, n, &i, 1, &got);
		if (strcmp(got.data, want) != 0)
			fail_msg("split at %zu of %zu: got '%s' want '%s'", i, n, got.data, want);
	}
	buf_release(&got);
}

#define CHECK(lit, want) check_keys(lit, sizeof lit - 1, want)

static void
test_plain(void **state)
{
	(void)state;
	CHECK("a", "a");
	CHECK("Z~ ", "Z ~  ");
	CHECK("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", "\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
	CHECK("\r", "Enter");
	CHECK("\x1b\r", "M-Enter");
	CHECK("\x7f\x08", "Backspace Backspace");
	CHECK("\t", "Tab");
	CHECK("\x1b[Z", "S-Tab");
	CHECK("\x1b", "Esc");
	CHECK("\x1b\x1b[A", "Esc Up");
	CHECK("\xff" "a", "\xef\xbf\xbd a");
	CHECK("\xc3" "a", "\xef\xbf\xbd a");
	CHECK("\xe4\xb8", "\xef\xbf\xbd \xef\xbf\xbd");
	CHECK("\xc2\x9b", "Unknown");
}

static void
test_ctrl_alt(void **state)
{
	char s[2] = { 0, 0 }, want[16];
	int c;

	(void)state;
	for (c = 1; c <= 26; c++) {
		s[0] = (char)c;
		if (c == 8)
			snprintf(want, sizeof want, "Backspace");
		else if (c == 9)
			snprintf(want, sizeof want, "Tab");
		else if (c == 13)
			snprintf(want, sizeof want, "Enter");
		else
			snprintf(want, sizeof want, "C-%c", 'a' + c - 1);
		check_keys(s, 1, want);
	}
	check_keys("\0", 1, "C- ");
	CHECK("\x1c\x1f", "C-\\ C-_");
	for (c = 'a'; c <= 'z'; c++) {
		char seq[3] = { 0x1b, (char)c, 0 };

		snprintf(want, sizeof want, "M-%c", c);
		check_keys(seq, 2, want);
	}
	CHECK("\x1b" "X", "M-X");
	CHECK("\x1b\x01", "C-M-a");
	CHECK("\x1b\x7f", "M-Backspace");
	CHECK("\x1b\xc3\xa9", "M-\xc3\xa9");
	CHECK("\x1b[97;5u", "C-a");
	CHECK("\x1b[13;3u", "M-Enter");
	CHECK("\x1b[27u", "Esc");
}

static void
test_cursor_keys(void **state)
{
	(void)state;
	CHECK("\x1b[A\x1b[B\x1b[C\x1b[D", "Up Down Right Left");
	CHECK("\x1bOA\x1bOB\x1bOC\x1bOD", "Up Down Right Left");
	CHECK("\x1b[1;5A\x1b[1;3D\x1b[1;2B", "C-Up M-Left S-Down");
	CHECK("\x1b[H\x1b[F\x1bOH\x1bOF", "Home End Home End");
	CHECK("\x1b[1~\x1b[4~\x1b[7~\x1b[8~", "Home End Home End");
	CHECK("\x1b[5~\x1b[6~", "PgUp PgDn");
	CHECK("\x1b[3~\x1b[2~\x1b[3;5~", "Delete Insert C-Delete");
	CHECK("ab\x1b[Acd", "a b Up c d");
	CHECK("\x1bOM", "Enter");
}

static void
test_unknown(void **state)
{
	struct keys k;
	struct keys_event ev;
	struct buf b = BUF_INIT;
	int i, n = 0;

	(void)state;
	CHECK("\x1b[15~x", "Unknown x");
	CHECK("\x1b[?1;2c", "Unknown");
	CHECK("\x1bOP", "Unknown");
	CHECK("\x1b[I\x1b[O", "Unknown Unknown");
	CHECK("\x1b[1\x01", "Unknown C-a");
	CHECK("\x1b[201~", "Unknown");
	/* an endless parameter string is cut off, never buffered without bound */
	keys_init(&k);
	buf_adds(&b, "\x1b[");
	for (i = 0; i < 10000; i++)
		buf_addch(&b, '1');
	keys_feed(&k, b.data, b.len);
	while (keys_next(&k, &ev))
		n++;
	assert_true(n > 0);
	assert_false(keys_waiting(&k));
	keys_release(&k);
	buf_release(&b);
}

static void
test_mouse(void **state)
{
	struct keys k;
	struct keys_event ev;

	(void)state;
	CHECK("\x1b[<64;10;5M\x1b[<65;1;1M", "WheelUp WheelDown");
	CHECK("\x1b[<0;3;4M\x1b[<0;3;4m", "Mouse Mouse");
	CHECK("\x1b[<80;3;4M", "C-WheelUp");
	CHECK("\x1b[M !!a", "Mouse a");
	keys_init(&k);
	keys_feed(&k, "\x1b[<65;12;7M", 11);
	assert_int_equal(keys_next(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_WHEEL_DOWN);
	assert_int_equal(ev.x, 12);
	assert_int_equal(ev.y, 7);
	keys_release(&k);
}

static void
test_paste(void **state)
{
	(void)state;
	CHECK("\x1b[200~hello\r\nworld\rx\x1b[201~", "paste(13)=hello\nworld\nx");
	CHECK("a\x1b[200~\x1b[A\x1b[20\x1b\x1b[201~b", "a paste(8)=\x1b[A\x1b[20\x1b b");
	CHECK("\x1b[200~\x1b[201~", "paste(0)=");
	CHECK("\x1b[200~\xe4\xb8\xad\x03\x1b[201~\x1b", "paste(4)=\xe4\xb8\xad\x03 Esc");
}

static void
test_paste_large(void **state)
{
	struct buf in = BUF_INIT, want = BUF_INIT;
	struct keys k;
	struct keys_event ev;
	size_t at, step, chunks[] = { 1, 7, 4096, 100000 };
	int i, c, events;

	(void)state;
	buf_adds(&in, "\x1b[200~");
	for (i = 0; i < 1000; i++) {
		buf_addf(&in, "line %d of the paste \x1b[31mred\x1b[0m\r", i);
		buf_addf(&want, "line %d of the paste \x1b[31mred\x1b[0m\n", i);
	}
	buf_adds(&in, "\x1b[201~\r");
	for (c = 0; c < 4; c++) {
		keys_init(&k);
		events = 0;
		for (at = 0; at < in.len; at += step) {
			step = chunks[c] < in.len - at ? chunks[c] : in.len - at;
			keys_feed(&k, in.data + at, step);
			while (keys_next(&k, &ev)) {
				events++;
				if (events == 1) {
					assert_int_equal(ev.kind, KEYS_PASTE);
					assert_int_equal(ev.paste_len, want.len);
					assert_memory_equal(ev.paste, want.data, want.len);
				} else {
					assert_int_equal(ev.kind, KEYS_ENTER);
				}
			}
		}
		assert_int_equal(events, 2);
		/* the decoder holds one copy of the paste, not the whole input */
		assert_true(k.in.len <= chunks[c] + 8);
		keys_release(&k);
	}
	buf_release(&in);
	buf_release(&want);
}

static void
test_esc_timer(void **state)
{
	struct keys k;
	struct keys_event ev;
	struct buf out = BUF_INIT;

	(void)state;
	keys_init(&k);
	keys_feed(&k, "\x1b", 1);
	assert_int_equal(keys_next(&k, &ev), 0);
	assert_true(keys_waiting(&k));
	/* a byte in time makes it Alt */
	keys_feed(&k, "x", 1);
	drain(&k, &out, 0);
	assert_string_equal(out.data, "M-x");
	/* the timer fires on ESC [ : Esc, then '[' typed */
	buf_reset(&out);
	keys_feed(&k, "\x1b[", 2);
	assert_int_equal(keys_next(&k, &ev), 0);
	assert_int_equal(keys_flush(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_ESC);
	drain(&k, &out, 0);
	assert_string_equal(out.data, "[");
	assert_false(keys_waiting(&k));
	assert_int_equal(keys_flush(&k, &ev), 0);
	/* inside a paste the timer never fires */
	keys_feed(&k, "\x1b[200~abc\x1b", 10);
	assert_int_equal(keys_next(&k, &ev), 0);
	assert_false(keys_waiting(&k));
	assert_int_equal(keys_flush(&k, &ev), 0);
	keys_feed(&k, "[201~", 5);
	assert_int_equal(keys_next(&k, &ev), 1);
	assert_int_equal(ev.kind, KEYS_PASTE);
	assert_int_equal(ev.paste_len, 3);
	keys_release(&k);
	buf_release(&out);
}

/* A small deterministic generator (tests must be reproducible). */
static unsigned
next_rand(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 16;
}

static void
test_random_bytes(void **state)
{
	static const char alphabet[] = "\x1b[O;<0123456789~ABCDHFMZmu\r\t\x7f\xc3\xa9\xe4\x80\xff";
	struct keys k;
	struct keys_event ev;
	char chunk[64];
	unsigned seed = 42, i, j, n;
	long events = 0;

	(void)state;
	keys_init(&k);
	for (i = 0; i < 20000; i++) {
		n = next_rand(&seed) % sizeof chunk;
		for (j = 0; j < n; j++)
			chunk[j] = next_rand(&seed) % 4 ? alphabet[next_rand(&seed) % (sizeof alphabet - 1)]
			    : (char)next_rand(&seed);
		keys_feed(&k, chunk, n);
		while (keys_next(&k, &ev))
			events++;
		if (next_rand(&seed) % 8 == 0)
			while (keys_flush(&k, &ev))
				events++;
		assert_true(k.in.len - k.pos < 4096 || k.in_paste);
	}
	/* end any paste the noise started, then everything drains */
	keys_feed(&k, "\x1b[201~", 6);
	while (keys_next(&k, &ev) || keys_flush(&k, &ev))
		events++;
	assert_false(keys_waiting(&k));
	assert_true(events > 1000);
	keys_release(&k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_ctrl_alt),
		cmocka_unit_test(test_cursor_keys),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_mouse),
		cmocka_unit_test(test_paste),
		cmocka_unit_test(test_paste_large),
		cmocka_unit_test(test_esc_timer),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

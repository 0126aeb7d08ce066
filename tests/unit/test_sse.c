/*
 * test_sse: the SSE parser on recorded llama-server streams (whole, one
 * byte at a time, and split at every position) and on the edge cases of
 * the framing: line endings, comments, fields, size bound, bad bytes.
 *
 * Events are serialised to a canonical text (length-prefixed name and
 * data, so any bytes compare exactly) and compared as strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "io/sse.h"

struct log {
	struct buf out; /* canonical text of the events */
	int n;          /* events seen */
	int stop_after; /* return 7 after this many events (0: never) */
};

/* Append the decimal n and a separator (no printf: this runs millions of times). */
static void
add_num(struct buf *b, size_t n, char sep)
{
	char tmp[24];
	size_t i = sizeof tmp;

	tmp[--i] = sep;
	do
		tmp[--i] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	buf_add(b, tmp + i, sizeof tmp - i);
}

/* sse_event_fn: append "<len>:<name>|<len>:<data>\n". */
static int
record(void *ctx, struct str event, struct str data)
{
	struct log *l = ctx;

	add_num(&l->out, event.len, ':');
	buf_add(&l->out, event.p, event.len);
	buf_addch(&l->out, '|');
	add_num(&l->out, data.len, ':');
	buf_add(&l->out, data.p, data.len);
	buf_addch(&l->out, '\n');
	l->n++;
	return l->stop_after && l->n >= l->stop_after ? 7 : 0;
}

/* Feed s in chunks of `step` bytes (0: whole), then finish; canonical text out. */
static char *
run_chunks(const char *s, size_t n, size_t step, int *nev, size_t *len)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };
	size_t i, k;

	sse_init(&p);
	if (step == 0)
		step = n ? n : 1;
	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		assert_int_equal(sse_feed(&p, s + i, k, record, &l), 0);
	}
	assert_int_equal(sse_finish(&p, record, &l), 0);
	sse_release(&p);
	if (nev)
		*nev = l.n;
	return buf_detach(&l.out, len);
}

/* Feed s as two chunks split at k into a reused parser and log. */
static void
run_split(struct sse *p, struct log *l, const char *s, size_t n, size_t k)
{
	buf_reset(&l->out);
	l->n = 0;
	assert_int_equal(sse_feed(p, s, k, record, l), 0);
	assert_int_equal(sse_feed(p, s + k, n - k, record, l), 0);
	assert_int_equal(sse_finish(p, record, l), 0);
}

/* Read a fixture file into b. */
static void
load(struct buf *b, const char *name)
{
	struct err e = ERR_INIT;
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", FIXTURES, name);
	if (buf_read_file(b, path, 0, &e) < 0)
		fail_msg("%s", e.msg);
}

/*
 * Every two-way split of s[0..n) gives the events of feeding it whole
 * (`whole`, wn bytes of canonical text).
 */
static void
check_splits(const char *name, const char *s, size_t n, const char *whole, size_t wn)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };
	size_t k;

	sse_init(&p);
	for (k = 0; k <= n; k++) {
		run_split(&p, &l, s, n, k);
		if (l.out.len != wn || memcmp(l.out.data, whole, wn) != 0)
			fail_msg("%s: split at %zu differs", name, k);
	}
	sse_release(&p);
	buf_release(&l.out);
}

/*
 * Split tests over a big file cost O(n^2); instead every split point is
 * tested inside a window of whole events around it (windows overlap by
 * one event, so each position is interior to some window), at O(n * WIN).
 * Each window's events must also be a run of the whole file's events.
 */
#define SPLIT_FULL_MAX 8192
#define WIN 2048

static void
check_windows(const char *name, const char *s, size_t n, const char *canon)
{
	size_t *b = malloc((n + 2) * sizeof *b), m = 0, i = 0, j, k, wn;
	char *w;

	assert_non_null(b);
	b[m++] = 0;
	for (k = 1; k < n; k++)
		if (s[k - 1] == '\n' && s[k] == '\n')
			b[m++] = k + 1;
	if (b[m - 1] != n)
		b[m++] = n;
	while (i + 1 < m) {
		for (j = i + 1; j + 1 < m && b[j] - b[i] < WIN; j++)
			;
		w = run_chunks(s + b[i], b[j] - b[i], 0, NULL, &wn);
		assert_non_null(strstr(canon, w));
		check_splits(name, s + b[i], b[j] - b[i], w, wn);
		free(w);
		i = j - 1 > i ? j - 1 : j;
	}
	free(b);
}

/* Whole == one-byte chunks == every two-way split; returns the event count. */
static int
check_fixture(const char *name, char **canon)
{
	struct buf f = BUF_INIT;
	char *whole, *bytes;
	int n1, n2;
	size_t wn;

	load(&f, name);
	whole = run_chunks(f.data, f.len, 0, &n1, &wn);
	bytes = run_chunks(f.data, f.len, 1, &n2, NULL);
	assert_int_equal(n1, n2);
	assert_string_equal(whole, bytes);
	if (f.len <= SPLIT_FULL_MAX)
		check_splits(name, f.data, f.len, whole, wn);
	else
		check_windows(name, f.data, f.len, whole);
	buf_release(&f);
	free(bytes);
	*canon = whole;
	return n1;
}

static void
test_fixture_tools(void **state)
{
	char *c;

	(void)state;
	assert_int_equal(check_fixture("chat_stream_tools.sse", &c), 30);
	assert_true(strncmp(c, "0:|", 3) == 0);
	assert_non_null(strstr(c, "\"prompt_progress\":{\"total\":352,\"cache\":0,"));
	/* The last event is the [DONE] sentinel, exactly. */
	assert_non_null(strstr(c, "0:|6:[DONE]\n"));
	assert_int_equal(strlen(strstr(c, "0:|6:[DONE]\n")), strlen("0:|6:[DONE]\n"));
	free(c);
}

static void
test_fixture_others(void **state)
{
	char *c;

	(void)state;
	assert_int_equal(check_fixture("chat_stream_turn2_cache_hit.sse", &c), 30);
	assert_non_null(strstr(c, "\"cache_n\":343,\"prompt_n\":50,"));
	free(c);
	assert_int_equal(check_fixture("chat_stream_prefill_progress.sse", &c), 24);
	assert_non_null(strstr(c, "\"processed\":22723,\"time_ms\":86153}"));
	free(c);
	assert_int_equal(check_fixture("chat_stream_toolcall_in_content.sse", &c), 54);
	free(c);
	/* 139 events: the trailing "HTTP 200" line is a field without data. */
	assert_int_equal(check_fixture("chat_stream_toolparse_error.sse", &c), 139);
	assert_non_null(strstr(c, "|133:{\"error\":{\"code\":500,\"message\":\"The model produced "
				  "output that does not match the expected peg-native format\","
				  "\"type\":\"server_error\"}}\n"));
	free(c);
}

static void
test_fixture_messages(void **state)
{
	char *c;

	(void)state;
	assert_int_equal(check_fixture("v1_messages_stream.sse", &c), 17);
	assert_true(strncmp(c, "13:message_start|", 17) == 0);
	assert_non_null(strstr(c, "\n12:message_stop|23:{\"type\":\"message_stop\"}\n"));
	assert_non_null(strstr(c, "\n13:message_delta|"));
	free(c);
}

/* Parse s (whole, then byte by byte) and compare with want (wn bytes). */
static void
expect_n(const char *s, size_t n, const char *want, size_t wn)
{
	size_t len, step;
	char *got;

	for (step = 0; step < 2; step++) {
		got = run_chunks(s, n, step, NULL, &len);
		if (len != wn || memcmp(got, want, wn) != 0)
			fail_msg("step %zu: got \"%s\", want \"%s\"", step, got, want);
		free(got);
	}
}

#define EXPECT(lit, want) expect_n((lit), sizeof(lit) - 1, (want), strlen(want))

static void
test_line_endings(void **state)
{
	(void)state;
	EXPECT("data: a\n\ndata: b\n\n", "0:|1:a\n0:|1:b\n");
	EXPECT("data: a\r\n\r\ndata: b\r\n\r\n", "0:|1:a\n0:|1:b\n");
	EXPECT("data: a\r\rdata: b\r\r", "0:|1:a\n0:|1:b\n");
	EXPECT("data: a\r\ndata: b\n\r\n", "0:|3:a\nb\n");
	/* CR LF LF: one line end, then a blank line. */
	EXPECT("data: a\r\n\ndata: b\r\r\n", "0:|1:a\n0:|1:b\n");
}

static void
test_crlf_across_chunks(void **state)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };

	(void)state;
	sse_init(&p);
	assert_int_equal(sse_feed(&p, "data: a\r", 8, record, &l), 0);
	assert_int_equal(sse_feed(&p, "", 0, record, &l), 0); /* empty feed keeps the CR */
	assert_int_equal(sse_feed(&p, "\n\r", 2, record, &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(sse_feed(&p, "\n", 1, record, &l), 0);
	assert_int_equal(sse_feed(&p, "data: b\r", 8, record, &l), 0);
	/* CR then a non-LF: the CR alone ended the line; "\r" is the blank line. */
	assert_int_equal(sse_feed(&p, "\rdata: c\n\n", 10, record, &l), 0);
	assert_int_equal(sse_finish(&p, record, &l), 0);
	assert_string_equal(l.out.data, "0:|1:a\n0:|1:b\n0:|1:c\n");
	sse_release(&p);
	buf_release(&l.out);
}

static void
test_fields(void **state)
{
	(void)state;
	/* Comments (llama pings) are ignored, also inside an event. */
	EXPECT(":\n\n: ping\n\ndata: x\n: mid\ndata: y\n\n", "0:|3:x\ny\n");
	/* event: names, reset after each event. */
	EXPECT("event: one\ndata: 1\n\ndata: 2\n\n", "3:one|1:1\n0:|1:2\n");
	EXPECT("event:tight\ndata:x\n\n", "5:tight|1:x\n");
	/* Only one space after the colon is removed. */
	EXPECT("data:  two\n\n", "0:|4: two\n");
	/* A colon in the value stays. */
	EXPECT("data: {\"a\":1}\n\n", "0:|7:{\"a\":1}\n");
	/* Empty data lines still make data; a bare "data" field too. */
	EXPECT("data:\n\n", "0:|0:\n");
	EXPECT("data\ndata\n\n", "0:|1:\n\n");
	EXPECT("data: a\ndata:\ndata: b\n\n", "0:|4:a\n\nb\n");
	/* No data: no event.  id, retry and unknown fields are ignored. */
	EXPECT("event: lone\n\nid: 7\nretry: 10\nfoo: bar\ndata: z\n\n", "0:|1:z\n");
	EXPECT("\n\n\n\n", "");
	EXPECT("", "");
	/* Field names are case-sensitive. */
	EXPECT("Data: no\nDATA: no\ndata: yes\n\n", "0:|3:yes\n");
}

static void
test_finish(void **state)
{
	(void)state;
	/* Servers that close without the final blank line. */
	EXPECT("data: last", "0:|4:last\n");
	EXPECT("data: last\n", "0:|4:last\n");
	EXPECT("data: last\r", "0:|4:last\n");
	EXPECT("data: a\n\ndata: b\ndata: c", "0:|1:a\n0:|3:b\nc\n");
	EXPECT(": only a comment", "");
}

static void
test_bytes_pass_through(void **state)
{
	static const char in[] = "data: \xff\xfe\x80 \xc3\x28 \xed\xa0\x80\0nul\n\n";
	static const char want[] = "0:|14:\xff\xfe\x80 \xc3\x28 \xed\xa0\x80\0nul\n";

	(void)state;
	expect_n(in, sizeof in - 1, want, sizeof want - 1);
}

static void
test_callback_stops(void **state)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 1 };
	const char *s = "data: 1\n\ndata: 2\n\n";

	(void)state;
	sse_init(&p);
	assert_int_equal(sse_feed(&p, s, strlen(s), record, &l), 7);
	assert_int_equal(l.n, 1);
	sse_release(&p);
	buf_release(&l.out);
	/* From sse_finish too. */
	sse_init(&p);
	l.n = 0;
	buf_init(&l.out, 0);
	assert_int_equal(sse_feed(&p, "data: 1", 7, record, &l), 0);
	assert_int_equal(sse_finish(&p, record, &l), 7);
	sse_release(&p);
	buf_release(&l.out);
}

/* An event larger than SSE_MAX_EVENT fed in chunks of `step`. */
static void
oversized(size_t step)
{
	size_t big = SSE_MAX_EVENT + 100, n, i, k;
	char *s = malloc(big + 64);
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };
	int rc, too_big = 0;

	assert_non_null(s);
	memcpy(s, "data: ", 6);
	memset(s + 6, 'x', big);
	n = 6 + big;
	memcpy(s + n, "\n\ndata: after\n\n", 15);
	n += 15;
	sse_init(&p);
	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		rc = sse_feed(&p, s + i, k, record, &l);
		assert_true(rc == 0 || rc == SSE_TOO_BIG);
		too_big += rc == SSE_TOO_BIG;
	}
	assert_int_equal(too_big, 1);
	assert_int_equal(sse_finish(&p, record, &l), 0);
	/* The big event is dropped, the next one arrives, memory stays bounded. */
	assert_string_equal(l.out.data, "0:|5:after\n");
	assert_true(p.line.alloc <= 2 * (size_t)SSE_MAX_EVENT + 64);
	sse_release(&p);
	buf_release(&l.out);
	free(s);
}

static void
test_oversized(void **state)
{
	(void)state;
	oversized((size_t)-1);
	oversized(1 << 16);
}

/* Many data lines that together pass the bound are also dropped. */
static void
test_oversized_many_lines(void **state)
{
	size_t line = 1 << 20, lines = SSE_MAX_EVENT / line + 2, i;
	char *s = malloc(line + 8);
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };
	int too_big = 0, rc;

	(void)state;
	assert_non_null(s);
	memcpy(s, "data: ", 6);
	memset(s + 6, 'y', line);
	s[6 + line] = '\n';
	sse_init(&p);
	for (i = 0; i < lines; i++) {
		rc = sse_feed(&p, s, line + 7, record, &l);
		too_big += rc == SSE_TOO_BIG;
	}
	assert_int_equal(too_big, 1);
	assert_int_equal(sse_feed(&p, "\ndata: ok\n\n", 11, record, &l), 0);
	assert_string_equal(l.out.data, "0:|2:ok\n");
	assert_int_equal(sse_finish(&p, record, &l), 0);
	sse_release(&p);
	buf_release(&l.out);
	free(s);
}

/* The id of the last event seen by the callback (record_id's log). */
struct idlog {
	struct sse *p;
	struct buf ids; /* "<last_id>;" per event */
};

static int
record_id(void *ctx, struct str event, struct str data)
{
	struct idlog *l = ctx;

	(void)event;
	(void)data;
	buf_add(&l->ids, l->p->last_id.data, l->p->last_id.len);
	buf_addch(&l->ids, ';');
	return 0;
}

/* id: is the last event ID once its event is dispatched (even without data), kept until changed; retry: digits. */
static void
test_last_id(void **state)
{
	static const char in[] = "id: 1\ndata: a\n\ndata: b\n\nid: p\nretry: 1500\n\nid: x\0y\ndata: c\n\nid: 9\ndata: half";
	struct sse p;
	struct idlog l = { &p, BUF_INIT };
	size_t k;

	(void)state;
	for (k = 1; k < sizeof in - 1; k++) { /* any split */
		sse_init(&p);
		buf_reset(&l.ids);
		assert_int_equal(sse_feed(&p, in, k, record_id, &l), 0);
		assert_int_equal(sse_feed(&p, in + k, sizeof in - 1 - k, record_id, &l), 0);
		/* the priming event "p" has no data: not delivered, but its id counts; an id with NUL is ignored */
		assert_string_equal(l.ids.data, "1;1;p;");
		assert_string_equal(p.last_id.data, "p"); /* "9" belongs to an event not ended yet */
		assert_int_equal(p.retry_ms, 1500);
		sse_release(&p);
	}
	sse_init(&p);
	assert_int_equal(sse_feed(&p, "retry: 12a\nretry: \nid: q\n\n", 26, record_id, &l), 0);
	assert_int_equal(p.retry_ms, 0);
	assert_string_equal(p.last_id.data, "q");
	sse_release(&p);
	buf_release(&l.ids);
}

/*
 * Feed "data: " + x's (a line of `line` raw bytes) and a blank line, then
 * "data: after", in chunks of `step` (0: whole); returns how many feeds
 * said SSE_TOO_BIG; the events go to l.
 */
static int
bound_run(size_t line, size_t step, struct log *l)
{
	size_t n = line + 15, i, k;
	char *s = malloc(n);
	struct sse p;
	int rc, too_big = 0;

	assert_non_null(s);
	memcpy(s, "data: ", 6);
	memset(s + 6, 'x', line - 6);
	memcpy(s + line, "\n\ndata: after\n\n", 15);
	if (step == 0)
		step = n;
	sse_init(&p);
	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		rc = sse_feed(&p, s + i, k, record, l);
		assert_true(rc == 0 || rc == SSE_TOO_BIG);
		too_big += rc == SSE_TOO_BIG;
	}
	assert_int_equal(sse_finish(&p, record, l), 0);
	sse_release(&p);
	free(s);
	return too_big;
}

/*
 * The bound is exact and the same however the stream is split: a line of
 * SSE_MAX_EVENT raw bytes is delivered (fed whole, in 64 KiB chunks that
 * end exactly at its end, or with its terminator in the next chunk), one
 * byte more is dropped with SSE_TOO_BIG once.  (A line held across chunks
 * used to be counted twice, once as line and once as data, so the same
 * event of more than half the bound was dropped when split.)
 */
static void
test_bound_exact(void **state)
{
	size_t max = SSE_MAX_EVENT, steps[] = { 0, 1 << 16, max, max - 1 }, j;
	struct log l = { BUF_INIT, 0, 0 };

	(void)state;
	for (j = 0; j < sizeof steps / sizeof steps[0]; j++) {
		buf_reset(&l.out);
		l.n = 0;
		assert_int_equal(bound_run(max, steps[j], &l), 0);
		assert_int_equal(l.n, 2);
		assert_int_equal(l.out.len, strlen("0:|") + 8 + 1 + max - 6 + 1 + strlen("0:|5:after\n"));
		assert_true(memcmp(l.out.data, "0:|16777210:xxx", 15) == 0);
		buf_reset(&l.out);
		l.n = 0;
		assert_int_equal(bound_run(max + 1, steps[j], &l), 1);
		assert_string_equal(l.out.data, "0:|5:after\n");
	}
	/* Half the bound and a bit, split anywhere: delivered. */
	buf_reset(&l.out);
	l.n = 0;
	assert_int_equal(bound_run(max / 2 + 100, 1 << 12, &l), 0);
	assert_int_equal(l.n, 2);
	buf_release(&l.out);
}

/* A line past the bound in unterminated chunks: SSE_TOO_BIG once, the rest discarded. */
static void
test_bound_unterminated(void **state)
{
	size_t max = SSE_MAX_EVENT;
	char *s = malloc(max);
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };

	(void)state;
	assert_non_null(s);
	memcpy(s, "data: ", 6);
	memset(s + 6, 'x', max - 6);
	sse_init(&p);
	assert_int_equal(sse_feed(&p, s, max, record, &l), 0); /* exactly the bound, held */
	assert_int_equal(sse_feed(&p, "y", 1, record, &l), SSE_TOO_BIG);
	assert_int_equal(sse_feed(&p, "z", 1, record, &l), 0);
	assert_int_equal(sse_feed(&p, "zz\nid: big\nretry: 55\nevent: e\n\n", 31, record, &l), 0);
	assert_int_equal(sse_feed(&p, "data: after\n\n", 13, record, &l), 0);
	assert_int_equal(sse_finish(&p, record, &l), 0);
	/* The dropped event's id, retry and name are dropped with it. */
	assert_string_equal(l.out.data, "0:|5:after\n");
	assert_string_equal(p.last_id.data, "");
	assert_int_equal(p.retry_ms, 0);
	sse_release(&p);
	buf_release(&l.out);
	free(s);
}

/* retry: 1 to 9 digits (each of 0-9) set retry_ms; longer or other fields do not. */
static void
test_retry_id_limits(void **state)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };
	char id[1100];
	size_t n;

	(void)state;
	sse_init(&p);
	assert_int_equal(sse_feed(&p, "retry: 1990\n", 12, record, &l), 0);
	assert_int_equal(p.retry_ms, 1990);
	assert_int_equal(sse_feed(&p, "retry: 123456789\n", 17, record, &l), 0);
	assert_int_equal(p.retry_ms, 123456789);
	assert_int_equal(sse_feed(&p, "retry: 1234567890\n", 18, record, &l), 0);
	assert_int_equal(p.retry_ms, 123456789);
	/* Other fields, of five letters or with a short digit value, leave it. */
	assert_int_equal(sse_feed(&p, "hello: 42\nfoo: 7\nretr: 8\n", 25, record, &l), 0);
	assert_int_equal(p.retry_ms, 123456789);
	/* An id of 1024 bytes is taken, one of 1025 ignored. */
	memcpy(id, "id: ", 4);
	memset(id + 4, 'a', 1025);
	memcpy(id + 4 + 1024, "\n\n", 2);
	assert_int_equal(sse_feed(&p, id, 4 + 1024 + 2, record, &l), 0);
	assert_int_equal(p.last_id.len, 1024);
	id[4] = 'b';
	id[4 + 1024] = 'a';
	memcpy(id + 4 + 1025, "\n\n", 2);
	assert_int_equal(sse_feed(&p, id, 4 + 1025 + 2, record, &l), 0);
	assert_int_equal(p.last_id.len, 1024);
	assert_int_equal(p.last_id.data[0], 'a');
	/* A second event: line replaces the first. */
	n = strlen("event: a\nevent: bb\ndata: x\n\n");
	assert_int_equal(sse_feed(&p, "event: a\nevent: bb\ndata: x\n\n", n, record, &l), 0);
	assert_string_equal(l.out.data, "2:bb|1:x\n");
	sse_release(&p);
	buf_release(&l.out);
}

/* sse_release leaves p initialised: a half-read event, a CR and retry are gone. */
static void
test_release_reuse(void **state)
{
	struct sse p;
	struct log l = { BUF_INIT, 0, 0 };

	(void)state;
	sse_init(&p);
	assert_int_equal(sse_feed(&p, "retry: 5\nevent: e\ndata: a\r", 26, record, &l), 0);
	sse_release(&p);
	assert_int_equal(p.retry_ms, 0);
	assert_int_equal(sse_feed(&p, "\ndata: b\n\n", 10, record, &l), 0);
	assert_string_equal(l.out.data, "0:|1:b\n");
	sse_release(&p);
	buf_release(&l.out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_tools),
		cmocka_unit_test(test_fixture_others),
		cmocka_unit_test(test_fixture_messages),
		cmocka_unit_test(test_line_endings),
		cmocka_unit_test(test_crlf_across_chunks),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_last_id),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_bytes_pass_through),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_oversized_many_lines),
		cmocka_unit_test(test_bound_exact),
		cmocka_unit_test(test_bound_unterminated),
		cmocka_unit_test(test_retry_id_limits),
		cmocka_unit_test(test_release_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

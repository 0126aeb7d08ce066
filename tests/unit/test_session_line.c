/*
 * test_sessline: one session entry line.  Every payload encodes and
 * decodes back field for field (odd characters included); invalid UTF-8
 * is replaced; blank, torn and invalid lines; wrong-typed fields, unknown
 * kinds and unknown entry types in a whole file.  HOME and XDG_STATE_HOME
 * point at a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/fs.h"
#include "session/session.h"
#include "session/line.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "sess_fixture.h"











/* Decode b (one line ending in '\n') without warnings; returns the entry. */
static struct session_line_entry
decode_ok(const struct buf *b)
{
	struct buf w = BUF_INIT;
	struct session_line_src src = { "f", 1, 0, &w };
	struct session_line_entry x;

	assert_true(b->len > 2 && b->data[b->len - 1] == '\n');
	assert_ptr_equal(strchr(b->data, '\n'), b->data + b->len - 1); /* one line */
	assert_int_equal(session_line_decode(b->data, b->len - 1, &src, &x), 1);
	assert_int_equal(w.len, 0);
	buf_release(&w);
	return x;
}

static void
test_encode_decode_msgs(void **state)
{
	struct session_line_entry x;
	struct buf b = BUF_INIT;
	struct conv c, d;
	size_t i;

	(void)state;
	sample_conv(&c);
	conv_init(&d);
	for (i = 0; i < c.nmsgs; i++) {
		buf_reset(&b);
		session_line_add_head(&b, "e1", i ? "p\"q" : NULL, "message", "2026-01-01T00:00:00.000Z");
		session_line_add_msg(&b, &c.msgs[i]);
		x = decode_ok(&b);
		assert_int_equal(x.type, SESSION_LINE_MSG);
		assert_string_equal(x.id, "e1");
		assert_str_same(x.parent, i ? "p\"q" : NULL);
		*conv_add_msg(&d, x.msg.role) = x.msg;
		memset(&x.msg, 0, sizeof x.msg);
		session_line_entry_release(&x);
	}
	assert_conv_same(&c, &d);
	conv_release(&c);
	conv_release(&d);
	buf_release(&b);
}

static void
test_encode_decode_meta_notice(void **state)
{
	char model[] = "m", created[] = "2026", ff[] = "s e";
	struct session_meta meta = { NULL, model, NULL, created, ff }, none = { 0 };
	struct session_line_entry x;
	struct buf b = BUF_INIT;

	(void)state;
	session_line_add_head(&b, "e2", "e1", "meta", "t");
	session_line_add_meta(&b, &meta);
	assert_null(strstr(b.data, ",}"));
	x = decode_ok(&b);
	assert_int_equal(x.type, SESSION_LINE_META);
	assert_null(x.meta.cwd);
	assert_string_equal(x.meta.model, "m");
	assert_string_equal(x.meta.created, "2026");
	assert_string_equal(x.meta.forked_from, "s e");
	session_line_entry_release(&x);
	buf_reset(&b);
	session_line_add_head(&b, "e3", NULL, "meta", "t");
	session_line_add_meta(&b, &none);
	assert_non_null(strstr(b.data, "\"meta\":{}}\n"));
	x = decode_ok(&b);
	assert_null(x.meta.model);
	session_line_entry_release(&x);
	buf_reset(&b);
	session_line_add_head(&b, "e4", "e3", "notice", "t");
	session_line_add_notice(&b, NULL);
	assert_non_null(strstr(b.data, "\"text\":\"\"}\n"));
	x = decode_ok(&b);
	assert_int_equal(x.type, SESSION_LINE_OTHER);
	assert_string_equal(x.parent, "e3");
	session_line_entry_release(&x);
	buf_release(&b);
}

static void
test_decode_blank_and_torn(void **state)
{
	struct buf w = BUF_INIT;
	struct session_line_src src = { "f", 4, 0, &w };
	struct session_line_entry x;
	const char torn[] = "{\"id\":\"a\",\"type\":\"mess";

	(void)state;
	assert_int_equal(session_line_decode(" \t\r", 3, &src, &x), 0);
	assert_int_equal(session_line_decode("", 0, &src, &x), 0);
	assert_int_equal(w.len, 0);
	assert_int_equal(session_line_decode(torn, strlen(torn), &src, &x), -1);
	assert_non_null(strstr(w.data, "f:4: invalid JSON"));
	buf_reset(&w);
	src.last = 1;
	assert_int_equal(session_line_decode(torn, strlen(torn), &src, &x), -1);
	assert_string_equal(w.data, "f:4: incomplete last line (cut off mid-write?); skipped\n");
	src.warn = NULL; /* no warning buffer: still skipped, no crash */
	assert_int_equal(session_line_decode("[1]", 3, &src, &x), -1);
	buf_release(&w);
}

/* An id that is empty, or that starts with a raw NUL byte (cJSON keeps the
 * bytes; as a C string it is empty), names no entry: found by fuzz_session. */
static void
test_decode_empty_id(void **state)
{
	struct buf w = BUF_INIT;
	struct session_line_src src = { "f", 2, 0, &w };
	struct session_line_entry x;
	const char empty[] = "{\"id\":\"\",\"type\":\"notice\"}";
	const char nul[] = "{\"id\":\"\0\0ab\",\"type\":\"notice\"}";

	(void)state;
	assert_int_equal(session_line_decode(empty, sizeof empty - 1, &src, &x), -1);
	assert_non_null(strstr(w.data, "f:2: not a session entry (no id)"));
	buf_reset(&w);
	assert_int_equal(session_line_decode(nul, sizeof nul - 1, &src, &x), -1);
	assert_non_null(strstr(w.data, "f:2: not a session entry (no id)"));
	buf_release(&w);
}

static void
test_invalid_utf8_replaced(void **state)
{
	struct session_loaded l;
	struct conv c;
	char *path;

	(void)state;
	conv_init(&c);
	conv_add_user_text(&c, "ok \xff\xfe end \xc3");
	path = write_conv(&c, ROOT);
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.conv.nmsgs, 1);
	assert_string_equal(l.conv.msgs[0].blocks[0].text,
			    "ok \xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd");
	session_loaded_release(&l);
	conv_release(&c);
	free(path);
}

static void
test_wrong_types(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	char *path;

	(void)state;
	path = raw_session(
		"[1,2]\n"
		"{\"id\":7,\"type\":\"message\"}\n"
		"{\"id\":\"a\",\"parent\":null}\n"
		"{\"id\":\"b\",\"parent\":null,\"type\":\"message\",\"message\":\"hi\"}\n"
		"{\"id\":\"c\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":3}}\n"
		"{\"id\":\"d\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":\"user\","
		"\"blocks\":{\"kind\":\"text\"}}}\n"
		"{\"id\":\"e\",\"parent\":\"d\",\"type\":\"message\",\"message\":{\"role\":\"assistant\","
		"\"aborted\":\"yes\",\"blocks\":[{\"kind\":\"text\",\"text\":5,\"id\":[],"
		"\"is_error\":\"no\"},{\"kind\":\"hologram\",\"text\":\"x\"},7,"
		"{\"kind\":\"text\",\"text\":\"kept\"}]}}\n"
		"{\"id\":\"f\",\"parent\":\"e\",\"type\":\"future-thing\",\"x\":{}}\n"
		"{\"id\":\"g\",\"parent\":\"f\",\"type\":\"meta\",\"meta\":{\"model\":9,\"cwd\":\"/w\"}}\n"
		"{\"id\":\"h\",\"parent\":\"g\",\"type\":\"message\",\"message\":{\"role\":\"user\","
		"\"blocks\":[{\"kind\":\"text\",\"text\":\"last\"}]}}\n");
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.skipped, 5); /* lines 1-5 */
	assert_non_null(strstr(w.data, ":1: not a session entry (no id)"));
	assert_non_null(strstr(w.data, ":2: not a session entry (no id)"));
	assert_non_null(strstr(w.data, ":3: not a session entry (no type)"));
	assert_non_null(strstr(w.data, ":4: a message entry without a message object"));
	assert_non_null(strstr(w.data, ":5: a message without a valid role"));
	assert_non_null(strstr(w.data, ":7: field \"text\" is not a string"));
	assert_non_null(strstr(w.data, ":7: a block of unknown kind \"hologram\""));
	assert_non_null(strstr(w.data, ":9: field \"model\" is not a string"));
	assert_null(strstr(w.data, "future-thing")); /* unknown types are silent */
	/* d (no blocks), e (two text blocks), h; f is in the chain */
	assert_int_equal(l.conv.nmsgs, 3);
	assert_int_equal(l.conv.msgs[0].nblocks, 0);
	assert_int_equal(l.conv.msgs[1].nblocks, 2);
	assert_string_equal(l.conv.msgs[1].blocks[0].text, ""); /* conv's default */
	assert_null(l.conv.msgs[1].blocks[0].id);
	assert_int_equal(l.conv.msgs[1].blocks[0].is_error, 0);
	assert_int_equal(l.conv.msgs[1].aborted, 0);
	assert_string_equal(l.conv.msgs[1].blocks[1].text, "kept");
	assert_string_equal(l.conv.msgs[2].blocks[0].text, "last");
	assert_null(l.meta.model);
	assert_string_equal(l.meta.cwd, "/w");
	assert_string_equal(l.leaf, "h");
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
}

/* Decode one usage line (text without '\n'); its counts. */
static void
usage_of(const char *line, long *in, long *out)
{
	struct session_line_src src = { "f", 1, 0, NULL };
	struct session_line_entry x;

	assert_int_equal(session_line_decode(line, strlen(line), &src, &x), 1);
	assert_int_equal(x.type, SESSION_LINE_USAGE);
	*in = x.tokens_in;
	*out = x.tokens_out;
	session_line_entry_release(&x);
}

/*
 * Usage lines round-trip; a negative, non-number or missing count reads
 * as 0 and the entry stays (it is a link of the chain); every meta field
 * round-trips; a released entry is emptied (a second release is safe).
 */
static void
test_usage_meta_release(void **state)
{
	char cwd[] = "/w d", model[] = "m", server[] = "http://h:1", created[] = "2026", ff[] = "s";
	struct session_meta meta = { cwd, model, server, created, ff };
	struct session_line_entry x;
	struct buf b = BUF_INIT;
	long in, out;

	(void)state;
	session_line_add_head(&b, "u1", "e1", "usage", "t");
	session_line_add_usage(&b, 1200, 34);
	x = decode_ok(&b);
	assert_int_equal(x.type, SESSION_LINE_USAGE);
	assert_int_equal(x.tokens_in, 1200);
	assert_int_equal(x.tokens_out, 34);
	session_line_entry_release(&x);
	usage_of("{\"id\":\"u\",\"parent\":null,\"type\":\"usage\",\"usage\":{\"in\":-5,\"out\":-1}}",
		 &in, &out);
	assert_int_equal(in, 0);
	assert_int_equal(out, 0);
	usage_of("{\"id\":\"u\",\"parent\":null,\"type\":\"usage\",\"usage\":{\"in\":\"9\",\"out\":7}}",
		 &in, &out);
	assert_int_equal(in, 0);
	assert_int_equal(out, 7);
	usage_of("{\"id\":\"u\",\"parent\":null,\"type\":\"usage\",\"usage\":{\"in\":3}}", &in, &out);
	assert_int_equal(in, 3);
	assert_int_equal(out, 0);
	usage_of("{\"id\":\"u\",\"parent\":null,\"type\":\"usage\"}", &in, &out);
	assert_int_equal(in, 0);
	assert_int_equal(out, 0);
	buf_reset(&b);
	session_line_add_head(&b, "m1", NULL, "meta", "t");
	session_line_add_meta(&b, &meta);
	x = decode_ok(&b);
	assert_string_equal(x.meta.cwd, "/w d");
	assert_string_equal(x.meta.model, "m");
	assert_string_equal(x.meta.server, "http://h:1");
	assert_string_equal(x.meta.created, "2026");
	assert_string_equal(x.meta.forked_from, "s");
	assert_int_equal(x.tokens_in, 0); /* not a usage line */
	session_line_entry_release(&x);
	session_line_entry_release(&x); /* emptied: safe again */
	assert_null(x.id);
	assert_null(x.meta.cwd);
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_invalid_utf8_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_encode_decode_msgs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_encode_decode_meta_notice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_blank_and_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_empty_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_meta_release, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

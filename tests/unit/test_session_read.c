/*
 * test_sessread: reading a session file.  A corrupt middle line, garbage
 * between entries, huge lines (skipped without being held whole), blank
 * files, the branch tree, byte ranges of entries and a lost parent.  HOME
 * and XDG_STATE_HOME point at a temp dir; session_read_line_max is lowered and
 * restored.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/fs.h"
#include "session/session.h"
#include "session/read.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "sess_fixture.h"



/* The shared setup, with the default line cap (tests lower it). */
static int
setup_reads(void **state)
{
	setup(state);
	session_read_line_max = (size_t)64 << 20;
	return 0;
}







/* Replace line `ln` (from 1) of path with `with` (test-side corruption). */
static void
replace_line(const char *path, size_t ln, const char *with)
{
	char *s = slurp(path), *p = s, *end;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i;

	for (i = 1; i < ln; i++)
		p = strchr(p, '\n') + 1;
	end = strchr(p, '\n');
	buf_add(&b, s, (size_t)(p - s));
	buf_adds(&b, with);
	buf_adds(&b, end);
	assert_int_equal(fs_write_atomic(path, b.data, b.len, &e), 0);
	free(s);
	buf_release(&b);
}


/*
 * Issue 20: an errno left at EINTR by something before (read(2) that
 * succeeds does not clear it) is no reason to drop what was read.
 */
static void
test_stale_errno(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	char *path = numbered(3);

	(void)state;
	errno = EINTR;
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.conv.nmsgs, 3);
	assert_msg(&l, 0, 0);
	assert_msg(&l, 2, 2);
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
}

static void
test_corrupt_middle_line(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	char *path = numbered(4);

	(void)state;
	/* line 1 is the meta; line 3 holds m1: garbage there loses m1 only */
	replace_line(path, 3, "{\"id\":\"zz\", garbage");
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.skipped, 1);
	assert_non_null(strstr(w.data, ":3: invalid JSON at line 1"));
	assert_non_null(strstr(w.data, "not found; continuing from the entry before it"));
	assert_int_equal(l.conv.nmsgs, 3);
	assert_msg(&l, 0, 0);
	assert_msg(&l, 1, 2);
	assert_msg(&l, 2, 3);
	session_loaded_release(&l);
	free(path);
	/* an extra garbage line between entries does not break the chain */
	path = numbered(2);
	{
		char *t = slurp(path), *l2 = strchr(t, '\n') + 1;
		struct buf g = BUF_INIT;
		buf_adds(&g, "\x01\xff not json\n   \n");
		buf_add(&g, l2, strcspn(l2, "\n"));
		replace_line(path, 2, g.data); /* garbage inserted before line 2 */
		buf_release(&g);
		free(t);
	}
	buf_reset(&w);
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.conv.nmsgs, 2);
	assert_non_null(strstr(w.data, ":2: invalid JSON"));
	assert_null(strstr(w.data, "not found"));
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
}

static void
test_branch_tree(void **state)
{
	struct session_loaded l;
	char *path;

	(void)state;
	/* b1 and b2 branch from a; the last entry (c2) picks b2's branch */
	path = raw_session(
		"{\"id\":\"a\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":\"user\","
		"\"blocks\":[{\"kind\":\"text\",\"text\":\"a\"}]}}\n"
		"{\"id\":\"b1\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"assistant\","
		"\"blocks\":[{\"kind\":\"text\",\"text\":\"b1\"}]}}\n"
		"{\"id\":\"b2\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"assistant\","
		"\"blocks\":[{\"kind\":\"text\",\"text\":\"b2\"}]}}\n"
		"{\"id\":\"c2\",\"parent\":\"b2\",\"type\":\"notice\",\"text\":\"n\"}\n");
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.conv.nmsgs, 2);
	assert_string_equal(l.conv.msgs[1].blocks[0].text, "b2");
	assert_string_equal(l.ids[1], "b2");
	session_loaded_release(&l);
	free(path);
}

static void
test_huge_lines(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT, big = BUF_INIT;
	char *path = numbered(3);
	size_t i;

	(void)state;
	session_read_line_max = 1000;
	buf_adds(&big, "{\"id\":\"big\",\"type\":\"notice\",\"text\":\"");
	for (i = 0; i < 200000; i++)
		buf_addch(&big, 'x');
	buf_adds(&big, "\"}\n");
	replace_line(path, 3, big.data); /* a huge line after m1's: m1 is lost */
	append_raw(path, big.data);
	buf_setlen(&big, big.len - 3); /* and a huge torn one at the end */
	append_raw(path, big.data);
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.skipped, 3);
	assert_non_null(strstr(w.data, ":3: line longer than 1000 bytes; skipped"));
	assert_non_null(strstr(w.data, ":6: line longer than 1000 bytes; skipped"));
	assert_non_null(strstr(w.data, ":7: line longer than 1000 bytes; skipped"));
	assert_int_equal(l.conv.nmsgs, 2);
	assert_msg(&l, 0, 0);
	assert_msg(&l, 1, 2);
	session_loaded_release(&l);
	/* under the default cap the same line is fine */
	session_read_line_max = (size_t)64 << 20;
	buf_reset(&w);
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.skipped, 1);
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
	buf_release(&big);
}

static void
test_blank_files(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	char *path;

	(void)state;
	path = raw_session("");
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(l.conv.nmsgs, 0);
	assert_null(l.leaf);
	assert_int_equal(w.len, 0);
	session_loaded_release(&l);
	free(path);
	path = raw_session("\n\n  \n");
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(w.len, 0);
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
}

static void
test_ranges_and_lost_parent(void **state)
{
	const char text[] =
		"{\"id\":\"a\",\"parent\":null,\"type\":\"notice\",\"text\":\"1\"}\n"
		"\n"
		"{\"id\":\"b\",\"parent\":\"a\",\"type\":\"notice\",\"text\":\"2\"}\r\n"
		"{\"id\":\"c\",\"parent\":\"gone\",\"type\":\"notice\",\"text\":\"3\"}";
	struct session_read r;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n, i, *idx;
	char *path = raw_session(text);

	(void)state;
	assert_int_equal(session_read_load(&r, path, &w, &e), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.skipped, 0);
	for (i = 0; i < r.n; i++) {
		const struct session_line_entry *x = &r.v[i];
		assert_true((size_t)x->off + x->len <= strlen(text));
		assert_memory_equal(text + x->off, "{\"id\":\"", 7);
		assert_true(text[x->off + (off_t)x->len] == '\n' || !text[x->off + (off_t)x->len]);
	}
	assert_int_equal(r.v[1].len, strcspn(text + r.v[1].off, "\n")); /* '\r' kept */
	idx = session_read_branch(&r, &n);
	assert_int_equal(n, 3); /* c continues from b */
	for (i = 0; i < n; i++)
		assert_int_equal(idx[i], i);
	assert_non_null(strstr(w.data, ": entry c: parent gone not found"));
	free(idx);
	session_read_release(&r);
	assert_int_equal(session_read_load(&r, "/nonexistent/x.jsonl", &w, &e), -1);
	assert_int_equal(r.n, 0);
	session_read_release(&r);
	free(path);
	buf_release(&w);
}

/* A session of `text` read with the line cap at `cap`: n entries kept, skipped skipped. */
static void
read_at_cap(const char *text, size_t cap, size_t n, size_t skipped)
{
	struct session_read r;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	char *path = raw_session(text);

	session_read_line_max = cap;
	assert_int_equal(session_read_load(&r, path, &w, &e), 0);
	assert_int_equal(r.n, n);
	assert_int_equal(r.skipped, skipped);
	session_read_release(&r);
	free(path);
	buf_release(&w);
}

/*
 * What is not a regular file is refused, never read (a FIFO with no writer
 * would read as an empty session); a descriptor 0 is a file like any other
 * (stdin closed); a line of exactly session_read_line_max bytes is kept; a
 * torn last line is said to be one; a released reader may be released
 * again (it is emptied).
 */
static void
test_edges(void **state)
{
	const char one[] = "{\"id\":\"a\",\"parent\":null,\"type\":\"notice\",\"text\":\"1\"}\n";
	struct session_read r;
	struct buf w = BUF_INIT, p = BUF_INIT, line = BUF_INIT;
	struct err e = ERR_INIT;
	char *path = raw_session(one), *dir = tu_tmpdir();
	int saved;

	(void)state;
	buf_addf(&p, "%s/fifo", dir);
	assert_int_equal(mkfifo(p.data, 0600), 0);
	assert_int_equal(session_read_load(&r, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
	session_read_release(&r);
	assert_int_equal(session_read_load(&r, dir, &w, &e), -1); /* a directory */
	assert_non_null(strstr(e.msg, "not a regular file"));
	session_read_release(&r);
	saved = dup(0);
	assert_true(saved > 0);
	close(0); /* the session file's descriptor is 0 */
	assert_int_equal(session_read_load(&r, path, &w, &e), 0);
	assert_true(dup2(saved, 0) == 0);
	close(saved);
	assert_int_equal(r.n, 1);
	session_read_release(&r);
	session_read_release(&r); /* emptied: a second release is safe */
	assert_null(r.v);
	assert_int_equal(r.n, 0);
	free(path);
	/* a line of exactly the cap is kept; one byte more is skipped */
	buf_adds(&line, "{\"id\":\"a\",\"parent\":null,\"type\":\"notice\",\"text\":\"x\"}");
	buf_addch(&line, '\n');
	read_at_cap(line.data, line.len - 1, 1, 0);
	read_at_cap(line.data, line.len - 2, 0, 1);
	session_read_line_max = (size_t)64 << 20;
	/* a torn last line: said to be cut off mid-write */
	buf_reset(&w);
	path = raw_session("{\"id\":\"a\",\"parent\":null,\"type\":\"notice\",\"text\":\"1\"}\n{\"id\":\"b\",\"par");
	assert_int_equal(session_read_load(&r, path, &w, &e), 0);
	assert_int_equal(r.n, 1);
	assert_non_null(strstr(w.data, "incomplete last line"));
	session_read_release(&r);
	free(path);
	buf_release(&w);
	buf_release(&p);
	buf_release(&line);
	tu_rmrf(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_corrupt_middle_line, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_stale_errno, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_branch_tree, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_huge_lines, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_blank_files, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_ranges_and_lost_parent, setup_reads, teardown),
		cmocka_unit_test_setup_teardown(test_edges, setup_reads, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

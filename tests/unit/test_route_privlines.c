/* test_route_privlines: privacy by content (route/privlines): the set of private lines and the filter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "route/privlines.h"
#include "testutil.h"

static const char *const globs[] = { ".env*", "*.pem", "secrets/**" };

/* A workspace with private files in several places, a public one, a symlink and .git. */
static char *
make_tree(void)
{
	char *dir = tu_tmpdir();
	struct buf p = BUF_INIT;
	static const char *const dirs[] = { "a", "a/b", "secrets", "secrets/k", ".git" };
	size_t i;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", dir, dirs[i]);
		assert_int_equal(mkdir(p.data, 0700), 0);
	}
	buf_reset(&p);
	tu_write(dir, ".env", "API_SECRET=hunter2-secret-value\n  DB_HOST=db.internal.example  \r\nshort\n\n");
	tu_write(dir, "a/b/.env.local", "TOKEN=nested-private-line-42\n");
	tu_write(dir, "secrets/k/cfg.txt", "password: correct horse battery\n");
	tu_write(dir, "srv.pem", "-----BEGIN PRIVATE KEY-----\nMIIBVwIBADANBgkqhkiG9w0BAQEFAASC\n");
	tu_write(dir, "notes.md", "the secret handshake is documented here\n");
	tu_write(dir, ".git/.env", "IN_GIT_DIR=not-read-at-all\n");
	tu_write(dir, "elsewhere.txt", "LINKED=through-a-symlink-only\n");
	buf_addf(&p, "%s/.env.link", dir);
	assert_int_equal(symlink("elsewhere.txt", p.data), 0);
	buf_release(&p);
	return dir;
}

static void
test_build_and_lookup(void **state)
{
	char *dir = make_tree();
	size_t nfiles = 0;
	struct route_privlines *s = route_privlines_build(dir, globs, 3, &nfiles);

	(void)state;
	assert_int_equal(nfiles, 4); /* .env, a/b/.env.local, secrets/k/cfg.txt, srv.pem */
	assert_int_equal(route_privlines_count(s), 6);
	assert_true(route_privlines_has(s, "API_SECRET=hunter2-secret-value", 31));
	assert_true(route_privlines_has(s, "\tDB_HOST=db.internal.example\r", 29)); /* trimmed both sides */
	assert_true(route_privlines_has(s, "TOKEN=nested-private-line-42", 28));
	assert_true(route_privlines_has(s, "password: correct horse battery", 31));
	assert_false(route_privlines_has(s, "short", 5));        /* under ROUTE_PRIVLINES_MIN */
	/* a line that differs in its first character only is another line */
	assert_false(route_privlines_has(s, "XPI_SECRET=hunter2-secret-value", 31));
	assert_int_equal(route_privlines_count(NULL), 0);
	assert_false(route_privlines_has(s, "IN_GIT_DIR=not-read-at-all", 26));
	assert_false(route_privlines_has(s, "LINKED=through-a-symlink-only", 29));
	assert_false(route_privlines_has(s, "the secret handshake is documented here", 39));
	route_privlines_free(s);
	/* no globs: nothing is read */
	s = route_privlines_build(dir, globs, 0, &nfiles);
	assert_int_equal(nfiles, 0);
	assert_int_equal(route_privlines_count(s), 0);
	route_privlines_free(s);
	tu_rmrf(dir);
	free(dir);
}

static void
test_redact(void **state)
{
	char *dir = make_tree();
	struct route_privlines *s = route_privlines_build(dir, globs, 3, NULL);
	struct buf out = BUF_INIT;
	const char *text =
		"API_SECRET=hunter2-secret-value\n"                  /* cat .e* */
		"./.env:1:API_SECRET=hunter2-secret-value\n"         /* grep -rn */
		"./notes.md:1:the secret handshake is documented here\n"
		"     2\t  DB_HOST=db.internal.example\n"            /* cat -n */
		">> a/b/.env.local:TOKEN=nested-private-line-42\n"   /* grep | sed */
		"short\n"
		"tail without newline";

	(void)state;
	assert_int_equal(route_privlines_redact(s, text, &out), 4);
	assert_string_equal(out.data,
			    ROUTE_PRIVLINES_NOTE "\n" ROUTE_PRIVLINES_NOTE "\n"
			    "./notes.md:1:the secret handshake is documented here\n"
			    ROUTE_PRIVLINES_NOTE "\n" ROUTE_PRIVLINES_NOTE "\nshort\ntail without newline");
	/* a private line after 16 ':' / TAB prefixes is still found; after 17
	 * it is not looked for (the bound on the work per line) */
	buf_reset(&out);
	assert_int_equal(route_privlines_redact(s, "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:"
						"TOKEN=nested-private-line-42\n", &out), 1);
	assert_string_equal(out.data, ROUTE_PRIVLINES_NOTE "\n");
	buf_reset(&out);
	assert_int_equal(route_privlines_redact(s, "0:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:"
						"TOKEN=nested-private-line-42\n", &out), 0);
	buf_release(&out);
	route_privlines_free(s);
	tu_rmrf(dir);
	free(dir);
}

static void
test_conv(void **state)
{
	char *dir = make_tree();
	struct route_privlines *s = route_privlines_build(dir, globs, 3, NULL);
	struct conv c;
	struct conv_msg *m;
	unsigned long gen0, gen2;

	(void)state;
	conv_init(&c);
	m = conv_add_msg(&c, CONV_USER);
	conv_add_block(m, CONV_TEXT, "API_SECRET=hunter2-secret-value", NULL, NULL); /* the user's own text */
	m = conv_add_msg(&c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{\"command\":\"cat .e*\"}", "c1", "bash");
	m = conv_add_msg(&c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "x\nAPI_SECRET=hunter2-secret-value\ny", "c1", "bash");
	conv_add_block(m, CONV_TOOL_RESULT, "nothing private", "c2", "bash");
	gen0 = c.msgs[0].gen;
	gen2 = c.msgs[2].gen;
	assert_int_equal(route_privlines_conv(s, &c), 1);
	assert_true(c.msgs[2].gen != gen2); /* edited in place: a new gen (llm/conv.h) */
	assert_true(c.msgs[0].gen == gen0);
	assert_string_equal(c.msgs[2].blocks[0].text, "x\n" ROUTE_PRIVLINES_NOTE "\ny");
	assert_string_equal(c.msgs[2].blocks[1].text, "nothing private");
	assert_string_equal(c.msgs[0].blocks[0].text, "API_SECRET=hunter2-secret-value");
	assert_int_equal(route_privlines_conv(NULL, &c), 0);
	conv_release(&c);
	route_privlines_free(s);
	tu_rmrf(dir);
	free(dir);
}

/* A file of exactly size bytes: a private line, then filler lines (padded to size). */
static void
write_sized(const char *dir, const char *rel, const char *line, size_t size)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s\n", line);
	while (b.len < size)
		buf_addch(&b, b.len % 64 == 63 ? '\n' : '.');
	assert_int_equal(b.len, size);
	tu_write(dir, rel, b.data);
	buf_release(&b);
}

/*
 * The edges of what is read and what counts as a line: every blank of
 * isspace trimmed (\v and \f too), exactly ROUTE_PRIVLINES_MIN non-blank
 * bytes is a line and one fewer is not, a file of 1 MB is read and one
 * byte more is not, hundreds of lines all found, many directories wide,
 * and no descriptor left open.
 */
static void
test_edges(void **state)
{
	char *dir = tu_tmpdir();
	static const char *const all[] = { "p/**" };
	struct buf b = BUF_INIT, p = BUF_INIT;
	struct route_privlines *s;
	size_t nfiles = 0, i;
	int fds;

	(void)state;
	buf_addf(&p, "%s/p", dir);
	assert_int_equal(mkdir(p.data, 0700), 0);
	tu_write(dir, "p/blanks",
		 "VT_LINE=vertical-tab-value\v\n\fFF_LINE=form-feed-value\n"
		 "12345678\n1234567\na b c d e f g h\na b c d e f g\n");
	for (i = 0; i < 300; i++)
		buf_addf(&b, "private-line-%04zu = value %zu\n", i, i * 7919);
	buf_adds(&b, "private-line-0000 = value 0\n"); /* a line twice is one line */
	tu_write(dir, "p/many", b.data);
	write_sized(dir, "p/mb", "IN_A_FILE_OF_ONE_MB=yes", 1u << 20);
	write_sized(dir, "p/over", "IN_A_FILE_OVER_ONE_MB=no", (1u << 20) + 1);
	for (i = 0; i < 40; i++) { /* 40 sibling directories: the walk's stack grows */
		buf_reset(&p);
		buf_addf(&p, "%s/p/d%02zu", dir, i);
		assert_int_equal(mkdir(p.data, 0700), 0);
	}
	tu_write(dir, "p/d39/deep", "IN_THE_LAST_DIRECTORY=found\n");

	fds = tu_open_fds();
	s = route_privlines_build(dir, all, 1, &nfiles);
	assert_int_equal(tu_open_fds(), fds);

	assert_int_equal(nfiles, 4); /* blanks, many, mb, d39/deep: not the file over 1 MB */
	assert_true(route_privlines_has(s, "VT_LINE=vertical-tab-value", 26));
	assert_true(route_privlines_has(s, "FF_LINE=form-feed-value", 23));
	assert_true(route_privlines_has(s, "\vFF_LINE=form-feed-value\f", 25));
	assert_true(route_privlines_has(s, "12345678", 8));
	assert_false(route_privlines_has(s, "1234567", 7));
	assert_true(route_privlines_has(s, "a b c d e f g h", 15));
	assert_false(route_privlines_has(s, "a b c d e f g", 13));
	assert_true(route_privlines_has(s, "IN_A_FILE_OF_ONE_MB=yes", 23));
	assert_false(route_privlines_has(s, "IN_A_FILE_OVER_ONE_MB=no", 24));
	assert_true(route_privlines_has(s, "IN_THE_LAST_DIRECTORY=found", 27));
	for (i = 0; i < 300; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "private-line-%04zu = value %zu", i, i * 7919);
		assert_true(route_privlines_has(s, line, (size_t)n));
	}
	/* blanks: 4 (vt, ff, 8 bytes, 8 spaced); many: 300; mb: 1 and its filler's two lines (39 and 63 dots); deep: 1 */
	assert_int_equal(route_privlines_count(s), 4 + 300 + 3 + 1);
	assert_false(route_privlines_has(NULL, "IN_THE_LAST_DIRECTORY=found", 27));
	/* a prefix ending in ':' at the line's first byte, and a last line with no newline */
	buf_reset(&b);
	assert_int_equal(route_privlines_redact(s, ":IN_THE_LAST_DIRECTORY=found\n"
						"./p/d39/deep:1:IN_THE_LAST_DIRECTORY=found", &b), 2);
	assert_string_equal(b.data, ROUTE_PRIVLINES_NOTE "\n" ROUTE_PRIVLINES_NOTE);
	{ /* a tool result in the conversation's first message is filtered too */
		struct conv c;
		conv_init(&c);
		conv_add_block(conv_add_msg(&c, CONV_USER), CONV_TOOL_RESULT,
			       "12345678", "c0", "bash");
		assert_int_equal(route_privlines_conv(s, &c), 1);
		assert_string_equal(c.msgs[0].blocks[0].text, ROUTE_PRIVLINES_NOTE);
		conv_release(&c);
	}
	route_privlines_free(s);
	route_privlines_free(NULL); /* Issue 20: no set, nothing to free (as free(NULL)) */
	assert_int_equal(route_privlines_count(NULL), 0);
	buf_release(&b);
	buf_release(&p);
	tu_rmrf(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_lookup),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_conv),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_route_privlines: privacy by content (route/privlines): the set of private lines and the filter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_lookup),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_conv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

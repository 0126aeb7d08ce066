/*
 * test_stale: the stale-write guard — the table itself (records, growth,
 * forget, hashing in chunks), and the rules as the tools apply them: read
 * then edit, edits in a row, an edit of a file never read, a change by
 * someone else (also one that keeps the size and mtime), write of a new
 * file, overwrite only after a read, a partial read counts, no guard when
 * env->stale is NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/stale.h"
#include "tool_fixture.h"

extern const struct tool tool_read, tool_edit, tool_write;

static int
setup(void **state)
{
	struct fixture *f = fixture_new();

	f->env.stale = tool_stale_new();
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	tool_stale_free(f->env.stale);
	fixture_free(f);
	return 0;
}

/* Content of rel in a static buffer ("" when missing). */
static const char *
slurp(struct fixture *f, const char *rel)
{
	static char text[4096];
	size_t n = 0;
	char *p = fixture_slurp(f, rel, &n);

	snprintf(text, sizeof text, "%s", p ? p : "");
	free(p);
	return text;
}

/* Run t on json; assert the error flag; return whether output contains `want`. */
static int
run(struct fixture *f, const struct tool *t, const char *json, int want_err, const char *want)
{
	int err = -1, found;
	char *out = fixture_out(f, t, json, &err);

	if (err != want_err)
		print_error("%s %s -> %s\n", t->name, json, out);
	assert_int_equal(err, want_err);
	found = !want || strstr(out, want) != NULL;
	if (!found)
		print_error("%s: missing \"%s\" in: %s\n", t->name, want, out);
	free(out);
	return found;
}

/* The table: insert many (growth), find each, forget, count. */
static void
test_table(void **state)
{
	struct tool_stale *s = tool_stale_new();
	struct err e = ERR_INIT;
	struct stat st;
	char p[64];
	int i;

	(void)state;
	memset(&st, 0, sizeof st);
	for (i = 0; i < 500; i++) {
		snprintf(p, sizeof p, "/no/such/%d", i);
		tool_stale_seen(s, p, &st, (uint64_t)i);
	}
	tool_stale_seen(s, "/no/such/7", &st, 9); /* update, not a new record */
	assert_int_equal(tool_stale_count(s), 500);
	tool_stale_forget(s, "/no/such/7");
	tool_stale_forget(s, "/no/such/7");
	tool_stale_forget(s, "/never");
	assert_int_equal(tool_stale_count(s), 499);
	/* a missing file is never stale (write may create it) */
	assert_int_equal(tool_stale_check(s, "/no/such/1", "x", "editing", &e), 0);
	/* NULL table: no guard, no crash */
	assert_int_equal(tool_stale_check(NULL, "/etc/passwd", "x", "editing", &e), 0);
	tool_stale_seen(NULL, "/x", &st, 1);
	tool_stale_wrote(NULL, "/x", "a", 1);
	tool_stale_forget(NULL, "/x");
	assert_int_equal(tool_stale_count(NULL), 0);
	tool_stale_free(s);
	tool_stale_free(NULL);
}

/* Chunked hashing equals one-shot hashing; different bytes differ. */
static void
test_hash(void **state)
{
	uint64_t a = tool_stale_hash(TOOL_STALE_HASH_INIT, "hello world", 11);
	uint64_t b = tool_stale_hash(tool_stale_hash(TOOL_STALE_HASH_INIT, "hello ", 6), "world", 5);

	(void)state;
	assert_true(a == b);
	assert_true(a != tool_stale_hash(TOOL_STALE_HASH_INIT, "hello worle", 11));
	assert_true(tool_stale_hash(TOOL_STALE_HASH_INIT, "", 0) == TOOL_STALE_HASH_INIT);
}

/* Edit before any read is refused; after a read it works; edits in a row work. */
static void
test_read_then_edits(void **state)
{
	struct fixture *f = *state;

	fixture_puts(f, "a.c", "int a = 1;\nint b = 2;\n");
	assert_true(run(f, &tool_edit, "{\"path\":\"a.c\",\"old_text\":\"1\",\"new_text\":\"3\"}",
			1, "a.c has not been read yet; read it before editing"));
	assert_string_equal(slurp(f, "a.c"), "int a = 1;\nint b = 2;\n");
	assert_true(run(f, &tool_read, "{\"path\":\"a.c\"}", 0, "int a = 1;"));
	assert_true(run(f, &tool_edit, "{\"path\":\"a.c\",\"old_text\":\"1\",\"new_text\":\"3\"}",
			0, "edited a.c"));
	assert_true(run(f, &tool_edit, "{\"path\":\"a.c\",\"old_text\":\"2\",\"new_text\":\"4\"}",
			0, "edited a.c"));
	assert_string_equal(slurp(f, "a.c"), "int a = 3;\nint b = 4;\n");
	/* after the agent's write, edit works without a read */
	assert_true(run(f, &tool_write, "{\"path\":\"a.c\",\"content\":\"x\\n\"}", 0, "overwrote"));
	assert_true(run(f, &tool_edit, "{\"path\":\"a.c\",\"old_text\":\"x\",\"new_text\":\"y\"}",
			0, "edited a.c"));
}

/* Someone else changes the file: refused, the change survives; a re-read fixes it. */
static void
test_changed_on_disk(void **state)
{
	struct fixture *f = *state;
	struct timespec ts[2];
	struct stat st;

	fixture_puts(f, "b.py", "x = 1\n");
	assert_true(run(f, &tool_read, "{\"path\":\"b.py\"}", 0, NULL));
	fixture_puts(f, "b.py", "x = 2\n"); /* same size */
	assert_true(run(f, &tool_edit, "{\"path\":\"b.py\",\"old_text\":\"x\",\"new_text\":\"y\"}",
			1, "b.py changed on disk since you last read it (by the user or another "
			"process); read it again before editing"));
	assert_true(run(f, &tool_write, "{\"path\":\"b.py\",\"content\":\"z\\n\"}", 1,
			"read it again before overwriting"));
	assert_string_equal(slurp(f, "b.py"), "x = 2\n");
	assert_true(run(f, &tool_read, "{\"path\":\"b.py\"}", 0, "x = 2"));
	/* same size and the same mtime as the agent saw: the hash still catches it */
	assert_int_equal(stat(fixture_path(f, "b.py"), &st), 0);
	fixture_puts(f, "b.py", "x = 3\n");
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, fixture_path(f, "b.py"), ts, 0), 0);
	assert_true(run(f, &tool_edit, "{\"path\":\"b.py\",\"old_text\":\"x\",\"new_text\":\"y\"}",
			1, "changed on disk"));
	/* touched (or rewritten) with the same bytes: nothing is lost, allowed */
	assert_true(run(f, &tool_read, "{\"path\":\"b.py\"}", 0, NULL));
	fixture_puts(f, "b.py", "x = 3\n");
	assert_true(run(f, &tool_edit, "{\"path\":\"b.py\",\"old_text\":\"x\",\"new_text\":\"y\"}",
			0, "edited"));
}

/* write: a new file needs no read; an existing one does; identical content passes. */
static void
test_write_rules(void **state)
{
	struct fixture *f = *state;

	assert_true(run(f, &tool_write, "{\"path\":\"new/n.txt\",\"content\":\"1\\n\"}", 0,
			"created"));
	assert_true(run(f, &tool_write, "{\"path\":\"new/n.txt\",\"content\":\"2\\n\"}", 0,
			"overwrote"));
	fixture_puts(f, "old.txt", "mine\n");
	assert_true(run(f, &tool_write, "{\"path\":\"old.txt\",\"content\":\"theirs\\n\"}", 1,
			"old.txt has not been read yet; read it before overwriting"));
	assert_string_equal(slurp(f, "old.txt"), "mine\n");
	assert_true(run(f, &tool_write, "{\"path\":\"old.txt\",\"content\":\"mine\\n\"}", 0,
			"already has this content"));
	assert_true(run(f, &tool_write, "{\"path\":\"old.txt\",\"content\":\"theirs\\n\"}", 0,
			"overwrote"));
	/* deleted by someone else after the read: write may create it again */
	assert_int_equal(unlink(fixture_path(f, "old.txt")), 0);
	assert_true(run(f, &tool_write, "{\"path\":\"old.txt\",\"content\":\"again\\n\"}", 0,
			"created"));
}

/* A partial read (offset/limit) counts as a read of the file. */
static void
test_partial_read(void **state)
{
	struct fixture *f = *state;

	fixture_puts(f, "l.txt", "one\ntwo\nthree\nfour\n");
	assert_true(run(f, &tool_read, "{\"path\":\"l.txt\",\"offset\":3,\"limit\":1}", 0,
			"three"));
	assert_true(run(f, &tool_edit, "{\"path\":\"l.txt\",\"old_text\":\"one\","
			"\"new_text\":\"1\"}", 0, "edited"));
	assert_string_equal(slurp(f, "l.txt"), "1\ntwo\nthree\nfour\n");
}

/* No table: the tools behave as before (no read needed). */
static void
test_no_guard(void **state)
{
	struct fixture *f = *state;
	struct tool_stale *s = f->env.stale;

	f->env.stale = NULL;
	fixture_puts(f, "c.txt", "a\n");
	assert_true(run(f, &tool_edit, "{\"path\":\"c.txt\",\"old_text\":\"a\",\"new_text\":\"b\"}",
			0, "edited"));
	assert_true(run(f, &tool_write, "{\"path\":\"c.txt\",\"content\":\"c\\n\"}", 0,
			"overwrote"));
	f->env.stale = s;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_hash),
		cmocka_unit_test_setup_teardown(test_read_then_edits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_on_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_guard, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

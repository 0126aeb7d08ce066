/*
 * test_edit: the edit tool — exact unique replacement, ambiguity,
 * replace_all, no-match candidates (whitespace-insensitive and similar
 * line), CRLF and BOM preservation, no-op and empty old_text, mode kept
 * and no temp file left, binary and missing files, paths outside; the
 * syntax check after the edit (warn and reject modes, already broken files);
 * the stale-write guard (unread file, changed on disk, edits in a row).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

#include "tools/stale.h"
#include "tool_fixture.h"

extern const struct tool tool_edit;

/* Run edit with JSON args; returns output, *err = is_error, *diff (may be NULL). */
static char *
ed(struct fixture *f, const char *json, int *err, char **diff)
{
	struct tool_job job;
	char *out;

	fixture_run(f, &tool_edit, json, &job);
	*err = job.is_error;
	out = buf_detach(&job.out, NULL);
	if (diff) {
		*diff = job.diff;
		job.diff = NULL;
	}
	tool_job_release(&job);
	return out;
}

/* Assert rel holds exactly the C string s. */
static void
expect_file(struct fixture *f, const char *rel, const char *s)
{
	size_t len, n = strlen(s);
	char *got = fixture_slurp(f, rel, &len);

	assert_non_null(got);
	assert_int_equal(len, n);
	assert_memory_equal(got, s, n);
	free(got);
}

static void
test_exact_unique(void **state)
{
	struct fixture *f = *state;
	char *o, *d;
	int err;

	fixture_puts(f, "a.c", "int main(void)\n{\n\treturn 0;\n}\n");
	o = ed(f, "{\"path\":\"a.c\",\"old_text\":\"\\treturn 0;\",\"new_text\":"
		  "\"\\tputs(\\\"hi\\\");\\n\\treturn 1;\"}", &err, &d);
	assert_false(err);
	assert_string_equal(o, "edited a.c: replaced 1 occurrence (+2 -1 lines)\n"
			       "--- a/a.c\n+++ b/a.c\n@@ -1,4 +1,5 @@\n int main(void)\n {\n"
			       "-\treturn 0;\n+\tputs(\"hi\");\n+\treturn 1;\n }\n");
	assert_non_null(d);
	assert_non_null(strstr(o, d));
	free(d);
	free(o);
	expect_file(f, "a.c", "int main(void)\n{\n\tputs(\"hi\");\n\treturn 1;\n}\n");
}

/*
 * Found by tests/fuzz/fuzz_edit: an edit that empties the file gave the
 * diff an empty side, whose line array was NULL and was then offset by
 * the common prefix (NULL + 0: undefined, reported by clang's UBSan).
 */
static void
test_edit_to_empty(void **state)
{
	struct fixture *f = *state;
	char *o, *d;
	int err;

	fixture_puts(f, "e.txt", " ");
	o = ed(f, "{\"path\":\"e.txt\",\"old_text\":\" \",\"new_text\":\"\",\"replace_all\":true}",
	       &err, &d);
	assert_false(err);
	assert_non_null(d);
	assert_non_null(strstr(d, "@@ -1,1 +0,0 @@\n- \n"));
	free(d);
	free(o);
	expect_file(f, "e.txt", "");
}

static void
test_ambiguous_and_replace_all(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "x.txt", "foo\nbar\nfoo\nbaz foo\n");
	o = ed(f, "{\"path\":\"x.txt\",\"old_text\":\"foo\",\"new_text\":\"qux\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text matches 3 times in x.txt (lines 1, 3, 4); add more "
			       "surrounding lines to old_text to make it unique, or set "
			       "replace_all=true to replace every occurrence");
	free(o);
	expect_file(f, "x.txt", "foo\nbar\nfoo\nbaz foo\n");
	o = ed(f, "{\"path\":\"x.txt\",\"old_text\":\"foo\\nbar\",\"new_text\":\"one\"}", &err,
	       NULL);
	assert_false(err);
	free(o);
	expect_file(f, "x.txt", "one\nfoo\nbaz foo\n");
	o = ed(f, "{\"path\":\"x.txt\",\"old_text\":\"foo\",\"new_text\":\"q\",\"replace_all\":true}",
	       &err, NULL);
	assert_false(err);
	assert_non_null(strstr(o, "replaced 2 occurrences (+2 -2 lines)"));
	free(o);
	expect_file(f, "x.txt", "one\nq\nbaz q\n");
}

static void
test_no_match_whitespace(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "p.py", "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n");
	o = ed(f, "{\"path\":\"p.py\",\"old_text\":\"    if x:\\n        return 1\\n\","
		  "\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text not found in p.py; lines 2-3 match it when whitespace "
			       "is ignored (check indentation, tabs and trailing spaces). The "
			       "current text is:\n     2\t\tif x:\n     3\t\t\treturn 1\ncopy it "
			       "exactly (without the line numbers) into old_text");
	free(o);
	expect_file(f, "p.py", "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n");
}

static void
test_no_match_similar(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o;
	int err, i;

	for (i = 1; i <= 20; i++)
		buf_addf(&b, "line number %d here\n", i);
	buf_adds(&b, "static int compute_total(struct order *o)\n{\n\treturn o->n;\n}\n");
	fixture_write(f, "o.c", b.data, b.len);
	o = ed(f, "{\"path\":\"o.c\",\"old_text\":\"static int compute_totals(struct order *ord)"
		  "\\n{\\n\\treturn o->n;\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in o.c; the line most like its first "
				  "line is line 21. The file around it:\n    19\tline number 19"));
	assert_non_null(strstr(o, "    21\tstatic int compute_total(struct order *o)\n"));
	assert_non_null(strstr(o, "    24\t}\ncopy the exact current text"));
	free(o);
	o = ed(f, "{\"path\":\"o.c\",\"old_text\":\"zzzz qqqq\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text not found in o.c (24 lines), and no similar lines "
			       "either; read the file to see its current content");
	free(o);
	buf_release(&b);
}

/*
 * Issue 20: the similarity (Dice over character bigrams) at its threshold of
 * 0.5.  "abcde" and "abcxy" share 2 of 4 + 4 bigrams: exactly 0.5, quoted;
 * "abcde" and "abxyz" share 1: 0.25, not quoted.  Of two equally similar
 * lines the first is named.
 */
static void
test_no_match_similar_threshold(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "s.txt", "qqqq\nabcxy\nqqqq\nabcxy\n");
	o = ed(f, "{\"path\":\"s.txt\",\"old_text\":\"abcde\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in s.txt; the line most like its first line is line 2."));
	free(o);
	fixture_puts(f, "t.txt", "qqqq\nabxyz\n");
	o = ed(f, "{\"path\":\"t.txt\",\"old_text\":\"abcde\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text not found in t.txt (2 lines), and no similar lines "
			       "either; read the file to see its current content");
	free(o);
	/* a short line after a long one is compared on its own bigrams only
	 * ("aa" shares nothing with "abcd", whatever "cdcdcdcd" left behind) */
	fixture_puts(f, "u.txt", "cdcdcdcd\naa\n");
	o = ed(f, "{\"path\":\"u.txt\",\"old_text\":\"abcd\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "no similar lines either"));
	free(o);
}

/*
 * Issue 20: a first line longer than the 512 bigrams compared is cut at 512
 * (the arrays hold 512: one more is a write past them); bytes above 0x7f
 * are bigrams of their own: "éa" (c3 a9 61) has nothing in common with ")a"
 * (29 61), whose first byte differs from a9 only in the top bit.
 */
static void
test_no_match_similar_long_and_high(void **state)
{
	struct fixture *f = *state;
	struct buf file = BUF_INIT, args = BUF_INIT;
	char *o;
	int err, i;

	for (i = 0; i < 700; i++)
		buf_addch(&file, ('a' + i % 26));
	buf_adds(&file, "\nend\n");
	fixture_write(f, "long.txt", file.data, file.len);
	buf_adds(&args, "{\"path\":\"long.txt\",\"old_text\":\"");
	for (i = 0; i < 700; i++)
		buf_addch(&args, ('a' + (i + 1) % 26));
	buf_adds(&args, "\",\"new_text\":\"y\"}");
	o = ed(f, args.data, &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "the line most like its first line is line 1."));
	free(o);
	fixture_puts(f, "h.txt", "zz\n)a\n");
	o = ed(f, "{\"path\":\"h.txt\",\"old_text\":\"\xc3\xa9" "a\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "no similar lines either"));
	free(o);
	buf_release(&file);
	buf_release(&args);
}

static void
test_crlf_and_bom(void **state)
{
	struct fixture *f = *state;
	const char *want = "\xEF\xBB\xBFone\r\nTWO\r\nthree\r\nfour\r\n";
	char *o, *d;
	int err;

	fixture_puts(f, "w.txt", "\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n");
	o = ed(f, "{\"path\":\"w.txt\",\"old_text\":\"two\\nthree\\n\",\"new_text\":"
		  "\"TWO\\nthree\\nfour\\n\"}", &err, &d);
	assert_false(err);
	expect_file(f, "w.txt", want);
	assert_null(strchr(d, '\r'));
	assert_non_null(strstr(d, "-two\n+TWO\n three\n+four\n"));
	free(o);
	free(d);
	/* a mixed file keeps its LF-only part as it was */
	fixture_puts(f, "m.txt", "a\r\nb\nc\n");
	o = ed(f, "{\"path\":\"m.txt\",\"old_text\":\"b\\nc\",\"new_text\":\"B\\nC\"}", &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "m.txt", "a\r\nB\nC\n");
	/* model text that arrives with CRLF still matches an LF file */
	fixture_puts(f, "l.txt", "x\ny\n");
	o = ed(f, "{\"path\":\"l.txt\",\"old_text\":\"x\\r\\ny\",\"new_text\":\"z\"}", &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "l.txt", "z\n");
}

/*
 * The BOM is not text: a file that is nothing but a BOM has no text for
 * old_text to find (a U+FEFF sent by the model included), and the file
 * keeps its three bytes.
 */
static void
test_bom_only_file(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "b.txt", "\xEF\xBB\xBF");
	o = ed(f, "{\"path\":\"b.txt\",\"old_text\":\"\\ufeff\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "not found"));
	free(o);
	expect_file(f, "b.txt", "\xEF\xBB\xBF");
}

static void
test_refusals(void **state)
{
	struct fixture *f = *state;
	char *o, path[PATH_MAX + 16];
	int err;

	fixture_puts(f, "a", "text\n");
	o = ed(f, "{\"path\":\"a\",\"old_text\":\"text\",\"new_text\":\"text\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text and new_text are identical; nothing to change");
	free(o);
	fixture_puts(f, "w", "x\r\ny\r\n");
	o = ed(f, "{\"path\":\"w\",\"old_text\":\"x\\r\\ny\",\"new_text\":\"x\\ny\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text and new_text differ only in line ends; nothing to "
			       "change");
	free(o);
	expect_file(f, "w", "x\r\ny\r\n");
	o = ed(f, "{\"path\":\"a\",\"old_text\":\"\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text is empty; quote the exact text to replace (to create "
			       "a file, use write)");
	free(o);
	o = ed(f, "{\"path\":\"nope\",\"old_text\":\"a\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "nope does not exist; use write to create a file");
	free(o);
	fixture_write(f, "bin", "a\0b", 3);
	o = ed(f, "{\"path\":\"bin\",\"old_text\":\"a\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "bin is a binary file; edit works on text files only");
	free(o);
	o = ed(f, "{\"path\":\"../a\",\"old_text\":\"a\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "outside the workspace"));
	free(o);
	o = ed(f, "{\"path\":\"a\",\"old_text\":5,\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "edit needs \"path\", \"old_text\" and \"new_text\" (strings)");
	free(o);
	o = ed(f, "{\"old_text\":\"text\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "edit needs \"path\", \"old_text\" and \"new_text\" (strings)");
	free(o);
	expect_file(f, "a", "text\n");
	/* a file over the 32 MB read limit (sparse: no 32 MB written) is refused
	 * with the read's reason */
	snprintf(path, sizeof path, "%s/huge.txt", f->root);
	fixture_puts(f, "huge.txt", "a");
	assert_int_equal(truncate(path, (32 << 20) + 1), 0);
	o = ed(f, "{\"path\":\"huge.txt\",\"old_text\":\"a\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "read huge.txt: file is 33554433 bytes, over the 33554432 byte limit");
	free(o);
}

static void
test_mode_and_no_temp(void **state)
{
	struct fixture *f = *state;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	char *o;
	int err, n = 0;

	fixture_puts(f, "run.sh", "echo a\n");
	assert_int_equal(chmod(fixture_path(f, "run.sh"), 0755), 0);
	o = ed(f, "{\"path\":\"run.sh\",\"old_text\":\"a\",\"new_text\":\"b\"}", &err, NULL);
	assert_false(err);
	free(o);
	assert_int_equal(stat(fixture_path(f, "run.sh"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	dir = opendir(f->root);
	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL)
		n += de->d_name[0] != '.' || strstr(de->d_name, "hearth") != NULL;
	closedir(dir);
	assert_int_equal(n, 1);
	expect_file(f, "run.sh", "echo b\n");
}

/* A broken C edit is flagged with its line; reject mode leaves the file alone. */
static void
test_syntax_check(void **state)
{
	struct fixture *f = *state;
	const char *src = "#include <stdio.h>\n\nint\nmain(void)\n{\n\tint x = 1;\n"
			  "\treturn x;\n}\n";
	char *o;
	int err;

	fixture_puts(f, "m.c", src);
	f->env.syntax_reject = 1;
	o = ed(f, "{\"path\":\"m.c\",\"old_text\":\"return x;\",\"new_text\":\"return x\"}",
	       &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "syntax check: 1 new error in m.c: line 7: missing \";\""));
	assert_non_null(strstr(o, "m.c not changed"));
	free(o);
	expect_file(f, "m.c", src);
	f->env.syntax_reject = 0;
	o = ed(f, "{\"path\":\"m.c\",\"old_text\":\"return x;\",\"new_text\":\"return x\"}",
	       &err, NULL);
	assert_false(err);
	assert_non_null(strstr(o, "\nsyntax check: 1 new error in m.c: line 7: missing \";\"\n"));
	assert_null(strstr(o, "\n\nsyntax check"));   /* right after the diff, no blank line */
	free(o);
	/* the file is broken now; an edit elsewhere adds no error and says nothing */
	o = ed(f, "{\"path\":\"m.c\",\"old_text\":\"int x = 1;\",\"new_text\":\"int x = 2;\"}",
	       &err, NULL);
	assert_false(err);
	assert_null(strstr(o, "syntax"));
	free(o);
	/* repairing it is quiet too */
	o = ed(f, "{\"path\":\"m.c\",\"old_text\":\"return x\\n\",\"new_text\":"
	       "\"return x;\\n\"}", &err, NULL);
	assert_false(err);
	assert_null(strstr(o, "syntax"));
	free(o);
	/* unknown languages are not checked */
	fixture_puts(f, "notes.txt", "a (b) c\n");
	o = ed(f, "{\"path\":\"notes.txt\",\"old_text\":\"(b)\",\"new_text\":\"((b\"}", &err,
	       NULL);
	assert_false(err);
	assert_null(strstr(o, "syntax"));
	free(o);
}

/* With a stale table: read first; a change by someone else is refused and kept. */
static void
test_stale_guard(void **state)
{
	struct fixture *f = *state;
	extern const struct tool tool_read;
	int err;
	char *o;

	f->env.stale = tool_stale_new();
	fixture_puts(f, "g.c", "int a;\nint b;\n");
	o = ed(f, "{\"path\":\"g.c\",\"old_text\":\"a\",\"new_text\":\"c\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "g.c has not been read yet; read it before editing (so you work "
			    "from its current content)");
	free(o);
	free(fixture_out(f, &tool_read, "{\"path\":\"g.c\"}", &err));
	assert_false(err);
	o = ed(f, "{\"path\":\"g.c\",\"old_text\":\"a\",\"new_text\":\"c\"}", &err, NULL);
	assert_false(err);
	free(o);
	o = ed(f, "{\"path\":\"g.c\",\"old_text\":\"b\",\"new_text\":\"d\"}", &err, NULL);
	assert_false(err);
	free(o);
	fixture_puts(f, "g.c", "int c;\nint e;\n"); /* the user's change, same size */
	o = ed(f, "{\"path\":\"g.c\",\"old_text\":\"c\",\"new_text\":\"x\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "g.c changed on disk since you last read it (by the user or "
			    "another process); read it again before editing");
	free(o);
	expect_file(f, "g.c", "int c;\nint e;\n");
	tool_stale_free(f->env.stale);
	f->env.stale = NULL;
}

/* Issue 20: exactly two occurrences are ambiguous too (the test above has
 * three), and a FIFO is refused at once instead of hanging on its open, a
 * socket as plainly. */
static void
test_twice_and_fifo(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *o, path[PATH_MAX + 16];
	int err, sock;

	fixture_puts(f, "two.txt", "red\nmid\nred\n");
	o = ed(f, "{\"path\":\"two.txt\",\"old_text\":\"red\",\"new_text\":\"blue\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text matches 2 times in two.txt (lines 1, 3); add more "
			       "surrounding lines to old_text to make it unique, or set "
			       "replace_all=true to replace every occurrence");
	free(o);
	expect_file(f, "two.txt", "red\nmid\nred\n");
	/* line numbers count a newline in the first byte too */
	fixture_puts(f, "nl.txt", "\nred\nred\n");
	o = ed(f, "{\"path\":\"nl.txt\",\"old_text\":\"red\",\"new_text\":\"blue\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "matches 2 times in nl.txt (lines 2, 3)"));
	free(o);
	snprintf(path, sizeof path, "%s/pipe", f->root);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* a hang fails the test instead of stalling the suite */
	o = ed(f, "{\"path\":\"pipe\",\"old_text\":\"a\",\"new_text\":\"b\"}", &err, NULL);
	alarm(0);
	assert_true(err);
	assert_string_equal(o, "pipe is not a regular file; only files can be edited");
	free(o);
	/* so is a socket, whose open fails (ENXIO) before fstat could tell */
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sock >= 0);
	snprintf(path, sizeof path, "%s/sock", f->root);
	assert_true(strlen(path) < sizeof sa.sun_path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof sa), 0);
	o = ed(f, "{\"path\":\"sock\",\"old_text\":\"a\",\"new_text\":\"b\"}", &err, NULL);
	close(sock);
	assert_true(err);
	assert_string_equal(o, "sock is not a regular file; only files can be edited");
	free(o);
}

/*
 * Issue 20: line ends at the edges.  A CRLF file whose line ends in a stray
 * CR ("\r\r\n", a file converted twice) is edited with old_text copied from
 * it byte for byte (the CR before the CRLF is text of its own), in the
 * middle and at old_text's first byte; a "\r" at the end of old_text and
 * new_text (not a line end) is text too; a bare "\n" at the file's first
 * byte does not hide the CRLF after it; an old_text that begins with "\n"
 * gets its CR in a CRLF file.
 */
static void
test_crlf_edges(void **state)
{
	struct fixture *f = *state;
	char *o, *d;
	int err;

	fixture_puts(f, "s.c", "int x;\r\r\nint y;\r\n");
	o = ed(f, "{\"path\":\"s.c\",\"old_text\":\"int x;\\r\\r\\nint y;\",\"new_text\":"
		  "\"int x;\\r\\r\\nint z;\"}", &err, &d);
	assert_false(err);
	assert_non_null(strstr(d, "-int y;\n+int z;\n"));
	free(d);
	free(o);
	expect_file(f, "s.c", "int x;\r\r\nint z;\r\n");
	o = ed(f, "{\"path\":\"s.c\",\"old_text\":\"\\r\\r\\nint z;\",\"new_text\":"
		  "\"\\r\\nint z;\"}", &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "s.c", "int x;\r\nint z;\r\n");
	fixture_puts(f, "r.c", "k = 1;\r\nk = 2;\r\n");
	o = ed(f, "{\"path\":\"r.c\",\"old_text\":\"k = 1;\\r\",\"new_text\":\"k = 3;\\r\"}",
	       &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "r.c", "k = 3;\r\nk = 2;\r\n");
	fixture_puts(f, "n.c", "\nA\r\nB\r\n");
	o = ed(f, "{\"path\":\"n.c\",\"old_text\":\"A\\nB\",\"new_text\":\"X\\nB\"}", &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "n.c", "\nX\r\nB\r\n");
	fixture_puts(f, "b.c", "a\r\nb\r\n");
	o = ed(f, "{\"path\":\"b.c\",\"old_text\":\"\\nb\",\"new_text\":\"\\nc\"}", &err, NULL);
	assert_false(err);
	free(o);
	expect_file(f, "b.c", "a\r\nc\r\n");
}

/*
 * Issue 20: where an ambiguous old_text occurs.  An occurrence that begins
 * with its line's "\n" is on that line; ten line numbers are listed, an
 * eleventh occurrence adds ", ...".
 */
static void
test_ambiguous_lines(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "l.txt", "a\nb\na\nb\n");
	o = ed(f, "{\"path\":\"l.txt\",\"old_text\":\"\\nb\",\"new_text\":\"\\nc\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "matches 2 times in l.txt (lines 1, 3);"));
	free(o);
	fixture_puts(f, "ten.txt", "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\n");
	o = ed(f, "{\"path\":\"ten.txt\",\"old_text\":\"x\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "matches 10 times in ten.txt (lines 1, 2, 3, 4, 5, 6, 7, 8, "
				  "9, 10);"));
	free(o);
	fixture_puts(f, "eleven.txt", "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\n");
	o = ed(f, "{\"path\":\"eleven.txt\",\"old_text\":\"x\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "matches 11 times in eleven.txt (lines 1, 2, 3, 4, 5, 6, 7, "
				  "8, 9, 10, ...);"));
	free(o);
	expect_file(f, "eleven.txt", "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\n");
}

/*
 * Issue 20: the closest region of a missing old_text, at the edges of the
 * line split.  A file that begins with "\n" has an empty line 1; a file of
 * one line and its "\n" has one line (no empty line after the last "\n");
 * a line that differs in its first character is no whitespace-only match;
 * a match at line 90 of 100 is found past the first lines' room.
 */
static void
test_no_match_edges(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o;
	int err, i;

	fixture_puts(f, "nl.txt", "\nfoo bar\n");
	o = ed(f, "{\"path\":\"nl.txt\",\"old_text\":\"foo  bar\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text not found in nl.txt; lines 2-2 match it when whitespace "
			       "is ignored (check indentation, tabs and trailing spaces). The "
			       "current text is:\n     2\tfoo bar\ncopy it exactly (without the "
			       "line numbers) into old_text");
	free(o);
	fixture_puts(f, "one.txt", "zzzz\n");
	o = ed(f, "{\"path\":\"one.txt\",\"old_text\":\"qqqq\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_string_equal(o, "old_text not found in one.txt (1 line), and no similar lines "
			       "either; read the file to see its current content");
	free(o);
	fixture_puts(f, "x.txt", "xfoo = 1;\n");
	o = ed(f, "{\"path\":\"x.txt\",\"old_text\":\"foo =  1;\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in x.txt; the line most like its first "
				  "line is line 1."));
	free(o);
	/* nor is one whose first character is extra, nor a line that is only
	 * the start of the other */
	fixture_puts(f, "y.txt", "foo = 1;\nint  x = 2;\n");
	o = ed(f, "{\"path\":\"y.txt\",\"old_text\":\"xfoo =  1;\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in y.txt; the line most like its first "
				  "line is line 1."));
	free(o);
	o = ed(f, "{\"path\":\"y.txt\",\"old_text\":\"int x\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in y.txt; the line most like its first "
				  "line is line 2."));
	free(o);
	o = ed(f, "{\"path\":\"y.txt\",\"old_text\":\"int x = 2; /* two */\",\"new_text\":"
		  "\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "old_text not found in y.txt; the line most like its first "
				  "line is line 2."));
	free(o);
	/* the similar line is quoted with two lines either side of old_text's
	 * lines, as far as the file goes */
	fixture_puts(f, "c.txt", "l1\nl2\nl3\nabcxy\nl5\nl6\nl7\n");
	o = ed(f, "{\"path\":\"c.txt\",\"old_text\":\"abcde\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "line is line 4. The file around it:\n     2\tl2\n     3\tl3\n"
				  "     4\tabcxy\n     5\tl5\n     6\tl6\ncopy the exact"));
	free(o);
	fixture_puts(f, "d.txt", "abcxy\nq\nq\nq\nq\n");
	o = ed(f, "{\"path\":\"d.txt\",\"old_text\":\"abcde\",\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "line is line 1. The file around it:\n     1\tabcxy\n     2\tq\n"
				  "     3\tq\ncopy the exact"));
	free(o);
	for (i = 1; i <= 100; i++)
		buf_addf(&b, i == 90 ? "\tkey = %d;\n" : "line %d\n", i);
	fixture_write(f, "h.txt", b.data, b.len);
	o = ed(f, "{\"path\":\"h.txt\",\"old_text\":\"key=90;\\nline 91\",\"new_text\":\"y\"}",
	       &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "; lines 90-91 match it when whitespace is ignored"));
	assert_non_null(strstr(o, "    90\t\tkey = 90;\n    91\tline 91\ncopy it exactly"));
	free(o);
	buf_release(&b);
}

/*
 * Loose-match a file of one line, head + tail, with old_text head + " " +
 * tail; the quote of that line must be `want` (then "\ncopy it exactly").
 */
static void
quote_one(struct fixture *f, const char *head, const char *tail, const char *want)
{
	struct buf file = BUF_INIT, args = BUF_INIT, exp = BUF_INIT;
	char *o;
	int err;

	buf_addf(&file, "%s%s\n", head, tail);
	fixture_write(f, "q.txt", file.data, file.len);
	buf_addf(&args, "{\"path\":\"q.txt\",\"old_text\":\"%s %s\",\"new_text\":\"y\"}", head, tail);
	buf_addf(&exp, "The current text is:\n     1\t%s\ncopy it exactly", want);
	o = ed(f, args.data, &err, NULL);
	assert_true(err);
	if (!strstr(o, exp.data))
		fail_msg("%s\nwanted: %s", o, exp.data);
	free(o);
	buf_release(&file);
	buf_release(&args);
	buf_release(&exp);
}

/*
 * Issue 20: a quoted region is cut as read cuts it.  A line of 300 bytes is
 * quoted whole, one of 301 shows its first 300 and " [...]", a cut that
 * would split a UTF-8 character moves before it; at most 40 lines of a
 * region are quoted.
 */
static void
test_quote_limits(void **state)
{
	struct fixture *f = *state;
	struct buf a = BUF_INIT, w = BUF_INIT, file = BUF_INIT, args = BUF_INIT;
	char *o;
	int err, i;

	for (i = 0; i < 298; i++)
		buf_addch(&a, 'a');
	buf_addf(&w, "%sbb", a.data);
	quote_one(f, a.data, "bb", w.data);                     /* 300 bytes: whole */
	buf_reset(&w);
	buf_addf(&w, "%sbb [...]", a.data);
	quote_one(f, a.data, "bbb", w.data);                    /* 301: cut at 300 */
	quote_one(f, a.data, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", w.data);
	buf_reset(&w);
	buf_addf(&w, "%sb [...]", a.data);
	quote_one(f, a.data, "b\xc3\xa9zz", w.data);           /* é at 299-300 */
	for (i = 1; i <= 50; i++)
		buf_addf(&file, "l%d x\n", i);
	fixture_write(f, "r.txt", file.data, file.len);
	buf_adds(&args, "{\"path\":\"r.txt\",\"old_text\":\"");
	for (i = 1; i <= 50; i++)
		buf_addf(&args, "l%d  x\\n", i);
	buf_adds(&args, "\",\"new_text\":\"y\"}");
	o = ed(f, args.data, &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "lines 1-50 match it when whitespace is ignored"));
	assert_non_null(strstr(o, "\n     1\tl1 x\n"));
	assert_non_null(strstr(o, "\n    40\tl40 x\ncopy it exactly"));
	assert_null(strstr(o, "l41 x"));
	free(o);
	/* a line of nothing but UTF-8 continuation bytes (past the binary sniff,
	 * a tenth of the file at most) is cut to nothing, not to a broken byte */
	buf_reset(&file);
	for (i = 1; i <= 200; i++)
		buf_addf(&file, "line %d of the filler text\n", i);
	buf_adds(&file, "static int hello_world(void)\n");
	for (i = 0; i < 301; i++)
		buf_addch(&file, (char)0x80);
	buf_adds(&file, "\nend\n");
	fixture_write(f, "u.txt", file.data, file.len);
	o = ed(f, "{\"path\":\"u.txt\",\"old_text\":\"static int hello_world(int)\",\"new_text\":"
		  "\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "the line most like its first line is line 201."));
	assert_non_null(strstr(o, "\n   202\t [...]\n   203\tend\ncopy the exact"));
	free(o);
	/* blank lines around old_text are not part of the region; its last
	 * line is, however short */
	fixture_puts(f, "t.c", "if (x) {\n\treturn;\n}\n");
	o = ed(f, "{\"path\":\"t.c\",\"old_text\":\"\\n  \\nif (x)  {\\n  return;\\n}\\n\\n\","
		  "\"new_text\":\"y\"}", &err, NULL);
	assert_true(err);
	assert_non_null(strstr(o, "; lines 1-3 match it when whitespace is ignored"));
	assert_non_null(strstr(o, "\n     3\t}\ncopy it exactly"));
	free(o);
	buf_release(&a);
	buf_release(&w);
	buf_release(&file);
	buf_release(&args);
}

/*
 * Issue 20: a write that fails (here the file-size limit, EFBIG, which root
 * cannot step over either) is the call's error: the file keeps its bytes,
 * no temp file is left and no "edited" report follows the error.
 */
static void
test_write_fails(void **state)
{
	struct fixture *f = *state;
	struct rlimit old, small;
	void (*was)(int);
	struct dirent *de;
	DIR *dir;
	char *o;
	int err, n = 0;

	fixture_puts(f, "big.txt", "short\n");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 16;
	was = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	o = ed(f, "{\"path\":\"big.txt\",\"old_text\":\"short\",\"new_text\":"
		  "\"a line much longer than sixteen bytes\"}", &err, NULL);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_true(err);
	if (strstr(o, "edited") || !strstr(o, "big.txt"))
		fail_msg("%s", o);
	free(o);
	expect_file(f, "big.txt", "short\n");
	assert_non_null(dir = opendir(f->root));
	while ((de = readdir(dir)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dir);
	assert_int_equal(n, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_unique, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_and_replace_all, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_twice_and_fifo, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_match_whitespace, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_match_similar, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_match_similar_threshold, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_match_similar_long_and_high, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_crlf_and_bom, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bom_only_file, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_mode_and_no_temp, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_syntax_check, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_guard, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_edit_to_empty, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_crlf_edges, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_ambiguous_lines, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_no_match_edges, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_quote_limits, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_write_fails, fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_grep: the grep and find tools over a temporary workspace that is a
 * git repository — sorted output, .gitignore and .git skipped, binary and
 * oversized files skipped, globs, regex and literal modes, caps with
 * notes, plain "no matches", and path errors; on a loop (the worker
 * thread) the rows stream through tool_job_progress before the call ends,
 * and a call cancelled then keeps the rows found so far.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>
#include <git2.h>

#include "base/fs.h"
#include "io/loop.h"
#include "io/work.h"
#include "tool_fixture.h"

extern const struct tool tool_grep, tool_find_files;

/* A git work tree with sources, ignored files, a binary and a big file. */
static int
setup(void **state)
{
	struct fixture *f = fixture_new();
	git_repository *repo = NULL;

	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, f->root, 0), 0);
	git_repository_free(repo);
	git_libgit2_shutdown();
	fixture_puts(f, ".gitignore", "build/\n*.log\n");
	fixture_mkdir(f, "src");
	fixture_mkdir(f, "src/sub");
	fixture_mkdir(f, "build");
	fixture_puts(f, "src/a.c", "int foo;\nfoo();\nline 42 here\n");
	fixture_puts(f, "src/b.h", "FOO\r\nbar(x) + foo()\n");
	fixture_puts(f, "src/sub/c.c", "/* foo */\n");
	fixture_puts(f, "build/gen.c", "foo\n");
	fixture_puts(f, "debug.log", "foo\n");
	fixture_write(f, "blob.bin", "foo\0\1\2", 6);
	fixture_puts(f, "README", "nothing here\n");
	*state = f;
	return 0;
}

static char *
grep(struct fixture *f, const char *json, int *err)
{
	return fixture_out(f, &tool_grep, json, err);
}

static char *
find(struct fixture *f, const char *json, int *err)
{
	return fixture_out(f, &tool_find_files, json, err);
}

static void
test_grep_basic(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	o = grep(f, "{\"pattern\":\"foo\"}", &err);
	assert_false(err);
	assert_string_equal(o, "src/a.c:1:int foo;\nsrc/a.c:2:foo();\nsrc/b.h:2:bar(x) + foo()\n"
			       "src/sub/c.c:1:/* foo */\n");
	free(o);
	o = grep(f, "{\"pattern\":\"foo\",\"ignore_case\":true,\"path\":\"src/b.h\"}", &err);
	assert_string_equal(o, "src/b.h:1:FOO\nsrc/b.h:2:bar(x) + foo()\n");
	free(o);
	o = grep(f, "{\"pattern\":\"line \\\\d+ h\"}", &err);
	assert_string_equal(o, "src/a.c:3:line 42 here\n");
	free(o);
	o = grep(f, "{\"pattern\":\"^foo|here$\",\"path\":\"src\"}", &err);
	assert_string_equal(o, "src/a.c:2:foo();\nsrc/a.c:3:line 42 here\n");
	free(o);
}

static void
test_grep_literal_and_invalid(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	o = grep(f, "{\"pattern\":\"bar(x) +\",\"literal\":true}", &err);
	assert_false(err);
	assert_string_equal(o, "src/b.h:2:bar(x) + foo()\n");
	free(o);
	o = grep(f, "{\"pattern\":\"BAR(X)\",\"literal\":true,\"ignore_case\":true}", &err);
	assert_string_equal(o, "src/b.h:2:bar(x) + foo()\n");
	free(o);
	/*
	 * the literal search looks for the needle's rarest byte (Z here, the
	 * q of xq_z below) and compares around it: a needle at the very start
	 * and at the very end of a file (no newline), one byte short at the
	 * end, candidates that do not match, and a file shorter than the needle
	 */
	fixture_mkdir(f, "lit");
	fixture_puts(f, "lit/start", "Zaaaa tail\nxxZaaa\n");
	fixture_puts(f, "lit/end", "head Zaaa\nlast Zaaaa");
	fixture_puts(f, "lit/short", "Zaa");
	fixture_puts(f, "lit/case", "XQ_Z one\nxq_y two\nq_z\n");
	o = grep(f, "{\"pattern\":\"Zaaaa\",\"literal\":true,\"path\":\"lit\"}", &err);
	assert_false(err);
	assert_string_equal(o, "lit/end:2:last Zaaaa\nlit/start:1:Zaaaa tail\n");
	free(o);
	o = grep(f, "{\"pattern\":\"xq_z\",\"ignore_case\":true,\"literal\":true,\"path\":\"lit\"}", &err);
	assert_string_equal(o, "lit/case:1:XQ_Z one\n");
	free(o);
	o = grep(f, "{\"pattern\":\"bar(x\"}", &err);
	assert_true(err);
	assert_non_null(strstr(o, "invalid pattern \"bar(x\": "));
	assert_non_null(strstr(o, "or set literal=true)"));
	free(o);
}

static void
test_grep_glob_and_paths(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	o = grep(f, "{\"pattern\":\"foo\",\"glob\":\"*.c\"}", &err);
	assert_string_equal(o, "src/a.c:1:int foo;\nsrc/a.c:2:foo();\nsrc/sub/c.c:1:/* foo */\n");
	free(o);
	o = grep(f, "{\"pattern\":\"foo\",\"glob\":\"src/**/*.{h,x}\"}", &err);
	assert_string_equal(o, "src/b.h:2:bar(x) + foo()\n");
	free(o);
	o = grep(f, "{\"pattern\":\"zzz\"}", &err);
	assert_false(err);
	assert_string_equal(o, "no matches for \"zzz\" in .");
	free(o);
	o = grep(f, "{\"pattern\":\"zzz\",\"path\":\"src\",\"glob\":\"*.c\"}", &err);
	assert_string_equal(o, "no matches for \"zzz\" in src (files matching *.c)");
	free(o);
	o = grep(f, "{\"pattern\":\"x\",\"path\":\"nope\"}", &err);
	assert_true(err);
	assert_string_equal(o, "nope does not exist; use ls or find to locate it");
	free(o);
	o = grep(f, "{\"pattern\":\"x\",\"path\":\"/\"}", &err);
	assert_true(err);
	assert_non_null(strstr(o, "outside the workspace"));
	free(o);
	/* an ignored directory named explicitly is searched */
	o = grep(f, "{\"pattern\":\"foo\",\"path\":\"build\"}", &err);
	assert_string_equal(o, "build/gen.c:1:foo\n");
	free(o);
	/* nothing inside .git is searched */
	o = grep(f, "{\"pattern\":\"repositoryformatversion\"}", &err);
	assert_string_equal(o, "no matches for \"repositoryformatversion\" in .");
	free(o);
}

static void
test_grep_caps(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o;
	int err, i, fd;

	for (i = 0; i < 250; i++)
		buf_addf(&b, "hit %d\n", i);
	for (i = 0; i < 400; i++)
		buf_addch(&b, 'w');
	buf_adds(&b, " hit wide\n");
	fixture_write(f, "many.txt", b.data, b.len);
	o = grep(f, "{\"pattern\":\"hit\",\"path\":\"many.txt\"}", &err);
	assert_false(err);
	assert_non_null(strstr(o, "many.txt:200:hit 199\n[showing 200 of 251 matches in 1 "
				  "files; narrow the search with path, glob or a more specific "
				  "pattern]"));
	assert_null(strstr(o, "hit 200"));
	free(o);
	o = grep(f, "{\"pattern\":\"wide\"}", &err);
	assert_non_null(strstr(o, "many.txt:251:www"));
	assert_non_null(strstr(o, "w [...]\n"));
	assert_true(strlen(o) < 350);
	free(o);
	/* a (sparse) file that turns binary after its first line: searched up to the NUL */
	fd = open(fixture_path(f, "huge.txt"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hit\n", 4), 4);
	assert_int_equal(ftruncate(fd, (off_t)64 << 20), 0);
	close(fd);
	o = grep(f, "{\"pattern\":\"wide\"}", &err);
	assert_null(strstr(o, "huge.txt"));
	assert_null(strstr(o, "skipped"));
	free(o);
	/* a NUL past the binary sniff's window (FS_SNIFF), in the first chunk: the
	 * text before it is searched, nothing after it */
	buf_reset(&b);
	buf_adds(&b, "late one\n");
	while (b.len < FS_SNIFF + 100)
		buf_adds(&b, "plain text line\n");
	buf_addch(&b, '\0');
	buf_adds(&b, "\nlate two\n");
	fixture_write(f, "late.txt", b.data, b.len);
	o = grep(f, "{\"pattern\":\"late (one|two)\"}", &err);
	assert_non_null(strstr(o, "late.txt:1:late one\n"));
	assert_null(strstr(o, "late two"));
	free(o);
	buf_release(&b);
}

/*
 * A file bigger than the 4 MB chunks is searched whole, in bounded memory:
 * matches on the lines cut by the chunk ends (at 4 MiB and 8 MiB) and on
 * the last line, with exact line numbers, literal and regex.
 */
static void
test_grep_big_file(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o;
	int err, i;

	for (i = 0; i < 1000000; i++) /* 13 bytes a line: 13 MB */
		buf_addf(&b, "line %07d\n", i);
	fixture_write(f, "big.txt", b.data, b.len);
	o = grep(f, "{\"pattern\":\"line 0322638\",\"literal\":true}", &err);
	assert_false(err);
	if (!strstr(o, "big.txt:322639:line 0322638\n")) /* across 4 MiB */
		fail_msg("%s", o);
	free(o);
	o = grep(f, "{\"pattern\":\"line 06452(59|60)$|line 0999999\"}", &err);
	assert_non_null(strstr(o, "big.txt:645260:line 0645259\n")); /* across 8 MiB */
	assert_non_null(strstr(o, "big.txt:645261:line 0645260\n"));
	assert_non_null(strstr(o, "big.txt:1000000:line 0999999\n"));
	free(o);
	o = grep(f, "{\"pattern\":\"LINE 09999\\\\d8\",\"ignore_case\":true}", &err);
	assert_non_null(strstr(o, "big.txt:999999:line 0999998\n"));
	free(o);
	buf_release(&b);
}

/*
 * The literal a regex's matches must contain is only a prefilter: every
 * pattern here has a match that a wrong literal (an optional character
 * kept, an alternative taken as required) would lose.
 */
static void
test_grep_required_literal(void **state)
{
	static const char *const cases[][2] = {
		{ "colou?r_x", "color_x" },
		{ "abc*def", "abdef" },
		{ "(foo|bar)bazz", "barbazz" },
		{ "xyz{0,2}w", "xyw" },
		{ "alpha|omega", "omega" },
		{ "[abc]defg", "cdefg" },
		{ "fooo.*barr", "fooo and barr" },
		{ "ab+cde", "abbbcde" },
		{ "dot\\\\.ext$", "dot.ext" },
		{ "x(yy)?zzz", "xzzz" },
		{ "Mixed_CASE", "mixed_case" },
		{ "ab\\\\d\\\\d", "ab12" },
	};
	struct fixture *f = *state;
	char json[256], *o;
	size_t i;
	int err;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture_write(f, "t.txt", cases[i][1], strlen(cases[i][1]));
		snprintf(json, sizeof json, "{\"pattern\":\"%s\",\"path\":\"t.txt\"%s}", cases[i][0],
			 strstr(cases[i][0], "CASE") ? ",\"ignore_case\":true" : "");
		o = grep(f, json, &err);
		if (!strstr(o, "t.txt:1:"))
			fail_msg("pattern %s missed \"%s\": %s", cases[i][0], cases[i][1], o);
		free(o);
	}
}

static void
test_find(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	o = find(f, "{\"pattern\":\"*.c\"}", &err);
	assert_false(err);
	assert_string_equal(o, "src/a.c\nsrc/sub/c.c\n");
	free(o);
	o = find(f, "{\"pattern\":\"src/**/*.{c,h}\"}", &err);
	assert_string_equal(o, "src/a.c\nsrc/b.h\nsrc/sub/c.c\n");
	free(o);
	o = find(f, "{\"pattern\":\"sub/*\",\"path\":\"src\"}", &err);
	assert_string_equal(o, "src/sub/c.c\n");
	free(o);
	o = find(f, "{\"pattern\":\"s*\"}", &err);
	assert_string_equal(o, "src/\nsrc/sub/\n");
	free(o);
	o = find(f, "{\"pattern\":\"*.log\"}", &err);
	assert_false(err);
	assert_string_equal(o, "no paths match \"*.log\" under . (2 entries ignored by "
			       ".gitignore were skipped)");
	free(o);
	o = find(f, "{\"pattern\":\"config\"}", &err);
	assert_string_equal(o, "no paths match \"config\" under . (2 entries ignored by "
			       ".gitignore were skipped)");
	free(o);
	o = find(f, "{\"pattern\":\"*.c\",\"path\":\"build\"}", &err);
	assert_string_equal(o, "build/gen.c\n");
	free(o);
	o = find(f, "{\"pattern\":\"*\",\"path\":\"missing\"}", &err);
	assert_true(err);
	assert_string_equal(o, "missing does not exist; use ls to see what is there");
	free(o);
	o = find(f, "{\"pattern\":\"*\",\"path\":\"../..\"}", &err);
	assert_true(err);
	free(o);
}

static void
test_find_cap(void **state)
{
	struct fixture *f = *state;
	char name[64], *o;
	int err, i;

	fixture_mkdir(f, "many");
	for (i = 0; i < 510; i++) {
		snprintf(name, sizeof name, "many/f%03d.txt", i);
		fixture_puts(f, name, "");
	}
	o = find(f, "{\"pattern\":\"*.txt\"}", &err);
	assert_non_null(strstr(o, "many/f499.txt\n[showing 500 of 510 matches; use a more "
				  "specific pattern or a narrower path]"));
	assert_null(strstr(o, "f500"));
	free(o);
}

/* Outside a git repository there is no ignore handling. */
static void
test_no_repo(void **state)
{
	struct fixture *f = fixture_new();
	char *o;
	int err;

	(void)state;
	fixture_puts(f, ".gitignore", "*.log\n");
	fixture_puts(f, "a.log", "foo\n");
	o = grep(f, "{\"pattern\":\"foo\"}", &err);
	assert_string_equal(o, "a.log:1:foo\n");
	free(o);
	o = find(f, "{\"pattern\":\"*.log\"}", &err);
	assert_string_equal(o, "a.log\n");
	free(o);
	fixture_free(f);
}

/* What a watched grep saw: the progress reports, and whether to cancel at the first. */
struct watch {
	int reports, before_end, cancel;
	struct buf first; /* job->live at the first report */
};

static void
on_progress(struct tool_job *job, void *arg)
{
	struct watch *w = arg;

	if (w->reports++ == 0)
		buf_add(&w->first, job->live.data, job->live.len);
	w->before_end += !job->finished;
	if (w->cancel && w->reports == 1)
		job->tool->cancel(job);
}

/* Run grep on a loop (the worker) with progress watched; the result into out. */
static void
grep_live(struct fixture *f, const char *json, struct watch *w, struct tool_job *job)
{
	struct loop *l = loop_new(NULL);
	cJSON *args = cJSON_Parse(json);
	time_t end = time(NULL) + 30;

	f->env.loop = l;
	tool_job_init(job, &tool_grep, &f->env, NULL, NULL);
	job->progress = on_progress;
	job->progress_arg = w;
	tool_grep.start(job, args);
	while ((!job->finished || work_pending()) && time(NULL) < end)
		assert_int_equal(loop_run_once(l, 200, NULL), 0);
	assert_true(job->finished);
	assert_int_equal(work_pending(), 0);
	cJSON_Delete(args);
	work_shutdown();
	loop_free(l);
	f->env.loop = NULL;
}

/* 300 files of matches: the rows reach the screen while the call runs; Esc keeps them. */
static void
test_grep_streams(void **state)
{
	struct fixture *f = *state;
	struct watch w = { 0, 0, 0, BUF_INIT };
	struct tool_job job;
	char name[64];
	int i;

	fixture_mkdir(f, "many");
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "many/f%03d.txt", i);
		fixture_puts(f, name, "a\nneedle here\nb\n");
	}
	grep_live(f, "{\"pattern\":\"needle\",\"path\":\"many\"}", &w, &job);
	assert_false(job.is_error);
	assert_true(w.reports >= 1);
	assert_int_equal(w.before_end, w.reports);
	assert_true(w.first.len > 0);
	/* the first report's rows (the screen keeps the tail of a long report) are rows of the
	 * result, whole and in order; the result is in walk order */
	buf_addch(&w.first, '\0');
	assert_true(w.first.data[w.first.len - 2] == '\n');
	assert_memory_equal(w.first.data, "many/f", 6);
	assert_non_null(strstr(job.out.data, w.first.data));
	assert_memory_equal(job.out.data, "many/f000.txt:2:needle here\nmany/f001.txt:2:", 44);
	tool_job_release(&job);
	buf_reset(&w.first);
	/* cancelled at the first report: the rows so far, then [aborted] */
	w.reports = w.before_end = 0;
	w.cancel = 1;
	grep_live(f, "{\"pattern\":\"needle\",\"path\":\"many\"}", &w, &job);
	assert_true(job.is_error);
	assert_int_equal(w.reports, 1);
	assert_non_null(job.out.data);
	assert_memory_equal(job.out.data, "many/f000.txt:2:needle here\n", 28);
	assert_true(job.out.len >= 9);
	assert_string_equal(job.out.data + job.out.len - 9, "[aborted]");
	assert_null(strstr(job.out.data, "[showing"));
	tool_job_release(&job);
	buf_release(&w.first);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grep_basic, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_grep_literal_and_invalid, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_grep_glob_and_paths, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_grep_big_file, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_grep_required_literal, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_grep_caps, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_find, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_find_cap, setup, fixture_teardown),
		cmocka_unit_test(test_no_repo),
		cmocka_unit_test_setup_teardown(test_grep_streams, setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_tools: the registry (order, lookup, schemas, validation messages,
 * job bookkeeping) and the read, write and ls tools.  Tools run
 * synchronously here (env.loop is NULL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "tools/stale.h"
#include "tool_fixture.h"

extern const struct tool tool_read, tool_write, tool_ls;

/* Validate json against tool `name`; returns the problem line (malloc'd) or NULL. */
static char *
problem(const char *name, const char *json)
{
	const struct tool *t = tool_find(name);
	struct buf p = BUF_INIT;
	cJSON *args = cJSON_Parse(json);
	int rc;

	assert_non_null(t);
	assert_non_null(args);
	rc = tool_validate(t, args, &p);
	cJSON_Delete(args);
	assert_int_equal(rc == 0, p.len == 0);
	if (rc == 0)
		return NULL;
	return buf_detach(&p, NULL);
}

static void
test_registry(void **state)
{
	static const char *order[] = { "read", "write", "edit", "bash", "grep", "find", "ls",
				       "outline", "repo_map", "remember" };
	const struct tool *const *all;
	size_t n, i;
	cJSON *schema;

	(void)state;
	all = tool_all(&n);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		assert_string_equal(all[i]->name, order[i]);
		assert_ptr_equal(tool_find(order[i]), all[i]);
		assert_non_null(all[i]->start);
		assert_true(strlen(all[i]->description) > 40);
		schema = cJSON_Parse(all[i]->schema_json);
		assert_non_null(schema);
		assert_string_equal(cJSON_GetObjectItem(schema, "type")->valuestring, "object");
		cJSON_Delete(schema);
	}
	assert_null(tool_find("nope"));
	assert_null(tool_find(NULL));
	assert_true(tool_find("read")->flags & TOOL_READ_ONLY);
	assert_true(tool_find("edit")->flags & TOOL_MUTATES);
	assert_true(tool_find("write")->flags & TOOL_NEEDS_APPROVAL);
	assert_true(tool_find("outline")->flags & TOOL_READ_ONLY);
}

static void
test_validate(void **state)
{
	char *p;

	(void)state;
	assert_null(problem("read", "{\"path\":\"a\"}"));
	assert_null(problem("read", "{\"path\":\"a\",\"offset\":3,\"limit\":null}"));
	assert_null(problem("edit", "{\"path\":\"a\",\"old_text\":\"x\",\"new_text\":\"\","
				    "\"replace_all\":true}"));
	p = problem("read", "{}");
	assert_string_equal(p, "missing required field \"path\" (string)");
	free(p);
	p = problem("read", "{\"path\":\"a\",\"offset\":\"10\"}");
	assert_string_equal(p, "field \"offset\" must be an integer, got string");
	free(p);
	p = problem("read", "{\"path\":\"a\",\"offset\":1.5}");
	assert_string_equal(p, "field \"offset\" must be an integer, got number");
	free(p);
	p = problem("read", "{\"file\":\"a\"}");
	assert_string_equal(p, "missing required field \"path\" (string); unknown field \"file\"; "
			       "expected fields: path, offset, limit");
	free(p);
	p = problem("read", "{\"path\":null}");
	assert_string_equal(p, "missing required field \"path\" (string)");
	free(p);
	p = problem("edit", "{\"path\":\"a\",\"old_text\":\"x\",\"new_text\":\"y\","
			    "\"replace_all\":\"yes\"}");
	assert_string_equal(p, "field \"replace_all\" must be a boolean, got string");
	free(p);
	p = problem("write", "{\"path\":[1],\"content\":{}}");
	assert_string_equal(p, "field \"path\" must be a string, got array; "
			       "field \"content\" must be a string, got object");
	free(p);
	p = problem("read", "[1,2]");
	assert_string_equal(p, "arguments must be a JSON object");
	free(p);
	p = problem("ls", "\"x\"");
	assert_string_equal(p, "arguments must be a JSON object");
	free(p);
}

static int done_calls;

static void
on_done(struct tool_job *job, void *arg)
{
	(void)job;
	done_calls += *(int *)arg;
}

static void
test_job(void **state)
{
	struct fixture *f = *state;
	struct tool_job job;
	int one = 1;

	done_calls = 0;
	tool_job_init(&job, &tool_read, &f->env, on_done, &one);
	assert_int_equal(job.out.len, 0);
	buf_adds(&job.out, "partial");
	tool_job_fail(&job, "went wrong: %d", 42);
	assert_string_equal(job.out.data, "partial\nwent wrong: 42");
	assert_true(job.is_error);
	tool_job_done(&job);
	assert_int_equal(done_calls, 1);
	tool_job_release(&job);
	tool_job_release(&job);
}

/* Run read and return its output; *err gets is_error. */
static char *
rd(struct fixture *f, const char *json, int *err)
{
	return fixture_out(f, &tool_read, json, err);
}

static void
test_read_basic(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_puts(f, "a.txt", "one\ntwo\r\nthree");
	o = rd(f, "{\"path\":\"a.txt\"}", &err);
	assert_false(err);
	assert_string_equal(o, "     1\tone\n     2\ttwo\n     3\tthree\n");
	free(o);
	o = rd(f, "{\"path\":\"a.txt\",\"offset\":2,\"limit\":1}", &err);
	assert_string_equal(o, "     2\ttwo\n[showing lines 2-2 of 3; call read with offset=3 "
			       "to continue]");
	free(o);
	o = rd(f, "{\"path\":\"a.txt\",\"offset\":0,\"limit\":-4}", &err);
	assert_false(err);
	assert_non_null(strstr(o, "     1\tone\n"));
	free(o);
	o = rd(f, "{\"path\":\"a.txt\",\"offset\":9}", &err);
	assert_true(err);
	assert_string_equal(o, "offset 9 is past the end of a.txt, which has 3 lines; use an "
			       "offset from 1 to 3");
	free(o);
	fixture_puts(f, "empty", "");
	o = rd(f, "{\"path\":\"empty\"}", &err);
	assert_false(err);
	assert_string_equal(o, "empty is empty (0 lines)");
	free(o);
}

static void
test_read_errors(void **state)
{
	struct fixture *f = *state;
	char *o;
	int err;

	fixture_mkdir(f, "dir");
	o = rd(f, "{\"path\":\"dir\"}", &err);
	assert_true(err);
	assert_string_equal(o, "dir is a directory; use ls to list it");
	free(o);
	o = rd(f, "{\"path\":\"missing.c\"}", &err);
	assert_true(err);
	assert_string_equal(o, "missing.c does not exist; use find or ls to locate the file");
	free(o);
	o = rd(f, "{\"path\":\"../etc/passwd\"}", &err);
	assert_true(err);
	assert_non_null(strstr(o, "is outside the workspace"));
	free(o);
	assert_int_equal(mkfifo(fixture_path(f, "fifo"), 0600), 0);
	o = rd(f, "{\"path\":\"fifo\"}", &err);
	assert_true(err);
	assert_string_equal(o, "fifo is not a regular file; not read");
	free(o);
	o = rd(f, "{}", &err);
	assert_true(err);
	free(o);
}

/* Files bash saved under state_dir are readable; other outside paths are not. */
static void
test_read_state_dir(void **state)
{
	struct fixture *f = *state;
	char json[PATH_MAX + 64], *o;
	int err;

	fixture_mkdir(f, "ws");
	fixture_mkdir(f, "state");
	fixture_puts(f, "state/bash-output-1.log", "full output\n");
	fixture_puts(f, "secret.txt", "no\n");
	f->env.root = strdup(fixture_path(f, "ws"));
	f->env.state_dir = strdup(fixture_path(f, "state"));
	snprintf(json, sizeof json, "{\"path\":\"%s/bash-output-1.log\"}", f->env.state_dir);
	o = rd(f, json, &err);
	assert_false(err);
	assert_non_null(strstr(o, "full output"));
	free(o);
	o = rd(f, "{\"path\":\"../secret.txt\"}", &err);
	assert_true(err);
	assert_non_null(strstr(o, "outside the workspace"));
	free(o);
	free((char *)f->env.state_dir);
	free((char *)f->env.root);
	f->env.state_dir = NULL;
	f->env.root = f->root;
}

static void
test_read_truncation(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o, line[64];
	int err, i;

	for (i = 1; i <= 5123; i++)
		buf_addf(&b, "line %d\n", i);
	fixture_write(f, "big.txt", b.data, b.len);
	o = rd(f, "{\"path\":\"big.txt\"}", &err);
	assert_false(err);
	assert_non_null(strstr(o, "  2000\tline 2000\n[showing lines 1-2000 of 5123; call read "
				  "with offset=2001 to continue]"));
	assert_null(strstr(o, "line 2001"));
	free(o);
	o = rd(f, "{\"path\":\"big.txt\",\"offset\":2001,\"limit\":5000}", &err);
	snprintf(line, sizeof line, "  2001\tline 2001\n");
	assert_memory_equal(o, line, strlen(line));
	assert_non_null(strstr(o, "[showing lines 2001-4000 of 5123; at most 2000 lines per "
				  "call; call read with offset=4001 to continue]"));
	free(o);
	o = rd(f, "{\"path\":\"big.txt\",\"offset\":4001}", &err);
	assert_non_null(strstr(o, "  5123\tline 5123\n"));
	assert_null(strstr(o, "[showing"));
	free(o);
	/* 50 KB output cap: 1000 lines of 100 bytes */
	buf_reset(&b);
	for (i = 1; i <= 1000; i++)
		buf_addf(&b, "%099d\n", i);
	fixture_write(f, "wide.txt", b.data, b.len);
	o = rd(f, "{\"path\":\"wide.txt\"}", &err);
	assert_true(strlen(o) <= 50 * 1024 + 200);
	assert_non_null(strstr(o, "[showing lines 1-478 of 1000; output capped at 50 KB; call "
				  "read with offset=479 to continue]"));
	free(o);
	buf_release(&b);
}

static void
test_read_long_line_and_utf8(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	char *o;
	int err, i;

	for (i = 0; i < 1999; i++)
		buf_addch(&b, 'x');
	buf_adds(&b, "\xC3\xA9"); /* a 2-byte char straddling byte 2000 */
	for (i = 0; i < 3000; i++)
		buf_addch(&b, 'y');
	buf_adds(&b, "\nshort \xFF\xFEok\n");
	fixture_write(f, "long.txt", b.data, b.len);
	o = rd(f, "{\"path\":\"long.txt\"}", &err);
	assert_false(err);
	assert_non_null(strstr(o, "xxx [... line cut: 3002 more bytes]\n"));
	assert_null(strstr(o, "yy"));
	assert_non_null(strstr(o, "     2\tshort \xEF\xBF\xBD\xEF\xBF\xBDok\n"));
	free(o);
	buf_release(&b);
}

static void
test_read_binary_and_huge(void **state)
{
	struct fixture *f = *state;
	struct timespec t0, t1;
	char *o;
	int err, fd;

	fixture_write(f, "bin", "ELF\0\1\2\3", 7);
	o = rd(f, "{\"path\":\"bin\"}", &err);
	assert_true(err);
	assert_string_equal(o, "bin is a binary file (7 bytes); not shown");
	free(o);
	/* a 1 GB sparse file: refused by size without being read */
	fd = open(fixture_path(f, "huge"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "text\n", 5), 5);
	assert_int_equal(ftruncate(fd, (off_t)1 << 30), 0);
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	o = rd(f, "{\"path\":\"huge\"}", &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(err);
	assert_string_equal(o, "huge is 1073741824 bytes, over read's 256 MB limit; use grep to "
			       "find what you need in it");
	free(o);
	/* 100 MB sparse: under the cap, refused as binary from the first 8 KB */
	assert_int_equal(truncate(fixture_path(f, "huge"), (off_t)100 << 20), 0);
	o = rd(f, "{\"path\":\"huge\"}", &err);
	assert_string_equal(o, "huge is a binary file (104857600 bytes); not shown");
	free(o);
	/* generous bound: reading 1 GB would take far longer */
	assert_true(t1.tv_sec - t0.tv_sec < 5);
}

static void
test_write(void **state)
{
	struct fixture *f = *state;
	struct tool_job job;
	struct stat st;
	char *s;

	fixture_run(f, &tool_write, "{\"path\":\"sub/dir/new.txt\",\"content\":\"a\\nb\\n\"}", &job);
	assert_false(job.is_error);
	assert_string_equal(job.out.data, "created sub/dir/new.txt (2 lines, 4 bytes)");
	assert_string_equal(job.diff, "--- a/sub/dir/new.txt\n+++ b/sub/dir/new.txt\n"
				      "@@ -0,0 +1,2 @@\n+a\n+b\n");
	tool_job_release(&job);
	assert_int_equal(stat(fixture_path(f, "sub/dir/new.txt"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(chmod(fixture_path(f, "sub/dir/new.txt"), 0700), 0);
	fixture_run(f, &tool_write, "{\"path\":\"sub/dir/new.txt\",\"content\":\"a\\nc\"}", &job);
	assert_string_equal(job.out.data, "overwrote sub/dir/new.txt (2 lines, 3 bytes); +1 -1 lines");
	assert_non_null(strstr(job.diff, "-b\n+c\n\\ No newline at end of file\n"));
	tool_job_release(&job);
	assert_int_equal(stat(fixture_path(f, "sub/dir/new.txt"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	s = fixture_slurp(f, "sub/dir/new.txt", NULL);
	assert_string_equal(s, "a\nc");
	free(s);
	fixture_run(f, &tool_write, "{\"path\":\"sub/dir/new.txt\",\"content\":\"a\\nc\"}", &job);
	assert_string_equal(job.out.data, "sub/dir/new.txt already has this content (2 lines); "
					  "nothing written");
	assert_null(job.diff);
	tool_job_release(&job);
	fixture_run(f, &tool_write, "{\"path\":\"empty\",\"content\":\"\"}", &job);
	assert_string_equal(job.out.data, "created empty (0 lines, 0 bytes)");
	assert_null(job.diff);
	tool_job_release(&job);
	s = fixture_slurp(f, "empty", NULL);
	assert_string_equal(s, "");
	free(s);
	s = fixture_out(f, &tool_write, "{\"path\":\"sub\",\"content\":\"x\"}", &job.is_error);
	assert_true(job.is_error);
	assert_string_equal(s, "sub is a directory; give a file path");
	free(s);
	s = fixture_out(f, &tool_write, "{\"path\":\"/tmp/../x\",\"content\":\"x\"}", &job.is_error);
	assert_true(job.is_error);
	assert_non_null(strstr(s, "outside the workspace"));
	free(s);
	s = fixture_out(f, &tool_write, "{\"path\":\"sub/dir/new.txt/x\",\"content\":\"x\"}",
			&job.is_error);
	assert_true(job.is_error);
	free(s);
	s = fixture_slurp(f, "sub/dir/new.txt", NULL);
	assert_string_equal(s, "a\nc");
	free(s);
}

/* The syntax check after write: a note in warn mode, nothing written in reject mode. */
static void
test_write_syntax(void **state)
{
	struct fixture *f = *state;
	char *s;
	int err;

	s = fixture_out(f, &tool_write, "{\"path\":\"a.c\",\"content\":\"int f(void)\\n{\\n"
			"\\treturn 1;\\n}\\n\"}", &err);
	assert_false(err);
	assert_null(strstr(s, "syntax"));
	free(s);
	s = fixture_out(f, &tool_write, "{\"path\":\"a.c\",\"content\":\"int f(void)\\n{\\n"
			"\\treturn 1\\n}\\n\"}", &err);
	assert_false(err);
	assert_non_null(strstr(s, "\nsyntax check: 1 new error in a.c: line 3: missing \";\""));
	free(s);
	s = fixture_slurp(f, "a.c", NULL);
	assert_string_equal(s, "int f(void)\n{\n\treturn 1\n}\n");
	free(s);
	f->env.syntax_reject = 1;
	s = fixture_out(f, &tool_write, "{\"path\":\"b.py\",\"content\":\"def f(:\\n  pass\\n\"}",
			&err);
	assert_true(err);
	assert_non_null(strstr(s, "b.py not written"));
	free(s);
	assert_null(fixture_slurp(f, "b.py", NULL));
	/* already broken: an unrelated change adds no error and is written */
	s = fixture_out(f, &tool_write, "{\"path\":\"a.c\",\"content\":\"int f(void)\\n{\\n"
			"\\treturn 1\\n}\\nint g;\\n\"}", &err);
	assert_false(err);
	free(s);
	f->env.syntax_reject = 0;
}

static void
test_ls(void **state)
{
	struct fixture *f = *state;
	char *o, name[32];
	int err, i;

	fixture_mkdir(f, "src");
	fixture_puts(f, "b.txt", "12345");
	fixture_puts(f, ".hidden", "");
	assert_int_equal(symlink("b.txt", fixture_path(f, "link")), 0);
	o = fixture_out(f, &tool_ls, "{}", &err);
	assert_false(err);
	assert_string_equal(o, ".hidden  0 bytes\nb.txt  5 bytes\nlink -> b.txt\nsrc/\n");
	free(o);
	o = fixture_out(f, &tool_ls, "{\"path\":\"src\"}", &err);
	assert_string_equal(o, "src is an empty directory");
	free(o);
	o = fixture_out(f, &tool_ls, "{\"path\":\"b.txt\"}", &err);
	assert_string_equal(o, "b.txt  5 bytes\n");
	free(o);
	o = fixture_out(f, &tool_ls, "{\"path\":\"nope\"}", &err);
	assert_true(err);
	assert_string_equal(o, "nope does not exist; use find to search for it");
	free(o);
	o = fixture_out(f, &tool_ls, "{\"path\":\"..\"}", &err);
	assert_true(err);
	free(o);
	for (i = 0; i < 1005; i++) {
		snprintf(name, sizeof name, "src/f%04d", i);
		fixture_puts(f, name, "");
	}
	o = fixture_out(f, &tool_ls, "{\"path\":\"src\"}", &err);
	assert_non_null(strstr(o, "f0999  0 bytes\n[showing 1000 of 1005 entries; use find with "
				  "a pattern to narrow]"));
	free(o);
}

/* Every tool (but bash) finishes, without crashing, on malformed arguments. */
static void
test_bad_args(void **state)
{
	static const char *bad[] = {
		"{}", "{\"path\":5}", "{\"path\":\"\"}", "{\"path\":null,\"pattern\":null}",
		"{\"path\":\".\",\"pattern\":\"[\",\"old_text\":\"\",\"new_text\":[]}",
		"{\"pattern\":\"**/**/{a,{b\",\"glob\":\"[[\",\"literal\":1}",
		"{\"path\":\"../../../../../../../../..\",\"pattern\":\"x\"}",
		"{\"path\":\"a\\u0000b\",\"content\":\"x\",\"offset\":-9e300,\"limit\":1e300}",
		"[]", "\"str\"", "null",
	};
	static const char *names[] = { "read", "write", "edit", "grep", "find", "ls" };
	struct fixture *f = *state;
	struct tool_job job;
	struct buf longp = BUF_INIT;
	size_t i, k;
	cJSON *args;

	fixture_puts(f, "a", "text\n");
	buf_adds(&longp, "{\"path\":\"");
	for (i = 0; i < 5000; i++)
		buf_adds(&longp, "ab/");
	buf_adds(&longp, "\",\"pattern\":\"x\",\"content\":\"\",\"old_text\":\"a\",\"new_text\":\"b\"}");
	for (k = 0; k < sizeof names / sizeof names[0]; k++) {
		for (i = 0; i <= sizeof bad / sizeof bad[0]; i++) {
			args = cJSON_Parse(i < sizeof bad / sizeof bad[0] ? bad[i] : longp.data);
			assert_non_null(args);
			tool_job_init(&job, tool_find(names[k]), &f->env, NULL, NULL);
			job.tool->start(&job, args);
			assert_true(job.finished);
			assert_true(job.out.len > 0 || !strcmp(names[k], "write"));
			tool_job_release(&job);
			cJSON_Delete(args);
		}
	}
	buf_release(&longp);
	assert_null(fixture_slurp(f, "a\nb", NULL));
}

/* With a stale table: read records, write refuses an unread or changed file. */
static void
test_write_stale(void **state)
{
	struct fixture *f = *state;
	int err;
	char *o;

	f->env.stale = tool_stale_new();
	fixture_puts(f, "s.txt", "user text\n");
	o = fixture_out(f, &tool_write, "{\"path\":\"s.txt\",\"content\":\"x\"}", &err);
	assert_true(err);
	assert_string_equal(o, "s.txt has not been read yet; read it before overwriting (so "
			    "you work from its current content)");
	free(o);
	free(fixture_out(f, &tool_read, "{\"path\":\"s.txt\",\"limit\":1}", &err));
	assert_int_equal(tool_stale_count(f->env.stale), 1);
	fixture_puts(f, "s.txt", "user text 2\n");
	o = fixture_out(f, &tool_write, "{\"path\":\"s.txt\",\"content\":\"x\"}", &err);
	assert_true(err);
	assert_non_null(strstr(o, "changed on disk since you last read it"));
	free(o);
	o = fixture_slurp(f, "s.txt", NULL);
	assert_string_equal(o, "user text 2\n");
	free(o);
	free(fixture_out(f, &tool_read, "{\"path\":\"s.txt\"}", &err));
	o = fixture_out(f, &tool_write, "{\"path\":\"s.txt\",\"content\":\"x\"}", &err);
	assert_false(err);
	free(o);
	o = fixture_out(f, &tool_write, "{\"path\":\"s.txt\",\"content\":\"y\"}", &err);
	assert_false(err); /* its own write is known */
	free(o);
	tool_stale_free(f->env.stale);
	f->env.stale = NULL;
}

/* A read in a short context: capped at what the context can take, with the way to the rest. */
static void
test_read_room(void **state)
{
	struct fixture *f = *state;
	struct buf b = BUF_INIT;
	struct tool_job job;
	cJSON *args = cJSON_Parse("{\"path\":\"wide.txt\"}");
	int i;

	for (i = 1; i <= 1000; i++)
		buf_addf(&b, "%099d\n", i);
	fixture_write(f, "wide.txt", b.data, b.len);
	tool_job_init(&job, &tool_read, &f->env, NULL, NULL);
	job.room_bytes = 6000;
	tool_read.start(&job, args);
	assert_true(job.finished && !job.is_error);
	assert_true(job.out.len <= 6000 + 400);
	assert_non_null(strstr(job.out.data, "[showing lines 1-56 of 1000; output capped at 5 KB, "
	    "what the context has room for (about 2000 tokens); read the rest in smaller parts "
	    "with offset and limit; call read with offset=57 to continue]"));
	tool_job_release(&job);
	/* room over 50 KB: the usual cap */
	tool_job_init(&job, &tool_read, &f->env, NULL, NULL);
	job.room_bytes = 1 << 20;
	tool_read.start(&job, args);
	assert_non_null(strstr(job.out.data, "output capped at 50 KB;"));
	tool_job_release(&job);
	cJSON_Delete(args);
	buf_release(&b);
}

/* Header text of one call: describe, then the summary of its result. */
static void
header(const struct tool *t, const char *json, const char *result, const char *want_d,
    const char *want_s)
{
	cJSON *args = cJSON_Parse(json);
	struct buf d = BUF_INIT, sm = BUF_INIT;

	tool_describe(t, args, &d);
	tool_summary(t, args, result, 0, &sm);
	assert_string_equal(d.data ? d.data : "", want_d);
	assert_string_equal(sm.data ? sm.data : "", want_s);
	buf_reset(&sm);
	tool_summary(t, args, result, 1, &sm); /* an error says nothing found */
	assert_int_equal(sm.len, 0);
	buf_release(&d);
	buf_release(&sm);
	cJSON_Delete(args);
}

/* What grep, read, find and ls say in their headers (their own describe and summary). */
static void
test_headers(void **state)
{
	(void)state;
	header(tool_find("grep"), "{\"pattern\":\"main|printf\",\"path\":\"src\",\"glob\":\"*.c\","
	    "\"ignore_case\":true}", "src/a.c:3:main\nsrc/a.c:9:printf\nsrc/b.c:1:main\n",
	    "\"main|printf\" in src *.c -i", "3 hits in 2 files");
	header(tool_find("grep"), "{\"pattern\":\"x\"}", "no matches for \"x\" in .",
	    "\"x\" in .", "no hits");
	header(tool_find("grep"), "{\"pattern\":\"x\"}", "a:1:x\n[showing 200 of 950 matches in 40 "
	    "files; narrow the search with path, glob or a more specific pattern]",
	    "\"x\" in .", "950 hits in 40 files (200 shown)");
	header(tool_find("read"), "{\"path\":\"a.c\",\"offset\":2,\"limit\":5}",
	    "     2\tb\n     3\tc\n[showing lines 2-3 of 9; call read with offset=4 to continue]",
	    "a.c:2+5", "lines 2-3 of 9");
	header(tool_find("read"), "{\"path\":\"a.c\"}", "     1\ta\n     2\tb\n", "a.c", "2 lines");
	header(tool_find("find"), "{\"pattern\":\"*.c\"}", "a.c\nsrc/\nsrc/b.c\n", "\"*.c\" in .",
	    "2 files, 1 dir");
	header(tool_find("ls"), "{}", "a.c  12 bytes\nsrc/\n", ".", "2 entries (1 dir)");
	header(tool_find("ls"), "{\"path\":\"e\"}", "e is an empty directory", "e", "empty");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_validate),
		cmocka_unit_test_setup_teardown(test_job, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_basic, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_state_dir, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_room, fixture_setup, fixture_teardown),
		cmocka_unit_test(test_headers),
		cmocka_unit_test_setup_teardown(test_read_truncation, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_long_line_and_utf8, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_binary_and_huge, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_write, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_write_syntax, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_write_stale, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_ls, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, fixture_setup, fixture_teardown),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_bash: the bash tool end to end on a real loop, in a temp workspace
 * (mkdtemp, removed afterwards).  Each run pumps loop_run_once under a
 * wall-clock cap.  The test process is a child subreaper (Linux) so the
 * "whole group is gone" checks can reap orphaned grandchildren.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "io/loop.h"
#include "testutil.h"
#include "llm/tool.h"

extern const struct tool tool_bash;

struct ctx {
	struct loop *l;
	char dir[PATH_MAX];   /* temp workspace (canonical) */
	char state[PATH_MAX + 32]; /* state_dir below it, not created yet */
	struct tool_env env;
	struct tool_job job;
	int dones;
};

/* Count tool_job_done calls. */
static void
on_done(struct tool_job *job, void *arg)
{
	(void)job;
	(*(int *)arg)++;
}

/* Start bash with JSON arguments; does not wait. */
static void
start(struct ctx *c, const char *json)
{
	cJSON *args = cJSON_Parse(json);

	assert_non_null(args);
	tool_job_init(&c->job, &tool_bash, &c->env, on_done, &c->dones);
	tool_bash.start(&c->job, args);
	cJSON_Delete(args);
}

/* Pump until the job is done or cap_ms passed; elapsed ms. */
static uint64_t
pump(struct ctx *c, int cap_ms)
{
	uint64_t t0 = tu_now_ms();

	while (c->dones == 0 && tu_now_ms() - t0 < (uint64_t)cap_ms)
		assert_int_equal(loop_run_once(c->l, 50, NULL), 0);
	return tu_now_ms() - t0;
}

/* Start, wait, and insist the job finished exactly once. */
static void
run(struct ctx *c, const char *json, int cap_ms)
{
	start(c, json);
	pump(c, cap_ms);
	assert_int_equal(c->dones, 1);
	assert_true(c->job.finished);
	assert_null(c->job.priv);
}

/* nftw callback: remove one entry (depth first). */
static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A temp workspace, a loop and an env pointing at both. */
static int
setup(void **state)
{
	struct ctx *c = calloc(1, sizeof *c);
	char tmpl[] = "/tmp/test_bash.XXXXXX";
	struct err e = ERR_INIT;

	if (!c || !mkdtemp(tmpl) || !realpath(tmpl, c->dir))
		return -1;
	snprintf(c->state, sizeof c->state, "%s/state/sub", c->dir);
	c->l = loop_new(&e);
	c->env.loop = c->l;
	c->env.root = c->dir;
	c->env.state_dir = c->state;
	c->env.bash_timeout_s = 120;
	*state = c;
	return c->l ? 0 : -1;
}

/* Release the job and loop, remove the workspace. */
static int
teardown(void **state)
{
	struct ctx *c = *state;

	tool_job_release(&c->job);
	loop_free(c->l);
	nftw(c->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(c);
	return 0;
}

/* The pid the command wrote as its first line ("echo $$"). */
static pid_t
first_line_pid(const char *s)
{
	pid_t pid = (pid_t)atol(s);

	assert_true(pid > 1);
	tu_group_note(pid);
	return pid;
}

static void
test_exit_code(void **state)
{
	struct ctx *c = *state;

	run(c, "{\"command\":\"echo hi; exit 3\"}", 5000);
	assert_string_equal(c->job.out.data, "hi\nexit code: 3");
	assert_int_equal(c->job.is_error, 0);
}

static void
test_cwd_and_stderr(void **state)
{
	struct ctx *c = *state;
	char want[PATH_MAX + 64];

	run(c, "{\"command\":\"pwd; echo err >&2; printf tail\"}", 5000);
	snprintf(want, sizeof want, "%s\nerr\ntail\nexit code: 0", c->dir);
	assert_string_equal(c->job.out.data, want);
}

static void
test_no_output_and_stdin(void **state)
{
	struct ctx *c = *state;
	uint64_t ms;

	start(c, "{\"command\":\"cat\"}");
	ms = pump(c, 5000);
	assert_int_equal(c->dones, 1);
	assert_true(ms < 3000);
	assert_string_equal(c->job.out.data, "(no output)\nexit code: 0");
}

static void
test_signal(void **state)
{
	struct ctx *c = *state;

	run(c, "{\"command\":\"kill -SEGV $$\"}", 5000);
	assert_string_equal(c->job.out.data, "(no output)\nkilled by signal 11 (SIGSEGV)");
	assert_int_equal(c->job.is_error, 0);
}

static void
test_timeout(void **state)
{
	struct ctx *c = *state;
	uint64_t ms;

	start(c, "{\"command\":\"echo $$; sleep 100 & sleep 100; wait\",\"timeout\":1}");
	ms = pump(c, 8000);
	assert_int_equal(c->dones, 1);
	assert_true(ms < 6000);
	assert_int_equal(c->job.is_error, 1);
	assert_non_null(strstr(c->job.out.data,
			       "\ntimed out after 1 s; the process group was killed"));
	assert_true(tu_group_gone(first_line_pid(c->job.out.data), 3000));
}

static void
test_default_timeout(void **state)
{
	struct ctx *c = *state;

	c->env.bash_timeout_s = 1;
	run(c, "{\"command\":\"exec sleep 100\",\"timeout\":null}", 8000);
	assert_string_equal(c->job.out.data,
			    "(no output)\ntimed out after 1 s; the process group was killed");
}

static void
test_background_holder(void **state)
{
	struct ctx *c = *state;

	run(c, "{\"command\":\"echo $$; sleep 100 & echo started\"}", 8000);
	assert_non_null(strstr(c->job.out.data, "\nstarted\n[the command exited but background"));
	assert_non_null(strstr(c->job.out.data, "\nexit code: 0"));
	assert_int_equal(c->job.is_error, 0);
	assert_true(tu_group_gone(first_line_pid(c->job.out.data), 3000));
}

static void
test_sanitise(void **state)
{
	struct ctx *c = *state;

	run(c, "{\"command\":\"printf 'a\\\\000b\\\\377c\\\\303\\\\251\\\\355\\\\240\\\\200\\\\n'\"}",
	    5000);
	assert_string_equal(c->job.out.data, "a\xef\xbf\xbd"
					     "b\xef\xbf\xbd"
					     "c\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n"
					     "exit code: 0");
}

/* The 37-byte line that `yes` repeats in the big-output tests. */
#define LINE "0123456789abcdefghijklmnopqrstuvwxyz\n"

/* Check a saved file: size, and that it is the repeated LINE. */
static void
check_saved(const char *path, size_t size)
{
	FILE *f = fopen(path, "rb");
	char line[64];
	size_t n = 0, got;
	struct stat st;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	assert_int_equal((size_t)st.st_size, size);
	assert_int_equal(st.st_mode & 0777, 0600);
	while ((got = fread(line, 1, 37, f)) > 0) {
		assert_memory_equal(line, LINE, got);
		n += got;
	}
	assert_int_equal(n, size);
	fclose(f);
}

/* The path named in the note "... full output saved to PATH — read ...". */
static void
saved_path(const char *out, char *path, size_t cap)
{
	const char *p = strstr(out, "saved to "), *q;

	assert_non_null(p);
	p += 9;
	q = strstr(p, " \xe2\x80\x94 read it with the read tool]\n");
	assert_non_null(q);
	assert_true((size_t)(q - p) < cap);
	memcpy(path, p, (size_t)(q - p));
	path[q - p] = '\0';
}

static void
test_large_output(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];
	const char *text, *foot;
	struct stat st;

	run(c, "{\"command\":\"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 5000000\"}",
	    20000);
	assert_int_equal(c->job.is_error, 0);
	assert_true(strncmp(c->job.out.data,
			    "[output was 5000000 bytes; showing the last 50 KB; full output saved to ",
			    72) == 0);
	saved_path(c->job.out.data, path, sizeof path);
	assert_true(strncmp(path, c->state, strlen(c->state)) == 0);
	check_saved(path, 5000000);
	assert_int_equal(stat(c->state, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* the tail: whole lines from a line start, up to the last partial line */
	text = strchr(c->job.out.data, '\n') + 1;
	foot = strstr(text, "\nexit code: 0");
	assert_non_null(foot);
	assert_string_equal(foot, "\nexit code: 0");
	assert_true(foot - text <= 50 * 1024 && foot - text > 50 * 1024 - 40);
	assert_true(strncmp(text, LINE, 37) == 0);
	assert_true(strncmp(foot - 6, "\n01234", 6) == 0);
	assert_true(memcmp(foot - 42, LINE, 37) == 0);
}

static void
test_boundary(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX];

	/* exactly 50 KB: shown whole, nothing saved */
	run(c, "{\"command\":\"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 51200\"}", 5000);
	assert_true(c->job.out.data[0] == '0');
	assert_int_equal(c->job.out.len, 51200 + strlen("\nexit code: 0"));
	assert_int_equal(access(c->state, F_OK), -1);
	tool_job_release(&c->job);
	c->dones = 0;
	/* one byte more: the note, and the file holds every byte */
	run(c, "{\"command\":\"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 51201\"}", 5000);
	assert_non_null(strstr(c->job.out.data, "[output was 51201 bytes;"));
	saved_path(c->job.out.data, path, sizeof path);
	check_saved(path, 51201);
}

static void
test_tmpdir_fallback(void **state)
{
	struct ctx *c = *state;
	char path[PATH_MAX], *old = getenv("TMPDIR");

	old = old ? strdup(old) : NULL;
	setenv("TMPDIR", c->dir, 1);
	c->env.state_dir = NULL;
	run(c, "{\"command\":\"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 100000\"}", 5000);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	saved_path(c->job.out.data, path, sizeof path);
	assert_true(strncmp(path, c->dir, strlen(c->dir)) == 0);
	check_saved(path, 100000);
}

static void
test_unsavable(void **state)
{
	struct ctx *c = *state;
	char file[PATH_MAX + 16];
	FILE *f;

	/* state_dir below a regular file cannot be created */
	snprintf(file, sizeof file, "%s/plain", c->dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(c->state, sizeof c->state, "%s/plain/state", c->dir);
	run(c, "{\"command\":\"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 60000\"}", 5000);
	assert_non_null(strstr(c->job.out.data, "the full output could not be saved: create "));
	assert_non_null(strstr(c->job.out.data, "\nexit code: 0"));
	assert_int_equal(c->job.is_error, 0);
}

static void
test_cancel(void **state)
{
	struct ctx *c = *state;
	char pidfile[PATH_MAX + 16], json[PATH_MAX + 128];
	uint64_t t0 = tu_now_ms();
	FILE *f;
	long pid = 0;

	snprintf(pidfile, sizeof pidfile, "%s/pid", c->dir);
	snprintf(json, sizeof json,
		 "{\"command\":\"echo partial; echo $$ > pid.tmp && mv pid.tmp pid; sleep 100\"}");
	start(c, json);
	while (tu_now_ms() - t0 < 5000 && access(pidfile, F_OK) < 0)
		assert_int_equal(loop_run_once(c->l, 20, NULL), 0);
	t0 = tu_now_ms();
	while (tu_now_ms() - t0 < 200)
		assert_int_equal(loop_run_once(c->l, 20, NULL), 0);
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	tu_group_note((pid_t)pid);
	assert_int_equal(c->dones, 0);
	tool_bash.cancel(&c->job);
	assert_int_equal(c->dones, 1);
	assert_int_equal(c->job.is_error, 1);
	assert_string_equal(c->job.out.data, "partial\n[aborted]");
	assert_true(tu_group_gone((pid_t)pid, 3000));
	tool_bash.cancel(&c->job); /* after finishing: ignored */
	assert_int_equal(c->dones, 1);
	pump(c, 300); /* late SIGCHLD passes are harmless */
}

static void
test_bad_args(void **state)
{
	struct ctx *c = *state;
	const char *bad[] = { "{}", "{\"command\":\"  \"}", "{\"command\":5}" };
	size_t i;

	for (i = 0; i < 3; i++) {
		c->dones = 0;
		tool_job_release(&c->job);
		run(c, bad[i], 1000);
		assert_int_equal(c->job.is_error, 1);
		assert_non_null(strstr(c->job.out.data, "command"));
	}
}

static void
test_spawn_failure(void **state)
{
	struct ctx *c = *state;

	c->env.root = "/nonexistent/hearth-root";
	run(c, "{\"command\":\"true\"}", 1000);
	assert_int_equal(c->job.is_error, 1);
	assert_non_null(strstr(c->job.out.data, "could not start the command"));
	assert_non_null(strstr(c->job.out.data, "/nonexistent/hearth-root"));
}

static void
test_table_entry(void **state)
{
	cJSON *schema = cJSON_Parse(tool_bash.schema_json);

	(void)state;
	assert_non_null(schema);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "timeout"));
	cJSON_Delete(schema);
	assert_string_equal(tool_bash.name, "bash");
	assert_int_equal(tool_bash.flags, TOOL_MUTATES | TOOL_NEEDS_APPROVAL | TOOL_SHELL | TOOL_CORE);
	assert_non_null(tool_bash.cancel);
	assert_non_null(strstr(tool_bash.description, "workspace root"));
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_exit_code),        T(test_cwd_and_stderr), T(test_no_output_and_stdin),
		T(test_signal),           T(test_timeout),        T(test_default_timeout),
		T(test_background_holder), T(test_sanitise),      T(test_large_output),
		T(test_boundary),         T(test_tmpdir_fallback), T(test_unsavable),
		T(test_cancel),           T(test_bad_args),       T(test_spawn_failure),
		T(test_table_entry),
	};
	int rc;

	tu_subreaper();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_groups_kill();
	return rc;
}

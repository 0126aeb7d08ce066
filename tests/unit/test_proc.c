/*
 * test_proc: children on a real loop.  Each test pumps loop_run_once in a
 * loop capped by wall-clock time, so a hang fails instead of stalling.
 * The test process makes itself a child subreaper (Linux) so orphaned
 * grandchildren come back to it and can be reaped, which lets "the whole
 * group is gone" be checked with kill(-pgid, 0) == ESRCH even where init
 * does not reap.  Every group ever spawned is SIGKILLed at exit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "io/loop.h"
#include "io/proc.h"
#include "testutil.h"

struct front_run {
	struct proc *p;
	struct buf out;
	int exits;
	int status;
	int free_on_exit;  /* proc_free from inside on_exit */
	int kill_on_output; /* proc_kill from inside on_output */
	int *count;        /* shared completion counter (many) */
};

/* Collect output; optionally kill from inside the callback. */
static void
on_output(struct proc *p, const char *d, size_t n, void *arg)
{
	struct front_run *r = arg;

	buf_add(&r->out, d, n);
	if (r->kill_on_output)
		proc_kill(p);
}

/* Count completions; optionally free the proc from inside the callback. */
static void
on_exit_cb(struct proc *p, void *arg)
{
	struct front_run *r = arg;

	r->exits++;
	r->status = proc_status(p);
	if (r->count)
		(*r->count)++;
	if (r->free_on_exit) {
		proc_free(p);
		r->p = NULL;
	}
}

/* Pump the loop until *flag >= want or cap_ms passed; returns elapsed ms. */
static uint64_t
pump(struct loop *l, const int *flag, int want, int cap_ms)
{
	uint64_t t0 = tu_now_ms();

	while (*flag < want && tu_now_ms() - t0 < (uint64_t)cap_ms)
		assert_int_equal(loop_run_once(l, 50, NULL), 0);
	return tu_now_ms() - t0;
}

/* Spawn `sh -c script` into r (asserting success). */
static void
spawn_sh(struct loop *l, struct front_run *r, const char *script, uint64_t timeout_ms)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct proc_spec s = { argv, NULL, NULL, timeout_ms, on_output, on_exit_cb, r, 0, 0, 0, NULL, NULL, 0 };
	struct err e = ERR_INIT;

	buf_init(&r->out, 0);
	r->p = proc_spawn(l, &s, &e);
	if (!r->p)
		fail_msg("spawn failed: %s", e.msg);
	tu_group_note(proc_pid(r->p));
}

/* A fresh loop per test. */
static int
setup(void **state)
{
	struct err e = ERR_INIT;

	*state = loop_new(&e);
	return *state ? 0 : -1;
}

/* Free the loop (every proc is freed by then). */
static int
teardown(void **state)
{
	loop_free(*state);
	return 0;
}

/* Release a run's proc and output. */
static void
finish(struct front_run *r)
{
	proc_free(r->p);
	buf_release(&r->out);
}

static void
test_output_and_exit(void **state)
{
	struct front_run r = { 0 };

	spawn_sh(*state, &r, "printf 'hello\\nworld\\n'; exit 3", 0);
	assert_true(proc_running(r.p));
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.exits, 1);
	assert_string_equal(r.out.data, "hello\nworld\n");
	assert_int_equal(r.status, 3);
	assert_int_equal(proc_signal(r.p), 0);
	assert_false(proc_running(r.p));
	assert_false(proc_killed(r.p) || proc_timed_out(r.p) || proc_lingered(r.p));
	/* more passes never call on_exit again */
	pump(*state, &r.exits, 2, 200);
	assert_int_equal(r.exits, 1);
	finish(&r);
}

static void
test_signal_status(void **state)
{
	struct front_run r = { 0 };

	spawn_sh(*state, &r, "kill -9 $$", 0);
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.status, 128 + SIGKILL);
	assert_int_equal(proc_signal(r.p), SIGKILL);
	finish(&r);
}

static void
test_stderr_merged(void **state)
{
	struct front_run r = { 0 };

	spawn_sh(*state, &r, "echo one; echo two >&2; echo three", 0);
	pump(*state, &r.exits, 1, 5000);
	assert_string_equal(r.out.data, "one\ntwo\nthree\n");
	finish(&r);
}

static void
test_stdin_devnull(void **state)
{
	struct front_run r = { 0 };
	int saved = dup(0), fds[2];
	uint64_t ms;

	/* our stdin becomes a pipe nobody writes to: inheriting it would block */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(dup2(fds[0], 0), 0);
	spawn_sh(*state, &r, "cat; read x; echo \"read=$?\"", 10000);
	dup2(saved, 0);
	close(saved);
	ms = pump(*state, &r.exits, 1, 5000);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(r.exits, 1);
	assert_true(ms < 3000);
	assert_string_equal(r.out.data, "read=1\n");
	assert_false(proc_timed_out(r.p));
	finish(&r);
}

static void
test_timeout_kills_group(void **state)
{
	struct front_run r = { 0 };
	pid_t pgid;

	spawn_sh(*state, &r, "sleep 100 & sleep 100; wait", 300);
	pgid = proc_pid(r.p);
	pump(*state, &r.exits, 1, 8000);
	assert_int_equal(r.exits, 1);
	assert_true(proc_timed_out(r.p));
	assert_true(proc_killed(r.p));
	assert_int_equal(r.status, 128 + SIGTERM);
	assert_true(tu_group_gone(pgid, 3000));
	finish(&r);
}

static void
test_grandchild_holds_pipe(void **state)
{
	struct front_run r = { 0 };
	uint64_t ms;
	pid_t pgid;

	spawn_sh(*state, &r, "sleep 100 & echo started", 0);
	pgid = proc_pid(r.p);
	ms = pump(*state, &r.exits, 1, 8000);
	assert_int_equal(r.exits, 1);
	assert_true(ms < 5000);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out.data, "started\n");
	assert_true(proc_lingered(r.p));
	assert_false(proc_timed_out(r.p));
	assert_true(tu_group_gone(pgid, 3000));
	finish(&r);
}

static void
test_kill(void **state)
{
	struct front_run r = { 0 };

	spawn_sh(*state, &r, "echo go; exec sleep 100", 0);
	proc_kill(r.p);
	proc_kill(r.p); /* twice is harmless */
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.exits, 1);
	assert_true(proc_killed(r.p));
	assert_false(proc_timed_out(r.p));
	assert_int_equal(r.status, 128 + SIGTERM);
	assert_true(tu_group_gone(proc_pid(r.p), 3000));
	proc_kill(r.p); /* after completion: no-op */
	finish(&r);
}

static void
test_kill_escalates(void **state)
{
	struct front_run r = { 0 };

	/* ignored signals stay ignored across exec, so sleep ignores TERM too */
	spawn_sh(*state, &r, "trap '' TERM; echo ready; sleep 100", 0);
	while (!strstr(r.out.data, "ready") && r.exits == 0)
		assert_int_equal(loop_run_once(*state, 50, NULL), 0);
	proc_kill(r.p);
	pump(*state, &r.exits, 1, 4000 + PROC_KILL_GRACE_MS);
	assert_int_equal(r.exits, 1);
	assert_int_equal(r.status, 128 + SIGKILL);
	assert_true(tu_group_gone(proc_pid(r.p), 3000));
	finish(&r);
}

static void
test_kill_from_output(void **state)
{
	struct front_run r = { 0 };

	r.kill_on_output = 1;
	spawn_sh(*state, &r, "echo x; exec sleep 100", 0);
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.exits, 1);
	assert_true(proc_killed(r.p));
	finish(&r);
}

static void
test_free_running(void **state)
{
	struct front_run r = { 0 };
	int st, zero = 0;
	pid_t pid;

	spawn_sh(*state, &r, "exec sleep 100", 0);
	pid = proc_pid(r.p);
	proc_free(r.p);
	r.p = NULL;
	pump(*state, &zero, 1, 300); /* the SIGCHLD pass reaps the orphan */
	assert_int_equal(waitpid(pid, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_true(tu_group_gone(pid, 3000));
	assert_int_equal(r.exits, 0);
	finish(&r);
}

static void
test_order_eof_first(void **state)
{
	struct front_run r = { 0 };

	spawn_sh(*state, &r, "echo x; exec >/dev/null 2>&1; sleep 0.3; exit 4", 0);
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.exits, 1);
	assert_int_equal(r.status, 4);
	assert_string_equal(r.out.data, "x\n");
	assert_false(proc_lingered(r.p));
	pump(*state, &r.exits, 2, 300);
	assert_int_equal(r.exits, 1);
	finish(&r);
}

static void
test_order_exit_first(void **state)
{
	struct front_run r = { 0 };
	uint64_t t0 = tu_now_ms();
	int seen_reaped_running = 0;

	spawn_sh(*state, &r, "(sleep 0.3; echo late) & exit 5", 0);
	while (r.exits == 0 && tu_now_ms() - t0 < 5000) {
		assert_int_equal(loop_run_once(*state, 20, NULL), 0);
		if (r.exits == 0 && proc_status(r.p) == 5)
			seen_reaped_running = 1;
	}
	assert_int_equal(r.exits, 1);
	assert_true(seen_reaped_running);
	assert_int_equal(r.status, 5);
	assert_string_equal(r.out.data, "late\n");
	assert_false(proc_lingered(r.p));
	pump(*state, &r.exits, 2, 300);
	assert_int_equal(r.exits, 1);
	finish(&r);
}

static void
test_many(void **state)
{
	struct front_run r[24];
	char script[64];
	int i, done = 0;

	memset(r, 0, sizeof r);
	for (i = 0; i < 24; i++) {
		snprintf(script, sizeof script, "echo n%d; exit %d", i, i % 7);
		r[i].count = &done;
		r[i].free_on_exit = i % 2;
		spawn_sh(*state, &r[i], script, 10000);
	}
	pump(*state, &done, 24, 10000);
	assert_int_equal(done, 24);
	for (i = 0; i < 24; i++) {
		snprintf(script, sizeof script, "n%d\n", i);
		assert_int_equal(r[i].exits, 1);
		assert_int_equal(r[i].status, i % 7);
		assert_string_equal(r[i].out.data, script);
		assert_true(i % 2 == 0 || r[i].p == NULL);
		finish(&r[i]);
	}
}

static void
test_large_output(void **state)
{
	struct front_run r = { 0 };
	size_t i, nonzero = 0;

	spawn_sh(*state, &r, "head -c 5000000 /dev/zero", 0);
	pump(*state, &r.exits, 1, 10000);
	assert_int_equal(r.exits, 1);
	assert_int_equal(r.out.len, 5000000);
	for (i = 0; i < r.out.len; i++)
		nonzero += r.out.data[i] != 0;
	assert_int_equal(nonzero, 0);
	finish(&r);
}

static void
test_spawn_failures(void **state)
{
	const char *bad[] = { "/nonexistent/hearth-no-such-cmd", NULL };
	const char *sh[] = { "/bin/sh", "-c", "true", NULL };
	const char *empty[] = { NULL };
	struct proc_spec s = { bad, NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, 0 };
	struct err e = ERR_INIT;
	int fds = tu_open_fds();

	assert_null(proc_spawn(*state, &s, &e));
	assert_non_null(strstr(e.msg, "hearth-no-such-cmd"));
	assert_non_null(strstr(e.msg, "No such file"));
	err_clear(&e);
	s.argv = sh;
	s.cwd = "/nonexistent/dir";
	assert_null(proc_spawn(*state, &s, &e));
	assert_non_null(strstr(e.msg, "cannot enter /nonexistent/dir"));
	err_clear(&e);
	s.argv = empty;
	assert_null(proc_spawn(*state, &s, &e));
	assert_true(err_isset(&e));
	assert_int_equal(tu_open_fds(), fds); /* no descriptor leaked by the failures */
}

static void
test_env_cwd_fds(void **state)
{
	char tmpl[] = "/tmp/test_proc.XXXXXX", want[256];
	const char *env[] = { "HEARTH_T=abc", "HEARTH_T=def", "HOME", NULL };
	const char *argv[] = { "/bin/sh", "-c",
			       "echo \"$HEARTH_T/${HOME-unset}\"; pwd;"
			       "[ -e /proc/self/fd/100 ] && echo leaked || echo clean",
			       NULL };
	struct front_run r = { 0 };
	struct proc_spec s = { argv, tmpl, env, 5000, on_output, on_exit_cb, &r, 0, 0, 0, NULL, NULL, 0 };
	struct err e = ERR_INIT;
	char *real;

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(dup2(0, 100), 100); /* not close-on-exec on purpose */
	buf_init(&r.out, 0);
	r.p = proc_spawn(*state, &s, &e);
	assert_non_null(r.p);
	pump(*state, &r.exits, 1, 5000);
	close(100);
	real = realpath(tmpl, NULL);
	snprintf(want, sizeof want, "def/unset\n%s\nclean\n", real);
	assert_string_equal(r.out.data, want);
	free(real);
	rmdir(tmpl);
	finish(&r);
}

static void
test_other_children_untouched(void **state)
{
	struct front_run r = { 0 };
	pid_t mine = fork();
	int st = 0;

	if (mine == 0)
		_exit(42);
	spawn_sh(*state, &r, "sleep 0.2", 0);
	pump(*state, &r.exits, 1, 5000);
	assert_int_equal(r.exits, 1);
	assert_int_equal(waitpid(mine, &st, 0), mine);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 42);
	finish(&r);
}

/* Whether pid is a live process (a zombie is dead, waiting to be reaped). */
static int
alive_not_zombie(long pid)
{
	char path[64], line[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return kill((pid_t)pid, 0) == 0;
	n = fread(line, 1, sizeof line - 1, f);
	fclose(f);
	line[n] = '\0';
	rp = strrchr(line, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/*
 * The guardian: a stand-in for hearth (a forked child) starts it, spawns
 * `sh -c 'sleep 1000 & ...; wait'` and is SIGKILLed; the backgrounded sleep,
 * a grandchild no PR_SET_PDEATHSIG reaches, must be gone within 5 s.
 */
static void
test_guard_ends_children_of_killed_parent(void **state)
{
	int pfd[2], st;
	pid_t fake;
	long sleeper;
	char buf[32];
	ssize_t n;
	int i;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	fake = fork();
	assert_true(fake >= 0);
	if (fake == 0) {
		const char *argv[] = { "/bin/sh", "-c", "sleep 1000 & echo $! >&2; wait", NULL };
		struct proc_spec spec;
		struct err e = ERR_INIT;
		struct loop *l;

		close(pfd[0]);
		if (proc_guard_start(&e) < 0 || !(l = loop_new(&e)))
			_exit(2);
		memset(&spec, 0, sizeof spec);
		spec.argv = argv;
		spec.stderr_fd = pfd[1];
		if (!proc_spawn(l, &spec, &e))
			_exit(3);
		close(pfd[1]);
		for (i = 0; i < 600; i++) /* at most a minute, then give up on the test */
			loop_run_once(l, 100, NULL);
		_exit(4);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof buf - 1);
	close(pfd[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	sleeper = atol(buf);
	assert_true(sleeper > 0);
	assert_true(alive_not_zombie(sleeper));
	kill(fake, SIGKILL);
	while (waitpid(fake, &st, 0) < 0 && errno == EINTR)
		;
	for (i = 0; i < 50 && alive_not_zombie(sleeper); i++)
		usleep(100 * 1000);
	if (alive_not_zombie(sleeper)) {
		kill((pid_t)sleeper, SIGKILL);
		fail_msg("the backgrounded sleep %ld outlived its SIGKILLed parent by 5 s", sleeper);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_output_and_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stderr_merged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin_devnull, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_kills_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grandchild_holds_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_escalates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill_from_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_eof_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_exit_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawn_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_cwd_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_children_untouched, setup, teardown),
		cmocka_unit_test(test_guard_ends_children_of_killed_parent),
	};
	int rc;

	tu_subreaper();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_groups_kill();
	return rc;
}

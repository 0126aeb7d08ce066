/*
 * test_front_checkpoint: quitting while the turn's end snapshot still
 * waits on the worker (front_checkpoint_settle gives up).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "front/checkpoint.h"
#include "io/loop.h"
#include "io/work.h"
#include "llm/tool.h"
#include "repo/repo.h"

/* A job that holds the worker until a byte comes down the pipe. */
static void
hold_run(void *arg)
{
	char c;

	(void)!read(*(int *)arg, &c, 1);
}

static void
hold_done(void *arg, int ran)
{
	(void)arg, (void)ran;
}

/*
 * The end snapshot is still queued when quitting: settle waits its bound,
 * gives up (0), and leaves nothing of its own behind (its strings freed:
 * under make asan a leak fails the run) while the repository stays the
 * worker's; the job then runs and writes nothing.
 */
static void
test_settle_gives_up(void **state)
{
	char w[TU_PATH], st[TU_PATH], *dir = tu_worktree(w, st);
	struct err e = ERR_INIT;
	struct loop *l = loop_new(&e);
	struct tool_env env;
	struct front_checkpoint cp;
	struct repo *r;
	uint64_t t0;
	int fd[2], settled;

	(void)state;
	assert_non_null(l);
	assert_int_equal(pipe(fd), 0);
	tu_write(w, "a.txt", "one\n");
	memset(&env, 0, sizeof env);
	env.loop = l;
	env.root = w;
	front_checkpoint_init(&cp, w, st, NULL, &env);
	r = repo_open(w, "s1", st, &e);
	assert_non_null(r);
	cp.repo = env.repo = r;
	assert_int_equal(work_submit(l, hold_run, hold_done, &fd[0], &e), 0);
	front_checkpoint_turn_end(&cp); /* queued behind the held job */
	t0 = tu_now_ms();
	settled = front_checkpoint_settle(&cp);
	assert_int_equal(settled, 0);
	assert_true(tu_now_ms() - t0 >= FRONT_CHECKPOINT_QUIT_MS - 100);
	assert_null(cp.root);
	assert_null(cp.state_dir);
	assert_null(cp.jobs);
	assert_null(cp.repo);
	assert_null(env.repo);
	assert_int_equal(write(fd[1], "x", 1), 1); /* the worker goes on: the snapshot writes nothing */
	work_shutdown();
	repo_close(r);
	loop_free(l);
	close(fd[0]);
	close(fd[1]);
	tu_rmrf(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settle_gives_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

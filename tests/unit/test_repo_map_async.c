/*
 * test_repo_map_async: the repo_map tool through a real loop — start()
 * returns before the map is done (built on the worker thread, io/work.h), the
 * loop finishes the call with the same text as a build in place; a cancel
 * while the map is being built ends the call at once and drops the result
 * when the worker is done (the job's memory already freed: ASan and
 * valgrind watch); work_shutdown with a call running (it gives up), queued
 * (not run) or cancelled; the map after an interrupted build is whole; an
 * unwalkable root fails through the same path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <time.h>

#include "io/loop.h"
#include "repomap/repomap.h"
#include "tool_fixture.h"
#include "io/work.h"

#define NFILES 60
#define NFUNCS 20

extern const struct tool tool_repo_map;

static char g_state[] = "/tmp/hearth-rmastate.XXXXXX"; /* XDG_STATE_HOME of a test */

struct ctx {
	struct fixture *f;
	struct loop *l;
	int ndone;
};

/* Generate NFILES C files of NFUNCS functions, each calling one of the previous file. */
static void
gen_tree(struct fixture *f)
{
	char rel[64];
	int i, k;

	for (i = 0; i < NFILES; i++) {
		struct buf b = BUF_INIT;

		for (k = 0; k < NFUNCS; k++)
			buf_addf(&b, "int\nf%d_%d(int x)\n{\n\treturn x + %s%d_%d(x - 1);\n}\n\n", i, k,
				 i ? "f" : "0 * 0 + (int)sizeof ", i ? i - 1 : 0, k);
		snprintf(rel, sizeof rel, "m%02d.c", i);
		fixture_write(f, rel, b.data, b.len);
		buf_release(&b);
	}
}

static int
setup(void **state)
{
	struct ctx *c = calloc(1, sizeof *c);

	assert_non_null(c);
	memcpy(g_state + strlen(g_state) - 6, "XXXXXX", 6);
	assert_non_null(mkdtemp(g_state));
	setenv("XDG_STATE_HOME", g_state, 1); /* never changed while a job runs */
	c->f = fixture_new();
	gen_tree(c->f);
	c->l = loop_new(NULL);
	assert_non_null(c->l);
	c->f->env.loop = c->l;
	repomap_cache_free();
	*state = c;
	return 0;
}

static int
teardown(void **state)
{
	struct ctx *c = *state;

	work_shutdown();
	loop_free(c->l);
	repomap_cache_free(); /* after the worker is gone */
	fixture_free(c->f);
	fixture_rmrf(g_state);
	free(c);
	return 0;
}

static void
on_done(struct tool_job *job, void *arg)
{
	struct ctx *c = arg;

	(void)job;
	c->ndone++;
}

/* A heap job (so a use after release shows), started on args. */
static struct tool_job *
start(struct ctx *c, const char *json)
{
	struct tool_job *job = malloc(sizeof *job);
	cJSON *args = cJSON_Parse(json);

	assert_non_null(job);
	assert_non_null(args);
	tool_job_init(job, &tool_repo_map, &c->f->env, on_done, c);
	tool_repo_map.start(job, args);
	cJSON_Delete(args);
	return job;
}

/* Run the loop until nothing is outstanding (at most 60 s: valgrind is slow). */
static void
drain(struct ctx *c)
{
	time_t end = time(NULL) + 60;

	while (work_pending() && time(NULL) < end)
		assert_int_equal(loop_run_once(c->l, 500, NULL), 0);
	assert_int_equal(work_pending(), 0);
}

static void
job_free(struct tool_job *job)
{
	tool_job_release(job);
	free(job);
}

static void
test_async_same_output(void **state)
{
	struct ctx *c = *state;
	struct tool_job *job = start(c, "{\"budget\":3000}");
	struct buf want = BUF_INIT;
	struct err e = ERR_INIT;
	char *sync_out;
	int err = -1;

	assert_false(job->finished); /* start() returned before the map was built */
	assert_int_equal(c->ndone, 0);
	assert_int_equal(work_pending(), 1);
	drain(c);
	assert_true(job->finished);
	assert_int_equal(c->ndone, 1);
	assert_int_equal(job->is_error, 0);
	/* the same text as a build in place (the worker is idle now) */
	buf_adds(&want, "Repository map: files whose definitions other files use most come "
		 "first; each line is a definition's line number and signature.\n");
	assert_int_equal(repomap_build(c->f->root, 3000, &want, &e), 0);
	assert_string_equal(job->out.data, want.data);
	assert_non_null(strstr(want.data, "m00.c:\n"));
	/* and as the tool without a loop */
	c->f->env.loop = NULL;
	sync_out = fixture_out(c->f, &tool_repo_map, "{\"budget\":3000}", &err);
	c->f->env.loop = c->l;
	assert_int_equal(err, 0);
	assert_string_equal(sync_out, want.data);
	free(sync_out);
	buf_release(&want);
	job_free(job);
}

static void
test_cancel_mid_job(void **state)
{
	struct ctx *c = *state;
	struct tool_job *a = start(c, "{}"), *b = start(c, "{}");

	/* a is being built (cold cache), b is queued: both cancelled at once */
	tool_repo_map.cancel(a);
	tool_repo_map.cancel(b);
	assert_true(a->finished && b->finished);
	assert_int_equal(c->ndone, 2);
	assert_true(a->is_error && b->is_error);
	assert_non_null(strstr(a->out.data, "[aborted]"));
	tool_repo_map.cancel(a); /* again: no-op */
	assert_int_equal(c->ndone, 2);
	job_free(a); /* the agent releases its calls; the worker's result must not land here */
	job_free(b);
	assert_int_equal(work_pending(), 2);
	drain(c);
	assert_int_equal(c->ndone, 2);
	/* the cache the cancelled jobs filled is sound */
	a = start(c, "{}");
	drain(c);
	assert_int_equal(a->is_error, 0);
	assert_non_null(strstr(a->out.data, "m00.c:\n"));
	job_free(a);
}

/* What a call ended by work_shutdown may say: its map, not run, or interrupted. */
static void
shut_outcome(const struct tool_job *job)
{
	if (!job->is_error)
		assert_non_null(strstr(job->out.data, "m00.c:\n"));
	else if (!strstr(job->out.data, "repo_map: not run: hearth is shutting down"))
		assert_non_null(strstr(job->out.data, "repo_map: build the repository map: "
				       "interrupted, hearth is shutting down"));
}

static void
test_shutdown(void **state)
{
	struct ctx *c = *state;
	struct tool_job *a = start(c, "{}"), *b = start(c, "{}"), *x = start(c, "{}");

	tool_repo_map.cancel(x); /* cancelled and then shut down: dropped */
	work_shutdown(); /* a gives up (unless done already), b is not run (same) */
	assert_int_equal(work_pending(), 0);
	assert_true(a->finished && b->finished);
	assert_int_equal(c->ndone, 3);
	shut_outcome(a);
	shut_outcome(b);
	job_free(a);
	job_free(b);
	job_free(x);
	/* the next call starts a new worker */
	a = start(c, "{}");
	drain(c);
	assert_int_equal(a->is_error, 0);
	job_free(a);
}

/* A worker job that builds the map once work_shutdown waits for it. */
struct late {
	const char *root;
	struct buf out;
	struct err e;
	int rc, ran;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_running; /* late_run has started (under g_mu) */

static void
late_run(void *arg)
{
	struct late *j = arg;
	struct timespec ts = { 0, 1000 * 1000 };
	time_t end = time(NULL) + 20;

	pthread_mutex_lock(&g_mu);
	g_running = 1;
	pthread_cond_broadcast(&g_cv);
	pthread_mutex_unlock(&g_mu);
	while (!work_stopping() && time(NULL) < end)
		nanosleep(&ts, NULL);
	j->rc = repomap_build(j->root, 2000, &j->out, &j->e);
}

static void
late_done(void *arg, int ran)
{
	((struct late *)arg)->ran = ran;
}

static void
test_interrupted_build(void **state)
{
	struct ctx *c = *state;
	struct late j = { c->f->root, BUF_INIT, ERR_INIT, 0, 0 };
	struct repomap_stats before, after;
	struct tool_job *job = start(c, "{}");

	drain(c); /* a whole map: the cache holds every file */
	repomap_stats(&before);
	assert_int_equal(before.cached, NFILES);
	fixture_puts(c->f, "new.c", "int brand_new(void) { return 0; }\n");
	g_running = 0;
	assert_int_equal(work_submit(c->l, late_run, late_done, &j, NULL), 0);
	pthread_mutex_lock(&g_mu);
	while (!g_running)
		pthread_cond_wait(&g_cv, &g_mu);
	pthread_mutex_unlock(&g_mu);
	work_shutdown();
	assert_int_equal(j.ran, 1);
	assert_int_equal(j.rc, -1);
	assert_string_equal(j.e.msg, "build the repository map: interrupted, hearth is shutting down");
	assert_int_equal(j.out.len, 0);
	repomap_stats(&after);
	assert_int_equal(after.cached, NFILES); /* neither pruned nor added to */
	assert_int_equal(after.misses, before.misses);
	buf_release(&j.out);
	job_free(job);
	/* the next build is whole */
	job = start(c, "{\"budget\":16000}");
	drain(c);
	assert_non_null(strstr(job->out.data, "brand_new"));
	job_free(job);
}

static void
test_bad_root(void **state)
{
	struct ctx *c = *state;
	struct tool_job *job;

	c->f->env.root = "/nonexistent/hearth-root";
	job = start(c, "{}");
	c->f->env.root = c->f->root; /* the job keeps its own copy */
	assert_false(job->finished);
	drain(c);
	assert_int_equal(job->is_error, 1);
	assert_non_null(strstr(job->out.data, "repo_map: "));
	job_free(job);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_async_same_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_mid_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shutdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

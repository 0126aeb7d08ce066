/*
 * test_work: the worker thread — run() on the worker and done() on the
 * loop thread, both in submission order for many jobs; a done() that
 * submits again; no loop: in place; shutdown with queued jobs (the running
 * one sees work_stopping and ends, the queued ones are delivered unrun, in
 * order); a submit
 * after shutdown starts a new thread; another loop's submit is refused while
 * jobs are outstanding; a loop may be freed once its jobs are delivered;
 * work_progress: progress() on the loop thread while run() still runs
 * (run waits for it), again before done() for a last call, never without
 * a loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/loop.h"
#include "io/work.h"

#define MANY 500

struct rec {
	int index;
	int run_seq, done_seq;   /* order seen by run() and by done(); -1 = not yet */
	int ran, ndone;
	pthread_t run_thread, done_thread;
	struct loop *resubmit;   /* done() submits one more job on this loop */
	struct rec *next_rec;
};

static int g_run_seq, g_done_seq; /* run(): worker only; done(): loop thread only */
static pthread_mutex_t g_gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;
static int g_gate_entered;

static void
run_rec(void *arg)
{
	struct rec *r = arg;

	r->run_seq = g_run_seq++;
	r->run_thread = pthread_self();
}

static void
done_rec(void *arg, int ran)
{
	struct rec *r = arg;

	r->done_seq = g_done_seq++;
	r->ran = ran;
	r->ndone++;
	r->done_thread = pthread_self();
	if (r->resubmit && r->next_rec)
		assert_int_equal(work_submit(r->resubmit, run_rec, done_rec, r->next_rec, NULL), 0);
}

/* A run() that ends when work_shutdown waits for it (at most 20 s). */
static void
run_until_stopping(void *arg)
{
	struct timespec ts = { 0, 1000 * 1000 };
	time_t end = time(NULL) + 20;

	pthread_mutex_lock(&g_gate_mu);
	g_gate_entered = 1;
	pthread_cond_broadcast(&g_gate_cv);
	pthread_mutex_unlock(&g_gate_mu);
	while (!work_stopping() && time(NULL) < end)
		nanosleep(&ts, NULL);
	run_rec(arg);
}

static struct rec *
recs_new(int n)
{
	struct rec *r = calloc((size_t)n, sizeof *r);
	int i;

	assert_non_null(r);
	for (i = 0; i < n; i++) {
		r[i].index = i;
		r[i].run_seq = r[i].done_seq = -1;
	}
	g_run_seq = g_done_seq = 0;
	return r;
}

/* Run the loop until n jobs are delivered (at most 20 s). */
static void
drain(struct loop *l, int n)
{
	time_t end = time(NULL) + 20;

	while (g_done_seq < n && time(NULL) < end)
		assert_int_equal(loop_run_once(l, 500, NULL), 0);
	assert_int_equal(g_done_seq, n);
}

static void
test_order_threads(void **state)
{
	struct loop *l = loop_new(NULL);
	struct rec *r = recs_new(MANY);
	pthread_t me = pthread_self();
	int i;

	(void)state;
	for (i = 0; i < MANY; i++)
		assert_int_equal(work_submit(l, run_rec, done_rec, &r[i], NULL), 0);
	assert_int_equal(work_pending(), MANY);
	assert_int_equal(g_done_seq, 0); /* done() only from the loop */
	drain(l, MANY);
	assert_int_equal(work_pending(), 0);
	for (i = 0; i < MANY; i++) {
		assert_int_equal(r[i].run_seq, i);
		assert_int_equal(r[i].done_seq, i);
		assert_int_equal(r[i].ndone, 1);
		assert_int_equal(r[i].ran, 1);
		assert_false(pthread_equal(r[i].run_thread, me));
		assert_true(pthread_equal(r[i].done_thread, me));
		assert_true(pthread_equal(r[i].run_thread, r[0].run_thread)); /* one worker */
	}
	loop_free(l); /* nothing outstanding: the loop no longer watches the pipe */
	work_shutdown();
	work_shutdown(); /* again: no-op */
	free(r);
}

static void
test_resubmit_from_done(void **state)
{
	struct loop *l = loop_new(NULL);
	struct rec *r = recs_new(10);
	int i;

	(void)state;
	for (i = 0; i < 9; i++) {
		r[i].resubmit = l;
		r[i].next_rec = &r[i + 1];
	}
	assert_int_equal(work_submit(l, run_rec, done_rec, &r[0], NULL), 0);
	drain(l, 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(r[i].run_seq, i);
	assert_int_equal(work_pending(), 0);
	work_shutdown();
	loop_free(l);
	free(r);
}

static void
test_no_loop_in_place(void **state)
{
	struct loop *l = loop_new(NULL);
	struct rec *r = recs_new(3);

	(void)state;
	/* before any thread exists */
	assert_int_equal(work_submit(NULL, run_rec, done_rec, &r[0], NULL), 0);
	assert_int_equal(r[0].ndone, 1);
	assert_true(pthread_equal(r[0].run_thread, pthread_self()));
	/* with a queued job: waits for the worker to be idle, then runs here */
	assert_int_equal(work_submit(l, run_rec, done_rec, &r[1], NULL), 0);
	assert_int_equal(work_submit(NULL, run_rec, done_rec, &r[2], NULL), 0);
	assert_int_equal(r[2].ndone, 1);
	assert_int_equal(r[1].run_seq, 1); /* the queued job ran first */
	assert_int_equal(r[2].run_seq, 2);
	assert_true(pthread_equal(r[2].run_thread, pthread_self()));
	assert_int_equal(work_pending(), 1); /* r[1]'s done() still waits for the loop */
	drain(l, 3);
	work_shutdown();
	loop_free(l);
	free(r);
}

static void
test_shutdown_queued(void **state)
{
	struct loop *l = loop_new(NULL);
	struct rec *r = recs_new(6);
	time_t t0;
	int i;

	(void)state;
	g_gate_entered = 0;
	assert_int_equal(work_submit(l, run_until_stopping, done_rec, &r[0], NULL), 0);
	for (i = 1; i < 6; i++)
		assert_int_equal(work_submit(l, run_rec, done_rec, &r[i], NULL), 0);
	pthread_mutex_lock(&g_gate_mu);
	while (!g_gate_entered) /* the worker is inside the first job */
		pthread_cond_wait(&g_gate_cv, &g_gate_mu);
	pthread_mutex_unlock(&g_gate_mu);
	assert_int_equal(work_stopping(), 0); /* not stopping (and not the worker) */
	t0 = time(NULL);
	work_shutdown(); /* the first job sees work_stopping and ends; the rest are not run */
	assert_true(time(NULL) - t0 < 15);
	assert_int_equal(work_pending(), 0);
	for (i = 0; i < 6; i++) {
		assert_int_equal(r[i].ndone, 1);
		assert_int_equal(r[i].done_seq, i);
		assert_int_equal(r[i].ran, i == 0);
		assert_int_equal(r[i].run_seq, i == 0 ? 0 : -1);
		assert_true(pthread_equal(r[i].done_thread, pthread_self()));
	}
	assert_int_equal(work_stopping(), 0);
	/* a submit after shutdown starts a new worker */
	g_done_seq = 0;
	assert_int_equal(work_submit(l, run_rec, done_rec, &r[5], NULL), 0);
	drain(l, 1);
	assert_int_equal(r[5].ran, 1);
	assert_int_equal(r[5].ndone, 2);
	work_shutdown();
	loop_free(l);
	free(r);
}

static void
test_other_loop(void **state)
{
	struct loop *a = loop_new(NULL), *b = loop_new(NULL);
	struct rec *r = recs_new(3);
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(work_submit(a, run_rec, done_rec, &r[0], NULL), 0);
	assert_int_equal(work_submit(b, run_rec, done_rec, &r[1], &e), -1);
	assert_non_null(strstr(e.msg, "another event loop"));
	assert_int_equal(r[1].ndone, 0);
	drain(a, 1);
	loop_free(a); /* delivered: a may go, the worker stays */
	assert_int_equal(work_submit(b, run_rec, done_rec, &r[2], NULL), 0);
	drain(b, 2);
	assert_int_equal(r[2].ran, 1);
	work_shutdown();
	loop_free(b);
	free(r);
}

/* A job that reports: run() asks twice, waiting for the loop's progress() in between. */
struct prog {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int seen;          /* progress() calls (loop thread), under mu */
	int waited;        /* run() saw the first progress() while still running */
	int at_done;       /* progress() calls seen when done() ran */
	int done;
	int leaving;       /* run() made its last call (under mu) */
	pthread_t prog_thread;
};

static void
prog_run(void *arg)
{
	struct prog *p = arg;
	struct timespec ts;

	work_progress();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 20;
	pthread_mutex_lock(&p->mu);
	while (p->seen < 1 && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0)
		;
	p->waited = p->seen >= 1;
	pthread_mutex_unlock(&p->mu);
	work_progress(); /* the last one: reported before done() */
	pthread_mutex_lock(&p->mu);
	p->leaving = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void
prog_progress(void *arg)
{
	struct prog *p = arg;

	struct timespec ts, nap = { 0, 100 * 1000 * 1000 };
	int first;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 20;
	pthread_mutex_lock(&p->mu);
	first = p->seen++ == 0;
	p->prog_thread = pthread_self();
	pthread_cond_broadcast(&p->cv);
	/* the first report holds the loop until run() is (nearly surely) over:
	 * the last report must then come with the finished job */
	while (first && !p->leaving && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0)
		;
	pthread_mutex_unlock(&p->mu);
	if (first)
		nanosleep(&nap, NULL);
}

static void
prog_done(void *arg, int ran)
{
	struct prog *p = arg;

	assert_int_equal(ran, 1);
	pthread_mutex_lock(&p->mu);
	p->at_done = p->seen;
	p->done = 1;
	pthread_mutex_unlock(&p->mu);
}

static void
test_progress(void **state)
{
	struct loop *l = loop_new(NULL);
	struct prog p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0 };
	time_t end = time(NULL) + 30;

	(void)state;
	assert_int_equal(work_submit_progress(l, prog_run, prog_progress, prog_done, &p, NULL), 0);
	while (!p.done && time(NULL) < end)
		assert_int_equal(loop_run_once(l, 500, NULL), 0);
	assert_true(p.done);
	assert_true(p.waited);          /* the first report came while run() ran */
	assert_int_equal(p.at_done, 2); /* the last one before done() */
	assert_true(pthread_equal(p.prog_thread, pthread_self()));
	/* no loop: in place, no report */
	memset(&p, 0, sizeof p);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	p.seen = 1; /* run() does not wait */
	p.leaving = 1;
	assert_int_equal(work_submit_progress(NULL, prog_run, prog_progress, prog_done, &p, NULL), 0);
	assert_true(p.done);
	assert_int_equal(p.at_done, 1);
	work_shutdown();
	loop_free(l);
}

/* work_wait_idle: 0 while a job runs past the time, 1 once it is over. */
static void
test_wait_idle(void **state)
{
	struct loop *l = loop_new(NULL);
	struct prog p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0 };
	time_t t0, end = time(NULL) + 30;

	(void)state;
	assert_int_equal(work_wait_idle(10), 1); /* no thread */
	/* prog_run waits (up to 20 s) for a progress report the loop is not running to give */
	assert_int_equal(work_submit_progress(l, prog_run, prog_progress, prog_done, &p, NULL), 0);
	t0 = time(NULL);
	assert_int_equal(work_wait_idle(200), 0);
	assert_true(time(NULL) - t0 < 10);
	while (!p.done && time(NULL) < end)
		assert_int_equal(loop_run_once(l, 500, NULL), 0);
	assert_true(p.done);
	assert_int_equal(work_wait_idle(1000), 1);
	work_shutdown();
	loop_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_threads),
		cmocka_unit_test(test_resubmit_from_done),
		cmocka_unit_test(test_no_loop_in_place),
		cmocka_unit_test(test_shutdown_queued),
		cmocka_unit_test(test_other_loop),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_wait_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_loop: fd watches, timers (with a fake clock), signals, hooks, re-entrancy. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/loop.h"

static uint64_t fake_now;

static uint64_t
fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

struct counts {
	int fired[8];
	int order[8], norder;
	long ids[8];
	struct loop *l;
};

static void
on_timer(struct loop *l, long id, void *arg)
{
	struct counts *c = arg;
	int i;

	(void)l;
	for (i = 0; i < 8; i++)
		if (c->ids[i] == id) {
			c->fired[i]++;
			c->order[c->norder++] = i;
		}
}

static void
test_timers_fake_clock(void **state)
{
	struct loop *l = loop_new(NULL);
	struct counts c;

	(void)state;
	memset(&c, 0, sizeof c);
	fake_now = 1000;
	loop_set_clock(l, fake_clock, NULL);
	c.ids[0] = loop_timer_add(l, 50, on_timer, &c);
	c.ids[1] = loop_timer_add(l, 10, on_timer, &c);
	c.ids[2] = loop_timer_add(l, 30, on_timer, &c);
	loop_timer_del(l, c.ids[2]);
	loop_run_once(l, 0, NULL);
	assert_int_equal(c.norder, 0);
	fake_now += 10;
	loop_run_once(l, 0, NULL);
	assert_int_equal(c.fired[1], 1);
	assert_int_equal(c.fired[0], 0);
	fake_now += 100;
	loop_run_once(l, 0, NULL);
	assert_int_equal(c.fired[0], 1);
	assert_int_equal(c.fired[2], 0);
	loop_run_once(l, 0, NULL);
	assert_int_equal(c.fired[0], 1); /* one-shot */
	loop_free(l);
}

static void
on_pipe(struct loop *l, int fd, int events, void *arg)
{
	char b[16];
	int *n = arg;

	assert_true(events & LOOP_READ);
	if (read(fd, b, sizeof b) > 0)
		(*n)++;
	loop_unwatch(l, fd); /* removing yourself inside the callback is allowed */
}

static void
test_fd_watch(void **state)
{
	struct loop *l = loop_new(NULL);
	int p[2], n = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	loop_watch(l, p[0], LOOP_READ, on_pipe, &n);
	loop_run_once(l, 0, NULL);
	assert_int_equal(n, 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	loop_run_once(l, 100, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(write(p[1], "y", 1), 1);
	loop_run_once(l, 0, NULL);
	assert_int_equal(n, 1); /* unwatched */
	close(p[0]);
	close(p[1]);
	loop_free(l);
}

static void
on_sig(struct loop *l, int signo, void *arg)
{
	(void)l;
	*(int *)arg = signo;
}

static void
test_signal_through_pipe(void **state)
{
	struct loop *l = loop_new(NULL);
	int got = 0, i;

	(void)state;
	assert_int_equal(loop_signal(l, SIGUSR1, on_sig, &got, NULL), 0);
	raise(SIGUSR1);
	assert_int_equal(got, 0); /* delivered on the loop, not in the handler */
	for (i = 0; i < 10 && !got; i++)
		loop_run_once(l, 50, NULL);
	assert_int_equal(got, SIGUSR1);
	loop_free(l); /* restores the default disposition */
}

static void
stop_hook(struct loop *l, void *arg)
{
	int *n = arg;

	if (++*n == 3)
		loop_stop(l);
}

static void
tick(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_timer_add(l, 0, tick, NULL);
}

static void
test_before_sleep_and_stop(void **state)
{
	struct loop *l = loop_new(NULL);
	int n = 0;

	(void)state;
	loop_set_before_sleep(l, stop_hook, &n);
	loop_timer_add(l, 0, tick, NULL); /* keeps the loop busy forever */
	assert_int_equal(loop_run(l, NULL), 0);
	assert_int_equal(n, 3);
	assert_true(loop_stopped(l));
	loop_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_fake_clock),
		cmocka_unit_test(test_fd_watch),
		cmocka_unit_test(test_signal_through_pipe),
		cmocka_unit_test(test_before_sleep_and_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_keep: base/keep, one object per thread kept between uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/keep.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *dropped[8];
static int ndropped;

static void
drop(void *obj)
{
	pthread_mutex_lock(&mu);
	if (ndropped < 8)
		dropped[ndropped] = obj;
	ndropped++;
	pthread_mutex_unlock(&mu);
}

static struct keep k = KEEP_INIT(drop);
static int a, b, c; /* the objects: their addresses */

/* Taken, given back, taken again; a second one given while one is kept is dropped. */
static void
test_take_give(void **state)
{
	(void)state;
	ndropped = 0;
	assert_null(keep_take(&k));
	keep_give(&k, &a);
	assert_int_equal(ndropped, 0);
	assert_ptr_equal(keep_take(&k), &a);
	assert_null(keep_take(&k)); /* the caller has it now */
	keep_give(&k, &a);
	keep_give(&k, &b); /* a nested use's object: this thread keeps one already */
	assert_int_equal(ndropped, 1);
	assert_ptr_equal(dropped[0], &b);
	assert_ptr_equal(keep_take(&k), &a);
}

static void *
other_thread(void *arg)
{
	void **got = arg;

	*got = keep_take(&k); /* not the main thread's */
	keep_give(&k, &c);
	return NULL;
}

/* Each thread keeps its own; a thread's is dropped when it exits. */
static void
test_threads(void **state)
{
	pthread_t th;
	void *got = &a;

	(void)state;
	ndropped = 0;
	keep_give(&k, &a);
	assert_int_equal(pthread_create(&th, NULL, other_thread, &got), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_null(got);
	assert_int_equal(ndropped, 1);
	assert_ptr_equal(dropped[0], &c);
	assert_ptr_equal(keep_take(&k), &a); /* the main thread's is still there */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_give),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

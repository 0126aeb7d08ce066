/*
 * base/keep: one object per thread, kept between uses.  For what is made
 * for every small job and costs as much to make as the job (a tree-sitter
 * parser, a query cursor, per file of a repository map).
 *
 * A struct keep is static, made with KEEP_INIT(drop): its pthread key is
 * created on first use (under a lock; any thread).  keep_take hands the
 * calling thread's kept object to the caller (the keep then holds none
 * for this thread), or NULL: the caller makes a new one.  keep_give hands
 * it back: kept for this thread's next keep_take, or dropped (drop(obj))
 * when the thread already keeps one (a nested use) or the key could not
 * be made.  When a thread exits, its kept object is dropped (the key's
 * destructor); the main thread's stays reachable until the process ends
 * (its keys are roots for valgrind and LeakSanitizer: no leak reported).
 * The caller resets whatever state the object carries before it gives it
 * back or after it takes it.
 */
#ifndef HEARTH_BASE_KEEP_H
#define HEARTH_BASE_KEEP_H

#include <pthread.h>
#include <stdatomic.h>

struct keep {
	void (*drop)(void *obj);
	atomic_int made;     /* 0 not yet, 1 key made, -1 could not be made */
	pthread_key_t key;
};

#define KEEP_INIT(drop_fn) { (drop_fn), 0, 0 }

/* This thread's kept object, now the caller's; NULL when none is kept. */
void *keep_take(struct keep *k);
/* Keep obj (not NULL) for this thread's next keep_take, or drop it. */
void keep_give(struct keep *k, void *obj);

#endif

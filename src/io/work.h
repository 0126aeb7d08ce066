/*
 * io/work: the one worker thread of design.md §5, for CPU work that would
 * stall the event loop (the repository map's tree-sitter parse: 1-2 s on a
 * cold 2,000-file tree).
 *
 * A job is (run, done, arg).  run(arg) executes on the worker thread, jobs
 * one at a time in submission order; done(arg, ran) is then called on the
 * loop thread, from the loop's watch of the result pipe, in the same
 * order.  The thread and the pipe are made on the first submit; the pipe
 * is watched by the submitting loop only while jobs are outstanding, so a
 * loop with no outstanding job may be freed.
 *
 * Threading contract:
 *  - work_submit and work_shutdown are called on the loop thread (the
 *    thread that runs the loop's callbacks), never from run().
 *  - run() may touch only what arg owns and state no other thread touches
 *    while the job is queued or running: the loop thread must not read or
 *    write arg's fields from submit until done() is called.  Module-level
 *    state run() uses (repomap's cache, repomap_extract's compiled queries) must
 *    be used only from jobs, or only while no job is queued or running.
 *  - run() must not call loop_*, log_*, or any front-end code; it reports
 *    through arg, and done() does the rest on the loop thread.
 *  - done() owns arg again (frees it); it may submit new jobs.
 *  - Jobs cannot be interrupted: to cancel, the owner marks arg so that
 *    done() drops the result (the job still runs to its end).
 */
#ifndef HEARTH_IO_WORK_H
#define HEARTH_IO_WORK_H

#include "base/err.h"

struct loop;

/* On the worker thread: the job's work. */
typedef void (*work_run_fn)(void *arg);
/* On the loop thread: ran = 1 after run(arg); 0 when work_shutdown dropped the job unrun. */
typedef void (*work_done_fn)(void *arg, int ran);

/*
 * Queue a job; 0, or -1 + e when the thread or the pipe cannot be made or
 * the outstanding jobs belong to another loop (the job is not queued: the
 * caller may run it in place).  l == NULL (unit tests, synchronous
 * callers): waits until the worker is idle, then calls run(arg) and
 * done(arg, 1) on the caller's thread before returning 0, so run() never
 * overlaps another job.  After work_shutdown a submit starts a new thread.
 */
int work_submit(struct loop *l, work_run_fn run, work_done_fn done, void *arg, struct err *e);

/*
 * A job that reports as it goes: like work_submit, and progress(arg) is
 * called on the loop thread after run() calls work_progress (at least once
 * after each call; several calls may be seen as one), and before done()
 * when run() called it last.  progress may run while run() still runs: it
 * may touch only the state of arg that both share under a lock of their
 * own (the rest of the threading contract holds).  Without a loop (l ==
 * NULL) work_progress is a no-op and progress is not called.
 */
typedef void (*work_progress_fn)(void *arg);
int work_submit_progress(struct loop *l, work_run_fn run, work_progress_fn progress,
			 work_done_fn done, void *arg, struct err *e);
/* From run() on the worker thread: ask for the job's progress() on the loop thread. */
void work_progress(void);

/*
 * Stop the worker: the running job (if any) finishes (work_stopping lets it
 * end early), jobs still queued are not run; then every outstanding job's done() is called here, in order
 * (ran = 0 for the unrun ones; a done() that submits meanwhile has its job
 * run in place), the thread is joined and the pipe closed.
 * Call it before freeing the loop that has outstanding jobs, and before
 * freeing module state jobs use.  No-op when no thread runs.
 */
void work_shutdown(void);

/*
 * For a long run(): 1 when work_shutdown is waiting for it, so it may end
 * early (its done() still gets ran = 1); 0 otherwise and off the worker.
 */
int work_stopping(void);

/*
 * Wait at most ms milliseconds for the worker to have no job queued or
 * running (their done() still comes from the loop or work_shutdown): 1
 * when it is idle, 0 when the time ran out (loop thread).
 */
int work_wait_idle(int ms);

/* Jobs submitted whose done() has not been called yet (loop thread). */
unsigned work_pending(void);

#endif

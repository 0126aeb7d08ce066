/*
 * io/work: one worker thread, a job queue and a result pipe (see io/work.h).
 *
 * Data: the module state `w`.  Under w.mu (shared with the worker):
 *  - todo: jobs queued, not started (FIFO, head first);
 *  - busy: the worker is inside a run();
 *  - finished: jobs whose run() returned, done() not yet called (FIFO);
 *  - notified: a byte was written to the pipe since the loop last took
 *    `finished`, so the worker writes at most one byte per batch (the pipe
 *    never fills; a stale byte only costs one empty wake-up);
 *  - stop: work_shutdown asked the worker to exit after its current job;
 *  - running: the job inside run(), and each job's `news` flag
 *    (work_progress was called since its progress() last ran).
 * The worker thread's own `current` (thread-local) is the job it runs, so
 * work_progress from anywhere else is a no-op.
 * Loop thread only: started (the thread and pipe exist), closing
 * (work_shutdown is delivering: submits run in place), pending (jobs
 * submitted whose done() is not yet called) and loop (the loop watching
 * pipe[0]; non-NULL exactly while pending > 0).
 *
 * Jobs complete in submission order because there is one worker and both
 * lists are FIFO; work_shutdown appends the unrun `todo` after `finished`,
 * so done() order is submission order there too.
 */
#include "io/work.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/loop.h"
#include "base/xmalloc.h"

struct job {
	work_run_fn run;
	work_progress_fn progress; /* NULL: none */
	work_done_fn done;
	void *arg;
	int ran;
	int news; /* under w.mu: work_progress called, progress() not yet */
	struct job *next;
};

static _Thread_local struct job *current; /* the worker thread's job in run() */

struct fifo {
	struct job *head, *tail;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t wake; /* worker: todo non-empty or stop */
	pthread_cond_t idle; /* synchronous submit: todo empty and not busy */
	struct fifo todo, finished;
	struct job *running;
	int busy, notified, stop;
	/* loop thread only */
	int started, closing;
	pthread_t thread;
	int pipe[2];
	unsigned pending;
	struct loop *loop;
} w = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
	.pipe = { -1, -1 },
};

/* Append j to q. */
static void
fifo_push(struct fifo *q, struct job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

/* Remove and return the whole of q (a NULL-terminated list). */
static struct job *
fifo_take(struct fifo *q)
{
	struct job *j = q->head;

	q->head = q->tail = NULL;
	return j;
}

/* The worker: run queued jobs one by one until asked to stop. */
static void *
worker(void *unused)
{
	struct job *j;

	(void)unused;
	pthread_mutex_lock(&w.mu);
	for (;;) {
		while (!w.todo.head && !w.stop)
			pthread_cond_wait(&w.wake, &w.mu);
		if (w.stop)
			break;
		j = w.todo.head;
		w.todo.head = j->next;
		if (!w.todo.head)
			w.todo.tail = NULL;
		w.busy = 1;
		w.running = j;
		pthread_mutex_unlock(&w.mu);
		current = j;
		j->run(j->arg);
		current = NULL;
		pthread_mutex_lock(&w.mu);
		w.busy = 0;
		w.running = NULL;
		j->ran = 1;
		fifo_push(&w.finished, j);
		if (!w.notified) {
			w.notified = 1;
			/* non-blocking; EAGAIN means a byte is already there */
			(void)!write(w.pipe[1], "", 1);
		}
		if (!w.todo.head)
			pthread_cond_broadcast(&w.idle);
	}
	pthread_mutex_unlock(&w.mu);
	return NULL;
}

/* Call a job's progress() when it has news (loop thread; the flag is read under w.mu). */
static void
report(struct job *j)
{
	int news;

	if (!j->progress)
		return;
	pthread_mutex_lock(&w.mu);
	news = j->news;
	j->news = 0;
	pthread_mutex_unlock(&w.mu);
	if (news)
		j->progress(j->arg);
}

/* Call done() of each job of list, in order (its last progress() first), and free them. */
static void
deliver(struct job *list)
{
	struct job *j;

	while ((j = list) != NULL) {
		list = j->next;
		report(j);
		if (--w.pending == 0 && w.loop) {
			loop_unwatch(w.loop, w.pipe[0]);
			w.loop = NULL;
		}
		j->done(j->arg, j->ran);
		free(j);
	}
}

/* The result pipe is readable: drain it and deliver the finished jobs. */
static void
on_result(struct loop *l, int fd, int events, void *arg)
{
	char sink[64];
	struct job *list, *run;

	(void)l, (void)events, (void)arg;
	while (read(fd, sink, sizeof sink) > 0)
		;
	pthread_mutex_lock(&w.mu);
	list = fifo_take(&w.finished);
	run = w.running;
	w.notified = 0;
	pthread_mutex_unlock(&w.mu);
	deliver(list);
	/* the running job is freed only here, after it is in `finished` */
	if (run)
		report(run);
}

/* Make fd non-blocking and close-on-exec; 0 or -1. */
static int
fd_setup(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Make the pipe and the thread (signals blocked in it: they belong to the loop). */
static int
start(struct err *e)
{
	sigset_t all, old;
	int rc;

	if (pipe(w.pipe) < 0)
		return err_errno(e, "start the worker thread: make its result pipe");
	if (fd_setup(w.pipe[0]) < 0 || fd_setup(w.pipe[1]) < 0) {
		err_errno(e, "start the worker thread: set up its result pipe");
		goto fail;
	}
	w.stop = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w.thread, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		err_errno(e, "start the worker thread");
		goto fail;
	}
	w.started = 1;
	return 0;
fail:
	close(w.pipe[0]);
	close(w.pipe[1]);
	w.pipe[0] = w.pipe[1] = -1;
	return -1;
}

/* l == NULL: wait for the worker to be idle, then run the job here. */
static int
run_here(work_run_fn run, work_done_fn done, void *arg)
{
	if (w.started && !w.closing) {
		pthread_mutex_lock(&w.mu);
		while (w.todo.head || w.busy)
			pthread_cond_wait(&w.idle, &w.mu);
		pthread_mutex_unlock(&w.mu);
	}
	run(arg);
	done(arg, 1);
	return 0;
}

/* See io/work.h. */
int
work_submit(struct loop *l, work_run_fn run, work_done_fn done, void *arg, struct err *e)
{
	return work_submit_progress(l, run, NULL, done, arg, e);
}

/* See io/work.h. */
void
work_progress(void)
{
	if (!current)
		return;
	pthread_mutex_lock(&w.mu);
	current->news = 1;
	if (!w.notified) {
		w.notified = 1;
		(void)!write(w.pipe[1], "", 1);
	}
	pthread_mutex_unlock(&w.mu);
}

/* See io/work.h. */
int
work_submit_progress(struct loop *l, work_run_fn run, work_progress_fn progress,
		     work_done_fn done, void *arg, struct err *e)
{
	struct job *j;

	if (!l || w.closing)
		return run_here(run, done, arg);
	if (w.pending && w.loop != l)
		return err_set(e, "queue background work: the worker is busy with another "
			       "event loop's jobs; run it in place");
	if (!w.started && start(e) < 0)
		return -1;
	j = xcalloc(1, sizeof *j);
	j->run = run;
	j->progress = progress;
	j->done = done;
	j->arg = arg;
	if (w.pending++ == 0) {
		w.loop = l;
		loop_watch(l, w.pipe[0], LOOP_READ, on_result, NULL);
	}
	pthread_mutex_lock(&w.mu);
	fifo_push(&w.todo, j);
	pthread_cond_signal(&w.wake);
	pthread_mutex_unlock(&w.mu);
	return 0;
}

/* See io/work.h. */
void
work_shutdown(void)
{
	struct job *list, *t;

	if (!w.started)
		return;
	pthread_mutex_lock(&w.mu);
	w.stop = 1;
	pthread_cond_signal(&w.wake);
	pthread_mutex_unlock(&w.mu);
	pthread_join(w.thread, NULL);
	/* the worker is gone: no lock needed from here */
	w.stop = 0;
	w.closing = 1;
	list = fifo_take(&w.finished);
	for (t = list; t && t->next; t = t->next)
		;
	if (t)
		t->next = fifo_take(&w.todo);
	else
		list = fifo_take(&w.todo);
	deliver(list); /* a done() that submits again has its job run in place */
	close(w.pipe[0]);
	close(w.pipe[1]);
	w.pipe[0] = w.pipe[1] = -1;
	w.notified = w.started = w.closing = 0;
}

/* See io/work.h. */
int
work_stopping(void)
{
	int stop;

	pthread_mutex_lock(&w.mu);
	stop = w.stop && w.busy;
	pthread_mutex_unlock(&w.mu);
	return stop;
}

/* See io/work.h. */
int
work_wait_idle(int ms)
{
	struct timespec until;
	int idle;

	if (!w.started)
		return 1;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w.mu);
	while ((w.todo.head || w.busy) && pthread_cond_timedwait(&w.idle, &w.mu, &until) == 0)
		;
	idle = !w.todo.head && !w.busy;
	pthread_mutex_unlock(&w.mu);
	return idle;
}

/* See io/work.h. */
unsigned
work_pending(void)
{
	return w.pending;
}

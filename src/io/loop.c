/*
 * io/loop: poll(2) event loop.
 *
 * Data: an array of fd watches (compacted lazily: removed entries get
 * fd = -1 and are swept after dispatch so callbacks can unwatch safely),
 * an unsorted array of timers (there are only ever a handful), and the
 * self-pipe whose read end is watched like any fd.  Signal handlers only
 * write the signal number into the pipe; dispatch happens on the loop.
 * Only one loop per process owns signals (the pipe fd is global because a
 * signal handler cannot find a loop any other way).
 */
#include "io/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/xmalloc.h"

#define LOOP_NSIG 65

struct loop_watch {
	int fd;
	int events;
	loop_fd_fn fn;
	void *arg;
};

struct loop_timer {
	long id;
	uint64_t when;
	loop_timer_fn fn;
	void *arg;
};

struct loop_sig {
	loop_signal_fn fn;
	void *arg;
	int installed;
	struct sigaction old;
};

struct loop {
	struct loop_watch *w;
	size_t nw, aw;
	int sweep; /* some watches have fd == -1 */
	struct loop_timer *t;
	size_t nt, at;
	long next_timer_id;
	struct pollfd *pfd;
	size_t apfd;
	int sigpipe[2];
	struct loop_sig sig[LOOP_NSIG];
	loop_hook_fn before_sleep;
	void *before_sleep_arg;
	loop_clock_fn clock;
	void *clock_arg;
	int stop;
};

static volatile sig_atomic_t loop_sigfd = -1;

/* Default clock: CLOCK_MONOTONIC in ms. */
static uint64_t
loop_monotonic(void *arg)
{
	struct timespec ts;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Async-signal-safe: record the signal number in the pipe. */
static void
loop_on_signal(int signo)
{
	int saved = errno;
	unsigned char c = (unsigned char)signo;

	if (loop_sigfd >= 0)
		(void)!write(loop_sigfd, &c, 1);
	errno = saved;
}

/* Drain the self-pipe and run each signal's handler on the loop. */
static void
loop_sig_readable(struct loop *l, int fd, int events, void *arg)
{
	unsigned char c[64];
	ssize_t n, i;

	(void)events;
	(void)arg;
	while ((n = read(fd, c, sizeof c)) > 0)
		for (i = 0; i < n; i++)
			if (c[i] < LOOP_NSIG && l->sig[c[i]].fn)
				l->sig[c[i]].fn(l, c[i], l->sig[c[i]].arg);
}

/* Make an fd non-blocking and close-on-exec. */
static int
loop_fd_setup(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Allocate a loop with its self-pipe. */
struct loop *
loop_new(struct err *e)
{
	struct loop *l = xcalloc(1, sizeof *l);

	l->clock = loop_monotonic;
	if (pipe(l->sigpipe) < 0) {
		err_errno(e, "create signal pipe");
		free(l);
		return NULL;
	}
	loop_fd_setup(l->sigpipe[0]);
	loop_fd_setup(l->sigpipe[1]);
	loop_watch(l, l->sigpipe[0], LOOP_READ, loop_sig_readable, NULL);
	return l;
}

/* Release everything and put signal dispositions back. */
void
loop_free(struct loop *l)
{
	int s;

	if (!l)
		return;
	for (s = 1; s < LOOP_NSIG; s++)
		if (l->sig[s].installed)
			sigaction(s, &l->sig[s].old, NULL);
	if (loop_sigfd == l->sigpipe[1])
		loop_sigfd = -1;
	close(l->sigpipe[0]);
	close(l->sigpipe[1]);
	free(l->w);
	free(l->t);
	free(l->pfd);
	free(l);
}

/* Find the live watch for fd. */
static struct loop_watch *
loop_find(struct loop *l, int fd)
{
	size_t i;

	for (i = 0; i < l->nw; i++)
		if (l->w[i].fd == fd)
			return &l->w[i];
	return NULL;
}

/* Add, change or (events == 0) remove a watch. */
void
loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *arg)
{
	struct loop_watch *w;

	if (fd < 0)
		return;
	if (!events) {
		loop_unwatch(l, fd);
		return;
	}
	w = loop_find(l, fd);
	if (!w) {
		if (l->nw == l->aw) {
			l->aw = l->aw ? l->aw * 2 : 16;
			l->w = xrealloc(l->w, l->aw * sizeof *l->w);
		}
		w = &l->w[l->nw++];
		w->fd = fd;
	}
	w->events = events;
	w->fn = fn;
	w->arg = arg;
}

/* Mark removed; swept after the current dispatch. */
void
loop_unwatch(struct loop *l, int fd)
{
	struct loop_watch *w = loop_find(l, fd);

	if (w) {
		w->fd = -1;
		l->sweep = 1;
	}
}

/* Compact removed watches. */
static void
loop_sweep(struct loop *l)
{
	size_t i, j = 0;

	for (i = 0; i < l->nw; i++)
		if (l->w[i].fd >= 0)
			l->w[j++] = l->w[i];
	l->nw = j;
	l->sweep = 0;
}

/* Schedule a one-shot timer. */
long
loop_timer_add(struct loop *l, uint64_t ms, loop_timer_fn fn, void *arg)
{
	struct loop_timer *t;

	if (l->nt == l->at) {
		l->at = l->at ? l->at * 2 : 8;
		l->t = xrealloc(l->t, l->at * sizeof *l->t);
	}
	t = &l->t[l->nt++];
	t->id = ++l->next_timer_id;
	t->when = loop_now_ms(l) + ms;
	t->fn = fn;
	t->arg = arg;
	return t->id;
}

/* Remove a pending timer by id. */
void
loop_timer_del(struct loop *l, long id)
{
	size_t i;

	for (i = 0; i < l->nt; i++)
		if (l->t[i].id == id) {
			l->t[i] = l->t[--l->nt];
			return;
		}
}

/* Route a signal to fn through the self-pipe. */
int
loop_signal(struct loop *l, int signo, loop_signal_fn fn, void *arg, struct err *e)
{
	struct sigaction sa;

	if (signo <= 0 || signo >= LOOP_NSIG)
		return err_set(e, "signal %d out of range", signo);
	loop_sigfd = l->sigpipe[1];
	if (!fn) {
		if (l->sig[signo].installed)
			sigaction(signo, &l->sig[signo].old, NULL);
		l->sig[signo].installed = 0;
		l->sig[signo].fn = NULL;
		return 0;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = loop_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | (signo == SIGCHLD ? SA_NOCLDSTOP : 0);
	if (sigaction(signo, &sa, l->sig[signo].installed ? NULL : &l->sig[signo].old) < 0)
		return err_errno(e, "install handler for signal %d", signo);
	l->sig[signo].installed = 1;
	l->sig[signo].fn = fn;
	l->sig[signo].arg = arg;
	return 0;
}

/* Set the before-sleep hook. */
void
loop_set_before_sleep(struct loop *l, loop_hook_fn fn, void *arg)
{
	l->before_sleep = fn;
	l->before_sleep_arg = arg;
}

/* Milliseconds until the earliest timer, capped by max_wait (-1 = none). */
static int
loop_poll_timeout(struct loop *l, int max_wait)
{
	uint64_t now = loop_now_ms(l), first = UINT64_MAX;
	size_t i;
	int ms;

	for (i = 0; i < l->nt; i++)
		if (l->t[i].when < first)
			first = l->t[i].when;
	if (first == UINT64_MAX)
		return max_wait;
	ms = first <= now ? 0 : (first - now > 60000 ? 60000 : (int)(first - now));
	return max_wait >= 0 && max_wait < ms ? max_wait : ms;
}

/* Fire every due timer once (timers added while firing wait a pass). */
static void
loop_fire_timers(struct loop *l)
{
	uint64_t now = loop_now_ms(l);
	long limit = l->next_timer_id;
	size_t i = 0;

	while (i < l->nt) {
		struct loop_timer t = l->t[i];

		if (t.when <= now && t.id <= limit) {
			l->t[i] = l->t[--l->nt];
			t.fn(l, t.id, t.arg);
			i = 0; /* the array may have changed under us */
			continue;
		}
		i++;
	}
}

/* One pass: before-sleep hook, poll, fd callbacks, timers. */
int
loop_run_once(struct loop *l, int max_wait_ms, struct err *e)
{
	size_t i, n;
	int rc, ms;

	if (l->before_sleep)
		l->before_sleep(l, l->before_sleep_arg);
	if (l->stop)
		return 0; /* the hook ended the run: do not block in poll */
	if (l->sweep)
		loop_sweep(l);
	if (l->apfd < l->nw) {
		l->apfd = l->nw;
		l->pfd = xrealloc(l->pfd, l->apfd * sizeof *l->pfd);
	}
	n = l->nw;
	for (i = 0; i < n; i++) {
		l->pfd[i].fd = l->w[i].fd;
		l->pfd[i].events = (short)(((l->w[i].events & LOOP_READ) ? POLLIN : 0) |
					   ((l->w[i].events & LOOP_WRITE) ? POLLOUT : 0));
		l->pfd[i].revents = 0;
	}
	ms = loop_poll_timeout(l, max_wait_ms);
	rc = poll(l->pfd, (nfds_t)n, ms);
	if (rc < 0 && errno != EINTR)
		return err_errno(e, "poll");
	for (i = 0; rc > 0 && i < n; i++) {
		struct pollfd *p = &l->pfd[i];
		struct loop_watch *w;
		int ev = 0;

		if (!p->revents)
			continue;
		if (p->revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			ev |= LOOP_READ;
		if (p->revents & POLLOUT)
			ev |= LOOP_WRITE;
		if (p->revents & (POLLERR | POLLHUP | POLLNVAL))
			ev |= LOOP_ERROR;
		w = loop_find(l, p->fd);
		if (w && w->fn)
			w->fn(l, p->fd, ev, w->arg);
	}
	loop_fire_timers(l);
	return 0;
}

/* Loop until stopped. */
int
loop_run(struct loop *l, struct err *e)
{
	l->stop = 0;
	while (!l->stop)
		if (loop_run_once(l, -1, e) < 0)
			return -1;
	return 0;
}

/* Request return from loop_run. */
void
loop_stop(struct loop *l)
{
	l->stop = 1;
}

/* Whether a stop is pending. */
int
loop_stopped(const struct loop *l)
{
	return l->stop;
}

/* Current loop time. */
uint64_t
loop_now_ms(struct loop *l)
{
	return l->clock(l->clock_arg);
}

/* Install a fake clock for tests. */
void
loop_set_clock(struct loop *l, loop_clock_fn fn, void *arg)
{
	l->clock = fn ? fn : loop_monotonic;
	l->clock_arg = arg;
}

/*
 * io/loop: the one event loop (design.md §5), after redis ae.c.
 *
 * poll(2) over registered fds, one-shot timers on a monotonic millisecond
 * clock, signals delivered through a self-pipe, and a before-sleep hook
 * that runs once per pass (the TUI draws there).  Idle means blocked in
 * poll, never ticking.  Single-threaded: every callback runs on the
 * thread that called loop_run().
 *
 * Callbacks may add or remove watches and timers (including their own)
 * while being called.  The clock is a function pointer so tests can fake
 * time (loop_set_clock).
 */
#ifndef HEARTH_IO_LOOP_H
#define HEARTH_IO_LOOP_H

#include <stdint.h>

#include "base/err.h"

struct loop;

enum {
	LOOP_READ = 1,
	LOOP_WRITE = 2,
	LOOP_ERROR = 4 /* POLLERR/POLLHUP/POLLNVAL, reported with READ */
};

typedef void (*loop_fd_fn)(struct loop *l, int fd, int events, void *arg);
typedef void (*loop_timer_fn)(struct loop *l, long id, void *arg);
typedef void (*loop_signal_fn)(struct loop *l, int signo, void *arg);
typedef void (*loop_hook_fn)(struct loop *l, void *arg);
typedef uint64_t (*loop_clock_fn)(void *arg);

/* New loop; NULL + e when the self-pipe cannot be made. */
struct loop *loop_new(struct err *e);
/* Free the loop (restores the signal dispositions it changed). NULL ok. */
void loop_free(struct loop *l);

/*
 * Watch fd for `events` (LOOP_READ | LOOP_WRITE).  Calling again for the
 * same fd replaces events, fn and arg.  events == 0 removes the watch.
 */
void loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *arg);
/* Stop watching fd (no-op if not watched). */
void loop_unwatch(struct loop *l, int fd);

/* One-shot timer after `ms` milliseconds; returns an id > 0. */
long loop_timer_add(struct loop *l, uint64_t ms, loop_timer_fn fn, void *arg);
/* Cancel a timer; ids already fired or unknown are ignored. */
void loop_timer_del(struct loop *l, long id);

/*
 * Deliver signo through the self-pipe to fn on the loop thread.  One
 * handler per signal; fn == NULL restores the default disposition.
 */
int loop_signal(struct loop *l, int signo, loop_signal_fn fn, void *arg, struct err *e);

/* Hook run before every sleep in poll (at most once per pass). */
void loop_set_before_sleep(struct loop *l, loop_hook_fn fn, void *arg);

/* Run until loop_stop(); returns 0, or -1 + e if poll fails. */
int loop_run(struct loop *l, struct err *e);
/* Run one pass waiting at most max_wait_ms (-1 = until something happens). */
int loop_run_once(struct loop *l, int max_wait_ms, struct err *e);
/* Ask loop_run to return after the current pass. */
void loop_stop(struct loop *l);
/* Whether loop_stop was called since the last loop_run started. */
int loop_stopped(const struct loop *l);

/* Current time in ms from the loop's clock (monotonic by default). */
uint64_t loop_now_ms(struct loop *l);
/* Replace the clock (tests); NULL restores CLOCK_MONOTONIC. */
void loop_set_clock(struct loop *l, loop_clock_fn fn, void *arg);

#endif

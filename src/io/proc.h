/*
 * io/proc: child processes on the event loop (design.md §5, after tmux job.c).
 *
 * A proc is one child started with fork+exec in a new session (so it is
 * the leader of its own process group, pgid == pid, and has no controlling
 * terminal), stdin from /dev/null (or spec->stdin_fd), stdout and stderr
 * merged into one non-blocking pipe (stderr to spec->stderr_fd if set)
 * that the loop watches.  Output is handed to on_output as it arrives.  The proc completes once its pipe reached EOF *and*
 * waitpid reported the child's exit, in either order; then on_exit runs
 * exactly once.
 *
 * Environment: never hearth's own.  The child gets base/env.h's policy
 * (env_build): by default the clean allowlist, never a secret-named
 * variable; spec->env is applied on top.
 *
 * Killing: proc_kill (or the timeout) sends SIGTERM to the whole group and
 * SIGKILL to the group PROC_KILL_GRACE_MS later if the child has not
 * exited.  When the child has exited but something it left behind (a
 * backgrounded grandchild) still holds the pipe open, the proc waits
 * PROC_DRAIN_MS more, then SIGKILLs the group, closes the pipe and
 * completes (proc_lingered() tells).  A completed proc that was killed
 * gets a final SIGKILL to its group, so nothing of it survives.
 *
 * Dying with hearth: every child sends its session id (== pid == pgid)
 * to the guardian (proc_guard_start) before it execs.  When hearth ends,
 * by exit, crash or SIGKILL, the guardian SIGTERMs every session still
 * alive, SIGKILLs what is left PROC_KILL_GRACE_MS later (on Linux also
 * each process that moved to its own process group inside the session,
 * e.g. a job of `set -m`), and exits.  So a completed proc's backgrounded
 * leftovers (`server >/dev/null &`) live until hearth ends, no longer.
 * Only a process that calls setsid itself escapes it (a sandbox with its
 * own pid namespace does not let it).  Without a guardian (not started,
 * as in tests) children are on their own as before.
 *
 * SIGCHLD: proc installs its own handler on each loop it spawns on (so
 * nothing else may take SIGCHLD on that loop); the handler only waits for
 * the pids of live procs (waitpid(pid, WNOHANG)), never for other children
 * of the process.
 *
 * Lifetime: proc_spawn returns a proc owned by the caller, who frees it
 * with proc_free, from the exit callback or later, or earlier to abandon
 * it (the group is SIGKILLed).  All procs must be freed before their loop.
 * Callbacks may call proc_kill; on_output must not free its proc.
 */
#ifndef HEARTH_IO_PROC_H
#define HEARTH_IO_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

struct loop;
struct proc;

#define PROC_KILL_GRACE_MS 2000 /* SIGTERM -> SIGKILL */
#define PROC_DRAIN_MS 500       /* child exited, pipe still open -> kill and close */

/* Output bytes as read (not NUL-terminated; any bytes, any split). */
typedef void (*proc_output_fn)(struct proc *p, const char *data, size_t n, void *arg);
/* The proc completed; proc_status() and friends are final.  May free p. */
typedef void (*proc_exit_fn)(struct proc *p, void *arg);

struct proc_spec {
	const char *const *argv;  /* argv[0] is looked up in PATH; NULL-terminated */
	const char *cwd;          /* working directory; NULL = ours */
	const char *const *env;   /* "NAME=value" set (or "NAME" unset) in the child, applied after
				   * the policy; NULL-terminated; NULL = none */
	uint64_t timeout_ms;      /* 0 = no timeout */
	proc_output_fn on_output; /* may be NULL (output is discarded) */
	proc_exit_fn on_exit;     /* may be NULL */
	void *arg;
	int stdin_fd;             /* > 0: the child's stdin (a pipe's read end, close-on-exec;
				   * the caller closes its copy after the spawn); 0 = /dev/null */
	int stderr_fd;            /* > 0: the child's stderr instead of the output pipe */
	int die_with_parent;      /* Linux: also SIGTERM the child itself at once if hearth dies, even by
				   * SIGKILL (PR_SET_PDEATHSIG; the guardian ends its session either way) */
	/* In the child after its fds and session are set up, before the other fds are
	 * closed and before chdir and exec: e.g. entering a landlock ruleset
	 * (io/sandbox).  Must be async-signal-safe; -1 (errno set) fails the spawn.  NULL = none. */
	int (*pre_exec)(void *arg);
	void *pre_exec_arg;
	int env_user;             /* 0: the clean environment of base/env.h (ENV_CLEAN: allowlist +
				   * env_passthrough); 1: ENV_USER (ours without secrets), only for
				   * programs the user runs or hearth's own llama-server */
};

/*
 * Start the guardian, a small process that outlives hearth only to end
 * the sessions of hearth's children (see "Dying with hearth" above).
 * Call once, early, while the process has one thread (it forks); later
 * calls do nothing.  The guardian leaves hearth's session and terminal,
 * keeps none of hearth's fds but its socket, ignores every signal but
 * SIGKILL and exits when hearth has gone.  -1 + e when it cannot be
 * started (children then run without it).
 */
int proc_guard_start(struct err *e);

/*
 * Start a child.  NULL + e when the pipe, fork, chdir or exec fails (the
 * message names argv[0] or the directory and the reason); no callback
 * runs for a proc that was never returned.  Returns once the child has
 * exec'd (a pipe handshake, no sleeping).  The spec need not outlive the call.
 */
struct proc *proc_spawn(struct loop *l, const struct proc_spec *spec, struct err *e);

/* SIGTERM the group now, SIGKILL it after the grace.  No-op once completed. */
void proc_kill(struct proc *p);

/*
 * Release p.  A proc that has not completed is abandoned: its group gets
 * SIGKILL, the child is reaped later (by a later SIGCHLD) or at once, and
 * no callback runs.  NULL ok.  Never from p's own on_output.
 */
void proc_free(struct proc *p);

/* 1 until on_exit has been called. */
int proc_running(const struct proc *p);
/* Shell-style status: the exit code, or 128 + signal; -1 while running (or lost). */
int proc_status(const struct proc *p);
/* The signal that ended the child, or 0 when it exited normally (or still runs). */
int proc_signal(const struct proc *p);
/* Whether the timeout fired (the group was then killed). */
int proc_timed_out(const struct proc *p);
/* Whether proc_kill was called or the timeout fired. */
int proc_killed(const struct proc *p);
/* Whether the pipe outlived the child and the group was killed to close it. */
int proc_lingered(const struct proc *p);
/* The child's pid, which is also its process group id. */
pid_t proc_pid(const struct proc *p);

#endif

/*
 * io/proc: child processes on the loop, after tmux job.c.
 *
 * Data: every proc whose child has not been reaped is on one static list
 * (proc_live); the SIGCHLD handler walks it with waitpid(pid, WNOHANG) so
 * children that are not ours are never stolen.  A proc carries two facts,
 * `eof` (its pipe is closed) and `reaped` (waitpid returned); it completes
 * when both hold, whichever came last calls proc_complete, and `done`
 * guards the exit callback so it runs once.  Three optional timers: the
 * timeout, the SIGTERM->SIGKILL grace, and the drain after the child
 * exited while its pipe stayed open.  Abandoned children (proc_free before
 * completion) are SIGKILLed and their pids kept in a small static array
 * until a later SIGCHLD or spawn reaps them.
 *
 * Fork safety: all signals are blocked across fork so the loop's handlers
 * (which write into the loop's self-pipe, shared with the child) never run
 * in the child; the child resets every disposition before unblocking.
 * The child reports a failed chdir or exec through a close-on-exec pipe,
 * so proc_spawn fails synchronously and a returned proc is always running.
 *
 * The guardian (proc_guard_start): a process forked before any thread,
 * in its own session, holding one end of a socket pair whose other end
 * only hearth has (close-on-exec, and closed in children before exec).
 * Each child sends its own session id over it between setsid and exec (so
 * no instant exists in which the child runs unregistered); hearth sends
 * the id negated when it frees the proc (a hint: the guardian forgets a
 * session once nothing is left in it, and checks that every 2 s too).
 * When the socket reads EOF, hearth is gone (exit, crash or SIGKILL): the
 * guardian SIGTERMs every registered group, gives them PROC_KILL_GRACE_MS,
 * SIGKILLs what is left, on Linux also every process still in one of
 * those sessions (a background job that took its own process group), and
 * exits.
 */
#include "io/proc.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "io/loop.h"
#include "base/env.h"
#include "base/xmalloc.h"

#define PROC_READ_BUDGET (256 * 1024) /* bytes read per readiness, so timers still fire */
#define PROC_ORPHANS 32

extern char **environ;

struct proc {
	struct proc *next; /* on proc_live until reaped or freed */
	struct loop *loop;
	pid_t pid;
	int fd;          /* read end of the output pipe; -1 once closed */
	int code;        /* shell-style status once reaped (-1: lost) */
	int sig;         /* terminating signal or 0 */
	int reaped, eof, done;
	int killed, timed_out, lingered;
	int in_output;   /* inside on_output (proc_free forbidden) */
	long t_timeout, t_kill, t_drain;
	proc_output_fn on_output;
	proc_exit_fn on_exit;
	void *arg;
};

/* What the child writes to the error pipe when it cannot exec: PROC_STAGE_*, errno. */
struct proc_fail {
	int stage, err;
};

enum { PROC_STAGE_SETUP, PROC_STAGE_CHDIR, PROC_STAGE_EXEC };

static struct proc *proc_live;
static int proc_guard_fd = -1; /* our end of the guardian's socket; -1: no guardian */
static pid_t proc_orphan[PROC_ORPHANS];
static int proc_norphan;

static void proc_complete(struct proc *p);
static void proc_guard_tell(int32_t v);

/* Put p on the live list. */
static void
proc_link(struct proc *p)
{
	p->next = proc_live;
	proc_live = p;
}

/* Take p off the live list (no-op if not on it; the list is short). */
static void
proc_unlink(struct proc *p)
{
	struct proc **pp;

	for (pp = &proc_live; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	p->next = NULL;
}

/* Reap abandoned children that have exited by now. */
static void
proc_reap_orphans(void)
{
	int i = 0, st;

	while (i < proc_norphan) {
		pid_t r = waitpid(proc_orphan[i], &st, WNOHANG);

		if (r > 0 || (r < 0 && errno == ECHILD))
			proc_orphan[i] = proc_orphan[--proc_norphan];
		else
			i++;
	}
}

/* Signal the whole group; a group already gone is fine. */
static void
proc_signal_group(struct proc *p, int signo)
{
	if (p->pid > 0)
		(void)kill(-p->pid, signo);
}

/* Record a wait status the shell way. */
static void
proc_set_status(struct proc *p, int st)
{
	p->reaped = 1;
	p->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	p->code = p->sig ? 128 + p->sig : WEXITSTATUS(st);
	proc_unlink(p);
}

/* Stop watching and close the pipe: from now on p counts as at EOF. */
static void
proc_close_pipe(struct proc *p)
{
	if (p->fd >= 0) {
		loop_unwatch(p->loop, p->fd);
		close(p->fd);
		p->fd = -1;
	}
	p->eof = 1;
}

/* Read what is there (up to budget bytes); 1 at EOF or error, else 0. */
static int
proc_drain(struct proc *p, size_t budget)
{
	char chunk[16384];
	size_t got = 0;

	while (got < budget) {
		ssize_t n = read(p->fd, chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* EOF, or an error other than "nothing yet" ends the stream */
			return !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
		got += (size_t)n;
		p->in_output = 1;
		if (p->on_output)
			p->on_output(p, chunk, (size_t)n, p->arg);
		p->in_output = 0;
	}
	return 0;
}

/* Loop callback: output is readable (or the write end closed). */
static void
proc_readable(struct loop *l, int fd, int events, void *arg)
{
	struct proc *p = arg;

	(void)l;
	(void)fd;
	(void)events;
	if (p->fd < 0 || !proc_drain(p, PROC_READ_BUDGET))
		return;
	proc_close_pipe(p);
	if (p->reaped)
		proc_complete(p);
}

/* Drain timer: the child is gone but its pipe is held; kill and close. */
static void
proc_on_drain(struct loop *l, long id, void *arg)
{
	struct proc *p = arg;

	(void)l;
	(void)id;
	p->t_drain = 0;
	if (p->fd >= 0 && !proc_drain(p, PROC_READ_BUDGET)) {
		p->lingered = 1;
		proc_signal_group(p, SIGKILL);
	}
	proc_close_pipe(p);
	proc_complete(p);
}

/* The child was reaped: complete now, or wait a little for the pipe. */
static void
proc_after_reap(struct proc *p)
{
	if (p->t_kill) {
		loop_timer_del(p->loop, p->t_kill);
		p->t_kill = 0;
	}
	if (p->eof)
		proc_complete(p);
	else if (!p->t_drain)
		p->t_drain = loop_timer_add(p->loop, PROC_DRAIN_MS, proc_on_drain, p);
}

/* Reap one live proc whose child has exited; NULL when none has. */
static struct proc *
proc_reap_one(void)
{
	struct proc *p;
	int st;

	for (p = proc_live; p; p = p->next) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);

		if (r == p->pid) {
			proc_set_status(p, st);
			return p;
		}
		if (r < 0 && errno == ECHILD) { /* reaped by someone else: status lost */
			proc_set_status(p, 0);
			p->code = -1;
			return p;
		}
	}
	return NULL;
}

/* SIGCHLD: reap our children one at a time (a completion may spawn or free procs). */
static void
proc_on_sigchld(struct loop *l, int signo, void *arg)
{
	struct proc *p;

	(void)l;
	(void)signo;
	(void)arg;
	proc_reap_orphans();
	while ((p = proc_reap_one()) != NULL)
		proc_after_reap(p);
}

/* Cancel whichever timers are pending (ids of fired timers are already 0). */
static void
proc_stop_timers(struct proc *p)
{
	long *t[3] = { &p->t_timeout, &p->t_kill, &p->t_drain };
	int i;

	for (i = 0; i < 3; i++)
		if (*t[i]) {
			loop_timer_del(p->loop, *t[i]);
			*t[i] = 0;
		}
}

/* Both EOF and exit seen: cancel timers, finish killing, tell the owner once. */
static void
proc_complete(struct proc *p)
{
	if (p->done || !p->eof || !p->reaped)
		return;
	proc_stop_timers(p);
	if (p->killed)
		proc_signal_group(p, SIGKILL);
	p->done = 1;
	if (p->on_exit)
		p->on_exit(p, p->arg); /* may free p: touch nothing after */
}

/* Grace over: SIGKILL the group. */
static void
proc_on_kill_timer(struct loop *l, long id, void *arg)
{
	struct proc *p = arg;

	(void)l;
	(void)id;
	p->t_kill = 0;
	proc_signal_group(p, SIGKILL);
}

/* Timeout: remember why, then kill. */
static void
proc_on_timeout(struct loop *l, long id, void *arg)
{
	struct proc *p = arg;

	(void)l;
	(void)id;
	p->t_timeout = 0;
	p->timed_out = 1;
	proc_kill(p);
}

/* SIGTERM the group and schedule SIGKILL. */
void
proc_kill(struct proc *p)
{
	if (!p || p->done || p->killed)
		return;
	p->killed = 1;
	proc_signal_group(p, SIGTERM);
	proc_signal_group(p, SIGCONT); /* a stopped group cannot act on SIGTERM */
	if (!p->reaped)
		p->t_kill = loop_timer_add(p->loop, PROC_KILL_GRACE_MS, proc_on_kill_timer, p);
}

/* Remember an abandoned, SIGKILLed child so a later pass reaps it. */
static void
proc_abandon_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) != 0)
		return;
	if (proc_norphan < PROC_ORPHANS) {
		proc_orphan[proc_norphan++] = pid;
		return;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR) /* full: SIGKILL is quick */
		;
}

/* Release p, killing its group when it has not completed. */
void
proc_free(struct proc *p)
{
	if (!p)
		return;
	assert(!p->in_output);
	if (!p->done) {
		proc_signal_group(p, SIGKILL);
		if (!p->reaped)
			proc_abandon_child(p->pid);
	}
	proc_guard_tell(-(int32_t)p->pid);
	proc_unlink(p);
	proc_stop_timers(p);
	proc_close_pipe(p);
	free(p);
}

/* In the child: wire fds 0-2, keep the error pipe as fd 3 (close-on-exec), close the rest,
 * enter a new session, arm the parent-death signal if asked, exec.  Never returns. */
/*
 * In a freshly forked child of parent: ask the kernel for SIGTERM when
 * parent dies, even by SIGKILL, when no exit handler can run (Linux's
 * PR_SET_PDEATHSIG; it survives exec).  Elsewhere there is no such
 * mechanism and this does nothing (the normal exit path still stops the
 * child).  -1 (errno set) when it cannot be set up or parent already died
 * before it was armed, the race prctl alone leaves open.
 * Async-signal-safe: runs between fork and exec.
 */
static int
proc_arm_parent_death(pid_t parent)
{
#ifdef __linux__
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
		return -1;
	if (getppid() != parent) {
		errno = ESRCH;
		return -1;
	}
#else
	(void)parent;
#endif
	return 0;
}

static void
proc_child(int out_w, int fail_w, const struct proc_spec *spec, char **envp, int maxfd, pid_t parent)
{
	struct proc_fail f = { PROC_STAGE_SETUP, 0 };
	struct sigaction sa;
	sigset_t none;
	int s, fd, rep, err_w, nul = open("/dev/null", O_RDONLY);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (s = 1; s < 65; s++)
		(void)sigaction(s, &sa, NULL);
	/* move everything above 3 first so the dup2s below cannot clobber it */
	rep = fcntl(fail_w, F_DUPFD_CLOEXEC, 10);
	out_w = fcntl(out_w, F_DUPFD, 10);
	nul = fcntl(spec->stdin_fd > 0 ? spec->stdin_fd : nul, F_DUPFD, 10);
	err_w = spec->stderr_fd > 0 ? fcntl(spec->stderr_fd, F_DUPFD, 10) : out_w;
	if (rep < 0)
		_exit(127);
	if (out_w < 0 || nul < 0 || err_w < 0 || setsid() < 0 || dup2(nul, 0) < 0 ||
	    dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0 || dup2(rep, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0 ||
	    (spec->die_with_parent && proc_arm_parent_death(parent) < 0) ||
	    (spec->pre_exec && spec->pre_exec(spec->pre_exec_arg) < 0))
		goto fail;
	proc_guard_tell((int32_t)getpid()); /* before exec: never a moment unregistered */
	rep = 3;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
#endif
		for (fd = 4; fd < maxfd; fd++)
			(void)close(fd);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	f.stage = PROC_STAGE_CHDIR;
	if (spec->cwd && chdir(spec->cwd) < 0)
		goto fail;
	f.stage = PROC_STAGE_EXEC;
	environ = envp;
	execvp(spec->argv[0], (char *const *)spec->argv);
fail:
	f.err = errno;
	(void)!write(rep, &f, sizeof f);
	free(envp); /* only so leak checkers that follow the fork stay quiet */
	_exit(127);
}

/* Make fd close-on-exec, and non-blocking when asked. */
static int
proc_fd_flags(int fd, int nonblock)
{
	int fl = fcntl(fd, F_GETFL);

	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fl < 0)
		return -1;
	return nonblock ? fcntl(fd, F_SETFL, fl | O_NONBLOCK) : 0;
}

/* ---- the guardian ------------------------------------------------------ */

#define PROC_GUARD_PRUNE_MS 2000

/*
 * Whether a live process is still in session (or process group) sid: on
 * Linux any process but a zombie whose /proc/PID/stat names sid as its
 * session or group (each sent signo unless 0), elsewhere the group by
 * kill(0).  1 when one was found.
 */
static int
proc_guard_scan(pid_t sid, int signo)
{
	int found = kill(-sid, 0) == 0 || errno == EPERM;
#ifdef __linux__
	DIR *d;
	struct dirent *de;

	if (!(d = opendir("/proc")))
		return found;
	found = 0; /* /proc tells zombies (dead, waiting for a parent that may be slow to reap) apart */
	while ((de = readdir(d)) != NULL) {
		char path[64], line[512], *rp, state;
		long pid = strtol(de->d_name, &rp, 10), pgrp, sess;
		FILE *f;
		size_t n;

		if (pid <= 0 || *rp)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[n] = '\0';
		/* "pid (comm) state ppid pgrp session ...": comm may hold anything, so from the last ')' */
		if (!(rp = strrchr(line, ')')) || sscanf(rp + 1, " %c %*d %ld %ld", &state, &pgrp, &sess) != 3)
			continue;
		if ((sess != sid && pgrp != sid) || state == 'Z' || state == 'X')
			continue;
		found = 1;
		if (signo)
			(void)kill((pid_t)pid, signo);
	}
	closedir(d);
#endif
	return found;
}

/* Forget the sessions with nothing left in them. */
static size_t
proc_guard_prune(pid_t *set, size_t n)
{
	size_t i = 0;

	while (i < n)
		if (!proc_guard_scan(set[i], 0))
			set[i] = set[--n];
		else
			i++;
	return n;
}

/* hearth is gone: end every registered session, gracefully first. */
static void
proc_guard_end_all(pid_t *set, size_t n)
{
	size_t i;
	int waited, pass;

	for (i = 0; i < n; i++) {
		(void)kill(-set[i], SIGTERM);
		(void)kill(-set[i], SIGCONT);
	}
	for (waited = 0; waited < PROC_KILL_GRACE_MS && (n = proc_guard_prune(set, n)) > 0; waited += 50)
		(void)poll(NULL, 0, 50);
	for (pass = 0; pass < 3 && n; pass++) { /* again: something may have forked meanwhile */
		for (i = 0; i < n; i++) {
			(void)kill(-set[i], SIGKILL);
			(void)proc_guard_scan(set[i], SIGKILL);
		}
		(void)poll(NULL, 0, 20);
		n = proc_guard_prune(set, n);
	}
}

/* The guardian's life: collect session ids until EOF, then end them.  Never returns. */
static void
proc_guard_main(int fd)
{
	struct sigaction sa;
	pid_t *set = NULL;
	size_t n = 0, cap = 0;
	int s, nul;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	for (s = 1; s < 65; s++) {
		sa.sa_handler = s == SIGCHLD ? SIG_DFL : SIG_IGN; /* outlive any signal but SIGKILL */
		(void)sigaction(s, &sa, NULL);
	}
	(void)setsid(); /* off hearth's terminal: Ctrl-C, Ctrl-Z and hang-ups are hearth's */
	if ((nul = open("/dev/null", O_RDWR)) >= 0) {
		/* nothing of hearth's stdio stays open here: a pipe reading hearth's output ends with hearth */
		(void)dup2(nul, 0);
		(void)dup2(nul, 1);
		(void)dup2(nul, 2);
	}
	if (fd != 3) {
		(void)dup2(fd, 3);
		fd = 3;
	}
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
#endif
		for (s = 4; s < 1024; s++)
			(void)close(s);
	(void)!chdir("/");
#ifdef __linux__
	(void)prctl(PR_SET_NAME, "hearth-guard");
#endif
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int32_t v;
		ssize_t k;

		if (poll(&pfd, 1, n ? PROC_GUARD_PRUNE_MS : -1) == 0) {
			n = proc_guard_prune(set, n);
			continue;
		}
		k = recv(fd, &v, sizeof v, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			break; /* EOF: hearth is gone */
		if (k != (ssize_t)sizeof v || v == 0)
			continue;
		if (v < 0) {
			n = proc_guard_prune(set, n);
			continue;
		}
		if (n == cap) {
			n = proc_guard_prune(set, n);
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				set = realloc(set, cap * sizeof *set);
				if (!set)
					break; /* out of memory: end what we know of now */
			}
		}
		set[n++] = (pid_t)v;
	}
	if (set)
		proc_guard_end_all(set, n);
	_exit(0);
}

/* Start the guardian (once); see io/proc.h. */
int
proc_guard_start(struct err *e)
{
	int sv[2], type = SOCK_STREAM;
	pid_t pid;

	if (proc_guard_fd >= 0)
		return 0;
#ifdef SOCK_SEQPACKET
	type = SOCK_SEQPACKET; /* message boundaries: the children's ids never interleave */
#endif
	if (socketpair(AF_UNIX, type, 0, sv) < 0 && (type == SOCK_STREAM ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0))
		return err_errno(e, "start the child guardian: socketpair");
	if (proc_fd_flags(sv[0], 0) < 0 || proc_fd_flags(sv[1], 0) < 0) {
		err_errno(e, "start the child guardian: set up its socket");
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		proc_guard_main(sv[1]);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return err_errno(e, "start the child guardian: fork");
	}
	/* above the fds a child's set-up dup2s onto (0-3), whatever hearth's stdio was */
	proc_guard_fd = fcntl(sv[0], F_DUPFD_CLOEXEC, 10);
	close(sv[0]);
	if (proc_guard_fd < 0)
		return err_errno(e, "start the child guardian: move its socket");
	return 0;
}

/* Tell the guardian something about session id v (async-signal-safe: also used in the child). */
static void
proc_guard_tell(int32_t v)
{
	if (proc_guard_fd >= 0)
		(void)send(proc_guard_fd, &v, sizeof v, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* The output pipe (read end non-blocking) and the exec-failure pipe. */
static int
proc_pipes(int out[2], int fail[2], struct err *e)
{
	if (pipe(out) < 0)
		return err_errno(e, "create output pipe");
	if (pipe(fail) < 0) {
		err_errno(e, "create status pipe");
		close(out[0]);
		close(out[1]);
		return -1;
	}
	if (proc_fd_flags(out[0], 1) == 0 && proc_fd_flags(out[1], 0) == 0 &&
	    proc_fd_flags(fail[0], 0) == 0 && proc_fd_flags(fail[1], 0) == 0)
		return 0;
	err_errno(e, "set up pipes");
	close(out[0]);
	close(out[1]);
	close(fail[0]);
	close(fail[1]);
	return -1;
}

/* Turn the child's failure report into one line in e. */
static void
proc_report(const struct proc_spec *spec, const struct proc_fail *f, struct err *e)
{
	if (f->stage == PROC_STAGE_CHDIR)
		err_set(e, "run %s: cannot enter %s: %s", spec->argv[0], spec->cwd, strerror(f->err));
	else
		err_set(e, "run %s: %s%s", spec->argv[0],
			f->stage == PROC_STAGE_EXEC ? "" : "set up the child: ", strerror(f->err));
	if (e)
		e->code = f->err;
}

/* Fork the child; its pid, or -1 + e (the child already reaped). */
static pid_t
proc_fork(const struct proc_spec *spec, int out[2], int fail[2], struct err *e)
{
	long maxfd = sysconf(_SC_OPEN_MAX);
	char **envp = env_build(NULL, spec->env, spec->env_user ? ENV_USER : ENV_CLEAN);
	struct proc_fail f;
	sigset_t all, old;
	ssize_t n;
	pid_t pid, parent = getpid();
	int st;

	maxfd = maxfd < 64 ? 64 : (maxfd > 65536 ? 65536 : maxfd);
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid == 0)
		proc_child(out[1], fail[1], spec, envp, (int)maxfd, parent);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(envp);
	close(out[1]);
	close(fail[1]);
	if (pid < 0) {
		err_errno(e, "run %s: fork", spec->argv[0]);
		close(fail[0]);
		return -1;
	}
	while ((n = read(fail[0], &f, sizeof f)) < 0 && errno == EINTR)
		;
	close(fail[0]);
	if (n != (ssize_t)sizeof f)
		return pid; /* EOF: exec succeeded */
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	proc_report(spec, &f, e);
	return -1;
}

/* Start a child on the loop. */
struct proc *
proc_spawn(struct loop *l, const struct proc_spec *spec, struct err *e)
{
	int out[2], fail[2];
	struct proc *p;
	pid_t pid;

	if (!spec->argv || !spec->argv[0] || !spec->argv[0][0]) {
		err_set(e, "run a process: the command is empty");
		return NULL;
	}
	if (loop_signal(l, SIGCHLD, proc_on_sigchld, NULL, e) < 0)
		return NULL;
	proc_reap_orphans();
	if (proc_pipes(out, fail, e) < 0)
		return NULL;
	pid = proc_fork(spec, out, fail, e);
	if (pid < 0) {
		close(out[0]);
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->loop = l;
	p->pid = pid;
	p->fd = out[0];
	p->code = -1;
	p->on_output = spec->on_output;
	p->on_exit = spec->on_exit;
	p->arg = spec->arg;
	proc_link(p);
	loop_watch(l, p->fd, LOOP_READ, proc_readable, p);
	if (spec->timeout_ms)
		p->t_timeout = loop_timer_add(l, spec->timeout_ms, proc_on_timeout, p);
	return p;
}

/* Whether the exit callback is still to come. */
int
proc_running(const struct proc *p)
{
	return !p->done;
}

/* Final status, shell style. */
int
proc_status(const struct proc *p)
{
	return p->reaped ? p->code : -1;
}

/* Terminating signal. */
int
proc_signal(const struct proc *p)
{
	return p->sig;
}

/* Whether the timeout fired. */
int
proc_timed_out(const struct proc *p)
{
	return p->timed_out;
}

/* Whether a kill was requested. */
int
proc_killed(const struct proc *p)
{
	return p->killed;
}

/* Whether the group was killed to close a pipe that outlived the child. */
int
proc_lingered(const struct proc *p)
{
	return p->lingered;
}

/* The child's pid (== its pgid). */
pid_t
proc_pid(const struct proc *p)
{
	return p->pid;
}

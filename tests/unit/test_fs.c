/*
 * test_fsutil: fs_write_all (short writes, EINTR, no progress), atomic
 * replace (mode kept or 0644 minus umask, no temp file left, each step's
 * failure harmless: RLIMIT_FSIZE and seccomp make them fail on cue), the
 * private variants, mkdirs, the sorted ignore-aware walk, glob matching
 * with ** and braces, UTF-8 validation and binary sniffing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/fs.h"
#include "testutil.h"
#include "tool_fixture.h"

/* Number of entries in dir other than . and .. */
static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void
test_write_atomic(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	struct stat st;
	size_t len;
	char *s;

	(void)state;
	assert_int_equal(fs_write_atomic(fixture_path(f, "new.txt"), "abc\n", 4, &e), 0);
	assert_int_equal(stat(fixture_path(f, "new.txt"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644 & ~(mode_t)022);
	fixture_puts(f, "run.sh", "#!/bin/sh\n");
	assert_int_equal(chmod(fixture_path(f, "run.sh"), 0751), 0);
	assert_int_equal(fs_write_atomic(fixture_path(f, "run.sh"), "echo\n", 5, &e), 0);
	assert_int_equal(stat(fixture_path(f, "run.sh"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0751);
	s = fixture_slurp(f, "run.sh", &len);
	assert_string_equal(s, "echo\n");
	free(s);
	assert_int_equal(fs_write_atomic(fixture_path(f, "empty"), "", 0, &e), 0);
	assert_int_equal(stat(fixture_path(f, "empty"), &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(count_entries(f->root), 3); /* no temp files left */
	/* failures: a directory target, a missing parent */
	fixture_mkdir(f, "d");
	assert_int_equal(fs_write_atomic(fixture_path(f, "d"), "x", 1, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(fs_write_atomic(fixture_path(f, "nope/x"), "x", 1, &e), -1);
	assert_int_equal(count_entries(f->root), 4);
	assert_int_equal(count_entries(fixture_path(f, "d")), 0);
	fixture_free(f);
}

/* A pipe; the write end non-blocking when nb. */
static void
make_pipe(int p[2], int nb)
{
	assert_int_equal(pipe(p), 0);
	if (nb)
		assert_int_equal(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
}

/* Everything readable from fd until EOF (or, non-blocking, until it is empty). */
static char *
drain(int fd, size_t *len)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(&b, chunk, (size_t)n);
	return buf_detach(&b, len);
}

/* n bytes of a pattern that shows where a byte came from (malloc'd). */
static char *
pattern(size_t n)
{
	char *d = malloc(n);
	size_t i;

	assert_non_null(d);
	for (i = 0; i < n; i++)
		d[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	return d;
}

/*
 * Issue 20: fs_write_all's own results: 0 (not the byte count) for one byte
 * and for a stale errno of EINTR left by an earlier call; a write that
 * fails keeps its errno (EPIPE); a non-blocking pipe takes a short write
 * (what fits, kept) and then fails with EAGAIN.
 */
static void
test_write_all(void **state)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	size_t len, big = 1u << 20;
	char *d, *got;
	int p[2];

	(void)state;
	make_pipe(p, 1);
	assert_int_equal(fs_write_all(p[1], "x", 1), 0);
	errno = EINTR; /* stale: the write below succeeds and must not be taken for EINTR */
	assert_int_equal(fs_write_all(p[1], "yz", 2), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	got = drain(p[0], &len);
	assert_int_equal(len, 3);
	assert_memory_equal(got, "xyz", 3);
	free(got);
	/* short write, then EAGAIN: the part that fitted is the data's beginning */
	d = pattern(big);
	errno = 0;
	assert_int_equal(fs_write_all(p[1], d, big), -1);
	assert_int_equal(errno, EAGAIN);
	got = drain(p[0], &len);
	assert_true(len > 0 && len < big); /* the pipe's capacity */
	assert_memory_equal(got, d, len);
	free(got);
	free(d);
	/* no reader: EPIPE, not masked */
	assert_int_equal(sigaction(SIGPIPE, &ign, &old), 0);
	close(p[0]);
	errno = 0;
	assert_int_equal(fs_write_all(p[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	sigaction(SIGPIPE, &old, NULL);
	close(p[1]);
}

/*
 * In a child with a seccomp filter that makes every write(2) to fd return
 * 0 (no progress, errno untouched, as SECCOMP_RET_ERRNO with 0 does):
 * fs_write_all gives up with EIO at once, also with a stale EINTR in errno.
 * Exit 0 when so; the alarm ends a child that loops.
 */
static int
write_makes_no_progress(int fd)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof prog / sizeof prog[0], prog };
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(5);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
			_exit(2);
		errno = 0;
		if (fs_write_all(fd, "abc", 3) != -1 || errno != EIO)
			_exit(1);
		errno = EINTR;
		if (fs_write_all(fd, "abc", 3) != -1 || errno != EIO)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Issue 20: a write(2) that returns 0 is a failure (EIO), not a loop. */
static void
test_write_all_no_progress(void **state)
{
	int p[2], rc;

	(void)state;
	make_pipe(p, 0);
	rc = write_makes_no_progress(p[1]);
	if (rc == 2)
		print_message("no seccomp here; skipped\n");
	else
		assert_int_equal(rc, 0);
	close(p[0]);
	close(p[1]);
}

static atomic_int usr1_count;

static void
on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr1_count, 1);
}

/* A thread blocked in fs_write_all on a pipe. */
struct pipe_writer {
	int fd;
	const char *data;
	size_t len;
	atomic_long tid;
	atomic_int done;
	int rc;
};

static void *
pipe_write(void *arg)
{
	struct pipe_writer *w = arg;

	atomic_store(&w->tid, (long)syscall(SYS_gettid));
	w->rc = fs_write_all(w->fd, w->data, w->len);
	close(w->fd);
	atomic_store(&w->done, 1);
	return NULL;
}

/* Whether the writer is (within 5 s) blocked in write(2) on its fd, per /proc's syscall file. */
static int
blocked_in_write(struct pipe_writer *w)
{
	char path[64], line[512];
	uint64_t t0 = tu_now_ms();
	unsigned long a0;
	long nr;
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", atomic_load(&w->tid));
	while (!yes && !atomic_load(&w->done) && tu_now_ms() - t0 < 5000) {
		if (!(f = fopen(path, "re")))
			break;
		if (fgets(line, sizeof line, f) && sscanf(line, "%ld 0x%lx", &nr, &a0) == 2)
			yes = nr == SYS_write && a0 == (unsigned long)w->fd;
		fclose(f);
	}
	return yes;
}

/*
 * Issue 20: a signal (no SA_RESTART) interrupts a blocked pipe write:
 * with the pipe full before the call the write fails with EINTR, with it
 * empty it returns short (what fitted); either way fs_write_all carries
 * on with the rest and the reader gets every byte once, in order.
 */
static void
test_write_all_interrupted(void **state)
{
	struct sigaction sa, old;
	size_t len, fill, i;
	char *d = pattern(200000), *got, *want;
	int full;

	(void)state;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	for (full = 0; full < 2; full++) {
		struct pipe_writer w = { -1, d, 200000, 0, 0, -1 };
		pthread_t th;
		int p[2], before;

		make_pipe(p, 1);
		fill = 0;
		while (full && write(p[1], "#", 1) == 1)
			fill++;
		assert_int_equal(fcntl(p[1], F_SETFL, 0), 0);
		w.fd = p[1];
		before = atomic_load(&usr1_count);
		assert_int_equal(pthread_create(&th, NULL, pipe_write, &w), 0);
		while (!atomic_load(&w.tid))
			;
		assert_true(blocked_in_write(&w));
		pthread_kill(th, SIGUSR1);
		while (atomic_load(&usr1_count) == before)
			;
		assert_true(blocked_in_write(&w)); /* carried on after the interruption */
		got = drain(p[0], &len);
		pthread_join(th, NULL);
		assert_int_equal(w.rc, 0);
		assert_int_equal(len, fill + 200000);
		want = malloc(len);
		for (i = 0; i < fill; i++)
			want[i] = '#';
		memcpy(want + fill, d, 200000);
		assert_memory_equal(got, want, len);
		free(want);
		free(got);
		close(p[0]);
	}
	sigaction(SIGUSR1, &old, NULL);
	free(d);
}

/*
 * Issue 20: a new file's mode is 0644 minus the umask in force (here 077:
 * 0600), for every write, and the umask is left as it was.
 */
static void
test_write_atomic_umask(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	assert_int_equal(fs_write_atomic(fixture_path(f, "a"), "a", 1, &e), 0);
	assert_int_equal(fs_write_atomic(fixture_path(f, "b"), "b", 1, &e), 0);
	assert_int_equal(umask(027), 077);
	assert_int_equal(fs_write_atomic(fixture_path(f, "c"), "c", 1, &e), 0);
	umask(old);
	assert_int_equal(stat(fixture_path(f, "a"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(fixture_path(f, "b"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(fixture_path(f, "c"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	fixture_free(f);
}

/* Files may grow to at most max bytes (SIGXFSZ ignored: write fails EFBIG); 0 lifts it. */
static void
limit_fsize(rlim_t max)
{
	static struct rlimit saved;
	static int have;
	struct rlimit rl;

	if (!have) {
		assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
		have = 1;
	}
	signal(SIGXFSZ, max ? SIG_IGN : SIG_DFL);
	rl = saved;
	if (max)
		rl.rlim_cur = max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

/*
 * Issue 20: a write that fails half-way (the file size limit) reports the
 * error, leaves the old file as it was, mode and all, and removes its temp
 * file; a new file is not made.  Relative paths and a bare name work.
 */
static void
test_write_atomic_fails(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	char *big = pattern(8192), *s, cwd[PATH_MAX];
	struct stat st;
	size_t len;

	(void)state;
	fixture_puts(f, "old.txt", "old\n");
	assert_int_equal(chmod(fixture_path(f, "old.txt"), 0640), 0);
	limit_fsize(4096);
	assert_int_equal(fs_write_atomic(fixture_path(f, "old.txt"), big, 8192, &e), -1);
	assert_int_equal(fs_write_atomic(fixture_path(f, "new.txt"), big, 8192, &e), -1);
	limit_fsize(0);
	assert_non_null(strstr(e.msg, "new.txt"));
	s = fixture_slurp(f, "old.txt", &len);
	assert_string_equal(s, "old\n");
	free(s);
	assert_int_equal(stat(fixture_path(f, "old.txt"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(count_entries(f->root), 1); /* no temp file, no new.txt */
	/* a relative path and a bare name (the current directory) */
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->root), 0);
	fixture_mkdir(f, "d");
	assert_int_equal(fs_write_atomic("d/rel.txt", "r\n", 2, &e), 0);
	assert_int_equal(fs_write_atomic("bare.txt", "b\n", 2, &e), 0);
	assert_int_equal(chdir(cwd), 0);
	s = fixture_slurp(f, "d/rel.txt", &len);
	assert_string_equal(s, "r\n");
	free(s);
	s = fixture_slurp(f, "bare.txt", &len);
	assert_string_equal(s, "b\n");
	free(s);
	assert_int_equal(count_entries(f->root), 3);
	assert_int_equal(count_entries(fixture_path(f, "d")), 1);
	free(big);
	fixture_free(f);
}

/*
 * In a child whose syscall nr (and nr2, if not -1) fails with EIO (a
 * seccomp filter), fs_write_atomic(path) (fs_write_private when private):
 * exit 0 when it failed, 1 when it claimed success, 2 when seccomp is not
 * available.
 */
static int
write_when_failing(long nr, long nr2, const char *path, int private)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EIO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { sizeof prog / sizeof prog[0], prog };
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct err e = ERR_INIT;

		alarm(5);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
			_exit(2);
		_exit((private ? fs_write_private(path, "new\n", 4, &e) : fs_write_atomic(path, "new\n", 4, &e)) ==
			      -1 && err_isset(&e) ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Issue 20: each later step of the replace failing (fchmod, fsync, close,
 * rename: EIO by seccomp) fails the write, leaves the old file whole and
 * removes the temp file.
 */
static void
test_write_atomic_steps_fail(void **state)
{
	static const struct {
		long nr, nr2;
		const char *what;
	} steps[] = {
		{ SYS_fchmod, -1, "fchmod" },
		{ SYS_fsync, SYS_fdatasync, "fsync" },
		{ SYS_close, -1, "close" },
		{ SYS_renameat, SYS_renameat2, "renameat" },
	};
	struct fixture *f = fixture_new();
	size_t i, len;
	char *s;
	int rc;

	(void)state;
	fixture_puts(f, "old.txt", "old\n");
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		rc = write_when_failing(steps[i].nr, steps[i].nr2, fixture_path(f, "old.txt"), 0);
		if (rc == 2) {
			print_message("no seccomp here; skipped\n");
			break;
		}
		if (rc != 0)
			print_message("%s failing: rc %d\n", steps[i].what, rc);
		assert_int_equal(rc, 0);
		s = fixture_slurp(f, "old.txt", &len);
		assert_string_equal(s, "old\n");
		free(s);
		assert_int_equal(count_entries(f->root), 1);
	}
	/* fs_write_private that cannot make the old file private writes nothing */
	rc = write_when_failing(SYS_chmod, SYS_fchmodat, fixture_path(f, "old.txt"), 1);
	if (rc != 2) {
		assert_int_equal(rc, 0);
		s = fixture_slurp(f, "old.txt", &len);
		assert_string_equal(s, "old\n");
		free(s);
	}
	fixture_free(f);
}

/*
 * Issue 20: with stdin closed the directory's fd is 0, a valid one: the
 * write works and leaves nothing else; a name too long for the file
 * system is refused at the first step, before any temp file.
 */
static void
test_write_atomic_fd0(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	char name[300], *s;
	size_t len;
	int saved = dup(0), rc;

	(void)state;
	assert_true(saved > 0);
	close(0);
	rc = fs_write_atomic(fixture_path(f, "z.txt"), "z\n", 2, &e);
	dup2(saved, 0);
	close(saved);
	assert_int_equal(rc, 0);
	s = fixture_slurp(f, "z.txt", &len);
	assert_string_equal(s, "z\n");
	free(s);
	assert_int_equal(count_entries(f->root), 1);
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	assert_int_equal(fs_write_atomic(fixture_path(f, name), "n", 1, &e), -1);
	assert_int_equal(strncmp(e.msg, "stat ", 5), 0);
	assert_int_equal(count_entries(f->root), 1);
	fixture_free(f);
}

/*
 * Issue 20: fs_write_private leaves 0600 whatever the umask and the old
 * mode, replaces a symlink with a private file (the link's target
 * untouched), and when the write fails leaves no file it made (an old
 * file keeps its content, now private).
 */
static void
test_write_private(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	char *big = pattern(8192), *s;
	struct stat st;
	size_t len;

	(void)state;
	assert_int_equal(fs_write_private(fixture_path(f, "new"), "n\n", 2, &e), 0);
	assert_int_equal(stat(fixture_path(f, "new"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	fixture_puts(f, "open", "o\n");
	assert_int_equal(chmod(fixture_path(f, "open"), 0664), 0);
	assert_int_equal(fs_write_private(fixture_path(f, "open"), "p\n", 2, &e), 0);
	assert_int_equal(stat(fixture_path(f, "open"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	s = fixture_slurp(f, "open", &len);
	assert_string_equal(s, "p\n");
	free(s);
	fixture_puts(f, "target", "t\n");
	assert_int_equal(chmod(fixture_path(f, "target"), 0644), 0);
	assert_int_equal(symlink("target", fixture_path(f, "link")), 0);
	assert_int_equal(fs_write_private(fixture_path(f, "link"), "l\n", 2, &e), 0);
	assert_int_equal(lstat(fixture_path(f, "link"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(fixture_path(f, "target"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	s = fixture_slurp(f, "target", &len);
	assert_string_equal(s, "t\n");
	free(s);
	/* failures */
	fixture_puts(f, "kept", "k\n");
	assert_int_equal(chmod(fixture_path(f, "kept"), 0644), 0);
	limit_fsize(4096);
	assert_int_equal(fs_write_private(fixture_path(f, "made"), big, 8192, &e), -1);
	assert_int_equal(fs_write_private(fixture_path(f, "kept"), big, 8192, &e), -1);
	limit_fsize(0);
	assert_int_equal(access(fixture_path(f, "made"), F_OK), -1);
	s = fixture_slurp(f, "kept", &len);
	assert_string_equal(s, "k\n");
	free(s);
	assert_int_equal(stat(fixture_path(f, "kept"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(count_entries(f->root), 5);
	/* no descriptor kept; with stdin closed the placeholder is fd 0, still removed on failure */
	{
		int fds = tu_open_fds(), saved, rc, open0;

		assert_int_equal(fs_write_private(fixture_path(f, "fresh"), "r\n", 2, &e), 0);
		assert_int_equal(tu_open_fds(), fds);
		saved = dup(0);
		close(0);
		limit_fsize(4096);
		rc = fs_write_private(fixture_path(f, "made0"), big, 8192, &e);
		limit_fsize(0);
		open0 = fcntl(0, F_GETFD) >= 0;
		dup2(saved, 0);
		close(saved);
		assert_int_equal(rc, -1);
		assert_false(open0); /* the placeholder's fd 0 was closed */
		assert_int_equal(access(fixture_path(f, "made0"), F_OK), -1);
		assert_int_equal(tu_open_fds(), fds);
	}
	/* a directory in the way */
	fixture_mkdir(f, "dir");
	assert_int_equal(fs_write_private(fixture_path(f, "dir"), "x", 1, &e), -1);
	assert_int_equal(stat(fixture_path(f, "dir"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(big);
	fixture_free(f);
}

/*
 * Issue 20: fs_mkdirs_private makes new directories 0700 (umask 0), takes
 * group and other access from an existing last component (keeping the
 * owner's bits) and leaves its parents alone; fs_mkdirs makes them 0777
 * minus umask, also for a relative path.
 */
static void
test_mkdirs_private(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	struct stat st;
	mode_t old = umask(0);
	char cwd[PATH_MAX];

	(void)state;
	assert_int_equal(fs_mkdirs_private(fixture_path(f, "p/q"), &e), 0);
	assert_int_equal(stat(fixture_path(f, "p"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(fixture_path(f, "p/q"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(mkdir(fixture_path(f, "o"), 0777), 0);
	assert_int_equal(mkdir(fixture_path(f, "o/s"), 0575), 0);
	assert_int_equal(fs_mkdirs_private(fixture_path(f, "o/s"), &e), 0);
	assert_int_equal(stat(fixture_path(f, "o/s"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0500);
	assert_int_equal(stat(fixture_path(f, "o"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0777);
	assert_int_equal(mkdir(fixture_path(f, "o/t"), 0677), 0); /* open to others, owner without x */
	assert_int_equal(fs_mkdirs_private(fixture_path(f, "o/t"), &e), 0);
	assert_int_equal(stat(fixture_path(f, "o/t"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(fs_mkdirs(fixture_path(f, "m/n"), &e), 0);
	assert_int_equal(stat(fixture_path(f, "m/n"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0777);
	umask(022);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->root), 0);
	errno = ENOENT; /* stale: each mkdir's own result counts */
	assert_int_equal(fs_mkdirs("r/s/", &e), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(stat(fixture_path(f, "r/s"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	fixture_puts(f, "file", "x");
	assert_int_equal(fs_mkdirs_private(fixture_path(f, "file"), &e), -1);
	assert_non_null(strstr(e.msg, "a file with that name exists"));
	err_clear(&e);
	assert_int_equal(fs_mkdirs(fixture_path(f, "file/sub/deeper"), &e), -1);
	assert_non_null(strstr(e.msg, "a file with that name exists")); /* the first failure, reported */
	umask(old);
	fixture_free(f);
}

static void
test_mkdirs(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	struct stat st;

	(void)state;
	assert_int_equal(fs_mkdirs(fixture_path(f, "a/b/c"), &e), 0);
	assert_int_equal(stat(fixture_path(f, "a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(fs_mkdirs(fixture_path(f, "a/b/c"), &e), 0);
	fixture_puts(f, "file", "x");
	assert_int_equal(fs_mkdirs(fixture_path(f, "file/sub"), &e), -1);
	assert_true(err_isset(&e));
	fixture_free(f);
}

struct seen {
	struct buf names;
	int stop_after;
	int count;
};

/* Record each visited rel path, one per line. */
static int
record(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct seen *s = arg;

	(void)abs;
	buf_addf(&s->names, "%s%s\n", rel, S_ISDIR(st->st_mode) ? "/" : "");
	return ++s->count == s->stop_after;
}

/* Walk start and return the visit list (malloc'd). */
static char *
walk(struct fixture *f, const char *start, int stop_after, size_t max, int *truncated)
{
	struct seen s = { BUF_INIT, stop_after, 0 };
	struct fs_walk w = { f->root, record, &s, max, 0, 0, 0 };
	struct err e = ERR_INIT;

	assert_int_equal(fs_walk(&w, start, &e), 0);
	if (truncated)
		*truncated = w.truncated;
	return buf_detach(&s.names, NULL);
}

static void
test_walk_sorted(void **state)
{
	struct fixture *f = fixture_new();
	char *s;
	int trunc;

	(void)state;
	fixture_mkdir(f, "b");
	fixture_mkdir(f, ".git");
	fixture_puts(f, ".git/config", "x");
	fixture_puts(f, "b/z", "");
	fixture_puts(f, "b/a", "");
	fixture_puts(f, "a.c", "");
	fixture_puts(f, "C", "");
	assert_int_equal(symlink(f->root, fixture_path(f, "loop")), 0);
	s = walk(f, f->root, 0, 0, &trunc);
	assert_string_equal(s, "C\na.c\nb/\nb/a\nb/z\nloop\n");
	assert_int_equal(trunc, 0);
	free(s);
	s = walk(f, f->root, 3, 0, NULL);
	assert_string_equal(s, "C\na.c\nb/\n");
	free(s);
	s = walk(f, f->root, 0, 2, &trunc);
	assert_string_equal(s, "C\na.c\n");
	assert_int_equal(trunc, 1);
	free(s);
	s = walk(f, fixture_path(f, "b/a"), 0, 0, NULL);
	assert_string_equal(s, "b/a\n");
	free(s);
	fixture_free(f);
}

/* The walk's limit note: only after a walk that stopped, on a line of its own. */
static void
test_walk_note(void **state)
{
	struct fs_walk w = { "/", NULL, NULL, 2, 0, 0, 0 };
	struct buf out = BUF_INIT;

	(void)state;
	fs_walk_note(&w, &out);
	assert_int_equal(out.len, 0);
	w.truncated = 1;
	fs_walk_note(&w, &out);
	assert_string_equal(out.data, "[stopped after 2 entries; pass a narrower path]");
	buf_reset(&out);
	buf_adds(&out, "a.c");
	fs_walk_note(&w, &out);
	assert_string_equal(out.data, "a.c\n[stopped after 2 entries; pass a narrower path]");
	buf_reset(&out);
	buf_adds(&out, "a.c\n");
	fs_walk_note(&w, &out);
	assert_string_equal(out.data, "a.c\n[stopped after 2 entries; pass a narrower path]");
	buf_release(&out);
}

static void
test_walk_gitignore(void **state)
{
	struct fixture *f = fixture_new();
	git_repository *repo = NULL;
	char *s;

	(void)state;
	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, f->root, 0), 0);
	git_repository_free(repo);
	git_libgit2_shutdown();
	fixture_puts(f, ".gitignore", "build/\n*.o\n");
	fixture_mkdir(f, "build");
	fixture_puts(f, "build/out", "");
	fixture_mkdir(f, "src");
	fixture_puts(f, "src/a.c", "");
	fixture_puts(f, "src/a.o", "");
	s = walk(f, f->root, 0, 0, NULL);
	assert_string_equal(s, ".gitignore\nsrc/\nsrc/a.c\n");
	free(s);
	/* a walk started below the work tree's top finds the repository */
	s = walk(f, fixture_path(f, "src"), 0, 0, NULL);
	assert_string_equal(s, "src/a.c\n");
	free(s);
	/* an explicitly named ignored directory is searched */
	s = walk(f, fixture_path(f, "build"), 0, 0, NULL);
	assert_string_equal(s, "build/out\n");
	free(s);
	/*
	 * Issue 20: a walk started through a symlink is ignored as the files
	 * it reaches: src/gen/ is ignored as lnk/./gen (lnk -> src) too, and
	 * from a link outside the work tree (every entry was kept)
	 */
	fixture_puts(f, ".gitignore", "build/\n*.o\nsrc/gen/\n");
	fixture_mkdir(f, "src/gen");
	fixture_puts(f, "src/gen/g.c", "");
	fixture_puts(f, "src/z.c", ""); /* after a.o and gen: each entry is mapped afresh */
	assert_int_equal(symlink("src", fixture_path(f, "lnk")), 0);
	s = walk(f, fixture_path(f, "lnk/."), 0, 0, NULL);
	assert_string_equal(s, "lnk/./a.c\nlnk/./z.c\n");
	free(s);
	s = walk(f, fixture_path(f, "lnk/./"), 0, 0, NULL);
	assert_string_equal(s, "lnk/./a.c\nlnk/./z.c\n");
	free(s);
	/* sr -> src: the start's name is a prefix of its real path's, and still a symlink on the way */
	assert_int_equal(symlink("src", fixture_path(f, "sr")), 0);
	s = walk(f, fixture_path(f, "sr/"), 0, 0, NULL);
	assert_string_equal(s, "sr/a.c\nsr/z.c\n");
	free(s);
	{
		struct fixture *out = fixture_new();
		struct buf want = BUF_INIT;

		assert_int_equal(symlink(f->root, fixture_path(out, "repo")), 0);
		s = walk(f, fixture_path(out, "repo/src"), 0, 0, NULL);
		buf_addf(&want, "%s/repo/src/a.c\n%s/repo/src/z.c\n", out->root, out->root);
		assert_string_equal(s, want.data);
		buf_release(&want);
		free(s);
		fixture_free(out);
	}
	fixture_free(f);
}

/*
 * Issue 20: a repository whose core.worktree is elsewhere (w, where a
 * .gitignore ignores every .c): a walk of the directory holding its .git
 * is not in that work tree, so nothing there is ignored by it.
 */
static void
test_walk_worktree_elsewhere(void **state)
{
	struct fixture *f = fixture_new();
	struct buf cmd = BUF_INIT;
	char *s;

	(void)state;
	fixture_mkdir(f, "a");
	fixture_mkdir(f, "a/sub");
	fixture_mkdir(f, "w");
	fixture_puts(f, "w/.gitignore", "*.c\n");
	fixture_puts(f, "a/sub/x.c", "");
	buf_addf(&cmd, "cd '%s/a' && git init -q && git config core.worktree '%s/w'", f->root, f->root);
	assert_int_equal(system(cmd.data), 0);
	s = walk(f, fixture_path(f, "a"), 0, 0, NULL);
	assert_string_equal(s, "a/sub/\na/sub/x.c\n");
	free(s);
	s = walk(f, fixture_path(f, "a/sub"), 0, 0, NULL); /* (its name as long as w's: "sub/x.c" if read as w's) */
	assert_string_equal(s, "a/sub/x.c\n");
	free(s);
	buf_release(&cmd);
	fixture_free(f);
}

/* Per entry of a types_only walk: the type letter, and whether the other fields were zero. */
static int
record_types(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct buf *b = arg;
	char t = S_ISREG(st->st_mode) ? 'f' : S_ISDIR(st->st_mode) ? 'd' : S_ISLNK(st->st_mode) ? 'l' :
		 S_ISFIFO(st->st_mode) ? 'p' : S_ISSOCK(st->st_mode) ? 's' : S_ISCHR(st->st_mode) ? 'c' :
		 S_ISBLK(st->st_mode) ? 'b' : '?';

	(void)abs;
	buf_addf(b, "%s %c%s\n", rel, t, st->st_size == 0 && st->st_ino == 0 && st->st_nlink == 0 ? "0" : "");
	return 0;
}

/*
 * Issue 20: a types_only walk takes each entry's type from its directory
 * entry, every other field 0 (a regular file, a directory, a symlink, a
 * FIFO, a socket, a character device); a full walk stats them.
 */
static void
test_walk_types(void **state)
{
	struct fixture *f = fixture_new();
	struct buf b = BUF_INIT;
	struct fs_walk w = { f->root, record_types, &b, 0, 0, 0, 1 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct err e = ERR_INIT;
	int sock;

	(void)state;
	fixture_puts(f, "file", "content\n");
	fixture_mkdir(f, "dir");
	assert_int_equal(symlink("file", fixture_path(f, "link")), 0);
	assert_int_equal(mkfifo(fixture_path(f, "pipe"), 0600), 0);
	assert_true(snprintf(sa.sun_path, sizeof sa.sun_path, "%s", fixture_path(f, "sock")) <
		    (int)sizeof sa.sun_path);
	assert_true((sock = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(fs_walk(&w, f->root, &e), 0);
	assert_string_equal(b.data, "dir d0\nfile f0\nlink l0\npipe p0\nsock s0\n");
	buf_reset(&b);
	w.types_only = 0;
	assert_int_equal(fs_walk(&w, f->root, &e), 0);
	assert_string_equal(b.data, "dir d\nfile f\nlink l\npipe p\nsock s\n");
	close(sock);
	/* a character device (the jail's /dev has null) */
	buf_reset(&b);
	w.root = "/dev";
	w.types_only = 1;
	w.max_entries = 5000;
	if (fs_walk(&w, "/dev", &e) == 0 && strstr(b.data, "\nnull ")) {
		assert_non_null(strstr(b.data, "\nnull c0\n"));
	} else {
		print_message("no /dev/null to walk; that part skipped\n");
	}
	buf_release(&b);
	fixture_free(f);
}

/* Count visits. */
static int
count_visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	(void)abs, (void)rel, (void)st;
	++*(int *)arg;
	return 0;
}

/*
 * Issue 20: the walk goes 64 directories down below the start and no
 * further (65 levels of entries); a start with a trailing '/' gives the
 * same relative names; a missing start is an error; with stdin closed
 * (the start's fd 0) the walk is the same, and when the names cannot be
 * read (no descriptor left) the start's fd is closed all the same.
 */
static void
test_walk_limits(void **state)
{
	struct fixture *f = fixture_new();
	struct err e = ERR_INIT;
	char start[PATH_MAX * 2], *s;
	struct buf rel = BUF_INIT;
	int i, n = 0, saved;
	struct fs_walk w = { f->root, count_visit, &n, 0, 0, 0, 0 };

	(void)state;
	for (i = 0; i < 70; i++) {
		buf_adds(&rel, i ? "/d" : "d");
		fixture_mkdir(f, rel.data);
	}
	buf_release(&rel);
	assert_int_equal(fs_walk(&w, f->root, &e), 0);
	assert_int_equal(n, 65);
	assert_int_equal(w.ignored, 0);
	fixture_rmrf(fixture_path(f, "d"));
	fixture_mkdir(f, "sub");
	fixture_puts(f, "sub/x", "");
	snprintf(start, sizeof start, "%s/", f->root);
	s = walk(f, start, 0, 0, NULL);
	assert_string_equal(s, "sub/\nsub/x\n");
	free(s);
	saved = dup(0);
	close(0);
	s = walk(f, f->root, 0, 0, NULL);
	dup2(saved, 0);
	close(saved);
	assert_string_equal(s, "sub/\nsub/x\n");
	free(s);
	assert_int_equal(fs_walk(&w, fixture_path(f, "missing"), &e), -1);
	assert_non_null(strstr(e.msg, "missing"));
	/* no descriptor for the names (EMFILE, the start's fd 0): nothing visited, fd 0 closed again */
	{
		struct rlimit rl, lim;
		int rc, open0;

		n = 0;
		saved = dup(0);
		close(0);
		assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
		lim = rl;
		lim.rlim_cur = 1;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
		rc = fs_walk(&w, fixture_path(f, "sub"), &e);
		open0 = fcntl(0, F_GETFD) >= 0;
		setrlimit(RLIMIT_NOFILE, &rl);
		dup2(saved, 0);
		close(saved);
		assert_int_equal(rc, 0);
		assert_int_equal(n, 0);
		assert_false(open0);
	}
	fixture_free(f);
}

/* Keep the first abs visited. */
static int
first_abs(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	(void)rel, (void)st;
	snprintf(arg, PATH_MAX, "%s", abs);
	return 1;
}

/* Issue 20: a walk of "/" names its entries "/NAME", not "//NAME". */
static void
test_walk_root(void **state)
{
	char abs[PATH_MAX] = "";
	struct fs_walk w = { "/", first_abs, abs, 0, 0, 0, 1 };
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(fs_walk(&w, "/", &e), 0);
	assert_true(abs[0] == '/' && abs[1] != '/' && abs[1] != '\0');
}

/*
 * Issue 20: what the index tracks is walked even where .gitignore ignores
 * it (a file, and a directory holding one, also after another directory);
 * untracked ignored entries are skipped and counted (gen/ too, though gen2/
 * holds a tracked file).
 */
static void
test_walk_tracked(void **state)
{
	struct fixture *f = fixture_new();
	git_repository *repo = NULL;
	git_index *idx = NULL;
	struct seen sn = { BUF_INIT, 0, 0 };
	struct fs_walk w = { f->root, record, &sn, 0, 0, 0, 0 };
	struct err e = ERR_INIT;

	(void)state;
	fixture_puts(f, ".gitignore", "*.log\nbuild/\ngen/\n");
	fixture_mkdir(f, "art");
	fixture_puts(f, "art/x", "");
	fixture_mkdir(f, "gen");
	fixture_puts(f, "gen/out", "");
	fixture_mkdir(f, "gen2");
	fixture_puts(f, "gen2/t.c", "");
	fixture_puts(f, "t.log", "");
	fixture_puts(f, "u.log", "");
	fixture_mkdir(f, "build");
	fixture_puts(f, "build/kept.c", "");
	fixture_puts(f, "build/other.c", "");
	git_libgit2_init();
	assert_int_equal(git_repository_init(&repo, f->root, 0), 0);
	assert_int_equal(git_repository_index(&idx, repo), 0);
	assert_int_equal(git_index_add_bypath(idx, "t.log"), 0);
	assert_int_equal(git_index_add_bypath(idx, "build/kept.c"), 0);
	assert_int_equal(git_index_add_bypath(idx, "gen2/t.c"), 0);
	assert_int_equal(git_index_write(idx), 0);
	git_index_free(idx);
	git_repository_free(repo);
	git_libgit2_shutdown();
	assert_int_equal(fs_walk(&w, f->root, &e), 0);
	assert_string_equal(sn.names.data,
			    ".gitignore\nart/\nart/x\nbuild/\nbuild/kept.c\ngen2/\ngen2/t.c\nt.log\n");
	assert_int_equal(w.ignored, 3);
	/* started in the directory that holds a tracked file: not an ignored start, rules kept */
	buf_reset(&sn.names);
	assert_int_equal(fs_walk(&w, fixture_path(f, "build"), &e), 0);
	assert_string_equal(sn.names.data, "build/kept.c\n");
	/* an index that cannot be read: .gitignore alone decides */
	fixture_puts(f, ".git/index", "not an index");
	buf_reset(&sn.names);
	assert_int_equal(fs_walk(&w, f->root, &e), 0);
	assert_string_equal(sn.names.data, ".gitignore\nart/\nart/x\ngen2/\ngen2/t.c\n");
	buf_release(&sn.names);
	fixture_free(f);
}

static void
test_glob(void **state)
{
	(void)state;
	assert_true(fs_glob_match("*.c", "a.c"));
	assert_true(fs_glob_match("*.c", "src/deep/a.c"));
	assert_false(fs_glob_match("*.c", "a.h"));
	assert_true(fs_glob_match("src/*.c", "src/a.c"));
	assert_false(fs_glob_match("src/*.c", "src/x/a.c"));
	/* a leading "./" on either side is dropped (issue 20: and nothing more) */
	assert_true(fs_glob_match("src/*.c", "./src/a.c"));
	assert_true(fs_glob_match("./src/*.c", "src/a.c"));
	assert_true(fs_glob_match("./src/*.c", "././src/a.c"));
	assert_false(fs_glob_match("rc/*.c", "./src/a.c"));
	assert_true(fs_glob_match("src/**/*.c", "src/a.c"));
	assert_true(fs_glob_match("src/**/*.c", "src/x/y/a.c"));
	assert_false(fs_glob_match("src/**/*.c", "lib/a.c"));
	assert_true(fs_glob_match("**/*.h", "a.h"));
	assert_true(fs_glob_match("**/*.h", "x/a.h"));
	assert_true(fs_glob_match("src/**", "src/x/y"));
	assert_true(fs_glob_match("**/test/**/*.py", "a/test/b/c.py"));
	assert_true(fs_glob_match("*.{c,h}", "x/a.h"));
	assert_true(fs_glob_match("src/**/*.{c,h}", "src/q/a.c"));
	assert_false(fs_glob_match("*.{c,h}", "a.o"));
	assert_true(fs_glob_match("{Makefile,*.mk}", "mk/x.mk"));
	assert_true(fs_glob_match("a{b,{c,d}}e", "ade"));
	assert_true(fs_glob_match("./src/a.c", "src/a.c"));
	assert_true(fs_glob_match("/src/a.c", "src/a.c"));
	assert_true(fs_glob_match("{x}", "{x}"));
	assert_false(fs_glob_match("{a,b", "a"));
	/* brace expansion is bounded */
	assert_false(fs_glob_match("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", "bbbbbbbb"));
	assert_true(fs_glob_match("{a,b}{a,b}{a,b}", "bba"));
	/* malformed patterns never crash */
	assert_false(fs_glob_match("[", "a"));
	assert_false(fs_glob_match("{", "a"));
	assert_false(fs_glob_match("}{,", "a"));
	assert_true(fs_glob_match("**/**/**", "a/b"));
	assert_false(fs_glob_match("a/\\", "a/b"));
	assert_false(fs_glob_match("", "a"));
	assert_true(fs_glob_match("{,a}b", "b"));
}

/* Issue 20: glob edge cases, each one a way the matcher could go wrong. */
static void
test_glob_edges(void **state)
{
	char pat[600], path[600];

	(void)state;
	/* "**" is a whole segment of two stars, nothing else */
	assert_false(fs_glob_match("a*/b", "x/y/b"));
	assert_false(fs_glob_match("*a/b", "x/y/b"));
	assert_false(fs_glob_match("ab/c", "x/y/c"));
	assert_false(fs_glob_match("src/**/*.c", "src/x/a.h"));
	assert_false(fs_glob_match("**/x.c", "a/b.c"));
	assert_true(fs_glob_match("a/**/b/**/c", "a/b/x/c"));
	/* a pattern segment left over, a path segment left over */
	assert_false(fs_glob_match("a/b/*", "a/b"));
	assert_false(fs_glob_match("a/b", "a/b/c"));
	assert_false(fs_glob_match("a/x", "a/y"));
	/* only a leading "./" goes, on either side; a bare name matches the basename */
	assert_false(fs_glob_match("a/*.c", "b/x.c"));
	assert_true(fs_glob_match("a/*.c", "a/x.c"));
	assert_true(fs_glob_match(".git*", ".gitignore"));
	assert_true(fs_glob_match(".git*", "sub/.gitignore"));
	assert_true(fs_glob_match("./.git*", "./.gitignore"));
	assert_true(fs_glob_match("Makefile", "sub/Makefile"));
	assert_true(fs_glob_match("Makefile", "Makefile"));
	assert_false(fs_glob_match("akefile", "sub/Makefile"));
	/* backslash escapes, in segments, basenames and brace groups */
	assert_true(fs_glob_match("d/\\*", "d/*"));
	assert_false(fs_glob_match("d/\\*", "d/x"));
	assert_true(fs_glob_match("\\*", "*"));
	assert_false(fs_glob_match("\\*", "x"));
	assert_true(fs_glob_match("\\{a,b}", "{a,b}"));
	assert_false(fs_glob_match("\\{a,b}", "a"));
	assert_true(fs_glob_match("{a\\,b,c}", "a,b"));
	assert_true(fs_glob_match("{a\\,b,c}", "c"));
	assert_false(fs_glob_match("{a\\,b,c}", "a"));
	/* braces that are no group */
	assert_true(fs_glob_match("a,b}", "a,b}"));
	assert_true(fs_glob_match("}{a,b}", "}a"));
	assert_true(fs_glob_match("}{a,b}", "}b"));
	assert_true(fs_glob_match("{a}{b,c}", "{a}c"));
	assert_true(fs_glob_match("x{a,{b,c}d}y", "xbdy"));
	assert_false(fs_glob_match("x{a,{b,c}d}y", "xby"));
	assert_true(fs_glob_match("{a,b}{c,d}", "bd"));
	/* exactly 64 alternatives are tried, the last one too */
	assert_true(fs_glob_match("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", "bbbbbb"));
	assert_false(fs_glob_match("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", "bbbbbbb"));
	/* a segment of NAME_MAX bytes is matched; longer ones never */
	memset(pat, 'n', sizeof pat);
	memcpy(pat, "d/", 2);
	pat[2 + NAME_MAX] = '\0';
	memcpy(path, pat, sizeof pat);
	assert_true(fs_glob_match(pat, path));
	pat[2 + NAME_MAX] = 'n';
	pat[3 + NAME_MAX] = '\0';
	memcpy(path, pat, sizeof pat);
	assert_false(fs_glob_match(pat, path));
	assert_false(fs_glob_match("d/*", path));
	memcpy(pat, path, sizeof pat);
	memcpy(path, "d/x", 4);
	assert_false(fs_glob_match(pat, path));
}

static void
test_utf8(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(fs_utf8_len("a", 1), 1);
	assert_int_equal(fs_utf8_len("\xC3\xA9", 2), 2);
	assert_int_equal(fs_utf8_len("\xE2\x82\xAC", 3), 3);
	assert_int_equal(fs_utf8_len("\xF0\x9F\x98\x80", 4), 4);
	assert_int_equal(fs_utf8_len("\xC0\xAF", 2), 0);     /* overlong */
	assert_int_equal(fs_utf8_len("\xE0\x80\xAF", 3), 0); /* overlong */
	assert_int_equal(fs_utf8_len("\xED\xA0\x80", 3), 0); /* surrogate */
	assert_int_equal(fs_utf8_len("\xF4\x90\x80\x80", 4), 0);
	assert_int_equal(fs_utf8_len("\xF4\x8F\xBF\xBF", 4), 4); /* U+10FFFF, the last */
	assert_int_equal(fs_utf8_len("\xF5\x80\x80\x80", 4), 0); /* no lead byte above F4 */
	assert_int_equal(fs_utf8_len("\xF7\xBF\xBF\xBF", 4), 0);
	assert_int_equal(fs_utf8_len("\xE2\x82", 2), 0);     /* truncated */
	assert_int_equal(fs_utf8_len("\x80", 1), 0);
	fs_add_utf8(&b, "a\xFF" "b\xC3\xA9\xE2\x82", 7);
	assert_string_equal(b.data, "a\xEF\xBF\xBD" "b\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
	buf_release(&b);
}

/* Issue 20: every boundary of the UTF-8 table (lead bytes, second-byte ranges, continuations). */
static void
test_utf8_bounds(void **state)
{
	static const struct {
		const char *s;
		size_t n, want;
	} t[] = {
		{ "", 0, 0 },
		{ "\x00", 1, 1 },
		{ "\x7F", 1, 1 },
		{ "\x80\x80", 2, 0 },
		{ "\xBF\x80", 2, 0 },
		{ "\xC1\xBF", 2, 0 },
		{ "\xC2\x80", 2, 2 },
		{ "\xC2\x80", 1, 0 },
		{ "\xC2\x7F", 2, 0 },
		{ "\xC2\xBF", 2, 2 },
		{ "\xC2\xC0", 2, 0 },
		{ "\xDF\xBF", 2, 2 },
		{ "\xDF\xC0", 2, 0 },
		{ "\xE0\xA0\x80", 3, 3 },
		{ "\xE0\x9F\xBF", 3, 0 },
		{ "\xE1\x80\x80", 3, 3 },
		{ "\xE1\x7F\x80", 3, 0 },
		{ "\xEC\xBF\xBF", 3, 3 },
		{ "\xED\x80\x80", 3, 3 },
		{ "\xED\x9F\xBF", 3, 3 },
		{ "\xED\xA0\x80", 3, 0 },
		{ "\xEE\x80\x80", 3, 3 },
		{ "\xEF\xBF\xBF", 3, 3 },
		{ "\xEF\xBF\xBF", 2, 0 },
		{ "\xEF\xC0\xBF", 3, 0 },
		{ "\xE2\x80\x7F", 3, 0 },
		{ "\xE2\x80\xC0", 3, 0 },
		{ "\xE2\x80\x80", 3, 3 },
		{ "\xE2\xBF\xBF", 3, 3 },
		{ "\xF0\x90\x80\x80", 4, 4 },
		{ "\xF0\x8F\xBF\xBF", 4, 0 },
		{ "\xF0\x90\x80\x80", 3, 0 },
		{ "\xF1\x80\x80\x80", 4, 4 },
		{ "\xF1\x7F\x80\x80", 4, 0 },
		{ "\xF3\xBF\xBF\xBF", 4, 4 },
		{ "\xF3\xC0\xBF\xBF", 4, 0 },
		{ "\xF4\x80\x80\x80", 4, 4 },
		{ "\xF4\x8F\xBF\xBF", 4, 4 },
		{ "\xF4\x90\x80\x80", 4, 0 },
		{ "\xF0\x9F\x98\x7F", 4, 0 },
		{ "\xF0\x9F\x98\xC0", 4, 0 },
		{ "\xF0\x9F\x7F\x80", 4, 0 },
		{ "\xF0\x9F\xC0\x80", 4, 0 },
		{ "\xF8\x88\x80\x80", 4, 0 },
		{ "\xFF", 1, 0 },
	};
	struct buf b = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (fs_utf8_len(t[i].s, t[i].n) != t[i].want)
			print_message("case %zu\n", i);
		assert_int_equal(fs_utf8_len(t[i].s, t[i].n), t[i].want);
	}
	/* the first byte is checked too, and kept when valid */
	fs_add_utf8(&b, "\xFF" "a", 2);
	assert_string_equal(b.data, "\xEF\xBF\xBD" "a");
	buf_reset(&b);
	fs_add_utf8(&b, "\xC3\xA9" "b", 3);
	assert_string_equal(b.data, "\xC3\xA9" "b");
	buf_reset(&b);
	fs_add_utf8(&b, "x", 0);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void
test_binary(void **state)
{
	char big[FS_SNIFF + 10];
	const char *latin1;
	size_t i;

	(void)state;
	assert_false(fs_is_binary("hello\n\tworld\r\n", 14));
	assert_false(fs_is_binary("", 0));
	assert_true(fs_is_binary("ab\0cd", 5));
	latin1 = "caf\xE9 cr\xE8me br\xFBl\xE9\x65 is a French dessert of custard and caramel";
	assert_false(fs_is_binary(latin1, strlen(latin1)));
	assert_true(fs_is_binary("\xFF\xFE\x81\x82\x83x", 6));
	assert_true(fs_is_binary("\x01\x02\x03\x04xy", 6));
	for (i = 0; i < sizeof big; i++)
		big[i] = 'a';
	big[FS_SNIFF + 2] = '\0'; /* beyond the sniff window */
	assert_false(fs_is_binary(big, sizeof big));
	memcpy(big + FS_SNIFF - 2, "\xE2\x82", 2); /* cut by the window */
	assert_false(fs_is_binary(big, sizeof big));
}

/* n bytes of 'a' with the first `bad` of them 0x01 (a control character that counts). */
static void
fill_bad(char *p, size_t n, size_t bad)
{
	memset(p, 'a', n);
	memset(p, 0x01, bad);
}

/*
 * Issue 20: fs_is_binary's counts: the allowed control characters (\b \t
 * \n \v \f \r ESC) and valid UTF-8 are not bad, other controls and
 * invalid bytes are; binary is more than 10% bad (exactly 10% is text); a
 * NUL anywhere is binary; a sequence cut by the sniff window is not
 * counted, one cut by the end of a short input is.
 */
static void
test_binary_counts(void **state)
{
	static const char ok[] = { '\b', '\t', '\n', '\v', '\f', '\r', 033 };
	char s[FS_SNIFF + 16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ok; i++) {
		memset(s, ok[i], 5);
		memcpy(s + 5, "abcde", 5);
		assert_false(fs_is_binary(s, 10));
	}
	memset(s, 034, 5);
	assert_true(fs_is_binary(s, 10));
	assert_false(fs_is_binary("\x01" "aaaaaaaaa", 10)); /* 10%: text */
	assert_true(fs_is_binary("\x01" "aaaaaaaa", 9));
	assert_false(fs_is_binary("abc", 3));
	assert_true(fs_is_binary("\x80\x80\x80", 3));
	assert_true(fs_is_binary("\0abc", 4));
	assert_true(fs_is_binary("aaaaaaaaaaaaaaaaaaaa\0", 21));
	assert_false(fs_is_binary("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 10));
	assert_false(fs_is_binary("   \x7F      ", 10));
	assert_true(fs_is_binary("ab\xE2\x82", 4)); /* the input ends there: invalid */
	/* at the window: 819 bad bytes are 10% of 8192 (text); one more is binary */
	fill_bad(s, sizeof s, 819);
	assert_false(fs_is_binary(s, sizeof s));
	s[FS_SNIFF - 4] = (char)0xFF; /* four before the end: counted */
	assert_true(fs_is_binary(s, sizeof s));
	s[FS_SNIFF - 4] = 'a';
	memcpy(s + FS_SNIFF - 2, "\xE2\x82", 2); /* cut by the window: not counted */
	assert_false(fs_is_binary(s, sizeof s));
	memcpy(s + FS_SNIFF - 2, "aa", 2);
	s[FS_SNIFF] = 0x01; /* beyond the window: not seen */
	assert_false(fs_is_binary(s, sizeof s));
	/* valid UTF-8 first, then 10% and one bad bytes: counting goes on past it */
	fill_bad(s, FS_SNIFF, 0);
	memcpy(s, "\xC3\xA9", 2);
	memset(s + 100, 0x01, 820);
	assert_true(fs_is_binary(s, FS_SNIFF));
	/* a NUL in the last bytes of the window, after a sequence the window cuts: seen
	 * (grep looks for NULs only past the window) */
	fill_bad(s, FS_SNIFF, 0);
	s[FS_SNIFF - 3] = (char)0xE2;
	s[FS_SNIFF - 1] = '\0';
	assert_true(fs_is_binary(s, FS_SNIFF));
}

/*
 * fs_is_binary takes plain text eight bytes at a time (fs_plain8): every
 * byte value in every place of a word, aligned and not, is judged as a
 * byte at a time judges it.  One bad byte in eight is binary (> 10 %), so
 * the answer is that byte's: a NUL, a control other than \b..\r and ESC,
 * or a byte >= 0x80 alone (no valid UTF-8 sequence).
 */
static void
test_binary_words(void **state)
{
	char s[32];
	unsigned c, at, off;
	int bad;

	(void)state;
	for (c = 0; c < 256; c++) {
		bad = c == 0 || c >= 0x80 || (c < 0x20 && !(c >= '\b' && c <= '\r') && c != 033);
		for (off = 0; off < 4; off += 3)
			for (at = 0; at < 8; at++) {
				memset(s, 'a', sizeof s);
				s[off + at] = (char)c;
				if (fs_is_binary(s + off, 8) != bad)
					fail_msg("byte 0x%02x at %u (offset %u): %s", c, at, off,
						 bad ? "taken as text" : "taken as binary");
				/* in the second word of 16: 1 in 16 is text, unless a NUL */
				memset(s, 'a', sizeof s);
				s[off + 8 + at] = (char)c;
				if (fs_is_binary(s + off, 16) != (c == 0))
					fail_msg("byte 0x%02x at %u of 16 (offset %u)", c, 8 + at, off);
			}
		/* a byte at a time: in a tail of fewer than 8, and in a word with é */
		for (at = 0; at < 7; at++) {
			memset(s, 'a', sizeof s);
			s[at] = (char)c;
			if (fs_is_binary(s, 7) != bad)
				fail_msg("byte 0x%02x at %u of 7", c, at);
		}
		memcpy(s, "\xC3\xA9" "aaaaaaaa", 10);
		s[2] = (char)c;
		if (fs_is_binary(s, 8) != bad)
			fail_msg("byte 0x%02x after an e-acute", c);
	}
	/* words of nothing but the controls text has, and DEL: text */
	assert_false(fs_is_binary("\b\t\n\v\f\r\033\x7f\t\n ~!\r\n", 15));
	assert_true(fs_is_binary("\x01\x02" "a\n\ta\na\n\ta\na\n\ta\na\n\ta\n", 19)); /* 2 bad in 19 */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_write_all_no_progress),
		cmocka_unit_test(test_write_all_interrupted),
		cmocka_unit_test(test_write_atomic_umask),
		cmocka_unit_test(test_write_atomic_fails),
		cmocka_unit_test(test_write_atomic_fd0),
		cmocka_unit_test(test_write_atomic_steps_fail),
		cmocka_unit_test(test_write_private),
		cmocka_unit_test(test_mkdirs_private),
		cmocka_unit_test(test_mkdirs),
		cmocka_unit_test(test_walk_sorted),
		cmocka_unit_test(test_walk_note),
		cmocka_unit_test(test_walk_gitignore),
		cmocka_unit_test(test_walk_worktree_elsewhere),
		cmocka_unit_test(test_walk_types),
		cmocka_unit_test(test_walk_limits),
		cmocka_unit_test(test_walk_tracked),
		cmocka_unit_test(test_walk_root),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_glob_edges),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_utf8_bounds),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_binary_counts),
		cmocka_unit_test(test_binary_words),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

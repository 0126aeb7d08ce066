/*
 * test_fsutil: atomic replace (mode kept, no temp file left, failures
 * harmless), mkdirs, the sorted ignore-aware walk, glob matching with **
 * and braces, UTF-8 validation and binary sniffing.
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
	/* an explicitly named ignored directory is searched */
	s = walk(f, fixture_path(f, "build"), 0, 0, NULL);
	assert_string_equal(s, "build/out\n");
	free(s);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_write_all),
		cmocka_unit_test(test_write_all_no_progress),
		cmocka_unit_test(test_write_all_interrupted),
		cmocka_unit_test(test_write_atomic_umask),
		cmocka_unit_test(test_mkdirs),
		cmocka_unit_test(test_walk_sorted),
		cmocka_unit_test(test_walk_note),
		cmocka_unit_test(test_walk_gitignore),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_binary),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

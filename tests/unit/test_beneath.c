/*
 * test_beneath: race-free confinement (base/workspace.h beneath-open,
 * base/fs.h fs_write_beneath) and the temp-file journal.
 *
 *  - what beneath-open follows and refuses, with openat2 and with the
 *    component walk (forced, as on a kernel without openat2);
 *  - the race: a racer thread swaps a workspace directory with a symlink to
 *    a directory outside (renameat2 RENAME_EXCHANGE, as fast as it can)
 *    while 1,000 writes go through the write tool (resolve, check, write:
 *    the real path) and 1,000 through fs_write_beneath with the walk, and
 *    1,000 reads through the read path: nothing lands outside, no outside
 *    byte is read;
 *  - kill -9 mid-write: a child writing a large file is killed while its
 *    temp file exists; the next fs_temps_start removes it and the old file
 *    is intact;
 *  - the journal itself (issue 20): hand-made journals of dead, live and
 *    reused-pid runs replayed by the sweep, a run killed on cue (SIGXFSZ)
 *    after its journal was trimmed, the names recorded, taken temp names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <sys/wait.h>
#include <time.h>

#include "base/fs.h"
#include "base/workspace.h"
#include "testutil.h"
#include "tool_fixture.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define RACE_N 1000

extern const struct tool tool_write;
extern const struct tool tool_read;

/* Entries in dir other than . and .. (recursively for directories). */
static int
count_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX * 2];
	struct stat st;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			n += count_tree(p);
	}
	closedir(d);
	return n;
}

/* A directory under base (/tmp, or /dev/shm where the race wants no fsync cost). */
static char *
temp_dir_in(const char *base)
{
	char tmpl[64];
	char *real;

	snprintf(tmpl, sizeof tmpl, "%s/hearth-outside-XXXXXX", base);
	assert_non_null(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	assert_non_null(real);
	return real;
}

/* An outside directory next to the workspace; caller frees and removes. */
static char *
outside_dir(void)
{
	return temp_dir_in("/tmp");
}

/*
 * The race's workspace and outside directory on tmpfs when there is one:
 * a thousand fsyncs on a busy disk take tens of seconds, on tmpfs nothing,
 * and the race is in the path resolution, not in the file system.
 */
static const char *
race_base(void)
{
	return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/* Read fd whole into a static buffer. */
static const char *
slurp_fd(int fd)
{
	static char b[256];
	ssize_t n = read(fd, b, sizeof b - 1);

	b[n > 0 ? n : 0] = '\0';
	return b;
}

/* What beneath-open follows and what it refuses, in one mode. */
static void
check_rules(struct fixture *f, const char *out)
{
	char link[PATH_MAX * 2];
	int rootfd = open(f->root, O_RDONLY | O_DIRECTORY), fd;
	struct err e = ERR_INIT;

	assert_true(rootfd >= 0);
	/* plain, nested, "." and ".." that stay inside */
	fd = workspace_openat(rootfd, f->root, "d/in.txt", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_string_equal(slurp_fd(fd), "inside\n");
	close(fd);
	fd = workspace_openat(rootfd, f->root, "./d/../d/in.txt", O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
	/* ".." out of the root, an absolute path */
	assert_int_equal(workspace_openat(rootfd, f->root, "../x", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(workspace_openat(rootfd, f->root, "d/../../x", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	/* a relative symlink inside that stays inside: followed */
	fd = workspace_openat(rootfd, f->root, "rel_in/in.txt", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_string_equal(slurp_fd(fd), "inside\n");
	close(fd);
	fd = workspace_openat(rootfd, f->root, "file_link", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_string_equal(slurp_fd(fd), "inside\n");
	close(fd);
	/* an absolute symlink to a path inside: followed (the walk resolves it) */
	fd = workspace_openat(rootfd, f->root, "abs_in/in.txt", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_string_equal(slurp_fd(fd), "inside\n");
	close(fd);
	{	/* and so when the root is given with trailing slashes */
		char slashed[PATH_MAX + 3];

		snprintf(slashed, sizeof slashed, "%s//", f->root);
		fd = workspace_openat(rootfd, slashed, "abs_in/in.txt", O_RDONLY, 0);
		assert_true(fd >= 0);
		assert_string_equal(slurp_fd(fd), "inside\n");
		close(fd);
	}
	/* symlinks that lead out, absolute or relative, as directory or file */
	assert_int_equal(workspace_openat(rootfd, f->root, "abs_out/secret", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(workspace_openat(rootfd, f->root, "rel_out/secret", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(workspace_openat(rootfd, f->root, "secret_link", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(workspace_openat(rootfd, f->root, "abs_out/new", O_WRONLY | O_CREAT, 0644),
			 -1);
	assert_int_equal(errno, EXDEV);
	/* without a root path, an absolute link is refused even when it points inside */
	assert_int_equal(workspace_openat(rootfd, NULL, "abs_in/in.txt", O_RDONLY, 0), -1);
	assert_int_equal(errno, EXDEV);
	/* O_NOFOLLOW on a last-component link; magic links never */
	assert_int_equal(workspace_openat(rootfd, f->root, "file_link", O_RDONLY | O_NOFOLLOW, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(workspace_openat(rootfd, f->root, "magic", O_RDONLY, 0), -1);
	assert_true(errno == EXDEV || errno == ELOOP);
	/* a loop */
	assert_int_equal(workspace_openat(rootfd, f->root, "loop1/x", O_RDONLY, 0), -1);
	assert_int_equal(errno, ELOOP);
	/* mkdir -p beneath, and not through a link that leads out */
	fd = workspace_opendirat(rootfd, f->root, "new/a/b", 1);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(access(fixture_path(f, "new/a/b"), F_OK), 0);
	assert_int_equal(workspace_opendirat(rootfd, f->root, "abs_out/made", 1), -1);
	assert_int_equal(errno, EXDEV);
	snprintf(link, sizeof link, "%s/made", out);
	assert_int_equal(access(link, F_OK), -1);
	/* the tools' entry point: one line that says what to do */
	snprintf(link, sizeof link, "%s/abs_out/secret", f->root);
	assert_int_equal(workspace_open(f->root, link, O_RDONLY, 0, &e), -1);
	assert_int_equal(e.code, EXDEV);
	assert_non_null(strstr(e.msg, "abs_out/secret: a symlink on the way leads outside the workspace"));
	assert_non_null(strstr(e.msg, "use the path it points to"));
	assert_null(strchr(e.msg, '\n'));
	err_clear(&e);
	snprintf(link, sizeof link, "%s/d/written", f->root);
	assert_int_equal(fs_write_beneath(f->root, link, "w\n", 2, 0, &e), 0);
	snprintf(link, sizeof link, "%s/abs_out/written", f->root);
	assert_int_equal(fs_write_beneath(f->root, link, "w\n", 2, FS_MKDIRS, &e), -1);
	assert_non_null(strstr(e.msg, "leads outside the workspace"));
	/* outside the root (allow_outside_workspace): written as asked, symlinks as usual */
	snprintf(link, sizeof link, "%s/allowed", out);
	assert_int_equal(fs_write_beneath(f->root, link, "ok\n", 3, 0, &e), 0);
	assert_int_equal(unlink(link), 0);
	close(rootfd);
	assert_int_equal(count_tree(out), 1); /* only the secret */
}

static void
test_rules(void **state)
{
	struct fixture *f = fixture_new();
	char *out = outside_dir(), p[PATH_MAX * 2];
	int walk;

	(void)state;
	fixture_mkdir(f, "d");
	fixture_puts(f, "d/in.txt", "inside\n");
	tu_write(out, "secret", "SECRET\n");
	assert_int_equal(symlink("d", fixture_path(f, "rel_in")), 0);
	assert_int_equal(symlink("d/in.txt", fixture_path(f, "file_link")), 0);
	snprintf(p, sizeof p, "%s/d", f->root);
	assert_int_equal(symlink(p, fixture_path(f, "abs_in")), 0);
	assert_int_equal(symlink(out, fixture_path(f, "abs_out")), 0);
	snprintf(p, sizeof p, "../%s", strrchr(out, '/') + 1);
	assert_int_equal(symlink(p, fixture_path(f, "rel_out")), 0);
	snprintf(p, sizeof p, "%s/secret", out);
	assert_int_equal(symlink(p, fixture_path(f, "secret_link")), 0);
	assert_int_equal(symlink("/proc/self/root", fixture_path(f, "magic")), 0);
	assert_int_equal(symlink("loop2", fixture_path(f, "loop1")), 0);
	assert_int_equal(symlink("loop1", fixture_path(f, "loop2")), 0);
	for (walk = 0; walk < 2; walk++) {
		workspace_beneath_force_walk(walk);
		check_rules(f, out);
		fixture_rmrf(fixture_path(f, "new"));
	}
	workspace_beneath_force_walk(0);
	fixture_rmrf(out);
	free(out);
	fixture_free(f);
}

/* test_edges: a file 300 directories deep ("a/a/.../f") */
static char deep_rel[PATH_MAX];

/* The lowest free descriptor: what the next open gets. */
static int
lowest_fd(void)
{
	int fd = dup(2);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

/* Whether the kernel has openat2 (the unforced mode then uses it). */
static int
kernel_has_openat2(void)
{
	struct open_how how;
	int fd;

	memset(&how, 0, sizeof how);
	how.flags = O_RDONLY | O_DIRECTORY;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Open rel beneath rootfd and expect it to hold `want`; the fd is the lowest free one. */
static void
expect_opens(int rootfd, const char *root, const char *rel, const char *want)
{
	int low = lowest_fd(), fd = workspace_openat(rootfd, root, rel, O_RDONLY, 0);

	if (fd < 0)
		print_message("%s: %s\n", rel, strerror(errno));
	assert_true(fd >= low);
	assert_string_equal(slurp_fd(fd), want);
	close(fd);
	assert_int_equal(lowest_fd(), low);
}

static void
expect_fails(int rootfd, const char *root, const char *rel, int flags, int err)
{
	int low = lowest_fd();

	errno = 0;
	assert_int_equal(workspace_openat(rootfd, root, rel, flags, 0644), -1);
	if (errno != err)
		print_message("%s: %s, want %s\n", rel, strerror(errno), strerror(err));
	assert_int_equal(errno, err);
	assert_int_equal(lowest_fd(), low);
}

/* fd refers to the same inode as path. */
static void
expect_same(int fd, const char *path)
{
	struct stat a, b;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

static void
on_signal(int sig)
{
	(void)sig;
}

struct fifo_writer {
	pthread_t reader;
	const char *path;
	atomic_int go;
	int opened;
};

/* Interrupt the reader's open of the FIFO with a signal, then open the writing end. */
static void *
fifo_write(void *arg)
{
	struct fifo_writer *w = arg;
	struct timespec t = { 0, 200000000 };
	uint64_t t0;
	int fd = -1;

	while (!atomic_load(&w->go))
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	nanosleep(&t, NULL); /* the reader is blocked in its open by now */
	pthread_kill(w->reader, SIGUSR1);
	nanosleep(&t, NULL);
	for (t0 = tu_now_ms(); fd < 0 && tu_now_ms() - t0 < 3000;) {
		fd = open(w->path, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	w->opened = fd >= 0;
	if (fd >= 0) {
		w->opened = write(fd, "fifo\n", 5) == 5;
		close(fd);
	}
	return NULL;
}

/*
 * mkdir -p below a directory without write permission fails with the
 * mkdir's EACCES (not the ENOENT of the open after it); as "nobody" in a
 * child when run as root, who may write anywhere.
 */
static void
check_mkdir_refused(struct fixture *f)
{
	pid_t pid;
	int status;

	fixture_mkdir(f, "ro");
	assert_int_equal(chmod(fixture_path(f, "ro"), 0555), 0);
	assert_int_equal(chmod(f->root, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rootfd, fd;

		rootfd = open(f->root, O_RDONLY | O_DIRECTORY); /* before: /tmp may be 0700 */
		if (rootfd < 0)
			_exit(4);
		if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		errno = 0;
		fd = workspace_opendirat(rootfd, f->root, "ro/new/x", 1);
		_exit(fd < 0 && errno == EACCES ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(fixture_path(f, "ro/new"), F_OK), -1);
	assert_int_equal(chmod(fixture_path(f, "ro"), 0755), 0);
	fixture_rmrf(fixture_path(f, "ro"));
}

/*
 * Edges of beneath-open in one mode: components through a file, links to the
 * root itself, to a prefix sibling and from a subdirectory, NAME_MAX, 40
 * links, ".", descriptors (none leaked, the new one the lowest free, stdin
 * closed, a stale errno), a root of "/".
 */
static void
check_edges(struct fixture *f, int walk)
{
	int rootfd = open(f->root, O_RDONLY | O_DIRECTORY), fd, saved, i, e;
	char name[NAME_MAX + 2], rel[PATH_MAX], p[PATH_MAX * 2];
	static const int stale[] = { EINTR, EAGAIN, ENOSYS };

	assert_true(rootfd >= 0);
	expect_opens(rootfd, f->root, "d/in.txt", "inside\n");
	/* a file in the middle: ENOTDIR, never the name after it in the file's directory */
	expect_fails(rootfd, f->root, "d/in.txt/x", O_RDONLY, ENOTDIR);
	expect_fails(rootfd, f->root, "d/in.txt/x", O_WRONLY | O_CREAT, ENOTDIR);
	/* a trailing slash asks for a directory, as open(2) does: not a file, never a new file */
	expect_fails(rootfd, f->root, "d/in.txt/", O_RDONLY, ENOTDIR);
	expect_fails(rootfd, f->root, "file_link/", O_RDONLY, ENOTDIR);
	errno = 0;
	assert_int_equal(workspace_openat(rootfd, f->root, "newfile/", O_WRONLY | O_CREAT, 0644), -1);
	assert_true(errno == EISDIR || errno == ENOENT);
	assert_int_equal(access(fixture_path(f, "newfile"), F_OK), -1);
	fd = workspace_openat(rootfd, f->root, "d//", O_RDONLY, 0);
	expect_same(fd, fixture_path(f, "d"));
	close(fd);
	expect_fails(rootfd, f->root, "d/", O_WRONLY, EISDIR);
	expect_opens(rootfd, f->root, "file_link", "inside\n");
	expect_fails(rootfd, f->root, "nope", O_RDONLY, ENOENT);
	expect_fails(rootfd, f->root, "nope/x", O_RDONLY, ENOENT);
	expect_fails(rootfd, f->root, "nope/x", O_WRONLY | O_CREAT, ENOENT);
	assert_int_equal(access(fixture_path(f, "nope"), F_OK), -1); /* not made on the way */
	expect_fails(rootfd, f->root, "dangling", O_RDONLY, ENOENT);
	/* absolute links: to the root itself, from a subdirectory, to a prefix sibling */
	expect_opens(rootfd, f->root, "self/d/in.txt", "inside\n");
	expect_opens(rootfd, f->root, "self/d/../d/in.txt", "inside\n");
	expect_opens(rootfd, f->root, "d/up/in.txt", "inside\n");
	expect_opens(rootfd, f->root, "d/up/../d/x", "d/x\n");
	expect_fails(rootfd, f->root, "sibling", O_RDONLY, EXDEV);
	expect_fails(rootfd, f->root, "sibling_dir/f", O_RDONLY, EXDEV);
	/* NAME_MAX is a name; one more is too long */
	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	snprintf(rel, sizeof rel, "d/%s", name);
	expect_opens(rootfd, f->root, rel, "long\n");
	snprintf(rel, sizeof rel, "%s/in.txt", name);
	expect_fails(rootfd, f->root, rel, O_RDONLY, ENOENT);
	name[NAME_MAX] = 'n';
	name[NAME_MAX + 1] = '\0';
	snprintf(rel, sizeof rel, "d/%s", name);
	expect_fails(rootfd, f->root, rel, O_RDONLY, ENAMETOOLONG);
	/* a chain of 40 links is followed, 41 is a loop */
	expect_opens(rootfd, f->root, "c40", "inside\n");
	expect_fails(rootfd, f->root, "c41", O_RDONLY, ELOOP);
	/* "." and "": the directory, opened with the flags given */
	fd = workspace_openat(rootfd, f->root, "", O_RDONLY, 0);
	expect_same(fd, f->root);
	close(fd);
	fd = workspace_openat(rootfd, f->root, "d/.", O_RDONLY, 0);
	expect_same(fd, fixture_path(f, "d"));
	close(fd);
	expect_fails(rootfd, f->root, "d/.", O_WRONLY, EISDIR);
	expect_fails(rootfd, f->root, ".", O_RDWR, EISDIR);
	/* mkdir -p: existing directories opened once (even after an ENOENT), new ones 0777 - umask */
	for (i = 0; i < 2; i++) {
		int low = lowest_fd();
		mode_t mask = umask(022);
		struct stat st;

		umask(mask);
		errno = ENOENT;
		fd = workspace_opendirat(rootfd, f->root, i ? "made/x/y" : "d", 1);
		expect_same(fd, fixture_path(f, i ? "made/x/y" : "d"));
		close(fd);
		assert_int_equal(lowest_fd(), low);
		if (i) {
			assert_int_equal(stat(fixture_path(f, "made/x"), &st), 0);
			assert_int_equal(st.st_mode & 07777, 0777 & ~mask);
			assert_int_equal(stat(fixture_path(f, "made/x/y"), &st), 0);
			assert_int_equal(st.st_mode & 07777, 0777 & ~mask);
		}
	}
	fixture_rmrf(fixture_path(f, "made"));
	check_mkdir_refused(f);
	/* a stale errno changes nothing, and with stdin closed the answer can be descriptor 0 */
	for (i = 0; i < 3; i++) {
		int low = lowest_fd();

		errno = stale[i];
		fd = workspace_openat(rootfd, f->root, "d/in.txt", O_RDONLY, 0);
		assert_true(fd >= low);
		if (!walk) /* openat2 answers: one descriptor made, and nothing else */
			assert_int_equal(fd, low);
		assert_string_equal(slurp_fd(fd), "inside\n");
		close(fd);
		assert_int_equal(lowest_fd(), low);
	}
	saved = dup(0);
	assert_true(saved >= 0);
	close(0);
	for (i = 0; i < 3; i++) {
		errno = stale[i];
		fd = workspace_openat(rootfd, f->root, "d/in.txt", O_RDONLY, 0);
		assert_true(fd >= 0);
		if (!walk)
			assert_int_equal(fd, 0);
		assert_string_equal(slurp_fd(fd), "inside\n");
		close(fd);
		e = lowest_fd();
		assert_int_equal(e, 0); /* nothing left open */
		errno = stale[i];
		fd = workspace_opendirat(rootfd, f->root, "d", 0);
		expect_same(fd, fixture_path(f, "d"));
		if (!walk)
			assert_int_equal(fd, 0);
		close(fd);
		assert_int_equal(lowest_fd(), 0);
	}
	/* the tools' entry point with stdin closed: the root's own descriptor can be 0 */
	snprintf(p, sizeof p, "%s/d/in.txt", f->root);
	fd = workspace_open(f->root, p, O_RDONLY, 0, NULL);
	assert_true(fd >= 0);
	assert_string_equal(slurp_fd(fd), "inside\n");
	close(fd);
	assert_int_equal(lowest_fd(), 0);
	assert_int_equal(dup2(saved, 0), 0);
	close(saved);
	/* the entry point's one line: a loop says so, a missing file does not */
	{
		struct err er = ERR_INIT;

		/* a workspace that cannot be opened is an error, never a descriptor */
		assert_int_equal(workspace_open("/no-such-hearth-root", "/no-such-hearth-root/x",
						 O_RDONLY, 0, &er), -1);
		assert_int_equal(er.code, ENOENT);
		assert_non_null(strstr(er.msg, "open the workspace /no-such-hearth-root"));
		err_clear(&er);
		/* workspace_opendir: a directory, made with its parents when asked; a file is not one */
		snprintf(p, sizeof p, "%s/d", f->root);
		fd = workspace_opendir(f->root, p, 0, &er);
		expect_same(fd, p);
		close(fd);
		snprintf(p, sizeof p, "%s/d/in.txt", f->root);
		assert_int_equal(workspace_opendir(f->root, p, 0, &er), -1);
		assert_int_equal(er.code, ENOTDIR);
		assert_non_null(strstr(er.msg, "open directory"));
		err_clear(&er);
		snprintf(p, sizeof p, "%s/made2/x", f->root);
		assert_int_equal(workspace_opendir(f->root, p, 0, &er), -1);
		assert_int_equal(er.code, ENOENT);
		err_clear(&er);
		fd = workspace_opendir(f->root, p, 1, &er);
		expect_same(fd, p);
		close(fd);
		fixture_rmrf(fixture_path(f, "made2"));

		snprintf(p, sizeof p, "%s/c41", f->root);
		assert_int_equal(workspace_open(f->root, p, O_RDONLY, 0, &er), -1);
		assert_int_equal(er.code, ELOOP);
		assert_non_null(strstr(er.msg, "(a symlink loop, or a symlink where a file was expected)"));
		err_clear(&er);
		snprintf(p, sizeof p, "%s/nope", f->root);
		assert_int_equal(workspace_open(f->root, p, O_RDONLY, 0, &er), -1);
		assert_int_equal(er.code, ENOENT);
		assert_null(strstr(er.msg, "symlink"));
		assert_non_null(strstr(er.msg, "/nope"));
		err_clear(&er);
	}
	/* the root "/" (outside paths): an absolute link below it is followed */
	{
		int slash = open("/", O_RDONLY | O_DIRECTORY);

		snprintf(p, sizeof p, "%s/self/d/in.txt", f->root + 1);
		expect_opens(slash, "/", p, "inside\n");
		snprintf(p, sizeof p, "%s/d/up/in.txt", f->root + 1);
		expect_opens(slash, "/", p, "inside\n");
		expect_opens(slash, "//", p, "inside\n");
		close(slash);
	}
	/* openat2 when the kernel has it (its depth has no walk limit), the walk when forced */
	if (kernel_has_openat2()) {
		char missing[PATH_MAX];

		snprintf(missing, sizeof missing, "%.*snope", (int)strlen(deep_rel) - 1, deep_rel);
		expect_fails(rootfd, f->root, missing, O_RDONLY, walk ? ENAMETOOLONG : ENOENT);
		errno = 0;
		assert_int_equal(workspace_opendirat(rootfd, f->root, missing, 0), -1);
		assert_int_equal(errno, walk ? ENAMETOOLONG : ENOENT);
		for (i = 0; i < 2; i++) {
			/* beneath the root, and outside it (an other root: beneath "/") */
			snprintf(p, sizeof p, "%s/%s", f->root, deep_rel);
			fd = i ? workspace_open("/no-such-hearth-root", p, O_RDONLY, 0, NULL)
			       : workspace_openat(rootfd, f->root, deep_rel, O_RDONLY, 0);
			if (walk) {
				assert_int_equal(fd, -1);
				assert_int_equal(errno, ENAMETOOLONG);
			} else {
				assert_true(fd >= 0);
				assert_string_equal(slurp_fd(fd), "deep\n");
				close(fd);
			}
		}
	}
	close(rootfd);
}

static void
test_edges(void **state)
{
	struct fixture *f = fixture_new();
	char p[PATH_MAX * 2], name[NAME_MAX + 1], *sib;
	int walk, i, dfd;

	(void)state;
	fixture_mkdir(f, "d");
	fixture_puts(f, "d/in.txt", "inside\n");
	fixture_puts(f, "d/x", "d/x\n");
	fixture_puts(f, "x", "root x\n");
	assert_int_equal(symlink(f->root, fixture_path(f, "self")), 0);
	snprintf(p, sizeof p, "%s/d", f->root);
	assert_int_equal(symlink(p, fixture_path(f, "d/up")), 0);
	assert_int_equal(symlink("no-such-target", fixture_path(f, "dangling")), 0);
	assert_int_equal(symlink("d/in.txt", fixture_path(f, "file_link")), 0);
	/* a directory named like the root plus a suffix, outside it */
	snprintf(p, sizeof p, "%s-other", f->root);
	sib = strdup(p);
	assert_int_equal(mkdir(sib, 0755), 0);
	tu_write(sib, "f", "SIBLING\n");
	snprintf(p, sizeof p, "%s/f", sib);
	assert_int_equal(symlink(p, fixture_path(f, "sibling")), 0);
	assert_int_equal(symlink(sib, fixture_path(f, "sibling_dir")), 0);
	memset(name, 'n', NAME_MAX);
	name[NAME_MAX] = '\0';
	{
		char longrel[NAME_MAX + 3];

		snprintf(longrel, sizeof longrel, "d/%s", name);
		fixture_puts(f, longrel, "long\n");
	}
	/* c0 -> d/in.txt, cN -> c(N-1): cN is N links deep */
	assert_int_equal(symlink("d/in.txt", fixture_path(f, "c1")), 0);
	for (i = 2; i <= 41; i++) {
		char from[16], to[16];

		snprintf(from, sizeof from, "c%d", i);
		snprintf(to, sizeof to, "c%d", i - 1);
		assert_int_equal(symlink(to, fixture_path(f, from)), 0);
	}
	/* 300 directories deep: more than the walk holds */
	dfd = open(f->root, O_RDONLY | O_DIRECTORY);
	deep_rel[0] = '\0';
	for (i = 0; i < 300; i++) {
		int next;

		assert_true(mkdirat(dfd, "a", 0755) == 0);
		next = openat(dfd, "a", O_RDONLY | O_DIRECTORY);
		close(dfd);
		dfd = next;
		memcpy(deep_rel + 2 * i, "a/", 3);
	}
	{
		int fd = openat(dfd, "f", O_WRONLY | O_CREAT, 0644);

		assert_int_equal(write(fd, "deep\n", 5), 5);
		close(fd);
	}
	close(dfd);
	memcpy(deep_rel + 2 * i, "f", 2);
	for (walk = 1; walk >= 0; walk--) {
		workspace_beneath_force_walk(walk);
		check_edges(f, walk);
	}
	fixture_rmrf(sib);
	free(sib);
	fixture_free(f);
}

/*
 * An open of a FIFO interrupted by a signal (no SA_RESTART) is tried again,
 * by openat2 and by the component walk: it waits for the writer and reads
 * its line.
 */
static void
test_fifo_eintr(void **state)
{
	struct sigaction sa, old;
	int walk;

	(void)state;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: the open returns EINTR */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	for (walk = 0; walk < 2; walk++) {
		struct fixture *f = fixture_new();
		struct fifo_writer w;
		pthread_t th;
		int rootfd, fd;

		if (!walk && !kernel_has_openat2()) {
			print_message("no openat2; that half skipped\n");
			fixture_free(f);
			continue;
		}
		workspace_beneath_force_walk(walk);
		assert_int_equal(mkfifo(fixture_path(f, "fifo"), 0600), 0);
		memset(&w, 0, sizeof w);
		w.reader = pthread_self();
		w.path = strdup(fixture_path(f, "fifo"));
		rootfd = open(f->root, O_RDONLY | O_DIRECTORY);
		assert_int_equal(pthread_create(&th, NULL, fifo_write, &w), 0);
		atomic_store(&w.go, 1);
		fd = workspace_openat(rootfd, f->root, "fifo", O_RDONLY, 0);
		if (fd < 0)
			print_message("fifo (walk %d): %s\n", walk, strerror(errno));
		pthread_join(th, NULL);
		assert_true(fd >= 0);
		assert_true(w.opened);
		assert_string_equal(slurp_fd(fd), "fifo\n");
		close(fd);
		close(rootfd);
		free((char *)w.path);
		fixture_free(f);
	}
	workspace_beneath_force_walk(0);
	sigaction(SIGUSR1, &old, NULL);
}

/* The racer: swap ws/d (a directory) with a symlink to outside, until told to stop. */
struct racer {
	const char *root;
	atomic_int stop;
	long swaps;
};

static void *
race(void *arg)
{
	struct racer *r = arg;
	int fd = open(r->root, O_RDONLY | O_DIRECTORY);

	struct timespec pause = { 0, 0 };
	unsigned seed = 12345;

	while (!atomic_load(&r->stop)) {
		/* alternately with the absolute and the relative link */
		const char *other = (r->swaps / 2) % 2 ? "rel_out" : "abs_out";

		if (syscall(SYS_renameat2, fd, "d", fd, other, RENAME_EXCHANGE) == 0)
			r->swaps++;
		/* 0.2-1.5 ms in each state, at random: checks pass about half the time, and
		 * a swap falls between a passed check and its write now and then */
		pause.tv_nsec = 200000 + (long)(rand_r(&seed) % 1300) * 1000;
		nanosleep(&pause, NULL);
	}
	/* put the directory back under its name */
	if (r->swaps % 2)
		syscall(SYS_renameat2, fd, "d", fd, (r->swaps / 2) % 2 ? "rel_out" : "abs_out",
			RENAME_EXCHANGE);
	close(fd);
	return NULL;
}

struct race_counts {
	int written;       /* landed inside */
	int refused_check; /* refused by the check (workspace_resolve) */
	int refused;       /* passed the check, refused by beneath-open: the race caught */
	int read_inside, leaked;
};

/* The check refused: the racer has d as a link right now; wait a little and try again. */
static void
check_refused(struct race_counts *c)
{
	struct timespec t = { 0, 100000 };

	c->refused_check++;
	nanosleep(&t, NULL);
}

/*
 * While the racer swaps: RACE_N writes that pass the check through the
 * write tool (resolve, plan, write: the tool's own path), RACE_N through
 * workspace_resolve + fs_write_beneath with the walk forced (a call the
 * check refuses is retried, not counted), and RACE_N reads through the read
 * tool that pass the check.  Each batch stops after RACE_MS whatever it reached.
 */
#define RACE_MS 4000

static void
race_batch(struct fixture *f, struct race_counts *c)
{
	char json[256], p[PATH_MAX * 2];
	struct tool_job job;
	struct err e = ERR_INIT;
	struct buf abs = BUF_INIT;
	uint64_t t0 = tu_now_ms();
	int i = 0, n = 0;

	while (n < RACE_N && tu_now_ms() - t0 < RACE_MS) {
		snprintf(json, sizeof json, "{\"path\":\"d/t%d/f%d.c\",\"content\":\"int f%d(void) "
			 "{ return %d; }\\n\"}", i % 7, i, i, i);
		i++;
		fixture_run(f, &tool_write, json, &job);
		if (job.is_error && strstr(job.out.data, "is outside the workspace")) {
			check_refused(c); /* the check saw the link */
		} else {
			n++;
			if (job.is_error) /* the check passed, then beneath-open saw the link */
				c->refused++;
			else
				c->written++;
		}
		tool_job_release(&job);
	}
	workspace_beneath_force_walk(1);
	for (n = 0, t0 = tu_now_ms(); n < RACE_N && tu_now_ms() - t0 < RACE_MS;) {
		snprintf(p, sizeof p, "d/w%d.txt", i++);
		err_clear(&e);
		if (workspace_resolve(f->root, 0, p, &abs, &e) < 0) {
			check_refused(c);
			continue;
		}
		n++;
		if (fs_write_beneath(f->root, abs.data, "y\n", 2, FS_MKDIRS, &e) < 0)
			c->refused++;
		else
			c->written++;
	}
	workspace_beneath_force_walk(0);
	for (n = 0, t0 = tu_now_ms(); n < RACE_N && tu_now_ms() - t0 < RACE_MS;) {
		fixture_run(f, &tool_read, "{\"path\":\"d/secret\"}", &job);
		if (strstr(job.out.data, "SECRET"))
			c->leaked++;
		else if (!job.is_error)
			c->read_inside++;
		if (job.is_error && strstr(job.out.data, "is outside the workspace"))
			check_refused(c);
		else
			n++;
		tool_job_release(&job);
	}
	buf_release(&abs);
}

static void
test_race(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char *ws = temp_dir_in(race_base()), *out = temp_dir_in(race_base()), p[PATH_MAX * 2];
	struct racer r = { NULL, 0, 0 };
	struct race_counts c = { 0, 0, 0, 0, 0 };
	pthread_t th;
	uint64_t t0 = tu_now_ms();

	(void)state;
	assert_non_null(f);
	snprintf(f->root, sizeof f->root, "%s", ws);
	free(ws);
	f->env.root = f->root;
	fixture_mkdir(f, "d");
	fixture_puts(f, "d/secret", "inside\n");
	tu_write(out, "secret", "SECRET\n");
	assert_int_equal(symlink(out, fixture_path(f, "abs_out")), 0);
	snprintf(p, sizeof p, "../%s", strrchr(out, '/') + 1);
	assert_int_equal(symlink(p, fixture_path(f, "rel_out")), 0);
	r.root = f->root;
	assert_int_equal(pthread_create(&th, NULL, race, &r), 0);
	race_batch(f, &c);
	atomic_store(&r.stop, 1);
	pthread_join(th, NULL);
	print_message("race: %ld swaps; of %d writes that passed the check %d landed inside and %d "
		      "were refused by beneath-open (%d more refused by the check); %d reads inside, "
		      "%d outside; %d entries outside besides the secret; %llu ms\n", r.swaps,
		      c.written + c.refused, c.written, c.refused, c.refused_check, c.read_inside,
		      c.leaked, count_tree(out) - 1,
		      (unsigned long long)(tu_now_ms() - t0));
	assert_true(r.swaps > 0);
	assert_true(c.refused > 0); /* swaps did fall between a passed check and its write */
	assert_true(c.written + c.refused >= RACE_N); /* enough racing writes in the time cap */
	assert_int_equal(c.leaked, 0);
	assert_int_equal(count_tree(out), 1); /* the secret, nothing written or made there */
	fixture_rmrf(out);
	free(out);
	fixture_free(f);
}

/* Whether dir holds a temp file of fs_write_*; its name into name. */
static int
find_temp(const char *dir, char *name, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".hearth-")) {
			snprintf(name, n, "%s", de->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

/* A child that starts a journal and writes root/rel (32 MiB) beneath root, over and over. */
static pid_t
start_writer(const char *state_dir, const char *root, const char *rel)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		size_t len = 32u << 20;
		char *data = malloc(len), p[PATH_MAX * 2];
		struct err e = ERR_INIT;

		if (!data || fs_temps_start(state_dir, NULL, &e) < 0)
			_exit(2);
		memset(data, 'z', len);
		snprintf(p, sizeof p, "%s/%s", root, rel);
		for (;;)
			if (fs_write_beneath(root, p, data, len, 0, &e) < 0)
				_exit(3);
	}
	return pid;
}

static void
test_kill9_temp_swept(void **state)
{
	struct fixture *f = fixture_new();
	char *st = outside_dir(), name[NAME_MAX + 1] = "", *s;
	struct err e = ERR_INIT;
	size_t removed = 99, len;
	pid_t pid;
	int status, tries, caught = 0;
	uint64_t t0;

	(void)state;
	fixture_puts(f, "big.bin", "original\n");
	for (tries = 0; tries < 5 && !caught; tries++) {
		pid = start_writer(st, f->root, "big.bin");
		t0 = tu_now_ms();
		while (!(caught = find_temp(f->root, name, sizeof name)) && tu_now_ms() - t0 < 5000)
			;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		assert_true(WIFSIGNALED(status));
		caught = find_temp(f->root, name, sizeof name); /* still there after the kill */
	}
	assert_true(caught);
	print_message("killed pid %d with %s in the work tree\n", (int)pid, name);
	assert_non_null(strstr(name, ".big.bin.hearth-"));
	/* the next start removes it; the file is either the original or a whole write */
	assert_int_equal(fs_temps_start(st, &removed, &e), 0);
	assert_true(removed >= 1);
	assert_int_equal(find_temp(f->root, name, sizeof name), 0);
	s = fixture_slurp(f, "big.bin", &len);
	assert_non_null(s);
	assert_true((len == 9 && !strcmp(s, "original\n")) || (len == 32u << 20 && s[len - 1] == 'z'));
	free(s);
	/* a live run's journal is left alone, a clean stop leaves no journal */
	fs_temps_stop();
	assert_int_equal(count_tree(st), 1); /* the temps dir, empty */
	fixture_rmrf(st);
	free(st);
	fixture_free(f);
}

/* A recorded temp whose directory became a symlink that leads out is not followed by the sweep. */
static void
test_sweep_stays_beneath(void **state)
{
	struct fixture *f = fixture_new();
	char *st = outside_dir(), *out = outside_dir(), p[PATH_MAX * 2], name[NAME_MAX + 1];
	struct err e = ERR_INIT;
	size_t removed = 0;
	pid_t pid;
	int status;
	uint64_t t0;

	(void)state;
	fixture_mkdir(f, "d");
	snprintf(p, sizeof p, "%s/d", f->root);
	pid = start_writer(st, f->root, "d/big.bin");
	t0 = tu_now_ms();
	while (!find_temp(p, name, sizeof name) && tu_now_ms() - t0 < 5000)
		;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (!find_temp(p, name, sizeof name)) {
		print_message("the writer finished between polls; skipped\n");
	} else {
		/* move the temp outside and put a symlink where its directory was */
		char from[PATH_MAX * 3], to[PATH_MAX * 3];

		snprintf(from, sizeof from, "%s/%s", p, name);
		snprintf(to, sizeof to, "%s/%s", out, name);
		assert_int_equal(rename(from, to), 0);
		fixture_rmrf(p);
		assert_int_equal(symlink(out, p), 0);
		assert_int_equal(fs_temps_start(st, &removed, &e), 0);
		assert_int_equal(removed, 0);
		assert_int_equal(access(to, F_OK), 0); /* outside: untouched */
		fs_temps_stop();
	}
	fixture_rmrf(st);
	fixture_rmrf(out);
	free(st);
	free(out);
	fixture_free(f);
}

/* Start time of pid (field 22 of /proc/PID/stat, clock ticks), read here on its own. */
static unsigned long long
start_of(pid_t pid)
{
	char path[64], line[2048], *p, *tok, *save = NULL;
	int field = 2;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	assert_non_null(f = fopen(path, "re"));
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	assert_non_null(p = strrchr(line, ')'));
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (++field == 22)
			return strtoull(tok, NULL, 10);
	fail();
	return 0;
}

/* The pid of a child that has exited and been reaped. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* One journal record as fs.c writes it: op, then root, dir and name, each NUL-terminated. */
static void
rec(struct buf *j, char op, const char *root, const char *dir, const char *name)
{
	buf_addch(j, op);
	buf_add(j, root, strlen(root) + 1);
	buf_add(j, dir, strlen(dir) + 1);
	buf_add(j, name, strlen(name) + 1);
}

/* Write j as the journal STATE/temps/NAME (and empty it). */
static void
put_journal(const char *st, const char *name, struct buf *j)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof p, "%s/temps", st);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/temps/%s", st, name);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(write(fd, j->data, j->len), (ssize_t)j->len);
	close(fd);
	buf_reset(j);
}

/* ".BASE.hearth-PID-SFX" into out. */
static const char *
tname(char *out, size_t n, const char *base, long pid, const char *sfx)
{
	snprintf(out, n, ".%s.hearth-%ld-%s", base, pid, sfx);
	return out;
}

/* Whether dir/name exists (not following a symlink). */
static int
there(const char *dir, const char *name)
{
	char p[PATH_MAX * 2];
	struct stat st;

	if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
		fail();
	return lstat(p, &st) == 0;
}

/* Create the regular file dir/name. */
static void
touch(const char *dir, const char *name)
{
	tu_write(dir, name, "t\n");
}

/*
 * Issue 20: a dead run's journal replayed record by record.  Removed: what
 * was recorded ('+') and never dropped ('-'), keyed by directory and name
 * (also re-recorded after a drop, or recorded twice), beneath the root it
 * was made under or, root "", anywhere; a name with the tag twice.  Kept: a
 * dropped temp (same name in another directory still removed), a drop with
 * no record before it, names that are not that run's temp names (another
 * pid, a suffix not 6 long, no leading '.', a '/'), a relative directory, a
 * directory or symlink with a temp name, the torn last record (what is left
 * of its name is a valid temp name).  A vanished directory is not made again; a
 * vanished temp is not counted.  The journal goes.
 */
static void
test_sweep_journal(void **state)
{
	struct fixture *f = fixture_new();
	char *st = outside_dir(), *out = outside_dir(), a[PATH_MAX * 2], b[PATH_MAX * 2];
	char gone[PATH_MAX * 3], n1[96], n2[96], n3[96], n4[96], n5[96], n6[96], n7[96], nd[96], nl[96], nm[96];
	char nn[96], n2tag[96], nu[96], ntorn[96], nother[96], nw[96], nx[96], ny[96], nz[96];
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	size_t removed = 0;
	pid_t d = dead_pid();
	const char *r = f->root;

	(void)state;
	snprintf(a, sizeof a, "%s/a", r);
	snprintf(b, sizeof b, "%s/b", r);
	snprintf(gone, sizeof gone, "%s/gone", r);
	fixture_mkdir(f, "a");
	fixture_mkdir(f, "b");
	tname(n1, sizeof n1, "one", d, "AAAAAA");
	tname(n2, sizeof n2, "two", d, "BBBBBB");
	tname(n3, sizeof n3, "three", d, "CCCCCC");
	tname(n4, sizeof n4, "four", d, "DDDDDD");
	tname(n5, sizeof n5, "five", d, "EEEEEE");
	tname(n6, sizeof n6, "six", d, "FFFFFF");
	tname(n7, sizeof n7, "seven", d, "GGGGGG");
	tname(nd, sizeof nd, "dir", d, "HHHHHH");
	tname(nl, sizeof nl, "link", d, "IIIIII");
	tname(nm, sizeof nm, "missing", d, "JJJJJJ");
	tname(nn, sizeof nn, "vanished", d, "KKKKKK");
	snprintf(n2tag, sizeof n2tag, ".a.hearth-%ld-b.hearth-%ld-LLLLLL", (long)d, (long)d);
	tname(nu, sizeof nu, "out", d, "MMMMMM");
	tname(ntorn, sizeof ntorn, "torn", d, "NNNNNN");
	tname(nother, sizeof nother, "other", (long)getpid(), "OOOOOO");
	tname(nw, sizeof nw, "w", d, "PPPPPPP");
	tname(nx, sizeof nx, "x", d, "QQQQQ");
	snprintf(ny, sizeof ny, "y.hearth-%ld-RRRRRR", (long)d);
	tname(nz, sizeof nz, "z", d, "SSSSSS");
	touch(a, n1), touch(b, n1), touch(a, n2), touch(a, n3), touch(a, n4), touch(a, n5);
	touch(a, n6), touch(a, n7), touch(a, "victim.txt"), touch(a, n2tag), touch(out, nu);
	touch(a, ntorn), touch(a, nother), touch(a, nw), touch(a, nx), touch(a, ny), touch(b, nz);
	snprintf(gone, sizeof gone, "%s/%s", a, nd);
	assert_int_equal(mkdir(gone, 0755), 0);
	snprintf(gone, sizeof gone, "%s/%s", a, nl);
	assert_int_equal(symlink("victim.txt", gone), 0);
	snprintf(gone, sizeof gone, "%s/gone", r);
	rec(&j, '-', r, a, n6); /* a drop with nothing recorded before it */
	rec(&j, '+', r, a, n1);
	rec(&j, '+', r, b, n1);
	rec(&j, '-', r, a, n1); /* a/n1 dropped, b/n1 not */
	rec(&j, '+', r, a, n2);
	rec(&j, '+', r, a, n3);
	rec(&j, '-', r, a, n3);
	rec(&j, '+', r, a, n4);
	rec(&j, '-', r, a, n4);
	rec(&j, '+', r, a, n4); /* again, after its drop */
	rec(&j, '+', r, a, n5);
	rec(&j, '+', r, a, n5); /* twice */
	rec(&j, '+', r, a, "victim.txt");
	rec(&j, '+', r, a, nother);
	rec(&j, '+', r, a, nw);
	rec(&j, '+', r, a, nx);
	rec(&j, '+', r, a, ny);
	{
		char slashed[200];

		snprintf(slashed, sizeof slashed, "b/%s", nz);
		rec(&j, '+', r, r, slashed);
	}
	rec(&j, '+', r, "a", n7); /* relative */
	rec(&j, '+', r, a, nd);
	rec(&j, '+', r, a, nl);
	rec(&j, '+', r, gone, nm);
	rec(&j, '+', r, a, nn);
	rec(&j, '+', r, a, n2tag);
	rec(&j, '+', "", out, nu); /* not confined */
	rec(&j, '+', r, a, ntorn);
	j.len--; /* torn: the last name lacks its NUL (it was cut; what is there names a file) */
	{
		char jn[64];

		snprintf(jn, sizeof jn, "%ld-%llu", (long)d, 12345ull);
		put_journal(st, jn, &j);
		assert_int_equal(fs_temps_start(st, &removed, &e), 0);
		fs_temps_stop();
		snprintf(gone, sizeof gone, "%s/temps", st);
		assert_false(there(gone, jn));
	}
	assert_int_equal(removed, 6);
	assert_false(there(b, n1));
	assert_false(there(a, n2));
	assert_false(there(a, n4));
	assert_false(there(a, n5));
	assert_false(there(a, n2tag));
	assert_false(there(out, nu));
	assert_true(there(a, n1));
	assert_true(there(a, n3));
	assert_true(there(a, n6));
	assert_true(there(a, n7));
	assert_true(there(a, "victim.txt"));
	assert_true(there(a, nother));
	assert_true(there(a, nw));
	assert_true(there(a, nx));
	assert_true(there(a, ny));
	assert_true(there(b, nz));
	assert_true(there(a, nd));
	assert_true(there(a, nl));
	assert_true(there(a, ntorn));
	assert_false(there(r, "gone"));
	buf_release(&j);
	fixture_rmrf(st);
	fixture_rmrf(out);
	free(st);
	free(out);
	fixture_free(f);
}

/* A child that waits, alive, until fd fin closes. */
static pid_t
live_child(int *fin)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		while (read(p[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	*fin = p[1];
	return pid;
}

/*
 * Issue 20: which journals belong to runs that are gone.  A live process
 * with the recorded start time: kept (and not signalled); the same pid with
 * another start time (a reused pid), also this process's own pid (an
 * earlier run had it) and pid 1: swept; start unknown (0): kept.  Names that are not
 * PID-START are left alone; an unreadable journal counts no removal.
 * Journals of dead runs are handled first here, so errno holds ESRCH when
 * the live ones are checked.
 */
static void
test_sweep_runs(void **state)
{
	struct fixture *f = fixture_new();
	char *st = outside_dir(), jn[96], t[PATH_MAX * 2], nk[96], nr[96], ns[96], no[96], np[96];
	char n1[96];
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	size_t removed = 0;
	pid_t d = dead_pid(), live, me = getpid();
	unsigned long long ls, ms = start_of(getpid());
	int fin, status, i, pid1 = 0;

	(void)state;
	live = live_child(&fin);
	ls = start_of(live);
	touch(f->root, tname(nk, sizeof nk, "kept", live, "AAAAAA"));
	touch(f->root, tname(nr, sizeof nr, "reused", live, "BBBBBB"));
	touch(f->root, tname(ns, sizeof ns, "unknown", live, "CCCCCC"));
	touch(f->root, tname(no, sizeof no, "earlier", me, "DDDDDD"));
	touch(f->root, tname(np, sizeof np, "mine", me, "EEEEEE"));
	for (i = 1; i <= 8; i++) {
		snprintf(jn, sizeof jn, "%ld-%d", (long)d, i);
		put_journal(st, jn, &j);
	}
	rec(&j, '+', f->root, f->root, nk);
	snprintf(jn, sizeof jn, "%ld-%llu", (long)live, ls);
	put_journal(st, jn, &j);
	rec(&j, '+', f->root, f->root, nr);
	snprintf(jn, sizeof jn, "%ld-%llu", (long)live, ls + 1);
	put_journal(st, jn, &j);
	rec(&j, '+', f->root, f->root, ns);
	snprintf(jn, sizeof jn, "%ld-0", (long)live);
	put_journal(st, jn, &j);
	rec(&j, '+', f->root, f->root, no);
	snprintf(jn, sizeof jn, "%ld-%llu", (long)me, ms + 1);
	put_journal(st, jn, &j);
	rec(&j, '+', f->root, f->root, np);
	snprintf(jn, sizeof jn, "%ld-%llu", (long)me, ms);
	put_journal(st, jn, &j);
	if (access("/proc/1/stat", R_OK) == 0 && start_of(1) > 0) {
		/* pid 1 had an earlier run too (a container's first process) */
		rec(&j, '+', f->root, f->root, tname(n1, sizeof n1, "init", 1, "FFFFFF"));
		touch(f->root, n1);
		snprintf(jn, sizeof jn, "1-%llu", start_of(1) + 1);
		put_journal(st, jn, &j);
		pid1 = 1;
	}
	/* not journal names */
	snprintf(jn, sizeof jn, "%ld-5x", (long)d);
	put_journal(st, jn, &j);
	put_journal(st, "0-5", &j);
	put_journal(st, "notes", &j);
	snprintf(t, sizeof t, "%s/temps/%ld-99", st, (long)d);
	assert_int_equal(mkdir(t, 0700), 0); /* unreadable as a journal */
	assert_int_equal(fs_temps_start(st, &removed, &e), 0);
	fs_temps_stop();
	assert_int_equal(waitpid(live, &status, WNOHANG), 0); /* alive, not signalled */
	assert_int_equal(removed, 2 + (size_t)pid1);
	if (pid1)
		assert_false(there(f->root, n1));
	assert_true(there(f->root, nk));
	assert_false(there(f->root, nr));
	assert_true(there(f->root, ns));
	assert_false(there(f->root, no));
	assert_true(there(f->root, np));
	snprintf(t, sizeof t, "%s/temps", st);
	snprintf(jn, sizeof jn, "%ld-%llu", (long)live, ls);
	assert_true(there(t, jn));
	snprintf(jn, sizeof jn, "%ld-%llu", (long)live, ls + 1);
	assert_false(there(t, jn));
	snprintf(jn, sizeof jn, "%ld-0", (long)live);
	assert_true(there(t, jn));
	snprintf(jn, sizeof jn, "%ld-%llu", (long)me, ms + 1);
	assert_false(there(t, jn));
	snprintf(jn, sizeof jn, "%ld-5x", (long)d);
	assert_true(there(t, jn));
	assert_true(there(t, "0-5"));
	assert_true(there(t, "notes"));
	snprintf(jn, sizeof jn, "%ld-3", (long)d);
	assert_false(there(t, jn));
	close(fin);
	assert_int_equal(waitpid(live, &status, 0), live);
	assert_true(WIFEXITED(status));
	buf_release(&j);
	fixture_rmrf(st);
	free(st);
	fixture_free(f);
}

/*
 * Issue 20: a start sweeps at most 16 dead runs' journals (the next start
 * the rest); a state directory that cannot hold the journal's is an error.
 */
static void
test_sweep_bounded(void **state)
{
	char *st = outside_dir(), jn[PATH_MAX], t[PATH_MAX * 2];
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	size_t removed = 9;
	pid_t d = dead_pid();
	int i;

	(void)state;
	for (i = 1; i <= 17; i++) {
		snprintf(jn, sizeof jn, "%ld-%d", (long)d, i);
		put_journal(st, jn, &j);
	}
	snprintf(t, sizeof t, "%s/temps", st);
	assert_int_equal(fs_temps_start(st, &removed, &e), 0);
	assert_int_equal(removed, 0);
	fs_temps_stop();
	assert_int_equal(count_tree(t), 1);
	/* the next start sweeps the 17th; a clean stop after writes (none outstanding) removes the journal */
	assert_int_equal(fs_temps_start(st, NULL, &e), 0);
	snprintf(jn, sizeof jn, "%s/w", st);
	assert_int_equal(fs_write_atomic(jn, "w\n", 2, &e), 0);
	assert_int_equal(fs_write_atomic(jn, "w\n", 2, &e), 0);
	fs_temps_stop();
	assert_int_equal(count_tree(t), 0);
	/* the state "directory" is a file */
	snprintf(t, sizeof t, "%s/file", st);
	tu_write(st, "file", "x");
	assert_int_equal(fs_temps_start(t, &removed, &e), -1);
	assert_true(err_isset(&e));
	buf_release(&j);
	fixture_rmrf(st);
	free(st);
}

/* Issue 20: a path of about 3,000 bytes beneath root (mkdir'd), for long journal records. */
static void
long_dir(const char *root, char *out, size_t n)
{
	struct err e = ERR_INIT;
	size_t len;
	int i;

	len = (size_t)snprintf(out, n, "%s", root);
	for (i = 0; i < 12; i++)
		len += (size_t)snprintf(out + len, n - len, "/%0250d", i);
	assert_int_equal(fs_mkdirs(out, &e), 0);
}

/* Size of the one journal in STATE/temps (-1 if none). */
static long long
journal_size(const char *st)
{
	char t[PATH_MAX * 2], p[PATH_MAX * 3];
	struct dirent *de;
	struct stat sb;
	long long size = -1;
	DIR *d;

	snprintf(t, sizeof t, "%s/temps", st);
	if (!(d = opendir(t)))
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && snprintf(p, sizeof p, "%s/%s", t, de->d_name) < (int)sizeof p &&
		    stat(p, &sb) == 0)
			size = sb.st_size;
	closedir(d);
	return size;
}

/*
 * Issue 20: the journal a run keeps, seen by the next start after the run
 * is killed mid-write (deterministically: RLIMIT_FSIZE, SIGXFSZ).  The
 * child runs with stdin closed, so its journal is fd 0; it makes one
 * unconfined write, then up to 60 confined ones with 3 KB records (the
 * journal is trimmed when no temp file is outstanding, so it stays about
 * 64 KiB), stopping early once the journal was trimmed and is past 64 KiB
 * again; the big write it is killed in is still recorded: the next start
 * removes exactly that temp file and leaves the finished files alone.  A
 * second time, stopping right after a trim (so the big write's record is
 * the journal's first), the temp file's directory becomes a symlink that
 * leads out: the record still names its root, and the sweep stays beneath
 * it.
 */
static void
test_journal_kept(void **state)
{
	struct fixture *f = fixture_new();
	char *st = outside_dir(), *out = outside_dir(), *out2 = outside_dir(), dir[PATH_MAX];
	char name[NAME_MAX + 1], t[PATH_MAX * 2], p[PATH_MAX * 2], sub[PATH_MAX * 2];
	struct err e = ERR_INIT;
	size_t removed = 0;
	struct stat sb;
	DIR *dd;
	struct dirent *de;
	int status, journals, round;
	pid_t pid;

	(void)state;
	long_dir(f->root, dir, sizeof dir);
	fixture_mkdir(f, "sub");
	for (round = 0; round < 2; round++) {
		journals = 0;
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rlimit rl = { 1u << 20, 1u << 20 };
			size_t len = 2u << 20;
			char *data = malloc(len);
			int i, trimmed = 0;

			close(0);
			if (!data || fs_temps_start(st, NULL, &e) < 0)
				_exit(2);
			snprintf(p, sizeof p, "%s/u", out);
			if (fs_write_atomic(p, "u\n", 2, &e) < 0)
				_exit(4);
			snprintf(p, sizeof p, "%s/f", dir);
			for (i = 0; i < 60; i++) {
				long long was = journal_size(st), now;

				if (fs_write_beneath(f->root, p, "x\n", 2, 0, &e) < 0)
					_exit(3);
				now = journal_size(st);
				trimmed |= now < was;
				if (round ? now < was : trimmed && now > 64 << 10)
					break;
			}
			memset(data, 'z', len);
			signal(SIGXFSZ, SIG_DFL);
			if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
				_exit(5);
			snprintf(p, sizeof p, "%s/%sbig.bin", f->root, round ? "sub/" : "");
			fs_write_beneath(f->root, p, data, len, 0, &e);
			_exit(6);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGXFSZ);
		snprintf(sub, sizeof sub, "%s/%s", f->root, round ? "sub" : "");
		assert_true(find_temp(sub, name, sizeof name));
		assert_non_null(strstr(name, ".big.bin.hearth-"));
		snprintf(t, sizeof t, "%s/temps", st);
		assert_non_null(dd = opendir(t));
		while ((de = readdir(dd)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			journals++;
			assert_true(snprintf(p, sizeof p, "%s/%s", t, de->d_name) < (int)sizeof p);
			assert_int_equal(stat(p, &sb), 0);
			print_message("journal %s: %lld bytes\n", de->d_name, (long long)sb.st_size);
			assert_true(sb.st_size > 0 && sb.st_size <= (64 << 10) + (8 << 10));
		}
		closedir(dd);
		assert_int_equal(journals, 1);
		if (round) {
			/* its directory became a symlink that leads out, the temp file moved there */
			char from[PATH_MAX * 3], to[PATH_MAX * 3];

			snprintf(from, sizeof from, "%s/%s", sub, name);
			snprintf(to, sizeof to, "%s/%s", out2, name);
			assert_int_equal(rename(from, to), 0);
			assert_int_equal(rmdir(sub), 0);
			assert_int_equal(symlink(out2, sub), 0);
		}
		assert_int_equal(fs_temps_start(st, &removed, &e), 0);
		fs_temps_stop();
		assert_int_equal(removed, round ? 0 : 1);
		assert_false(find_temp(f->root, name, sizeof name));
		assert_false(there(f->root, "big.bin"));
		assert_true(there(dir, "f"));
		assert_true(there(out, "u"));
		assert_false(find_temp(dir, name, sizeof name));
		assert_int_equal(count_tree(out), 1);
		assert_int_equal(count_tree(out2), round); /* outside: untouched */
	}
	fixture_rmrf(out2);
	free(out2);
	fixture_rmrf(st);
	fixture_rmrf(out);
	free(st);
	free(out);
	fixture_free(f);
}

/*
 * Issue 20: what a run records.  Each write's temp file is recorded under a
 * name the sweep recognises (".NAME.hearth-PID-" and six of [A-Za-z0-9]);
 * a write whose temp file cannot be made (no fd left: EMFILE) fails, and
 * drops what it recorded, so a clean stop still removes the journal.
 */
static void
test_journal_names(void **state)
{
	char *st = outside_dir(), p[PATH_MAX * 2], tag[64];
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	struct rlimit rl, lim;
	size_t i, names = 0;
	int n, rc;

	(void)state;
	assert_int_equal(fs_temps_start(st, NULL, &e), 0);
	snprintf(p, sizeof p, "%s/f", st);
	for (i = 0; i < 60; i++)
		assert_int_equal(fs_write_atomic(p, "f\n", 2, &e), 0);
	snprintf(tag, sizeof tag, ".f.hearth-%ld-", (long)getpid());
	assert_true(journal_size(st) > 0);
	{
		char t[PATH_MAX * 2], jp[PATH_MAX * 3] = "";
		struct dirent *de;
		DIR *d;

		snprintf(t, sizeof t, "%s/temps", st);
		assert_non_null(d = opendir(t));
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				assert_true(snprintf(jp, sizeof jp, "%s/%s", t, de->d_name) < (int)sizeof jp);
		closedir(d);
		assert_int_equal(buf_read_file(&j, jp, 0, &e), 0);
	}
	for (i = 0; i < j.len; i++) {
		const char *r = j.data + i + 1, *dir = r + strlen(r) + 1, *nm = dir + strlen(dir) + 1;
		size_t k;

		assert_true(j.data[i] == '+' || j.data[i] == '-');
		assert_string_equal(dir, st);
		assert_int_equal(strncmp(nm, tag, strlen(tag)), 0);
		assert_int_equal(strlen(nm), strlen(tag) + 6);
		for (k = strlen(tag); nm[k]; k++)
			assert_true((nm[k] >= 'A' && nm[k] <= 'Z') || (nm[k] >= 'a' && nm[k] <= 'z') ||
				    (nm[k] >= '0' && nm[k] <= '9'));
		names++;
		i = (size_t)(nm + strlen(nm) - j.data);
	}
	assert_int_equal(names, 120);
	{
		char t[PATH_MAX * 2], jp[PATH_MAX * 3] = "";
		struct dirent *de;
		struct stat sb;
		DIR *d;

		snprintf(t, sizeof t, "%s/temps", st);
		assert_non_null(d = opendir(t));
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				assert_true(snprintf(jp, sizeof jp, "%s/%s", t, de->d_name) < (int)sizeof jp);
		closedir(d);
		assert_int_equal(stat(jp, &sb), 0);
		assert_int_equal(sb.st_mode & 07777, 0600); /* it names the user's files */
	}
	/* no descriptor for the temp file */
	n = dup(0);
	assert_true(n > 0);
	close(n);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	lim = rl;
	lim.rlim_cur = (rlim_t)n + 1; /* the directory's open gets fd n, the temp file none */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	rc = fs_write_atomic(p, "g\n", 2, &e);
	setrlimit(RLIMIT_NOFILE, &rl);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "create a temporary file"));
	fs_temps_stop();
	{
		/* after the stop a write records nothing anywhere (fd 0 here a pipe) */
		int pw[2], saved = dup(0);
		char c;

		assert_int_equal(pipe(pw), 0);
		dup2(pw[1], 0);
		rc = fs_write_atomic(p, "h\n", 2, &e);
		dup2(saved, 0);
		close(saved);
		close(pw[1]);
		assert_int_equal(rc, 0);
		assert_int_equal(read(pw[0], &c, 1), 0);
		close(pw[0]);
	}
	snprintf(p, sizeof p, "%s/temps", st);
	assert_int_equal(count_tree(p), 0);
	{
		/* a start again closes the journal it had; with stdin closed the journal is fd 0 */
		int fds, saved = dup(0);

		close(0);
		fds = tu_open_fds();
		assert_int_equal(fs_temps_start(st, NULL, &e), 0);
		assert_int_equal(fcntl(0, F_GETFD) >= 0, 1);
		assert_int_equal(fs_temps_start(st, NULL, &e), 0);
		assert_int_equal(fcntl(0, F_GETFD), -1);
		assert_int_equal(fs_temps_start(st, NULL, &e), 0); /* fd 0 again */
		fs_temps_stop();
		rc = fcntl(0, F_GETFD);
		n = tu_open_fds();
		dup2(saved, 0);
		close(saved);
		assert_int_equal(rc, -1);
		assert_int_equal(n, fds);
		assert_int_equal(count_tree(p), 0);
	}
	buf_release(&j);
	fixture_rmrf(st);
	free(st);
}

/*
 * Issue 20: fs_write_beneath takes only an absolute path that names a
 * file (not "", "." or ".."); fs_read_beneath reads, and keeps errno on a
 * failure; both work with stdin closed (descriptor 0 then theirs).
 */
static void
test_beneath_args(void **state)
{
	struct fixture *f = fixture_new();
	static const char *bad[] = { "rel.txt", "/", "/.", "/d/.." };
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	char p[PATH_MAX * 2];
	size_t i;
	int saved, wrc, rrc;

	(void)state;
	fixture_mkdir(f, "d");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(p, sizeof p, "%s%s", bad[i][0] == '/' ? f->root : "", bad[i]);
		err_clear(&e);
		assert_int_equal(fs_write_beneath(f->root, p, "x", 1, 0, &e), -1);
		assert_non_null(strstr(e.msg, "not a file path"));
	}
	assert_int_equal(count_tree(f->root), 1);
	snprintf(p, sizeof p, "%s/missing", f->root);
	errno = 0;
	assert_int_equal(fs_read_beneath(f->root, p, &b, 0, &e), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(b.len, 0);
	snprintf(p, sizeof p, "%s/c.txt", f->root);
	saved = dup(0);
	assert_true(saved > 0);
	close(0);
	wrc = fs_write_beneath(f->root, p, "c\n", 2, 0, &e);
	rrc = fs_read_beneath(f->root, p, &b, 0, &e);
	dup2(saved, 0);
	close(saved);
	assert_int_equal(wrc, 0);
	assert_int_equal(rrc, 0);
	assert_string_equal(b.data, "c\n");
	buf_release(&b);
	fixture_free(f);
}

/*
 * Issue 20: a temp name that exists already (every O_EXCL create fails
 * with EEXIST here, by seccomp, in a child) is tried again under new
 * names, 100 times in all, each recorded and dropped, then the write fails;
 * another error (EACCES) is not retried.
 */
static void
test_temp_name_taken(void **state)
{
	static const int errs[] = { EEXIST, EACCES };
	char *st = outside_dir(), p[PATH_MAX * 2];
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i, k, plus, minus;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct sock_filter prog[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 3),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
			BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_EXCL, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)errs[k]),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fp = { sizeof prog / sizeof prog[0], prog };
		int status;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			alarm(5);
			if (fs_temps_start(st, NULL, &e) < 0)
				_exit(3);
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
			    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) < 0)
				_exit(2);
			snprintf(p, sizeof p, "%s/f", st);
			_exit(fs_write_atomic(p, "f\n", 2, &e) == -1 &&
			      strstr(e.msg, "create a temporary file") ? 0 : 1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) == 2) {
			print_message("no seccomp here; skipped\n");
			break;
		}
		assert_int_equal(WEXITSTATUS(status), 0);
		{
			char t[PATH_MAX * 2], jp[PATH_MAX * 3] = "";
			struct dirent *de;
			DIR *d;

			snprintf(t, sizeof t, "%s/temps", st);
			assert_non_null(d = opendir(t));
			while ((de = readdir(d)) != NULL)
				if (de->d_name[0] != '.')
					assert_true(snprintf(jp, sizeof jp, "%s/%s", t, de->d_name) <
						    (int)sizeof jp);
			closedir(d);
			buf_reset(&j);
			assert_int_equal(buf_read_file(&j, jp, 0, &e), 0);
			unlink(jp);
		}
		for (i = 0, plus = minus = 0; i < j.len; i++) {
			plus += j.data[i] == '+';
			minus += j.data[i] == '-';
			i += strlen(j.data + i + 1) + 1;
			i += strlen(j.data + i + 1) + 1;
			i += strlen(j.data + i + 1) + 1;
		}
		assert_int_equal(plus, k ? 1 : 100);
		assert_int_equal(minus, plus);
	}
	buf_release(&j);
	fixture_rmrf(st);
	free(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_fifo_eintr),
		cmocka_unit_test(test_race),
		cmocka_unit_test(test_kill9_temp_swept),
		cmocka_unit_test(test_sweep_stays_beneath),
		cmocka_unit_test(test_sweep_journal),
		cmocka_unit_test(test_sweep_runs),
		cmocka_unit_test(test_sweep_bounded),
		cmocka_unit_test(test_journal_kept),
		cmocka_unit_test(test_journal_names),
		cmocka_unit_test(test_beneath_args),
		cmocka_unit_test(test_temp_name_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

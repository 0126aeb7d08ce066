/*
 * base/fs: atomic replace, ignore-aware tree walk, globbing and text
 * sniffing for the model tools (see base/fs.h).
 *
 * The walk keeps one path buffer that grows and shrinks as it descends;
 * each directory's names are read whole, sorted, and freed before the
 * walk returns from that directory.  libgit2 is initialised once, lazily,
 * the first time a walk looks for a repository, and never shut down (its
 * globals are still reachable at exit).
 */
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "base/workspace.h"
#include "base/xmalloc.h"

#define WALK_MAX_DEPTH 64
#define GLOB_MAX_ALTS 64

int
fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Temp-file journal ----------------------------------------------------- */

/*
 * One file per run, STATE/temps/PID-START (START: the process's start time
 * in clock ticks, from /proc/self/stat, so a reused pid is told apart).
 * Records are op ('+' before a temp file is made, '-' after it is renamed
 * or removed), then root, directory and name, each NUL-terminated (root ""
 * for a write that is not confined).  Appends are single write(2)s on an
 * O_APPEND fd, under the mutex; when no temp file is outstanding and the
 * file passed TEMPS_TRIM bytes, it is truncated.
 */
#define TEMPS_TRIM (64u << 10)
#define TEMPS_READ_MAX (1u << 20)
#define TEMPS_SWEEP_MAX 16

static pthread_mutex_t temps_mu = PTHREAD_MUTEX_INITIALIZER;
static int temps_fd = -1;
static char *temps_path;
static size_t temps_open; /* temp files between '+' and '-' */

/* Start time of pid in clock ticks since boot, 0 when unknown. */
static unsigned long long
proc_start(long pid)
{
	char path[64], line[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fgets(line, sizeof line, f) && (p = strrchr(line, ')')) != NULL) {
		for (i = 0, p++; i < 19 && p; i++) /* ") S ppid ..." : field 22 is starttime */
			p = strchr(p + 1, ' ');
		if (p)
			t = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return t;
}

/* Append one record; n-th call with op '+' counts a temp as outstanding. */
static void
temps_note(char op, const char *root, const char *dir, const char *name)
{
	struct buf r = BUF_INIT;
	struct stat st;

	pthread_mutex_lock(&temps_mu);
	if (temps_fd >= 0) {
		buf_addch(&r, op);
		buf_add(&r, root, strlen(root) + 1);
		buf_add(&r, dir, strlen(dir) + 1);
		buf_add(&r, name, strlen(name) + 1);
		if (op == '+')
			temps_open++;
		else if (temps_open)
			temps_open--;
		if (temps_open == 0 && fstat(temps_fd, &st) == 0 && (size_t)st.st_size > TEMPS_TRIM) {
			if (ftruncate(temps_fd, 0) < 0)
				(void)0; /* a longer journal is harmless */
		} else if (fs_write_all(temps_fd, r.data, r.len) < 0) {
			(void)0; /* best effort: the sweep then misses this one temp file */
		}
	}
	pthread_mutex_unlock(&temps_mu);
	buf_release(&r);
}

/* Whether name is one of pid's temp files: ".NAME.hearth-PID-XXXXXX". */
static int
temp_name_of(const char *name, long pid)
{
	char tag[40];
	const char *p;
	size_t tl;

	snprintf(tag, sizeof tag, ".hearth-%ld-", pid);
	tl = strlen(tag);
	if (name[0] != '.' || strchr(name, '/'))
		return 0;
	for (p = strstr(name, tag); p; p = strstr(p + 1, tag))
		if (strlen(p + tl) == 6)
			return 1;
	return 0;
}

/* Remove one recorded temp file of a dead run, beneath its root. */
static int
sweep_one(const char *root, const char *dir, const char *name, long pid)
{
	struct stat st;
	int dfd, rc = 0;

	if (!temp_name_of(name, pid) || dir[0] != '/')
		return 0;
	dfd = workspace_opendir(*root ? root : "/", dir, 0, NULL);
	if (dfd < 0)
		return 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    unlinkat(dfd, name, 0) == 0)
		rc = 1;
	close(dfd);
	return rc;
}

/* Replay one dead run's journal: remove its temp files that were never dropped. */
static size_t
sweep_journal(const char *path, long pid)
{
	struct buf j = BUF_INIT;
	struct err e = ERR_INIT;
	const char *f[3];
	size_t i = 0, k, removed = 0, n, rn;
	char **live = NULL;
	size_t nlive = 0;

	if (buf_read_file(&j, path, TEMPS_READ_MAX, &e) < 0) {
		buf_release(&j);
		return 0;
	}
	while (i < j.len) {
		char op = j.data[i++];

		for (k = 0; k < 3 && i < j.len; k++) {
			f[k] = j.data + i;
			n = strnlen(f[k], j.len - i);
			if (i + n >= j.len)
				break;
			i += n + 1;
		}
		if (k < 3)
			break; /* a torn last record */
		/* key: dir NUL name, kept until its '-' comes */
		for (rn = 0; rn < nlive; rn++)
			if (!strcmp(live[rn], f[1]) && !strcmp(live[rn] + strlen(live[rn]) + 1, f[2]))
				break;
		if (op == '-' && rn < nlive) {
			free(live[rn]);
			live[rn] = live[--nlive];
		} else if (op == '+' && rn == nlive) {
			size_t a = strlen(f[0]) + 1, b = strlen(f[1]) + 1, c = strlen(f[2]) + 1;

			live = xrealloc(live, (nlive + 1) * sizeof *live);
			live[nlive] = xmalloc(a + b + c);
			memcpy(live[nlive], f[1], b);
			memcpy(live[nlive] + b, f[2], c);
			memcpy(live[nlive] + b + c, f[0], a);
			nlive++;
		}
	}
	for (rn = 0; rn < nlive; rn++) {
		const char *d = live[rn], *nm = d + strlen(d) + 1, *rt = nm + strlen(nm) + 1;

		removed += (size_t)sweep_one(rt, d, nm, pid);
		free(live[rn]);
	}
	free(live);
	buf_release(&j);
	return removed;
}

/*
 * Whether the run that wrote journal PID-START is gone.  This process's own
 * pid is no exception: an earlier run had it when the start differs (pids
 * repeat across boots, and in a pid namespace every run may get the same).
 */
static int
run_is_dead(long pid, unsigned long long start)
{
	unsigned long long now;

	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	now = proc_start(pid);
	return start && now && now != start; /* the pid was reused */
}

int
fs_temps_start(const char *state_dir, size_t *removed, struct err *e)
{
	struct buf dir = BUF_INIT, p = BUF_INIT;
	struct dirent *de;
	size_t seen = 0;
	long pid;
	unsigned long long start;
	char tail;
	DIR *d;
	int fd, rc = 0;

	if (removed)
		*removed = 0;
	buf_addf(&dir, "%s/temps", state_dir);
	if (fs_mkdirs(dir.data, e) < 0) {
		buf_release(&dir);
		return -1;
	}
	if ((d = opendir(dir.data)) != NULL) {
		while ((de = readdir(d)) != NULL && seen < TEMPS_SWEEP_MAX) {
			if (sscanf(de->d_name, "%ld-%llu%c", &pid, &start, &tail) != 2 || pid <= 0 ||
			    !run_is_dead(pid, start))
				continue;
			seen++;
			buf_reset(&p);
			buf_addf(&p, "%s/%s", dir.data, de->d_name);
			if (removed)
				*removed += sweep_journal(p.data, pid);
			else
				sweep_journal(p.data, pid);
			unlink(p.data);
		}
		closedir(d);
	}
	buf_reset(&p);
	buf_addf(&p, "%s/%ld-%llu", dir.data, (long)getpid(), proc_start((long)getpid()));
	fd = open(p.data, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = err_errno(e, "temp-file journal %s", p.data);
	} else {
		pthread_mutex_lock(&temps_mu);
		if (temps_fd >= 0)
			close(temps_fd);
		free(temps_path);
		temps_fd = fd;
		temps_path = buf_detach(&p, NULL);
		temps_open = 0;
		pthread_mutex_unlock(&temps_mu);
	}
	buf_release(&p);
	buf_release(&dir);
	return rc;
}

void
fs_temps_stop(void)
{
	pthread_mutex_lock(&temps_mu);
	if (temps_fd >= 0) {
		close(temps_fd);
		if (temps_open == 0)
			unlink(temps_path);
	}
	temps_fd = -1;
	free(temps_path);
	temps_path = NULL;
	temps_open = 0;
	pthread_mutex_unlock(&temps_mu);
}

/* Atomic replace ---------------------------------------------------------- */

/* Six characters for a temp name: pid, time and a counter, mixed (splitmix64). */
static void
temp_suffix(char out[7])
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static atomic_ullong counter;
	struct timespec ts;
	unsigned long long z;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	z = atomic_fetch_add(&counter, 1) + 0x9E3779B97F4A7C15ull * (unsigned long long)getpid() +
	    (unsigned long long)ts.tv_nsec + ((unsigned long long)ts.tv_sec << 32);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	for (i = 0; i < 6; i++, z /= 62)
		out[i] = abc[z % 62];
	out[6] = '\0';
}

/*
 * Mode the replacement of name in dfd gets: the old file's (*keep set), or
 * for a new file (also when name is a symlink: the link itself is
 * replaced) 0644 minus umask, applied by the temp file's open: reading the
 * umask means setting it, which would race with other threads' creates.
 */
static int
target_mode(int dfd, const char *name, const char *shown, mode_t *mode, int *keep, struct err *e)
{
	struct stat st;

	*keep = 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISREG(st.st_mode)) {
			*mode = st.st_mode & 07777;
			*keep = 1;
			return 0;
		}
		if (!S_ISLNK(st.st_mode))
			return err_set(e, "write %s: not a regular file; give a file path", shown);
	} else if (errno != ENOENT) {
		return err_errno(e, "stat %s", shown);
	}
	*mode = 0644;
	return 0;
}

/*
 * Replace name in the directory dfd (whose path is dir, beneath root; root
 * "" when not confined): temp file made with openat in dfd, fsync, renameat
 * within dfd, fsync dfd.  Every step names dfd, so nothing can redirect it.
 */
static int
write_in_dir(int dfd, const char *root, const char *dir, const char *name, const char *shown,
	     const void *data, size_t len, struct err *e)
{
	char tmp[NAME_MAX + 1], sfx[7];
	mode_t mode = 0644;
	int fd = -1, rc = -1, tries, keep;

	if (target_mode(dfd, name, shown, &mode, &keep, e) < 0)
		return -1;
	for (tries = 0; tries < 100 && fd < 0; tries++) {
		temp_suffix(sfx);
		snprintf(tmp, sizeof tmp, ".%.200s.hearth-%ld-%s", name, (long)getpid(), sfx);
		temps_note('+', root, dir, tmp);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    keep ? 0600 : mode);
		if (fd < 0) {
			int saved = errno;

			temps_note('-', root, dir, tmp);
			errno = saved;
			if (errno != EEXIST)
				break;
		}
	}
	if (fd < 0)
		return err_errno(e, "write %s: create a temporary file", shown);
	if (fs_write_all(fd, data, len) < 0 || (keep && fchmod(fd, mode) < 0) || fsync(fd) < 0)
		err_errno(e, "write %s", shown);
	else
		rc = 0;
	if (close(fd) < 0 && rc == 0)
		rc = err_errno(e, "write %s", shown);
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = err_errno(e, "write %s: rename into place", shown);
	if (rc < 0)
		unlinkat(dfd, tmp, 0);
	else
		fsync(dfd);
	temps_note('-', root, dir, tmp);
	return rc;
}

/* Split abs at its last '/' into dir (reset first) and the returned base name. */
static const char *
split_path(const char *abs, struct buf *dir)
{
	const char *slash = strrchr(abs, '/');

	buf_reset(dir);
	if (!slash) {
		buf_adds(dir, ".");
		return abs;
	}
	if (slash == abs)
		buf_adds(dir, "/");
	else
		buf_add(dir, abs, (size_t)(slash - abs));
	return slash + 1;
}

int
fs_write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	struct buf dir = BUF_INIT;
	const char *base = split_path(path, &dir);
	int dfd = open(dir.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0) {
		rc = err_errno(e, "write %s: open the directory", path);
	} else {
		rc = write_in_dir(dfd, "", dir.data, base, path, data, len, e);
		close(dfd);
	}
	buf_release(&dir);
	return rc;
}

int
fs_write_beneath(const char *root, const char *abs, const void *data, size_t len, unsigned flags,
		 struct err *e)
{
	struct buf dir = BUF_INIT;
	const char *base = split_path(abs, &dir);
	const char *shown = workspace_rel(root, abs);
	int dfd, rc = -1;

	if (abs[0] != '/' || !*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		rc = err_set(e, "write %s: not a file path; give the path of a file", abs);
	} else if ((dfd = workspace_opendir(root, dir.data, !!(flags & FS_MKDIRS), e)) >= 0) {
		rc = write_in_dir(dfd, workspace_inside(root, abs) ? root : "", dir.data, base, shown,
				  data, len, e);
		close(dfd);
	}
	buf_release(&dir);
	return rc;
}

int
fs_read_beneath(const char *root, const char *abs, struct buf *b, size_t max, struct err *e)
{
	int fd = workspace_open(root, abs, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, e), rc, saved;

	if (fd < 0)
		return -1;
	rc = buf_read_fd(b, fd, workspace_rel(root, abs), max, e);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Create dir and its missing parents with mode (minus umask). */
static int
mkdirs_mode(const char *dir, mode_t mode, struct err *e)
{
	char *p = xstrdup(dir);
	struct stat st;
	char *s, c;
	int rc = 0;

	for (s = *p ? p + 1 : p; rc == 0 && *p; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			rc = err_errno(e, "create directory %s", p);
		else if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			rc = err_set(e, "create directory %s: a file with that name exists", p);
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

/* Create dir and its missing parents. */
int
fs_mkdirs(const char *dir, struct err *e)
{
	return mkdirs_mode(dir, 0777, e);
}

/* mkdir -p, new directories 0700; an existing last component open to others is closed to them. */
int
fs_mkdirs_private(const char *dir, struct err *e)
{
	struct stat st;
	int rc = mkdirs_mode(dir, 0700, e);

	if (rc == 0 && stat(dir, &st) == 0 && (st.st_mode & 077) && chmod(dir, st.st_mode & 0700) < 0)
		rc = err_errno(e, "make %s private (mode 0700)", dir);
	return rc;
}

/* fs_write_atomic for a file only its owner may read (mode 0600, even when it existed). */
int
fs_write_private(const char *path, const void *data, size_t len, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int made = fd >= 0, rc;
	struct stat st;

	if (fd >= 0)
		close(fd); /* an empty 0600 file: the replacement takes its mode */
	else if (errno == EEXIST && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && chmod(path, 0600) < 0)
		return err_errno(e, "write %s: make it private (mode 0600)", path);
	rc = fs_write_atomic(path, data, len, e);
	if (rc < 0 && made)
		unlink(path);
	else if (rc == 0 && chmod(path, 0600) < 0) /* it was a symlink: now a file of the link's mode */
		rc = err_errno(e, "write %s: make it private (mode 0600)", path);
	return rc;
}

/* State of one walk: the repository used for ignore checks, if any. */
struct walk_state {
	struct fs_walk *w;
	git_repository *repo;
	git_index *index; /* the repository's index: tracked paths need no ignore check */
	struct buf key;   /* scratch for a directory's "path/" prefix */
	char *workdir; /* canonical, ends with '/' */
	size_t wlen;
	char *real;       /* the start's canonical path when it differs (a symlink on the way), */
	size_t alias_len; /* for ignore checks: abs = start[0, alias_len) + rest -> real + rest */
	struct buf canon; /* scratch for that */
	size_t visits;
	int stop;
};

/* libgit2's one-time set-up (pthread_once: walks also run on the worker thread, io/work.h). */
static void
git_init_once(void)
{
	git_libgit2_init();
}

/* Open the repository around dir for ignore checks (none outside a repo). */
static void
open_repo(struct walk_state *ws, const char *dir)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *wd;
	char *real;

	pthread_once(&once, git_init_once);
	if (git_repository_open_ext(&ws->repo, dir, 0, NULL) < 0) {
		ws->repo = NULL;
		return;
	}
	wd = git_repository_workdir(ws->repo);
	real = wd ? realpath(wd, NULL) : NULL;
	if (!real) {
		git_repository_free(ws->repo);
		ws->repo = NULL;
		return;
	}
	if (git_repository_index(&ws->index, ws->repo) < 0)
		ws->index = NULL;
	ws->wlen = strlen(real) + 1;
	ws->workdir = xmalloc(ws->wlen + 1);
	memcpy(ws->workdir, real, ws->wlen - 1);
	memcpy(ws->workdir + ws->wlen - 1, "/", 2);
	free(real);
}

/*
 * Whether abs is ignored by the repository's .gitignore files.  What the
 * index tracks is not ignored (git's rule, and `git ls-files -co
 * --exclude-standard`'s): a file in the index, or a directory holding one,
 * is settled by a binary search, and only untracked entries pay libgit2's
 * ignore check (which reads the rules of every directory on the way: it
 * was most of a walk's time).
 */
static int
is_ignored(struct walk_state *ws, const char *abs, int dir)
{
	const char *rel;
	size_t pos;
	int ign = 0;

	if (ws->real) { /* the path as git sees it: through the symlinks to the repository */
		buf_reset(&ws->canon);
		buf_adds(&ws->canon, ws->real);
		buf_adds(&ws->canon, abs + ws->alias_len);
		abs = ws->canon.data;
	}
	rel = abs + ws->wlen;
	if (!ws->repo || strncmp(abs, ws->workdir, ws->wlen) != 0)
		return 0;
	if (ws->index && *rel) {
		if (!dir && git_index_find(&pos, ws->index, rel) == 0)
			return 0;
		if (dir) {
			buf_reset(&ws->key);
			buf_adds(&ws->key, rel);
			buf_addch(&ws->key, '/');
			if (git_index_find_prefix(&pos, ws->index, ws->key.data) == 0)
				return 0;
		}
	}
	if (git_ignore_path_is_ignored(&ign, ws->repo, rel) < 0)
		return 0;
	return ign == 1;
}

/* Order for qsort over an array of names (each after its type byte). */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

/* The mode bits of a dirent type; 0 when the file system did not say. */
static mode_t
type_mode(unsigned char t)
{
	switch (t) {
	case DT_REG: return S_IFREG;
	case DT_DIR: return S_IFDIR;
	case DT_LNK: return S_IFLNK;
	case DT_FIFO: return S_IFIFO;
	case DT_SOCK: return S_IFSOCK;
	case DT_CHR: return S_IFCHR;
	case DT_BLK: return S_IFBLK;
	default: return 0;
	}
}

/*
 * Sorted entry names of the directory open as dfd without ".", ".." and
 * ".git", each after one byte of its dirent type; NULL if unreadable.
 */
static char **
read_names(int dfd, size_t *n)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0, len;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".git"))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			v = xrealloc(v, cap * sizeof *v);
		}
		len = strlen(de->d_name);
		v[*n] = xmalloc(len + 2);
		v[*n][0] = (char)de->d_type;
		memcpy(v[*n] + 1, de->d_name, len + 1);
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_names);
	return v ? v : xcalloc(1, sizeof *v);
}

/*
 * The state of one entry (name in the directory dfd): from its dirent type
 * alone for a types_only walk (other fields zero), else fstatat.
 */
static int
entry_stat(struct walk_state *ws, int dfd, const char *typed, struct stat *st)
{
	mode_t m = type_mode((unsigned char)typed[0]);

	if (ws->w->types_only && m) {
		memset(st, 0, sizeof *st);
		st->st_mode = m;
		return 0;
	}
	return fstatat(dfd, typed + 1, st, AT_SYMLINK_NOFOLLOW);
}

/* Visit one entry; returns whether the walk should descend into it. */
static int
visit_entry(struct walk_state *ws, const char *abs, struct stat *st)
{
	struct fs_walk *w = ws->w;

	if (is_ignored(ws, abs, S_ISDIR(st->st_mode))) {
		w->ignored++;
		return 0;
	}
	if (++ws->visits > w->max_entries) {
		w->truncated = 1;
		ws->stop = 1;
		return 0;
	}
	if (w->visit(abs, workspace_rel(w->root, abs), st, w->arg)) {
		ws->stop = 1;
		return 0;
	}
	return S_ISDIR(st->st_mode);
}

/* Visit the entries of the directory in path, recursively. */
static void
walk_dir(struct walk_state *ws, struct buf *path, int depth)
{
	size_t n = 0, i, base = path->len;
	int dfd = open(path->data, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	char **names = dfd < 0 ? NULL : read_names(dfd, &n);
	struct stat st;

	if (!names) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!ws->stop && entry_stat(ws, dfd, names[i], &st) == 0) {
			buf_setlen(path, base);
			if (base == 0 || path->data[base - 1] != '/')
				buf_addch(path, '/');
			buf_adds(path, names[i] + 1);
			if (visit_entry(ws, path->data, &st) && depth < WALK_MAX_DEPTH)
				walk_dir(ws, path, depth + 1);
		}
		free(names[i]);
	}
	free(names);
	close(dfd);
	buf_setlen(path, base);
}

/* Walk start (see base/fs.h). */
int
fs_walk(struct fs_walk *w, const char *start, struct err *e)
{
	struct walk_state ws = { w, NULL, NULL, BUF_INIT, NULL, 0, NULL, 0, BUF_INIT, 0, 0 };
	struct buf path = BUF_INIT;
	struct stat st;

	w->truncated = 0;
	w->ignored = 0;
	if (!w->max_entries)
		w->max_entries = 100000;
	if (lstat(start, &st) < 0)
		return err_errno(e, "%s", workspace_rel(w->root, start));
	if (!S_ISDIR(st.st_mode)) {
		w->visit(start, workspace_rel(w->root, start), &st, w->arg);
		return 0;
	}
	open_repo(&ws, start);
	if (ws.repo && (ws.real = realpath(start, NULL)) != NULL) {
		ws.alias_len = strlen(start);
		while (ws.alias_len > 1 && start[ws.alias_len - 1] == '/')
			ws.alias_len--;
		if (strlen(ws.real) == ws.alias_len && !memcmp(ws.real, start, ws.alias_len)) {
			free(ws.real); /* no symlink on the way */
			ws.real = NULL;
		}
	}
	if (is_ignored(&ws, start, 1)) {
		git_index_free(ws.index);
		ws.index = NULL;
		git_repository_free(ws.repo);
		ws.repo = NULL;
	}
	buf_adds(&path, start);
	walk_dir(&ws, &path, 0);
	buf_release(&path);
	buf_release(&ws.key);
	buf_release(&ws.canon);
	free(ws.real);
	git_index_free(ws.index);
	git_repository_free(ws.repo);
	free(ws.workdir);
	return 0;
}

/* The walk's limit note (see base/fs.h). */
void
fs_walk_note(const struct fs_walk *w, struct buf *out)
{
	if (!w->truncated)
		return;
	buf_end_line(out);
	buf_addf(out, "[stopped after %zu entries; pass a narrower path]", w->max_entries);
}

/* End of the '/'-delimited segment starting at s. */
static const char *
seg_end(const char *s)
{
	while (*s && *s != '/')
		s++;
	return s;
}

/* fnmatch one pattern segment against one path segment (not NUL-terminated). */
static int
seg_match(const char *p, size_t pn, const char *s, size_t sn)
{
	char pb[NAME_MAX + 1], sb[NAME_MAX + 1];

	if (pn > NAME_MAX || sn > NAME_MAX)
		return 0;
	memcpy(pb, p, pn);
	pb[pn] = '\0';
	memcpy(sb, s, sn);
	sb[sn] = '\0';
	return fnmatch(pb, sb, 0) == 0;
}

/* Match segment by segment; "**" matches zero or more whole segments. */
static int
match_segs(const char *p, const char *s)
{
	const char *pe, *se, *rest;

	for (;;) {
		if (*p == '\0')
			return *s == '\0';
		pe = seg_end(p);
		rest = *pe ? pe + 1 : pe;
		if (pe - p == 2 && p[0] == '*' && p[1] == '*') {
			if (*rest == '\0')
				return 1;
			for (;;) {
				if (match_segs(rest, s))
					return 1;
				s = seg_end(s);
				if (!*s)
					return 0;
				s++;
			}
		}
		se = seg_end(s);
		if (*s == '\0' || !seg_match(p, (size_t)(pe - p), s, (size_t)(se - s)))
			return 0;
		p = rest;
		s = *se ? se + 1 : se;
	}
}

/* Match one brace-free pattern. */
static int
glob_one(const char *pat, const char *path)
{
	const char *base;

	while (pat[0] == '.' && pat[1] == '/')
		pat += 2;
	while (*pat == '/')
		pat++;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strchr(pat, '/')) {
		base = strrchr(path, '/');
		return fnmatch(pat, base ? base + 1 : path, 0) == 0;
	}
	return match_segs(pat, path);
}

/* Find the first top-level {..,..} group: lo and hi offsets. */
static int
find_braces(const char *pat, size_t *lo, size_t *hi)
{
	size_t i;
	int depth = 0, comma = 0;

	for (i = 0; pat[i]; i++) {
		if (pat[i] == '\\' && pat[i + 1]) {
			i++;
		} else if (pat[i] == '{') {
			if (depth++ == 0) {
				*lo = i;
				comma = 0;
			}
		} else if (pat[i] == ',' && depth == 1) {
			comma = 1;
		} else if (pat[i] == '}' && depth > 0 && --depth == 0 && comma) {
			*hi = i;
			return 1;
		}
	}
	return 0;
}

/* Expand the first brace group and try each alternative. */
static int
glob_brace(const char *pat, const char *path, int *budget)
{
	size_t lo = 0, hi = 0, i, start;
	struct buf alt = BUF_INIT;
	int depth = 0, hit = 0;

	if (!find_braces(pat, &lo, &hi))
		return --*budget >= 0 && glob_one(pat, path);
	for (i = start = lo + 1; i <= hi && !hit && *budget > 0; i++) {
		if (pat[i] == '\\' && i + 1 < hi) {
			i++;
			continue;
		}
		if (pat[i] == '{') {
			depth++;
		} else if (pat[i] == '}' && i < hi) {
			depth--;
		} else if ((pat[i] == ',' && depth == 0) || i == hi) {
			buf_reset(&alt);
			buf_add(&alt, pat, lo);
			buf_add(&alt, pat + start, i - start);
			buf_adds(&alt, pat + hi + 1);
			hit = glob_brace(alt.data, path, budget);
			start = i + 1;
		}
	}
	buf_release(&alt);
	return hit;
}

/* Glob match with ** and braces (see base/fs.h). */
int
fs_glob_match(const char *pattern, const char *path)
{
	int budget = GLOB_MAX_ALTS;

	return glob_brace(pattern, path, &budget);
}

/* Validate one UTF-8 sequence (no overlongs, surrogates or > U+10FFFF). */
size_t
fs_utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t need, i;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		need = 1;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		need = 2;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		need = 3;
	else
		return 0;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (n < need + 1 || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i <= need; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return need + 1;
}

/*
 * Whether the 8 bytes at p are all plain text: printable ASCII, DEL, or a
 * control character text has (\b \t \n \v \f \r, ESC).  Eight at a time
 * in one word (SWAR): with no byte >= 0x80, adding k to each byte carries
 * into its high bit exactly when the byte is >= 0x80 - k, and never into
 * the next byte.  fs_is_binary's sniff runs on every file grep reads; a
 * byte at a time it was grep's largest cost (15 % of a 30k-file search).
 */
static int
fs_plain8(const char *p)
{
	const uint64_t hi = 0x8080808080808080u, ones = 0x0101010101010101u;
	uint64_t w, ge20, ge8, ge14, not_esc;

	memcpy(&w, p, sizeof w);
	if (w & hi)
		return 0;
	ge20 = (w + ones * (0x80 - 0x20)) & hi;
	ge8 = (w + ones * (0x80 - '\b')) & hi;
	ge14 = (w + ones * (0x80 - '\r' - 1)) & hi;
	not_esc = ((w ^ ones * 033) + ones * 0x7f) & hi;
	return (hi & ~ge20 & ~(ge8 & ~ge14) & not_esc) == 0;
}

/* Binary sniffing: NUL, or too many invalid/control bytes. */
int
fs_is_binary(const char *p, size_t n)
{
	size_t i = 0, bad = 0, k;
	unsigned char c;

	if (n > FS_SNIFF)
		n = FS_SNIFF;
	while (i < n) {
		if (n - i >= 8 && fs_plain8(p + i)) {
			i += 8;
			continue;
		}
		c = (unsigned char)p[i];
		if (c == 0)
			return 1;
		if (c >= 0x20 && c < 0x80) {
			i++;
			continue;
		}
		if (c < 0x20) {
			/* control characters other than \b \t \n \v \f \r and ESC */
			bad += !((1u << c) & (1u << '\b' | 1u << '\t' | 1u << '\n' | 1u << '\v' |
					     1u << '\f' | 1u << '\r' | 1u << 033));
			i++;
			continue;
		}
		if (c == 0x7f) {
			i++;
			continue;
		}
		k = fs_utf8_len(p + i, n - i);
		if (k == 0 && n - i < 4 && n == FS_SNIFF && !memchr(p + i, '\0', n - i))
			break; /* a sequence cut by the sniff window (a NUL in it is still seen) */
		bad += k == 0;
		i += k ? k : 1;
	}
	return bad * 10 > n;
}

/* Append text, replacing invalid UTF-8 bytes with U+FFFD. */
void
fs_add_utf8(struct buf *b, const char *p, size_t n)
{
	size_t i = 0, run = 0, k;

	while (i < n) {
		k = fs_utf8_len(p + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		buf_add(b, p + run, i - run);
		buf_adds(b, "\xEF\xBF\xBD");
		run = ++i;
	}
	buf_add(b, p + run, i - run);
}

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "base/workspace.h"
#include "base/xmalloc.h"

#define WALK_MAX_DEPTH 64
#define GLOB_MAX_ALTS 64

/* The process umask, read without changing it for long. */
static mode_t
current_umask(void)
{
	mode_t m = umask(022);

	umask(m);
	return m;
}

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

/* fsync the directory holding path so the rename itself is durable. */
static void
sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash && slash != path ? xstrndup(path, (size_t)(slash - path)) : xstrdup("/");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Mode the replacement gets: the old file's, or 0644 minus umask. */
static int
target_mode(const char *path, mode_t *mode, struct err *e)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return err_set(e, "write %s: not a regular file", path);
		*mode = st.st_mode & 07777;
		return 0;
	}
	if (errno != ENOENT)
		return err_errno(e, "stat %s", path);
	*mode = 0644 & ~current_umask();
	return 0;
}

/* Temp file, fsync, rename: the only way tools replace a file. */
int
fs_write_atomic(const char *path, const void *data, size_t len, struct err *e)
{
	struct buf tmp = BUF_INIT;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	mode_t mode = 0644;
	int fd, rc = -1;

	if (target_mode(path, &mode, e) < 0)
		return -1;
	if (slash)
		buf_add(&tmp, path, (size_t)(base - path));
	buf_addf(&tmp, ".%.200s.hearth-XXXXXX", base);
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		err_errno(e, "write %s: create temporary file", path);
		buf_release(&tmp);
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fs_write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0 || fsync(fd) < 0)
		err_errno(e, "write %s", path);
	else
		rc = 0;
	if (close(fd) < 0 && rc == 0)
		rc = err_errno(e, "write %s", path);
	if (rc == 0 && rename(tmp.data, path) < 0)
		rc = err_errno(e, "write %s: rename into place", path);
	if (rc < 0)
		unlink(tmp.data);
	else
		sync_parent(path);
	buf_release(&tmp);
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
	char *workdir; /* canonical, ends with '/' */
	size_t wlen;
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
	ws->wlen = strlen(real) + 1;
	ws->workdir = xmalloc(ws->wlen + 1);
	memcpy(ws->workdir, real, ws->wlen - 1);
	memcpy(ws->workdir + ws->wlen - 1, "/", 2);
	free(real);
}

/* Whether abs is ignored by the repository's .gitignore files. */
static int
is_ignored(struct walk_state *ws, const char *abs)
{
	int ign = 0;

	if (!ws->repo || strncmp(abs, ws->workdir, ws->wlen) != 0)
		return 0;
	if (git_ignore_path_is_ignored(&ign, ws->repo, abs + ws->wlen) < 0)
		return 0;
	return ign == 1;
}

/* Order for qsort over an array of names. */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of dir without ".", ".." and ".git"; NULL if unreadable. */
static char **
read_names(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".git"))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_names);
	return v ? v : xcalloc(1, sizeof *v);
}

/* Visit one entry; returns whether the walk should descend into it. */
static int
visit_entry(struct walk_state *ws, const char *abs, struct stat *st)
{
	struct fs_walk *w = ws->w;

	if (lstat(abs, st) < 0)
		return 0;
	if (is_ignored(ws, abs)) {
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
	size_t n, i, base = path->len;
	char **names = read_names(path->data, &n);
	struct stat st;

	if (!names)
		return;
	for (i = 0; i < n; i++) {
		if (!ws->stop) {
			buf_setlen(path, base);
			if (base == 0 || path->data[base - 1] != '/')
				buf_addch(path, '/');
			buf_adds(path, names[i]);
			if (visit_entry(ws, path->data, &st) && depth < WALK_MAX_DEPTH)
				walk_dir(ws, path, depth + 1);
		}
		free(names[i]);
	}
	free(names);
	buf_setlen(path, base);
}

/* Walk start (see base/fs.h). */
int
fs_walk(struct fs_walk *w, const char *start, struct err *e)
{
	struct walk_state ws = { w, NULL, NULL, 0, 0, 0 };
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
	if (is_ignored(&ws, start)) {
		git_repository_free(ws.repo);
		ws.repo = NULL;
	}
	buf_adds(&path, start);
	walk_dir(&ws, &path, 0);
	buf_release(&path);
	git_repository_free(ws.repo);
	free(ws.workdir);
	return 0;
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

/* Binary sniffing: NUL, or too many invalid/control bytes. */
int
fs_is_binary(const char *p, size_t n)
{
	size_t i = 0, bad = 0, k;
	unsigned char c;

	if (n > FS_SNIFF)
		n = FS_SNIFF;
	while (i < n) {
		c = (unsigned char)p[i];
		if (c == 0)
			return 1;
		if (c < 0x80) {
			if (c < 0x20 && !strchr("\t\n\r\f\v\b\033", c))
				bad++;
			i++;
			continue;
		}
		k = fs_utf8_len(p + i, n - i);
		if (k == 0 && n - i < 4 && n == FS_SNIFF)
			break; /* a sequence cut by the sniff window */
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

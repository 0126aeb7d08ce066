/*
 * base/workspace: workspace path resolution (see base/workspace.h).
 *
 * Resolution works on a joined absolute path.  We peel trailing
 * components off until realpath(3) succeeds on the remaining prefix; the
 * peeled components (which do not exist) are then re-applied lexically on
 * top of the canonical prefix.  The result therefore never contains ".",
 * "..", "//" or a symlink in its existing part.
 *
 * Beneath-open (workspace_openat) tries openat2(2) first and walks the
 * components itself when the kernel lacks it or refuses: the walk keeps a
 * stack of directory fds (".." pops one, and at the root fails with EXDEV)
 * and the rest of the path in a buffer, into which a symlink's target is
 * spliced; an absolute target restarts from the root when it names a path
 * below root_path.
 */
#include "base/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "base/xmalloc.h"

/* Apply one lexical component to an absolute path held in b. */
static void
push_component(struct buf *b, const char *c, size_t n)
{
	char *slash;

	if (n == 0 || (n == 1 && c[0] == '.'))
		return;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		slash = strrchr(b->data, '/');
		buf_setlen(b, slash && slash != b->data ? (size_t)(slash - b->data) : 1);
		return;
	}
	if (b->len == 0 || b->data[b->len - 1] != '/')
		buf_addch(b, '/');
	buf_add(b, c, n);
}

/* Apply every component of the '/'-separated string s lexically onto b. */
static void
push_components(struct buf *b, const char *s)
{
	const char *end;

	while (*s) {
		while (*s == '/')
			s++;
		end = strchr(s, '/');
		if (!end)
			end = s + strlen(s);
		push_component(b, s, (size_t)(end - s));
		s = end;
	}
}

/* Build the absolute, not yet canonical path the user meant. */
static void
join_path(const char *root, const char *path, struct buf *joined)
{
	const char *home = getenv("HOME");

	buf_reset(joined);
	if (!path || !*path) {
		buf_adds(joined, root);
	} else if (path[0] == '/') {
		buf_adds(joined, path);
	} else if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') && home && *home) {
		buf_adds(joined, home);
		buf_addch(joined, '/');
		buf_adds(joined, path + 1);
	} else {
		buf_adds(joined, root);
		buf_addch(joined, '/');
		buf_adds(joined, path);
	}
}

/*
 * Canonicalise `joined` into out: realpath on the longest existing prefix,
 * lexical application of the rest.  -1 + e on errors other than a missing
 * component.
 */
static int
canonicalise(const char *joined, struct buf *out, struct err *e)
{
	char *work = xstrdup(joined);
	char *real = NULL;
	size_t cut = strlen(work);
	int rc = 0;

	for (;;) {
		work[cut] = '\0';
		real = realpath(cut ? work : "/", NULL);
		if (real)
			break;
		if (errno != ENOENT && errno != ENOTDIR) {
			rc = err_errno(e, "resolve %s", joined);
			break;
		}
		while (cut > 0 && work[cut - 1] == '/')
			cut--;
		while (cut > 0 && work[cut - 1] != '/')
			cut--;
		/* and the slashes before it: "/a/link" resolves a link to a file, "/a/link/" does not */
		while (cut > 1 && work[cut - 1] == '/')
			cut--;
	}
	if (real) {
		buf_reset(out);
		buf_adds(out, real);
		push_components(out, joined + cut);
		free(real);
	}
	free(work);
	return rc;
}

/* True when abs is root or lies below it. */
int
workspace_inside(const char *root, const char *abs)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return abs[0] == '/';
	return strncmp(abs, root, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

/* Resolve a tool's path argument against the workspace (see base/workspace.h). */
int
workspace_resolve(const char *root, int allow_outside, const char *path, struct buf *out,
	   struct err *e)
{
	struct buf joined = BUF_INIT;
	char *real_root = realpath(root, NULL);
	const char *r = real_root ? real_root : root;
	int rc;

	join_path(root, path, &joined);
	rc = canonicalise(joined.data, out, e);
	if (rc == 0 && !allow_outside && !workspace_inside(r, out->data))
		rc = err_set(e, "path \"%s\" is outside the workspace %s; use a path inside it",
			     path ? path : "", r);
	buf_release(&joined);
	free(real_root);
	return rc;
}

/* Display form of an absolute path: relative when inside root. */
const char *
workspace_rel(const char *root, const char *abs)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!workspace_inside(root, abs))
		return abs;
	if (n == 1)
		return abs[1] ? abs + 1 : ".";
	return abs[n] ? abs + n + 1 : ".";
}

/* Beneath-open ---------------------------------------------------------- */

#define BENEATH_MAX_LINKS 40
#define BENEATH_MAX_DEPTH 256

static int force_walk;
static atomic_int no_openat2; /* set once the kernel said ENOSYS */

void
workspace_beneath_force_walk(int on)
{
	force_walk = on;
}

#define BENEATH_TRIES 8 /* an open cut short by a signal (or EAGAIN for openat2) is tried again */

/* openat2 beneath rootfd; -1 + ENOSYS when there is none (or the walk is forced). */
static int
try_openat2(int rootfd, const char *rel, int flags, mode_t mode)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	struct open_how how;
	int fd = -1, tries;

	if (force_walk || atomic_load(&no_openat2)) {
		errno = ENOSYS;
		return -1;
	}
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
	how.mode = flags & O_CREAT ? (uint64_t)mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (tries = 0; tries < BENEATH_TRIES; tries++) {
		fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how, sizeof how);
		if (fd >= 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	if (fd < 0 && errno == ENOSYS)
		atomic_store(&no_openat2, 1);
	return fd;
#else
	(void)rootfd, (void)rel, (void)flags, (void)mode;
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * openat(2) of the walk's last component, tried again when a signal cut it
 * short (a FIFO's open waits for a writer), as try_openat2 does.
 */
static int
openat_last(int dfd, const char *name, int flags, mode_t mode)
{
	int fd = -1, tries;

	for (tries = 0; tries < BENEATH_TRIES; tries++) {
		fd = openat(dfd, name, flags, mode);
		if (fd >= 0 || errno != EINTR)
			break;
	}
	return fd;
}

/* Length of root_path without trailing slashes ("/" is 0). */
static size_t
root_len(const char *root_path)
{
	size_t n = strlen(root_path);

	while (n > 0 && root_path[n - 1] == '/')
		n--;
	return n;
}

struct walk {
	int fds[BENEATH_MAX_DEPTH];
	int n;
	struct buf rest; /* what is left of the path, from pos */
	size_t pos;
	int links;
};

static void
walk_pop_to(struct walk *w, int n)
{
	while (w->n > n)
		close(w->fds[--w->n]);
}

/*
 * Splice the symlink `name` in the current directory into the rest of the
 * path; -1 + errno (EXDEV when it leads out, ENOTDIR/ELOOP when it is not a link).
 */
static int
walk_follow(struct walk *w, const char *name, const char *root_path, int open_errno)
{
	char target[PATH_MAX];
	struct buf next = BUF_INIT;
	ssize_t tl;
	size_t rl;
	const char *t = target;

	tl = readlinkat(w->fds[w->n - 1], name, target, sizeof target - 1);
	if (tl < 0) {
		errno = errno == EINVAL ? open_errno : errno; /* not a link: what the open said */
		return -1;
	}
	target[tl] = '\0';
	if (++w->links > BENEATH_MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	if (target[0] == '/') {
		if (!root_path) {
			errno = EXDEV;
			return -1;
		}
		rl = root_len(root_path);
		if (strncmp(target, root_path, rl) != 0 || (target[rl] != '\0' && target[rl] != '/')) {
			errno = EXDEV;
			return -1;
		}
		t = target + rl;
		walk_pop_to(w, 1);
	}
	buf_adds(&next, t);
	if (w->pos < w->rest.len) {
		buf_addch(&next, '/');
		buf_add(&next, w->rest.data + w->pos, w->rest.len - w->pos);
	}
	buf_release(&w->rest);
	w->rest = next;
	w->pos = 0;
	return 0;
}

/*
 * The walk behind workspace_openat (want_dir 0: open the last component
 * with flags) and workspace_opendirat (want_dir 1: every component is a
 * directory, made when create).
 */
static int
walk_open(int rootfd, const char *root_path, const char *rel, int flags, mode_t mode,
	  int want_dir, int create)
{
	struct walk w;
	char name[NAME_MAX + 1];
	const char *p, *end;
	size_t nl;
	int fd = -1, rc = -1, saved, last;

	w.n = 0;
	w.links = 0;
	w.pos = 0;
	buf_init(&w.rest, 0);
	buf_adds(&w.rest, rel);
	if ((w.fds[0] = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0)
		goto out;
	w.n = 1;
	for (;;) {
		while (w.pos < w.rest.len && w.rest.data[w.pos] == '/')
			w.pos++;
		if (w.pos >= w.rest.len) { /* the path names the current directory */
			if (want_dir) {
				fd = w.fds[--w.n];
			} else {
				fd = openat(w.fds[w.n - 1], ".", (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC,
					    mode);
			}
			rc = fd < 0 ? -1 : 0;
			break;
		}
		p = w.rest.data + w.pos;
		end = memchr(p, '/', w.rest.len - w.pos);
		nl = end ? (size_t)(end - p) : w.rest.len - w.pos;
		if (nl > NAME_MAX) {
			errno = ENAMETOOLONG;
			break;
		}
		memcpy(name, p, nl);
		name[nl] = '\0';
		w.pos += nl;
		last = w.pos >= w.rest.len; /* "name/" is a directory, as open(2) has it */
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			if (w.n == 1) {
				errno = EXDEV;
				break;
			}
			walk_pop_to(&w, w.n - 1);
			continue;
		}
		if (last && !want_dir) {
			fd = openat_last(w.fds[w.n - 1], name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
			if (fd >= 0) {
				rc = 0;
				break;
			}
			if (errno != ELOOP || (flags & O_NOFOLLOW) ||
			    (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
				break;
			if (walk_follow(&w, name, root_path, ELOOP) < 0)
				break;
			continue;
		}
		fd = openat(w.fds[w.n - 1], name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && create) {
			if (mkdirat(w.fds[w.n - 1], name, 0777) < 0 && errno != EEXIST)
				break;
			fd = openat(w.fds[w.n - 1], name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0) {
			if ((errno != ELOOP && errno != ENOTDIR) ||
			    walk_follow(&w, name, root_path, errno) < 0)
				break;
			continue;
		}
		if (w.n == BENEATH_MAX_DEPTH) {
			close(fd);
			fd = -1;
			errno = ENAMETOOLONG;
			break;
		}
		w.fds[w.n++] = fd;
		fd = -1;
	}
out:
	saved = errno;
	walk_pop_to(&w, 0);
	buf_release(&w.rest);
	errno = saved;
	return rc < 0 ? -1 : fd;
}

/* Whether openat2's failure is final, or the walk should give the answer. */
static int
openat2_final(int err)
{
	return err != ENOSYS && err != EXDEV && err != EAGAIN && err != EINVAL && err != EPERM &&
	       err != E2BIG;
}

int
workspace_openat(int rootfd, const char *root_path, const char *rel, int flags, mode_t mode)
{
	int fd = try_openat2(rootfd, rel, flags, mode);

	if (fd >= 0 || openat2_final(errno))
		return fd;
	return walk_open(rootfd, root_path, rel, flags, mode, 0, 0);
}

int
workspace_opendirat(int rootfd, const char *root_path, const char *rel, int create)
{
	int fd = try_openat2(rootfd, rel, O_RDONLY | O_DIRECTORY, 0);

	if (fd >= 0 || (openat2_final(errno) && !(errno == ENOENT && create)))
		return fd;
	return walk_open(rootfd, root_path, rel, 0, 0, 1, create);
}

/* The root a path is confined to (root, or "/" when abs is outside it) and abs relative to it. */
static const char *
confine(const char *root, const char *abs, const char **rel)
{
	if (workspace_inside(root, abs)) {
		*rel = workspace_rel(root, abs);
		if (!strcmp(*rel, "."))
			*rel = "";
		return root;
	}
	for (*rel = abs; **rel == '/'; (*rel)++)
		;
	return "/";
}

/* One line for a failed beneath-open of abs (errno as the open left it). */
static int
open_error(const char *root, const char *abs, const char *what, struct err *e)
{
	int saved = errno;

	if (saved == EXDEV)
		err_set(e, "%s: a symlink on the way leads outside the workspace %s; use the path it "
			"points to (outside paths need allow_outside_workspace)",
			workspace_rel(root, abs), root);
	else if (saved == ELOOP)
		err_errno(e, "%s %s (a symlink loop, or a symlink where a file was expected)", what,
			  abs);
	else
		err_errno(e, "%s %s", what, abs);
	if (e)
		e->code = saved;
	errno = saved;
	return -1;
}

/* Shared by workspace_open and workspace_opendir. */
static int
open_beneath(const char *root, const char *abs, int dir, int flags, mode_t mode, int create,
	     struct err *e)
{
	const char *rel;
	const char *rp = confine(root, abs, &rel);
	int rootfd = open(rp, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, saved;

	if (rootfd < 0)
		return open_error(root, rp, "open the workspace", e);
	fd = dir ? workspace_opendirat(rootfd, rp, rel, create)
		 : workspace_openat(rootfd, rp, rel, flags, mode);
	saved = errno;
	close(rootfd);
	errno = saved;
	if (fd < 0)
		return open_error(root, abs, dir ? (create ? "create directory" : "open directory")
					    : "open", e);
	return fd;
}

int
workspace_open(const char *root, const char *abs, int flags, mode_t mode, struct err *e)
{
	return open_beneath(root, abs, 0, flags, mode, 0, e);
}

int
workspace_opendir(const char *root, const char *abs, int create, struct err *e)
{
	return open_beneath(root, abs, 1, 0, 0, create, e);
}

/* Whether dir/name exists (any type). */
static int
workspace_has(const char *dir, const char *name)
{
	struct buf p = BUF_INIT;
	struct stat st;
	int ok;

	buf_addf(&p, "%s/%s", strcmp(dir, "/") ? dir : "", name);
	ok = stat(p.data, &st) == 0;
	buf_release(&p);
	return ok;
}

/* Drop the last component of d ("/a/b" -> "/a", "/a" -> "/"); 0 when d is "/" already. */
static int
workspace_up(struct buf *d)
{
	char *slash = strrchr(d->data, '/');

	if (!slash || (slash == d->data && d->len == 1))
		return 0;
	buf_setlen(d, slash == d->data ? 1 : (size_t)(slash - d->data));
	return 1;
}

void
workspace_project_top(const char *cwd, struct buf *out)
{
	struct buf d = BUF_INIT;

	buf_adds(&d, cwd);
	do {
		if (workspace_has(d.data, ".git")) {
			buf_adds(out, d.data);
			buf_release(&d);
			return;
		}
	} while (workspace_up(&d));
	buf_release(&d);
	buf_adds(out, cwd);
}

void
workspace_project_file(const char *cwd, const char *rel, struct buf *out)
{
	struct buf top = BUF_INIT, d = BUF_INIT;

	workspace_project_top(cwd, &top);
	buf_adds(&d, cwd);
	for (;;) {
		if (workspace_has(d.data, rel)) {
			buf_addf(out, "%s/%s", strcmp(d.data, "/") ? d.data : "", rel);
			goto out;
		}
		if (!strcmp(d.data, top.data) || !workspace_inside(top.data, d.data) || !workspace_up(&d))
			break;
	}
	buf_addf(out, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel);
out:
	buf_release(&top);
	buf_release(&d);
}

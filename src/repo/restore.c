/*
 * repo/restore: restores from snapshot trees (contract in repo/restore.h).
 *
 * repo_restore_run makes two passes over the items: the first compares
 * each with the disk, fills the result and checks writability; the second
 * (skipped on a dry run or any failure) puts each target on disk.  An
 * item left alone gets cur = target so the second pass skips it.
 */
#include "repo/restore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/diff.h"
#include "base/fs.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

/* The item for a path (see repo/restore.h). */
struct repo_restore_item *
repo_restore_item(struct repo_restore *rs, const char *path, int *fresh)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].path, path)) {
			*fresh = 0;
			return &rs->v[i];
		}
	rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
	memset(&rs->v[rs->n], 0, sizeof *rs->v);
	rs->v[rs->n].path = xstrdup(path);
	*fresh = 1;
	return &rs->v[rs->n++];
}

/* Free a restore. */
void
repo_restore_free(struct repo_restore *rs)
{
	while (rs->n-- > 0)
		free(rs->v[rs->n].path);
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

/* A side from one end of a tree diff. */
static void
file_side(const git_diff_file *f, struct repo_snap_side *side)
{
	memset(side, 0, sizeof *side);
	side->present = f->mode != 0 && !git_oid_is_zero(&f->id);
	side->id = f->id;
	side->mode = f->mode;
}

/* Whether the scope marks path as left out of its snapshot. */
static int
left_out(const struct repo_snap_scope *scope, const char *path)
{
	size_t i;

	for (i = 0; scope && i < scope->n; i++)
		if (scope->paths[i][0] == '/' && !strcmp(scope->paths[i] + 1, path))
			return 1;
	return 0;
}

/* Add the files two trees differ in (see repo/restore.h). */
int
repo_restore_collect(struct repo_restore *rs, const struct repo_snap *s,
		    const git_oid *before, const git_oid *after,
		    const struct repo_snap_scope *scope, int undo, struct err *e)
{
	git_diff_options o;
	git_tree *a = NULL, *b = NULL;
	git_diff *d = NULL;
	size_t i;
	int rc = 0, fresh;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	if (git_tree_lookup(&a, s->git, before) < 0 || git_tree_lookup(&b, s->git, after) < 0 ||
	    git_diff_tree_to_tree(&d, s->git, a, b, &o) < 0)
		rc = repo_snap_gerr(e, "undo: compare the snapshots");
	for (i = 0; rc == 0 && i < git_diff_num_deltas(d); i++) {
		const git_diff_delta *dd = git_diff_get_delta(d, i);
		const char *path = dd->new_file.path ? dd->new_file.path : dd->old_file.path;
		struct repo_restore_item *it;
		if (left_out(scope, path))
			continue;
		it = repo_restore_item(rs, path, &fresh);
		file_side(undo ? &dd->old_file : &dd->new_file, &it->target);
		if (fresh)
			file_side(undo ? &dd->new_file : &dd->old_file, &it->expect);
	}
	git_diff_free(d);
	git_tree_free(a);
	git_tree_free(b);
	return rc;
}

/* Content of a side: from the object database, or the disk when on_disk. */
static int
side_data(const struct repo_snap *s, const char *path, const struct repo_snap_side *side,
	  int on_disk, struct buf *out)
{
	struct repo_snap_side tmp;

	if (!side->present)
		return 0;
	if (on_disk)
		return repo_snap_disk(s, path, &tmp, out);
	return repo_snap_side_data(s, side, out);
}

/* Append the diff a -> b of one file to res (see repo/restore.h). */
void
repo_restore_diff(const struct repo_snap *s, const char *path,
		 const struct repo_snap_side *a, int a_disk,
		 const struct repo_snap_side *b, int b_disk, struct repo_result *res)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	struct repo_file *f;

	res->files = xrealloc(res->files, (res->nfiles + 1) * sizeof *res->files);
	f = memset(&res->files[res->nfiles++], 0, sizeof *f);
	f->path = xstrdup(path);
	f->status = !a->present ? 'A' : !b->present ? 'D' : 'M';
	side_data(s, path, a, a_disk, &x);
	side_data(s, path, b, b_disk, &y);
	f->binary = x.len > REPO_DIFF_MAX || y.len > REPO_DIFF_MAX ||
		    fs_is_binary(x.data, x.len) || fs_is_binary(y.data, y.len);
	if (f->binary)
		buf_addf(&res->diff, "Binary file %s differs (%zu -> %zu bytes)\n", path, x.len,
			 y.len);
	else
		diff_unified(path, x.data, x.len, y.data, y.len, &res->diff, &f->added,
			     &f->removed);
	if (a->present && b->present && a->mode != b->mode)
		buf_addf(&res->diff, "mode change %s: %06o -> %06o\n", path, a->mode, b->mode);
	buf_release(&x);
	buf_release(&y);
}

/* The item of rs for path, or NULL. */
static const struct repo_restore_item *
find_item(const struct repo_restore *rs, const char *path)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].path, path))
			return &rs->v[i];
	return NULL;
}

/* Whether the restore removes the file rel: an item going away, on disk as the agent left it (or forced). */
static int
goes_away(const struct repo_restore *rs, const struct repo_snap *s, const char *rel, unsigned flags)
{
	const struct repo_restore_item *it = find_item(rs, rel);
	struct repo_snap_side cur;

	return it && !it->target.present && repo_snap_disk(s, rel, &cur, NULL) == 0 &&
	       (repo_snap_side_eq(&cur, &it->expect) || (flags & REPO_FORCE));
}

/*
 * Whether abs can be replaced: its nearest existing ancestor opens as a
 * directory beneath the work tree (no symlink on the way leading out, no
 * file in the way) and is writable, and abs is not a directory itself.
 * Checked as put_side will open them, so a restore that passes every check
 * does not fail halfway for these reasons.
 */
static int
writable(const struct repo_restore *rs, const struct repo_snap *s, const char *abs, const char *rel,
	 unsigned flags, int emptied, struct err *e)
{
	struct buf d = BUF_INIT;
	struct err oe = ERR_INIT;
	struct stat st;
	size_t wl = strlen(s->workdir);
	char *slash;
	int rc = 0, dfd = -1, leaf = 1;

	while (wl > 0 && s->workdir[wl - 1] == '/') /* libgit2's workdir ends with one; "/" is "" */
		wl--;
	buf_adds(&d, abs);
	while ((slash = strrchr(d.data, '/')) != NULL && (size_t)(slash - d.data) >= wl) {
		*slash = '\0';
		if ((dfd = workspace_opendir(s->workdir, d.data, 0, &oe)) >= 0)
			break;
		/*
		 * ENOTDIR: a file on the way.  Above it, keep climbing; the file
		 * itself stops the restore unless the restore removes it first
		 * (a turn put it where a directory was).
		 */
		if (errno == ENOTDIR && (lstat(d.data, &st) < 0 ||
					 (strlen(d.data) > wl && goes_away(rs, s, d.data + wl + 1, flags)))) {
			leaf = 0;
			continue;
		}
		if (errno == ENOTDIR) {
			rc = err_set(e, "cannot change %s: %s is not a directory; nothing was changed",
				     rel, strlen(d.data) > wl ? d.data + wl + 1 : ".");
			goto out;
		}
		if (errno != ENOENT) {
			rc = err_set(e, "cannot change %s: %s; nothing was changed", rel, oe.msg);
			goto out;
		}
		leaf = 0;
	}
	if (dfd < 0)
		rc = err_set(e, "cannot change %s: the work tree %s is gone; nothing was changed", rel,
			     s->workdir);
	else if (leaf && !emptied && fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		 S_ISDIR(st.st_mode))
		rc = err_set(e, "cannot change %s: it is a directory now; nothing was changed", rel);
	else if (faccessat(dfd, ".", W_OK, 0) < 0)
		rc = err_set(e, "cannot change %s: directory %s is not writable (%s); nothing "
			     "was changed", rel, *d.data ? d.data : "/", strerror(errno));
out:
	if (dfd >= 0)
		close(dfd);
	buf_release(&d);
	return rc;
}

/* Remove empty directories above abs, up to the work tree root (each beneath it). */
static void
prune_dirs(const struct repo_snap *s, struct buf *abs)
{
	size_t wl = strlen(s->workdir);
	char *slash;
	int dfd;

	while ((slash = strrchr(abs->data, '/')) != NULL && (size_t)(slash - abs->data) >= wl) {
		buf_setlen(abs, (size_t)(slash - abs->data));
		slash = strrchr(abs->data, '/');
		if (!slash || (size_t)(slash - abs->data) + 1 < wl)
			break;
		*slash = '\0';
		dfd = workspace_opendir(s->workdir, abs->data, 0, NULL);
		*slash = '/';
		if (dfd < 0)
			break;
		if (unlinkat(dfd, slash + 1, AT_REMOVEDIR) < 0) {
			close(dfd);
			break;
		}
		close(dfd);
	}
}

/* Give name in dfd the executable bit of mode (a git file mode), when it differs. */
static int
set_exec(int dfd, const char *name, unsigned mode, const char *rel, struct err *e)
{
	struct stat st;
	int exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
	mode_t m;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    !!(st.st_mode & 0111) == exec)
		return 0;
	m = exec ? st.st_mode | ((st.st_mode & 0444) >> 2) : st.st_mode & ~(mode_t)0111;
	if (fchmodat(dfd, name, m & 07777, AT_SYMLINK_NOFOLLOW) < 0)
		return err_errno(e, "set the mode of %s", rel);
	return 0;
}

/*
 * Put a snapshot side on disk (delete, symlink or atomic write + exec bit),
 * every step on the parent directory opened beneath the work tree, so a
 * directory swapped for a symlink cannot send an undo outside it.
 */
static int
put_side(const struct repo_snap *s, const char *rel, const struct repo_snap_side *side,
	 struct err *e)
{
	struct buf abs = BUF_INIT, data = BUF_INIT, dir = BUF_INIT;
	const char *name;
	int rc = 0, dfd = -1;

	repo_snap_abs(s, rel, &abs);
	name = strrchr(abs.data, '/') + 1;
	buf_add(&dir, abs.data, (size_t)(name - 1 - abs.data));
	if (!side->present) {
		dfd = workspace_opendir(s->workdir, dir.data, 0, e);
		if (dfd < 0) {
			rc = errno == ENOENT ? (err_clear(e), 0) : -1;
		} else if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
			rc = err_errno(e, "remove %s", rel);
		} else {
			close(dfd);
			dfd = -1;
			prune_dirs(s, &abs);
		}
	} else if (repo_snap_side_data(s, side, &data) < 0) {
		rc = repo_snap_gerr(e, "read the snapshot of the file");
	} else if (side->mode == GIT_FILEMODE_LINK) {
		if ((dfd = workspace_opendir(s->workdir, dir.data, 1, e)) < 0)
			rc = -1;
		else if ((unlinkat(dfd, name, 0) < 0 && errno != ENOENT) ||
			 symlinkat(data.data, dfd, name) < 0)
			rc = err_errno(e, "restore the symlink %s", rel);
	} else if (fs_write_beneath(s->workdir, abs.data, data.data, data.len, FS_MKDIRS, e) < 0) {
		rc = -1;
	} else if ((dfd = workspace_opendir(s->workdir, dir.data, 0, e)) < 0) {
		rc = -1;
	} else {
		rc = set_exec(dfd, name, side->mode, rel, e);
	}
	if (dfd >= 0)
		close(dfd);
	buf_release(&abs), buf_release(&data), buf_release(&dir);
	return rc;
}

/*
 * Whether the restore leaves nothing in the directory rel (relative, its
 * absolute path in abs): every file beneath it is an item that goes away
 * (target absent) and is as the agent left it (or flags has REPO_FORCE).
 * Then the removals empty it and prune it, and a file can come back where
 * a turn had put this directory.  Read beneath the work tree, no link
 * followed; any trouble reading it is a no.
 */
static int
emptied_dir(const struct repo_restore *rs, const struct repo_snap *s, const char *rel,
	    unsigned flags, int depth)
{
	struct buf sub = BUF_INIT;
	struct err e = ERR_INIT;
	struct dirent *de;
	DIR *d;
	int fd = -1, ok = depth < 64;

	if (ok) {
		repo_snap_abs(s, rel, &sub);
		fd = workspace_opendir(s->workdir, sub.data, 0, &e);
	}
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		buf_release(&sub);
		return 0;
	}
	while (ok && (de = readdir(d)) != NULL) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		buf_reset(&sub);
		buf_addf(&sub, "%s/%s", rel, de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			ok = 0;
		else if (S_ISDIR(st.st_mode))
			ok = emptied_dir(rs, s, sub.data, flags, depth + 1);
		else
			ok = goes_away(rs, s, sub.data, flags);
	}
	closedir(d);
	buf_release(&sub);
	return ok;
}

/* Compare one item with the disk: note a conflict, or diff it (and check writability). */
static int
check_item(const struct repo_restore *rs, const struct repo_snap *s, struct repo_restore_item *it,
	   unsigned flags, int check, struct repo_result *res, struct err *e)
{
	struct buf abs = BUF_INIT;
	int bad = repo_snap_disk(s, it->path, &it->cur, NULL) < 0, rc = 0, emptied = 0;
	struct stat st;

	repo_snap_abs(s, it->path, &abs);
	/* a directory the turn made where this file was, which the removals empty: as if absent */
	if (bad && it->target.present && lstat(abs.data, &st) == 0 && S_ISDIR(st.st_mode) &&
	    emptied_dir(rs, s, it->path, flags, 0)) {
		memset(&it->cur, 0, sizeof it->cur);
		bad = 0;
		emptied = 1;
	}

	if (bad || (!repo_snap_side_eq(&it->cur, &it->expect) && !(flags & REPO_FORCE))) {
		buf_addf(&res->notes, "%s: %s; left alone%s\n", it->path, bad ?
			 "not a readable file" : "changed since the agent's edit",
			 bad ? "" : " (force to restore it anyway)");
		res->conflicts++;
		it->cur = it->target; /* nothing to do */
	} else if (!repo_snap_side_eq(&it->cur, &it->target)) {
		repo_restore_diff(s, it->path, &it->cur, 1, &it->target, 0, res);
		if (check)
			rc = writable(rs, s, abs.data, it->path, flags, emptied, e);
	}
	buf_release(&abs);
	return rc;
}

/* Look at each item on disk, fill res, and (unless dry run) restore. */
int
repo_restore_run(struct repo_restore *rs, const struct repo_snap *s, unsigned flags,
		struct repo_result *res, struct err *e)
{
	size_t i;
	int rc = 0, pass;

	/* every item goes into res; writability is checked up to the first failure */
	for (i = 0; i < rs->n; i++)
		if (check_item(rs, s, &rs->v[i], flags, rc == 0 && !(flags & REPO_DRY_RUN), res,
			       e) < 0)
			rc = -1;
	/* removals first: they empty and prune a directory a file comes back in place of */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; rc == 0 && !(flags & REPO_DRY_RUN) && i < rs->n; i++)
			if (!rs->v[i].target.present == !pass &&
			    !repo_snap_side_eq(&rs->v[i].cur, &rs->v[i].target))
				rc = put_side(s, rs->v[i].path, &rs->v[i].target, e);
	return rc;
}

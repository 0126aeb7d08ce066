/*
 * test_reporestore: restores between two snapshot trees of a private
 * store — dry run (also where the restore would fail), undo and redo
 * directions, hand-edited files left alone unless forced (the forced diff
 * from the disk), a blocked path failing with nothing changed, a file that
 * is a directory now, the exec bit (only it: the other permission bits
 * stay) and symlinks, emptied directories pruned up to the root, binary
 * diffs and the REPO_DIFF_MAX bound, left-out paths, directories swapped
 * for symlinks that lead outside, one file reached by two paths, the
 * check creating nothing, a work tree gone or a file now, writes failing
 * midway (a snapshot blob gone, an immutable file), and the descriptors
 * (none left open, stdin untouched).  Each test works in its
 * own mkdtemp directory; the trees are snapshots of the scope
 * {a, sub/b, run, link} (or the test's own) taken as the test changes the
 * files.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "repo/repo.h"
#include "repo/restore.h"
#include "repo/snap.h"
#include "testutil.h"

struct t {
	char *dir;                   /* temp dir: w/ (work tree), state/ */
	char w[TU_PATH], state[TU_PATH];
	struct repo_snap s;           /* the private store */
	struct repo_snap_scope scope; /* what snap() records */
	git_oid before, after;       /* set by the setup: before and after an "agent turn" */
};

/* Run a shell snippet in the work tree. */
static void
sh(struct t *t, const char *cmd)
{
	char full[16384];

	snprintf(full, sizeof full, "cd '%s' && (%s) >/dev/null 2>&1", t->w, cmd);
	assert_int_equal(system(full), 0);
}

/* Snapshot the scope into tree. */
static void
snap(struct t *t, git_oid *tree)
{
	struct err e = ERR_INIT;

	if (repo_snap_tree(&t->s, &t->scope, NULL, tree, NULL, &e) < 0)
		fail_msg("repo_snap_tree: %s", e.msg);
}

/*
 * Before: a = "one", run executable, link -> a.  The "agent" then writes
 * a = "two", adds sub/b, clears run's exec bit and removes link.
 */
static struct t *
setup(void)
{
	struct t *t = calloc(1, sizeof *t);
	struct err e = ERR_INIT;

	t->dir = tu_worktree(t->w, t->state);
	if (repo_snap_open(&t->s, t->w, t->state, &e) < 0)
		fail_msg("repo_snap_open: %s", e.msg);
	repo_snap_scope_add(&t->scope, "a");
	repo_snap_scope_add(&t->scope, "sub/b");
	repo_snap_scope_add(&t->scope, "run");
	repo_snap_scope_add(&t->scope, "link");
	sh(t, "printf 'one\\n' > a && printf '#!/bin/sh\\n' > run && chmod 755 run && "
	   "ln -s a link");
	snap(t, &t->before);
	sh(t, "printf 'two\\n' > a && mkdir sub && printf 'new\\n' > sub/b && chmod 644 run && "
	   "rm link");
	snap(t, &t->after);
	return t;
}

static void
teardown(struct t *t)
{
	repo_snap_scope_free(&t->scope);
	repo_snap_close(&t->s);
	tu_rmrf(t->dir);
	free(t->dir);
	free(t);
}

/* Collect before/after in the given direction and run it; returns run's result. */
static int
restore(struct t *t, int undo, unsigned flags, struct repo_result *res, struct err *e)
{
	struct repo_restore rs = { NULL, 0 };
	int rc;

	assert_int_equal(repo_restore_collect(&rs, &t->s, &t->before, &t->after, &t->scope, undo,
					     e), 0);
	assert_int_equal(rs.n, 4);
	rc = repo_restore_run(&rs, &t->s, flags, res, e);
	repo_restore_free(&rs);
	assert_int_equal(rs.n, 0);
	return rc;
}

/* The content of a work-tree file, or "(none)". */
static void
assert_file(struct t *t, const char *name, const char *want)
{
	char *got = tu_read(t->w, name);

	assert_string_equal(got ? got : "(none)", want);
	free(got);
}

/* Whether a work-tree path is executable by its owner. */
static int
is_exec(struct t *t, const char *name)
{
	char p[8192];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", t->w, name);
	return stat(p, &st) == 0 && (st.st_mode & S_IXUSR);
}

/* How many descriptors are open: the same before and after a restore (it closes what it opens). */
static int
open_fds(void)
{
	assert_int_not_equal(fcntl(0, F_GETFD), -1); /* stdin, which a restore must leave open */
	return tu_open_fds();
}

/* The permission bits of a work-tree file. */
static unsigned
perm_of(struct t *t, const char *name)
{
	char p[8192];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", t->w, name);
	assert_int_equal(lstat(p, &st), 0);
	return (unsigned)(st.st_mode & 07777);
}

/* Two snapshots of scope: after cmd_before has run, and after cmd_after. */
static void
two_snaps(struct t *t, const struct repo_snap_scope *scope, const char *cmd_before,
	  const char *cmd_after, git_oid *before, git_oid *after)
{
	struct err e = ERR_INIT;

	sh(t, cmd_before);
	if (repo_snap_tree(&t->s, scope, NULL, before, NULL, &e) < 0)
		fail_msg("repo_snap_tree: %s", e.msg);
	sh(t, cmd_after);
	if (repo_snap_tree(&t->s, scope, NULL, after, NULL, &e) < 0)
		fail_msg("repo_snap_tree: %s", e.msg);
}

/* Collect before/after of scope (n items expected) and run; returns run's result. */
static int
restore_scope(struct t *t, const struct repo_snap_scope *scope, const git_oid *before,
	      const git_oid *after, int undo, size_t n, unsigned flags, struct repo_result *res,
	      struct err *e)
{
	struct repo_restore rs = { NULL, 0 };
	int rc;

	assert_int_equal(repo_restore_collect(&rs, &t->s, before, after, scope, undo, e), 0);
	assert_int_equal(rs.n, n);
	rc = repo_restore_run(&rs, &t->s, flags, res, e);
	repo_restore_free(&rs);
	return rc;
}

static void
test_dry_run_changes_nothing(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(restore(t, 1, REPO_DRY_RUN, &res, &e), 0);
	assert_int_equal(res.nfiles, 4);
	assert_int_equal(res.conflicts, 0);
	assert_non_null(strstr(res.diff.data, "-two"));
	assert_non_null(strstr(res.diff.data, "+one"));
	assert_non_null(strstr(res.diff.data, "mode change run: 100644 -> 100755"));
	/* a content change, a deletion, a link restored: no mode line for them */
	assert_null(strstr(res.diff.data, "mode change a"));
	assert_null(strstr(res.diff.data, "mode change sub/b"));
	assert_null(strstr(res.diff.data, "mode change link"));
	assert_file(t, "a", "two\n");
	assert_file(t, "sub/b", "new\n");
	repo_result_release(&res);
	teardown(t);
}

static void
test_undo_then_redo(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	char link[64], p[8192];
	ssize_t n;
	int fd0 = open_fds();

	(void)state;
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	assert_int_equal(open_fds(), fd0); /* every directory opened was closed, stdin too */
	assert_file(t, "a", "one\n");
	assert_file(t, "sub/b", "(none)");
	snprintf(p, sizeof p, "%s/sub", t->w);
	assert_int_equal(stat(p, &st), -1); /* emptied, so removed */
	assert_true(is_exec(t, "run"));
	assert_int_equal(perm_of(t, "run"), 0755); /* x wherever r: 0644 -> 0755 */
	snprintf(p, sizeof p, "%s/link", t->w);
	n = readlink(p, link, sizeof link);
	assert_int_equal(n, 1);
	assert_memory_equal(link, "a", 1);
	repo_result_release(&res);
	assert_int_equal(restore(t, 0, 0, &res, &e), 0);
	assert_int_equal(res.nfiles, 4);
	assert_file(t, "a", "two\n");
	assert_file(t, "sub/b", "new\n");
	assert_false(is_exec(t, "run"));
	assert_int_equal(perm_of(t, "run"), 0644); /* every x bit cleared, nothing else */
	assert_int_equal(lstat(p, &st), -1);
	assert_int_equal(open_fds(), fd0);
	repo_result_release(&res);
	teardown(t);
}

/* A symlink whose directory the turn removed comes back with its directory. */
static void
test_symlink_in_removed_dir(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_restore rs = { NULL, 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char link[64], p[8192];
	ssize_t n;

	(void)state;
	repo_snap_scope_add(&scope, "d/l");
	sh(t, "mkdir d && ln -s ../a d/l");
	if (repo_snap_tree(&t->s, &scope, NULL, &before, NULL, &e) < 0)
		fail_msg("repo_snap_tree: %s", e.msg);
	sh(t, "rm -r d");
	if (repo_snap_tree(&t->s, &scope, NULL, &after, NULL, &e) < 0)
		fail_msg("repo_snap_tree: %s", e.msg);
	assert_int_equal(repo_restore_collect(&rs, &t->s, &before, &after, &scope, 1, &e), 0);
	assert_int_equal(rs.n, 1);
	if (repo_restore_run(&rs, &t->s, 0, &res, &e) < 0)
		fail_msg("repo_restore_run: %s", e.msg);
	snprintf(p, sizeof p, "%s/d/l", t->w);
	n = readlink(p, link, sizeof link);
	assert_int_equal(n, 4);
	assert_memory_equal(link, "../a", 4);
	repo_restore_free(&rs);
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

static void
test_hand_edit_left_alone(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	tu_write(t->w, "a", "mine\n");
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	assert_int_equal(res.conflicts, 1);
	assert_int_equal(res.nfiles, 3);
	assert_non_null(strstr(res.notes.data, "a: changed since the agent's edit"));
	assert_file(t, "a", "mine\n");
	assert_file(t, "sub/b", "(none)");
	repo_result_release(&res);
	assert_int_equal(restore(t, 1, REPO_FORCE, &res, &e), 0);
	assert_int_equal(res.conflicts, 0);
	/* the diff is from the file as it is on disk (the hand edit), not as the agent left it */
	assert_non_null(strstr(res.diff.data, "-mine\n+one\n"));
	assert_file(t, "a", "one\n");
	repo_result_release(&res);
	teardown(t);
}

static void
test_blocked_path_changes_nothing(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	/* redo needs sub/b, but sub is a file now */
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	repo_result_release(&res);
	tu_write(t->w, "sub", "in the way\n");
	assert_int_equal(restore(t, 0, 0, &res, &e), -1);
	/* Issue 20: the exact line, naming the file in the way relative to the root */
	assert_string_equal(e.msg, "cannot change sub/b: sub is not a directory; nothing was changed");
	assert_file(t, "a", "one\n");
	assert_true(is_exec(t, "run"));
	assert_file(t, "sub", "in the way\n");
	repo_result_release(&res);
	teardown(t);
}

static void
test_binary_diff(void **state)
{
	struct t *t = setup();
	struct repo_snap_side x, y;
	struct repo_result res = REPO_RESULT_INIT;
	struct repo_restore rs = { NULL, 0 };
	struct repo_restore_item *it;
	int fresh;

	(void)state;
	sh(t, "printf 'a\\000b' > bin");
	assert_int_equal(repo_snap_disk(&t->s, "bin", &y, NULL), 0);
	memset(&x, 0, sizeof x);
	repo_restore_diff(&t->s, "bin", &x, 0, &y, 1, &res);
	assert_int_equal(res.nfiles, 1);
	assert_int_equal(res.files[0].status, 'A');
	assert_true(res.files[0].binary);
	assert_int_equal(res.files[0].added, 0); /* no line counts for a binary file */
	assert_int_equal(res.files[0].removed, 0);
	assert_false(res.files[0].by_hand);
	assert_non_null(strstr(res.diff.data, "Binary file bin differs (0 -> 3 bytes)"));
	it = repo_restore_item(&rs, "p", &fresh);
	assert_ptr_equal(it, &rs.v[0]);
	assert_string_equal(it->path, "p");
	assert_false(it->target.present);
	assert_true(fresh);
	assert_ptr_equal(repo_restore_item(&rs, "p", &fresh), &rs.v[0]);
	assert_false(fresh);
	assert_int_equal(rs.n, 1);
	repo_restore_free(&rs);
	repo_result_release(&res);
	teardown(t);
}

/* An empty restore (nothing collected) frees, and stays empty. */
static void
test_free_empty(void **state)
{
	struct repo_restore rs = { NULL, 0 };

	(void)state;
	repo_restore_free(&rs);
	assert_null(rs.v);
	assert_int_equal(rs.n, 0);
	repo_restore_free(&rs);
	assert_int_equal(rs.n, 0);
}

/* Paths a snapshot left out ('/'-prefixed in the scope) are not restored; bad trees fail. */
static void
test_left_out_paths(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope skips = { 0 };
	struct repo_restore rs = { NULL, 0 };
	struct err e = ERR_INIT;
	git_oid bad;
	size_t i;

	(void)state;
	repo_snap_scope_add(&skips, "/a"); /* a could not be snapshotted */
	repo_snap_scope_add(&skips, "run"); /* no '/': not a left-out path */
	assert_int_equal(repo_restore_collect(&rs, &t->s, &t->before, &t->after, &skips, 1, &e),
			 0);
	assert_int_equal(rs.n, 3);
	for (i = 0; i < rs.n; i++)
		assert_string_not_equal(rs.v[i].path, "a");
	repo_restore_free(&rs);
	memset(&bad, 0x42, sizeof bad);
	assert_int_equal(repo_restore_collect(&rs, &t->s, &bad, &t->after, NULL, 1, &e), -1);
	assert_non_null(strstr(e.msg, "undo: compare the snapshots"));
	assert_int_equal(rs.n, 0);
	repo_snap_scope_free(&skips);
	teardown(t);
}

/* Write len bytes of text lines to the work-tree file name. */
static void
write_lines(struct t *t, const char *name, size_t len)
{
	char p[8192];
	char *d = malloc(len);
	size_t i;
	FILE *f;

	for (i = 0; i < len; i++)
		d[i] = i % 64 == 63 ? '\n' : (char)('a' + (i / 64) % 26);
	snprintf(p, sizeof p, "%s/%s", t->w, name);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(d);
}

/* Text of REPO_DIFF_MAX bytes on either side is diffed; one byte more is shown as binary. */
static void
test_diff_size_limit(void **state)
{
	struct t *t = setup();
	struct repo_snap_side disk, tree;
	size_t k, len;
	int dir;

	(void)state;
	repo_snap_tree_side(&t->s, &t->after, "a", &tree); /* "two\n" */
	assert_true(tree.present);
	for (k = 0; k < 2; k++)
		for (dir = 0; dir < 2; dir++) {
			struct repo_result res = REPO_RESULT_INIT;
			const struct repo_file *f;

			len = REPO_DIFF_MAX + k;
			write_lines(t, "a", len);
			assert_int_equal(repo_snap_disk(&t->s, "a", &disk, NULL), 0);
			if (dir)
				repo_restore_diff(&t->s, "a", &tree, 0, &disk, 1, &res);
			else
				repo_restore_diff(&t->s, "a", &disk, 1, &tree, 0, &res);
			f = &res.files[0];
			assert_int_equal(f->binary, k == 1);
			assert_int_equal(f->status, 'M');
			if (k == 1) {
				char want[128];

				snprintf(want, sizeof want, "Binary file a differs (%zu -> %zu bytes)",
					 dir ? (size_t)4 : len, dir ? len : (size_t)4);
				assert_non_null(strstr(res.diff.data, want));
			} else {
				assert_int_equal(dir ? f->added : f->removed, (int)(len / 64));
				assert_int_equal(dir ? f->removed : f->added, 1);
			}
			repo_result_release(&res);
		}
	teardown(t);
}

/* Undo deletes sub/b, but sub is now a symlink to a directory outside: it fails, changing nothing. */
static void
test_delete_through_link_out(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	int fd0 = open_fds();

	(void)state;
	sh(t, "mkdir ../out && mv sub/b ../out/b && rmdir sub && ln -s \"$PWD/../out\" sub");
	assert_int_equal(restore(t, 1, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "sub: a symlink on the way leads outside the workspace"));
	assert_file(t, "../out/b", "new\n"); /* the outside file is not deleted */
	/* and nothing else was changed: the files before sub/b were checked, not written */
	assert_file(t, "a", "two\n");
	assert_false(is_exec(t, "run"));
	assert_int_equal(open_fds(), fd0);
	repo_result_release(&res);
	teardown(t);
}

/* Redo writes sub/b, but sub is now a symlink to a directory outside: nothing lands there. */
static void
test_write_through_link_out(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	int fd0 = open_fds();

	(void)state;
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	repo_result_release(&res);
	sh(t, "mkdir ../out && ln -s \"$PWD/../out\" sub");
	assert_int_equal(restore(t, 0, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "a symlink on the way leads outside the workspace"));
	assert_file(t, "../out/b", "(none)");
	assert_file(t, "a", "one\n"); /* nothing was changed */
	assert_true(is_exec(t, "run"));
	assert_int_equal(open_fds(), fd0); /* stdin still open, nothing left open */
	repo_result_release(&res);
	teardown(t);
}

/* Undo brings back the symlink d/l, but d is now a symlink to a directory outside. */
static void
test_symlink_through_link_out(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char p[8192];
	struct stat st;

	(void)state;
	repo_snap_scope_add(&scope, "d/l");
	two_snaps(t, &scope, "mkdir d && ln -s ../a d/l", "rm -r d", &before, &after);
	sh(t, "mkdir ../out && ln -s \"$PWD/../out\" d");
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 1, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "d: a symlink on the way leads outside the workspace"));
	snprintf(p, sizeof p, "%s/../out/l", t->w);
	assert_int_equal(lstat(p, &st), -1);
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/*
 * One file reached by two paths (l is a symlink to e): undoing its
 * creation deletes it by the first path; by the second it is gone, which
 * is not an error, and nothing is created for it.
 */
static void
test_one_file_two_paths(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char p[8192];
	struct stat st;

	(void)state;
	repo_snap_scope_add(&scope, "e/f");
	repo_snap_scope_add(&scope, "l/f");
	/* the turn made e: removing e/f removes e, so l/f's directory is gone */
	two_snaps(t, &scope, "ln -s e l", "mkdir e && printf 'new\\n' > e/f", &before, &after);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 2, 0, &res, &e), 0);
	assert_int_equal(res.nfiles, 2);
	snprintf(p, sizeof p, "%s/e", t->w);
	assert_int_equal(lstat(p, &st), -1); /* back to before: no e */
	snprintf(p, sizeof p, "%s/l", t->w);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	repo_result_release(&res);
	/* e stays (it holds g): l/f is no longer there when its turn comes */
	two_snaps(t, &scope, "mkdir e && printf 'keep\\n' > e/g", "printf 'new\\n' > e/f", &before,
		  &after);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 2, 0, &res, &e), 0);
	assert_file(t, "e/f", "(none)");
	assert_file(t, "e/g", "keep\n");
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/* The exec bit follows the snapshot; the file's other permission bits stay its own. */
static void
test_exec_bit_only(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char link[64], p[8192];

	(void)state;
	repo_snap_scope_add(&scope, "x");
	repo_snap_scope_add(&scope, "y");
	repo_snap_scope_add(&scope, "z");
	/* x: executable by its owner only, content changed; y: 0777 -> 0666; z: retargeted */
	two_snaps(t, &scope, "printf '1\\n' > x && chmod 744 x && printf 'y\\n' > y && "
		  "chmod 777 y && ln -s a z", "printf '2\\n' > x && chmod 666 y && rm z && ln -s run z",
		  &before, &after);
	assert_int_equal(perm_of(t, "x"), 0744);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 3, 0, &res, &e), 0);
	assert_file(t, "x", "1\n");
	assert_int_equal(perm_of(t, "x"), 0744);
	assert_int_equal(perm_of(t, "y"), 0777);
	snprintf(p, sizeof p, "%s/z", t->w);
	assert_int_equal(readlink(p, link, sizeof link), 1);
	assert_memory_equal(link, "a", 1);
	repo_result_release(&res);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 0, 3, 0, &res, &e), 0);
	assert_file(t, "x", "2\n");
	assert_int_equal(perm_of(t, "x"), 0744);
	assert_int_equal(perm_of(t, "y"), 0666);
	assert_int_equal(readlink(p, link, sizeof link), 3);
	assert_memory_equal(link, "run", 3);
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/* Emptied directories go, from the deepest up to the work tree root, which stays. */
static void
test_prune_nested(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char p[8192];
	struct stat st;

	(void)state;
	repo_snap_scope_add(&scope, "p/q/r");
	two_snaps(t, &scope, "rm -rf a run link sub", "mkdir -p p/q && printf 'r\n' > p/q/r", &before,
		  &after);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 1, 0, &res, &e), 0);
	snprintf(p, sizeof p, "%s/p", t->w);
	assert_int_equal(lstat(p, &st), -1); /* p/q, then p */
	assert_int_equal(stat(t->w, &st), 0); /* the root, empty now, is not removed */
	assert_true(S_ISDIR(st.st_mode));
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/* A file that is a directory now is left alone (reported); the other files are restored. */
static void
test_dir_now_is_left_alone(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	sh(t, "rm a && mkdir a && printf 'x\\n' > a/x");
	assert_int_equal(restore(t, 1, REPO_FORCE, &res, &e), 0);
	assert_int_equal(res.conflicts, 1);
	assert_non_null(strstr(res.notes.data, "a: not a readable file; left alone\n"));
	assert_file(t, "a/x", "x\n");
	assert_file(t, "sub/b", "(none)");
	assert_true(is_exec(t, "run"));
	repo_result_release(&res);
	teardown(t);
}

/* A dry run where the restore would fail: the diff, rc 0, nothing changed. */
static void
test_dry_run_blocked(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	repo_result_release(&res);
	tu_write(t->w, "sub", "in the way\n");
	assert_int_equal(restore(t, 0, REPO_DRY_RUN, &res, &e), 0);
	assert_int_equal(res.nfiles, 4);
	assert_non_null(strstr(res.diff.data, "+new"));
	assert_file(t, "a", "one\n");
	assert_file(t, "sub", "in the way\n");
	repo_result_release(&res);
	teardown(t);
}

/*
 * Issue 20: the check creates nothing.  Undo brings back d/e/f (d and e
 * gone) and z/y, but z is a file now: it fails on z, and the directories
 * d/e that d/e/f would need were not made while checking.
 */
static void
test_check_makes_no_dirs(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char p[8192];
	struct stat st;

	(void)state;
	repo_snap_scope_add(&scope, "d/e/f");
	repo_snap_scope_add(&scope, "z/y");
	two_snaps(t, &scope, "mkdir -p d/e z && printf 'f\\n' > d/e/f && printf 'y\\n' > z/y",
		  "rm -r d z && printf 'mine\\n' > z", &before, &after);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 2, 0, &res, &e), -1);
	assert_string_equal(e.msg, "cannot change z/y: z is not a directory; nothing was changed");
	snprintf(p, sizeof p, "%s/d", t->w);
	assert_int_equal(lstat(p, &st), -1);
	assert_file(t, "z", "mine\n");
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/*
 * Issue 20: the work tree itself gone, or a file now: the one-line errors
 * name it (the check does not climb above the root and open its parent).
 */
static void
test_work_tree_gone(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char want[8192];

	(void)state;
	tu_rmrf(t->w);
	/* forced: the agent's files are gone too, which is not a conflict then */
	assert_int_equal(restore(t, 1, REPO_FORCE, &res, &e), -1);
	snprintf(want, sizeof want, "cannot change a: the work tree %s/ is gone; nothing was changed",
		 t->w);
	assert_string_equal(e.msg, want);
	repo_result_release(&res);
	tu_write(t->dir, "w", "a file\n");
	assert_int_equal(restore(t, 1, REPO_FORCE, &res, &e), -1);
	assert_string_equal(e.msg, "cannot change a: . is not a directory; nothing was changed");
	{
		char *got = tu_read(t->dir, "w");

		assert_string_equal(got ? got : "(none)", "a file\n"); /* left as it is */
		free(got);
	}
	repo_result_release(&res);
	teardown(t);
}

/*
 * Issue 20: a write failing midway (the snapshot's copy of sub/b is gone
 * from the store): -1 with the reason, the files before it written, and
 * no descriptor closed that the restore did not open (stdin stays).
 */
static void
test_missing_blob_midway(void **state)
{
	struct t *t = setup();
	struct repo_snap_side side;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char hex[GIT_OID_HEXSZ + 1], p[8192];
	int fd0 = open_fds();

	(void)state;
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	repo_result_release(&res);
	repo_snap_tree_side(&t->s, &t->after, "sub/b", &side);
	assert_true(side.present);
	git_oid_tostr(hex, sizeof hex, &side.id);
	snprintf(p, sizeof p, "%s/checkpoints.git/objects/%.2s/%s", t->state, hex, hex + 2);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(restore(t, 0, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "read the snapshot of the file"));
	assert_file(t, "a", "two\n"); /* before sub/b: written */
	assert_false(is_exec(t, "run"));
	assert_file(t, "sub/b", "(none)");
	assert_int_equal(open_fds(), fd0);
	repo_result_release(&res);
	teardown(t);
}

/*
 * Issue 20: a file that cannot be replaced though its directory is
 * writable (run immutable, where chattr works): the write fails midway
 * and the restore says so (-1), the files before it written (a), the
 * ones after it not (sub/b).
 */
static void
test_immutable_file_midway(void **state)
{
	struct t *t = setup();
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char cmd[8192];
	int rc;

	(void)state;
	snprintf(cmd, sizeof cmd, "chattr +i '%s/run' 2>/dev/null", t->w);
	if (system(cmd) != 0) {
		teardown(t);
		skip();
	}
	rc = restore(t, 1, 0, &res, &e);
	snprintf(cmd, sizeof cmd, "chattr -i '%s/run'", t->w);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "run"));
	assert_file(t, "a", "one\n");
	assert_false(is_exec(t, "run"));
	assert_file(t, "sub/b", "(none)"); /* removals come first, then the writes in order */
	repo_result_release(&res);
	teardown(t);
}

/*
 * A turn that replaced the file x with a directory (x/y, x/d/z): undo
 * removes what it made, prunes x, and brings the file back; redo puts the
 * directory back.  With a file in x/ the turn did not make (by hand), x is
 * left alone and reported, as before.
 */
static void
test_file_replaced_by_dir(void **state)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	git_oid before, after;
	char p[8192];
	struct stat st;

	(void)state;
	repo_snap_scope_add(&scope, "x");
	repo_snap_scope_add(&scope, "x/y");
	repo_snap_scope_add(&scope, "x/d/z");
	two_snaps(t, &scope, "printf 'file\n' > x", "rm x && mkdir -p x/d && printf 'y\n' > x/y && printf 'z\n' > x/d/z",
		  &before, &after);
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 3, 0, &res, &e), 0);
	assert_int_equal(res.conflicts, 0);
	assert_file(t, "x", "file\n");
	snprintf(p, sizeof p, "%s/x", t->w);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	repo_result_release(&res);
	res = (struct repo_result)REPO_RESULT_INIT;
	if (restore_scope(t, &scope, &before, &after, 0, 3, 0, &res, &e)) fail_msg("redo: %s", e.msg);
	assert_file(t, "x/y", "y\n");
	assert_file(t, "x/d/z", "z\n");
	repo_result_release(&res);
	/* a file in x/ that is not the turn's: x stays, reported, the rest is undone */
	sh(t, "printf 'mine\n' > x/d/mine");
	res = (struct repo_result)REPO_RESULT_INIT;
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 3, 0, &res, &e), 0);
	assert_int_equal(res.conflicts, 1);
	assert_non_null(strstr(res.notes.data, "x: not a readable file; left alone\n"));
	assert_file(t, "x/d/mine", "mine\n");
	assert_file(t, "x/y", "(none)");
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	teardown(t);
}

/*
 * The directory a turn made where a file was is read at most 64 levels
 * deep (63 levels of directories below it: the file comes back; 64: it is
 * left alone and reported); stdin closed (fd 0 free) changes nothing.
 */
static int
deep_undo(int levels, int close_stdin)
{
	struct t *t = setup();
	struct repo_snap_scope scope = { 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct buf deep = BUF_INIT, cmd = BUF_INIT;
	git_oid before, after;
	int i, conflicts, in = -1;

	buf_adds(&deep, "x");
	for (i = 1; i <= levels; i++)
		buf_addf(&deep, "/%d", i);
	buf_adds(&deep, "/f");
	repo_snap_scope_add(&scope, "x");
	repo_snap_scope_add(&scope, deep.data);
	buf_addf(&cmd, "rm x && mkdir -p \"$(dirname %s)\" && printf 'f\\n' > %s", deep.data, deep.data);
	two_snaps(t, &scope, "printf 'file\\n' > x", cmd.data, &before, &after);
	if (close_stdin) {
		in = dup(0);
		close(0);
	}
	assert_int_equal(restore_scope(t, &scope, &before, &after, 1, 2, 0, &res, &e), 0);
	if (close_stdin) {
		assert_int_equal(fcntl(0, F_GETFD), -1); /* nothing left open on fd 0 */
		assert_int_equal(dup2(in, 0), 0);
		close(in);
	} else {
		assert_int_not_equal(fcntl(0, F_GETFD), -1); /* stdin still open */
	}
	conflicts = (int)res.conflicts;
	if (!conflicts)
		assert_file(t, "x", "file\n");
	else
		assert_non_null(strstr(res.notes.data, "x: not a readable file; left alone\n"));
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	buf_release(&deep);
	buf_release(&cmd);
	teardown(t);
	return conflicts;
}

static void
test_replaced_by_deep_dir(void **state)
{
	(void)state;
	assert_int_equal(deep_undo(63, 0), 0);
	assert_int_equal(deep_undo(64, 0), 1);
	assert_int_equal(deep_undo(2, 1), 0);
	assert_int_equal(deep_undo(64, 1), 1);
}

/* Write name (relative to the current directory) with text; 0 or -1. */
static int
put_file(const char *name, const char *text)
{
	FILE *fp = fopen(name, "w");

	if (!fp)
		return -1;
	fputs(text, fp);
	return fclose(fp);
}

/* The content of name is text. */
static int
has_file(const char *name, const char *text)
{
	char got[64];
	FILE *fp = fopen(name, "r");
	size_t n;

	if (!fp)
		return 0;
	n = fread(got, 1, sizeof got - 1, fp);
	fclose(fp);
	got[n] = '\0';
	return !strcmp(got, text);
}

/*
 * Issue 20: a work tree at "/" (a container's or a chroot's).  Its files'
 * parent is the root itself: undo and redo write a file there, remove one
 * in a new directory and prune that directory.  (The climb to the nearest
 * directory stopped short of "/" and every restore failed with "the work
 * tree / is gone".)  A child in its own user and mount namespace chroots
 * into the work tree, with no shell there: the files are written here.
 * (tu_in_chroot).  git: the work tree is a git repository's.
 */
/* The child of at_slash, in the chroot: undo, then redo; 0 or the step that failed. */
static int
at_slash_child(void *arg)
{
	int git = *(int *)arg;
	struct repo_snap s;
	struct repo_snap_scope scope = { 0 };
	struct repo_restore rs = { NULL, 0 };
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct stat sb;
	git_oid before, after;
	int rc = 0;

	memset(&s, 0, sizeof s);
	if (repo_snap_open(&s, "/", "/.state", &e) < 0 || s.fallback == git)
		rc = 10;
	repo_snap_scope_add(&scope, "a");
	repo_snap_scope_add(&scope, "sub/b");
	if (!rc && (put_file("a", "one\n") < 0 ||
		    repo_snap_tree(&s, &scope, NULL, &before, NULL, &e) < 0 ||
		    put_file("a", "two\n") < 0 || mkdir("sub", 0755) < 0 || put_file("sub/b", "new\n") < 0 ||
		    repo_snap_tree(&s, &scope, NULL, &after, NULL, &e) < 0))
		rc = 11;
	if (!rc && (repo_restore_collect(&rs, &s, &before, &after, &scope, 1, &e) < 0 || rs.n != 2))
		rc = 12;
	if (!rc && repo_restore_run(&rs, &s, 0, &res, &e) < 0)
		rc = 13, fprintf(stderr, "undo: %s\n", e.msg);
	repo_restore_free(&rs);
	if (!rc && (!has_file("a", "one\n") || lstat("sub", &sb) == 0)) /* written; removed, pruned */
		rc = 14;
	if (!rc && (repo_restore_collect(&rs, &s, &before, &after, &scope, 0, &e) < 0 ||
		    repo_restore_run(&rs, &s, 0, &res, &e) < 0))
		rc = 15, fprintf(stderr, "redo: %s\n", e.msg);
	if (!rc && !(has_file("a", "two\n") && has_file("sub/b", "new\n")))
		rc = 16;
	repo_restore_free(&rs);
	repo_result_release(&res);
	repo_snap_scope_free(&scope);
	repo_snap_close(&s);
	return rc;
}

static void
at_slash(int git)
{
	char w[TU_PATH], st_dir[TU_PATH];
	char *dir = tu_worktree(w, st_dir);

	if (git) {
		char cmd[TU_PATH + 64];

		snprintf(cmd, sizeof cmd, "git init -q '%s'", w);
		assert_int_equal(system(cmd), 0);
	}
	tu_in_chroot(w, 1, at_slash_child, &git);
	tu_rmrf(dir);
	free(dir);
}

/* ...in a git repository at "/" (its work tree "/") and with the private store (a plain "/"). */
static void
test_work_tree_at_slash(void **state)
{
	(void)state;
	at_slash(1);
	at_slash(0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dry_run_changes_nothing),
		cmocka_unit_test(test_undo_then_redo),
		cmocka_unit_test(test_symlink_in_removed_dir),
		cmocka_unit_test(test_hand_edit_left_alone),
		cmocka_unit_test(test_blocked_path_changes_nothing),
		cmocka_unit_test(test_binary_diff),
		cmocka_unit_test(test_free_empty),
		cmocka_unit_test(test_left_out_paths),
		cmocka_unit_test(test_diff_size_limit),
		cmocka_unit_test(test_delete_through_link_out),
		cmocka_unit_test(test_write_through_link_out),
		cmocka_unit_test(test_symlink_through_link_out),
		cmocka_unit_test(test_one_file_two_paths),
		cmocka_unit_test(test_exec_bit_only),
		cmocka_unit_test(test_dry_run_blocked),
		cmocka_unit_test(test_prune_nested),
		cmocka_unit_test(test_dir_now_is_left_alone),
		cmocka_unit_test(test_check_makes_no_dirs),
		cmocka_unit_test(test_work_tree_gone),
		cmocka_unit_test(test_missing_blob_midway),
		cmocka_unit_test(test_immutable_file_midway),
		cmocka_unit_test(test_file_replaced_by_dir),
		cmocka_unit_test(test_replaced_by_deep_dir),
		cmocka_unit_test(test_work_tree_at_slash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

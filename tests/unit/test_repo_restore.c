/*
 * test_reporestore: restores between two snapshot trees of a private
 * store — dry run, undo and redo directions, hand-edited files left alone
 * unless forced, a blocked path failing with nothing changed, the exec
 * bit and symlinks, emptied directories pruned, binary diffs.  Each test
 * works in its own mkdtemp directory; the trees are snapshots of the
 * scope {a, sub/b, run, link} taken as the test changes the files.
 */
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

	(void)state;
	assert_int_equal(restore(t, 1, 0, &res, &e), 0);
	assert_file(t, "a", "one\n");
	assert_file(t, "sub/b", "(none)");
	snprintf(p, sizeof p, "%s/sub", t->w);
	assert_int_equal(stat(p, &st), -1); /* emptied, so removed */
	assert_true(is_exec(t, "run"));
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
	assert_int_equal(lstat(p, &st), -1);
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
	assert_non_null(strstr(e.msg, "sub is not a directory; nothing was changed"));
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
	assert_non_null(strstr(res.diff.data, "Binary file bin differs (0 -> 3 bytes)"));
	it = repo_restore_item(&rs, "p", &fresh);
	assert_ptr_equal(it, &rs.v[0]);
	assert_string_equal(it->path, "p");
	assert_false(it->target.present);
	assert_true(fresh);
	repo_restore_item(&rs, "p", &fresh);
	assert_false(fresh);
	assert_int_equal(rs.n, 1);
	repo_restore_free(&rs);
	repo_result_release(&res);
	teardown(t);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_reposnap: the store and snapshots on their own — scopes, file
 * states read from disk, snapshots in the private store (scope paths
 * only) and in a git work tree (the whole tree, the user's index left
 * byte for byte as it was).  Each test works in its own mkdtemp directory;
 * the git CLI only sets repositories up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "repo/repo.h"
#include "repo/snap.h"
#include "testutil.h"

struct t {
	char *dir;         /* temp dir: w/ (work tree), state/ */
	char w[TU_PATH], state[TU_PATH];
	struct repo_snap s; /* opened on w */
};

/* A fresh temp dir with files created by a shell snippet, the store opened on it. */
static struct t *
setup(const char *init)
{
	struct t *t = calloc(1, sizeof *t);
	struct err e = ERR_INIT;
	char cmd[16384];

	t->dir = tu_worktree(t->w, t->state);
	snprintf(cmd, sizeof cmd, "cd '%s' && (%s) >/dev/null 2>&1", t->w, init);
	assert_int_equal(system(cmd), 0);
	if (repo_snap_open(&t->s, t->w, t->state, &e) < 0)
		fail_msg("repo_snap_open: %s", e.msg);
	return t;
}

static void
teardown(struct t *t)
{
	repo_snap_close(&t->s);
	tu_rmrf(t->dir);
	free(t->dir);
	free(t);
}

/* The content of path in tree (asserting it is there). */
static void
tree_content(struct t *t, const git_oid *tree, const char *path, struct buf *out)
{
	struct repo_snap_side side;

	repo_snap_tree_side(&t->s, tree, path, &side);
	assert_true(side.present);
	buf_reset(out);
	assert_int_equal(repo_snap_side_data(&t->s, &side, out), 0);
}

static void
test_scope(void **state)
{
	struct repo_snap_scope sc = { NULL, 0 };

	(void)state;
	assert_int_equal(repo_snap_scope_add(&sc, "a/b"), 1);
	assert_int_equal(repo_snap_scope_add(&sc, "c"), 1);
	assert_int_equal(repo_snap_scope_add(&sc, "a/b"), 0);
	assert_int_equal(sc.n, 2);
	assert_true(repo_snap_scope_has(&sc, "c"));
	assert_false(repo_snap_scope_has(&sc, "a"));
	repo_snap_scope_free(&sc);
	assert_int_equal(sc.n, 0);
	assert_null(sc.paths);
	assert_false(repo_snap_scope_has(&sc, "c"));
}

static void
test_open_needs_state(void **state)
{
	struct repo_snap s;
	struct err e = ERR_INIT;
	char *dir = tu_tmpdir();

	(void)state;
	memset(&s, 0, sizeof s);
	assert_int_equal(repo_snap_open(&s, dir, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "no state directory"));
	assert_true(s.fallback);
	repo_snap_close(&s);
	assert_null(s.git);
	tu_rmrf(dir);
	free(dir);
}

static void
test_disk_sides(void **state)
{
	struct t *t = setup("printf 'hi\\n' > f && printf 'hi\\n' > x && chmod +x x && "
			    "ln -s f l && mkdir d");
	struct repo_snap_side f, x, l, d, none;
	struct buf data = BUF_INIT;

	(void)state;
	assert_true(t->s.fallback);
	assert_int_equal(t->s.workdir[strlen(t->s.workdir) - 1], '/');
	assert_int_equal(repo_snap_disk(&t->s, "f", &f, &data), 0);
	assert_true(f.present);
	assert_int_equal(f.mode, GIT_FILEMODE_BLOB);
	assert_int_equal(data.len, 3);
	assert_int_equal(repo_snap_disk(&t->s, "x", &x, NULL), 0);
	assert_int_equal(x.mode, GIT_FILEMODE_BLOB_EXECUTABLE);
	assert_true(git_oid_equal(&f.id, &x.id));
	assert_false(repo_snap_side_eq(&f, &x)); /* same bytes, exec bit differs */
	buf_reset(&data);
	assert_int_equal(repo_snap_disk(&t->s, "l", &l, &data), 0);
	assert_int_equal(l.mode, GIT_FILEMODE_LINK);
	assert_int_equal(data.len, 1);
	assert_memory_equal(data.data, "f", 1);
	assert_int_equal(repo_snap_disk(&t->s, "missing", &none, NULL), 0);
	assert_false(none.present);
	assert_int_equal(repo_snap_disk(&t->s, "f/under-a-file", &none, NULL), 0);
	assert_false(none.present);
	assert_int_equal(repo_snap_disk(&t->s, "d", &d, NULL), -1);
	assert_true(repo_snap_side_eq(&none, &d)); /* both absent */
	buf_release(&data);
	teardown(t);
}

static void
test_private_tree(void **state)
{
	struct t *t = setup("printf 'one\\n' > a && mkdir -p sub d && printf 'two\\n' > sub/b");
	struct repo_snap_scope scope = { NULL, 0 }, skips = { NULL, 0 };
	struct repo_snap_side side, disk;
	struct buf notes = BUF_INIT, data = BUF_INIT;
	struct err e = ERR_INIT;
	git_oid tree;

	(void)state;
	assert_true(t->s.fallback);
	repo_snap_scope_add(&scope, "a");
	repo_snap_scope_add(&scope, "sub/b");
	repo_snap_scope_add(&scope, "d");
	repo_snap_scope_add(&scope, "gone");
	repo_snap_scope_add(&scope, "/a-left-out-path");
	assert_int_equal(repo_snap_tree(&t->s, &scope, &skips, &tree, &notes, &e), 0);
	tree_content(t, &tree, "a", &data);
	assert_int_equal(data.len, 4);
	assert_memory_equal(data.data, "one\n", 4);
	tree_content(t, &tree, "sub/b", &data);
	assert_memory_equal(data.data, "two\n", 4);
	repo_snap_tree_side(&t->s, &tree, "d", &side);
	assert_false(side.present);
	repo_snap_tree_side(&t->s, &tree, "gone", &side);
	assert_false(side.present);
	assert_int_equal(skips.n, 1);
	assert_string_equal(skips.paths[0], "/d");
	assert_non_null(strstr(notes.data, "d: not checkpointed"));
	/* repo_snap_add: a's new content replaces the old one, sub/b stays */
	tu_write(t->w, "a", "three\n");
	assert_int_equal(repo_snap_add(&t->s, &tree, "a", NULL, &e), 0);
	repo_snap_tree_side(&t->s, &tree, "a", &side);
	assert_int_equal(repo_snap_disk(&t->s, "a", &disk, NULL), 0);
	assert_true(repo_snap_side_eq(&side, &disk));
	tree_content(t, &tree, "sub/b", &data);
	assert_memory_equal(data.data, "two\n", 4);
	repo_snap_scope_free(&scope);
	repo_snap_scope_free(&skips);
	buf_release(&notes);
	buf_release(&data);
	teardown(t);
}

static void
test_git_tree(void **state)
{
	struct t *t = setup("git init -q && git config user.email t@t && git config user.name t "
			    "&& git config core.autocrlf false && printf 'v1\\n' > kept && "
			    "printf 'v1\\n' > changed && printf 'x\\n' > .gitignore && "
			    "git add . && git commit -qm init && printf 'v2\\n' > changed && "
			    "mkdir -p new && printf 'n\\n' > new/file && printf 'i\\n' > x");
	struct buf before = BUF_INIT, after = BUF_INIT, data = BUF_INIT;
	struct repo_snap_scope scope = { NULL, 0 };
	struct repo_snap_side side;
	struct err e = ERR_INIT;
	char idx[8192];
	git_oid tree;

	(void)state;
	assert_false(t->s.fallback);
	snprintf(idx, sizeof idx, "%s/.git/index", t->w);
	assert_int_equal(buf_read_file(&before, idx, 1 << 20, &e), 0);
	assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, NULL, &e), 0);
	tree_content(t, &tree, "kept", &data);
	assert_memory_equal(data.data, "v1\n", 3);
	tree_content(t, &tree, "changed", &data);
	assert_memory_equal(data.data, "v2\n", 3);
	tree_content(t, &tree, "new/file", &data);
	assert_memory_equal(data.data, "n\n", 2);
	repo_snap_tree_side(&t->s, &tree, "x", &side);
	assert_false(side.present); /* ignored, and not in the scope */
	repo_snap_scope_add(&scope, "x");
	assert_int_equal(repo_snap_tree(&t->s, &scope, NULL, &tree, NULL, &e), 0);
	tree_content(t, &tree, "x", &data);
	assert_memory_equal(data.data, "i\n", 2);
	assert_int_equal(buf_read_file(&after, idx, 1 << 20, &e), 0);
	assert_int_equal(before.len, after.len);
	assert_memory_equal(before.data, after.data, before.len);
	repo_snap_scope_free(&scope);
	buf_release(&before), buf_release(&after), buf_release(&data);
	teardown(t);
}

/*
 * With a .gitattributes, the snapshot takes clean files from the index and
 * hashes from disk only the paths whose attributes convert on checkout
 * (eol=crlf here, in the root and in a subdirectory's file): their bytes
 * on disk are not the index blob's.
 */
static void
test_git_tree_attributes(void **state)
{
	struct t *t = setup("git init -q && git config user.email t@t && git config user.name t "
			    "&& git config core.autocrlf false && "
			    "printf '*.bat text eol=crlf\\n*.sh text eol=lf diff=cpp\\n' > .gitattributes && "
			    "mkdir sub && printf '*.w eol=crlf\\n' > sub/.gitattributes && "
			    "printf 'a\\r\\nb\\r\\n' > run.bat && printf 'x\\ny\\n' > s.sh && "
			    "printf 'p\\r\\nq\\r\\n' > sub/x.w && printf 'p\\r\\n' > top.w && "
			    "git add . && git commit -qm init && rm -f .git/index && git reset -q");
	struct buf data = BUF_INIT;
	struct repo_snap_side side, disk;
	struct err e = ERR_INIT;
	git_oid tree;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) { /* the base is made, then kept */
		assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, NULL, &e), 0);
		tree_content(t, &tree, "run.bat", &data);
		assert_int_equal(data.len, 6);
		assert_memory_equal(data.data, "a\r\nb\r\n", 6);
		tree_content(t, &tree, "sub/x.w", &data);
		assert_memory_equal(data.data, "p\r\nq\r\n", 6);
		tree_content(t, &tree, "s.sh", &data);
		assert_memory_equal(data.data, "x\ny\n", 4);
		repo_snap_tree_side(&t->s, &tree, "top.w", &side);
		assert_int_equal(repo_snap_disk(&t->s, "top.w", &disk, NULL), 0);
		assert_true(repo_snap_side_eq(&side, &disk));
	}
	assert_true(t->s.base_ok && t->s.filters);
	assert_non_null(t->s.raw);
	assert_int_equal(t->s.raw->n, 2); /* run.bat, sub/x.w: nothing else was looked up */
	buf_release(&data);
	teardown(t);
}

/*
 * The base follows the user's index: a file staged with git add after a
 * snapshot (status then calls it clean) is in the next snapshot with its
 * new bytes, and the base's raw paths (eol=crlf) keep their disk bytes.
 */
static void
test_git_tree_index_changes(void **state)
{
	struct t *t = setup("git init -q && git config user.email t@t && git config user.name t "
			    "&& git config core.autocrlf false && "
			    "printf '*.bat text eol=crlf\\n' > .gitattributes && "
			    "printf 'a\\r\\n' > run.bat && printf 'v1\\n' > kept && "
			    "git add . && git commit -qm init && rm -f .git/index && git reset -q");
	struct buf data = BUF_INIT;
	struct err e = ERR_INIT;
	char cmd[8192];
	git_oid tree;

	(void)state;
	assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, NULL, &e), 0);
	assert_true(t->s.base_ok);
	tree_content(t, &tree, "kept", &data);
	assert_memory_equal(data.data, "v1\n", 3);
	sleep(1); /* the index file's mtime changes with the second */
	snprintf(cmd, sizeof cmd, "cd '%s' && printf 'v3\\n' > kept && git add kept", t->w);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, NULL, &e), 0);
	tree_content(t, &tree, "kept", &data);
	assert_int_equal(data.len, 3);
	assert_memory_equal(data.data, "v3\n", 3);
	tree_content(t, &tree, "run.bat", &data);
	assert_int_equal(data.len, 3);
	assert_memory_equal(data.data, "a\r\n", 3);
	buf_release(&data);
	teardown(t);
}

/* A submodule (gitlink) keeps the fast way: left out of the snapshot and named in the notes. */
static void
test_git_tree_submodule(void **state)
{
	struct t *t = setup("git init -q && git config user.email t@t && git config user.name t "
			    "&& printf 'v1\\n' > kept && git add kept && git update-index --add "
			    "--cacheinfo 160000,1111111111111111111111111111111111111111,mod && "
			    "mkdir mod && git commit -qm init && printf 'v2\\n' > kept");
	struct buf data = BUF_INIT, notes = BUF_INIT;
	struct err e = ERR_INIT;
	git_tree_entry *te = NULL;
	git_tree *gt;
	git_oid tree;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		buf_reset(&notes);
		assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, &notes, &e), 0);
		assert_true(t->s.base_ok); /* not the index way */
		tree_content(t, &tree, "kept", &data);
		assert_memory_equal(data.data, "v2\n", 3);
		assert_int_equal(git_tree_lookup(&gt, t->s.git, &tree), 0);
		assert_true(git_tree_entry_bypath(&te, gt, "mod") < 0); /* not even the gitlink */
		git_tree_free(gt);
		assert_non_null(notes.data);
		assert_non_null(strstr(notes.data, "mod: submodule, not checkpointed"));
	}
	buf_release(&notes);
	buf_release(&data);
	teardown(t);
}

/*
 * A filter attribute converts only when its driver is configured (git
 * ignores it otherwise): x.po is taken from the index, y.cf is hashed.
 */
static void
test_git_tree_filter_driver(void **state)
{
	struct t *t = setup("git init -q && git config user.email t@t && git config user.name t "
			    "&& git config core.autocrlf false && git config filter.conf.clean cat && "
			    "printf '*.po filter=nodriver\\n*.cf filter=conf\\n' > .gitattributes && "
			    "printf 'a\\n' > x.po && printf 'b\\n' > y.cf && "
			    "git add . && git commit -qm init && rm -f .git/index && git reset -q");
	struct buf data = BUF_INIT;
	struct err e = ERR_INIT;
	git_oid tree;

	(void)state;
	assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &tree, NULL, &e), 0);
	assert_true(t->s.base_ok && t->s.filters);
	assert_non_null(t->s.raw);
	assert_int_equal(t->s.raw->n, 1);
	assert_string_equal(t->s.raw->paths[0], "y.cf");
	tree_content(t, &tree, "x.po", &data);
	assert_memory_equal(data.data, "a\n", 2);
	buf_release(&data);
	teardown(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_open_needs_state),
		cmocka_unit_test(test_disk_sides),
		cmocka_unit_test(test_private_tree),
		cmocka_unit_test(test_git_tree),
		cmocka_unit_test(test_git_tree_attributes),
		cmocka_unit_test(test_git_tree_index_changes),
		cmocka_unit_test(test_git_tree_submodule),
		cmocka_unit_test(test_git_tree_filter_driver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

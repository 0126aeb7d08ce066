/*
 * test_repo: checkpoints, undo, redo and the session diff on temporary
 * repositories.  The git CLI only sets repositories up and checks them
 * (status, index bytes, objects reachable from the branches); the product
 * code uses libgit2.  Each test works in its own mkdtemp directory.
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

#include "buf.h"
#include "repo.h"
#include "testutil.h"

struct t {
	char *dir;  /* temp dir: w/ (work tree), state/, ref/ (copies) */
	char w[4096], state[4096];
};

/* Shell commands in the work tree (testutil's tu_sh / tu_sh_out). */
#define sh(t, ...) tu_sh((t)->w, __VA_ARGS__)
#define out(t, cmd) tu_sh_out((t)->w, (cmd))

/* A fresh temp dir with an empty work tree; git init when git is set. */
static struct t *
setup(int git)
{
	struct t *t = calloc(1, sizeof *t);

	t->dir = tu_tmpdir();
	snprintf(t->w, sizeof t->w, "%s/w", t->dir);
	snprintf(t->state, sizeof t->state, "%s/state", t->dir);
	assert_int_equal(mkdir(t->w, 0755), 0);
	if (git)
		assert_int_equal(sh(t, "git init -q && git config user.email t@t && "
				    "git config user.name t && git config core.autocrlf false"), 0);
	return t;
}

static void
teardown(struct t *t)
{
	tu_rmrf(t->dir);
	free(t->dir);
	free(t);
}

/*
 * Copy the work tree (without .git) to dir/NAME for a later comparison.
 * Empty directories are dropped from the copy: git does not track them and
 * undo removes the directories it empties, as git checkout does.
 */
static void
save(struct t *t, const char *name)
{
	assert_int_equal(sh(t, "rm -rf ../%s && mkdir ../%s && tar --exclude=./.git -cf - . | "
			    "tar -C ../%s -xf - && find ../%s -depth -type d -empty -delete", name, name, name,
			    name), 0);
}

/* Lists every non-directory with its mode, type and content hash (or link target). */
#define LIST "find . -path ./.git -prune -o ! -type d -print | sort | while read f; do " \
	"stat -c '%%n %%a %%F' \"$f\"; if [ -L \"$f\" ]; then readlink \"$f\"; " \
	"else md5sum < \"$f\"; fi; done"

/* Whether the work tree (without .git) equals dir/NAME byte for byte, modes included. */
static int
same_as(struct t *t, const char *name)
{
	return sh(t, "[ \"$(" LIST ")\" = \"$(cd ../%s && " LIST ")\" ]", name) == 0;
}

/*
 * Make a path read-only even for root (immutable flag; plain permissions
 * when chattr is not allowed) and writable again.
 */
#define RO(p) "{ chattr -R +i " p " 2>/dev/null || chmod -R a-w " p "; }"
#define RW(p) "{ chattr -R -i " p " 2>/dev/null; chmod -R u+w " p "; }"

static struct repo *
open_repo(struct t *t)
{
	struct err e = ERR_INIT;
	struct repo *r = repo_open(t->w, "s1", t->state, &e);

	if (!r)
		fail_msg("repo_open: %s", e.msg);
	return r;
}

static void
checkpoint(struct repo *r)
{
	struct err e = ERR_INIT;

	if (repo_checkpoint(r, NULL, &e) < 0)
		fail_msg("checkpoint: %s", e.msg);
}

static void
turn_end(struct repo *r)
{
	struct err e = ERR_INIT;

	if (repo_turn_end(r, &e) < 0)
		fail_msg("turn_end: %s", e.msg);
}

/* Undo n turns (not dry); returns the result's conflicts. */
static int
undo(struct repo *r, int n, unsigned flags)
{
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	int c;

	if (repo_undo(r, n, flags, &res, &e) < 0)
		fail_msg("undo: %s", e.msg);
	c = res.conflicts;
	repo_result_release(&res);
	return c;
}

static void
redo(struct repo *r)
{
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	if (repo_redo(r, 0, &res, &e) < 0)
		fail_msg("redo: %s", e.msg);
	repo_result_release(&res);
}

/* A committed repository with text, executable, binary, nested and symlink files. */
static void
populate(struct t *t)
{
	assert_int_equal(sh(t, "printf 'one\\ntwo\\nthree\\n' > a.txt && "
			    "printf '#!/bin/sh\\necho hi\\n' > b.sh && chmod +x b.sh && "
			    "printf 'x\\0y\\377z' > bin.dat && mkdir sub && echo c > sub/c.txt && "
			    "ln -s a.txt link && echo '*.log' > .gitignore && echo keep > k.log && "
			    "git add -A && git commit -qm init && echo staged >> a.txt && "
			    "git add a.txt && echo untracked > u.txt"), 0);
}

/* The agent's turn: modify, add, delete, chmod, binary, a 6 MB file, a symlink. */
static void
agent_edits(struct t *t)
{
	assert_int_equal(sh(t, "echo more >> a.txt && mkdir -p new/deep && echo n > new/deep/x.txt"
			    " && rm sub/c.txt && chmod -x b.sh && printf '\\001\\002\\0' > bin.dat"
			    " && head -c 6291456 /dev/urandom > big.bin && rm link && "
			    "ln -s b.sh link && rm u.txt"), 0);
}

/* checkpoint -> edits -> undo: status, bytes, index and branches unchanged; redo round-trips. */
static void
test_undo_redo_roundtrip(void **state)
{
	struct t *t = setup(1);
	struct repo *r;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char *st0, *st1, *objs0, *objs1;

	(void)state;
	populate(t);
	save(t, "before");
	st0 = out(t, "git --no-optional-locks status --porcelain");
	objs0 = out(t, "git rev-list --objects --branches --tags HEAD | sort; git stash list");
	assert_int_equal(sh(t, "cp .git/index ../index.before"), 0);
	r = open_repo(t);
	assert_int_equal(repo_is_git(r), 1);
	checkpoint(r);
	agent_edits(t);
	turn_end(r);
	save(t, "after");
	assert_int_equal(repo_undo(r, 1, REPO_DRY_RUN, &res, &e), 0);
	assert_non_null(strstr(res.diff.data, "-more"));
	assert_non_null(strstr(res.diff.data, "Binary file bin.dat"));
	assert_true(res.nfiles >= 7);
	assert_true(same_as(t, "after")); /* dry run changed nothing */
	repo_result_release(&res);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_true(same_as(t, "before"));
	st1 = out(t, "git --no-optional-locks status --porcelain");
	assert_string_equal(st0, st1);
	assert_int_equal(sh(t, "cmp .git/index ../index.before"), 0);
	redo(r);
	assert_true(same_as(t, "after"));
	objs1 = out(t, "git rev-list --objects --branches --tags HEAD | sort; git stash list");
	assert_string_equal(objs0, objs1);
	assert_int_equal(sh(t, "git rev-parse -q --verify refs/hearth/checkpoints/s1"), 0);
	free(st0), free(st1), free(objs0), free(objs1);
	repo_close(r);
	teardown(t);
}

/* A file the user changed after the turn is reported and kept; force restores it. */
static void
test_user_edit_survives(void **state)
{
	struct t *t = setup(1);
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *r;
	char *a;

	(void)state;
	populate(t);
	r = open_repo(t);
	checkpoint(r);
	assert_int_equal(sh(t, "echo agent >> a.txt && echo agent > sub/c.txt"), 0);
	turn_end(r);
	assert_int_equal(sh(t, "echo user >> a.txt"), 0);
	/* with force, the user's line would go too */
	assert_int_equal(repo_undo(r, 1, REPO_DRY_RUN | REPO_FORCE, &res, &e), 0);
	assert_int_equal(res.conflicts, 0);
	assert_non_null(strstr(res.diff.data, "-user\n"));
	assert_int_equal(res.nfiles, 2);
	repo_result_release(&res);
	assert_int_equal(repo_undo(r, 1, 0, &res, &e), 0);
	assert_int_equal(res.conflicts, 1);
	assert_non_null(strstr(res.notes.data, "a.txt: changed since the agent's edit"));
	repo_result_release(&res);
	a = out(t, "cat a.txt; cat sub/c.txt");
	assert_string_equal(a, "one\ntwo\nthree\nstaged\nagent\nuser\nc\n");
	free(a);
	repo_close(r);
	teardown(t);
}

/* Two turns: undo 2 returns to the start; redo re-applies the first turn. */
static void
test_undo_two_and_reopen(void **state)
{
	struct t *t = setup(1);
	struct repo *r;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	populate(t);
	save(t, "s0");
	r = open_repo(t);
	checkpoint(r);
	assert_int_equal(sh(t, "echo t1 >> a.txt && echo t1 > t1.txt"), 0);
	turn_end(r);
	save(t, "s1");
	checkpoint(r);
	checkpoint(r); /* a turn without changes is not counted by undo */
	assert_int_equal(sh(t, "echo t2 >> a.txt && rm t1.txt"), 0);
	turn_end(r);
	assert_int_equal(repo_turns(r), 3);
	repo_close(r);
	r = open_repo(t); /* the chain is persistent */
	assert_int_equal(repo_turns(r), 3);
	assert_int_equal(undo(r, 2, 0), 0);
	assert_true(same_as(t, "s0"));
	redo(r);
	assert_true(same_as(t, "s1"));
	repo_close(r);
	r = open_repo(t);
	redo(r);
	assert_int_equal(repo_redo(r, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "no undone turn"));
	assert_int_equal(undo(r, 1, 0), 0);
	assert_true(same_as(t, "s1"));
	repo_result_release(&res);
	repo_close(r);
	teardown(t);
}

/* No commits yet, a locked index, a detached HEAD. */
static void
test_no_commits_locked_detached(void **state)
{
	struct t *t = setup(1);
	struct repo *r;
	char *lock;

	(void)state;
	assert_int_equal(sh(t, "echo a > a.txt && echo b > b.txt && git add a.txt"), 0);
	save(t, "s0");
	r = open_repo(t);
	checkpoint(r);
	assert_int_equal(sh(t, "echo x >> a.txt && rm b.txt && echo c > c.txt"), 0);
	turn_end(r);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_true(same_as(t, "s0"));
	repo_close(r);
	/* commit, detach, lock the index */
	assert_int_equal(sh(t, "git add -A && git commit -qm c && git checkout -q --detach && "
			    "echo locked > .git/index.lock && cp .git/index ../index.before"), 0);
	save(t, "s1");
	r = open_repo(t);
	checkpoint(r);
	assert_int_equal(sh(t, "echo y >> a.txt && echo d > d.txt"), 0);
	turn_end(r);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_true(same_as(t, "s1"));
	assert_int_equal(sh(t, "cmp .git/index ../index.before"), 0);
	lock = out(t, "cat .git/index.lock");
	assert_string_equal(lock, "locked\n");
	free(lock);
	repo_close(r);
	teardown(t);
}

/* Outside git: registered files are copied into the private store. */
static void
test_outside_git(void **state)
{
	struct t *t = setup(0);
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *r;
	char p[8192];

	(void)state;
	assert_int_equal(sh(t, "echo a > a.txt && printf 'b\\0' > b.bin && echo c > c.txt"), 0);
	save(t, "s0");
	r = open_repo(t);
	assert_int_equal(repo_is_git(r), 0);
	snprintf(p, sizeof p, "%s/a.txt", t->w);
	assert_int_equal(repo_note_file(r, p, &e), 0); /* starts a turn */
	snprintf(p, sizeof p, "%s/b.bin", t->w);
	assert_int_equal(repo_note_file(r, p, &e), 0);
	snprintf(p, sizeof p, "%s/new/n.txt", t->w);
	assert_int_equal(repo_note_file(r, p, &e), 0);
	assert_int_equal(repo_note_file(r, "/etc/passwd", &e), -1);
	assert_non_null(strstr(e.msg, "outside"));
	assert_int_equal(sh(t, "echo more >> a.txt && rm b.bin && mkdir new && echo n > new/n.txt"
			    " && echo c2 >> c.txt"), 0); /* c.txt was never registered */
	turn_end(r);
	save(t, "s1");
	assert_int_equal(repo_session_diff(r, &res, &e), 0);
	assert_int_equal(res.nfiles, 3);
	repo_result_release(&res);
	repo_close(r);
	r = open_repo(t);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_int_equal(sh(t, "cmp a.txt ../s0/a.txt && cmp b.bin ../s0/b.bin && "
			    "[ ! -e new ] && grep -q c2 c.txt"), 0);
	redo(r);
	assert_true(same_as(t, "s1"));
	repo_close(r);
	teardown(t);
}

/* Session diff lists files with line counts; ignored files noted are covered. */
static void
test_session_diff(void **state)
{
	struct t *t = setup(1);
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *r;
	char p[8192];
	size_t i;
	int seen = 0;

	(void)state;
	populate(t);
	r = open_repo(t);
	checkpoint(r);
	snprintf(p, sizeof p, "%s/k.log", t->w);
	assert_int_equal(repo_note_file(r, p, &e), 0); /* ignored: added to the snapshot */
	assert_int_equal(sh(t, "echo x >> a.txt && echo y >> a.txt && echo z > k.log"), 0);
	turn_end(r);
	checkpoint(r);
	assert_int_equal(sh(t, "rm sub/c.txt"), 0);
	turn_end(r);
	assert_int_equal(repo_session_diff(r, &res, &e), 0);
	for (i = 0; i < res.nfiles; i++) {
		if (!strcmp(res.files[i].path, "a.txt"))
			seen |= 1, assert_int_equal(res.files[i].added, 2);
		if (!strcmp(res.files[i].path, "sub/c.txt"))
			seen |= 2, assert_int_equal(res.files[i].status, 'D');
		if (!strcmp(res.files[i].path, "k.log"))
			seen |= 4, assert_int_equal(res.files[i].status, 'M');
	}
	assert_int_equal(seen, 7);
	assert_int_equal(res.nfiles, 3);
	repo_result_release(&res);
	assert_int_equal(undo(r, 2, 0), 0);
	assert_int_equal(sh(t, "grep -q keep k.log && [ -f sub/c.txt ]"), 0);
	repo_close(r);
	teardown(t);
}

/* Submodules and nested repositories are skipped and reported. */
static void
test_submodule_skipped(void **state)
{
	struct t *t = setup(1);
	struct buf notes = BUF_INIT;
	struct err e = ERR_INIT;
	struct repo *r;

	(void)state;
	populate(t);
	assert_int_equal(sh(t, "git update-index --add --cacheinfo "
			    "160000,1111111111111111111111111111111111111111,mod && mkdir mod && "
			    "mkdir nested && cd nested && git init -q && echo n > n.txt"), 0);
	r = open_repo(t);
	assert_int_equal(repo_checkpoint(r, &notes, &e), 0);
	assert_non_null(strstr(notes.data, "mod: submodule"));
	assert_non_null(strstr(notes.data, "nested"));
	assert_int_equal(sh(t, "echo x >> a.txt"), 0);
	turn_end(r);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_int_equal(sh(t, "git diff --quiet -- a.txt || git diff --cached --quiet"), 0);
	buf_release(&notes);
	repo_close(r);
	teardown(t);
}

/* A file over REPO_MAX_FILE is left out, reported, and never deleted by undo. */
static void
test_huge_file_left_out(void **state)
{
	struct t *t = setup(1);
	struct buf notes = BUF_INIT;
	struct err e = ERR_INIT;
	struct repo *r;

	(void)state;
	populate(t);
	assert_int_equal(sh(t, "head -c %zu /dev/zero > huge.bin", REPO_MAX_FILE + 1), 0);
	r = open_repo(t);
	assert_int_equal(repo_checkpoint(r, &notes, &e), 0);
	assert_non_null(strstr(notes.data, "huge.bin: not checkpointed"));
	assert_int_equal(sh(t, "echo small > huge.bin && echo x >> a.txt"), 0);
	turn_end(r);
	repo_close(r);
	r = open_repo(t); /* the left-out list is persistent too */
	assert_int_equal(undo(r, 1, 0), 0);
	assert_int_equal(sh(t, "grep -q small huge.bin && ! grep -q '^x' a.txt"), 0);
	buf_release(&notes);
	repo_close(r);
	teardown(t);
}

/* Linked worktree and bare repository. */
static void
test_worktree_and_bare(void **state)
{
	struct t *t = setup(1);
	struct err e = ERR_INIT;
	struct repo *r;
	char wt[8192];

	(void)state;
	populate(t);
	assert_int_equal(sh(t, "git worktree add -q ../wt && git clone -q --bare . ../bare.git"),
			 0);
	snprintf(wt, sizeof wt, "%s/wt", t->dir);
	r = repo_open(wt, "s1", t->state, &e);
	assert_non_null(r);
	assert_int_equal(repo_is_git(r), 1);
	checkpoint(r);
	assert_int_equal(sh(t, "echo wt >> ../wt/a.txt"), 0);
	turn_end(r);
	assert_int_equal(undo(r, 1, 0), 0);
	assert_int_equal(sh(t, "[ \"$(tail -1 ../wt/a.txt)\" = three ]"), 0);
	repo_close(r);
	snprintf(wt, sizeof wt, "%s/bare.git", t->dir);
	r = repo_open(wt, "s1", t->state, &e);
	assert_non_null(r);
	assert_int_equal(repo_is_git(r), 0);
	repo_close(r);
	teardown(t);
}

/* Bad input: session ids, nothing to undo, unwritable targets (nothing changes). */
static void
test_bad_input(void **state)
{
	struct t *t = setup(1);
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *r;
	int rc;

	(void)state;
	populate(t);
	assert_null(repo_open(t->w, "../x", t->state, &e));
	assert_null(repo_open("/nonexistent-dir-xyz", "s", NULL, &e));
	r = open_repo(t);
	assert_int_equal(repo_undo(r, 1, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "nothing to undo"));
	assert_int_equal(repo_undo(r, 0, 0, &res, &e), -1);
	checkpoint(r);
	/* the agent deletes a directory; the user then puts a file where it was */
	assert_int_equal(sh(t, "rm -r sub && echo x >> a.txt"), 0);
	turn_end(r);
	assert_int_equal(sh(t, "echo user > sub"), 0);
	assert_int_equal(repo_undo(r, 1, REPO_FORCE, &res, &e), -1);
	assert_non_null(strstr(e.msg, "is not a directory; nothing was changed"));
	assert_int_equal(sh(t, "grep -q '^x' a.txt && grep -q user sub"), 0);
	repo_result_release(&res);
	/* a read-only directory: a clear error, and nothing is changed */
	assert_int_equal(sh(t, "rm sub && mkdir sub && " RO("sub")), 0);
	rc = repo_undo(r, 1, 0, &res, &e);
	assert_int_equal(sh(t, RW("sub")), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "sub/c.txt"));
	assert_non_null(strstr(e.msg, "is not writable ("));
	assert_non_null(strstr(e.msg, "); nothing was changed"));
	assert_int_equal(sh(t, "grep -q '^x' a.txt"), 0);
	repo_result_release(&res);
	assert_int_equal(undo(r, 1, 0), 0); /* writable again: it works */
	assert_int_equal(sh(t, "[ -f sub/c.txt ] && ! grep -q '^x' a.txt"), 0);
	repo_close(r);
	teardown(t);
}

/* A read-only object database makes checkpoint fail with a clear error. */
static void
test_readonly_objects(void **state)
{
	struct t *t = setup(1);
	struct err e = ERR_INIT;
	struct repo *r;
	int rc;

	(void)state;
	populate(t);
	assert_int_equal(sh(t, "echo new > fresh.txt && " RO(".git/objects")), 0);
	r = open_repo(t);
	rc = repo_checkpoint(r, NULL, &e);
	assert_int_equal(sh(t, RW(".git/objects")), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "checkpoint"));
	assert_int_equal(repo_turns(r), 0);
	checkpoint(r); /* writable again */
	assert_int_equal(repo_turns(r), 1);
	repo_close(r);
	teardown(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_undo_redo_roundtrip),
		cmocka_unit_test(test_user_edit_survives),
		cmocka_unit_test(test_undo_two_and_reopen),
		cmocka_unit_test(test_no_commits_locked_detached),
		cmocka_unit_test(test_outside_git),
		cmocka_unit_test(test_session_diff),
		cmocka_unit_test(test_submodule_skipped),
		cmocka_unit_test(test_huge_file_left_out),
		cmocka_unit_test(test_worktree_and_bare),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_readonly_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

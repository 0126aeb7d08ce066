/*
 * test_repo: checkpoints, undo, redo and the session diff on temporary
 * repositories.  The git CLI only sets repositories up and checks them
 * (status, index bytes, objects reachable from the branches); the product
 * code uses libgit2.  Each test works in its own mkdtemp directory, made
 * by a cmocka setup (git_repo: populated and committed; git_empty;
 * no_git) and removed with the repository handle by done().
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
#include "testutil.h"

struct t {
	char *dir;  /* temp dir: w/ (work tree), state/, ref/ (copies) */
	char w[TU_PATH], state[TU_PATH];
	struct repo *r; /* open_repo's (owned; NULL before) */
};

/* Shell commands in the work tree (testutil's tu_sh / tu_sh_out). */
#define sh(t, ...) tu_sh((t)->w, __VA_ARGS__)
#define out(t, cmd) tu_sh_out((t)->w, (cmd))

/* A fresh temp dir with an empty work tree; git init when git is set. */
static struct t *
make_t(int git)
{
	struct t *t = calloc(1, sizeof *t);

	t->dir = tu_worktree(t->w, t->state);
	if (git)
		assert_int_equal(sh(t, "git init -q && git config user.email t@t && "
				    "git config user.name t && git config core.autocrlf false"), 0);
	return t;
}

/* cmocka teardown: close the repository and remove the temp dir. */
static int
done(void **state)
{
	struct t *t = *state;

	repo_close(t->r);
	tu_rmrf(t->dir);
	free(t->dir);
	free(t);
	return 0;
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

/* (Re)open session s1's repository for the work tree as t->r. */
static struct repo *
open_repo(struct t *t)
{
	struct err e = ERR_INIT;

	repo_close(t->r);
	t->r = repo_open(t->w, "s1", t->state, &e);
	if (!t->r)
		fail_msg("repo_open: %s", e.msg);
	return t->r;
}

/* A checkpoint, its notes added to notes (NULL: not wanted). */
static void
checkpoint(struct repo *r, struct buf *notes)
{
	struct err e = ERR_INIT;

	if (repo_checkpoint(r, notes, &e) < 0)
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

/* The agent's turn on t->r: checkpoint (notes as checkpoint()), the shell command cmd, turn end. */
static void
turn(struct t *t, struct buf *notes, const char *cmd)
{
	checkpoint(t->r, notes);
	assert_int_equal(sh(t, "%s", cmd), 0);
	turn_end(t->r);
}

/* cmocka setup: a temp dir with an empty work tree, no git. */
static int
no_git(void **state)
{
	*state = make_t(0);
	return 0;
}

/* cmocka setup: an empty git repository. */
static int
git_empty(void **state)
{
	*state = make_t(1);
	return 0;
}

/* cmocka setup: a committed repository with text, executable, binary, nested and symlink files. */
static int
git_repo(void **state)
{
	struct t *t = make_t(1);

	*state = t;
	assert_int_equal(sh(t, "printf 'one\\ntwo\\nthree\\n' > a.txt && "
			    "printf '#!/bin/sh\\necho hi\\n' > b.sh && chmod +x b.sh && "
			    "printf 'x\\0y\\377z' > bin.dat && mkdir sub && echo c > sub/c.txt && "
			    "ln -s a.txt link && echo '*.log' > .gitignore && echo keep > k.log && "
			    "git add -A && git commit -qm init && echo staged >> a.txt && "
			    "git add a.txt && echo untracked > u.txt"), 0);
	return 0;
}

/* The agent's turn: modify, add, delete, chmod, binary, a 6 MB file, a symlink. */
#define AGENT_EDITS "echo more >> a.txt && mkdir -p new/deep && echo n > new/deep/x.txt" \
	" && rm sub/c.txt && chmod -x b.sh && printf '\\001\\002\\0' > bin.dat" \
	" && head -c 6291456 /dev/urandom > big.bin && rm link && ln -s b.sh link && rm u.txt"
/* The git status, and every object reachable from a branch, tag or stash. */
#define STATUS "git --no-optional-locks status --porcelain"
#define OBJECTS "git rev-list --objects --branches --tags HEAD | sort; git stash list"

/* checkpoint -> edits -> undo: status, bytes, index and branches unchanged; redo round-trips. */
static void
test_undo_redo_roundtrip(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char *st0, *st1, *objs0, *objs1;

	save(t, "before");
	st0 = out(t, STATUS);
	objs0 = out(t, OBJECTS);
	assert_int_equal(sh(t, "cp .git/index ../index.before"), 0);
	assert_int_equal(repo_is_git(open_repo(t)), 1);
	turn(t, NULL, AGENT_EDITS);
	save(t, "after");
	assert_int_equal(repo_undo(t->r, 1, REPO_DRY_RUN, &res, &e), 0);
	assert_non_null(strstr(res.diff.data, "-more"));
	assert_non_null(strstr(res.diff.data, "Binary file bin.dat"));
	assert_true(res.nfiles >= 7);
	assert_true(same_as(t, "after")); /* dry run changed nothing */
	repo_result_release(&res);
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_true(same_as(t, "before"));
	st1 = out(t, STATUS);
	assert_string_equal(st0, st1);
	assert_int_equal(sh(t, "cmp .git/index ../index.before"), 0);
	redo(t->r);
	assert_true(same_as(t, "after"));
	objs1 = out(t, OBJECTS);
	assert_string_equal(objs0, objs1);
	assert_int_equal(sh(t, "git rev-parse -q --verify refs/hearth/checkpoints/s1"), 0);
	free(st0), free(st1), free(objs0), free(objs1);
}

/* A file the user changed after the turn is reported and kept; force restores it. */
static void
test_user_edit_survives(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char *a;

	open_repo(t);
	turn(t, NULL, "echo agent >> a.txt && echo agent > sub/c.txt");
	assert_int_equal(sh(t, "echo user >> a.txt"), 0);
	/* with force, the user's line would go too */
	assert_int_equal(repo_undo(t->r, 1, REPO_DRY_RUN | REPO_FORCE, &res, &e), 0);
	assert_int_equal(res.conflicts, 0);
	assert_non_null(strstr(res.diff.data, "-user\n"));
	assert_int_equal(res.nfiles, 2);
	repo_result_release(&res);
	assert_int_equal(repo_undo(t->r, 1, 0, &res, &e), 0);
	assert_int_equal(res.conflicts, 1);
	assert_non_null(strstr(res.notes.data, "a.txt: changed since the agent's edit"));
	repo_result_release(&res);
	a = out(t, "cat a.txt; cat sub/c.txt");
	assert_string_equal(a, "one\ntwo\nthree\nstaged\nagent\nuser\nc\n");
	free(a);
}

/* Two turns: undo 2 returns to the start; redo re-applies the first turn. */
static void
test_undo_two_and_reopen(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	save(t, "s0");
	open_repo(t);
	turn(t, NULL, "echo t1 >> a.txt && echo t1 > t1.txt");
	save(t, "s1");
	checkpoint(t->r, NULL); /* a turn without changes is not counted by undo */
	turn(t, NULL, "echo t2 >> a.txt && rm t1.txt");
	assert_int_equal(repo_turns(t->r), 3);
	open_repo(t); /* the chain is persistent */
	assert_int_equal(repo_turns(t->r), 3);
	assert_int_equal(undo(t->r, 2, 0), 0);
	assert_true(same_as(t, "s0"));
	redo(t->r);
	assert_true(same_as(t, "s1"));
	redo(open_repo(t));
	assert_int_equal(repo_redo(t->r, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "no undone turn"));
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_true(same_as(t, "s1"));
	repo_result_release(&res);
}

/*
 * Quitting with the end snapshot unfinished (repo_abandon): the turn's end
 * is not written (no ref lock left behind); the next start undoes the
 * turn all the same, its end taken when the undo needs it, with a note.
 */
static void
test_abandoned_end(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	save(t, "s0");
	open_repo(t);
	checkpoint(t->r, NULL);
	assert_int_equal(sh(t, "echo agent >> a.txt && echo new > n.txt"), 0);
	repo_abandon(t->r);
	assert_int_equal(repo_turn_end(t->r, &e), -1);
	assert_non_null(strstr(e.msg, "hearth quit before the snapshot was taken"));
	assert_int_equal(sh(t, "! ls .git/refs/hearth/checkpoints | grep -q lock"), 0);
	open_repo(t); /* the next start */
	assert_int_equal(repo_turns(t->r), 1);
	assert_int_equal(repo_undo(t->r, 1, 0, &res, &e), 0);
	assert_non_null(strstr(res.notes.data, "turn 1 was never ended"));
	assert_true(same_as(t, "s0"));
	repo_result_release(&res);
	/* a checkpoint after it writes nothing either */
	repo_abandon(t->r);
	assert_int_equal(repo_checkpoint(t->r, NULL, &e), -1);
	open_repo(t);
	assert_int_equal(repo_turns(t->r), 1);
}

/* No commits yet, a locked index, a detached HEAD. */
static void
test_no_commits_locked_detached(void **state)
{
	struct t *t = *state;
	char *lock;

	assert_int_equal(sh(t, "echo a > a.txt && echo b > b.txt && git add a.txt"), 0);
	save(t, "s0");
	open_repo(t);
	turn(t, NULL, "echo x >> a.txt && rm b.txt && echo c > c.txt");
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_true(same_as(t, "s0"));
	repo_close(t->r);
	t->r = NULL;
	/* commit, detach, lock the index */
	assert_int_equal(sh(t, "git add -A && git commit -qm c && git checkout -q --detach && "
			    "echo locked > .git/index.lock && cp .git/index ../index.before"), 0);
	save(t, "s1");
	open_repo(t);
	turn(t, NULL, "echo y >> a.txt && echo d > d.txt");
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_true(same_as(t, "s1"));
	assert_int_equal(sh(t, "cmp .git/index ../index.before"), 0);
	lock = out(t, "cat .git/index.lock");
	assert_string_equal(lock, "locked\n");
	free(lock);
}

/* Register the file name (in the work tree) with repo_note_file; its result. */
static int
note(struct t *t, const char *name, struct err *e)
{
	char p[8192];

	snprintf(p, sizeof p, "%s/%s", t->w, name);
	return repo_note_file(t->r, p, e);
}

/* Outside git: registered files are copied into the private store. */
static void
test_outside_git(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(sh(t, "echo a > a.txt && printf 'b\\0' > b.bin && echo c > c.txt"), 0);
	save(t, "s0");
	assert_int_equal(repo_is_git(open_repo(t)), 0);
	assert_int_equal(note(t, "a.txt", &e), 0); /* starts a turn */
	assert_int_equal(note(t, "b.bin", &e), 0);
	assert_int_equal(note(t, "new/n.txt", &e), 0);
	assert_int_equal(repo_note_file(t->r, "/etc/passwd", &e), -1);
	assert_non_null(strstr(e.msg, "outside"));
	assert_int_equal(sh(t, "echo more >> a.txt && rm b.bin && mkdir new && echo n > new/n.txt"
			    " && echo c2 >> c.txt"), 0); /* c.txt was never registered */
	turn_end(t->r);
	save(t, "s1");
	assert_int_equal(repo_session_diff(t->r, &res, &e), 0);
	assert_int_equal(res.nfiles, 3);
	repo_result_release(&res);
	assert_int_equal(undo(open_repo(t), 1, 0), 0);
	assert_int_equal(sh(t, "cmp a.txt ../s0/a.txt && cmp b.bin ../s0/b.bin && "
			    "[ ! -e new ] && grep -q c2 c.txt"), 0);
	redo(t->r);
	assert_true(same_as(t, "s1"));
}

/* Session diff lists files with line counts; ignored files noted are covered. */
static void
test_session_diff(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	size_t i;
	int seen = 0;

	checkpoint(open_repo(t), NULL);
	assert_int_equal(note(t, "k.log", &e), 0); /* ignored: added to the snapshot */
	assert_int_equal(sh(t, "echo x >> a.txt && echo y >> a.txt && echo z > k.log"), 0);
	turn_end(t->r);
	turn(t, NULL, "rm sub/c.txt");
	assert_int_equal(repo_session_diff(t->r, &res, &e), 0);
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
	assert_int_equal(undo(t->r, 2, 0), 0);
	assert_int_equal(sh(t, "grep -q keep k.log && [ -f sub/c.txt ]"), 0);
}

/* Submodules and nested repositories are skipped and reported. */
static void
test_submodule_skipped(void **state)
{
	struct t *t = *state;
	struct buf notes = BUF_INIT;

	assert_int_equal(sh(t, "git update-index --add --cacheinfo "
			    "160000,1111111111111111111111111111111111111111,mod && mkdir mod && "
			    "mkdir nested && cd nested && git init -q && echo n > n.txt"), 0);
	open_repo(t);
	turn(t, &notes, "echo x >> a.txt");
	assert_non_null(strstr(notes.data, "mod: submodule"));
	assert_non_null(strstr(notes.data, "nested"));
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_int_equal(sh(t, "git diff --quiet -- a.txt || git diff --cached --quiet"), 0);
	buf_release(&notes);
}

/* A file over REPO_MAX_FILE is left out, reported, and never deleted by undo. */
static void
test_huge_file_left_out(void **state)
{
	struct t *t = *state;
	struct buf notes = BUF_INIT;

	assert_int_equal(sh(t, "head -c %zu /dev/zero > huge.bin", REPO_MAX_FILE + 1), 0);
	open_repo(t);
	turn(t, &notes, "echo small > huge.bin && echo x >> a.txt");
	assert_non_null(strstr(notes.data, "huge.bin: not checkpointed"));
	/* the left-out list is persistent too */
	assert_int_equal(undo(open_repo(t), 1, 0), 0);
	assert_int_equal(sh(t, "grep -q small huge.bin && ! grep -q '^x' a.txt"), 0);
	buf_release(&notes);
}

/* Linked worktree and bare repository. */
static void
test_worktree_and_bare(void **state)
{
	struct t *t = *state;
	struct err e = ERR_INIT;
	struct repo *r;
	char wt[8192];

	assert_int_equal(sh(t, "git worktree add -q ../wt && git clone -q --bare . ../bare.git"),
			 0);
	snprintf(wt, sizeof wt, "%s/wt", t->dir);
	r = repo_open(wt, "s1", t->state, &e);
	assert_non_null(r);
	assert_int_equal(repo_is_git(r), 1);
	checkpoint(r, NULL);
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
}

/* Bad input: session ids, nothing to undo, unwritable targets (nothing changes). */
static void
test_bad_input(void **state)
{
	struct t *t = *state;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	int rc;

	assert_null(repo_open(t->w, "../x", t->state, &e));
	assert_null(repo_open("/nonexistent-dir-xyz", "s", NULL, &e));
	open_repo(t);
	assert_int_equal(repo_undo(t->r, 1, 0, &res, &e), -1);
	assert_non_null(strstr(e.msg, "nothing to undo"));
	assert_int_equal(repo_undo(t->r, 0, 0, &res, &e), -1);
	/* the agent deletes a directory; the user then puts a file where it was */
	turn(t, NULL, "rm -r sub && echo x >> a.txt");
	assert_int_equal(sh(t, "echo user > sub"), 0);
	assert_int_equal(repo_undo(t->r, 1, REPO_FORCE, &res, &e), -1);
	assert_non_null(strstr(e.msg, "is not a directory; nothing was changed"));
	assert_int_equal(sh(t, "grep -q '^x' a.txt && grep -q user sub"), 0);
	repo_result_release(&res);
	/* a read-only directory: a clear error, and nothing is changed */
	assert_int_equal(sh(t, "rm sub && mkdir sub && " RO("sub")), 0);
	rc = repo_undo(t->r, 1, 0, &res, &e);
	assert_int_equal(sh(t, RW("sub")), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "sub/c.txt"));
	assert_non_null(strstr(e.msg, "is not writable ("));
	assert_non_null(strstr(e.msg, "); nothing was changed"));
	assert_int_equal(sh(t, "grep -q '^x' a.txt"), 0);
	repo_result_release(&res);
	assert_int_equal(undo(t->r, 1, 0), 0); /* writable again: it works */
	assert_int_equal(sh(t, "[ -f sub/c.txt ] && ! grep -q '^x' a.txt"), 0);
}

/* A read-only object database makes checkpoint fail with a clear error. */
static void
test_readonly_objects(void **state)
{
	struct t *t = *state;
	struct err e = ERR_INIT;
	int rc;

	assert_int_equal(sh(t, "echo new > fresh.txt && " RO(".git/objects")), 0);
	rc = repo_checkpoint(open_repo(t), NULL, &e);
	assert_int_equal(sh(t, RW(".git/objects")), 0);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "checkpoint"));
	assert_int_equal(repo_turns(t->r), 0);
	checkpoint(t->r, NULL); /* writable again */
	assert_int_equal(repo_turns(t->r), 1);
}

/*
 * Under text/eol=lf a file saved by hand with CRLF and added is clean to
 * git (its blob has LF): the checkpoint takes the index blob, and the
 * registration before the agent's edit hashes the bytes on disk, so undo
 * puts the CRLF back.
 */
static void
test_crlf_by_hand_restored(void **state)
{
	struct t *t = *state;
	struct err e = ERR_INIT;
	char abs[TU_PATH + 16];

	assert_int_equal(sh(t, "printf '*.sh text eol=lf\\n' > .gitattributes && printf 'a\\nb\\n' > s.sh && "
			    "git add -A && git commit -qm init && printf 'a\\r\\nb\\r\\n' > s.sh && "
			    "git add s.sh 2>/dev/null && git diff --quiet && git diff --cached --quiet"), 0);
	open_repo(t);
	checkpoint(t->r, NULL);
	snprintf(abs, sizeof abs, "%s/s.sh", t->w);
	if (repo_note_file(t->r, abs, &e) < 0)
		fail_msg("note: %s", e.msg);
	assert_int_equal(sh(t, "printf 'changed\\n' > s.sh"), 0);
	turn_end(t->r);
	assert_int_equal(undo(t->r, 1, 0), 0);
	assert_int_equal(sh(t, "[ \"$(od -An -c s.sh | tr -d ' \\n')\" = 'a\\r\\nb\\r\\n' ]"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_undo_redo_roundtrip, git_repo, done),
		cmocka_unit_test_setup_teardown(test_user_edit_survives, git_repo, done),
		cmocka_unit_test_setup_teardown(test_undo_two_and_reopen, git_repo, done),
		cmocka_unit_test_setup_teardown(test_abandoned_end, git_repo, done),
		cmocka_unit_test_setup_teardown(test_no_commits_locked_detached, git_empty, done),
		cmocka_unit_test_setup_teardown(test_outside_git, no_git, done),
		cmocka_unit_test_setup_teardown(test_crlf_by_hand_restored, git_empty, done),
		cmocka_unit_test_setup_teardown(test_session_diff, git_repo, done),
		cmocka_unit_test_setup_teardown(test_submodule_skipped, git_repo, done),
		cmocka_unit_test_setup_teardown(test_huge_file_left_out, git_repo, done),
		cmocka_unit_test_setup_teardown(test_worktree_and_bare, git_repo, done),
		cmocka_unit_test_setup_teardown(test_bad_input, git_repo, done),
		cmocka_unit_test_setup_teardown(test_readonly_objects, git_repo, done),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_gitcommit: /commit's engine on temporary repositories — only the
 * session's files are committed (a hand-edited file and the user's staged
 * change stay out), the missing identity, the empty change set, a locked
 * index, an unborn branch, HEAD moving, and the tidying of a drafted
 * message.  The git CLI only sets repositories up and checks them.
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
#include <git2.h>

#include "base/buf.h"
#include "repo/commit.h"
#include "repo/repo.h"
#include "testutil.h"

struct t {
	char *dir;
	char w[TU_PATH], state[TU_PATH];
	struct repo *r;
};

static char *g_home; /* an empty global config: no identity unless a test sets one */

/* Shell commands in the work tree (testutil's tu_sh / tu_sh_out). */
#define sh(t, ...) tu_sh((t)->w, __VA_ARGS__)
#define out(t, cmd) tu_sh_out((t)->w, (cmd))

/* Whether the output of cmd equals want. */
static void
out_is(struct t *t, const char *cmd, const char *want)
{
	char *got = out(t, cmd);

	if (strcmp(got, want) != 0)
		fail_msg("%s: got [%s], want [%s]", cmd, got, want);
	free(got);
}

/* A repository with a.txt, b.txt, c.txt committed (identity set when ident). */
static struct t *
setup(int ident, int commit)
{
	struct t *t = calloc(1, sizeof *t);
	struct err e = ERR_INIT;

	t->dir = tu_worktree(t->w, t->state);
	assert_int_equal(sh(t, "git init -q && git config core.autocrlf false && "
			    "echo a > a.txt && echo b > b.txt && echo c > c.txt"), 0);
	if (commit)
		assert_int_equal(sh(t, "git add -A && git -c user.name=x -c user.email=x@x "
				    "commit -qm base"), 0);
	if (ident)
		assert_int_equal(sh(t, "git config user.name 'Ann Author' && "
				    "git config user.email ann@example.com"), 0);
	t->r = repo_open(t->w, "s1", t->state, &e);
	if (!t->r)
		fail_msg("repo_open: %s", e.msg);
	return t;
}

static void
teardown(struct t *t)
{
	repo_close(t->r);
	tu_rmrf(t->dir);
	free(t->dir);
	free(t);
}

/* One agent turn running cmd in the work tree. */
static void
turn(struct t *t, const char *cmd)
{
	struct err e = ERR_INIT;

	if (repo_checkpoint(t->r, NULL, &e) < 0)
		fail_msg("checkpoint: %s", e.msg);
	assert_int_equal(sh(t, "%s", cmd), 0);
	if (repo_turn_end(t->r, &e) < 0)
		fail_msg("turn end: %s", e.msg);
}

/* The agent's files into a plan; returns the plan's file count. */
static size_t
plan(struct t *t, struct repo_commit_plan *p, struct repo_result *hand)
{
	struct repo_result agent = REPO_RESULT_INIT;
	const char *paths[16];
	struct err e = ERR_INIT;
	size_t i;

	if (repo_session_files(t->r, &agent, hand, &e) < 0)
		fail_msg("session files: %s", e.msg);
	assert_true(agent.nfiles <= 16);
	for (i = 0; i < agent.nfiles; i++)
		paths[i] = agent.files[i].path;
	if (repo_commit_plan(repo_git(t->r), paths, agent.nfiles, p, &e) < 0)
		fail_msg("plan: %s", e.msg);
	repo_result_release(&agent);
	return p->nfiles;
}

/* Commit p with msg; returns 0 / -1 with the error in e. */
static int
commit(struct t *t, struct repo_commit_plan *p, const char *msg, struct err *e)
{
	return repo_commit_commit(repo_git(t->r), p, msg, NULL, e);
}

/* Only the session's files are committed; the hand edit and the staged change stay out. */
static void
test_commit_session_files_only(void **state)
{
	struct t *t = setup(1, 1);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(sh(t, "echo staged >> c.txt && git add c.txt"), 0);
	turn(t, "echo agent >> a.txt && echo new > new.txt");
	assert_int_equal(sh(t, "echo mine >> b.txt"), 0);
	assert_int_equal(plan(t, &p, &hand), 2);
	assert_int_equal(hand.nfiles, 1);
	assert_string_equal(hand.files[0].path, "b.txt");
	assert_non_null(strstr(p.stat.data, "a.txt | +1 -0"));
	assert_non_null(strstr(p.diff.data, "+agent"));
	assert_int_equal(commit(t, &p, "Add new.txt\n\nAnd extend a.", &e), 0);
	out_is(t, "git show --name-only --format=%s%n%an%n%ae HEAD",
	       "Add new.txt\nAnn Author\nann@example.com\n\na.txt\nnew.txt\n");
	out_is(t, "git status --porcelain", " M b.txt\nM  c.txt\n");
	out_is(t, "git log --format=%B -1", "Add new.txt\n\nAnd extend a.\n\n");
	repo_commit_plan_free(&p);
	repo_result_release(&hand);
	teardown(t);
}

/* A file the agent changed and the user edited after is the agent's, flagged by_hand. */
static void
test_agent_file_edited_by_hand(void **state)
{
	struct t *t = setup(1, 1);
	struct repo_result agent = REPO_RESULT_INIT, hand = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	turn(t, "echo agent >> a.txt && rm c.txt");
	assert_int_equal(sh(t, "echo mine >> a.txt"), 0);
	assert_int_equal(repo_session_files(t->r, &agent, &hand, &e), 0);
	assert_int_equal(agent.nfiles, 2);
	assert_int_equal(hand.nfiles, 0);
	assert_string_equal(agent.files[0].path, "a.txt");
	assert_int_equal(agent.files[0].by_hand, 1);
	assert_string_equal(agent.files[1].path, "c.txt");
	assert_int_equal(agent.files[1].status, 'D');
	assert_int_equal(agent.files[1].by_hand, 0);
	repo_result_release(&agent);
	repo_result_release(&hand);
	teardown(t);
}

/* No user.name / user.email: a one-line error, nothing committed, the index untouched. */
static void
test_no_identity(void **state)
{
	struct t *t = setup(0, 1);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	char *head = out(t, "git rev-parse HEAD; md5sum .git/index");

	(void)state;
	turn(t, "echo agent >> a.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_int_equal(commit(t, &p, "msg", &e), -1);
	assert_non_null(strstr(e.msg, "no git identity"));
	assert_non_null(strstr(e.msg, "git config --global user.name"));
	assert_null(strchr(e.msg, '\n'));
	out_is(t, "git rev-parse HEAD; md5sum .git/index", head);
	free(head);
	repo_commit_plan_free(&p);
	repo_result_release(&hand);
	teardown(t);
}

/* The agent's change undone (or no turn at all): nothing to commit. */
static void
test_empty_change_set(void **state)
{
	struct t *t = setup(1, 1);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT, res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(plan(t, &p, &hand), 0);
	repo_commit_plan_free(&p);
	turn(t, "echo agent >> a.txt");
	assert_int_equal(repo_undo(t->r, 1, 0, &res, &e), 0);
	assert_int_equal(plan(t, &p, &hand), 0);
	assert_int_equal(commit(t, &p, "msg", &e), -1);
	assert_non_null(strstr(e.msg, "nothing to commit"));
	repo_commit_plan_free(&p);
	repo_result_release(&res);
	repo_result_release(&hand);
	teardown(t);
}

/* The first commit of a repository; a locked index refuses; HEAD moving refuses. */
static void
test_unborn_locked_moved(void **state)
{
	struct t *t = setup(1, 0);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT;
	struct err e = ERR_INIT;

	(void)state;
	turn(t, "echo agent > agent.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_int_equal(sh(t, "touch .git/index.lock"), 0);
	assert_int_equal(commit(t, &p, "first", &e), -1);
	assert_non_null(strstr(e.msg, "index is locked"));
	assert_int_equal(sh(t, "git rev-parse -q --verify HEAD"), 256);
	assert_int_equal(sh(t, "rm .git/index.lock"), 0);
	assert_int_equal(commit(t, &p, "first", &e), 0);
	out_is(t, "git log --format=%s --name-only", "first\n\nagent.txt\n");
	out_is(t, "git status --porcelain", "?? a.txt\n?? b.txt\n?? c.txt\n");
	repo_commit_plan_free(&p);
	turn(t, "echo more >> agent.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_int_equal(sh(t, "git add a.txt && git commit -qm other"), 0);
	assert_int_equal(commit(t, &p, "second", &e), -1);
	assert_non_null(strstr(e.msg, "HEAD moved"));
	repo_commit_plan_free(&p);
	repo_result_release(&hand);
	teardown(t);
}

/* A detached HEAD moves to the new commit; a linked worktree commits on its own branch. */
static void
test_detached_and_worktree(void **state)
{
	struct t *t = setup(1, 1);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *main_repo;

	(void)state;
	assert_int_equal(sh(t, "git checkout -q --detach"), 0);
	turn(t, "echo agent >> a.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_int_equal(commit(t, &p, "on a detached head", &e), 0);
	out_is(t, "git log -1 --format=%s HEAD", "on a detached head\n");
	out_is(t, "git rev-parse --abbrev-ref HEAD", "HEAD\n");
	repo_commit_plan_free(&p);
	/* a linked worktree: the session's repo is opened there */
	assert_int_equal(sh(t, "git worktree add -q -b side ../wt2"), 0);
	main_repo = t->r;
	snprintf(t->w, sizeof t->w, "%s/wt2", t->dir);
	t->r = repo_open(t->w, "s2", t->state, &e);
	assert_non_null(t->r);
	turn(t, "echo side >> b.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_int_equal(commit(t, &p, "on the side", &e), 0);
	out_is(t, "git log -1 --format=%s side", "on the side\n");
	out_is(t, "git status --porcelain", "");
	repo_commit_plan_free(&p);
	repo_close(main_repo);
	repo_result_release(&hand);
	teardown(t);
}

/* A hook in the repository is named as not run. */
static void
test_hooks_noted(void **state)
{
	struct t *t = setup(1, 1);
	struct repo_commit_plan p;
	struct repo_result hand = REPO_RESULT_INIT;

	(void)state;
	assert_int_equal(sh(t, "printf '#!/bin/sh\\nexit 1\\n' > .git/hooks/pre-commit && "
			    "chmod +x .git/hooks/pre-commit"), 0);
	turn(t, "echo agent >> a.txt");
	assert_int_equal(plan(t, &p, &hand), 1);
	assert_non_null(strstr(p.notes.data, "hooks not run"));
	assert_non_null(strstr(p.notes.data, "pre-commit"));
	repo_commit_plan_free(&p);
	repo_result_release(&hand);
	teardown(t);
}

/* Tidy drafted messages: fences, labels, think blocks, a long summary wrapped at a word. */
static void
test_tidy_message(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	repo_commit_tidy_message("<think>hmm</think>\n\n```\nFix the parser\n\nIt crashed.\n```\n", &b);
	assert_string_equal(b.data, "Fix the parser\n\nIt crashed.");
	repo_commit_tidy_message("Commit message: Add a flag  \nBody line\n", &b);
	assert_string_equal(b.data, "Add a flag\n\nBody line");
	repo_commit_tidy_message("Commit message:\n\nAdd it\n", &b);
	assert_string_equal(b.data, "Add it");
	repo_commit_tidy_message("Make the checkpoint code reuse the index stat data so that large "
			       "repositories are fast\n\nMore.", &b);
	assert_string_equal(b.data, "Make the checkpoint code reuse the index stat data so that "
			    "large\n\nrepositories are fast\n\nMore.");
	repo_commit_tidy_message("Fix \x1b[31mred\x1b[0m\tnow\r\n", &b);
	assert_string_equal(b.data, "Fix [31mred[0m\tnow");
	repo_commit_tidy_message("  \n```\n```\n", &b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_session_files_only),
		cmocka_unit_test(test_agent_file_edited_by_hand),
		cmocka_unit_test(test_no_identity),
		cmocka_unit_test(test_empty_change_set),
		cmocka_unit_test(test_unborn_locked_moved),
		cmocka_unit_test(test_detached_and_worktree),
		cmocka_unit_test(test_hooks_noted),
		cmocka_unit_test(test_tidy_message),
	};
	int rc;

	g_home = tu_tmpdir();
	setenv("HOME", g_home, 1);
	setenv("XDG_CONFIG_HOME", g_home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_AUTHOR_NAME");
	unsetenv("GIT_AUTHOR_EMAIL");
	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, g_home);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, g_home);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, g_home);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	tu_rmrf(g_home);
	free(g_home);
	return rc;
}

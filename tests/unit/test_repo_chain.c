/*
 * test_repochain: the commit chain of a session in a private bare store —
 * every event read back by a fresh load, the tip replaced by rebegin,
 * failed writes leaving the chain unchanged, and damaged chains (unknown
 * turns, stray redo, garbage messages, a ref to a non-commit) loading
 * without error.  Each test works in its own mkdtemp directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "repo/chain.h"
#include "repo/snap.h"
#include "testutil.h"

#define REF "refs/hearth/checkpoints/s1"

struct t {
	char *dir;         /* temp dir: w/ (work tree), state/ */
	char w[TU_PATH], state[TU_PATH];
	struct repo_snap s; /* the private store */
	git_oid t0, t1, t2; /* trees: empty, a = "1", a = "2" */
};

/* Snapshot the scope {a} with a holding content. */
static void
tree_with(struct t *t, const char *content, git_oid *tree)
{
	struct repo_snap_scope sc = { NULL, 0 };
	struct err e = ERR_INIT;

	tu_write(t->w, "a", content);
	repo_snap_scope_add(&sc, "a");
	assert_int_equal(repo_snap_tree(&t->s, &sc, NULL, tree, NULL, &e), 0);
	repo_snap_scope_free(&sc);
}

static struct t *
setup(void)
{
	struct t *t = calloc(1, sizeof *t);
	struct err e = ERR_INIT;

	t->dir = tu_worktree(t->w, t->state);
	if (repo_snap_open(&t->s, t->w, t->state, &e) < 0)
		fail_msg("repo_snap_open: %s", e.msg);
	assert_int_equal(repo_snap_tree(&t->s, NULL, NULL, &t->t0, NULL, &e), 0);
	tree_with(t, "1", &t->t1);
	tree_with(t, "2", &t->t2);
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

/* Load the session s1 into c (zeroed first). */
static void
load(struct t *t, struct repo_chain *c)
{
	struct err e = ERR_INIT;

	memset(c, 0, sizeof *c);
	if (repo_chain_load(c, t->s.git, "s1", &e) != 0) /* 0 or -1 (repo/chain.h) */
		fail_msg("repo_chain_load: %s", e.msg);
}

/* Begin a turn with the given before tree and scope paths (NULL-terminated). */
static int
begin(struct repo_chain *c, const git_oid *before, const char *const *paths)
{
	struct repo_chain_turn tn;
	struct err e = ERR_INIT;

	memset(&tn, 0, sizeof tn);
	tn.before = *before;
	for (; paths && *paths; paths++)
		repo_snap_scope_add(&tn.scope, *paths);
	return repo_chain_begin(c, &tn, &e);
}

/* Append a commit with message msg (on tree) to the chain by hand. */
static void
raw_event(struct t *t, const char *msg, const git_oid *tree_id)
{
	git_commit *parent = NULL;
	const git_commit *parents[1];
	git_signature *sig;
	git_tree *tree;
	git_oid tip, id;
	git_reference *ref;

	if (git_reference_name_to_id(&tip, t->s.git, REF) == 0)
		assert_int_equal(git_commit_lookup(&parent, t->s.git, &tip), 0);
	parents[0] = parent;
	assert_int_equal(git_tree_lookup(&tree, t->s.git, tree_id), 0);
	assert_int_equal(git_signature_now(&sig, "t", "t@t"), 0);
	assert_int_equal(git_commit_create(&id, t->s.git, NULL, sig, sig, NULL, msg, tree,
					   parent ? 1 : 0, parents), 0);
	assert_int_equal(git_reference_create(&ref, t->s.git, REF, &id, 1, "test"), 0);
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent);
}

static void
test_events_read_back(void **state)
{
	const char *const scope[] = { "a", "/big", NULL };
	struct t *t = setup();
	struct repo_chain c, d;
	struct err e = ERR_INIT;

	(void)state;
	load(t, &c);
	assert_int_equal(c.nturns, 0);
	assert_null(repo_chain_last(&c));
	assert_int_equal(begin(&c, &t->t0, scope), 0);
	assert_int_equal(begin(&c, &t->t1, NULL), 0);
	assert_int_equal(repo_chain_last(&c)->no, 2);
	assert_true(c.turns[0].has_after); /* the next turn's before */
	assert_true(git_oid_equal(&c.turns[0].after, &t->t1));
	assert_false(c.turns[1].has_after);
	assert_int_equal(repo_chain_end(&c, &c.turns[1], &t->t2, &e), 0);
	assert_true(c.turns[1].has_after);
	assert_int_equal(repo_chain_undone(&c, 1, &e), 0);
	repo_chain_free(&c);
	{ /* left zeroed (repo/chain.h) */
		struct repo_chain zero;
		memset(&zero, 0, sizeof zero);
		assert_memory_equal(&c, &zero, sizeof c);
	}

	load(t, &d);
	assert_int_equal(d.nturns, 2);
	assert_int_equal(d.turns[0].no, 1);
	assert_int_equal(d.turns[0].scope.n, 2);
	assert_string_equal(d.turns[0].scope.paths[0], "a");
	assert_string_equal(d.turns[0].scope.paths[1], "/big");
	assert_true(git_oid_equal(&d.turns[0].before, &t->t0));
	assert_true(d.turns[0].has_after); /* no "after" event: the next turn's before */
	assert_true(git_oid_equal(&d.turns[0].after, &t->t1));
	assert_true(git_oid_equal(&d.turns[1].after, &t->t2));
	assert_int_equal(d.turns[0].state, REPO_CHAIN_ACTIVE);
	assert_int_equal(d.turns[1].state, REPO_CHAIN_UNDONE);
	assert_int_equal(d.nredo, 1);
	assert_int_equal(d.redo[0], 1);
	assert_int_equal(repo_chain_redone(&d, &e), 0);
	repo_chain_free(&d);

	load(t, &c);
	assert_int_equal(c.turns[1].state, REPO_CHAIN_ACTIVE);
	assert_int_equal(c.nredo, 0);
	assert_int_equal(repo_chain_undone(&c, 1, &e), 0);
	assert_int_equal(begin(&c, &t->t1, NULL), 0); /* a new turn empties the redo stack */
	assert_int_equal(c.nredo, 0);
	repo_chain_free(&c);
	load(t, &d);
	assert_int_equal(d.nturns, 3);
	assert_int_equal(d.nredo, 0);
	/* Issue 20: a recorded "after" read back is that tree, not the next turn's before */
	{
		git_oid t3;

		assert_int_equal(repo_chain_end(&d, &d.turns[2], &t->t2, &e), 0);
		tree_with(t, "3", &t3);
		assert_int_equal(begin(&d, &t3, NULL), 0);
		repo_chain_free(&d);
		load(t, &c);
		assert_int_equal(c.nturns, 4);
		assert_true(c.turns[2].has_after);
		assert_true(git_oid_equal(&c.turns[2].after, &t->t2));
		assert_true(git_oid_equal(&c.turns[3].before, &t3));
		repo_chain_free(&c);
	}
	teardown(t);
}

static void
test_rebegin_replaces_tip(void **state)
{
	struct t *t = setup();
	struct repo_chain c;
	struct err e = ERR_INIT;
	git_commit *tip;
	git_oid id;

	(void)state;
	load(t, &c);
	assert_int_equal(begin(&c, &t->t0, NULL), 0);
	c.turns[0].before = t->t1;
	repo_snap_scope_add(&c.turns[0].scope, "x");
	assert_int_equal(repo_chain_rebegin(&c, &e), 0);
	repo_chain_free(&c);
	assert_int_equal(git_reference_name_to_id(&id, t->s.git, REF), 0);
	assert_int_equal(git_commit_lookup(&tip, t->s.git, &id), 0);
	assert_int_equal(git_commit_parentcount(tip), 0); /* replaced, not appended */
	git_commit_free(tip);
	load(t, &c);
	assert_int_equal(c.nturns, 1);
	assert_true(git_oid_equal(&c.turns[0].before, &t->t1));
	assert_int_equal(c.turns[0].scope.n, 1);
	assert_string_equal(c.turns[0].scope.paths[0], "x");
	repo_chain_free(&c);
	teardown(t);
}

static void
test_failed_write_changes_nothing(void **state)
{
	struct t *t = setup();
	struct repo_chain c;
	struct err e = ERR_INIT;
	git_oid bogus;

	(void)state;
	memset(&bogus, 0x5a, sizeof bogus);
	load(t, &c);
	assert_int_equal(begin(&c, &t->t0, NULL), 0);
	assert_int_equal(repo_chain_end(&c, &c.turns[0], &t->t1, &e), 0);
	assert_int_equal(repo_chain_undone(&c, 0, &e), 0);
	assert_int_equal(begin(&c, &bogus, (const char *const[]){ "p", NULL }), -1);
	assert_int_equal(c.nturns, 1);
	assert_int_equal(c.nredo, 1);
	assert_int_equal(repo_chain_end(&c, &c.turns[0], &bogus, &e), -1);
	assert_non_null(strstr(e.msg, "checkpoint: record it"));
	assert_true(git_oid_equal(&c.turns[0].after, &t->t1));
	repo_chain_free(&c);
	load(t, &c);
	assert_int_equal(c.nturns, 1);
	assert_int_equal(c.nredo, 1);
	repo_chain_free(&c);
	teardown(t);
}

static void
test_damaged_chain(void **state)
{
	struct t *t = setup();
	struct repo_chain c;
	git_reference *ref;

	(void)state;
	raw_event(t, "hearth before 1\n", &t->t0);
	raw_event(t, "hearth after 7\n", &t->t1); /* no turn 7: not turn 1's after */
	raw_event(t, "hearth undo 7\n", &t->t1);  /* no turn 7 */
	raw_event(t, "hearth redo 1\n", &t->t1);  /* turn 1 was never undone */
	raw_event(t, "not an event at all", &t->t1);
	raw_event(t, "hearth after\n", &t->t1);   /* no number */
	raw_event(t, "hearth before 2\n\n\n\nx\n\ny", &t->t2);
	raw_event(t, "hearth undo 2\n", &t->t2);
	raw_event(t, "hearth foo 2\n", &t->t2);   /* an unknown event: not a redo */
	load(t, &c);
	assert_int_equal(c.nturns, 2);
	assert_int_equal(c.turns[0].state, REPO_CHAIN_ACTIVE);
	assert_int_equal(c.turns[1].state, REPO_CHAIN_UNDONE);
	assert_int_equal(c.nredo, 1);
	assert_true(git_oid_equal(&c.turns[0].after, &t->t2));
	assert_int_equal(c.turns[1].scope.n, 2);
	assert_string_equal(c.turns[1].scope.paths[0], "x");
	assert_string_equal(c.turns[1].scope.paths[1], "y");
	repo_chain_free(&c);
	/* the ref names a tree, not a commit: an empty chain */
	assert_int_equal(git_reference_create(&ref, t->s.git, REF, &t->t0, 1, "test"), 0);
	git_reference_free(ref);
	load(t, &c);
	assert_int_equal(c.nturns, 0);
	repo_chain_free(&c);
	teardown(t);
}

/*
 * rebegin of a later turn replaces the tip and keeps what came before it
 * (the new tip's parent is the old tip's parent); many undos stack up
 * and are redone newest first; a failed undo or redo record changes
 * nothing.
 */
static void
test_rebegin_later_undo_many(void **state)
{
	struct t *t = setup();
	struct repo_chain c;
	struct err e = ERR_INIT;
	git_commit *tip, *old;
	git_oid id, before_tip, bogus;
	int i;

	(void)state;
	load(t, &c);
	for (i = 0; i < 8; i++)
		assert_int_equal(begin(&c, i % 2 ? &t->t1 : &t->t2, NULL), 0);
	assert_int_equal(git_reference_name_to_id(&before_tip, t->s.git, REF), 0);
	assert_int_equal(git_commit_lookup(&old, t->s.git, &before_tip), 0);
	c.turns[7].before = t->t0;
	assert_int_equal(repo_chain_rebegin(&c, &e), 0);
	assert_int_equal(git_reference_name_to_id(&id, t->s.git, REF), 0);
	assert_int_equal(git_commit_lookup(&tip, t->s.git, &id), 0);
	assert_int_equal(git_commit_parentcount(tip), 1);
	assert_true(git_oid_equal(git_commit_parent_id(tip, 0), git_commit_parent_id(old, 0)));
	git_commit_free(tip);
	git_commit_free(old);
	for (i = 7; i >= 0; i--)
		assert_int_equal(repo_chain_undone(&c, (size_t)i, &e), 0);
	repo_chain_free(&c);

	load(t, &c);
	assert_int_equal(c.nturns, 8);
	assert_true(git_oid_equal(&c.turns[7].before, &t->t0));
	assert_int_equal(c.nredo, 8);
	for (i = 0; i < 8; i++) /* turn 8 undone first: at the bottom */
		assert_int_equal(c.redo[i], 7 - i);
	assert_int_equal(repo_chain_redone(&c, &e), 0);
	assert_int_equal(c.turns[0].state, REPO_CHAIN_ACTIVE);
	assert_int_equal(c.nredo, 7);
	/* records that cannot be written (a tree the store does not have) change nothing */
	memset(&bogus, 0x5a, sizeof bogus);
	c.turns[1].after = bogus;
	assert_int_equal(repo_chain_redone(&c, &e), -1);
	assert_int_equal(c.turns[1].state, REPO_CHAIN_UNDONE);
	assert_int_equal(c.nredo, 7);
	c.turns[0].before = bogus;
	assert_int_equal(repo_chain_undone(&c, 0, &e), -1);
	assert_int_equal(c.turns[0].state, REPO_CHAIN_ACTIVE);
	assert_int_equal(c.nredo, 7);
	repo_chain_free(&c);
	teardown(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_read_back),
		cmocka_unit_test(test_rebegin_replaces_tip),
		cmocka_unit_test(test_failed_write_changes_nothing),
		cmocka_unit_test(test_damaged_chain),
		cmocka_unit_test(test_rebegin_later_undo_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

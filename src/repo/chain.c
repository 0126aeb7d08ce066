/*
 * repo/chain: the commit chain of a session (contract in repo/chain.h).
 *
 * Writing: record makes a commit (parent: the ref's tip, or the tip's
 * parent when amending) and moves the ref to it.  Reading: load walks the
 * first-parent chain from the ref back (at most REPO_CHAIN_MAX commits),
 * then replays the ids oldest first.  Events naming an unknown turn, and
 * a redo that does not match the top of the redo stack, are ignored, so a
 * damaged chain yields fewer turns rather than an error.
 */
#include "repo/chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xmalloc.h"

/* Append an event commit to the chain (replacing the tip when amend). */
static int
record(struct repo_chain *c, const char *msg, const git_oid *tree_id, int amend,
       struct err *e)
{
	git_commit *parent = NULL, *pp = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	const git_commit *parents[1] = { NULL };
	git_oid tip, id;
	int rc = -1, np = 0;

	if (git_reference_name_to_id(&tip, c->git, c->ref) == 0 &&
	    git_commit_lookup(&parent, c->git, &tip) == 0) {
		if (amend && git_commit_parentcount(parent) > 0)
			git_commit_parent(&pp, parent, 0);
		parents[0] = amend ? pp : parent;
		np = parents[0] != NULL;
	}
	if (git_tree_lookup(&tree, c->git, tree_id) < 0 ||
	    git_signature_now(&sig, "hearth", "hearth@localhost") < 0 ||
	    git_commit_create(&id, c->git, NULL, sig, sig, NULL, msg, tree, (size_t)np,
			      parents) < 0 ||
	    git_reference_create(&ref, c->git, c->ref, &id, 1, "hearth checkpoint") < 0)
		repo_snap_gerr(e, "checkpoint: record it");
	else
		rc = 0;
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(pp);
	git_commit_free(parent);
	return rc;
}

/* Record the before commit of the last turn (with its scope). */
static int
record_before(struct repo_chain *c, int amend, struct err *e)
{
	struct repo_chain_turn *t = &c->turns[c->nturns - 1];
	struct buf msg = BUF_INIT;
	size_t i;
	int rc;

	buf_addf(&msg, "hearth before %d\n", t->no);
	if (t->scope.n)
		buf_adds(&msg, "\n");
	for (i = 0; i < t->scope.n; i++)
		buf_addf(&msg, "%s\n", t->scope.paths[i]);
	rc = record(c, msg.data, &t->before, amend, e);
	buf_release(&msg);
	return rc;
}

/* Record a one-line event for turn t. */
static int
record_event(struct repo_chain *c, const char *what, const struct repo_chain_turn *t,
	     const git_oid *tree, struct err *e)
{
	struct buf msg = BUF_INIT;
	int rc;

	buf_addf(&msg, "hearth %s %d\n", what, t->no);
	rc = record(c, msg.data, tree, 0, e);
	buf_release(&msg);
	return rc;
}

/* Push turn index i on the redo stack. */
static void
push_redo(struct repo_chain *c, size_t i)
{
	c->turns[i].state = REPO_CHAIN_UNDONE;
	c->redo = xrealloc(c->redo, (c->nredo + 1) * sizeof *c->redo);
	c->redo[c->nredo++] = i;
}

/* Replay a "before" commit: a new turn, its scope from the message body. */
static void
replay_before(struct repo_chain *c, git_commit *commit, int no)
{
	struct repo_chain_turn *t = repo_chain_last(c);
	const char *body = strstr(git_commit_message(commit), "\n\n");

	if (t && !t->has_after)
		t->after = *git_commit_tree_id(commit), t->has_after = 1;
	c->turns = xrealloc(c->turns, (c->nturns + 1) * sizeof *c->turns);
	t = memset(&c->turns[c->nturns++], 0, sizeof *t);
	t->no = no;
	t->before = *git_commit_tree_id(commit);
	c->nredo = 0;
	while (body && *(body += strspn(body, "\n"))) {
		size_t len = strcspn(body, "\n");
		char *p = xstrndup(body, len);
		repo_snap_scope_add(&t->scope, p);
		free(p);
		body += len;
	}
}

/* Replay one chain commit into the turn list. */
static void
replay(struct repo_chain *c, git_commit *commit)
{
	char what[16];
	int no, i;

	if (sscanf(git_commit_message(commit), "hearth %15s %d", what, &no) != 2)
		return;
	if (!strcmp(what, "before")) {
		replay_before(c, commit, no);
		return;
	}
	for (i = (int)c->nturns - 1; i >= 0 && c->turns[i].no != no; i--)
		;
	if (i < 0)
		return;
	if (!strcmp(what, "after")) {
		c->turns[i].after = *git_commit_tree_id(commit);
		c->turns[i].has_after = 1;
	} else if (!strcmp(what, "undo")) {
		push_redo(c, (size_t)i);
	} else if (!strcmp(what, "redo") && c->nredo && c->redo[c->nredo - 1] == (size_t)i) {
		c->turns[i].state = REPO_CHAIN_ACTIVE;
		c->nredo--;
	}
}

/* The commit ids of the chain, newest first, into *ids; their number. */
static size_t
walk(struct repo_chain *c, git_oid **ids)
{
	git_oid id;
	size_t n = 0, cap = 0;
	git_commit *commit;

	*ids = NULL;
	if (git_reference_name_to_id(&id, c->git, c->ref) < 0)
		return 0;
	while (n < REPO_CHAIN_MAX && git_commit_lookup(&commit, c->git, &id) == 0) {
		if (n == cap)
			*ids = xrealloc(*ids, (cap = cap ? cap * 2 : 64) * sizeof **ids);
		(*ids)[n++] = id;
		if (git_commit_parentcount(commit) == 0) {
			git_commit_free(commit);
			break;
		}
		id = *git_commit_parent_id(commit, 0);
		git_commit_free(commit);
	}
	return n;
}

/* Point c at the session's ref and replay it (see repo/chain.h). */
int
repo_chain_load(struct repo_chain *c, git_repository *git, const char *session,
	       struct err *e)
{
	struct buf ref = BUF_INIT;
	git_oid *ids;
	git_commit *commit;
	size_t n;
	int rc = 0;

	c->git = git;
	buf_addf(&ref, "refs/hearth/checkpoints/%s", session);
	c->ref = buf_detach(&ref, NULL);
	n = walk(c, &ids);
	while (n-- > 0) {
		if (git_commit_lookup(&commit, c->git, &ids[n]) < 0) {
			rc = repo_snap_gerr(e, "open checkpoints: read the chain");
			break;
		}
		replay(c, commit);
		git_commit_free(commit);
	}
	free(ids);
	return rc;
}

/* Free the chain. */
void
repo_chain_free(struct repo_chain *c)
{
	size_t i;

	for (i = 0; i < c->nturns; i++)
		repo_snap_scope_free(&c->turns[i].scope);
	free(c->turns);
	free(c->redo);
	free(c->ref);
	memset(c, 0, sizeof *c);
}

/* The last turn. */
struct repo_chain_turn *
repo_chain_last(struct repo_chain *c)
{
	return c->nturns ? &c->turns[c->nturns - 1] : NULL;
}

/* Append and record a new turn (see repo/chain.h). */
int
repo_chain_begin(struct repo_chain *c, struct repo_chain_turn *t, struct err *e)
{
	struct repo_chain_turn *prev = repo_chain_last(c);

	t->no = prev ? prev->no + 1 : 1;
	c->turns = xrealloc(c->turns, (c->nturns + 1) * sizeof *c->turns);
	c->turns[c->nturns++] = *t;
	if (record_before(c, 0, e) < 0) {
		repo_snap_scope_free(&c->turns[--c->nturns].scope);
		return -1;
	}
	if (c->nturns > 1 && !c->turns[c->nturns - 2].has_after) {
		c->turns[c->nturns - 2].after = t->before;
		c->turns[c->nturns - 2].has_after = 1;
	}
	c->nredo = 0;
	return 0;
}

/* Record the last turn's before again, replacing the tip. */
int
repo_chain_rebegin(struct repo_chain *c, struct err *e)
{
	return record_before(c, 1, e);
}

/* Record "after" for t. */
int
repo_chain_end(struct repo_chain *c, struct repo_chain_turn *t, const git_oid *tree,
	      struct err *e)
{
	if (record_event(c, "after", t, tree, e) < 0)
		return -1;
	t->after = *tree;
	t->has_after = 1;
	return 0;
}

/* Record "undo" for turns[i]. */
int
repo_chain_undone(struct repo_chain *c, size_t i, struct err *e)
{
	if (record_event(c, "undo", &c->turns[i], &c->turns[i].before, e) < 0)
		return -1;
	push_redo(c, i);
	return 0;
}

/* Record "redo" for the top of the redo stack. */
int
repo_chain_redone(struct repo_chain *c, struct err *e)
{
	struct repo_chain_turn *t = &c->turns[c->redo[c->nredo - 1]];

	if (record_event(c, "redo", t, &t->after, e) < 0)
		return -1;
	t->state = REPO_CHAIN_ACTIVE;
	c->nredo--;
	return 0;
}

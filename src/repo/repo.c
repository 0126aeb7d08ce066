/*
 * repo/repo: checkpoints and undo over libgit2 (contract in repo/repo.h).
 *
 * A repo ties three parts together: the store and its snapshots
 * (repo_snap), the session's turns as a commit chain (repo_chain) and the
 * restore engine (repo_restore).  `open` is set while the last turn was
 * started by this process and has no after snapshot yet; a turn started
 * by a process that never ended it gets its after snapshot when an undo
 * first needs it (ensure_after).
 *
 * The session diff compares each file with its baseline: the before
 * snapshot of the first turn whose scope has it (a file registered late
 * in the private store is in no earlier snapshot), else the first one.
 */
#include "repo/repo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "repo/chain.h"
#include "repo/restore.h"
#include "repo/snap.h"
#include "base/xmalloc.h"

struct repo {
	struct repo_snap snap;
	struct repo_chain chain;
	int open; /* the last turn was started here and has no after yet */
	pthread_mutex_t mu; /* abandoned, and the chain's ref writes of the snapshots */
	int abandoned;      /* repo_abandon: no snapshot writes its ref any more */
};

/*
 * Write a snapshot's chain entry (after NULL: begin turn t, else end it
 * with after) unless repo_abandon came first (then -1 + e, nothing
 * written); under mu, so repo_abandon waits for a write
 * in progress and none starts after it.
 */
static int
chain_write(struct repo *r, struct repo_chain_turn *t, const git_oid *after, struct err *e)
{
	int rc;

	pthread_mutex_lock(&r->mu);
	if (r->abandoned) {
		if (!after) /* as repo_chain_begin on failure: t's scope is freed */
			repo_snap_scope_free(&t->scope);
		rc = err_set(e, "checkpoint: hearth quit before the snapshot was taken");
	} else
		rc = after ? repo_chain_end(&r->chain, t, after, e) : repo_chain_begin(&r->chain, t, e);
	pthread_mutex_unlock(&r->mu);
	return rc;
}

/* See repo/repo.h. */
void
repo_abandon(struct repo *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->abandoned = 1;
	pthread_mutex_unlock(&r->mu);
}

/* Whether s is a usable session id. */
static int
valid_session(const char *s)
{
	if (!s || !*s || *s == '.' || strlen(s) > 200)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* Open the checkpoint store (see repo/repo.h). */
struct repo *
repo_open(const char *root, const char *session, const char *state_dir, struct err *e)
{
	struct repo *r;

	if (!valid_session(session)) {
		err_set(e, "open checkpoints: bad session id \"%s\"", session ? session : "");
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	if (repo_snap_open(&r->snap, root, state_dir, e) < 0 ||
	    repo_chain_load(&r->chain, r->snap.git, session, e) < 0) {
		repo_close(r);
		return NULL;
	}
	return r;
}

/* Free everything. */
void
repo_close(struct repo *r)
{
	if (!r)
		return;
	repo_chain_free(&r->chain);
	repo_snap_close(&r->snap);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* Whether the checkpoints are in the user's repository. */
int
repo_is_git(const struct repo *r)
{
	return r && !r->snap.fallback;
}

/* Number of turns recorded. */
int
repo_turns(const struct repo *r)
{
	return r ? (int)r->chain.nturns : 0;
}

/* Snapshot the end of the open turn. */
int
repo_turn_end(struct repo *r, struct err *e)
{
	struct repo_chain_turn *t = repo_chain_last(&r->chain);
	git_oid tree;

	if (!r->open)
		return 0;
	r->open = 0;
	if (repo_snap_tree(&r->snap, &t->scope, NULL, &tree, NULL, e) < 0)
		return -1;
	return chain_write(r, t, &tree, e);
}

/* Start a turn with a snapshot of the working tree. */
int
repo_checkpoint(struct repo *r, struct buf *notes, struct err *e)
{
	struct repo_chain_turn t;

	if (repo_turn_end(r, e) < 0)
		return -1;
	memset(&t, 0, sizeof t);
	if (repo_snap_tree(&r->snap, NULL, &t.scope, &t.before, notes, e) < 0) {
		repo_snap_scope_free(&t.scope);
		return -1;
	}
	if (chain_write(r, &t, NULL, e) < 0)
		return -1;
	r->open = 1;
	return 0;
}

/* Whether the tree tree_id has an entry (a file or a directory) at path. */
static int
tree_has(const struct repo *r, const git_oid *tree_id, const char *path)
{
	git_tree *tree;
	git_tree_entry *te = NULL;
	int has = 0;

	if (git_tree_lookup(&tree, r->snap.git, tree_id) == 0) {
		has = git_tree_entry_bypath(&te, tree, path) == 0;
		git_tree_entry_free(te);
		git_tree_free(tree);
	}
	return has;
}

/*
 * With content filters the snapshot took a file that is clean by its stat
 * data as its index blob; a file saved by hand with CRLF under text or
 * eol=lf is clean to git but not byte-equal: hash what is about to change.
 */
static int
note_raw(struct repo *r, struct repo_chain_turn *t, const char *rel, struct err *e)
{
	struct repo_snap_side disk, tree;

	if (repo_snap_disk(&r->snap, rel, &disk, NULL) < 0 || !disk.present)
		return 0;
	repo_snap_tree_side(&r->snap, &t->before, rel, &tree);
	if (repo_snap_side_eq(&disk, &tree))
		return 0;
	if (repo_snap_add(&r->snap, &t->before, rel, &t->scope, e) < 0)
		return -1;
	return repo_chain_rebegin(&r->chain, e);
}

/* Register a file before it changes (see repo/repo.h). */
int
repo_note_file(struct repo *r, const char *abs, struct err *e)
{
	size_t wl = strlen(r->snap.workdir);
	struct repo_chain_turn *t;
	const char *rel;
	int ign = 0;

	if (strncmp(abs, r->snap.workdir, wl) != 0 || !abs[wl])
		return err_set(e, "checkpoint: %s is outside the work tree %s; its change "
			       "cannot be undone", abs, r->snap.workdir);
	if (!r->open && repo_checkpoint(r, NULL, e) < 0)
		return -1;
	rel = abs + wl;
	t = repo_chain_last(&r->chain);
	if (!r->snap.fallback &&
	    (git_ignore_path_is_ignored(&ign, r->snap.git, rel) < 0 || !ign))
		return r->snap.filters ? note_raw(r, t, rel, e) : 0;
	if (tree_has(r, &t->before, rel) || !repo_snap_scope_add(&t->scope, rel))
		return 0;
	if (repo_snap_add(&r->snap, &t->before, rel, &t->scope, e) < 0)
		return -1;
	return repo_chain_rebegin(&r->chain, e);
}

/* Make sure t has an after snapshot (a turn a crashed process never ended). */
static int
ensure_after(struct repo *r, struct repo_chain_turn *t, struct repo_result *res,
	     struct err *e)
{
	git_oid tree;

	if (t->has_after)
		return 0;
	if (repo_snap_tree(&r->snap, &t->scope, NULL, &tree, NULL, e) < 0 ||
	    repo_chain_end(&r->chain, t, &tree, e) < 0)
		return -1;
	buf_addf(&res->notes, "turn %d was never ended: files changed by hand since cannot be "
		 "told from the agent's changes\n", t->no);
	return 0;
}

/* Pick the last n active turns that changed files (indices, newest first) into pick. */
static int
pick_turns(struct repo *r, int n, size_t *pick, size_t *np, struct repo_result *res,
	   struct err *e)
{
	size_t i;

	*np = 0;
	for (i = r->chain.nturns; i-- > 0 && *np < (size_t)n;) {
		struct repo_chain_turn *t = &r->chain.turns[i];
		if (t->state != REPO_CHAIN_ACTIVE)
			continue;
		if (ensure_after(r, t, res, e) < 0)
			return -1;
		if (!git_oid_equal(&t->before, &t->after))
			pick[(*np)++] = i;
	}
	if (*np < (size_t)n)
		return err_set(e, "undo: %s", *np ? "fewer turns with changes than asked for; "
			       "nothing was changed" : "no turn of this session changed files; "
			       "nothing to undo");
	return 0;
}

/* Undo the last n turns that changed files (see repo/repo.h). */
int
repo_undo(struct repo *r, int n, unsigned flags, struct repo_result *res, struct err *e)
{
	struct repo_restore rs = { NULL, 0 };
	size_t *pick, np = 0, i;
	int rc;

	if (repo_turn_end(r, e) < 0)
		return -1;
	if (n < 1)
		return err_set(e, "undo: the number of turns must be 1 or more");
	pick = xcalloc((size_t)n, sizeof *pick);
	rc = pick_turns(r, n, pick, &np, res, e);
	for (i = 0; rc == 0 && i < np; i++) {
		struct repo_chain_turn *t = &r->chain.turns[pick[i]];
		rc = repo_restore_collect(&rs, &r->snap, &t->before, &t->after, &t->scope, 1, e);
	}
	if (rc == 0)
		rc = repo_restore_run(&rs, &r->snap, flags, res, e);
	for (i = 0; rc == 0 && !(flags & REPO_DRY_RUN) && i < np; i++)
		if ((rc = repo_chain_undone(&r->chain, pick[i], e)) == 0)
			res->turns++;
	repo_restore_free(&rs);
	free(pick);
	return rc;
}

/* Re-apply the turn undone last (see repo/repo.h). */
int
repo_redo(struct repo *r, unsigned flags, struct repo_result *res, struct err *e)
{
	struct repo_restore rs = { NULL, 0 };
	struct repo_chain_turn *t;
	int rc;

	if (repo_turn_end(r, e) < 0)
		return -1;
	if (!r->chain.nredo)
		return err_set(e, "redo: no undone turn to re-apply");
	t = &r->chain.turns[r->chain.redo[r->chain.nredo - 1]];
	rc = repo_restore_collect(&rs, &r->snap, &t->before, &t->after, &t->scope, 0, e);
	if (rc == 0)
		rc = repo_restore_run(&rs, &r->snap, flags, res, e);
	if (rc == 0 && !(flags & REPO_DRY_RUN) && (rc = repo_chain_redone(&r->chain, e)) == 0)
		res->turns = 1;
	repo_restore_free(&rs);
	return rc;
}

/* The before tree that holds path's baseline: the first turn whose scope has it. */
static const git_oid *
baseline(const struct repo *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->chain.nturns; i++)
		if (repo_snap_scope_has(&r->chain.turns[i].scope, path))
			return &r->chain.turns[i].before;
	return &r->chain.turns[0].before;
}

/* Items for every registered path of the session, gathered into all too. */
static void
scope_items(const struct repo *r, struct repo_snap_scope *all, struct repo_restore *rs)
{
	size_t i, j;
	int fresh;

	for (i = 0; i < r->chain.nturns; i++)
		for (j = 0; j < r->chain.turns[i].scope.n; j++) {
			const char *p = r->chain.turns[i].scope.paths[j];
			if (p[0] != '/' && repo_snap_scope_add(all, p))
				repo_restore_item(rs, p, &fresh);
		}
}

/* The session diff (see repo/repo.h). */
int
repo_session_diff(struct repo *r, struct repo_result *res, struct err *e)
{
	struct repo_snap_scope all = { NULL, 0 };
	struct repo_restore rs = { NULL, 0 };
	const git_oid *first;
	git_oid now;
	size_t i;
	int rc = 0;

	if (!r->chain.nturns)
		return 0;
	first = &r->chain.turns[0].before;
	scope_items(r, &all, &rs);
	if (!r->snap.fallback && (rc = repo_snap_tree(&r->snap, &all, NULL, &now, NULL, e)) == 0)
		rc = repo_restore_collect(&rs, &r->snap, first, &now, &all, 0, e);
	for (i = 0; rc == 0 && i < rs.n; i++) {
		struct repo_restore_item *it = &rs.v[i];
		repo_snap_tree_side(&r->snap, baseline(r, it->path), it->path, &it->expect);
		if (repo_snap_disk(&r->snap, it->path, &it->cur, NULL) == 0 &&
		    !repo_snap_side_eq(&it->expect, &it->cur))
			repo_restore_diff(&r->snap, it->path, &it->expect, 0, &it->cur, 1, res);
	}
	repo_snap_scope_free(&all);
	repo_restore_free(&rs);
	return rc;
}

/* Append a file (path and status only) to res. */
static struct repo_file *
add_file(struct repo_result *res, const char *path, int status)
{
	struct repo_file *f;

	res->files = xrealloc(res->files, (res->nfiles + 1) * sizeof *res->files);
	f = memset(&res->files[res->nfiles++], 0, sizeof *f);
	f->path = xstrdup(path);
	f->status = status;
	return f;
}

/* Whether res lists path. */
static int
has_file(const struct repo_result *res, const char *path)
{
	size_t i;

	for (i = 0; i < res->nfiles; i++)
		if (strcmp(res->files[i].path, path) == 0)
			return 1;
	return 0;
}

/* The agent's files and the hand-changed ones (see repo/repo.h). */
int
repo_session_files(struct repo *r, struct repo_result *agent, struct repo_result *hand,
		   struct err *e)
{
	struct repo_restore rs = { NULL, 0 };
	struct repo_result all = REPO_RESULT_INIT;
	size_t i;
	int rc = repo_turn_end(r, e);

	for (i = r->chain.nturns; rc == 0 && i-- > 0;) {
		struct repo_chain_turn *t = &r->chain.turns[i];
		if (t->state == REPO_CHAIN_ACTIVE &&
		    (rc = ensure_after(r, t, &all, e)) == 0)
			rc = repo_restore_collect(&rs, &r->snap, &t->before, &t->after, &t->scope, 1, e);
	}
	for (i = 0; rc == 0 && i < rs.n; i++) {
		struct repo_restore_item *it = &rs.v[i];
		if (repo_snap_side_eq(&it->target, &it->expect))
			continue; /* changed and changed back */
		if (repo_snap_disk(&r->snap, it->path, &it->cur, NULL) < 0)
			it->cur.present = 1; /* unreadable now: not what the agent left */
		add_file(agent, it->path, !it->target.present ? 'A' : !it->expect.present ? 'D' : 'M')
			->by_hand = !repo_snap_side_eq(&it->cur, &it->expect);
	}
	repo_result_release(&all);
	if (rc == 0 && (rc = repo_session_diff(r, &all, e)) == 0)
		for (i = 0; i < all.nfiles; i++)
			if (!has_file(agent, all.files[i].path))
				add_file(hand, all.files[i].path, all.files[i].status);
	repo_result_release(&all);
	repo_restore_free(&rs);
	return rc;
}

/* The user's repository (NULL for the private store). */
struct git_repository *
repo_git(struct repo *r)
{
	return r->snap.fallback ? NULL : r->snap.git;
}

/* Free a result. */
void
repo_result_release(struct repo_result *res)
{
	size_t i;

	for (i = 0; i < res->nfiles; i++)
		free(res->files[i].path);
	free(res->files);
	buf_release(&res->diff);
	buf_release(&res->notes);
	memset(res, 0, sizeof *res);
	buf_init(&res->diff, 0);
	buf_init(&res->notes, 0);
}

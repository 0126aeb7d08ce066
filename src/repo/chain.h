/*
 * repo/chain: a session's turns as a chain of commits under the private
 * ref refs/hearth/checkpoints/<session> (the event log behind repo/repo.h).
 *
 * Each commit records one event, named by the first line of its message:
 * "hearth before N" (tree = the working tree when turn N started changing
 * files; the body lists the turn's scope one path per line), "hearth
 * after N" (tree = the working tree when turn N ended), "hearth undo N",
 * "hearth redo N".  repo_chain_load replays the chain into `turns` (oldest
 * first) and `redo`, a stack of indices into turns (the turn undone last
 * on top; a new turn empties it), so another process sees the same state.
 * A turn without an "after" event takes the next turn's before tree.
 *
 * A turn's scope holds the paths registered with repo_note_file and,
 * with a leading '/', the paths its before snapshot had to leave out:
 * undo never touches those.  Every change to the lists below is made
 * only after its commit was written, so a failed write changes nothing.
 */
#ifndef HEARTH_REPO_CHAIN_H
#define HEARTH_REPO_CHAIN_H

#include <stddef.h>

#include <git2.h>

#include "base/err.h"
#include "repo/snap.h"

#define REPO_CHAIN_MAX 100000 /* events read back at most */

enum repo_chain_state { REPO_CHAIN_ACTIVE, REPO_CHAIN_UNDONE };

/* One agent turn. */
struct repo_chain_turn {
	int no;                      /* 1, 2, ... in the session */
	git_oid before, after;       /* snapshot trees */
	int has_after;               /* after is known */
	enum repo_chain_state state;
	struct repo_snap_scope scope; /* owned */
};

/* The chain of one session; git is borrowed, the rest owned. */
struct repo_chain {
	git_repository *git;
	char *ref;
	struct repo_chain_turn *turns;
	size_t nturns;
	size_t *redo;
	size_t nredo;
};

/*
 * Point c (zeroed) at session's ref in git and replay what is recorded
 * there.  0 / -1 + e; free c with repo_chain_free either way.
 */
int repo_chain_load(struct repo_chain *c, git_repository *git, const char *session,
		   struct err *e);
/* Free what c owns; it is left zeroed. */
void repo_chain_free(struct repo_chain *c);

/* The last turn, or NULL when there is none. */
struct repo_chain_turn *repo_chain_last(struct repo_chain *c);
/*
 * Append *t (its scope is taken over; t->no is set) and record it as
 * "before": a previous turn without an after gets t's before tree; the
 * redo stack empties.  On -1 + e the chain is unchanged and t's scope freed.
 */
int repo_chain_begin(struct repo_chain *c, struct repo_chain_turn *t, struct err *e);
/* Record the last turn's before again (its tree or scope grew), replacing the tip. */
int repo_chain_rebegin(struct repo_chain *c, struct err *e);
/* Record "after" for t with tree and set it. */
int repo_chain_end(struct repo_chain *c, struct repo_chain_turn *t, const git_oid *tree,
		  struct err *e);
/* Record "undo" for turns[i], mark it undone and push it on the redo stack. */
int repo_chain_undone(struct repo_chain *c, size_t i, struct err *e);
/* Record "redo" for the turn on top of the redo stack (there must be one) and pop it. */
int repo_chain_redone(struct repo_chain *c, struct err *e);

#endif

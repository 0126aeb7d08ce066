/*
 * repochain: a session's turns as a chain of commits under the private
 * ref refs/hearth/checkpoints/<session> (the event log behind repo.h).
 *
 * Each commit records one event, named by the first line of its message:
 * "hearth before N" (tree = the working tree when turn N started changing
 * files; the body lists the turn's scope one path per line), "hearth
 * after N" (tree = the working tree when turn N ended), "hearth undo N",
 * "hearth redo N".  repochain_load replays the chain into `turns` (oldest
 * first) and `redo`, a stack of indices into turns (the turn undone last
 * on top; a new turn empties it), so another process sees the same state.
 * A turn without an "after" event takes the next turn's before tree.
 *
 * A turn's scope holds the paths registered with repo_note_file and,
 * with a leading '/', the paths its before snapshot had to leave out:
 * undo never touches those.  Every change to the lists below is made
 * only after its commit was written, so a failed write changes nothing.
 */
#ifndef HEARTH_REPOCHAIN_H
#define HEARTH_REPOCHAIN_H

#include <stddef.h>

#include <git2.h>

#include "err.h"
#include "reposnap.h"

#define REPOCHAIN_MAX 100000 /* events read back at most */

enum repochain_state { REPOCHAIN_ACTIVE, REPOCHAIN_UNDONE };

/* One agent turn. */
struct repochain_turn {
	int no;                      /* 1, 2, ... in the session */
	git_oid before, after;       /* snapshot trees */
	int has_after;               /* after is known */
	enum repochain_state state;
	struct reposnap_scope scope; /* owned */
};

/* The chain of one session; git is borrowed, the rest owned. */
struct repochain {
	git_repository *git;
	char *ref;
	struct repochain_turn *turns;
	size_t nturns;
	size_t *redo;
	size_t nredo;
};

/*
 * Point c (zeroed) at session's ref in git and replay what is recorded
 * there.  0 / -1 + e; free c with repochain_free either way.
 */
int repochain_load(struct repochain *c, git_repository *git, const char *session,
		   struct err *e);
/* Free what c owns; it is left zeroed. */
void repochain_free(struct repochain *c);

/* The last turn, or NULL when there is none. */
struct repochain_turn *repochain_last(struct repochain *c);
/*
 * Append *t (its scope is taken over; t->no is set) and record it as
 * "before": a previous turn without an after gets t's before tree; the
 * redo stack empties.  On -1 + e the chain is unchanged and t's scope freed.
 */
int repochain_begin(struct repochain *c, struct repochain_turn *t, struct err *e);
/* Record the last turn's before again (its tree or scope grew), replacing the tip. */
int repochain_rebegin(struct repochain *c, struct err *e);
/* Record "after" for t with tree and set it. */
int repochain_end(struct repochain *c, struct repochain_turn *t, const git_oid *tree,
		  struct err *e);
/* Record "undo" for turns[i], mark it undone and push it on the redo stack. */
int repochain_undone(struct repochain *c, size_t i, struct err *e);
/* Record "redo" for the turn on top of the redo stack (there must be one) and pop it. */
int repochain_redone(struct repochain *c, struct err *e);

#endif

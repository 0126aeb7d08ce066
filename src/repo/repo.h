/*
 * repo/repo: checkpoints of the working tree, undo/redo of agent turns, and the
 * session diff, through libgit2.
 *
 * A session keeps a chain of commits under the private ref
 * refs/hearth/checkpoints/<session>; each commit records one event, named
 * by the first line of its message: "hearth before N" (tree = the working
 * tree when turn N started changing files), "hearth after N" (tree = the
 * working tree when turn N ended), "hearth undo N", "hearth redo N".  The
 * turn list and the undo/redo stack are rebuilt from that chain on
 * repo_open, so another process (`hearth -c -p /undo`) can undo a turn.
 * The user's index file, HEAD, branches and stash are never written: the
 * snapshot tree is built in an in-memory copy of the user's index (read
 * only; its stat data tells libgit2's status which files need hashing), so
 * a locked index (index.lock) does not matter.  Objects are written to the
 * repository's object database, reachable only from the private ref.
 *
 * Outside a git work tree (or in a bare repository) the same chain lives
 * in a private bare repository STATE_DIR/checkpoints.git, and a snapshot
 * holds only the files registered with repo_note_file before they were
 * changed (their paths are kept in the "before" commit's message).  In a
 * work tree repo_note_file adds files .gitignore hides to the snapshot.
 *
 * Files over REPO_MAX_FILE, submodules and nested repositories are left
 * out of snapshots and named in the notes.  Restores are byte-exact
 * (no filters) and atomic per file (fs_write_atomic), keep the
 * executable bit of the snapshot, recreate symlinks, remove added files.
 */
#ifndef HEARTH_REPO_REPO_H
#define HEARTH_REPO_REPO_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define REPO_MAX_FILE ((size_t)64 * 1024 * 1024) /* larger files are not snapshotted */
#define REPO_DIFF_MAX ((size_t)5 * 1024 * 1024)  /* larger files are not diffed as text */

struct repo; /* opaque; repo_open / repo_close */

/* Flags of repo_undo / repo_redo. */
enum {
	REPO_DRY_RUN = 1, /* compute the diff and the report, change nothing */
	REPO_FORCE = 2    /* restore files changed by hand since the agent's edit too */
};

/* One file of a result: what changes (or changed) and by how many lines. */
struct repo_file {
	char *path;  /* relative to the work tree root ('/'-separated) */
	int status;  /* 'A' added, 'D' deleted, 'M' modified (content or mode) */
	int added, removed; /* lines; 0 for binary or large files */
	int binary;  /* binary or over REPO_DIFF_MAX: no text diff */
	int by_hand; /* repo_session_files: changed by hand since the agent's last change */
};

/* What an undo, redo or session diff did (or would do). */
struct repo_result {
	struct buf diff;   /* unified diff, current -> result, one file after another */
	struct buf notes;  /* one line per file left alone or skipped, and why */
	struct repo_file *files;
	size_t nfiles;
	int conflicts;     /* files left alone: changed by hand since the agent's edit */
	int turns;         /* turns undone / redone */
};

#define REPO_RESULT_INIT { BUF_INIT, BUF_INIT, NULL, 0, 0, 0 }

/*
 * Open the checkpoint store of `session` ([A-Za-z0-9._-]+) for the
 * workspace `root` (absolute).  Inside a git work tree it is the
 * repository around root (linked worktrees, detached HEAD and repositories
 * without commits are fine); otherwise (none, or bare) a private store in
 * state_dir (created on demand; NULL there is an error).  NULL + e.
 */
struct repo *repo_open(const char *root, const char *session, const char *state_dir,
		       struct err *e);
/* Free r; NULL is fine.  Does not end an open turn (see repo_turn_end). */
void repo_close(struct repo *r);
/* 1 when the checkpoints live in the user's repository, 0 for the private store. */
int repo_is_git(const struct repo *r);
/* Turns recorded in the session (undone ones included). */
int repo_turns(const struct repo *r);

/*
 * Start a turn: snapshot the working tree as "hearth before N".  Call it
 * before the first mutating tool call of each turn.  An open turn is ended
 * first.  Files that could not be snapshotted are named in notes (may be
 * NULL).  0 / -1 + e (e.g. the object database is read-only).
 */
int repo_checkpoint(struct repo *r, struct buf *notes, struct err *e);
/*
 * Register absolute path `abs` before a tool changes it: in the private
 * store this is what puts the file in the turn's snapshot; in a work tree
 * it adds ignored files.  Starts a turn when none is open.  Paths outside
 * the work tree are refused (-1 + e); a second call for a path is a no-op.
 */
int repo_note_file(struct repo *r, const char *abs, struct err *e);
/* End the open turn: snapshot "hearth after N" (no-op when none is open). */
int repo_turn_end(struct repo *r, struct err *e);
/*
 * The process is quitting without waiting for a snapshot still being
 * taken on another thread: from now on repo_checkpoint and repo_turn_end
 * write nothing to the chain (they fail with a note), and a write in
 * progress is waited for, so the ref is never left half-written (its lock
 * file behind).  A turn left without its after snapshot gets one when an
 * undo first needs it (the next start).  Safe from any thread; NULL ok.
 */
void repo_abandon(struct repo *r);

/*
 * Undo the last n (>= 1) turns that changed files: every file those turns
 * changed goes back to its content before the earliest of them.  A file
 * whose current content is not what the agent left is reported in
 * res->notes and left alone unless REPO_FORCE.  With REPO_DRY_RUN only res
 * is filled.  res must be REPO_RESULT_INIT; release it with
 * repo_result_release.  -1 + e when there is nothing to undo, or a file
 * cannot be written (checked before anything changes: then nothing is).
 */
int repo_undo(struct repo *r, int n, unsigned flags, struct repo_result *res, struct err *e);
/* Re-apply the turn undone last (the same rules as repo_undo, reversed). */
int repo_redo(struct repo *r, unsigned flags, struct repo_result *res, struct err *e);
/* The session's cumulative change: first checkpoint -> working tree. */
int repo_session_diff(struct repo *r, struct repo_result *res, struct err *e);
/*
 * The files the session's agent turns changed (undone turns not counted)
 * into agent (path, status, by_hand), and the files the session saw
 * change otherwise — by hand, between turns — into hand (path, status).
 * Only path, status and by_hand are filled.  0 / -1 + e.
 */
int repo_session_files(struct repo *r, struct repo_result *agent, struct repo_result *hand,
		       struct err *e);
/* The libgit2 repository behind r (NULL for the private store: not a git work tree). */
struct git_repository *repo_git(struct repo *r);
/* Free what res holds; it is left empty (REPO_RESULT_INIT). */
void repo_result_release(struct repo_result *res);

#endif

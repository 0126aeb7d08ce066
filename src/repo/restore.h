/*
 * repo/restore: computing and applying a restore of files from snapshot
 * trees to the working tree (the undo/redo engine behind repo/repo.h).
 *
 * A restore is a list of items, one per path: `target` is the state the
 * file goes back (or forward) to, `expect` the state the agent left it
 * in; `cur` is filled from disk by repo_restore_run.  A file whose current
 * state is not `expect` was changed by hand: it is reported and left
 * alone unless REPO_FORCE.  Before anything is written every file to
 * change is checked to be replaceable (not a directory now, its nearest
 * existing parent a writable directory that opens beneath the work tree:
 * no symlink on the way leading out), so a restore either fails with
 * nothing changed or writes every file (short of a write error midway:
 * removals go first, then the writes in path order).  A directory a turn
 * made where a file was, holding only files the restore removes, counts
 * as absent: it is emptied and pruned, and the file comes back.  Writes are byte-exact and atomic
 * per file (fs_write_atomic), keep the snapshot's executable bit,
 * recreate symlinks; removed files take their emptied parent directories
 * with them (up to the work tree root).
 */
#ifndef HEARTH_REPO_RESTORE_H
#define HEARTH_REPO_RESTORE_H

#include <stddef.h>

#include <git2.h>

#include "base/err.h"
#include "repo/repo.h"
#include "repo/snap.h"

/* One file of a restore. */
struct repo_restore_item {
	char *path; /* owned; relative to the work tree root */
	struct repo_snap_side expect, target, cur;
};

/* A restore; zero-initialised is empty; free with repo_restore_free. */
struct repo_restore {
	struct repo_restore_item *v;
	size_t n;
};

/* The item for path (appended, all sides absent, when new: then *fresh = 1). */
struct repo_restore_item *repo_restore_item(struct repo_restore *rs, const char *path,
					  int *fresh);
/*
 * Add the files that differ between the trees before and after, skipping
 * the '/'-prefixed (left-out) paths of scope.  undo: target = before's
 * state, else after's; expect is set only for new items (the other tree's
 * state), so collecting turns newest first expects the latest state and
 * targets the earliest.  0 / -1 + e.
 */
int repo_restore_collect(struct repo_restore *rs, const struct repo_snap *s,
			const git_oid *before, const git_oid *after,
			const struct repo_snap_scope *scope, int undo, struct err *e);
/*
 * Read each item's disk state, add the files that change to res (diff,
 * files, notes, conflicts) and, unless REPO_DRY_RUN in flags, write them.
 * -1 + e when a file cannot be replaced (nothing was changed) or a write
 * fails midway (the files before it were written).
 */
int repo_restore_run(struct repo_restore *rs, const struct repo_snap *s, unsigned flags,
		    struct repo_result *res, struct err *e);
/* Append the diff a -> b of path to res (a side is read from disk when its _disk is set). */
void repo_restore_diff(const struct repo_snap *s, const char *path,
		      const struct repo_snap_side *a, int a_disk,
		      const struct repo_snap_side *b, int b_disk, struct repo_result *res);
/* Free what rs holds; it is left empty. */
void repo_restore_free(struct repo_restore *rs);

#endif

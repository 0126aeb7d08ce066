/*
 * reporestore: computing and applying a restore of files from snapshot
 * trees to the working tree (the undo/redo engine behind repo.h).
 *
 * A restore is a list of items, one per path: `target` is the state the
 * file goes back (or forward) to, `expect` the state the agent left it
 * in; `cur` is filled from disk by reporestore_run.  A file whose current
 * state is not `expect` was changed by hand: it is reported and left
 * alone unless REPO_FORCE.  Before anything is written every file to
 * change is checked to be replaceable (not a directory now, its nearest
 * existing parent a writable directory), so a restore either fails with
 * nothing changed or writes every file.  Writes are byte-exact and atomic
 * per file (fsutil_write_atomic), keep the snapshot's executable bit,
 * recreate symlinks; removed files take their emptied parent directories
 * with them (up to the work tree root).
 */
#ifndef HEARTH_REPORESTORE_H
#define HEARTH_REPORESTORE_H

#include <stddef.h>

#include <git2.h>

#include "err.h"
#include "repo.h"
#include "reposnap.h"

/* One file of a restore. */
struct reporestore_item {
	char *path; /* owned; relative to the work tree root */
	struct reposnap_side expect, target, cur;
};

/* A restore; zero-initialised is empty; free with reporestore_free. */
struct reporestore {
	struct reporestore_item *v;
	size_t n;
};

/* The item for path (appended, all sides absent, when new: then *fresh = 1). */
struct reporestore_item *reporestore_item(struct reporestore *rs, const char *path,
					  int *fresh);
/*
 * Add the files that differ between the trees before and after, skipping
 * the '/'-prefixed (left-out) paths of scope.  undo: target = before's
 * state, else after's; expect is set only for new items (the other tree's
 * state), so collecting turns newest first expects the latest state and
 * targets the earliest.  0 / -1 + e.
 */
int reporestore_collect(struct reporestore *rs, const struct reposnap *s,
			const git_oid *before, const git_oid *after,
			const struct reposnap_scope *scope, int undo, struct err *e);
/*
 * Read each item's disk state, add the files that change to res (diff,
 * files, notes, conflicts) and, unless REPO_DRY_RUN in flags, write them.
 * -1 + e when a file cannot be replaced (nothing was changed) or a write
 * fails midway (the files before it were written).
 */
int reporestore_run(struct reporestore *rs, const struct reposnap *s, unsigned flags,
		    struct repo_result *res, struct err *e);
/* Append the diff a -> b of path to res (a side is read from disk when its _disk is set). */
void reporestore_diff(const struct reposnap *s, const char *path,
		      const struct reposnap_side *a, int a_disk,
		      const struct reposnap_side *b, int b_disk, struct repo_result *res);
/* Free what rs holds; it is left empty. */
void reporestore_free(struct reporestore *rs);

#endif

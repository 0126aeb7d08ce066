/*
 * repo/snap: the object store behind repo (repo/repo.h) and snapshots of the
 * working tree as git tree objects.
 *
 * A store is either the git repository around the workspace (the work
 * tree must not be bare) or, outside one, the private bare repository
 * STATE_DIR/checkpoints.git (fallback).  workdir is the absolute work tree
 * root ending with '/'; every other path here is relative to it and
 * '/'-separated.
 *
 * A snapshot is built without writing the user's index.  The fast way
 * (a work tree whose index has no conflicts or intent-to-add entries;
 * submodules are left out of it) starts from `base`, the
 * tree of the user's index, made once and kept while the index file's
 * size, inode and mtime stay the same; libgit2's status names the paths
 * that differ from the index on disk and git_tree_create_updated applies
 * them (and the scope paths) to base.  Otherwise (and when that fails) it
 * is built in a private in-memory index, never written back:
 * in a work tree the user's index file read into a standalone git_index,
 * whose stat data lets libgit2's status name the files to hash again
 * (every file when a content filter could apply); in the private store
 * it starts empty.  Then the scope paths are added from disk.  Blobs are
 * written raw (byte-exact, no filters).  Paths that cannot be snapshotted
 * (directories, nested repositories, unreadable, over REPO_MAX_FILE) are
 * left out, named in the notes and recorded in `skips` with a leading '/'
 * (no work-tree path starts with one).
 *
 * A scope is a list of distinct paths (xmalloc'd strings, owned by it).
 * Errors from libgit2 become "<what>: <libgit2 message>".
 */
#ifndef HEARTH_REPO_SNAP_H
#define HEARTH_REPO_SNAP_H

#include <stddef.h>

#include <git2.h>

#include "base/buf.h"
#include "base/err.h"

/* The store: owns git and workdir (repo_snap_close frees both). */
struct repo_snap {
	git_repository *git;
	int fallback;  /* 1: the private store, snapshots hold scope paths only */
	char *workdir; /* absolute, ends with '/' */
	int base_ok;   /* base is the tree of the user's index file as stamped in base_st */
	git_oid base;
	long long base_st[4]; /* the index file's size, inode, mtime s and ns */
	int filters;   /* with base_ok: content filters apply in this repository */
	struct repo_snap_scope *subs; /* with base_ok: the submodules (gitlinks) of the index,
				       * left out of base and named in every snapshot's notes */
	struct repo_snap_scope *raw; /* with base_ok: the paths whose disk bytes differ
				      * from their index blob by attributes (eol=crlf,
				      * ident, filter, working-tree-encoding): hashed
				      * from disk at every snapshot */
};

/* One file state, in a tree or on disk. */
struct repo_snap_side {
	int present;   /* 0: no such file (id and mode are zero) */
	git_oid id;    /* blob id of the content */
	unsigned mode; /* GIT_FILEMODE_BLOB, _BLOB_EXECUTABLE or _LINK */
};

/* A set of paths; zero-initialised is empty; free with repo_snap_scope_free. */
struct repo_snap_scope {
	char **paths;
	size_t n;
};

/* Set e from libgit2's last error, prefixed by what failed; returns -1. */
int repo_snap_gerr(struct err *e, const char *what);

/*
 * Open the store for the workspace root (absolute): the repository around
 * root when it has a work tree, else state_dir/checkpoints.git (created on
 * demand; NULL or "" state_dir is an error).  0 / -1 + e; on -1 s may hold
 * parts: repo_snap_close it anyway.  s must be zeroed.
 */
int repo_snap_open(struct repo_snap *s, const char *root, const char *state_dir,
		  struct err *e);
/* Free what s holds; it is left zeroed. */
void repo_snap_close(struct repo_snap *s);

/* Add path to sc unless present: 1 when added, 0 when it was there. */
int repo_snap_scope_add(struct repo_snap_scope *sc, const char *path);
/* Whether sc has path. */
int repo_snap_scope_has(const struct repo_snap_scope *sc, const char *path);
/* Free the paths of sc; it is left empty. */
void repo_snap_scope_free(struct repo_snap_scope *sc);

/* workdir + rel into out (reset first). */
void repo_snap_abs(const struct repo_snap *s, const char *rel, struct buf *out);
/*
 * The state of rel on disk into side, its content appended to data when
 * given.  A missing path is not present (0).  -1 for what cannot be a
 * snapshot entry: a directory, a device, a file over REPO_MAX_FILE, an
 * unreadable file.
 */
int repo_snap_disk(const struct repo_snap *s, const char *rel, struct repo_snap_side *side,
		  struct buf *data);
/* The state of path in the tree tree_id (not present when it is not a blob there). */
void repo_snap_tree_side(const struct repo_snap *s, const git_oid *tree_id, const char *path,
			struct repo_snap_side *side);
/* Two file states are the same (presence, content and kind/exec bit). */
int repo_snap_side_eq(const struct repo_snap_side *a, const struct repo_snap_side *b);
/* Append the content of a present side from the object database to out; -1 if unreadable. */
int repo_snap_side_data(const struct repo_snap *s, const struct repo_snap_side *side,
		       struct buf *out);

/*
 * Snapshot the working tree (in a work tree) plus the scope paths not
 * starting with '/' (scope may be NULL) into the tree *tree.  Left-out
 * paths go to notes (may be NULL) and, with a '/' prefix, to skips (may
 * be NULL).  0 / -1 + e (the object database is read-only, say).
 */
int repo_snap_tree(struct repo_snap *s, const struct repo_snap_scope *scope,
		  struct repo_snap_scope *skips, git_oid *tree, struct buf *notes,
		  struct err *e);
/*
 * Replace *tree by a copy with rel's current disk state added (removed
 * when it is gone; left out, and recorded in skips, when it cannot be
 * snapshotted).  0 / -1 + e.
 */
int repo_snap_add(struct repo_snap *s, git_oid *tree, const char *rel,
		 struct repo_snap_scope *skips, struct err *e);

#endif

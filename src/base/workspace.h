/*
 * base/workspace: workspace paths.  Every path a model tool receives goes through
 * workspace_resolve, which turns it into an absolute, canonical path and refuses
 * anything outside the workspace root (unless the settings allow it).
 *
 * Canonical means: the longest existing prefix is resolved by realpath(3)
 * (so a symlink that points outside the root is caught), and the part that
 * does not exist yet is appended lexically with "." and ".." applied.
 * Roots are absolute; a root that realpath cannot resolve is used as given.
 */
#ifndef HEARTH_BASE_WORKSPACE_H
#define HEARTH_BASE_WORKSPACE_H

#include "base/buf.h"
#include "base/err.h"

/*
 * Resolve `path` (relative to root, absolute, or "~/..."; NULL or "" is
 * the root itself) into `out` (reset first).  Returns 0, or -1 with e set:
 * 'path "X" is outside the workspace ROOT; use a path inside it' when it
 * escapes and allow_outside is 0, or a resolution error.
 */
int workspace_resolve(const char *root, int allow_outside, const char *path, struct buf *out,
	       struct err *e);

/*
 * Whether canonical absolute `abs` is the root or below it.  Both are
 * compared as given (callers pass workspace_resolve output and a canonical root).
 */
int workspace_inside(const char *root, const char *abs);

/*
 * `abs` for display: the part after "ROOT/" when inside root, "." for the
 * root itself, else abs unchanged.  Returns a pointer into abs (or ".").
 */
const char *workspace_rel(const char *root, const char *abs);

#endif

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

#include <sys/types.h>

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
 * Project discovery (docs/configuration.md, "Where hearth looks").  The
 * project's top is the nearest directory from cwd upwards that holds a
 * .git (directory or file): the repository root; cwd itself when there
 * is none.  workspace_project_top appends it to out.
 * workspace_project_file appends to out the path of the project file rel
 * (".hearth/settings.json", ".mcp.json"): the nearest existing one from
 * cwd up to the top, else cwd/rel (which does not exist).  cwd is
 * absolute and canonical; a few stat(2) calls, no other I/O.
 */
void workspace_project_top(const char *cwd, struct buf *out);
void workspace_project_file(const char *cwd, const char *rel, struct buf *out);

/*
 * `abs` for display: the part after "ROOT/" when inside root, "." for the
 * root itself, else abs unchanged.  Returns a pointer into abs (or ".").
 */
const char *workspace_rel(const char *root, const char *abs);

/*
 * Beneath-open: the check that a path is inside the workspace and the open
 * are one operation, so a directory swapped for a symlink between a tool's
 * check and its write cannot send the write elsewhere.
 *
 * `rel` is resolved from the directory fd `rootfd` by openat2(2) with
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS where the kernel has it (Linux
 * 5.6+; ENOSYS is detected once), else -- and whenever openat2 refuses, to
 * give the definite answer -- by a walk from rootfd that opens each
 * directory component with O_NOFOLLOW | O_DIRECTORY and the last one with
 * O_NOFOLLOW.  A symlink met on the way is followed only while it stays
 * beneath the root: a relative one from where it lies, an absolute one when
 * it names `root_path` or a path below it; "..", an absolute path or a link
 * that leads out fails with EXDEV.  Magic links (/proc/PID/fd/N) are never
 * followed.  flags/mode are open(2)'s; with O_NOFOLLOW in flags a symlink as
 * the last component is not followed (ELOOP); with O_CREAT | O_EXCL the last
 * component is created, never followed.
 *
 * workspace_openat: `root_path` is rootfd's canonical absolute path (for
 * absolute symlinks; NULL: absolute symlinks fail with EXDEV).  Returns a
 * new fd (O_CLOEXEC, the caller closes it), or -1 with errno: EXDEV (leaves
 * the root), ELOOP (more than 40 symlinks, or O_NOFOLLOW on a link), or
 * whatever openat(2)/mkdirat(2) said.
 */
int workspace_openat(int rootfd, const char *root_path, const char *rel, int flags, mode_t mode);

/*
 * Like workspace_openat for a directory (O_RDONLY | O_DIRECTORY), creating
 * the missing components (mkdir -p, mode 0777 minus umask) with mkdirat(2)
 * on the walked fds when `create` is set.  New fd or -1 + errno (ENOTDIR:
 * a component is a file).
 */
int workspace_opendirat(int rootfd, const char *root_path, const char *rel, int create);

/*
 * The tools' entry points: `abs` is a workspace_resolve result.  When abs is
 * inside `root` (canonical, absolute) it is opened beneath root as above;
 * otherwise (allow_outside_workspace, after the gate asked) beneath "/", so
 * symlinks resolve as usual.  Returns a new fd, or -1 with e set to one
 * line: for an escape 'PATH: a symlink on the way leads outside the
 * workspace ROOT; use the path it points to (outside paths need
 * allow_outside_workspace)'; else "open PATH: strerror" with e->code =
 * errno.  errno is kept for the caller.
 */
int workspace_open(const char *root, const char *abs, int flags, mode_t mode, struct err *e);

/* The directory abs beneath root (or "/"), created with its parents when `create`.  fd or -1 + e. */
int workspace_opendir(const char *root, const char *abs, int create, struct err *e);

/*
 * For tests: 1 makes every beneath-open use the component walk, as on a
 * kernel without openat2; 0 goes back to detecting.  Not thread-safe; set
 * it before any open.
 */
void workspace_beneath_force_walk(int on);

#endif

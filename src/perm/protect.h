/*
 * perm/protect: the paths whose change raises hearth's rights or runs
 * code, so that a write to them asks in every approval mode but yolo
 * (docs/permissions.md, "Protected paths").
 *
 *  - inside the workspace: any path with a component named ".git" (the
 *    repository's config and hooks, a submodule's .git file or dir, at any
 *    depth) or ".hearth" (settings, hooks), and any file named ".mcp.json"
 *    (the MCP servers hearth starts), at any depth: hearth run in that
 *    subdirectory would read them;
 *  - the same names above the workspace up to the repository root
 *    (workspace_project_top): run in a subdirectory, hearth finds the
 *    project's .hearth/settings.json and .mcp.json up there;
 *  - hearth's user config dirs: $XDG_CONFIG_HOME/hearth and
 *    ~/.config/hearth (settings, hooks, mcp.json, themes, memory);
 *  - hearth's state dir ($XDG_STATE_HOME/hearth or ~/.local/state/hearth:
 *    the trust file, sessions, checkpoints) and cache dir
 *    ($XDG_CACHE_HOME/hearth or ~/.cache/hearth: the repo-map cache).
 *
 * Names compare without case (".GIT/config" is protected: on a
 * case-insensitive file system it is .git/config).  Paths are classified
 * after workspace_resolve (".", "..", "//", trailing slashes and existing
 * symlinks resolved); a final component that is a symlink whose target
 * does not exist yet is followed (up to 8 links), since a write through it
 * creates the target.
 */
#ifndef HEARTH_PERM_PROTECT_H
#define HEARTH_PERM_PROTECT_H

#include "base/buf.h"

enum perm_protect_kind {
	PERM_PROTECT_NONE = 0,
	PERM_PROTECT_GIT,    /* a .git component inside the workspace */
	PERM_PROTECT_HEARTH, /* a .hearth component inside the workspace */
	PERM_PROTECT_MCP,    /* a .mcp.json file inside the workspace */
	PERM_PROTECT_CONFIG, /* hearth's user config dir */
	PERM_PROTECT_STATE   /* hearth's state dir */
};

/* The kind of canonical absolute path abs for workspace root (canonical). */
enum perm_protect_kind perm_protect_classify(const char *root, const char *abs);
/*
 * Resolve path as a tool names it (relative to root, absolute, "~/...")
 * and classify it, following dangling final symlinks; abs gets the
 * protected path (or the resolved one when none is).  Never fails: an
 * unresolvable path is classified as written.
 */
enum perm_protect_kind perm_protect_path(const char *root, const char *path, struct buf *abs);
/* One line for the question: what the kind holds and why it matters. */
const char *perm_protect_why(enum perm_protect_kind k);
/*
 * Whether an allow rule's pattern names a protected path of kind k
 * explicitly (contains ".git", ".hearth", ".mcp.json", or "hearth" for
 * the config and state dirs, without case): only such rules cover it.
 */
int perm_protect_named(enum perm_protect_kind k, const char *pattern);

#endif

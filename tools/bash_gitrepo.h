/*
 * tools/bash_gitrepo: can git, run from a directory, execute a program
 * that the repository names?  The bash tool counts read-only git commands
 * (tools/bash_readonly.h) as safe only when it cannot.
 *
 * The repository is the one git would use from root: $GIT_DIR when set;
 * else, from root upwards, every directory git could take for a git
 * directory (one with HEAD: a bare repository) up to and including the
 * first .git (a directory, or a file "gitdir: ...").  For each, and for
 * a linked worktree's common directory:
 *  - every key of its config files (config, config.worktree) must be in a
 *    short list of inert keys (no core.fsmonitor, core.pager,
 *    diff.external, textconv and filter drivers, hooksPath, include, ...);
 *    the parse follows git's, and what it cannot follow counts as unsafe;
 *  - no post-index-change or reference-transaction hook exists (read
 *    commands trigger them);
 *  - no submodules (modules/ or .gitmodules: git status runs git in them).
 * Files are read with lstat and at most 1 MB; a symlink or an unreadable
 * file is never guessed about: it makes the repository unsafe.
 */
#ifndef HEARTH_TOOLS_BASH_GITREPO_H
#define HEARTH_TOOLS_BASH_GITREPO_H

#include "base/buf.h"

/*
 * 1 when git run in root (an absolute directory) cannot run a program
 * named by the repository; 0 when it can or that cannot be told, with one
 * reason (naming the file and key or hook) appended to why (may be NULL).
 * Reads files only; allocates nothing the caller frees.
 */
int tool_bash_gitrepo_inert(const char *root, struct buf *why);

#endif

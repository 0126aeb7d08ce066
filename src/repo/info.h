/*
 * repo/info: a one-shot summary of the git repository around a workspace,
 * for the system prompt (computed once at session start, so the prompt
 * prefix stays stable) and the status line (refreshed after each turn).
 *
 * repo_info_read opens the repository with libgit2 (initialised on first
 * use), reads HEAD, the upstream of the current branch with ahead/behind
 * counts, and a status summary: counts of modified/added/deleted/renamed,
 * conflicted and untracked entries plus the first REPO_INFO_MAX_PATHS paths.
 * It never writes anything: status runs without GIT_STATUS_OPT_UPDATE_INDEX
 * (the index file is only read, so index.lock does not matter), untracked
 * directories are reported as one entry without recursing into them, and
 * submodules are not opened, so it stays fast on big repositories.
 *
 * A struct repo_info owns its strings; release it with repo_info_release.
 */
#ifndef HEARTH_REPO_INFO_H
#define HEARTH_REPO_INFO_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define REPO_INFO_MAX_PATHS 10

enum repo_info_state {
	REPO_INFO_NONE,     /* not inside a git repository */
	REPO_INFO_BRANCH,   /* on a branch with commits */
	REPO_INFO_UNBORN,   /* on a branch with no commits yet */
	REPO_INFO_DETACHED, /* HEAD detached at a commit */
	REPO_INFO_BARE      /* a bare repository (no work tree, no status) */
};

struct repo_info_path {
	char code;  /* 'M' modified, 'A' added, 'D' deleted, 'R' renamed, 'U' conflict, '?' untracked */
	char *path; /* relative to the work tree */
};

struct repo_info {
	enum repo_info_state state;
	char *branch;     /* branch name (BRANCH, UNBORN, BARE on a branch), else NULL */
	char head[16];    /* short sha of HEAD ("" when there is no commit) */
	char *upstream;   /* "origin/main", or NULL when the branch has none */
	size_t ahead, behind;
	int worktree;     /* a linked worktree */
	int status_ok;    /* the counts below were computed */
	size_t modified, added, deleted, renamed, conflicted, untracked;
	struct repo_info_path paths[REPO_INFO_MAX_PATHS]; /* changed first, then untracked */
	size_t npaths;
};

#define REPO_INFO_INIT { REPO_INFO_NONE, NULL, "", NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
	{ { 0, NULL } }, 0 }

/*
 * Fill gi (which must be REPO_INFO_INIT or released) for the repository
 * around `root` (absolute).  Not being in a repository is not an error
 * (state REPO_INFO_NONE).  -1 + e only when the repository exists but cannot
 * be read (corrupt HEAD, ...); gi then holds what was found before.
 */
int repo_info_read(const char *root, struct repo_info *gi, struct err *e);
/* Free gi's strings; it is left as REPO_INFO_INIT. */
void repo_info_release(struct repo_info *gi);

/*
 * One paragraph for the system prompt, appended to out, e.g.
 * "Git: on branch main, 2 ahead of origin/main; 3 files changed (M src/a.c,
 * A src/b.c, D old.c), 1 untracked (notes.txt)."  Nothing for REPO_INFO_NONE.
 */
void repo_info_prompt(const struct repo_info *gi, struct buf *out);
/*
 * The compact form for a status line, appended to out: "main ↑2 ↓1 ✚3 ?1",
 * "@1a2b3c4 ✚1" when detached, "main ∅" with no commits, "bare" for a
 * bare repository, nothing outside a repository.  UTF-8.
 */
void repo_info_status(const struct repo_info *gi, struct buf *out);

#endif

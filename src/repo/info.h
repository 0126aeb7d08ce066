/*
 * gitinfo: a one-shot summary of the git repository around a workspace,
 * for the system prompt (computed once at session start, so the prompt
 * prefix stays stable) and the status line (refreshed after each turn).
 *
 * gitinfo_read opens the repository with libgit2 (initialised on first
 * use), reads HEAD, the upstream of the current branch with ahead/behind
 * counts, and a status summary: counts of modified/added/deleted/renamed,
 * conflicted and untracked entries plus the first GITINFO_MAX_PATHS paths.
 * It never writes anything: status runs without GIT_STATUS_OPT_UPDATE_INDEX
 * (the index file is only read, so index.lock does not matter), untracked
 * directories are reported as one entry without recursing into them, and
 * submodules are not opened, so it stays fast on big repositories.
 *
 * A struct gitinfo owns its strings; release it with gitinfo_release.
 */
#ifndef HEARTH_GITINFO_H
#define HEARTH_GITINFO_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

#define GITINFO_MAX_PATHS 10

enum gitinfo_state {
	GITINFO_NONE,     /* not inside a git repository */
	GITINFO_BRANCH,   /* on a branch with commits */
	GITINFO_UNBORN,   /* on a branch with no commits yet */
	GITINFO_DETACHED, /* HEAD detached at a commit */
	GITINFO_BARE      /* a bare repository (no work tree, no status) */
};

struct gitinfo_path {
	char code;  /* 'M' modified, 'A' added, 'D' deleted, 'R' renamed, 'U' conflict, '?' untracked */
	char *path; /* relative to the work tree */
};

struct gitinfo {
	enum gitinfo_state state;
	char *branch;     /* branch name (BRANCH, UNBORN, BARE on a branch), else NULL */
	char head[16];    /* short sha of HEAD ("" when there is no commit) */
	char *upstream;   /* "origin/main", or NULL when the branch has none */
	size_t ahead, behind;
	int worktree;     /* a linked worktree */
	int status_ok;    /* the counts below were computed */
	size_t modified, added, deleted, renamed, conflicted, untracked;
	struct gitinfo_path paths[GITINFO_MAX_PATHS]; /* changed first, then untracked */
	size_t npaths;
};

#define GITINFO_INIT { GITINFO_NONE, NULL, "", NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
	{ { 0, NULL } }, 0 }

/*
 * Fill gi (which must be GITINFO_INIT or released) for the repository
 * around `root` (absolute).  Not being in a repository is not an error
 * (state GITINFO_NONE).  -1 + e only when the repository exists but cannot
 * be read (corrupt HEAD, ...); gi then holds what was found before.
 */
int gitinfo_read(const char *root, struct gitinfo *gi, struct err *e);
/* Free gi's strings; it is left as GITINFO_INIT. */
void gitinfo_release(struct gitinfo *gi);

/*
 * One paragraph for the system prompt, appended to out, e.g.
 * "Git: on branch main, 2 ahead of origin/main; 3 files changed (M src/a.c,
 * A src/b.c, D old.c), 1 untracked (notes.txt)."  Nothing for GITINFO_NONE.
 */
void gitinfo_prompt(const struct gitinfo *gi, struct buf *out);
/*
 * The compact form for a status line, appended to out: "main ↑2 ↓1 ✚3 ?1",
 * "@1a2b3c4 ✚1" when detached, "main ∅" with no commits, "bare" for a
 * bare repository, nothing outside a repository.  UTF-8.
 */
void gitinfo_status(const struct gitinfo *gi, struct buf *out);

#endif

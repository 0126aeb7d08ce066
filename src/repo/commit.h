/*
 * repo/commit: committing a chosen set of working-tree files with libgit2
 * (what /commit does once it knows the session's files).
 *
 * A plan is computed first and changes nothing the user sees: its tree is
 * HEAD's tree with the chosen paths set to their current disk content
 * (filters applied, as `git add` would; a path gone from disk is removed),
 * so other changes — staged or not — are never part of the commit (the
 * `git commit --only <paths>` rule).  `files` and `diff` describe HEAD →
 * tree.  Committing writes the commit on HEAD (the branch it names, a
 * detached HEAD, or an unborn branch) only if HEAD has not moved since
 * the plan, then stages exactly the plan's paths in the user's index so
 * `git status` agrees with the new commit; every other index entry stays.
 *
 * libgit2 runs no git hooks: the plan notes the hooks it finds (pre-commit,
 * prepare-commit-msg, commit-msg) so the user knows they were not run
 * (docs/git.md says why).  Errors: one lowercase line in e.
 */
#ifndef HEARTH_REPO_COMMIT_H
#define HEARTH_REPO_COMMIT_H

#include <stddef.h>

#include <git2.h>

#include "base/buf.h"
#include "base/err.h"

#define REPO_COMMIT_DIFF_MAX ((size_t)12000) /* bytes of diff kept in a plan (the model's prompt) */
#define REPO_COMMIT_SUMMARY_MAX 72           /* characters of a message's first line */

/* One file the commit changes. */
struct repo_commit_file {
	char *path;
	int status;         /* 'A', 'D', 'M' (content or mode) */
	int added, removed; /* lines; 0 for binary files */
};

/* A commit ready to be made; zero-initialised is empty. */
struct repo_commit_plan {
	git_oid tree;   /* the commit's tree */
	git_oid head;   /* HEAD's commit when planned (zero when unborn) */
	int unborn;     /* HEAD names a branch with no commit yet */
	struct repo_commit_file *files;
	size_t nfiles;  /* 0: the paths do not differ from HEAD */
	struct buf diff;  /* unified diff HEAD → tree, cut at REPO_COMMIT_DIFF_MAX */
	struct buf stat;  /* one " path | +a -r" line per file */
	struct buf notes; /* paths left out, hooks not run */
};

/*
 * Plan a commit of paths (relative to the work tree, '/'-separated) in git.
 * Paths that are directories or submodules are left out with a note.
 * -1 + e when git has no work tree, a merge or rebase is in progress, or
 * libgit2 fails.  Free p with repo_commit_plan_free either way.
 */
int repo_commit_plan(git_repository *git, const char *const *paths, size_t n,
		   struct repo_commit_plan *p, struct err *e);
/*
 * Commit p with message (cleaned up as git does; must not be empty) as the
 * user's git identity (user.name / user.email, or GIT_AUTHOR_* /
 * GIT_COMMITTER_* from the environment), then stage p's paths.  The id
 * goes to out (may be NULL).  -1 + e, with nothing changed, when the
 * identity is missing, the index is locked (index.lock) or has conflicts,
 * or HEAD moved since the plan; when only the index update fails the
 * commit stands and e says how to resync the index.
 */
int repo_commit_commit(git_repository *git, const struct repo_commit_plan *p, const char *message,
		     git_oid *out, struct err *e);
/* Free what p holds; it is left zeroed. */
void repo_commit_plan_free(struct repo_commit_plan *p);

/*
 * Clean up a message a model drafted into out: drop a <think> block,
 * code fences, a "Commit message:" label, blank edges and control bytes
 * (tabs and newlines stay), and wrap a
 * first line over REPO_COMMIT_SUMMARY_MAX characters at a word (the rest
 * starts the body).  out is empty when nothing is left.
 */
void repo_commit_tidy_message(const char *text, struct buf *out);

#endif

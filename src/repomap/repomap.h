/*
 * repomap/repomap: a ranked map of the definitions across a repository, for the
 * repo_map tool.
 *
 * The files under the root (fs_walk: .git and .gitignore'd entries
 * skipped) whose language has a tags query are parsed with tree-sitter;
 * each gives its definitions (@definition.* captures with their @name:
 * line and the trimmed source line as signature) and the set of
 * identifiers it uses (every identifier in its text that is not one of its
 * own definition names: a lexical scan, which also covers languages whose
 * tags.scm has no @reference captures, such as C; see repomap/extract.h).  A definition's score is
 * the number of OTHER files that use its name; a file's score is the sum
 * over its definitions.  Files are printed most important first, as
 * "path:\n  line  signature" blocks (definitions in line order), until
 * the byte budget (4 bytes per token) is spent: the first file that does
 * not fit ends the map, so the order stays the rank order (a first file
 * alone over the budget is shown in part); a final note says what was left
 * out.
 *
 * What a file yields is cached for the life of the process, compactly
 * (interned names, offsets; repomap/store.h's encoding, no text: a
 * signature is read back from its file when printed), keyed by the
 * absolute path and validated by (mtime, size); entries of files no longer
 * seen are dropped after each build, and the cache holds one root (a
 * build of another root starts from empty).  The first build of a root in
 * a process loads its disk cache (repomap/store.h), so a file unchanged
 * since is a stat, not a read.  A build that parsed a file or dropped one
 * rewrites the disk cache; a build in which nothing changed reuses the
 * previous ranking.  The files to parse are parsed by the calling thread
 * and helpers (one thread per online core, at most 8, or
 * repomap_set_threads), which start and end within repomap_build; the
 * output does not depend on their number.  repomap_cache_free releases the
 * cache and the compiled queries (for leak checkers).  Files over
 * CODE_MAX_BYTES (5 MB), binary files and minified or generated ones (over
 * 4 KB with lines averaging over 300 bytes) are skipped and counted.  Not
 * thread-safe: the cache is shared unlocked, so in hearth every repomap_*
 * call runs on the worker thread (io/work.h; the repo_map tool), or while
 * no worker job is queued or running (unit tests, the bench,
 * repomap_cache_free after work_shutdown at exit).  repomap_build runs
 * nothing on the loop and logs nothing; on the worker it gives up (-1,
 * files not parsed yet are not cached, nothing saved) when work_stopping.
 */
#ifndef HEARTH_REPOMAP_REPOMAP_H
#define HEARTH_REPOMAP_REPOMAP_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define REPOMAP_DEFAULT_TOKENS 2000
#define REPOMAP_MIN_TOKENS 100
#define REPOMAP_MAX_TOKENS 16000
#define REPOMAP_BYTES_PER_TOKEN 4

/* Counters since the process started (or the last repomap_cache_free). */
struct repomap_stats {
	size_t hits;    /* files answered from the cache */
	size_t misses;  /* files read and parsed */
	size_t disk;    /* files answered from the disk cache (repomap/store.h) */
	size_t cached;  /* entries now in the cache */
	size_t bytes;   /* heap bytes the cache holds (entries, names, tables) */
	size_t threads; /* threads that parsed in the last build that parsed a file */
};

/*
 * Append the map of the tree at `root` (absolute, canonical) to out, cut
 * to `tokens` (clamped to REPOMAP_MIN_TOKENS..REPOMAP_MAX_TOKENS).  0, or
 * -1 + e when root cannot be walked.
 */
int repomap_build(const char *root, size_t tokens, struct buf *out, struct err *e);
/* The cache counters. */
void repomap_stats(struct repomap_stats *st);
/* Parse on n threads (0: one per online core, the default; at most 8). */
void repomap_set_threads(unsigned n);
/*
 * Free the cache and the compiled queries (a deferred save is written
 * first); counters back to zero (the thread and defer settings stay).
 */
void repomap_cache_free(void);
/*
 * With on, a build no longer writes the disk cache before it returns (a
 * tenth of a cold build's time at 30,000 files): it stays pending until
 * repomap_flush, the next build of another root, or repomap_cache_free.
 * For a caller that answers first and saves after (the repo_map tool:
 * a job on the same worker thread right after the build's).  A pending
 * save lost (the process ends first) costs a new process a reparse.
 */
void repomap_defer_save(int on);
/* Write the pending disk cache, if any (the thread that builds; never beside a build). */
void repomap_flush(void);

#endif

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
 * What a file yields is cached for the life of the process, keyed by the
 * absolute path and validated by (mtime, size); entries of files no longer
 * seen are dropped after each build.  A build that parsed a file or dropped
 * one also writes its entries to the disk cache (repomap/store.h), which a later
 * process uses for the files unchanged since (a memory miss consults it
 * before parsing).  repomap_cache_free releases the cache
 * and the compiled queries (for leak checkers).  Files over CODE_MAX_BYTES
 * (5 MB), binary files and minified or generated ones (over 4 KB with
 * lines averaging over 300 bytes) are skipped and counted.  Not
 * thread-safe: the cache and repomap_extract's compiled queries are shared
 * unlocked, so in hearth every repomap_* call runs on the worker thread
 * (io/work.h; the repo_map tool), or while no worker job is queued or running
 * (unit tests, the bench, repomap_cache_free after work_shutdown at exit).
 * repomap_build runs nothing on the loop and logs nothing; on the worker
 * it gives up (-1, the cache unpruned and not saved) when work_stopping.
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
};

/*
 * Append the map of the tree at `root` (absolute, canonical) to out, cut
 * to `tokens` (clamped to REPOMAP_MIN_TOKENS..REPOMAP_MAX_TOKENS).  0, or
 * -1 + e when root cannot be walked.
 */
int repomap_build(const char *root, size_t tokens, struct buf *out, struct err *e);
/* The cache counters. */
void repomap_stats(struct repomap_stats *st);
/* Free the cache and the compiled queries; counters back to zero. */
void repomap_cache_free(void);

#endif

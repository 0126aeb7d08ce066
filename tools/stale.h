/*
 * tools/stale: the stale-write guard.  Remembers, per absolute path, what the
 * agent last saw of a file (size, mtime in ns, inode and a 64-bit FNV-1a
 * hash of the content) when it read it (read, whole or partial) or wrote it
 * (edit, write).  edit and write ask tool_stale_check before changing a file and
 * refuse when the file changed on disk since then, so a change by the user
 * or another process is never overwritten by a model working from old text.
 *
 * Rules (the same as Claude Code's):
 *  - a file that does not exist may be created by write;
 *  - an existing file the agent never read (nor wrote) may not be edited
 *    or overwritten: the model is told to read it first;
 *  - a file whose content differs from what the agent last saw is refused
 *    (the content hash decides: equal mtime does not excuse a new content,
 *    and a touched or replaced file with the same bytes is fine).
 *
 * The table is owned by the caller (one per session) and reached through
 * struct tool_env's `stale`; NULL there means no guard.  Not thread-safe.
 */
#ifndef HEARTH_TOOLS_STALE_H
#define HEARTH_TOOLS_STALE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/err.h"

#define TOOL_STALE_HASH_INIT UINT64_C(0xcbf29ce484222325) /* FNV-1a offset basis */

struct tool_stale; /* opaque; tool_stale_new / tool_stale_free */

/* A new, empty table (never NULL: allocation failure is fatal). */
struct tool_stale *tool_stale_new(void);
/* Free s and every record; NULL is fine. */
void tool_stale_free(struct tool_stale *s);
/* Records held (for tests). */
size_t tool_stale_count(const struct tool_stale *s);

/* Continue a content hash over n more bytes (start from TOOL_STALE_HASH_INIT). */
uint64_t tool_stale_hash(uint64_t h, const void *p, size_t n);

/*
 * Record that the agent has seen `abs` with stat st and content hash h
 * (read.c hashes the bytes as it streams them).  s may be NULL (no-op).
 */
void tool_stale_seen(struct tool_stale *s, const char *abs, const struct stat *st, uint64_t h);
/*
 * Record that the agent has just written n bytes `data` to `abs`: the file
 * is stat'ed again for its new size, mtime and inode.  s may be NULL.
 */
void tool_stale_wrote(struct tool_stale *s, const char *abs, const void *data, size_t n);
/* Drop the record of abs (e.g. the file was deleted); s may be NULL. */
void tool_stale_forget(struct tool_stale *s, const char *abs);

/*
 * Before changing `abs` (shown to the model as `rel`): 0 when the change may
 * go ahead (s NULL, file missing, or unchanged since the agent's last read
 * or write); -1 + e with the line for the model otherwise.  `verb` names
 * the change for the message ("editing", "overwriting").  A file that cannot be
 * read for hashing is let through (the tool's own read then reports it).
 */
int tool_stale_check(struct tool_stale *s, const char *abs, const char *rel, const char *verb,
		struct err *e);

#endif

/*
 * repomap/store: the on-disk cache of what repomap extracts from each file, so a
 * new process maps an unchanged repository without parsing it again.
 *
 * Where: $XDG_CACHE_HOME/hearth/repomap/<16 hex digits of the root's
 * FNV-1a hash>.bin ($XDG_CACHE_HOME defaults to ~/.cache; neither set: no
 * disk cache).  A cache: deleting it costs one reparse, nothing else.  One file per root, replaced whole and atomically
 * (fs_write_atomic) by repomap_store_save.
 *
 * Format (native byte order, the cache never leaves the machine): the magic
 * "HRMC", a u32 format version, u32 record count, the records, and a u64
 * FNV-1a of everything before it.  A record: abs path, i64 mtime (ns), i64
 * size, u64 stamp (the caller's grammar + tags query version), u8 skipped,
 * u32 definition count, each (u32 line, name, signature), u32 name count,
 * each name; every string a u16 length (NUL included) then its bytes.
 *
 * A record is used only when (abs, mtime, size, stamp) all match.  A file
 * that is missing, unreadable, truncated, of another version or whose
 * checksum is wrong is ignored as a whole (everything is parsed again and
 * the next save replaces it); a failed save (unwritable directory, full
 * disk) leaves the old file and is otherwise silent.  Not thread-safe.
 */
#ifndef HEARTH_REPOMAP_STORE_H
#define HEARTH_REPOMAP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define REPOMAP_STORE_VERSION 1u

/* One definition: its name, 1-based line and signature (both malloc'd). */
struct repomap_store_def {
	char *name;
	uint32_t line;
	char *sig;
};

/* What one file yields; repomap_store_take fills it with malloc'd copies. */
struct repomap_store_rec {
	const char *abs;           /* borrowed */
	long long mtime_ns, size;
	uint64_t stamp;
	int skipped;               /* binary or unparsable */
	struct repomap_store_def *defs;  /* line order */
	size_t ndefs;
	char **refs;               /* sorted, unique */
	size_t nrefs;
};

/* A loaded cache file (opaque). */
struct repomap_store;

/*
 * The path of root's cache file, appended to out; -1 (out untouched) when
 * neither XDG_CACHE_HOME nor HOME is set.
 */
int repomap_store_path(const char *root, struct buf *out);
/* Load root's cache; never fails (an empty cache when there is none or it is bad). */
struct repomap_store *repomap_store_load(const char *root);
/*
 * When c holds abs with this mtime, size and stamp: fill r's defs, refs and
 * skipped (malloc'd, the caller owns them) and return 1; else 0.
 */
int repomap_store_take(struct repomap_store *c, const char *abs, long long mtime_ns, long long size,
		 uint64_t stamp, struct repomap_store_rec *r);
/* Free a loaded cache (NULL is fine). */
void repomap_store_free(struct repomap_store *c);
/*
 * Replace root's cache file by the n records (borrowed), creating the
 * directory.  0 / -1 + e (the caller may ignore it: the cache is optional).
 */
int repomap_store_save(const char *root, const struct repomap_store_rec *recs, size_t n, struct err *e);

#endif

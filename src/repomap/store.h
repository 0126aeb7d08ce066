/*
 * repomap/store: the on-disk cache of what repomap extracts from each file, so a
 * new process maps an unchanged repository without parsing it again, and
 * the compact encoding repomap keeps the same records in memory with.
 *
 * Where: $XDG_CACHE_HOME/hearth/repomap/<16 hex digits of the root's
 * FNV-1a hash>.bin ($XDG_CACHE_HOME defaults to ~/.cache; neither set: no
 * disk cache).  A cache: deleting it costs one reparse, nothing else.  One
 * file per root, replaced whole and atomically (fs_write_atomic) by
 * repomap_store_save.
 *
 * Format (native byte order, the cache never leaves the machine): the magic
 * "HRMC", u32 format version, u32 name count, u32 record count, u32 bytes
 * of names, the names (each NUL-terminated, distinct; a name's id is its
 * position), the records, and a u64 FNV-1a of everything before it.  A
 * record: abs path (u16 length with its NUL, then the bytes), i64 mtime
 * (ns), i64 size, u64 stamp (the caller's grammar + tags query version),
 * u8 skipped, u32 definition count, u32 used-name count, u32 blob length,
 * the blob.
 *
 * A blob (also repomap's in-memory form of a file): per definition, in line
 * order, varint name id, varint line, varint byte offset of its signature
 * in the file, u8 signature length, u8 "the file uses this name itself";
 * then the ids of the names the file uses, ascending, as varint deltas
 * (the first from 0).  Signatures are not stored: they are read back from
 * the file, which is unchanged while (mtime, size) match.
 *
 * A record is used only when (abs, mtime, size, stamp) all match.  A file
 * that is missing, unreadable, truncated, of another version, whose
 * checksum is wrong or whose contents are inconsistent (a name twice, an
 * id past the names, a blob that does not decode to its counts, a
 * signature past the file's size) is ignored as a whole (everything is
 * parsed again and the next save replaces it); a failed save (unwritable
 * directory, full disk) leaves the old file and is otherwise silent.  Not
 * thread-safe.
 */
#ifndef HEARTH_REPOMAP_STORE_H
#define HEARTH_REPOMAP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define REPOMAP_STORE_VERSION 2u

/* One definition, as a blob holds it. */
struct repomap_def {
	uint32_t name;     /* name id */
	uint32_t line;     /* 1-based */
	uint32_t sig_off;  /* byte offset of the signature in the file */
	uint8_t sig_len;
	uint8_t self;      /* the file uses the name itself (not counted as a user) */
};

/* What one file yields (all borrowed). */
struct repomap_store_rec {
	const char *abs;
	long long mtime_ns, size;
	uint64_t stamp;
	int skipped;               /* 1 binary or unparsable, 2 minified or generated, 3 over 5 MB */
	uint32_t ndefs, nrefs;
	const unsigned char *blob;
	uint32_t bloblen;
};

/* A loaded cache file: names and records point into data. */
struct repomap_store {
	struct buf data;
	const char *names;         /* nnames NUL-terminated strings, names_len bytes */
	size_t names_len;
	uint32_t nnames;
	struct repomap_store_rec *recs;
	size_t n;
};

/* A reader over one blob: open it, then ndefs defs, then nrefs refs. */
struct repomap_blob {
	const unsigned char *p, *end;
	uint32_t last;             /* the previous ref id */
	int bad;                   /* read past the end or a varint too long */
};

/*
 * The path of root's cache file, appended to out; -1 (out untouched) when
 * neither XDG_CACHE_HOME nor HOME is set.
 */
int repomap_store_path(const char *root, struct buf *out);
/* Load root's cache; never NULL (no records when there is none or it is bad). */
struct repomap_store *repomap_store_load(const char *root);
/* Free a loaded cache (NULL is fine). */
void repomap_store_free(struct repomap_store *c);
/*
 * Replace root's cache file by the names (nnames NUL-terminated strings in
 * names_len bytes) and the n records, creating the directory.  0 / -1 + e
 * (the caller may ignore it: the cache is optional).
 */
int repomap_store_save(const char *root, const char *names, size_t names_len, uint32_t nnames,
		       const struct repomap_store_rec *recs, size_t n, struct err *e);

/* Append one definition to a blob being built. */
void repomap_store_put_def(struct buf *b, const struct repomap_def *d);
/* Append the used names (ids ascending, distinct) to a blob being built. */
void repomap_store_put_refs(struct buf *b, const uint32_t *ids, size_t n);
/* Start reading a blob. */
void repomap_store_blob_open(struct repomap_blob *r, const unsigned char *p, size_t len);
/* The next definition (zeros and r->bad when the blob is short). */
void repomap_store_blob_def(struct repomap_blob *r, struct repomap_def *d);
/* The next used name's id (0 and r->bad when the blob is short). */
uint32_t repomap_store_blob_ref(struct repomap_blob *r);

#endif

/*
 * base/buf: a growable byte string, after git's strbuf.
 *
 * Invariants: `data` is never NULL and data[len] is always '\0', so a buf
 * can be handed to any C-string API at any time.  An initialised buf with
 * no allocation points at a shared empty string (buf_slopbuf); the first
 * growth allocates.  A buf may hold NUL bytes; `len` is authoritative.
 *
 * Lifetime: BUF_INIT or buf_init(); buf_release() frees and re-initialises;
 * buf_detach() hands the allocation to the caller (free() it) and
 * re-initialises.  Allocation failure is fatal (xmalloc).
 */
#ifndef HEARTH_BASE_BUF_H
#define HEARTH_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/err.h"

extern char buf_slopbuf[];

struct buf {
	char *data;
	size_t len;
	size_t alloc; /* 0 while data == buf_slopbuf */
};

#define BUF_INIT { buf_slopbuf, 0, 0 }

/* Initialise with room for `hint` bytes (0 allocates nothing). */
void buf_init(struct buf *b, size_t hint);
/* Free the storage; b is left initialised and empty. */
void buf_release(struct buf *b);
/* Give the storage to the caller (always malloc'd, NUL-terminated); *len_out may be NULL. */
char *buf_detach(struct buf *b, size_t *len_out);
/* Ensure room for `extra` more bytes plus the NUL. */
void buf_grow(struct buf *b, size_t extra);
/* Set len to n (n <= len) keeping the NUL invariant. */
void buf_setlen(struct buf *b, size_t n);
/* Empty without freeing. */
#define buf_reset(b) buf_setlen((b), 0)

void buf_add(struct buf *b, const void *data, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, int c);
/* End the text's last line: append '\n' unless b is empty or already ends with one. */
void buf_end_line(struct buf *b);
/* Append s single-quoted for sh (each ' written as '\\''). */
void buf_add_shquoted(struct buf *b, const char *s);
void buf_addf(struct buf *b, const char *fmt, ...) ERR_PRINTF(2, 3);
void buf_vaddf(struct buf *b, const char *fmt, va_list ap) ERR_PRINTF(2, 0);
/* Remove n bytes starting at pos (clamped to the end). */
void buf_remove(struct buf *b, size_t pos, size_t n);
/* Insert n bytes at pos (pos <= len). */
void buf_insert(struct buf *b, size_t pos, const void *data, size_t n);
/* Drop trailing ASCII whitespace. */
void buf_rtrim(struct buf *b);

/*
 * Read a whole file into b (appending).  Refuses files larger than `max`
 * bytes (0 = no limit) with a message naming the size.  0 / -1 + e.
 */
int buf_read_file(struct buf *b, const char *path, size_t max, struct err *e);

/*
 * buf_read_file on an open fd (read from its offset to the end; the caller
 * keeps and closes fd); `path` only names it in e.  0 / -1 + e.
 */
int buf_read_fd(struct buf *b, int fd, const char *path, size_t max, struct err *e);
/*
 * buf_read_fd without its fstat, for a caller that knows fd is a regular
 * file of about `size` bytes (its own stat; -1: unknown, read to the end):
 * one read of size + 1 bytes, and a short read is the end (a file that grew
 * since is read on to its end).  No directory or size check: the caller's.
 */
int buf_read_fd_sized(struct buf *b, int fd, const char *path, size_t max, long long size,
		      struct err *e);

#endif

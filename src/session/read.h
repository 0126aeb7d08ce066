/*
 * session/read: a session file read into its entries, and its active branch
 * (the reader rules are in session/session.h).
 *
 * Lines are read in 64 KB chunks; a line longer than session_read_line_max is
 * skipped with a warning without ever being held whole in memory.  Each
 * accepted line becomes a struct session_line_entry that keeps its byte range,
 * so a fork can copy lines verbatim.  The active branch is the parent
 * chain of the last entry; a parent is searched among earlier entries
 * only, so a chain cannot loop, and a lost parent continues from the entry
 * just before (with a warning).
 */
#ifndef HEARTH_SESSION_READ_H
#define HEARTH_SESSION_READ_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "session/line.h"

/* Longest line the reader accepts; longer ones are skipped (tests lower it). */
extern size_t session_read_line_max;

/* A file's entries; fields are read-only for callers. */
struct session_read {
	const char *path;          /* borrowed from session_read_load's caller */
	struct session_line_entry *v;  /* accepted entries, in file order */
	size_t n;
	size_t skipped;            /* lines skipped with a warning */
	struct buf *warn;          /* where warnings go; may be NULL */
	size_t alloc;              /* private: allocated length of v */
};

/*
 * Read the file at path (which must outlive r).  0, or -1 + e when it
 * cannot be opened or read or is not a regular file (a FIFO or a device is
 * refused, never read).  r is always initialised: call session_read_release.
 */
int session_read_load(struct session_read *r, const char *path, struct buf *warnings, struct err *e);
/*
 * Indices into r->v of the active branch, oldest first (*n of them; the
 * array is malloc'd: free() it).  Lost parents are warned about here.
 */
size_t *session_read_branch(struct session_read *r, size_t *n);
/* Free the entries; r may be NULL-initialised (all zero). */
void session_read_release(struct session_read *r);

#endif

/*
 * sessline: one line of a session file, encoded and decoded (the entry
 * format is described in session.h).
 *
 * Encoding: sessline_add_head starts the JSON object of an entry (id,
 * parent, type, ts); exactly one of sessline_add_msg, sessline_add_meta or
 * sessline_add_notice then adds the payload and ends the line with "}\n".
 * Strings go through json_add_escaped, so invalid UTF-8 becomes U+FFFD.
 *
 * Decoding: sessline_decode turns one line into a struct sessline_entry or
 * rejects it with one warning line "PATH:N: why; skipped".  Field-level
 * problems (a wrong-typed field, a block of unknown kind) warn and drop
 * that field or block; the entry is kept.  Unknown entry types decode as
 * SESSLINE_OTHER, silently.
 */
#ifndef HEARTH_SESSLINE_H
#define HEARTH_SESSLINE_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "conv.h"
#include "session.h"

enum sessline_type { SESSLINE_OTHER, SESSLINE_META, SESSLINE_MSG };

/* One decoded entry; owns its strings, message blocks and meta. */
struct sessline_entry {
	char *id;
	char *parent;             /* NULL for the first entry of a tree */
	enum sessline_type type;
	off_t off;                /* where the line starts in its file (set by the reader) */
	size_t len;               /* its length without the '\n' (set by the reader) */
	struct conv_msg msg;      /* SESSLINE_MSG only */
	struct session_meta meta; /* SESSLINE_META only */
};

/* Where a line comes from, for warnings. */
struct sessline_src {
	const char *path; /* file name shown in warnings */
	size_t ln;        /* line number, from 1 */
	int last;         /* the file's last line and it has no '\n' (a torn write) */
	struct buf *warn; /* warnings are appended here, one line each; may be NULL */
};

/* Start an entry line: {"id":id,"parent":parent|null,"type":type,"ts":ts, */
void sessline_add_head(struct buf *b, const char *id, const char *parent, const char *type,
		       const char *ts);
/* Finish the line with a message payload (every block field; NULL strings omitted). */
void sessline_add_msg(struct buf *b, const struct conv_msg *m);
/* Finish the line with a meta payload (NULL fields omitted). */
void sessline_add_meta(struct buf *b, const struct session_meta *m);
/* Finish the line with a notice payload (text NULL reads as ""). */
void sessline_add_notice(struct buf *b, const char *text);

/*
 * Decode line[0..len) (line[len] must be '\0').  1: *out is an entry (free
 * it with sessline_entry_release; off and len are left 0); 0: a blank line,
 * nothing to do; -1: skipped, with a warning.  Never fails otherwise.
 */
int sessline_decode(const char *line, size_t len, const struct sessline_src *src,
		    struct sessline_entry *out);
/* Free an entry's contents; x may then be reused. */
void sessline_entry_release(struct sessline_entry *x);

#endif

/*
 * session/line: one line of a session file, encoded and decoded (the entry
 * format is described in session/session.h).
 *
 * Encoding: session_line_add_head starts the JSON object of an entry (id,
 * parent, type, ts); exactly one of session_line_add_msg, session_line_add_meta,
 * session_line_add_usage or session_line_add_notice then adds the payload and ends the line with "}\n".
 * Strings go through json_add_escaped, so invalid UTF-8 becomes U+FFFD.
 *
 * Decoding: session_line_decode turns one line into a struct session_line_entry or
 * rejects it with one warning line "PATH:N: why; skipped".  Field-level
 * problems (a wrong-typed field, a block of unknown kind) warn and drop
 * that field or block; the entry is kept.  Unknown entry types decode as
 * SESSION_LINE_OTHER, silently.
 */
#ifndef HEARTH_SESSION_LINE_H
#define HEARTH_SESSION_LINE_H

#include <stddef.h>
#include <sys/types.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "session/session.h"

enum session_line_type { SESSION_LINE_OTHER, SESSION_LINE_META, SESSION_LINE_MSG, SESSION_LINE_USAGE };

/* One decoded entry; owns its strings, message blocks and meta. */
struct session_line_entry {
	char *id;
	char *parent;             /* NULL for the first entry of a tree */
	enum session_line_type type;
	off_t off;                /* where the line starts in its file (set by the reader) */
	size_t len;               /* its length without the '\n' (set by the reader) */
	struct conv_msg msg;      /* SESSION_LINE_MSG only */
	struct session_meta meta; /* SESSION_LINE_META only */
	long tokens_in, tokens_out; /* SESSION_LINE_USAGE only: one turn's tokens */
};

/* Where a line comes from, for warnings. */
struct session_line_src {
	const char *path; /* file name shown in warnings */
	size_t ln;        /* line number, from 1 */
	int last;         /* the file's last line and it has no '\n' (a torn write) */
	struct buf *warn; /* warnings are appended here, one line each; may be NULL */
};

/* Start an entry line: {"id":id,"parent":parent|null,"type":type,"ts":ts, */
void session_line_add_head(struct buf *b, const char *id, const char *parent, const char *type,
		       const char *ts);
/* Finish the line with a message payload (every block field; NULL strings omitted). */
void session_line_add_msg(struct buf *b, const struct conv_msg *m);
/* Finish the line with a meta payload (NULL fields omitted). */
void session_line_add_meta(struct buf *b, const struct session_meta *m);
/* Finish the line with a usage payload: {"in":N,"out":N}. */
void session_line_add_usage(struct buf *b, long tokens_in, long tokens_out);
/* Finish the line with a notice payload (text NULL reads as ""). */
void session_line_add_notice(struct buf *b, const char *text);

/*
 * Decode line[0..len) (line[len] must be '\0').  1: *out is an entry (free
 * it with session_line_entry_release; off and len are left 0); 0: a blank line,
 * nothing to do; -1: skipped, with a warning.  Never fails otherwise.
 */
int session_line_decode(const char *line, size_t len, const struct session_line_src *src,
		    struct session_line_entry *out);
/* Free an entry's contents; x may then be reused. */
void session_line_entry_release(struct session_line_entry *x);

#endif

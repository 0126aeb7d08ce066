/*
 * session/list: the sessions of a workspace as a list (the picker, -c, -r ID,
 * --export) and forking one of them (/fork).
 *
 * A listed session is any regular "*.jsonl" file (not starting with '.')
 * in session_dir(root) that loads; its id is the file name without
 * ".jsonl".  Listing stats every file and takes what it shows (messages,
 * first prompt) from DIR/.list-cache for the files unchanged since the last
 * listing; only new or changed files are loaded (and cached).  -c
 * (session_list_latest) parses nothing: file times and one line.
 */
#ifndef HEARTH_SESSION_LIST_H
#define HEARTH_SESSION_LIST_H

#include <stddef.h>
#include <time.h>

#include "base/buf.h"
#include "base/err.h"
#include "session/session.h"

/* One row of the picker. */
struct session_list_info {
	char *id;
	char *path;
	char *first_prompt; /* first user text, one line, at most 80 bytes + "…"; may be "" */
	time_t mtime;       /* last write: "age" is now - mtime */
	size_t nmsgs;       /* messages on the active branch */
};

/*
 * The sessions of `root`, most recently written first (ties: newer id
 * first), into a malloc'd *out of *n rows (free with session_list_free).  A
 * missing directory gives 0 sessions.  0 / -1 + e.
 */
int session_list_list(const char *root, struct session_list_info **out, size_t *n, struct err *e);
void session_list_free(struct session_list_info *v, size_t n);

/* Append the path of the most recently written session of root (for -c). -1 + e when none. */
int session_list_latest(const char *root, struct buf *path, struct err *e);

/*
 * Append the path of the session `arg` of root (for -r ID, --export): an
 * existing file path (containing '/') is taken as is, otherwise a unique id
 * prefix.  -1 + e when nothing or more than one session matches.
 */
int session_list_resolve(const char *root, const char *arg, struct buf *path, struct err *e);

/*
 * Fork: a new session of `root` holding the entries of the active branch
 * of `src_path` up to `entry_id` (copied verbatim, with their ids) when
 * `inclusive`, or up to the entry before it when not (typical /fork from a
 * user message: the message goes back into the editor), then a meta entry
 * with forked_from ("SESSION-ID ENTRY-ID") and the newest meta before the
 * fork point.  The source is never written.  NULL + e when entry_id is not
 * on the active branch or a write fails (the new file is then removed).
 */
struct session *session_list_fork(const char *src_path, const char *entry_id, int inclusive,
			      const char *root, struct err *e);

#endif

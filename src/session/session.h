/*
 * session/session: the append-only JSONL session store (issue 7): where sessions
 * live, the writer, and loading a file's active branch.  Neighbours:
 * session_line (one entry line encoded/decoded), session_read (a file read into
 * entries), session_list (list, latest, resolve, fork), session_export (Markdown
 * and HTML).
 *
 * Where: $XDG_STATE_HOME/hearth/sessions/<project-key>/<session-id>.jsonl
 * ($XDG_STATE_HOME defaults to ~/.local/state; a relative value is
 * ignored, as the XDG spec says).  The project key is the workspace root
 * with every byte outside [A-Za-z0-9._] turned into '-' (its last 80
 * bytes at most, leading '/'s dropped), then '-' and 8 hex digits of a
 * 32-bit FNV-1a hash of the whole root: readable and collision-safe.
 * Directories we create are 0700, session files 0600 (chmod'ed
 * explicitly, whatever the umask).
 *
 * Session ids sort by creation time: "YYYYMMDD-HHMMSS-mmm-rrrrrrrr" (UTC,
 * milliseconds, 32 random bits).
 *
 * Each line is one JSON object (an entry):
 *   {"id":E,"parent":P|null,"type":T,"ts":"2026-11-22T00:45:49.123Z",...}
 * type "meta":    "meta":{"cwd","model","server","created","forked_from"}
 * type "message": "message":{"role":"user"|"assistant","aborted":bool,
 *                 "blocks":[{"kind":"text"|"reasoning"|"tool_call"|
 *                 "tool_result"|"image","text","id","name","provider",
 *                 "signature","is_error":true}]}  (NULL strings omitted)
 * type "notice":  "text":S  (shown to the user, never sent to a model)
 * type "usage":   "usage":{"in":N,"out":N}  (one turn's prompt and
 *                 completion tokens; a resume shows their sum on the
 *                 branch; older files have none and resume at 0, older
 *                 readers skip these entries as unknown)
 * Entry ids are 12 random hex digits; `parent` is the entry written
 * before it in this session, so the entries form a tree and the active
 * branch is the parent chain of the last entry in the file.
 *
 * Writer: each entry is one write() of the whole line (O_APPEND) followed
 * by fdatasync, which runs on the writer's own thread: an append returns
 * once the line is written (a kill -9 after it loses nothing; a power loss
 * may lose the lines of the last moment), session_flush waits for the
 * syncs, and session_close syncs what is left before it closes.  A file is never rewritten; when a crash left a torn last
 * line, resuming appends a '\n' first so the torn bytes stay one bad line.
 *
 * Reader: never fatal on content.  Skipped with a warning (one line each,
 * "FILE:N: why; skipped", N counted from 1) are: a line that is not JSON
 * (a torn last line says "incomplete"), a line that is not an entry
 * object, a message without a valid role, a block of unknown kind, and a
 * line longer than session_read_line_max (64 MB).  Wrong-typed fields read as
 * absent (with a warning).  Unknown entry types are kept in the chain and
 * otherwise ignored, silently (a newer hearth may write them).  An entry
 * whose parent is not found (the parent's line was lost) continues from the
 * entry before it in the file, with a warning, so no message is lost.
 *
 * UTF-8: invalid sequences in text are replaced by U+FFFD when written
 * (json_add_escaped); valid text round-trips byte for byte.  The system
 * prompt is not stored: it is rebuilt when a session is resumed.
 */
#ifndef HEARTH_SESSION_SESSION_H
#define HEARTH_SESSION_SESSION_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"

/* Session metadata; every string may be NULL.  created is an ISO 8601 UTC time. */
struct session_meta {
	char *cwd;
	char *model;
	char *server;
	char *created;
	char *forked_from; /* "SESSION-ID ENTRY-ID" for a fork */
};

/* Free m's strings; m is left all NULL (releasing it again does nothing). */
void session_meta_release(struct session_meta *m);

/* An open session being written (opaque). */
struct session;

/* What a load yields: the active branch of one file. */
struct session_loaded {
	struct conv conv;          /* messages of the active branch (system NULL) */
	char **ids;                /* ids[i]: entry id of conv.msgs[i] */
	struct session_meta meta;  /* newest meta entry on the branch */
	char *leaf;                /* id of the last entry (NULL if none) */
	size_t skipped;            /* lines skipped with a warning */
	long tokens_in, tokens_out; /* the "usage" entries of the branch, summed */
};

/* Free a load result; l is left empty (releasing it again does nothing). */
void session_loaded_release(struct session_loaded *l);

/* Append the sessions directory of workspace `root` to out.  0 / -1 + e (no HOME). */
int session_dir(const char *root, struct buf *out, struct err *e);

/*
 * Start a new session for `root`: creates the directory (0700) and the file
 * (0600) and writes a meta entry (meta->created is filled when NULL; meta
 * may be NULL).  NULL + e on failure, e.g. "create session directory X:
 * permission denied; set XDG_STATE_HOME to a writable directory".
 */
struct session *session_create(const char *root, const struct session_meta *meta,
			       struct err *e);

/*
 * Open an existing session file to continue it: loads it into `out`
 * (release with session_loaded_release; warnings appended, one line each,
 * `warnings` may be NULL) and returns a writer whose next entry's parent
 * is out->leaf; its id is the file's name less a ".jsonl" ending.  NULL
 * + e when the file cannot be opened (a symlink is read but not written
 * through) or its torn last line cannot be ended; out is then left empty.
 */
struct session *session_resume(const char *path, struct session_loaded *out,
			       struct buf *warnings, struct err *e);

/*
 * Append one message (all block fields).  0 / -1 + e: the write failed
 * (the entry is not in the file and never becomes the leaf), or a sync
 * failed, this entry's or an earlier one's (the entry is written and is
 * the leaf; the disk may not keep it).
 */
int session_append_msg(struct session *s, const struct conv_msg *m, struct err *e);
/* Append a meta entry (e.g. after a model change). 0 / -1 + e. */
int session_append_meta(struct session *s, const struct session_meta *m, struct err *e);
/* Append a turn's token usage (a "usage" entry). 0 / -1 + e. */
int session_append_usage(struct session *s, long tokens_in, long tokens_out, struct err *e);
/* Append a notice (text for the user). 0 / -1 + e. */
int session_append_notice(struct session *s, const char *text, struct err *e);

/*
 * For fork (session_list): a new session file of `root` with no entry yet
 * (session_create without the meta), and appending one entry line
 * line[0..len) verbatim (no '\n' in it; one is added), whose id becomes the
 * leaf once written; line may also hold several entry lines separated by
 * '\n' (one write and one sync for all of them), `id` being the last's.
 * NULL / -1 + e as for session_create / append.
 */
struct session *session_create_bare(const char *root, struct err *e);
int session_append_line(struct session *s, const char *line, size_t len, const char *id,
			struct err *e);

/* Append the current UTC time as entries and metas write it (ISO 8601, ms). */
void session_add_now(struct buf *b);

/* The session id, its file, and the last entry written (borrowed; valid until close). */
const char *session_id(const struct session *s);
const char *session_path(const struct session *s);
const char *session_leaf(const struct session *s);
/*
 * Make id (an entry written earlier, or NULL: none) the parent of the next
 * entry: what was written after it leaves the active branch once the next
 * entry is written (a rejected turn, session_journal_rewind).
 */
void session_set_leaf(struct session *s, const char *id);
/*
 * How writers opened from now on sync: on their syncer thread when
 * session_sync_thread is 1 (the default; tests set 0 for the appending
 * thread, which is also what a failed pthread_create gives), with
 * session_sync_fn (fdatasync; tests put a slow or failing one there).
 */
extern int session_sync_thread;
extern int (*session_sync_fn)(int fd);
/*
 * Wait until every line written so far is synced to disk.  0, or -1 + e
 * when a sync failed since the last report.
 */
int session_flush(struct session *s, struct err *e);
/* Sync what is left, close and free; s may be NULL. */
void session_close(struct session *s);

/*
 * Load a session file (see the reader rules above).  0, or -1 + e only when
 * the file cannot be opened or read or is not a regular file (a FIFO or a
 * device is refused, never read); an empty file loads as empty.
 */
int session_load(const char *path, struct session_loaded *out, struct buf *warnings,
		 struct err *e);

#endif

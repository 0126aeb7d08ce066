/*
 * session/journal: this run's session file.  The agent reports each complete
 * message once (agent_observer.on_commit); the journal appends it to the
 * session's JSONL (session/session.h), creating the file lazily with the first
 * message so a run that did nothing leaves no empty session behind.
 * -c / -r load an earlier session and go on appending to it.  A failed
 * write is reported once as a warning line and never stops the run.
 */
#ifndef HEARTH_SESSION_JOURNAL_H
#define HEARTH_SESSION_JOURNAL_H

#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"

struct session;

struct session_journal {
	char *root;
	char *server;
	char *model;
	struct session *s;
	int warned;
	struct buf warnings; /* lines for the user (load warnings, a failed write) */
	long resumed_in, resumed_out; /* tokens of the resumed session's branch (its "usage" entries) */
	char **before;       /* per message committed by this run: the leaf before it (NULL: none) */
	size_t nbefore, abefore;
};

void session_journal_init(struct session_journal *j, const char *root, const char *server);
void session_journal_release(struct session_journal *j);
/*
 * agent_observer.on_rewind: the last n messages this run committed are left
 * out (a rejected turn): the next entry, a notice saying why, continues from
 * before them, so a resumed session does not send them again.
 */
void session_journal_rewind(void *journal, size_t n, const char *why);
/* The model id for the session's metadata (known after discovery). */
void session_journal_set_model(struct session_journal *j, const char *model);
/*
 * Resume: which = NULL for the latest session of this project (-c), else
 * an id, id prefix or path (-r ID).  The messages go into `into`.  0, or
 * -1 + e (no session yet, ambiguous or unknown id, unreadable file).
 */
int session_journal_resume(struct session_journal *j, const char *which, struct conv *into, struct err *e);
/* agent_observer.on_commit: append m (commit_arg is the journal). */
void session_journal_commit(void *journal, const struct conv_msg *m);
/* A turn's tokens, appended as a "usage" entry (nothing before the first message). */
void session_journal_usage(struct session_journal *j, long tokens_in, long tokens_out);
/* Close the current session; the next message creates a new one (/clear, /new). */
void session_journal_restart(struct session_journal *j);
/* Continue in session s from now on (owned by the journal; the current one is closed) (/fork). */
void session_journal_adopt(struct session_journal *j, struct session *s);
/* The session file's path ("" before the first message). */
const char *session_journal_path(const struct session_journal *j);
/* The session id ("" before the first message). */
const char *session_journal_id(const struct session_journal *j);

#endif

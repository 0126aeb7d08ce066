/*
 * journal: this run's session file.  The agent reports each complete
 * message once (agent_observer.on_commit); the journal appends it to the
 * session's JSONL (session.h), creating the file lazily with the first
 * message so a run that did nothing leaves no empty session behind.
 * -c / -r load an earlier session and go on appending to it.  A failed
 * write is reported once as a warning line and never stops the run.
 */
#ifndef HEARTH_JOURNAL_H
#define HEARTH_JOURNAL_H

#include "buf.h"
#include "conv.h"
#include "err.h"

struct session;

struct journal {
	char *root;
	char *server;
	char *model;
	struct session *s;
	int warned;
	struct buf warnings; /* lines for the user (load warnings, a failed write) */
};

void journal_init(struct journal *j, const char *root, const char *server);
void journal_release(struct journal *j);
/* The model id for the session's metadata (known after discovery). */
void journal_set_model(struct journal *j, const char *model);
/*
 * Resume: which = NULL for the latest session of this project (-c), else
 * an id, id prefix or path (-r ID).  The messages go into `into`.  0, or
 * -1 + e (no session yet, ambiguous or unknown id, unreadable file).
 */
int journal_resume(struct journal *j, const char *which, struct conv *into, struct err *e);
/* agent_observer.on_commit: append m (commit_arg is the journal). */
void journal_commit(void *journal, const struct conv_msg *m);
/* Close the current session; the next message creates a new one (/clear, /new). */
void journal_restart(struct journal *j);
/* Continue in session s from now on (owned by the journal; the current one is closed) (/fork). */
void journal_adopt(struct journal *j, struct session *s);
/* The session file's path ("" before the first message). */
const char *journal_path(const struct journal *j);
/* The session id ("" before the first message). */
const char *journal_id(const struct journal *j);

#endif

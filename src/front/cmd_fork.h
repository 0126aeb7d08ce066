/*
 * front/cmd_fork: /fork in the interactive sessions — a new session started
 * from an earlier user message of this one.
 *
 * `/fork` lists the user messages of the session (the ones the user
 * typed, not tool results) numbered from 1; `/fork N` makes a new
 * session holding every entry before message N (session_list_fork: the new
 * file records "forked_from": "SESSION-ID ENTRY-ID"), switches the
 * journal and the agent's conversation to it, and hands message N's text
 * back so the front end can put it in the editor to be changed and sent
 * again.  The original session file is never written.
 */
#ifndef HEARTH_FRONT_CMD_FORK_H
#define HEARTH_FRONT_CMD_FORK_H

#include "base/buf.h"
#include "front/cmd.h"

struct agent;
struct session_journal;

/*
 * Run "/fork [args]" on the session of journal j and agent a (workspace
 * root).  CMD_DONE with `out` the list or the result line (and `text` =
 * message N's text after a fork), or CMD_ERROR with one line.
 */
enum cmd_result front_cmd_fork_run(struct agent *a, struct session_journal *j, const char *root,
			    const char *args, struct buf *out, struct buf *text);

#endif

/*
 * forkcmd: /fork in the interactive sessions — a new session started
 * from an earlier user message of this one.
 *
 * `/fork` lists the user messages of the session (the ones the user
 * typed, not tool results) numbered from 1; `/fork N` makes a new
 * session holding every entry before message N (sesslist_fork: the new
 * file records "forked_from": "SESSION-ID ENTRY-ID"), switches the
 * journal and the agent's conversation to it, and hands message N's text
 * back so the front end can put it in the editor to be changed and sent
 * again.  The original session file is never written.
 */
#ifndef HEARTH_FORKCMD_H
#define HEARTH_FORKCMD_H

#include "buf.h"
#include "cmd.h"

struct agent;
struct journal;

/*
 * Run "/fork [args]" on the session of journal j and agent a (workspace
 * root).  CMD_DONE with `out` the list or the result line (and `text` =
 * message N's text after a fork), or CMD_ERROR with one line.
 */
enum cmd_result forkcmd_run(struct agent *a, struct journal *j, const char *root,
			    const char *args, struct buf *out, struct buf *text);

#endif

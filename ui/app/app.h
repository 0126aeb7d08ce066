/*
 * ui/app/app: the full-screen interactive session (`hearth` on a terminal).
 *
 * The same engine and contract as the line-mode session (front/session.h,
 * turns through the controller front/turn.h):
 * discovery with a first-run screen and retries while no server answers,
 * one agent whose messages go to the journal and whose changes go through
 * the checkpoint hooks, the command registry (/help /quit /clear /new
 * /model /slots, checkpoint commands, prompt templates).  On top of that:
 * the alternate screen through term_curses, the transcript, the status
 * line, the server panel fed by a GET /slots poll (every 500 ms while a
 * turn runs, every 5 s when idle, never two at once) and the input editor.
 *
 * Keys: Enter sends (a message typed while a turn runs is queued and sent
 * when it ends), Esc stops the turn, Ctrl-C twice within 2 s quits,
 * Ctrl-D on an empty editor quits, PgUp/PgDn and the wheel scroll, End
 * follows the stream again, Ctrl-O expands the last tool call, Ctrl-L
 * repaints.  SIGWINCH resizes; SIGTERM/SIGHUP restore the terminal and
 * leave.  When $TMUX is set a finished turn rings the bell.
 *
 * Ownership: everything in d is borrowed (d->resumed's messages are moved
 * into the agent).  The loop's SIGINT/SIGWINCH/SIGTERM/SIGHUP handlers and
 * before-sleep hook are set while app_run runs and reset (default
 * disposition, no hook) when it returns.
 */
#ifndef HEARTH_UI_APP_APP_H
#define HEARTH_UI_APP_APP_H

#include "front/session.h"

/*
 * Run the session until the user quits: 0, or 1 when the terminal could
 * not be taken over (the reason is printed on stderr; d is untouched, so
 * the caller may fall back to front_line_run with it).
 */
int app_run(const struct front_session *d);

#endif

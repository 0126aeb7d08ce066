/*
 * front/line: the line-mode interactive session (`hearth` on a terminal until
 * the full-screen UI lands, and whenever stdout is not a terminal).
 *
 * Reads a line from stdin through the loop, runs it as an agent turn and
 * streams the answer to stdout as it arrives (sanitised: model output
 * never reaches the terminal raw), with one line per tool call.  When no
 * server answers it shows the first-run guidance and keeps probing until
 * one appears.  Ctrl-C aborts a running turn; at the prompt it quits, as
 * does Ctrl-D.  Turns run through the turn controller (front/turn.h).
 */
#ifndef HEARTH_FRONT_LINE_H
#define HEARTH_FRONT_LINE_H

#include <stddef.h>

#include "base/buf.h"
#include "front/session.h"

/* The first-run guidance when no server answers at url (why: the error, NULL or "" for none; quit: the key hint). */
void front_line_first_run_text(const char *url, const char *why, const char *quit, struct buf *out);
/* Run the session until the user quits; returns the exit code (0). */
int front_line_run(const struct front_session *d);

#endif

/*
 * appturn: turns in the full-screen session — the agent, its observer
 * (stream events into the transcript and the server panel, tool calls,
 * the end of a turn), and sending what the person typed.
 *
 * A message typed while a turn runs (or before the server answered) is
 * queued in a->queued and sent when the turn ends (or discovery succeeds).
 */
#ifndef HEARTH_APPTURN_H
#define HEARTH_APPTURN_H

#include "appstate.h"

/*
 * Make a->agent, wired like the line-mode session's (journal, checkpoint
 * hooks); a resumed session's messages are drawn into the transcript
 * (tvconv.h) and moved into it.
 */
void appturn_agent(struct app *a);
/* Start a turn with text as the user's message (queue it when not possible now). */
void appturn_send(struct app *a, const char *text);
/* Enter in the editor: a slash command, or a message ("//x" sends "/x"). */
void appturn_submit(struct app *a, const char *text);

#endif

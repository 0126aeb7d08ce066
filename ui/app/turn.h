/*
 * ui/app/turn: turns in the full-screen session — the full screen's view
 * of the turn controller (front/turn.h: stream events into the transcript
 * and the server panel, tool calls, the controller's lines, the end of a
 * turn), and sending what the person typed.
 *
 * A message typed while a turn runs (or before the server answered) is
 * queued in a->queued and sent when the turn ends (or discovery succeeds).
 */
#ifndef HEARTH_UI_APP_TURN_H
#define HEARTH_UI_APP_TURN_H

#include "ui/app/state.h"

/*
 * Make a->turn and its agent (front_turn_init) with this view and the
 * gate's questions; a resumed session's messages are drawn into the
 * transcript (ui/view/transcript_conv.h) as they move into the agent.
 */
void app_turn_agent(struct app *a);
/* Start a turn with text as the user's message (queue it when not possible now). */
void app_turn_send(struct app *a, const char *text);
/* Enter in the editor: a slash command, or a message ("//x" sends "/x"). */
void app_turn_submit(struct app *a, const char *text);
/* Copy the sandbox's description into the status line once its probe has ended (never waits). */
void app_turn_sandbox(struct app *a);

#endif

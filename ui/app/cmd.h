/*
 * ui/app/cmd: the commands of the full-screen session — the shared session
 * commands (front/commands.h) plus those only the full screen has (/slots,
 * /theme, /open), the full screen's form of /diff (the diff viewer), and
 * Ctrl-G (the prompt in $EDITOR).
 */
#ifndef HEARTH_UI_APP_CMD_H
#define HEARTH_UI_APP_CMD_H

#include "ui/app/state.h"

/*
 * Fill a->cmds (a->turn.agent must exist); warnings about templates become a
 * notice.  /diff opens the session's changes in the diff viewer instead of
 * printing them.
 */
void app_cmd_init(struct app *a);
/*
 * Ctrl-T: open the diff viewer on the selected edit — the last tool item
 * with a diff that starts above the bottom of the transcript view (the
 * last one while following).  A notice when there is none.
 */
void app_cmd_tool_diff(struct app *a);
/*
 * While a command waits (/undo, /commit: front/cmd_ui.h), the line entered is its
 * answer: 1 when text was taken so (0: no command waits).
 */
int app_cmd_answer(struct app *a, const char *text);
/*
 * Ctrl-G: edit the prompt in $VISUAL/$EDITOR (ui/app/external.h); on failure a
 * notice and the prompt stays as it was.  Refused while a turn runs: the
 * loop waits for the editor, and the stream would stall.
 */
void app_cmd_edit_prompt(struct app *a);
/* e in the diff viewer: open the file at the place shown, as /open does. */
void app_cmd_open_diff_place(struct app *a);

#endif

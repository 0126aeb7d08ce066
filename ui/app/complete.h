/*
 * ui/app/complete: Tab completion in the input editor — `@path` file
 * references and `/command` names.  The editor (ui/view/editor.h) leaves
 * Tab to its caller; the full screen calls app_complete_tab.
 *
 * @path: when the word before the cursor starts with '@' (at the start of
 * the text or after a blank or '('), Tab inserts the longest common
 * continuation of the matching paths (front_attach_complete's, so the
 * same skipping and workspace confinement apply); a single file match
 * also gets a space after it, a directory its '/' so the next Tab goes
 * inside it.  Several matches are listed in the notice, one a line
 * ("@a\n@b\n… N more", at most APP_COMPLETE_PATH_LIST of them).
 *
 * /command: otherwise, when the whole text is "/prefix" (no blank in it)
 * and the cursor is at its end, Tab completes from the command registry:
 * one match becomes "/name " (with a space), several their longest common
 * prefix, and the matches are listed in the notice ("/a\n/b").
 *
 * The popup (struct app_complete): the full screen shows a notice's list
 * above the input (app_complete_show) instead of writing it into the
 * transcript, and while the text is "/prefix" typed at its end the
 * matching commands with their arguments and one-line help
 * (app_complete_update, after each typed key).  Up/Down select a command,
 * Tab puts the selected "/name " in the input; any other key leaves the
 * input to the editor, and the caller closes the popup (Esc, a submit,
 * a key that is not typing).  At most APP_COMPLETE_ROWS rows, scrolled
 * to the selection.
 */
#ifndef HEARTH_UI_APP_COMPLETE_H
#define HEARTH_UI_APP_COMPLETE_H

#include "base/buf.h"
#include "front/cmd.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/view/editor.h"

#define APP_COMPLETE_PATH_LIST 20
#define APP_COMPLETE_ROWS 8

struct app_complete {
	struct buf lines; /* "label\thelp" or "label", one a line */
	size_t n;         /* lines; 0: closed */
	long sel;         /* selected line, -1: none */
	int commands;     /* the lines are commands (selectable) */
};

/*
 * Tab in ed: @path completion under the workspace root (NULL: none), else
 * /command completion from cmds (NULL: none).  EDITOR_NOTICE when several
 * candidates match and notice is not NULL (notice then holds their list),
 * EDITOR_DONE otherwise.
 */
enum editor_result app_complete_tab(struct editor *ed, const char *root, const struct front_cmd *cmds,
    struct buf *notice);

/* Show lines as the popup (commands: "/name args\thelp" lines, selectable). */
void app_complete_show(struct app_complete *c, const char *lines, int commands);
/* After a typed key: the commands matching "/prefix", else close. */
void app_complete_update(struct app_complete *c, const struct editor *ed, const struct front_cmd *cmds);
/* Up/Down/Tab on an open command list; 1 when taken. */
int app_complete_key(struct app_complete *c, const struct keys_event *ev, struct editor *ed);
/* Draw the popup in the rows just above row `above`, from column x, w wide. */
void app_complete_draw(const struct app_complete *c, struct grid *g, int x, int above, int w);
void app_complete_close(struct app_complete *c);
void app_complete_release(struct app_complete *c);

#endif

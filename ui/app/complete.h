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
 * inside it.  Several matches are listed in the notice ("@a  @b …", at
 * most APP_COMPLETE_PATH_LIST of them).
 *
 * /command: otherwise, when the whole text is "/prefix" (no blank in it)
 * and the cursor is at its end, Tab completes from the command registry:
 * one match becomes "/name " (with a space), several their longest common
 * prefix, and the matches are listed in the notice ("/a  /b …").
 */
#ifndef HEARTH_UI_APP_COMPLETE_H
#define HEARTH_UI_APP_COMPLETE_H

#include "base/buf.h"
#include "front/cmd.h"
#include "ui/view/editor.h"

#define APP_COMPLETE_PATH_LIST 20

/*
 * Tab in ed: @path completion under the workspace root (NULL: none), else
 * /command completion from cmds (NULL: none).  EDITOR_NOTICE when several
 * candidates match and notice is not NULL (notice then holds their list),
 * EDITOR_DONE otherwise.
 */
enum editor_result app_complete_tab(struct editor *ed, const char *root, const struct front_cmd *cmds,
    struct buf *notice);

#endif

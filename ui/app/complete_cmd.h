/*
 * ui/app/complete_cmd: Tab completion of `/command` names in the input editor.
 *
 * When the whole text is "/prefix" (no blank in it) and the cursor is at
 * its end, Tab completes from the command registry: one match becomes
 * "/name " (with a space), several their longest common prefix, and the
 * matches are listed in the notice ("/a  /b …").
 */
#ifndef HEARTH_UI_APP_COMPLETE_CMD_H
#define HEARTH_UI_APP_COMPLETE_CMD_H

#include "base/buf.h"
#include "front/cmd.h"
#include "ui/view/editor.h"

/*
 * Tab in ed with the registry cmds (NULL: nothing to complete):
 * EDITOR_NOTICE when several commands match and notice is not NULL
 * (notice then holds their list), EDITOR_DONE otherwise.
 */
enum editor_result app_complete_cmd_tab(struct editor *ed, const struct front_cmd *cmds, struct buf *notice);

#endif

/*
 * ui/app/complete_path: Tab completion of `@path` file references in the input editor
 * (the paths come from front_attach_complete, so the same skipping and
 * workspace confinement apply).
 *
 * When the word before the cursor starts with '@' (at the start of the
 * text or after a blank or '('), Tab inserts the longest common
 * continuation of the matching paths; a single file match also gets a
 * space after it, a directory its '/' so the next Tab goes inside it.
 * Several matches are listed in the notice ("@a  @b …", at most
 * APP_COMPLETE_PATH_LIST of them).
 */
#ifndef HEARTH_UI_APP_COMPLETE_PATH_H
#define HEARTH_UI_APP_COMPLETE_PATH_H

#include "base/buf.h"
#include "ui/view/editor.h"

#define APP_COMPLETE_PATH_LIST 20

/*
 * Tab in ed with the workspace root ed->complete_root: EDITOR_IGNORED
 * when the cursor is not after an @word (or there is no root), otherwise
 * EDITOR_DONE or EDITOR_NOTICE (notice holds the candidates).
 */
enum editor_result app_complete_path_tab(struct editor *ed, struct buf *notice);

#endif

/*
 * atcomp: Tab completion of `@path` file references in the input editor
 * (the paths come from atref_complete, so the same skipping and
 * workspace confinement apply).
 *
 * When the word before the cursor starts with '@' (at the start of the
 * text or after a blank or '('), Tab inserts the longest common
 * continuation of the matching paths; a single file match also gets a
 * space after it, a directory its '/' so the next Tab goes inside it.
 * Several matches are listed in the notice ("@a  @b …", at most
 * ATCOMP_LIST of them).
 */
#ifndef HEARTH_ATCOMP_H
#define HEARTH_ATCOMP_H

#include "buf.h"
#include "editor.h"

#define ATCOMP_LIST 20

/*
 * Tab in ed with the workspace root ed->complete_root: EDITOR_IGNORED
 * when the cursor is not after an @word (or there is no root), otherwise
 * EDITOR_DONE or EDITOR_NOTICE (notice holds the candidates).
 */
enum editor_result atcomp_tab(struct editor *ed, struct buf *notice);

#endif

/*
 * codehl: colours fenced code lines in the transcript with tree-sitter
 * (syn_highlight) — the markdown_code_hook of the full screen.
 *
 * The fence's language is looked up by name ("c", "python"), then as a
 * file extension ("py", "ts", "sh"); unknown languages stay plain.  Each
 * line is highlighted on its own (a hook sees one line), so a construct
 * spanning lines (a block comment) is coloured by what the line shows.
 * The spans of the last CODEHL_KEEP distinct lines are kept, so redrawing
 * a frame does not parse again.  Roles come from the installed theme's
 * capture map (theme_capture_role); plain text keeps the code-block role.
 */
#ifndef HEARTH_CODEHL_H
#define HEARTH_CODEHL_H

#include <stddef.h>

#include "grid.h"
#include "theme.h"

#define CODEHL_KEEP 256

/* Copy th and install the hook (markdown_code_hook). */
void codehl_install(const struct theme *th);
/* Remove the hook and free the kept spans. */
void codehl_uninstall(void);
/* Colour the line s[0..n) drawn at (x, y), w columns wide, as lang (the hook itself). */
void codehl_line(struct grid *g, int x, int y, int w, const char *lang, const char *s, size_t n);

#endif

/*
 * ui/app/themes: choosing a theme by name (`--theme NAME`, the `theme`
 * setting, `/theme NAME`) and listing the choices.
 *
 * A name is looked up in order: a path (it contains '/' or ends in
 * ".json") is loaded as a file; then the user's directory
 * $XDG_CONFIG_HOME/hearth/themes/NAME.json (~/.config when unset); then
 * the shipped themes, compiled in: "default", "dark", "light",
 * "high-contrast" (the same texts as the files in themes/, which test_themesel
 * checks).  So a user can override a shipped theme by name.
 *
 * Nothing here keeps state: a struct theme is a value (ui/term/theme.h).
 */
#ifndef HEARTH_UI_APP_THEMES_H
#define HEARTH_UI_APP_THEMES_H

#include "base/buf.h"
#include "front/cmd.h"
#include "base/err.h"
#include "ui/term/grid.h"
#include "ui/term/term.h"
#include "ui/term/theme.h"

/*
 * Load theme `name` (NULL or "" means "default") for depth into *t.  0 on
 * success; -1 + e (one line: unknown name with the list of names, or the
 * file's problem) with *t the built-in theme.
 */
int app_themes_load(struct theme *t, const char *name, enum theme_depth depth, struct err *e);
/* Append the available names, comma-separated, shipped ones first. */
void app_themes_list(struct buf *out);
/*
 * The /theme command's work: with no name, list the names (the current one
 * marked); with a name, load it at th's depth and, on success, make it
 * current (*th replaced, the terminal restyled, every row repainted, the
 * code colours' capture map updated).  A failed load keeps *th.
 */
enum cmd_result app_themes_cmd(struct theme *th, struct term *term, struct grid *g,
    const char *args, struct buf *out);
/* The compiled-in text of shipped theme `name` (NULL when not one), for tests. */
const char *app_themes_shipped(const char *name);

/*
 * The colour depth for the full screen: theme_depth_env, or
 * THEME_DEPTH_TRUE inside tmux when `tmux display -p
 * '#{client_termfeatures}'` lists RGB (the outer terminal has 24-bit
 * colour although the pane's COLORTERM may not say so).
 */
enum theme_depth app_themes_depth(void);
/* Whether a tmux feature list ("256,RGB,title") names RGB. */
int app_themes_has_rgb(const char *features);

#endif

/*
 * ui/app/keys: key dispatch of the full-screen session.
 *
 * The terminal fd is read into a->keys; each decoded event goes first to
 * the diff viewer when it is open, then to the search when it is on, then
 * to the screen keys (Ctrl-C/D/O/L/T/F, Esc, scrolling, `/` while scrolled
 * back with an empty editor), then to the editor.
 * A lone ESC is held APP_ESC_MS (ui/term/keys.h rule) by a->esc_timer.  Ctrl-C
 * twice within APP_CTRLC_MS quits; the first shows a hint (a->hint_timer).
 */
#ifndef HEARTH_UI_APP_KEYS_H
#define HEARTH_UI_APP_KEYS_H

#include "ui/app/state.h"
#include "io/loop.h"

/* The loop watch callback of the terminal's input fd (arg: struct app). */
void app_keys_on_input(struct loop *l, int fd, int events, void *arg);
/* Ctrl-C (or SIGINT): the second within 2 s quits; the first shows a hint. */
void app_keys_ctrl_c(struct app *a);

#endif

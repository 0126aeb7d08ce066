/*
 * ui/view/status: the one-row lines around the transcript (screens.md).
 *
 * status_draw — the top line.  At 100 columns or more:
 *   " hearth · ~/src/shop (main ✚3) · MODEL · local      slot 1 · ctx 18.4k/65.5k 28%"
 * narrower, the short form " hearth · shop (main ✚3) · local · ctx 28%".
 * The row is THEME_STATUS_BG, text THEME_STATUS_FG, and the context part
 * THEME_CTX_OK, THEME_CTX_WARN from 70 % and THEME_CTX_CRIT from 90 %.
 * status_draw_server — the server panel folded into one row for narrow
 * terminals: "slot1 PREFILL ███████░░░ 61% ETA 1s  98.7%⚡" while a prompt
 * is processed, "slot1 decode 71 tok/s …" while decoding, otherwise the
 * last turn's cache reuse and the session tokens; "reconnecting in Ns"
 * when the server is gone.
 * status_draw_help — the bottom hint line of wide layouts, with the route
 * mode, turn count and elapsed time on the right.
 * While st->wait is set (a loading model's countdown, or "waiting for
 * llama-server at HOST (next try in Ns)") the help line shows it instead of
 * the hints, and narrow layouts draw status_draw_wait in place of the
 * folded server line: one line, updated in place, never in the top line.
 * mode, turn count and elapsed time on the right; while a turn runs it
 * starts with a spinner, the turn's time and the live decode speed
 * (status_draw_live is the same for the narrow server row).
 * While st->wait is set (a loading model's countdown) the top line shows
 * it after the route and the help line shows it instead of the hints.
 * All three clear their rect first and draw only its first row.
 */
#ifndef HEARTH_UI_VIEW_STATUS_H
#define HEARTH_UI_VIEW_STATUS_H

#include <stdint.h>

#include "ui/term/grid.h"
#include "ui/view/view.h"

/* Width from which the top line takes its long form. */
#define STATUS_WIDE 100

/* The top status line. */
void status_draw(struct grid *g, struct grid_rect r, const struct view_status *st,
    const struct view_server *srv);
/* The server's essentials in one row (narrow layouts). */
void status_draw_server(struct grid *g, struct grid_rect r, const struct view_server *srv);
/* st->wait in THEME_WARNING on the status background (narrow layouts, instead of the server line). */
void status_draw_wait(struct grid *g, struct grid_rect r, const struct view_status *st);
/*
 * Narrow layouts: before the server row, while a turn runs "⠹ 12.3s · 38
 * tok/s ·" (spinner, the turn's time, live decode speed), when scrolled
 * back "scrolled back — End to follow ·", in focus mode its keys (the
 * whole row).  Returns the columns used (0: nothing to say).
 */
int status_draw_live(struct grid *g, struct grid_rect r, const struct view_status *st);
/* The key hints and turn/time summary (wide layouts), led by the same liveness part. */
void status_draw_help(struct grid *g, struct grid_rect r, const struct view_status *st);
/* The role for `used` of n_ctx tokens: ok, warn from 70 %, crit from 90 %. */
uint16_t status_ctx_role(long used, long n_ctx);

#endif

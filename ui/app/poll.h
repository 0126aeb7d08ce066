/*
 * ui/app/poll: the full-screen session's GET /slots poll for the server panel.
 *
 * Every APP_POLL_BUSY_MS while a turn runs, every APP_POLL_IDLE_MS when
 * idle; never two at once (one pending timer or one request in flight);
 * when the server is gone, backoff doubling up to 30 s, shown in the panel
 * as "reconnecting".  A 501 (slots disabled) is shown once and polled at
 * the idle pace.
 */
#ifndef HEARTH_UI_APP_POLL_H
#define HEARTH_UI_APP_POLL_H

#include <stdint.h>

#include "ui/app/state.h"

/* Poll in ms (replacing a pending timer; nothing while a request is out or after quit). */
void app_poll_in(struct app *a, uint64_t ms);

#endif

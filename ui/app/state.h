/*
 * ui/app/state: the state of the full-screen session shared by its parts.
 *
 * ui/app/app.c owns the lifetime (setup, the frame, discovery, the GET /slots
 * poll, signals, release) and the helpers below; ui/app/keys.c the key
 * dispatch, ui/app/turn.c the view of the turn controller and the sending
 * of turns, ui/app/cmd.c the commands the full screen adds to the shared
 * ones.  They all work on one
 * struct app, which lives on app_run's stack for the whole session.
 *
 * Invariants: `dirty` set means a frame is drawn in a before-sleep hook
 * soon: at once when the last one is APP_FRAME_MS old, else when
 * frame_timer fires;
 * each timer id is 0 when that timer is not pending; at most one of
 * poll_timer / poll_inflight is set; `queued` holds the text typed while
 * a turn ran (or before the server answered), sent when it ends.
 */
#ifndef HEARTH_UI_APP_STATE_H
#define HEARTH_UI_APP_STATE_H

#include <stdint.h>

#include "agent/agent.h"
#include "ui/view/approve.h"
#include "ui/app/complete.h"
#include "base/buf.h"
#include "ui/view/diff_view.h"
#include "ui/view/editor.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/view/layout.h"
#include "front/session.h"
#include "front/turn.h"
#include "front/commands.h"
#include "ui/view/transcript_search.h"
#include "ui/term/term.h"
#include "ui/term/theme.h"
#include "ui/view/view.h"

enum app_state { AS_PROBING, AS_READY, AS_QUIT };

#define APP_POLL_BUSY_MS 500
#define APP_POLL_IDLE_MS 5000
#define APP_RETRY_MS 2000
#define APP_ESC_MS 30
#define APP_CTRLC_MS 2000
#define APP_FRAME_MS 16 /* at most one frame per 16 ms (a stream of deltas costs ~60 frames/s) */
#define APP_TICK_MS 100 /* while a turn runs: the spinner, the turn's time, a running command's output */

struct app {
	const struct front_session *d;
	struct front_turn turn; /* the agent and its turns (front/turn.h) */
	struct term *term;
	struct grid *grid;
	struct keys keys;
	struct editor ed;
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
	struct layout lay;
	struct front_commands cmds;
	struct transcript_search search; /* `/` search in the transcript */
	struct diff_view dv;  /* the full-screen diff viewer, over everything when open */
	struct approve ap;   /* the gate's question, while one waits (perm/gate.h) */
	struct app_complete pop; /* completions above the input (ui/app/complete.h) */
	enum app_state state;
	int busy, dirty, panel_on, first_run;
	int talked;        /* a turn was sent: the first-run screen no longer covers the transcript */
	int server_down;   /* the last discovery failed: a message may go to Claude (server_down rule) */
	int skipped;       /* discovery failed and another tier takes the turns meanwhile (route/ladder.h) */
	long esc_timer, retry_timer, poll_timer, hint_timer, frame_timer, spin_timer;
	long boot_timer;     /* the slow start-up work, 1 ms after the first frame (app_state_boot) */
	long tick_timer;     /* every APP_TICK_MS while busy (app_state_tick) */
	uint64_t turn_t0;    /* when the running turn started */
	uint64_t tok_t0;     /* the first decoded delta of the current request (0: none yet) */
	long tok_n;          /* decoded deltas since tok_t0 */
	int booted;
	int poll_inflight, poll_backoff;
	int retry_left;      /* seconds to the next discovery while the server does not answer */
	long resumed_bytes;  /* a resumed conversation's text: the context estimate until an answer */
	uint64_t t0_ms, ctrlc_ms, frame_ms; /* frame_ms: when the last frame was drawn */
	struct buf queued;   /* messages typed during a turn, sent when it ends */
	struct buf first_run_text;
	struct theme th;     /* current theme (/theme switches it) */
};

/* Add a notice line (drawn in theme role `role`) to the transcript. */
void app_state_notice(struct app *a, uint16_t role, const char *s);
/* While busy: redraw every APP_TICK_MS (spinner, time, a running command's output). */
void app_state_tick(struct app *a);
/* Leave the session at the end of this loop pass. */
void app_state_quit(struct app *a);
/* Refresh the git branch and changed-file count of the status line. */
void app_state_git(struct app *a);
/*
 * Parallel bootstrap: read the session prompt (git status, context files,
 * memory: front_session.prompt) into the agent and the status line's git
 * summary, once; after the first frame while discovery is on the wire,
 * and before any turn.
 */
void app_state_boot(struct app *a);

/*
 * The GET /slots poll for the server panel (ui/app/app.c).
 * Every APP_POLL_BUSY_MS while a turn runs, every APP_POLL_IDLE_MS when
 * idle; never two at once (one pending timer or one request in flight);
 * when the server is gone, backoff doubling up to 30 s, shown in the panel
 * as "reconnecting".  A 501 (slots disabled) is shown once and polled at
 * the idle pace.
 */
/* Poll in ms (replacing a pending timer; nothing while a request is out or after quit). */
void app_poll_in(struct app *a, uint64_t ms);

#endif

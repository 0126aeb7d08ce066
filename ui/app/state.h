/*
 * appstate: the state of the full-screen session shared by its parts.
 *
 * app.c owns the lifetime (setup, the frame, discovery, signals, release);
 * appkeys.c the key dispatch, appturn.c the agent's observer and the
 * sending of turns, apppoll.c the GET /slots poll, appcmd.c the commands
 * the full screen adds to the shared ones.  They all work on one
 * struct app, which lives on app_run's stack for the whole session.
 *
 * Invariants: `dirty` set means a frame is drawn in a before-sleep hook
 * soon: at once when the last one is APP_FRAME_MS old, else when
 * frame_timer fires;
 * each timer id is 0 when that timer is not pending; at most one of
 * poll_timer / poll_inflight is set; `queued` holds the text typed while
 * a turn ran (or before the server answered), sent when it ends.
 */
#ifndef HEARTH_APPSTATE_H
#define HEARTH_APPSTATE_H

#include <stdint.h>

#include "agent.h"
#include "approve.h"
#include "buf.h"
#include "diffview.h"
#include "editor.h"
#include "grid.h"
#include "keys.h"
#include "layout.h"
#include "repl.h"
#include "sesscmd.h"
#include "tsearch.h"
#include "term.h"
#include "theme.h"
#include "view.h"

enum app_state { AS_PROBING, AS_READY, AS_QUIT };

#define APP_POLL_BUSY_MS 500
#define APP_POLL_IDLE_MS 5000
#define APP_RETRY_MS 2000
#define APP_ESC_MS 30
#define APP_CTRLC_MS 2000
#define APP_FRAME_MS 16 /* at most one frame per 16 ms (a stream of deltas costs ~60 frames/s) */

struct app {
	const struct repl_deps *d;
	struct agent *agent;
	struct term *term;
	struct grid *grid;
	struct keys keys;
	struct editor ed;
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
	struct layout lay;
	struct sesscmd cmds;
	struct tsearch search; /* `/` search in the transcript */
	struct diffview dv;  /* the full-screen diff viewer, over everything when open */
	struct approve ap;   /* the gate's question, while one waits (gate.h) */
	enum app_state state;
	int busy, dirty, panel_on, first_run;
	int talked;        /* a turn was sent: the first-run screen no longer covers the transcript */
	int server_down;   /* the last discovery failed: a message may go to Claude (server_down rule) */
	long esc_timer, retry_timer, poll_timer, hint_timer, frame_timer;
	long boot_timer;     /* the slow start-up work, 1 ms after the first frame (appstate_boot) */
	int booted;
	int poll_inflight, poll_backoff;
	uint64_t t0_ms, ctrlc_ms, frame_ms; /* frame_ms: when the last frame was drawn */
	struct buf queued;   /* messages typed during a turn, sent when it ends */
	struct buf first_run_text;
	struct theme th;     /* current theme (/theme switches it) */
};

/* Add a notice line (drawn in theme role `role`) to the transcript. */
void appstate_notice(struct app *a, uint16_t role, const char *s);
/* Leave the session at the end of this loop pass. */
void appstate_quit(struct app *a);
/* Refresh the git branch and changed-file count of the status line. */
void appstate_git(struct app *a);
/*
 * Parallel bootstrap: read the session prompt (git status, context files,
 * memory: repl_deps.prompt) into the agent and the status line's git
 * summary, once; after the first frame while discovery is on the wire,
 * and before any turn.
 */
void appstate_boot(struct app *a);

#endif

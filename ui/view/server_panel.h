/*
 * ui/view/server_panel: what the local llama-server is doing — model updates and the
 * right-hand panel (screens.md).
 *
 * State is struct view_server (ui/view/view.h), fed by the lead from: discovery
 * (server_panel_set_info), every stream event (server_panel_on_event), each
 * GET /slots answer (server_panel_set_slots) or its 501 (server_panel_no_slots),
 * and the connection state (server_panel_reconnecting).  Nothing here does I/O
 * or reads a clock: times come in as arguments.
 *
 * The panel, top to bottom: "llama-server URL", "BUILD · N slots · ctx
 * 65.5k", "reconnecting in Ns" (THEME_WARNING) while the server is gone,
 * one row per slot "slot 1  PREFILL  16.2k ◀ you" (THEME_SLOT_* roles) or
 * "slots endpoint disabled (--no-slots)"; while a prompt is processed the
 * progress bar (server_panel_bar), "cached 16.0k", "2.4k/3.9k new · 1.5k
 * tok/s", "ETA 1.0s"; while decoding "decoding 71 tok/s"; "last turn" with
 * cache reuse, decode and prefill speeds; "session" with tokens in/out.
 * Rows that do not fit the rect are dropped from the bottom.
 */
#ifndef HEARTH_UI_VIEW_SERVER_PANEL_H
#define HEARTH_UI_VIEW_SERVER_PANEL_H

#include <stddef.h>
#include <stdint.h>

#include "ui/term/grid.h"
#include "llm/event.h"
#include "ui/view/view.h"

/* What discovery found, as the panel shows it (ui/app copies it from llama/wire.h's llama_info). */
struct server_panel_info {
	const char *model;  /* model id, NULL if unknown */
	const char *build;  /* "b<number>-<commit>", NULL if unknown */
	long n_ctx;         /* per-slot context */
	int total_slots;
};

/* The fields of one GET /slots entry the panel reads (ui/app copies them from llama_slot). */
struct server_panel_slot {
	int id;
	long n_ctx;
	int is_processing;
	long n_prompt_tokens;
	long n_prompt_tokens_processed;
	long n_decoded;
};

/* An empty server state (no slots known, nothing in flight). */
void server_panel_init(struct view_server *s);
/* Server address ("127.0.0.1:8080") and what discovery found (info may be NULL). */
void server_panel_set_info(struct view_server *s, const char *url, const struct server_panel_info *info);
/*
 * Feed a stream event: PROGRESS starts/updates the prefill bar; TEXT,
 * REASONING and TOOL_CALL_* mean decoding; TIMINGS and CACHE fill "last
 * turn"; USAGE adds to the session totals and sets ctx_used; DONE and
 * ERROR end the request.  Call it once per event (USAGE is summed).
 */
void server_panel_on_event(struct view_server *s, const struct llm_event *ev);
/*
 * A GET /slots answer at now_ms: copies up to VIEW_SLOTS_MAX slots, marks
 * our_id (-1: unknown) as ours, derives each state (processing with
 * prompt tokens left → prefill, processing → decoding, else idle) and the
 * live decode tok/s from our slot's n_decoded since the previous answer.
 * Clears slots_disabled and reconnecting.
 */
void server_panel_set_slots(struct view_server *s, const struct server_panel_slot *sl, size_t n,
    int our_id, uint64_t now_ms);
/* The turn was stopped (Esc): no prefill bar, no decoding, our slot idle until the next answer. */
void server_panel_stopped(struct view_server *s);
/* GET /slots answered 501: the panel says so (the progress bar stays). */
void server_panel_no_slots(struct view_server *s);
/* GET /slots answered 404/405 (an OpenAI-compatible server without it): the panel shows what is known. */
void server_panel_slots_absent(struct view_server *s);
/*
 * A request was sent at now_ms: until its first progress, text or end,
 * the status line and the panel show a spinner with the seconds waited
 * (what a server without prompt_progress shows for the whole prefill).
 */
void server_panel_wait(struct view_server *s, uint64_t now_ms);
/* "⠹ 12s": a spinner frame (one per 100 ms of now_ms) and the seconds since the wait began. */
void server_panel_spinner(const struct view_server *s, char *dst, size_t n);
/* The server is gone and the next try is in backoff_s seconds; < 0: it is back. */
void server_panel_reconnecting(struct view_server *s, int backoff_s);

/* Draw the panel into r. */
void server_panel_draw(struct grid *g, struct grid_rect r, const struct view_server *s);
/*
 * The prefill bar, w cells at (x, y): cached part "█" in
 * THEME_PROGRESS_CACHED, newly processed part "█" in THEME_PROGRESS_NEW,
 * the rest "░" in THEME_PROGRESS_EMPTY.  Cells are rounded down, except
 * that a non-zero part gets at least one cell.
 */
void server_panel_bar(struct grid *g, int x, int y, int w, const struct llm_progress *p);
/*
 * Prefill speed and time left from a progress report: tokens computed
 * (processed - cache) per second of time_ms, and the remaining tokens at
 * that rate.  0 when known, -1 when not yet (no time or nothing computed).
 */
int server_panel_rate(const struct llm_progress *p, double *tps, double *eta_s);
/* A token count as people read it: 950, 1.5k, 65.5k, 1.2M. */
void server_panel_count(char *dst, size_t n, long v);
/* A tier's state for the panel and the folded line: "1/2 free", "down" or "up". */
void server_panel_tier_state(const struct view_tier *t, char *dst, size_t n);

#endif

/*
 * ui/view/transcript: the conversation view — its model updates and its drawing.
 *
 * State is struct view_transcript (ui/view/view.h).  The update functions copy
 * what they keep (event strings are borrowed).  transcript_draw is a pure
 * function of the state and a rect: items are laid out top to bottom,
 * wrapped to the rect's width; in follow mode the bottom of the content is
 * shown, otherwise the content rows from tv->scroll (clamped) on.
 *
 * What an item looks like:
 *   user       "› text" (THEME_USER), wrapped with a hanging indent; a
 *              queued one has a dim "  ⋯ queued" row after it, a rejected
 *              one (too long for the context) an error-coloured
 *              "  ✗ rejected: too long for the context, not sent again" row
 *   assistant  markdown (ui/view/markdown.h); "[interrupted]" after a stopped answer
 *   reasoning  one dimmed line "∴ first line … (N lines)" unless expanded
 *   tool       "● name args   +a −d  note · 1.2s ✓" (note: tool_summary, "▸" when
 *              focused) then its diff (at most
 *              TRANSCRIPT_DIFF_FOLDED rows unless expanded: line numbers,
 *              +/- roles, word-level highlight of a -/+ pair's changed
 *              span); when expanded, its output under "│ "; while it
 *              runs, the last TRANSCRIPT_LIVE_ROWS lines of its output
 *   notice     "→ text" in the notice's role (no second arrow when the text
 *              starts with one); of several lines, each wrapped under itself
 *              and a "name  text" row (two blanks apart) under its text
 * Everything goes through ui/term/draw.h / ui/view/markdown.h, which sanitise.
 */
#ifndef HEARTH_UI_VIEW_TRANSCRIPT_H
#define HEARTH_UI_VIEW_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
#include "ui/term/grid.h"
#include "llm/event.h"
#include "ui/view/view.h"

#define TRANSCRIPT_DIFF_FOLDED 12
#define TRANSCRIPT_LIVE_ROWS 5

/* An empty transcript in follow mode. */
void transcript_init(struct view_transcript *tv);
/* Free every item (the struct can be reused after transcript_init). */
void transcript_release(struct view_transcript *tv);

/* Append a user message. */
void transcript_add_user(struct view_transcript *tv, const char *s, size_t n);
/*
 * Queued messages (typed while no turn can start): transcript_add_queued
 * appends a user message marked queued (a dim "queued" row under it);
 * transcript_unqueue clears the mark of every queued message (they were
 * sent) and returns how many there were; transcript_drop_queued removes
 * them (the queue was dropped) and returns how many.
 */
void transcript_add_queued(struct view_transcript *tv, const char *s, size_t n);
size_t transcript_unqueue(struct view_transcript *tv);
size_t transcript_drop_queued(struct view_transcript *tv);
/*
 * The last user message's turn was rejected (too long for the server's
 * context) and left out of the conversation: it is marked (a "rejected"
 * row under it).  0, or -1 when there is no user message.
 */
int transcript_reject_last_user(struct view_transcript *tv);
/* Append a notice line drawn in `role` (route change, error, ...); while an
 * answer streams it is held and added after the answer's item closes. */
void transcript_add_notice(struct view_transcript *tv, uint16_t role, const char *s, size_t n);
/*
 * Feed a stream event: TEXT / REASONING grow the open item (a new one
 * after a change of kind), TOOL_CALL_BEGIN / DONE / ERROR close it, ERROR
 * adds a notice (ABORTED marks the answer aborted instead), CACHE with
 * is_break (unless planned: its cause was told) and NOTICE add notices;
 * a cache break's is one row, "cache break: CAUSE (reuse R%, expected
 * E%)" cut at the width.  Other kinds are ignored.
 */
void transcript_on_event(struct view_transcript *tv, const struct llm_event *ev);
/* A tool call started (agent on_tool_start): appends a running tool item. */
void transcript_tool_start(struct view_transcript *tv, const struct agent_call *c);
/*
 * A running call began (its time counts from c->t_start_ms) or wrote
 * output: the item shows the last TRANSCRIPT_LIVE_ROWS lines of
 * c->job.live under its header until it finishes.
 */
void transcript_tool_output(struct view_transcript *tv, const struct agent_call *c);
/*
 * A tool call finished (agent on_tool_done): fills the item of the same
 * call id (appends one when none) with status, output, diff, duration.
 */
void transcript_tool_done(struct view_transcript *tv, const struct agent_call *c);

/* Toggle the expanded flag of the last tool or reasoning item. */
void transcript_toggle_last(struct view_transcript *tv);
/*
 * Ctrl-O in a view of w×h: toggle the item in focus; with no focus and
 * scrolled back, the item in view (transcript_in_view); following, the last.
 */
void transcript_toggle_here(struct view_transcript *tv, int w, int h);
/* The last tool or reasoning item whose first row shows in the view of w×h; -1 none. */
long transcript_in_view(const struct view_transcript *tv, int w, int h);
/*
 * Focus mode (tv->focus): start on the item in view (-1 when there is no
 * tool or reasoning item), move to the previous / next one (dir -1 / +1,
 * 0 stays; the view scrolls so its header shows), leave (the view stays).
 * transcript_toggle_all opens every tool and reasoning item, or closes
 * them all when all are open.
 */
int transcript_focus_start(struct view_transcript *tv, int w, int h);
void transcript_focus_move(struct view_transcript *tv, int dir, int w, int h);
void transcript_focus_end(struct view_transcript *tv);
void transcript_toggle_all(struct view_transcript *tv);
/*
 * The turn was stopped: the streaming answer is marked "[interrupted]"
 * (the last answer when none streams), else an "[interrupted]" notice.
 */
void transcript_interrupted(struct view_transcript *tv);

/* Content rows at `width` columns. */
long transcript_rows(const struct view_transcript *tv, int width);
/* Scroll by delta rows (negative: up) in a view of w×h; reaching the bottom follows again. */
void transcript_scroll(struct view_transcript *tv, long delta, int w, int h);
/* Back to following the stream (End). */
void transcript_follow(struct view_transcript *tv);
/*
 * Search: the first item at index >= from whose text, output, diff, name
 * or arguments contain needle (bytes, case-sensitive); -1 when none.
 */
long transcript_find(const struct view_transcript *tv, size_t from, const char *needle);
/* Stop following and scroll so that item `idx` is the top row at width w. */
void transcript_show_item(struct view_transcript *tv, size_t idx, int w);

/* Draw the transcript into r (pure: tv is not changed). */
void transcript_draw(struct grid *g, struct grid_rect r, const struct view_transcript *tv);

#endif

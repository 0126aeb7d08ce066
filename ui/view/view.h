/*
 * ui/view/view: the UI-side model the full-screen views draw from.
 *
 * The lead's wiring fills it from agent callbacks and llm events through
 * the update functions of the module that owns each part:
 *   struct view_transcript  ui/view/transcript.h (transcript_on_event, _tool_start…)
 *   struct view_server      ui/view/server_panel.h   (server_panel_on_event, _set_slots…)
 *   struct view_status      ui/view/status.h     (plain fields, set directly)
 * Views (transcript_draw, server_panel_draw, status_draw) are pure functions
 * of this state and a grid rect: they never change it except for the
 * transcript's scroll clamp.
 *
 * Invariants:
 * - every string here is owned by the struct (copied on update) and is
 *   raw text: it is sanitised when drawn, never before;
 * - view_transcript.items[0..n) in arrival order; at most one item is
 *   "open" (a streaming assistant or reasoning item): items[open] when
 *   open >= 0;
 * - view_server.slots[0..nslots), nslots <= VIEW_SLOTS_MAX.
 *
 * Lifetime: zero-initialise with transcript_init / server_panel_init; release
 * the transcript with transcript_release (the others hold no heap).
 */
#ifndef HEARTH_UI_VIEW_VIEW_H
#define HEARTH_UI_VIEW_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "llm/event.h"

enum view_item_kind {
	VIEW_USER,      /* text: what the person sent */
	VIEW_ASSISTANT, /* text: the answer (markdown), streamed */
	VIEW_REASONING, /* text: thinking; collapsed unless expanded */
	VIEW_TOOL,      /* a tool call: name, args, output, diff */
	VIEW_NOTICE     /* text: route change, cache break, error, ... */
};

enum view_tool_status { VIEW_TOOL_RUNNING, VIEW_TOOL_OK, VIEW_TOOL_ERROR };

struct view_item {
	enum view_item_kind kind;
	struct buf text;   /* message text; a tool's output */
	struct buf diff;   /* VIEW_TOOL: unified diff (empty: none) */
	char *name;        /* VIEW_TOOL: tool name; NULL otherwise */
	char *args;        /* VIEW_TOOL: short arguments ("src/cart.c") */
	char *call_id;     /* VIEW_TOOL: agent_call id, may be NULL */
	enum view_tool_status status;
	uint64_t t_start_ms, t_end_ms;
	int expanded;      /* tool output / reasoning shown in full */
	int waiting;       /* VIEW_TOOL: started, not yet running (its approval, the checkpoint):
			    * the header says "waiting to run", no timer */
	uint16_t role;     /* VIEW_NOTICE: theme role of the line */
	int aborted;       /* VIEW_ASSISTANT: the turn was stopped */
	int queued;        /* VIEW_USER: typed, not sent yet (drawn with a "queued" row) */
	int rejected;      /* VIEW_USER: its turn was rejected as too long and left out of the
			    * conversation (drawn with a "rejected" row) */
	int one_line;      /* VIEW_NOTICE: one row, cut at the width (a cache break) */
	char *note;        /* VIEW_TOOL: what the finished call found ("12 hits"), may be NULL */
	/* layout cache, ui/view/transcript.c's own (written even through a const
	 * transcript; invisible to everyone else): the item's rows at width
	 * cache_w while its cache_key (lengths and flags) is unchanged */
	long cache_rows;
	int cache_w;
	unsigned long cache_key;
	/* VIEW_ASSISTANT's checkpoints (same ownership): at width ck_w, the
	 * first ck[k].off bytes of text lay out in ck[k].rows rows, in
	 * increasing order; only at the start of a line whose end has
	 * arrived, so later text cannot change them (a streamed answer's
	 * frame lays out from the last one above the view, not the top) */
	struct view_ck *ck;
	size_t nck, capck;
	int ck_w;
};

/* One checkpoint of an assistant item (see view_item.ck). */
struct view_ck {
	size_t off;     /* a line start in text; mid: a word inside a paragraph line */
	long rows;      /* rows of text[0..off) */
	long code;      /* offset of the open fence's body, -1 outside a fence */
	int in_fence;   /* struct markdown_state at off */
	char lang[24];
	int mid;        /* off is a resume point inside a long paragraph line
			 * (markdown_wrap_marks): the rest of that line continues at
			 * column indent in role, without its bullet */
	int indent;
	uint16_t role;
};

struct view_transcript {
	struct view_item *items;
	size_t n, cap;
	long open;          /* index of the streaming item, -1 none */
	int follow;         /* stick to the bottom as text streams in */
	long scroll;        /* first content row shown when !follow */
	uint64_t now_ms;    /* set by the caller before drawing (running tools) */
	int show_reasoning; /* expand every reasoning item */
	long focus;         /* the item in focus (focus mode), -1 none */
	struct buf held;    /* notices that came while an answer streamed: role (2 bytes),
			     * '1' for one row or '0', text, NUL; added when the answer's item closes */
};

enum view_slot_state { VIEW_SLOT_IDLE, VIEW_SLOT_PREFILL, VIEW_SLOT_DECODING };

#define VIEW_SLOTS_MAX 16

struct view_slot {
	int id;
	enum view_slot_state state;
	long n_ctx;
	long tokens;  /* prompt tokens + decoded in the slot's KV */
	int is_ours;
};

#define VIEW_TIERS_MAX 8

/* One server of the servers setting (a tier), as the panel lists them. */
struct view_tier {
	char name[32];
	int workhorse;      /* role */
	int slots, idle;    /* from its /slots (0, 0: not known) */
	int down;           /* stopped answering */
	int active;         /* the tier the session's turns go to now */
	double tps;         /* output tokens per second of wall time on it this session (0: none yet) */
	int requests;       /* requests it answered this session (0: its figures are not shown) */
	long tokens;        /* prompt + output tokens it processed this session */
	double secs, cost;  /* wall time of its steps; cost in USD (0 without prices) */
};

struct view_server {
	char url[128];      /* "127.0.0.1:8080" */
	char build[64];     /* "b7120" */
	char model[128];
	long n_ctx;         /* per slot */
	int total_slots;
	struct view_slot slots[VIEW_SLOTS_MAX];
	int nslots;
	int have_slots;     /* at least one /slots answer arrived */
	int slots_disabled; /* /slots answered 501 (--no-slots) */
	int slots_absent;   /* /slots answered 404/405: a server without it (not llama-server) */
	int reconnecting;   /* the server is gone; retry in backoff_s */
	int backoff_s;
	/* the request in flight */
	int waiting;        /* sent, nothing back yet (no prompt_progress from this server, or not yet) */
	uint64_t wait_since_ms, now_ms; /* when the wait began; the frame's time (the spinner and its seconds) */
	int prefill;        /* a prompt is being processed */
	struct llm_progress progress;
	int decoding;
	double decode_tps;  /* live, from /slots n_decoded deltas */
	long last_decoded;  /* bookkeeping for decode_tps */
	uint64_t last_decoded_ms;
	/* the last finished request */
	int have_last;
	double last_reuse;  /* 0..1 */
	long last_cache_n, last_prompt_n;
	double last_decode_tps, last_prefill_tps;
	int last_break;
	/* the session */
	long session_in, session_out;
	long ctx_used;      /* prompt + completion tokens of the last request */
	/* every server of the servers setting (ntiers 0: one server) */
	struct view_tier tiers[VIEW_TIERS_MAX];
	int ntiers;
};

struct view_status {
	char cwd[256];      /* shown as given ("~/src/shop") */
	char branch[64];    /* "" outside git */
	int dirty;          /* changed files */
	char model[128];
	char route[32];     /* "local", "claude", or the tier's name (the servers setting) */
	char route_mode[16]; /* "auto" ... ("" hides it) */
	double spend_usd;   /* Claude spend this session (0 hides it) */
	int turns;
	long elapsed_s;
	int busy;           /* a turn is running (help line says "esc stop") */
	char sandbox[48];   /* bash's sandbox: "workspace-write (bwrap)", "none: asking", "off" ("" hides it) */
	char wait[128];     /* a countdown while the server loads its model ("" hides it) */
	/* liveness: while busy a spinner, the turn's time and the decode speed */
	uint64_t turn_ms;   /* how long the running turn has taken */
	int spin;           /* spinner frame */
	double tps;         /* live decode tok/s (0: none yet) */
	int scrolled;       /* the transcript is scrolled back (not following) */
	int focus_mode;     /* moving between transcript items (keys in the help line) */
};

#endif

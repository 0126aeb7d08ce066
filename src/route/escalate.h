/*
 * route/escalate: which model answers a turn — the local llama-server or
 * Claude — decided by the routing policy (route/route.h) and made visible.
 *
 * Per turn: a leading "@claude" or a pending /claude asks for Claude;
 * /local and routing mode "local" keep everything on the machine; the
 * policy's rules (task patterns, context size, failure signals) may
 * escalate on their own.  Guards always apply: without an API key, in
 * mode local or at a spend cap nothing leaves the machine, and the user
 * is told once why.  Each turn's outcome (route, reason, steps, answered,
 * files changed, tokens, cost, time) is appended to the outcomes log
 * that `hearth stats` summarises.
 *
 * The Anthropic provider is created only when a turn goes to Claude.
 * Borrows loop and http; owns the policy and the provider.
 */
#ifndef HEARTH_ROUTE_ESCALATE_H
#define HEARTH_ROUTE_ESCALATE_H

#include "anthropic/config.h"
#include "base/buf.h"
#include "base/err.h"
#include "route/cost.h"
#include "route/route.h"

#include <stdint.h>

struct loop;
struct http;
struct provider;
struct agent_stats;
struct anthropic;
struct route_privlines;
struct route_escalate_scan;

/* One routing decision of the session (print-mode json). */
struct route_escalate_decision {
	int step;                 /* agent steps before it (0 = at the start of the first turn) */
	char tier[32];            /* a local decision that moved to this tier ("": none) */
	enum route_target target;
	enum route_mode mode;
	char reason[ROUTE_REASON_MAX];
	int blocked;              /* Claude was wanted but a guard kept it local */
};

#define ROUTE_ESCALATE_RUNGS 8

/*
 * One tier of the servers setting (route/tiers.h) as the ladder sees it
 * (route/ladder.c): interactive → workhorse → Claude.  The provider is the
 * front's (borrowed); n_ctx and down come from its discovery.
 */
struct route_escalate_rung {
	char name[32];
	int workhorse;            /* role workhorse (else interactive) */
	struct provider *p;
	long n_ctx;               /* per-slot context; 0 unknown */
	int down;                 /* unreachable: the ladder skips it */
	int slots, idle;          /* from its GET /slots (0, 0: not known) */
	int load_known;           /* its GET /metrics states its load: */
	double running, waiting;  /* requests running, queued (llama/wire.h struct llama_load) */
	struct route_usage use;   /* this session */
	double cost, ms;          /* priced by the policy's prices (0 without one); wall time of its steps */
	int requests;
	struct route_usage use0;  /* use, cost, ms and requests when the running turn started */
	double cost0, ms0;
	int requests0;
};

struct route_escalate {
	struct loop *loop;
	struct http *http;
	struct route_policy policy;
	struct anthropic *an;
	char *key, *base_url, *model;
	char *log_path;           /* <state>/routes.jsonl */
	unsigned told;
	int pending;              /* /claude or /local for the next turn */
	double spent_session, spent_day;
	struct route_decision last;
	uint64_t began_ms;
	int steps_before;
	/* the running turn, between its steps (route_step) */
	struct agent *agent;      /* borrowed while attached */
	struct provider *local;
	int on_claude;            /* the requests since the last accounting went to Claude */
	int consulting;           /* the request in flight is a consult */
	int handed_off;           /* this turn was handed to Claude */
	size_t window0;           /* failure signals are read from this message on */
	int cf_base;              /* consecutive tool failures already counted before window0 */
	long n_ctx;
	long last_prompt;         /* prompt tokens of the last request (context rule) */
	struct route_usage snap;  /* agent usage at the last accounting */
	int snap_requests;
	struct route_usage route_use[2]; /* per route_target, this session */
	double route_cost[2];
	struct route_usage turn_use;
	double turn_cost;
	struct route_escalate_decision *dec;
	size_t ndec, adec;
	long idle_timeout_ms;     /* stream_idle_timeout for Claude's streams; 0: the provider's default */
	int turn_consults;        /* consults this turn: a second escalation hands off */
	int models_checked;       /* GET /v1/models was asked (once per session) */
	struct buf warning;       /* the model check's finding, until shown */
	struct anthropic_config claude;    /* "anthropic" settings */
	/* privacy by content (route/privlines.h): the newest set, and the scan on the io/work thread */
	char *root;
	struct route_privlines *plines;
	struct route_escalate_scan *pscan; /* in flight, or NULL */
	int prescan;              /* files may have changed since pscan started: scan again after it */
	/*
	 * Optional: where step decisions are shown at once (print mode), else
	 * they go in the hook's note; switched: the provider changed, or a
	 * warning (else the line says why a rule could not escalate).
	 */
	void (*announce)(void *arg, const char *line, int switched);
	void *announce_arg;
	/* tiers (route/ladder.c); nrungs 0: one server, no ladder */
	struct route_escalate_rung rungs[ROUTE_ESCALATE_RUNGS];
	size_t nrungs;
	int rung;                 /* the rung local requests go to now (-1: no tiers) */
	int start;                /* where turns start: the first interactive rung */
	int pin;                  /* /route NAME or --route NAME: turns start there (-1: none) */
	int warm;                 /* the rung the session's last local turn ran on: its cache is there (-1) */
	int timing;               /* a turn runs: wall time is attributed (route_step_account) */
	uint64_t snap_ms;
	double claude_ms;         /* wall time of the steps on Claude */
	int claude_requests;
	struct route_usage claude_use0; /* Claude's figures when the running turn started */
	double claude_ms0, claude_cost0;
	int claude_requests0;
};

/* Policy from the settings files under cwd; key/base URL from the environment. */
void route_escalate_init(struct route_escalate *x, struct loop *l, struct http *h, const char *cwd,
		   const char *state_dir, struct buf *warnings);
void route_escalate_release(struct route_escalate *x);
/* --route / /route auto|local|claude. */
int route_escalate_set_mode(struct route_escalate *x, const char *mode, struct err *e);
/*
 * Choose the provider for a turn.  *text loses a leading "@claude".
 * Returns local or the Claude provider; x->last holds the decision.
 * A line for the user (the route and its reason, or why a rule could not
 * escalate) is appended to note when there is something to say.
 */
struct provider *route_escalate_turn(struct route_escalate *x, const char **text, struct provider *local,
			       long n_ctx, const struct agent_stats *st, struct buf *note);
/* The turn ended: add its cost to the spend and append the outcome. */
void route_escalate_turn_end(struct route_escalate *x, const struct agent_stats *st, int answered,
		       int files_changed, double wall_s);
/*
 * Interactive turns: route the text (a leading @claude removed), switch
 * the agent's provider and remember when the turn began; route_escalate_end
 * records its outcome.  The note says where the turn went, or why not.
 */
struct agent;
const char *route_escalate_begin(struct route_escalate *x, struct agent *a, struct provider *local,
			   const char *text, long n_ctx, struct buf *note);
void route_escalate_end(struct route_escalate *x, struct agent *a, int answered);
/*
 * An interactive turn while the local server does not answer: the
 * server_down rule decides.  On Claude the agent is pointed at it and the
 * turn is followed as route_escalate_begin does (return 1); otherwise 0 (the
 * caller waits for the server).  note gets the line for the user.
 */
int route_escalate_begin_down(struct route_escalate *x, struct agent *a, struct provider *local,
			struct buf *note);
/* Whether the server_down rule would send a turn to Claude now (nothing recorded). */
int route_escalate_down_possible(const struct route_escalate *x);
/*
 * Follow the agent's steps for this turn (print mode; route_escalate_begin does
 * it for the interactive sessions): installs the step hook (route_step) and
 * takes the usage baseline.
 */
void route_escalate_attach(struct route_escalate *x, struct agent *a);
/*
 * The local server did not answer before a turn (print mode): the
 * server_down rule decides; returns Claude or NULL (stay local and fail),
 * with the line for the user in note.
 */
struct provider *route_escalate_server_down(struct route_escalate *x, struct provider *local,
				      struct buf *note);
/*
 * Re-read the lines of the privacy-listed files on the io/work thread
 * (route/privlines.h) unless nothing can go to Claude (no key); requests
 * use the newest set that is ready.  Called at the start, at each turn's
 * start and after every step (files may have changed).
 */
void route_escalate_rescan(struct route_escalate *x);
/* The Claude provider (created on first use, with the settings and the privacy filter). */
struct provider *route_escalate_claude(struct route_escalate *x);
/* Move a pending one-line warning (unknown model id) to out; 1 when there was one. */
int route_escalate_take_warning(struct route_escalate *x, struct buf *out);
/*
 * Run the loop until a model check in flight answers, at most max_ms (end
 * of print mode; the loop's before-sleep hook is cleared).
 */
void route_escalate_settle(struct route_escalate *x, int max_ms);
/* Spend of this session in USD (status line). */
double route_escalate_spent(const struct route_escalate *x);
/*
 * The ladder (route/ladder.c).  route_escalate_add_rung registers a tier
 * with its provider (borrowed; the first interactive one is where turns
 * start); -1 when there are too many.  route_escalate_rung_ready records
 * its discovery (n_ctx, or down).  route_escalate_rung_find: the index of
 * a name, or -1.  route_escalate_where: the tier answering now ("claude",
 * a tier's name, or "local").
 */
int route_escalate_add_rung(struct route_escalate *x, const char *name, int workhorse, struct provider *p);
void route_escalate_rung_ready(struct route_escalate *x, int i, long n_ctx, int down);
int route_escalate_rung_find(const struct route_escalate *x, const char *name, size_t len);
/* A rung's GET /slots answered: slots in all, idle of them (a server up again is no longer down). */
void route_escalate_rung_slots(struct route_escalate *x, int i, int slots, int idle);
/* Rung i's load from its GET /metrics (known 0: it states none). */
void route_escalate_rung_load(struct route_escalate *x, int i, int known, double running, double waiting);
const char *route_escalate_where(const struct route_escalate *x);
/* `hearth stats`: the outcomes table. */
int route_escalate_stats(const char *state_dir, struct buf *out, struct err *e);

#endif

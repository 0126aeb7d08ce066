/*
 * front/run: what one hearth run owns and how it is set up and torn down —
 * settings, workspace, tools and prompt (front_run_setup), then the loop, http,
 * llama provider, print-mode output and routing (front_run_start), the session
 * journal and its checkpoints.  Print mode (front_print) and the interactive
 * sessions (front/line, ui/app) start from a front_run_open'ed struct front_run.
 */
#ifndef HEARTH_FRONT_RUN_H
#define HEARTH_FRONT_RUN_H

#include <limits.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/cfg.h"
#include "front/checkpoint.h"
#include "front/cli.h"
#include "front/session.h"
#include "front/turn.h"
#include "llm/conv.h"
#include "route/escalate.h"
#include "route/tiers.h"
#include "session/journal.h"
#include "llm/tool.h"
#include "llm/toolset.h"

#define FRONT_RUN_MAX_TOOLS 32

struct loop;
struct perm_gate;
struct http;
struct llama;
struct front_output;
struct llama_serve;

struct front_run {
	struct front_cli *o;
	struct cfg cfg;
	struct loop *loop;
	struct http *http;
	struct llama *llama;
	struct front_turn turn;    /* print mode's agent and its one turn (front/turn.h) */
	struct front_session session; /* what turn runs on (front_run_session) */
	struct front_output *pm;
	struct tool_env env;
	const struct tool *tools[FRONT_RUN_MAX_TOOLS];
	size_t ntools;
	struct toolset toolset;   /* offered / deferred tools (tool_search) */
	struct buf system;
	char root[PATH_MAX];
	char session_id[40];
	struct buf state_dir;
	uint64_t t0;
	int interrupted;
	struct session_journal journal;   /* this run's session file */
	struct front_checkpoint cp;     /* undo history of the session */
	struct perm_gate *gate;        /* permissions and hooks of every tool call */
	struct route_escalate esc;      /* local or Claude, per turn */
	struct route_tiers tiers;       /* the `servers` setting (route/tiers.h) */
	const struct route_tier *tier;  /* the tier this run talks to (NULL: no tiers, or --server) */
	int tier_pinned;                /* picked by --route NAME or @NAME: no escalation past it */
	int tier_rung;                  /* the ladder's index of r->tier (-1: no ladder) */
	struct front_run_tier *others;  /* the other tiers' servers (the ladder's rungs), or NULL */
	size_t nothers;
	struct front_run_tier *own;     /* r->llama as a rung (for the /slots poll), or NULL */
	long tier_timer;                /* the tiers' /slots poll (0: none) */
	void (*others_ready)(struct front_run *r); /* called once when no other tier's discovery is
						 * out any more (print mode waits for their
						 * contexts before routing its task), or NULL */
	long others_timer;              /* the bound on that wait (0: none) */
	const char *task;         /* the task after routing (a leading @claude removed) */
	struct conv resumed;      /* messages of a resumed session, until the agent exists */
	struct mcp *mcp;          /* MCP servers (none with --no-tools) */
	struct llama_serve *serve;      /* the llama-server hearth started (--serve), or NULL */
	char serve_model[PATH_MAX]; /* --serve's model, absolute (resolved before --cwd) */
	struct sandbox *sandbox;  /* bash's sandbox (io/sandbox.h), probed from the start */
	int prompt_pending;       /* system not built yet (print mode: front_run_prompt) */
	int trusted;              /* the project's hooks, MCP servers, wider settings apply (front/trust.h) */
};

/* Another tier's server: its settings, provider and discovery (front/run.c). */
struct front_run_tier {
	struct front_run *r;
	struct cfg cfg;
	struct llama *lm;
	int rung;
	int inflight;             /* a GET /slots is out */
	int no_slots;             /* /slots answered 4xx or 501: not asked again while up */
	int load_inflight;        /* a GET /metrics is out */
	int no_metrics;           /* /metrics is not there (or says nothing of the load): not asked again */
	int alive_inflight;       /* down: the liveness check is out */
	int probing;              /* its discovery is out */
	int discovered;           /* its discovery succeeded once (the context is known) */
	uint64_t next_ms;         /* down: the next liveness check not before this time */
	uint64_t backoff_ms;      /* down: the wait after the last failed check */
};

/* Discovery of the run's own server finished: its tier's context (n_ctx), or down. */
void front_run_tier_ready(struct front_run *r, long n_ctx, int down);
/* How many other tiers' discoveries are still out (their contexts not known yet). */
size_t front_run_others_probing(const struct front_run *r);

/* Set up a run from the command line; -1 when ready, else the exit code (all released). */
int front_run_open(struct front_run *r, struct front_cli *o);
/* Free everything front_run_open made (and print mode's agent, when one was created). */
void front_run_release(struct front_run *r);
/* Print mode: report MCP problems through fn and wait until every server has started or failed. */
void front_run_wait_mcp(struct front_run *r, void (*fn)(void *arg, const char *line), void *arg);
/*
 * Build the session prompt into r->system if it is still pending (print
 * mode defers it so that git status, the context files and memory are
 * read while the server answers discovery); warnings go to stderr.
 */
void front_run_prompt(struct front_run *r);
/* The same for the sessions (front_session.prompt): run is a struct front_run; warnings appended. */
const char *front_run_prompt_text(void *run, struct buf *warnings);
/*
 * What a session runs on, from r (front/session.h): r's loop, providers,
 * tools, journal, gate, checkpoints, router and MCP servers (borrowed: r
 * outlives s), stdin/stdout, an empty system prompt and front_run_prompt_text
 * to build it.
 */
void front_run_session(struct front_run *r, struct front_session *s);
/* $XDG_STATE_HOME/hearth (or ~/.local/state/hearth), appended to out. */
void front_run_state_dir(struct buf *out);

/*
 * The user's settings alone, over the defaults: every settings file
 * cfg_each_file reads from root except the project's .hearth/settings.json
 * (what an untrusted project must not decide).  user is initialised here;
 * the caller releases it with cfg_release.  Problems go to warnings.
 */
void front_run_user_cfg(const char *root, struct cfg *user, struct buf *warnings);
/*
 * The server over the settings files: OPENAI_BASE_URL, then HEARTH_SERVER,
 * then flag_server (--server; NULL: none) set server_url; OPENAI_API_KEY
 * becomes server_api_key (and a masked secret, base/secret.h).
 */
struct cfg;
void front_run_server_env(struct cfg *c, const char *flag_server);

#endif

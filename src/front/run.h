/*
 * run: what one hearth run owns and how it is set up and torn down —
 * settings, workspace, tools and prompt (run_setup), then the loop, http,
 * llama provider, print-mode output and routing (run_start), the session
 * journal and its checkpoints.  Print mode (printrun) and the interactive
 * sessions (repl, app) start from a run_open'ed struct run.
 */
#ifndef HEARTH_RUN_H
#define HEARTH_RUN_H

#include <limits.h>
#include <stdint.h>

#include "buf.h"
#include "cfg.h"
#include "checkpoint.h"
#include "cli.h"
#include "conv.h"
#include "escalate.h"
#include "journal.h"
#include "tool.h"
#include "toolset.h"

#define RUN_MAX_TOOLS 32

struct loop;
struct gate;
struct http;
struct llama;
struct agent;
struct pmode;
struct serve;

struct run {
	struct cli *o;
	struct cfg cfg;
	struct loop *loop;
	struct http *http;
	struct llama *llama;
	struct agent *agent;
	struct pmode *pm;
	struct tool_env env;
	const struct tool *tools[RUN_MAX_TOOLS];
	size_t ntools;
	struct toolset toolset;   /* offered / deferred tools (tool_search) */
	struct buf system;
	char root[PATH_MAX];
	char session_id[40];
	struct buf state_dir;
	uint64_t t0;
	int interrupted;
	struct journal journal;   /* this run's session file */
	struct checkpoint cp;     /* undo history of the session */
	struct gate *gate;        /* permissions and hooks of every tool call */
	struct escalate esc;      /* local or Claude, per turn */
	const char *task;         /* the task after routing (a leading @claude removed) */
	struct conv resumed;      /* messages of a resumed session, until the agent exists */
	struct mcp *mcp;          /* MCP servers (none with --no-tools) */
	struct serve *serve;      /* the llama-server hearth started (--serve), or NULL */
	char serve_model[PATH_MAX]; /* --serve's model, absolute (resolved before --cwd) */
	int prompt_pending;       /* system not built yet (print mode: run_prompt) */
};

/* Set up a run from the command line; -1 when ready, else the exit code (all released). */
int run_open(struct run *r, struct cli *o);
/* Free everything run_open made (and the agent, when one was created). */
void run_release(struct run *r);
/* Print mode: report MCP problems through fn and wait until every server has started or failed. */
void run_wait_mcp(struct run *r, void (*fn)(void *arg, const char *line), void *arg);
/*
 * Build the session prompt into r->system if it is still pending (print
 * mode defers it so that git status, the context files and memory are
 * read while the server answers discovery); warnings go to stderr.
 */
void run_prompt(struct run *r);
/* The same for the sessions (repl_deps.prompt): run is a struct run; warnings appended. */
const char *run_prompt_text(void *run, struct buf *warnings);
/* $XDG_STATE_HOME/hearth (or ~/.local/state/hearth), appended to out. */
void run_state_dir(struct buf *out);

#endif

/*
 * front/session: what an agent session runs on — the contract between
 * main.c, which fills one from its struct front_run (front/run.h), and
 * what runs on it: the line session (front/line.h), the full screen
 * (ui/app/app.h), their shared slash commands (front/commands.h) and the
 * turn controller (front/turn.h), which print mode fills one for too.
 *
 * It was struct repl_deps, then front_line_deps, named after the line mode
 * although every front end used it.  It has its own header, apart from
 * front/turn.h, because the commands and ui/app's state need the struct
 * without the controller, and the controller is not the only thing that
 * reads it (discovery, stdin, MCP reports are the front ends' own).
 *
 * Everything is borrowed: the struct and what it points to outlive every
 * front end and controller using it; nothing here is freed by them.
 * Pointers marked "NULL: ..." are optional; the others are required
 * (in_fd/out_fd only by the line session).
 */
#ifndef HEARTH_FRONT_SESSION_H
#define HEARTH_FRONT_SESSION_H

#include <stddef.h>

#include "base/buf.h"

struct loop;
struct llama;
struct cfg;
struct tool;
struct tool_env;
struct session_journal;
struct front_checkpoint;
struct route_escalate;
struct conv;
struct perm_gate;
struct mcp;
struct provider;

struct front_session {
	struct loop *loop;
	struct llama *llama;          /* the local llama-server (discovery, n_ctx) */
	struct provider *local;       /* where local turns go (NULL: llama_provider(llama)) */
	const struct cfg *cfg;
	const struct tool_env *env;
	const struct tool *const *tools;
	size_t ntools;
	const char *system;           /* the system prompt the agent starts with */
	int in_fd, out_fd;            /* the line session's terminal */
	struct session_journal *journal; /* where messages are saved (NULL: nowhere) */
	struct perm_gate *gate;       /* permissions and hooks (NULL: every call runs) */
	struct conv *resumed;    /* messages of a resumed session (moved into the agent) */
	struct front_checkpoint *checkpoint; /* undo history (NULL: none) */
	struct route_escalate *esc;          /* local or Claude per turn (NULL: always local) */
	struct mcp *mcp;               /* MCP servers: their reports become notices (NULL: none) */
	/*
	 * The session prompt, built on the first call (git status, context
	 * files, memory: the slow part of start-up), so a front end can draw
	 * and start discovery first; warnings appended.  NULL: system is final.
	 */
	const char *(*prompt)(void *arg, struct buf *warnings);
	void *prompt_arg;
};

#endif

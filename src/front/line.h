/*
 * front/line: the line-mode interactive session (`hearth` on a terminal until
 * the full-screen UI lands, and whenever stdout is not a terminal).
 *
 * Reads a line from stdin through the loop, runs it as an agent turn and
 * streams the answer to stdout as it arrives (sanitised: model output
 * never reaches the terminal raw), with one line per tool call.  When no
 * server answers it shows the first-run guidance and keeps probing until
 * one appears.  Ctrl-C aborts a running turn; at the prompt it quits, as
 * does Ctrl-D.
 */
#ifndef HEARTH_FRONT_LINE_H
#define HEARTH_FRONT_LINE_H

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

struct front_line_deps {
	struct loop *loop;
	struct llama *llama;
	const struct cfg *cfg;
	const struct tool_env *env;
	const struct tool *const *tools;
	size_t ntools;
	const char *system;
	int in_fd, out_fd;
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

/* The first-run guidance when no server answers at url (why: the error; quit: the key hint). */
void front_line_first_run_text(const char *url, const char *why, const char *quit, struct buf *out);
/* Run the session until the user quits; returns the exit code (0). */
int front_line_run(const struct front_line_deps *d);

#endif

/*
 * agent/cutoff: the explore→produce cutoff (issue 6).  A small model left
 * alone keeps reading.  After `limit` steps in a row whose tool calls
 * only looked (read, grep, find, ls, outline, repo_map, tool_search, a
 * read-only bash command) with no change and no answer, the next steps
 * may only produce: edit, write or bash (a tool that may change files).
 * A short note appended to the conversation says why; calls to other
 * tools are refused with a one-line reason until a producing call runs.
 * Calls to read-only extension tools (MCP tools whose server sets
 * annotations.readOnlyHint: TOOL_EXTERNAL with TOOL_READ_ONLY) neither
 * count toward the limit nor are refused: they look outside the
 * workspace (a database, a web page), which reading files cannot replace.
 *
 * The tool list sent to the server stays the same: chat templates render
 * the tools at the top of the prompt, so shrinking it would make the
 * server re-read the whole conversation (and again when the list grows
 * back).  The note is appended after the last tool result, so every
 * earlier byte of the request is unchanged.
 *
 * State is per turn (agent_cutoff_reset at the start of a turn).
 */
#ifndef HEARTH_AGENT_CUTOFF_H
#define HEARTH_AGENT_CUTOFF_H

#include <stddef.h>

#include "agent/agent.h"
#include "base/buf.h"

struct tool;

struct agent_cutoff {
	int limit;   /* <= 0: off */
	int streak;  /* read-only steps in a row this turn */
	int active;  /* only producing tools are allowed */
	int engaged; /* how many times it engaged (stats) */
};

/* A new turn: streak and restriction cleared (engaged is kept). */
void agent_cutoff_reset(struct agent_cutoff *c);
/*
 * Count the step whose calls just ran.  Returns 1 when the cutoff
 * engages now, with the note for the model in note; else 0.
 */
int agent_cutoff_after_step(struct agent_cutoff *c, const struct agent_call *calls, size_t n,
		      struct buf *note);
/* While active: 1 and the reason in why when a call to t must be refused. */
int agent_cutoff_refuses(const struct agent_cutoff *c, const struct tool *t, struct buf *why);

#endif

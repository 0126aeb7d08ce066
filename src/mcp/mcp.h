/*
 * mcp/mcp: MCP servers (stdio, or HTTP: mcp/http.h) as tools (the client side of the Model
 * Context Protocol).
 *
 * mcp_start spawns every configured server (mcp_config) as a child on the
 * loop (proc: own process group, stdin and stdout pipes, stderr kept for
 * error reports) and talks to each without blocking: initialize →
 * notifications/initialized → tools/list (following nextCursor).  Each
 * tool the server lists joins the tool registry (tool_register) as
 * `mcp__<server>__<tool>` (characters outside [A-Za-z0-9_-] become '_',
 * at most 64 characters) with the server's inputSchema; the agent picks
 * the registered tools up at the start of each turn.  A
 * notifications/tools/list_changed lists again and replaces the server's
 * tools.  A tool call is tools/call; aborting it (agent_abort) sends
 * notifications/cancelled.
 *
 * Timeouts: a tools/call carries a progressToken; each
 * notifications/progress for it starts its wait (setting mcp_timeout)
 * again, up to 10 timeouts in all.  A call that runs out of time is
 * cancelled on its own (notifications/cancelled, the job fails with one
 * line); the server and its other calls go on.
 *
 * Failure: a server that cannot start, exits, closes its pipes, answers
 * anything but JSON-RPC 2.0, or does not answer initialize or tools/list
 * within the timeout (at least 30 s: node and npx servers take seconds to
 * start) is reported in one line ("mcp server NAME: ...; its tools are removed"),
 * killed with its process group, and its tools are unregistered; calls
 * in flight end with that line as their error.  The session continues.
 *
 * Reports go to the sink set with mcp_set_report; lines that arrive
 * before a sink is set are kept and delivered when it is set.
 *
 * Lifetime: the tool structs stay allocated until mcp_free, so an agent
 * that still holds one in the current turn never dangles (a call to a
 * removed tool fails with a message).  Free the agent first, then mcp,
 * then the loop.
 */
#ifndef HEARTH_MCP_MCP_H
#define HEARTH_MCP_MCP_H

#include <stddef.h>

#include "base/buf.h"

struct loop;
struct mcp;
struct mcp_config;

typedef void (*mcp_report_fn)(void *arg, const char *line);

/* A manager for servers run in directory root with a per-request timeout (seconds, > 0). */
struct mcp *mcp_new(struct loop *l, const char *root, int timeout_s);
/* Start every server of cfg (failures are reported, not returned). */
void mcp_start(struct mcp *m, const struct mcp_config *cfg);
/* Where reports go (NULL: keep them until a sink is set).  m may be NULL. */
void mcp_set_report(struct mcp *m, mcp_report_fn fn, void *arg);
/* How many servers are still starting (initialize, the first tools/list, or prompts/list in flight). */
size_t mcp_starting(const struct mcp *m);
/*
 * For /mcp: per server a line with its name, state, number of tools and
 * command, the reason it failed, then one line per tool (name, whether
 * it only reads, the first line of its description).
 */
void mcp_status(const struct mcp *m, struct buf *out);
/*
 * Stop server name (when it runs; its calls in flight fail) and start it
 * again from its configuration; its tools come back once it lists them.
 * 0 with a line in out, or -1 with a line saying why (no such server,
 * cannot start).
 */
int mcp_reconnect(struct mcp *m, const char *name, struct buf *out);
/*
 * Server i in configuration order: its name and state as Claude Code's
 * stream-json init names them ("pending", "connected", "failed"); 0, or
 * -1 when there is no server i (m may be NULL).
 */
int mcp_server_info(const struct mcp *m, size_t i, const char **name, const char **state);
/*
 * Prompts: a server's prompts (prompts/list, again on
 * notifications/prompts/list_changed) are commands named like tools,
 * `mcp__<server>__<prompt>`.  mcp_prompt_info appends prompt i over all
 * running servers' to command (its name without '/') and synopsis (its
 * arguments, "city [state]") and points *description at its description
 * (valid until the next event on the loop); 0, or -1 past the last.
 */
int mcp_prompt_info(const struct mcp *m, size_t i, struct buf *command, struct buf *synopsis,
		    const char **description);
/*
 * Expand prompt `command` with args (words in the order of the prompt's
 * arguments; the last one takes the rest of the line): prompts/get on its
 * server, then fn(arg, 1, text of its messages) or fn(arg, 0, one line of
 * why) from the loop.  0 once sent; -1 with a line in err (no such
 * prompt, a required argument missing: the usage).
 */
typedef void (*mcp_prompt_fn)(void *arg, int ok, const char *text);
int mcp_prompt_get(struct mcp *m, const char *command, const char *args, mcp_prompt_fn fn, void *arg,
		   struct buf *err);
/*
 * At exit: end each Streamable HTTP session with an HTTP DELETE (the spec's
 * "SHOULD") and run the loop until they are answered, wait_ms at most.
 * NULL ok.
 */
void mcp_end_sessions(struct mcp *m, int wait_ms);
/* Kill every server, unregister their tools and free everything.  NULL ok. */
void mcp_free(struct mcp *m);

#endif

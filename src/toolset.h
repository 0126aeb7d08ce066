/*
 * toolset: which tool schemas the model is offered (deferred tools).
 *
 * Small models do worse with many tools, and every schema costs prompt
 * tokens.  So only the core tools (read, write, edit, bash, grep, find,
 * ls, remember) and tool_search are offered up front; the other enabled tools
 * (outline, repo_map, later MCP tools) are "deferred": the model finds
 * them with tool_search{query}, which appends the matching schemas to the
 * offered list.  The list only ever grows at its end, so the earlier
 * entries (and their bytes in every request) never change.
 *
 * Invariants: offered ⊆ enabled, each tool at most once, offered order =
 * core tools in enabled order, then tool_search, then tools in the order
 * they were found.  With deferral off, offered = enabled.
 *
 * Ownership: a toolset borrows the tool tables (static, const).  It is
 * owned by the run and reached by tools through tool_env.toolset.
 */
#ifndef HEARTH_TOOLSET_H
#define HEARTH_TOOLSET_H

#include <stddef.h>

#include "buf.h"

struct conv;
struct tool;

/* The tool_search tool (tools/search.c). */
extern const struct tool tool_search;

#define TOOLSET_MAX 48

struct toolset {
	const struct tool *offered[TOOLSET_MAX]; /* sent to the model, in order */
	size_t noffered;
	const struct tool *deferred[TOOLSET_MAX]; /* enabled, not offered yet */
	size_t ndeferred;
	long saved_tokens; /* estimated schema tokens not sent (deferred now) */
	int added;         /* tools added by tool_search so far */
};

/* The core tools' names, NULL-terminated (offered up front). */
extern const char *const toolset_core[];
/* Whether name is a core tool. */
int toolset_is_core(const char *name);
/*
 * Split the enabled tools (fixed order) into offered and deferred; with
 * defer = 0, or when nothing would be deferred, everything is offered and
 * tool_search is not added.  search is the tool_search tool.
 */
void toolset_init(struct toolset *ts, const struct tool *const *enabled, size_t n, int defer,
		  const struct tool *search);
/*
 * Move the deferred tools matching query (words, case-insensitive, in the
 * name or description; "*" or "all" matches every one) to the end of the
 * offered list.  out gets one line per tool found (or what is available
 * when nothing matched).  Returns how many were added.
 */
size_t toolset_search(struct toolset *ts, const char *query, struct buf *out);
/*
 * Extension tools (MCP, tool_extra) that registered or went away since the
 * last call: a new one is deferred when tool_search is offered (found
 * like the others), else offered at the end; one no longer in extra[0..n)
 * leaves both lists.  Built-in tools are never touched.
 */
void toolset_sync(struct toolset *ts, const struct tool *const *extra, size_t n);
/*
 * A resumed session: load again what its tool_search calls loaded, so the
 * first request offers the same tools as the last one did.
 */
void toolset_replay(struct toolset *ts, const struct conv *c);
/* Estimated tokens of one tool's schema as sent (about 4 bytes a token). */
long toolset_schema_tokens(const struct tool *t);

#endif

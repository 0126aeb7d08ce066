/*
 * llm/toolset: which tool schemas the model is offered (deferred tools).
 *
 * Small models do worse with many tools, and every schema costs prompt
 * tokens.  So only the core tools (read, write, edit, bash, grep, find,
 * ls, remember) and tool_search are offered up front; the other enabled tools
 * (outline, repo_map, later MCP tools) are "deferred": the model finds
 * them with tool_search{query}, which appends the matching schemas to the
 * offered list.  The list only ever grows at its end, so the earlier
 * entries (and their bytes in every request) never change -- but chat
 * templates render the tool list before the conversation, so a load still
 * re-prefills it: toolset_take_loaded reports that as a planned cache
 * break, and toolset_want_defer ("auto") defers only large tool sets.
 *
 * Invariants: offered ⊆ enabled, each tool at most once, offered order =
 * core tools in enabled order, then tool_search, then tools in the order
 * they were found.  With deferral off, offered = enabled.
 *
 * Ownership: a toolset borrows the tool tables (static, const).  It is
 * owned by the run and reached by tools through tool_env.toolset.
 */
#ifndef HEARTH_LLM_TOOLSET_H
#define HEARTH_LLM_TOOLSET_H

#include <stddef.h>

#include "base/buf.h"

struct conv;
struct tool;

/* The tool_search tool (tools/search.c). */
extern const struct tool tool_search;

#define TOOLSET_MAX 48          /* tools offered in one request */
#define TOOLSET_DEFER_MAX 1024  /* tools waiting behind tool_search */
#define TOOLSET_LOAD_ROOM 8     /* places kept free for tool_search when the offered list fills up */

struct toolset {
	const struct tool *offered[TOOLSET_MAX]; /* sent to the model, in order */
	size_t noffered;
	const struct tool *deferred[TOOLSET_DEFER_MAX]; /* enabled, not offered yet */
	size_t ndeferred;
	size_t overflow;   /* extension tools deferred because the offered list was full */
	size_t dropped;    /* extension tools in neither list: both are full */
	long saved_tokens; /* estimated schema tokens not sent (deferred now) */
	int added;         /* tools added by tool_search so far */
	size_t sent;       /* noffered when the last request was sent (toolset_take_loaded) */
	long auto_min;     /* > 0: "auto" mode, may still start deferring (toolset_auto) */
	const struct tool *search; /* tool_search, for toolset_auto */
};

/* Whether t is a core tool (flag TOOL_CORE: offered up front, never deferred). */
int toolset_is_core(const struct tool *t);
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
 * leaves both lists.  Built-in tools are never touched.  When the offered
 * list is full (TOOLSET_MAX), extension tools at its end move to the
 * deferred list until TOOLSET_LOAD_ROOM places are free, the rest are
 * deferred even with deferral off, tool_search is offered to find them,
 * and `overflow` counts them; past TOOLSET_DEFER_MAX they are
 * counted in `dropped` (the caller says so; the caller also keeps
 * tool_search callable).
 */
void toolset_sync(struct toolset *ts, const struct tool *const *extra, size_t n);
/*
 * A resumed session: load again what its tool_search calls loaded, so the
 * first request offers the same tools as the last one did.
 */
void toolset_replay(struct toolset *ts, const struct conv *c);
/*
 * Whether to defer: mode 1 yes, 0 no, -1 ("auto") only when the schemas
 * deferral would keep out of the prompt (the non-core tools' minus
 * search's own) come to min_tokens or more.  A load re-prefills the
 * conversation (chat templates render the tool list before it), so small
 * tool sets are cheaper sent up front; see docs/discipline.md.
 */
int toolset_want_defer(const struct tool *const *enabled, size_t n, int mode, long min_tokens,
		       const struct tool *search);
/*
 * Auto mode (defer_tools "auto"): extension tools (MCP) register after
 * toolset_init, so until the first request is sent, toolset_sync defers
 * after all once the non-core schemas offered reach min_tokens.  search
 * is tool_search, which the caller keeps callable.
 */
void toolset_auto(struct toolset *ts, long min_tokens, const struct tool *search);
/* How many extension tools (tool_extra) are offered and deferred now. */
void toolset_extension_counts(const struct toolset *ts, size_t *offered, size_t *deferred);
/* Offered then deferred tools into out (at most max): the list the system prompt names. */
size_t toolset_listing(const struct toolset *ts, const struct tool **out, size_t max);
/* The estimated tokens deferral would save per request (for the rule above). */
long toolset_deferrable_tokens(const struct tool *const *enabled, size_t n, const struct tool *search);
/*
 * A request is about to offer ts->offered: 1 when tool_search loaded tools
 * since the previous request (its prefix breaks on purpose), and then
 * why ("tools loaded (outline, …)", after "; " if why is not empty) is
 * appended to why.  0 for the first request and when nothing changed.
 */
int toolset_take_loaded(struct toolset *ts, struct buf *why);

#endif

/*
 * agent/compact: when the conversation no longer fits, the local model writes a
 * structured summary of it (goal, decisions, files touched, open
 * problems, next step); the summary replaces the older turns and the
 * recent turns stay verbatim (issue 6, docs/cache.md).
 *
 * The summary request is the conversation as it is (so the server reuses
 * its cached prefix and prefills only the instruction) plus one user
 * message asking for the summary, with the same tools (the template puts
 * them in the system block) and no tool use asked for.  The rewrite keeps
 * whole turns: the kept part starts at a user message, so every tool call
 * keeps its result.  It is the one planned prefix change of compaction.
 *
 * Ownership: a run borrows the loop, provider, conv and tools (they must
 * outlive it); it frees itself after calling done.
 */
#ifndef HEARTH_AGENT_COMPACT_H
#define HEARTH_AGENT_COMPACT_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"
#include "llm/tool.h"

#define AGENT_COMPACT_KEEP_TURNS 1          /* earlier user turns kept verbatim (the new one comes on top) */
#define AGENT_COMPACT_MARK "[Summary of the earlier conversation, written when it was compacted]\n"

struct loop;
struct provider;
struct agent_compact_run;

/* rc 0: the conv was rewritten, msg says how; -1: unchanged, msg says why. */
typedef void (*agent_compact_done_fn)(void *arg, int rc, const char *msg);

/*
 * Start compacting c (keep the last keep_turns user turns); focus may be
 * NULL.  done is called once from the loop.  NULL + e when there is
 * nothing to compact or the request could not start.
 */
struct agent_compact_run *agent_compact_start(struct loop *l, struct provider *p, struct conv *c,
				  const struct tool *const *tools, size_t ntools, int keep_turns,
				  const char *focus, agent_compact_done_fn done, void *arg, struct err *e);
/* Stop (no callback).  NULL ok. */
void agent_compact_cancel(struct agent_compact_run *r);

/* Pure parts. */
/* Index of the first kept message (a user query); 0 when nothing would be summarised. */
size_t agent_compact_keep_from(const struct conv *c, int keep_turns);
/* The instruction sent as the last user message. */
void agent_compact_instruction(const char *focus, struct buf *out);
/* Replace messages before keep_from by the summary (put before the first kept message's text). */
void agent_compact_rewrite(struct conv *c, size_t keep_from, const char *summary);
/* Whether a request of `used` tokens leaves less than reserve of n_ctx (0 when n_ctx unknown). */
int agent_compact_due(long used, long n_ctx, long reserve);

#endif

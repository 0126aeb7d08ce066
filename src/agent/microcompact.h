/*
 * agent/microcompact: old tool results become short, fixed digests
 * (issue 6; the decision is in docs/cache.md).
 *
 * A tool result belongs to the user turn it was made in (turn t = the
 * number of user queries before it).  With keep = K, results are digested
 * in batches at the start of a turn: when turn T starts, every result of a
 * turn before cutoff(T) = floor((T - K) / K) * K (T >= 2K) is replaced,
 * so the replacement happens once every K turns and covers K whole turns,
 * and the results of at least the last K turns stay verbatim.  Each batch
 * is one planned prefix change, reported to the provider as an expected
 * cache break; between batches the prefix is stable.  cutoff is a pure
 * function of the conversation, so a resumed session digests exactly what
 * the original run had digested at the same turn.
 *
 * Digests (never longer than the result they replace; small results stay)
 * are the tool's own (struct tool.digest, llm/tool.h):
 *   read: path and line range;  bash: command, how it ended, last lines;
 *   grep: pattern, path and the number of matching lines;
 *   other tools (and unknown names): name, lines and bytes.
 * A digest starts with AGENT_MICROCOMPACT_MARK and is never digested again.
 */
#ifndef HEARTH_AGENT_MICROCOMPACT_H
#define HEARTH_AGENT_MICROCOMPACT_H

#include "base/buf.h"
#include "llm/conv.h"

#define AGENT_MICROCOMPACT_MARK "[older tool result, digested: "
#define AGENT_MICROCOMPACT_MIN_BYTES 400 /* results up to this size stay as they are */

struct agent_microcompact_stats {
	int events;        /* batches that changed something */
	int digested;      /* tool results replaced */
	long bytes_before; /* of the replaced results */
	long bytes_after;  /* of their digests */
};

/*
 * Turn T (the number of user queries in c) is about to start: digest what
 * falls under cutoff(T).  Returns the number of results digested now (0:
 * the conv is unchanged).  keep <= 0 turns it off.
 */
int agent_microcompact_apply(struct conv *c, int keep, struct agent_microcompact_stats *st);
/* The same, and when something changed, one line saying what (appended to why). */
int agent_microcompact_turn(struct conv *c, int keep, struct agent_microcompact_stats *st, struct buf *why);
/* The first turn whose results stay verbatim when turn T starts (pure). */
int agent_microcompact_cutoff(int turn, int keep);
/* The digest of one result (pure), appended to out. */
void agent_microcompact_digest(const char *tool, const char *args_json, const char *text, int is_error,
			 struct buf *out);

#endif

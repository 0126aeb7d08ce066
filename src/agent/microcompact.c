/*
 * agent/microcompact: digests of old tool results, in batches (agent/microcompact.h).
 *
 * Data: none kept; the conv is the state (a digested result is
 * recognised by its mark).  The tool call a result answers is found by
 * id in the assistant message before it, for the tool's name and
 * arguments.
 */
#include "agent/microcompact.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"
#include "llm/tool.h"


/* First turn kept verbatim when turn `turn` starts. */
int
agent_microcompact_cutoff(int turn, int keep)
{
	if (keep <= 0 || turn < 2 * keep)
		return 0;
	return (turn - keep) / keep * keep;
}

/* The digest of one result. */
void
agent_microcompact_digest(const char *tool, const char *args_json, const char *text, int is_error,
		    struct buf *out)
{
	cJSON *args = args_json ? cJSON_Parse(args_json) : NULL;
	const struct tool *t = tool ? tool_find(tool) : NULL;

	buf_adds(out, AGENT_MICROCOMPACT_MARK);
	if (is_error)
		buf_adds(out, "(error) ");
	if (t)
		tool_digest(t, args, text, out);
	else
		buf_addf(out, "%s, %ld lines, %zu bytes; run it again if needed]", tool ? tool : "tool",
			 tool_count_lines(text), strlen(text));
	cJSON_Delete(args);
}

/* The TOOL_CALL block with this id in message m, or NULL. */
static const struct conv_block *
mc_call(const struct conv_msg *m, const char *id)
{
	size_t i;

	for (i = 0; m && id && i < m->nblocks; i++)
		if (m->blocks[i].kind == CONV_TOOL_CALL && m->blocks[i].id &&
		    !strcmp(m->blocks[i].id, id))
			return &m->blocks[i];
	return NULL;
}

/* Replace one result by its digest when that is shorter. */
static int
mc_digest_block(struct conv_block *b, const struct conv_msg *prev, struct agent_microcompact_stats *st)
{
	const struct conv_block *call = mc_call(prev, b->id);
	struct buf d = BUF_INIT;
	size_t n = b->text ? strlen(b->text) : 0;

	if (n <= AGENT_MICROCOMPACT_MIN_BYTES || !strncmp(b->text, AGENT_MICROCOMPACT_MARK, strlen(AGENT_MICROCOMPACT_MARK)))
		return 0;
	agent_microcompact_digest(call ? call->name : b->name, call ? call->text : NULL, b->text, b->is_error,
			    &d);
	if (d.len >= n) {
		buf_release(&d);
		return 0;
	}
	st->bytes_before += (long)n;
	st->bytes_after += (long)d.len;
	st->digested++;
	free(b->text);
	b->text = buf_detach(&d, NULL);
	return 1;
}

/* Digest every result of the turns before the cutoff. */
int
agent_microcompact_apply(struct conv *c, int keep, struct agent_microcompact_stats *st)
{
	int turn = 0, cutoff, done = 0;
	size_t i, j;

	for (i = 0; i < c->nmsgs; i++)
		turn += conv_msg_is_query(&c->msgs[i]);
	cutoff = agent_microcompact_cutoff(turn, keep);
	turn = -1;
	for (i = 0; i < c->nmsgs && cutoff > 0; i++) {
		struct conv_msg *m = &c->msgs[i];

		turn += conv_msg_is_query(m);
		if (turn >= cutoff)
			break;
		if (m->role != CONV_USER)
			continue;
		for (j = 0; j < m->nblocks; j++)
			if (m->blocks[j].kind == CONV_TOOL_RESULT)
				if (mc_digest_block(&m->blocks[j], i ? &c->msgs[i - 1] : NULL, st)) {
					conv_msg_touch(m);
					done++;
				}
	}
	st->events += done > 0;
	return done;
}

/* Apply, and say what changed (the planned cache break's cause). */
int
agent_microcompact_turn(struct conv *c, int keep, struct agent_microcompact_stats *st, struct buf *why)
{
	struct agent_microcompact_stats now = { 0 };
	int n = agent_microcompact_apply(c, keep, &now);

	st->events += now.events;
	st->digested += now.digested;
	st->bytes_before += now.bytes_before;
	st->bytes_after += now.bytes_after;
	if (n > 0)
		buf_addf(why, "MicroCompact: %d old tool result%s digested (%ld → %ld bytes); the prompt is re-read from the first of them once",
			 n, n == 1 ? "" : "s", now.bytes_before, now.bytes_after);
	return n;
}

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

#define TAIL_LINES 3
#define ARG_MAX 160

/* First turn kept verbatim when turn `turn` starts. */
int
agent_microcompact_cutoff(int turn, int keep)
{
	if (keep <= 0 || turn < 2 * keep)
		return 0;
	return (turn - keep) / keep * keep;
}

/* Add s, cut to max bytes on one line (newlines become spaces). */
static void
mc_add_short(struct buf *out, const char *s, size_t max)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n && i < max; i++)
		buf_addch(out, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i]);
	if (n > max)
		buf_adds(out, "…");
}

/* Lines in text (a last line without newline counts). */
static long
mc_lines(const char *text)
{
	long n = 0;
	const char *p;

	for (p = text; *p; p++)
		n += *p == '\n';
	return n + (p > text && p[-1] != '\n');
}

/* read: the numbered lines shown ("%6ld\t..."): first and last number. */
static void
mc_read(const cJSON *args, const char *text, struct buf *out)
{
	const char *path = json_str(args, "path"), *p = text;
	long first = -1, last = -1, total = 0;
	const char *of = strstr(text, "[showing lines ");

	while (*p) {
		char *end;
		long no = strtol(p, &end, 10);

		if (end != p && *end == '\t') {
			if (first < 0)
				first = no;
			last = no;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (of && sscanf(of, "[showing lines %*d-%*d of %ld", &total) != 1)
		total = 0;
	buf_adds(out, "read ");
	mc_add_short(out, path ? path : "?", ARG_MAX);
	if (first >= 0)
		buf_addf(out, " lines %ld-%ld", first, last);
	if (total > 0)
		buf_addf(out, " of %ld", total);
	buf_adds(out, "; read it again if needed]");
}

/* Start of the last n lines of text[0..len). */
static const char *
mc_tail(const char *text, size_t len, int n)
{
	const char *p = text + len;

	while (p > text) {
		if (p[-1] == '\n' && p != text + len && --n == 0)
			break;
		p--;
	}
	return p;
}

/* bash: the command, how it ended (the last line) and the output lines before it. */
static void
mc_bash(const cJSON *args, const char *text, struct buf *out)
{
	const char *cmd = json_str(args, "command");
	size_t len = strlen(text);
	const char *tail;

	while (len > 0 && text[len - 1] == '\n')
		len--;
	tail = mc_tail(text, len, TAIL_LINES + 1);
	buf_adds(out, "bash `");
	mc_add_short(out, cmd ? cmd : "?", ARG_MAX);
	buf_addf(out, "`, %ld lines of output, the last ones:\n", mc_lines(text));
	buf_add(out, tail, (size_t)(text + len - tail));
	buf_adds(out, "]");
}

/* grep: pattern, where, and how many matching lines ("file:line:" rows). */
static void
mc_grep(const cJSON *args, const char *text, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path"), *p = text;
	long hits = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *c1 = strchr(p, ':');

		if (c1 && (!nl || c1 < nl) && c1[1] >= '0' && c1[1] <= '9')
			hits++;
		if (!nl)
			break;
		p = nl + 1;
	}
	buf_adds(out, "grep \"");
	mc_add_short(out, pat ? pat : "?", ARG_MAX);
	buf_adds(out, "\" in ");
	mc_add_short(out, path ? path : ".", ARG_MAX);
	buf_addf(out, ": %ld matching lines; search again if needed]", hits);
}

/* The digest of one result. */
void
agent_microcompact_digest(const char *tool, const char *args_json, const char *text, int is_error,
		    struct buf *out)
{
	cJSON *args = args_json ? cJSON_Parse(args_json) : NULL;

	buf_adds(out, AGENT_MICROCOMPACT_MARK);
	if (is_error)
		buf_adds(out, "(error) ");
	if (tool && !strcmp(tool, "read"))
		mc_read(args, text, out);
	else if (tool && !strcmp(tool, "bash"))
		mc_bash(args, text, out);
	else if (tool && !strcmp(tool, "grep"))
		mc_grep(args, text, out);
	else
		buf_addf(out, "%s, %ld lines, %zu bytes; run it again if needed]", tool ? tool : "tool",
			 mc_lines(text), strlen(text));
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
				done += mc_digest_block(&m->blocks[j], i ? &c->msgs[i - 1] : NULL, st);
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

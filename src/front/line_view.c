/*
 * front/line_view: the line session's view of the turn controller (private
 * part of front/line, see front/line-int.h): streamed text, notices, tool calls,
 * the controller's lines and the end of a turn, written to the output fd.
 *
 * Streamed text is written as it arrives; a UTF-8 sequence cut between
 * two deltas is held back (`carry`, at most 3 bytes) so it is not mistaken
 * for invalid bytes; the end of a turn drops it.
 */
#include "front/line-int.h"

#include <stdio.h>
#include <string.h>

#include "base/sanitize.h"
#include "front/output_json.h"

/* Streamed text: hold back an incomplete UTF-8 tail until the next delta. */
void
front_line_view_text(struct front_line *r, const char *s, size_t n)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	size_t keep = 0, i;

	buf_add(&in, r->carry, r->ncarry);
	buf_add(&in, s, n);
	for (i = in.len; i > 0 && i + 4 > in.len; i--) {
		unsigned char c = (unsigned char)in.data[i - 1];

		if (c >= 0xc0) { /* a lead byte: is its sequence complete? */
			size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

			if (in.len - (i - 1) < need)
				keep = in.len - (i - 1);
			break;
		}
		if (c < 0x80)
			break;
	}
	sanitize_term(&out, in.data, in.len - keep);
	memcpy(r->carry, in.data + in.len - keep, keep);
	r->ncarry = keep;
	front_line_out(r, out.data, out.len);
	if (out.len)
		r->at_line_start = out.data[out.len - 1] == '\n';
	buf_release(&in);
	buf_release(&out);
}

/* Observer: stream events. */
void
front_line_view_on_event(void *arg, const struct llm_event *ev)
{
	struct front_line *r = arg;

	if (ev->kind == LLM_TEXT) {
		front_line_view_text(r, ev->text.p, ev->text.len);
	} else if (ev->kind == LLM_NOTICE) {
		struct buf b = BUF_INIT;

		buf_addf(&b, "· %.*s", (int)ev->text.len, ev->text.p);
		front_line_say(r, b.data);
		buf_release(&b);
	} else if (ev->kind == LLM_CACHE && ev->cache.is_break) {
		char line[512];

		snprintf(line, sizeof line, "· cache break: %s (reused %.0f%%, expected %.0f%%)",
			 ev->cache.cause, ev->cache.reuse * 100, ev->cache.expected * 100);
		front_line_say(r, line);
	}
}

/* Observer: a tool call starts. */
void
front_line_view_on_tool_start(void *arg, const struct agent_call *c)
{
	struct front_line *r = arg;
	struct buf b = BUF_INIT;

	buf_adds(&b, "● ");
	front_output_json_call_summary(c, &b); /* "read src/a.c": the tool's describe() */
	front_line_say(r, b.data);
	buf_release(&b);
}

/* Observer: a tool call finished. */
void
front_line_view_on_tool_done(void *arg, const struct agent_call *c)
{
	struct front_line *r = arg;
	char line[160];
	const char *nl = strchr(c->job.out.data, '\n');
	int first = nl ? (int)(nl - c->job.out.data) : (int)c->job.out.len;

	snprintf(line, sizeof line, "  %s %.1fs  %.*s", c->job.is_error ? "✗" : "✓",
		 (double)(c->t_end_ms - c->t_start_ms) / 1000.0, first > 100 ? 100 : first,
		 c->job.out.data);
	front_line_say(r, line);
	if (c->job.diff)
		front_line_say(r, c->job.diff);
}

/* Observer: a countdown, shown every 30th line. */
void
front_line_view_on_wait(void *arg, const char *line)
{
	struct front_line *r = arg;

	if (!line)
		r->wait_lines = 0;
	else if (r->wait_lines++ % 30 == 0)
		front_line_view_on_notice(r, line);
}

/* A notice: "· line". */
void
front_line_view_on_notice(void *arg, const char *line)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "· %s", line);
	front_line_say(arg, b.data);
	buf_release(&b);
}

/* The controller's own lines (routing, attachments, a refused submit): as they are. */
void
front_line_view_say(void *arg, enum front_turn_say kind, const char *text)
{
	(void)kind;
	front_line_say(arg, text);
}

/* A resumed session: its line. */
void
front_line_view_on_resumed(void *arg, const struct conv *msgs, const char *line)
{
	(void)msgs;
	front_line_say(arg, line);
}

/* Observer: the turn ended. */
void
front_line_view_on_end(void *arg, enum agent_end end, const char *message)
{
	struct front_line *r = arg;

	r->ncarry = 0;
	if (end != AGENT_END_OK) {
		struct buf b = BUF_INIT;

		buf_addf(&b, "✗ %s", message);
		front_line_say(r, b.data);
		buf_release(&b);
	}
	if (r->state == RS_TURN)
		front_line_prompt(r);
}

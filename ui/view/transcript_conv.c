/*
 * ui/view/transcript_conv: a conv replayed into the transcript view (see ui/view/transcript_conv.h).  Each
 * block goes through the same update functions a live turn uses
 * (transcript_on_event, transcript_tool_start / _done), with a stack
 * struct agent_call standing in for the call, so the items look the same.
 */
#include "ui/view/transcript_conv.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/diff.h"
#include "ui/view/transcript.h"
#include "llm/tool.h"

/* Whether a line (at s, up to '\n') can belong to a unified diff body. */
static int
transcript_conv_diff_line(const char *s)
{
	return *s == ' ' || *s == '+' || *s == '-' || *s == '@' || *s == '\\';
}

/* The unified diff inside a tool result text. */
void
transcript_conv_result_diff(const char *text, struct buf *out)
{
	const char *p = text, *start = NULL, *end = NULL, *nl;

	for (; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (!start && (!strncmp(p, "--- ", 4) || !strncmp(p, "@@ ", 3)))
			start = p;
		if (start && !transcript_conv_diff_line(p))
			break;
		if (start)
			end = nl ? nl + 1 : p + strlen(p);
	}
	if (start && end > start)
		buf_add(out, start, (size_t)(end - start));
}

/* Feed a text or reasoning block as one stream event. */
static void
transcript_conv_text(struct view_transcript *tv, enum llm_kind k, const char *s)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = k;
	ev.text.p = s;
	ev.text.len = strlen(s);
	transcript_on_event(tv, &ev);
}

/* Close the open item (the end of a message), aborted when it was. */
static void
transcript_conv_close(struct view_transcript *tv, int aborted)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = aborted ? LLM_ERROR : LLM_DONE;
	ev.error.kind = LLM_ERR_ABORTED;
	transcript_on_event(tv, &ev);
}

/* The TOOL_RESULT block of call id in the messages after index i, or NULL. */
static const struct conv_block *
transcript_conv_result(const struct conv *c, size_t i, const char *id)
{
	size_t j, k;

	for (j = i + 1; id && j < c->nmsgs; j++)
		for (k = 0; k < c->msgs[j].nblocks; k++)
			if (c->msgs[j].blocks[k].kind == CONV_TOOL_RESULT && c->msgs[j].blocks[k].id &&
			    !strcmp(c->msgs[j].blocks[k].id, id))
				return &c->msgs[j].blocks[k];
	return NULL;
}

/*
 * A created file's diff: the tool's preview without a workspace (write:
 * its whole content added), when the result says it created the file.
 */
static char *
transcript_conv_created_diff(const struct conv_block *call, const struct conv_block *res)
{
	const struct tool *t = call->name ? tool_find(call->name) : NULL;
	struct buf d = BUF_INIT;
	cJSON *root;

	if (!t || !(t->flags & TOOL_EDITS) || !res->text || strncmp(res->text, "created ", 8) || !call->text)
		return NULL;
	root = cJSON_Parse(call->text);
	if (tool_preview(t, root, NULL, &d) != TOOL_PREVIEW_DIFF)
		buf_reset(&d);
	cJSON_Delete(root);
	return d.len ? buf_detach(&d, NULL) : (buf_release(&d), NULL);
}

/* One tool call block and its result (if the session has it). */
static void
transcript_conv_call(struct view_transcript *tv, const struct conv *c, size_t i, const struct conv_block *b)
{
	const struct conv_block *res = transcript_conv_result(c, i, b->id);
	static char unknown[] = "?";
	struct agent_call call;
	struct buf d = BUF_INIT;

	memset(&call, 0, sizeof call);
	call.id = b->id;
	call.name = b->name ? b->name : unknown;
	buf_init(&call.args, 0);
	buf_adds(&call.args, b->text ? b->text : "");
	buf_init(&call.job.out, 0);
	transcript_tool_start(tv, &call);
	if (res) {
		buf_adds(&call.job.out, res->text ? res->text : "");
		call.job.is_error = res->is_error;
		if (!res->is_error)
			call.job.diff = transcript_conv_created_diff(b, res);
		if (!res->is_error && !call.job.diff && res->text)
			transcript_conv_result_diff(res->text, &d);
		if (d.len)
			call.job.diff = buf_detach(&d, NULL);
		transcript_tool_done(tv, &call);
	}
	free(call.job.diff);
	buf_release(&d);
	buf_release(&call.args);
	buf_release(&call.job.out);
}

/* Append the messages of c to tv. */
void
transcript_conv_load(struct view_transcript *tv, const struct conv *c)
{
	const struct conv_block *b;
	size_t i, k;

	for (i = 0; i < c->nmsgs; i++) {
		for (k = 0; k < c->msgs[i].nblocks; k++) {
			b = &c->msgs[i].blocks[k];
			if (!b->text && b->kind != CONV_TOOL_CALL)
				continue;
			if (c->msgs[i].role == CONV_USER && b->kind == CONV_TEXT)
				transcript_add_user(tv, b->text, strlen(b->text));
			else if (b->kind == CONV_TEXT)
				transcript_conv_text(tv, LLM_TEXT, b->text);
			else if (b->kind == CONV_REASONING)
				transcript_conv_text(tv, LLM_REASONING, b->text);
			else if (b->kind == CONV_TOOL_CALL)
				transcript_conv_call(tv, c, i, b);
		}
		if (c->msgs[i].role == CONV_ASSISTANT)
			transcript_conv_close(tv, c->msgs[i].aborted);
	}
}

/* A resumed conversation's turns (user messages with text) and its bytes of text. */
void
transcript_conv_counts(const struct conv *c, int *turns, long *bytes)
{
	size_t i, k;
	int text;

	*turns = 0;
	*bytes = c->system ? (long)strlen(c->system) : 0;
	for (i = 0; i < c->nmsgs; i++) {
		for (k = 0, text = 0; k < c->msgs[i].nblocks; k++) {
			const struct conv_block *b = &c->msgs[i].blocks[k];

			if (b->kind == CONV_IMAGE)
				continue;
			*bytes += (long)(b->text ? strlen(b->text) : 0) + (long)(b->name ? strlen(b->name) : 0);
			text |= b->kind == CONV_TEXT;
		}
		*turns += c->msgs[i].role == CONV_USER && text;
	}
}

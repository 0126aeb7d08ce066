/*
 * ui/view/transcript_conv: a conversation (llm/conv.h) drawn as transcript items, for resumed
 * sessions (`hearth -c`, `-r ID`): the earlier messages appear as they did
 * when they were made.
 *
 * Mapping: a user TEXT block → a user item; assistant REASONING → a
 * reasoning item (collapsed), TEXT → an assistant item ("[aborted]" when
 * the message was), TOOL_CALL → a tool item (name, short arguments) whose
 * status, output and diff come from the TOOL_RESULT of the same id in a
 * later user message.  The diff of an edit is the unified diff its result
 * text carries; a write that created a file shows the whole file added
 * (from its `content` argument); an overwrite shows no diff (the old text
 * is not in the session).  Durations are unknown and shown as 0.0s.
 * IMAGE blocks are skipped.
 *
 * Ownership: c is only read; tv copies what it keeps.
 */
#ifndef HEARTH_UI_VIEW_TRANSCRIPT_CONV_H
#define HEARTH_UI_VIEW_TRANSCRIPT_CONV_H

#include "llm/conv.h"
#include "ui/view/view.h"

/* Append the messages of c to tv (follow mode is kept). */
void transcript_conv_load(struct view_transcript *tv, const struct conv *c);
/*
 * The unified diff inside a tool result text (from its first "--- " or
 * "@@ " line to its last diff line), appended to out; nothing when none.
 */
void transcript_conv_result_diff(const char *text, struct buf *out);
/*
 * What the status shows of a resumed conversation before its first
 * request: the turns (user messages with text, not tool results) and the
 * bytes of its text (system prompt, text, reasoning, calls and results;
 * images left out), from which the caller estimates the context.
 */
void transcript_conv_counts(const struct conv *c, int *turns, long *bytes);

#endif

/*
 * llm/conv: the provider-neutral transcript (design.md §4).
 *
 * A conv is a system prompt plus an append-only array of messages; each
 * message has a role and an array of content blocks.  Tool results live
 * in USER messages as TOOL_RESULT blocks (the Anthropic shape); each
 * provider converts to its wire form (llama: one `tool` message per
 * result).  Blocks are never edited after the turn that made them ends,
 * so serialising the same conv always yields the same bytes: the basis
 * of KV-cache reuse.  The conv owns every string in it.
 */
#ifndef HEARTH_LLM_CONV_H
#define HEARTH_LLM_CONV_H

#include <stddef.h>

#include "base/buf.h"

enum conv_role { CONV_USER, CONV_ASSISTANT };

enum conv_kind {
	CONV_TEXT,
	CONV_REASONING,
	CONV_TOOL_CALL,   /* id, name, text = arguments JSON */
	CONV_TOOL_RESULT, /* id (of the call), name, text, is_error */
	CONV_IMAGE        /* text = base64 data, name = media type */
};

struct conv_block {
	enum conv_kind kind;
	char *text;
	char *id;
	char *name;
	int is_error;
	char *provider; /* which provider made a REASONING block ("llama", "anthropic") */
	char *signature; /* Anthropic thinking signature, kept verbatim */
};

struct conv_msg {
	enum conv_role role;
	struct conv_block *blocks;
	size_t nblocks, ablocks;
	int aborted; /* the turn was interrupted; content is partial */
	/*
	 * Changes whenever the message does, unique in the process: set by
	 * conv_add_msg and conv_add_block, and by conv_msg_touch, which code
	 * that edits a block of an earlier message in place must call
	 * (microcompact, redaction).  0: not known (a message made by hand):
	 * never trusted.  A provider keeps a message's wire form while its gen
	 * is the same (llama_wire_request_memo).
	 */
	unsigned long gen;
};

/*
 * In a system prompt, the part after this line is specific to the session
 * (workspace, date, git state, project instructions); the part before it is
 * the same for every session with the same tools.  A provider whose server
 * caches by prompt prefix across sessions may send the session part at the
 * start of the first user message instead (llama/wire.c), so sessions
 * share the cached system prompt.
 */
#define CONV_SESSION_MARK "\n\n# This session\n"

struct conv {
	char *system;
	struct conv_msg *msgs;
	size_t nmsgs, amsgs;
};

void conv_init(struct conv *c);
void conv_release(struct conv *c);
/* Replace the system prompt (copied). */
void conv_set_system(struct conv *c, const char *system);
/* Append an empty message and return it (valid until the next append). */
struct conv_msg *conv_add_msg(struct conv *c, enum conv_role role);
/* Last message or NULL. */
struct conv_msg *conv_last(struct conv *c);
/* Append a block to m; strings are copied, NULL allowed. */
struct conv_block *conv_add_block(struct conv_msg *m, enum conv_kind kind, const char *text,
				  const char *id, const char *name);
/* m changed in place (a block's text, id, flag...): give it a new gen. */
void conv_msg_touch(struct conv_msg *m);
/* Convenience: a user message holding one text block. */
void conv_add_user_text(struct conv *c, const char *text);
/* Move every message of src to the end of dst; src is left empty (its system prompt stays). */
void conv_move_msgs(struct conv *dst, struct conv *src);
/* Drop the trailing message (used only for a turn that produced nothing). */
void conv_pop(struct conv *c);
/* Concatenated TEXT blocks of m (appended to out). */
void conv_msg_text(const struct conv_msg *m, struct buf *out);
/* Whether m starts a user turn: a user message with text (not only tool results). */
int conv_msg_is_query(const struct conv_msg *m);

#endif

/*
 * llm/textcall: recover tool calls that arrived as plain answer text, when
 * the server did not parse them (protocols.md A5; design.md §1.3).  Pure.
 *
 * Recognised, anywhere in the text unless noted:
 *  (a) Hermes/Qwen JSON: <tool_call>{"name":N,"arguments":{...}}</tool_call>.
 *      `arguments` (or `parameters`) may be an object or a JSON string
 *      holding one; missing or null means {}.  Several objects may share
 *      one tag.  The object may not contain the text "<tool_call>" (the
 *      next opening tag bounds the parse, keeping the scan linear).
 *      The closing tag may be missing (truncated answer, or prose after
 *      the object).  At the very start of the answer the opening tag may
 *      be missing too: an answer that begins with a tool-call object.
 *  (b) Qwen3-Coder XML: [<tool_call>]<function=N><parameter=K>V</parameter>
 *      ...</function>[</tool_call>]; missing closers at the end of the
 *      text are tolerated.  V is raw text minus one leading and one
 *      trailing newline.  Typing rule: the caller's type_fn says whether
 *      (tool, param) is string-typed (1: keep V as a string; 0: V is JSON
 *      when it parses, else a string).  Without type_fn, or when it
 *      returns -1: V is kept as JSON when it parses as a number, true,
 *      false, an object or an array, and as a string otherwise (so "null"
 *      and "\"x\"" stay literal strings).
 *  (c) A fenced block (```json, ```tool_call or bare ```) whose whole
 *      content is one tool-call-shaped object: only the keys name,
 *      arguments, parameters, id, type, or OpenAI's {"type":"function",
 *      "function":{name, arguments}}.  Arbitrary JSON is never a call.  A
 *      fence whose content is nothing but (a)/(b) calls is removed with
 *      them.  Other fences are left alone, calls inside them included.
 *
 * Thinking leaks: text before a lone </think> (no <think> before it), or
 * inside a leading <think>...</think> (or after an unclosed leading
 * <think>), goes to `reasoning`, trimmed.
 *
 * `text` is the answer without the recovered blocks: the blank lines around
 * a removed block collapse to one paragraph break, and leading blank lines
 * and trailing whitespace are dropped.  A block that does not parse stays
 * in `text` untouched.  Any bytes are accepted (never crashes; time and
 * memory linear in n).
 */
#ifndef HEARTH_LLM_TEXTCALL_H
#define HEARTH_LLM_TEXTCALL_H

#include <stddef.h>

#include "base/buf.h"

struct textcall_call {
	char *name;      /* malloc'd */
	char *args_json; /* malloc'd: unformatted JSON object text */
};

struct textcall_result {
	struct textcall_call *calls; /* in text order */
	size_t ncalls;
	struct buf text;      /* visible answer */
	struct buf reasoning; /* leaked thinking, often empty */
};

/* 1: parameter `param` of tool `tool` is string-typed; 0: not; -1: unknown. */
typedef int (*textcall_type_fn)(void *ctx, const char *tool, const char *param);

/*
 * Parse n bytes of answer text into *out, which is initialised here (any
 * previous content is not freed).  type_fn may be NULL.
 */
void textcall_run(const char *text, size_t n, textcall_type_fn type_fn, void *ctx,
		   struct textcall_result *out);
/* Free everything in r; r is left empty and reusable. */
void textcall_release(struct textcall_result *r);

#endif

/*
 * llm/openai: decoder of OpenAI-shaped `chat.completion.chunk` streams as
 * llama-server sends them (protocols.md A4-A6), turning each SSE event's
 * data into llm events (llm/event.h).  Pure: no I/O, no clock.
 *
 * Feed every SSE event to openai_dec_event in order, then call openai_dec_finish
 * when the transport ends (cleanly or not).  The decoder emits exactly one
 * terminal event, LLM_DONE or LLM_ERROR, and nothing after it:
 *   - `data: [DONE]` ends open tool calls and emits DONE with the
 *     remembered finish_reason ("stop" if none came);
 *   - an in-stream {"error":{...}} (or an `event: error` carrying a bare
 *     {code,message,type}) emits ERROR;
 *   - data that is not JSON (or not an object) emits ERROR/LLM_ERR_PROTOCOL;
 *   - openai_dec_finish without a terminal event: after a finish_reason it
 *     emits the ENDs and DONE (a server that closed without [DONE]),
 *     otherwise ERROR/LLM_ERR_DISCONNECTED.
 * Unknown fields, missing `choices` and wrongly typed members are ignored.
 * Only choice index 0 (or a choice without an index) is decoded.
 *
 * Tool calls: TOOL_CALL_BEGIN(index, id, name) when a call's name is first
 * known (argument fragments that came earlier are held and sent right
 * after BEGIN), TOOL_CALL_ARGS per fragment, TOOL_CALL_END for every open
 * call when finish_reason arrives (or at DONE/finish).  A name re-sent
 * after BEGIN is ignored (events cannot rename a call).  A call that never
 * got a name is begun with name "" at the end, so its arguments are not
 * lost.  At most OPENAI_MAX_CALLS calls per stream (more is a protocol error).
 *
 * Event strings are borrowed for the duration of the sink call only.
 */
#ifndef HEARTH_LLM_OPENAI_H
#define HEARTH_LLM_OPENAI_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/event.h"
#include "base/str.h"

#define OPENAI_MAX_CALLS 128

struct openai_call {
	int index;
	char *id;          /* may be NULL */
	char *name;        /* NULL until known */
	struct buf pending; /* argument fragments received before the name */
	int begun, ended;
};

struct openai_dec {
	struct openai_call *calls; /* in order of first appearance */
	size_t ncalls, alloc;
	char *finish_reason;    /* last one seen, or NULL */
	int over;               /* DONE or ERROR emitted */
	struct buf msg;         /* scratch for error messages */
};

void openai_dec_init(struct openai_dec *d);
/* Free everything; d is left initialised, ready for another stream. */
void openai_dec_release(struct openai_dec *d);

/*
 * Decode one SSE event (name may be empty).  Returns 1 once the stream is
 * over (DONE or ERROR emitted, now or before), else 0, so it can serve as
 * an sse_event_fn's result to stop parsing.
 */
int openai_dec_event(struct openai_dec *d, struct str event_name, struct str data,
		  llm_sink_fn sink, void *ctx);
/* End of transport: emit the terminal event if none was emitted. */
void openai_dec_finish(struct openai_dec *d, llm_sink_fn sink, void *ctx);

/*
 * Classify a non-stream HTTP error answer (status and body) into an
 * LLM_ERROR event in *out_ev:
 *   503 / "Loading model"             LLM_ERR_LOADING, retryable
 *   exceed_context_size_error         LLM_ERR_CONTEXT + n_prompt_tokens, n_ctx
 *   "does not match the expected", "Failed to parse input", "Invalid diff"
 *                                     LLM_ERR_TOOL_PARSE, not retryable
 *   anything else                     LLM_ERR_HTTP; retryable for 429, 502-504
 *                                     and other 5xx except llama's malformed-
 *                                     request 500s (json.exception, --jinja,
 *                                     "Failed to parse tools")
 * The message is the server's error.message or, when the body is not that
 * JSON, its first line (control bytes and invalid UTF-8 replaced, at most
 * 200 bytes; "HTTP <status> with an empty body" when empty).
 * *msg is reset and then holds exactly the message (out_ev->text views
 * msg->data, msg->len); out_ev->error.type (NULL when the body had none)
 * is kept in msg's spare room past the NUL.  Both are valid until msg
 * changes.  Never fails.
 */
void openai_error_from_body(int http_status, const char *body, size_t n,
			 struct llm_event *out_ev, struct buf *msg);

#endif

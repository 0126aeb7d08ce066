/*
 * anthropic/decode: decoder of Anthropic Messages streams (protocols.md B4,
 * and llama-server's /v1/messages, A7) into llm events, and the
 * classification of HTTP error answers (B5).  Pure: no I/O, no clock.
 *
 * Feed each SSE event in order, then anthropic_decode_finish when the
 * transport ends.  Exactly one terminal event (DONE or ERROR) and
 * nothing after it:
 *   - message_stop: TOOL_CALL_END for blocks still open (llama keeps all
 *     blocks open until the end), one LLM_USAGE with the message's final
 *     cumulative counts, then DONE with the stop reason mapped
 *     (anthropic_decode_stop_reason);
 *   - an `error` event (Anthropic {"type":"error","error":{...}} or
 *     llama's bare {code,message,type}) → ERROR; overloaded, api, rate
 *     limit and timeout errors are retryable;
 *   - data that is not a JSON object → ERROR/LLM_ERR_PROTOCOL;
 *   - anthropic_decode_finish without message_stop: after a message_delta
 *     with a stop_reason it ends as message_stop would, otherwise
 *     ERROR/LLM_ERR_DISCONNECTED.
 * ping and unknown events are ignored; the event name decides, or
 * data.type when the SSE event has no name.
 *
 * Blocks: text_delta → LLM_TEXT; tool_use → TOOL_CALL_BEGIN (id, name)
 * at content_block_start, input_json_delta → TOOL_CALL_ARGS, stop → END
 * (tool calls get llm indexes 0, 1, ... in block order); thinking →
 * LLM_REASONING, and each thinking block's text and signature (a
 * redacted_thinking block's data) are kept in order for the caller to
 * store: anthropic_decode_thinking.
 *
 * Usage follows llm/event.h: prompt_tokens = input + cache writes + cache
 * reads, cached_tokens = cache reads, cache_write_tokens = writes.
 */
#ifndef HEARTH_ANTHROPIC_DECODE_H
#define HEARTH_ANTHROPIC_DECODE_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/event.h"
#include "base/str.h"

#define ANTHROPIC_DECODE_MAX_BLOCKS 256

struct anthropic_decode_thinking {
	struct buf text;
	struct buf signature; /* or the data of a redacted block */
	int redacted;
};

struct anthropic_decode_block {
	int type;      /* text, tool_use, thinking, other (private enum) */
	int call;      /* llm index of a tool_use block */
	int thinking;  /* index into thinking[] */
	int open, args_seen;
	char *start_input; /* tool_use input given whole in content_block_start */
};

struct anthropic_decode {
	struct anthropic_decode_block *blocks; /* by wire index */
	size_t nblocks;
	struct anthropic_decode_thinking *thinking;
	size_t nthinking;
	int ncalls;
	char *stop_reason; /* mapped */
	struct llm_usage usage;
	long in_tokens; /* input_tokens: uncached, after the last breakpoint */
	int started; /* message_start seen */
	int over;
	struct buf msg; /* scratch for error messages and types */
};

void anthropic_decode_init(struct anthropic_decode *d);
void anthropic_decode_release(struct anthropic_decode *d);
/* Decode one SSE event; returns 1 once the stream is over, else 0 (an sse_event_fn result). */
int anthropic_decode_event(struct anthropic_decode *d, struct str event, struct str data, llm_sink_fn sink,
		       void *ctx);
/* End of transport: the terminal event if none went out yet. */
void anthropic_decode_finish(struct anthropic_decode *d, llm_sink_fn sink, void *ctx);
/* Thinking blocks seen so far, in order (owned by d, valid until release). */
const struct anthropic_decode_thinking *anthropic_decode_thinking(const struct anthropic_decode *d, size_t *n);
/* Map a wire stop_reason: end_turn, stop_sequence → "stop"; tool_use → "tool_calls";
 * max_tokens → "length"; others (refusal, pause_turn, ...) unchanged. */
const char *anthropic_decode_stop_reason(const char *wire);

/*
 * An HTTP error answer → LLM_ERROR in *ev with a one-line message that
 * says what to do: 401 "ANTHROPIC_API_KEY missing or invalid", 413
 * request too large, 400 the server's message (LLM_ERR_CONTEXT with the
 * counts for "prompt is too long: N tokens > M maximum"), ...; kind
 * LLM_ERR_HTTP otherwise; retryable for 408, 409, 429, 529 and 5xx.
 * Anthropic {"type":"error","error":{type,message}} and OpenAI-shaped
 * {"error":{code,message,type}} bodies (llama-server) are understood;
 * other bodies are quoted (first line, at most 200 bytes).
 * *msg is reset; ev->text views msg; ev->error.type (NULL when none)
 * points into msg past the message's NUL.  Valid until msg changes.
 */
void anthropic_decode_error_from_body(int status, const char *body, size_t n, struct llm_event *ev,
				  struct buf *msg);
/*
 * The one-line, actionable message for an error event of a provider at
 * base_url (appended to out): connection and mid-answer failures name the
 * URL; other errors are their message as is (already actionable).
 */
void anthropic_decode_describe(const char *base_url, const struct llm_event *ev, struct buf *out);

#endif

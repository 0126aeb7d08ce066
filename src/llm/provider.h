/*
 * llm/provider: the interface every model backend implements (design.md §4).
 *
 * start() builds the request from the conv deterministically (same conv
 * and options → same bytes, which keeps the server's KV cache warm) and
 * streams llm events into the sink until exactly one LLM_DONE or
 * LLM_ERROR, which is always the last event of a request.  Events are
 * delivered from loop callbacks, never from inside start().  cancel()
 * stops the current request without further events; it is safe from
 * inside the sink.
 */
#ifndef HEARTH_LLM_PROVIDER_H
#define HEARTH_LLM_PROVIDER_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"
#include "llm/event.h"

struct tool;

struct provider_req {
	const struct conv *conv;
	const struct tool *const *tools; /* fixed order; may be NULL */
	size_t ntools;
	int thinking;                     /* enable_thinking */
	int retry;                        /* this is a retry of the previous request */
	const char *planned_change;       /* why the prefix changes on purpose (MicroCompact, compaction), or NULL */
};

struct provider {
	const char *name; /* "llama", "anthropic" */
	void *self;
	int (*start)(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx,
		     struct err *e);
	void (*cancel)(void *self);
	/* Model id as the server reports it (may be NULL before discovery). */
	const char *(*model)(void *self);
	/* One line for an LLM_ERROR event that says what to do (appended to out). */
	void (*describe_error)(void *self, const struct llm_event *ev, struct buf *out);
	/*
	 * Optional (NULL: the agent adds the streamed reasoning as one block):
	 * put the last request's reasoning into the assistant message m in the
	 * provider's own form (Anthropic thinking blocks with signatures).
	 */
	void (*add_reasoning)(void *self, struct conv_msg *m);
	/* The context window in tokens, 0 when unknown (optional: may be NULL). */
	long (*n_ctx)(void *self);
	/*
	 * Optional: the turn ended with an answer; req->conv is the conversation
	 * the next turn will continue.  The provider may warm its cache for the
	 * next request (llama: the prompt up to the next user message's text,
	 * docs/cache.md).  No events; the next start() waits for it if needed.
	 */
	void (*prime)(void *self, const struct provider_req *req);
};

#endif

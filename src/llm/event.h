/*
 * llm/event: the events every provider emits (design.md §4).  The agent and the
 * UI only ever see these; wire JSON stays inside the provider.
 *
 * Strings in an event are borrowed: valid only during the sink call.
 * Copy what you keep.
 */
#ifndef HEARTH_LLM_EVENT_H
#define HEARTH_LLM_EVENT_H

#include <stddef.h>

#include "base/str.h"

enum llm_kind {
	LLM_TEXT,            /* text: a fragment of the visible answer */
	LLM_REASONING,       /* text: a fragment of thinking */
	LLM_TOOL_CALL_BEGIN, /* index, id, name (first sight of call `index`) */
	LLM_TOOL_CALL_ARGS,  /* index, text: a fragment of the JSON arguments */
	LLM_TOOL_CALL_END,   /* index: the call's arguments are complete */
	LLM_PROGRESS,        /* progress: prompt processing (prefill) */
	LLM_TIMINGS,         /* timings: server-side speed and cache counters */
	LLM_USAGE,           /* usage: token counts */
	LLM_ERROR,           /* error: the request failed; the stream is over */
	LLM_DONE,            /* stop_reason: the stream ended normally */
	LLM_CACHE,           /* cache: how much of the prompt the server reused (after TIMINGS) */
	LLM_NOTICE           /* text: something the user should know (slot fallback, ...) */
};

struct llm_progress {
	long total;     /* prompt tokens */
	long cache;     /* of which reused from the slot's KV cache */
	long processed; /* now in the KV, cache included */
	long time_ms;   /* since the slot began processing this prompt */
};

struct llm_timings {
	long cache_n, prompt_n, predicted_n;
	double prompt_ms, prompt_per_second;
	double predicted_ms, predicted_per_second;
};

struct llm_usage {
	long prompt_tokens;     /* includes cached tokens (OpenAI semantics) */
	long completion_tokens;
	long cached_tokens;
	long cache_write_tokens; /* Anthropic cache_creation_input_tokens */
};

struct llm_cache {
	double reuse;      /* cache_n / (cache_n + prompt_n) of this request */
	double expected;   /* what an unchanged prefix should have given */
	int is_break;      /* reuse fell short of expected by more than 5 points */
	int planned;       /* the break was planned (MicroCompact, compaction): expected, not a bug */
	const char *cause; /* likely cause of a break ("" otherwise) */
	long cache_n, prompt_n;
};

enum llm_err_kind {
	LLM_ERR_OTHER,
	LLM_ERR_CONNECT,      /* nothing listening / DNS / refused */
	LLM_ERR_LOADING,      /* 503 Loading model */
	LLM_ERR_CONTEXT,      /* prompt exceeds the slot's n_ctx */
	LLM_ERR_TOOL_PARSE,   /* server could not parse the model's tool call */
	LLM_ERR_DISCONNECTED, /* stream ended without a finish */
	LLM_ERR_HTTP,         /* other HTTP status */
	LLM_ERR_PROTOCOL,     /* malformed SSE / JSON from the server */
	LLM_ERR_ABORTED       /* cancelled by us */
};

struct llm_error {
	enum llm_err_kind kind;
	int http_status;  /* 0 when not an HTTP status error */
	int retryable;
	const char *type; /* server's error type, may be NULL */
	long n_prompt_tokens, n_ctx; /* LLM_ERR_CONTEXT */
};

struct llm_event {
	enum llm_kind kind;
	struct str text;
	int index;
	const char *id;   /* TOOL_CALL_BEGIN; may be NULL */
	const char *name; /* TOOL_CALL_BEGIN */
	struct llm_progress progress;
	struct llm_timings timings;
	struct llm_usage usage;
	struct llm_error error; /* text holds the message */
	struct llm_cache cache;
	const char *stop_reason; /* DONE: "stop", "tool_calls", "length", ... */
};

typedef void (*llm_sink_fn)(void *ctx, const struct llm_event *ev);

/* Human name of an event kind, for logs and stream-json. */
const char *llm_event_kind_name(enum llm_kind k);

#endif

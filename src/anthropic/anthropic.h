/*
 * anthropic/anthropic: the Anthropic Messages API provider (protocols.md part B),
 * which also talks to llama-server's own /v1/messages (A7).
 *
 * POST {base_url}/v1/messages with x-api-key, anthropic-version
 * 2023-06-01 and content-type application/json; the body comes from
 * anthropic_wire_request, the stream goes http → sse → anthropic_decode →
 * llm events.  Like every provider: exactly one terminal event per
 * request, delivered from loop callbacks, nothing after cancel.
 *
 * Retries: a request that fails with 429, 529, 5xx, a connection error,
 * a dropped connection or a retryable in-stream error before any event
 * reached the sink is sent again after max(retry-after, base * 2^n) plus
 * up to 25% jitter (capped at max_delay_ms), at most max_attempts times
 * in all.  Once an event was delivered a failure is reported, not
 * retried.  400/401/403/404/413 are never retried.  An error reported
 * after retries has retryable = 0 (do not stack retries on top).
 *
 * Thinking: the thinking blocks (text + signature) of the last request
 * that ended are kept until the next start; anthropic_add_thinking puts
 * them into the assistant message as CONV_REASONING blocks with
 * provider "anthropic" and the signature, which anthropic_wire sends back
 * unchanged.
 *
 * Secrets: the API key is only ever put into the request header; it is
 * never logged or put into a message.
 *
 * Ownership: an anthropic borrows the loop and the http client (they
 * must outlive it) and copies every string of its options.
 */
#ifndef HEARTH_ANTHROPIC_ANTHROPIC_H
#define HEARTH_ANTHROPIC_ANTHROPIC_H

#include <stddef.h>

#include "anthropic/decode.h"
#include "anthropic/wire.h"
#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"
#include "llm/event.h"
#include "llm/provider.h"

struct loop;
struct http;
struct anthropic;

#define ANTHROPIC_DEFAULT_BASE_URL "https://api.anthropic.com"
#define ANTHROPIC_VERSION "2023-06-01"

struct anthropic_opts {
	const char *base_url;    /* NULL: ANTHROPIC_DEFAULT_BASE_URL */
	const char *api_key;     /* NULL or "": no x-api-key header (llama-server) */
	const char *model;       /* NULL: the tier's default id */
	enum anthropic_wire_tier tier; /* used when model is NULL */
	int max_tokens;          /* <= 0: 16000 */
	int budget_tokens;       /* manual thinking budget; <= 0: 8000 */
	double temperature;      /* < 0: omitted (the default) */
	double top_p;            /* < 0: omitted */
	int top_k;               /* < 0: omitted */
	int max_attempts;        /* <= 0: 4 */
	long base_delay_ms;      /* <= 0: 1000 */
	long max_delay_ms;       /* <= 0: 60000; a longer retry-after is reported, not waited */
	long idle_timeout_ms;    /* silence mid-stream; <= 0: 120000 */
};

/* Defaults: sonnet tier, no key, default URL, sampling omitted. */
void anthropic_opts_init(struct anthropic_opts *o);
/* A provider with copies of o's strings, borrowing the loop and the http client. */
struct anthropic *anthropic_new(struct loop *l, struct http *h, const struct anthropic_opts *o);
/* Cancel everything and free.  NULL ok. */
void anthropic_free(struct anthropic *an);
/* The provider interface (owned by an). */
struct provider *anthropic_provider(struct anthropic *an);
/* Use another model id from the next request on (copied). */
void anthropic_set_model(struct anthropic *an, const char *model);
/*
 * Consult mode: while instruction is set (copied; NULL turns it off),
 * requests carry it after the last user message and tool_choice none
 * (anthropic_wire_opts.consult): one answer, no tool calls.
 */
void anthropic_set_consult(struct anthropic *an, const char *instruction);
/*
 * What Claude may see: before each request fn may fill out (an empty conv,
 * released by the provider) with a filtered copy of in and return 1 to
 * send that instead; 0 sends in as is.  Deterministic filters keep the
 * prompt cache warm.  fn NULL: no filter.
 */
typedef int (*anthropic_filter_fn)(void *arg, const struct conv *in, struct conv *out);
void anthropic_set_filter(struct anthropic *an, anthropic_filter_fn fn, void *arg);
/* Attempts the last (or current) request took so far (1 = no retry). */
int anthropic_attempts(const struct anthropic *an);

/* Thinking blocks of the last request that ended (owned by an, valid until the next start). */
const struct anthropic_decode_thinking *anthropic_thinking(const struct anthropic *an, size_t *n);
/* Append those blocks to m as CONV_REASONING, provider "anthropic", with signatures. */
void anthropic_add_thinking(const struct anthropic *an, struct conv_msg *m);

/*
 * GET {base_url}/v1/models and report whether the configured model id is
 * offered (exactly, or as the alias of a dated id).  done gets rc 0 and
 * found 0/1 with a one-line message when not found, or rc -1 and why
 * the check failed.  Returns -1 + e without starting when there is no
 * API key (nothing would leave the machine).
 */
typedef void (*anthropic_models_fn)(int rc, int found, const char *msg, void *arg);
int anthropic_check_models(struct anthropic *an, anthropic_models_fn done, void *arg,
			   struct err *e);
/* Whether the check is still waiting for its answer (NULL ok). */
int anthropic_models_pending(const struct anthropic *an);

#endif

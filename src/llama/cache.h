/*
 * llama/cache: is the server's KV cache being reused the way it should be,
 * and if not, why (issue: keep the KV cache warm).
 *
 * Before each request the caller reports the request's messages (one
 * serialised string per message, as sent), the slot, and the server's
 * identity; after it, the server's timings.  Reuse is
 * cache_n / (cache_n + prompt_n).  Expected reuse counts the tokens that
 * should be unchanged: the previous request's prompt (its cache_n +
 * prompt_n) is still in the slot, and an append-only conversation sends
 * it again as the prefix of this one.  Falling short by more than 5
 * points is a cache break, reported with its likely cause:
 *   - the prefix changed (at which message),
 *   - the slot changed,
 *   - the server restarted or the model changed (build or model differ, or
 *     the connection was lost in between),
 *   - a restored slot file did not match the prompt (a total miss after a
 *     restore),
 *   - the context was truncated (the prompt no longer fits n_ctx),
 *   - otherwise the server dropped it (another client took the slot, or
 *     a hybrid/recurrent model rolled back to a context checkpoint).
 * Pure: no I/O, deterministic, tested on its own.
 */
#ifndef HEARTH_LLAMA_CACHE_H
#define HEARTH_LLAMA_CACHE_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/event.h"

#define LLAMA_CACHE_SLACK 0.05

struct llama_cache {
	char **msgs;      /* previous request's messages */
	size_t nmsgs;
	char **next;      /* this request's, until its timings arrive */
	size_t nnext;
	int slot, next_slot;
	char *server, *next_server; /* build + model identity */
	long prev_prompt;           /* cache_n + prompt_n of the previous request */
	long n_ctx;
	int requests;
	int breaks;
	long cached_total, prompt_total;
	struct buf cause;           /* of the last break */
	char *planned;              /* the next request changes the prefix on purpose: why */
	long restored;              /* tokens a slot restore put in the slot before this request (0: none) */
	int server_lost;            /* the server went away and came back: its cache is empty */
};

struct llama_cache_report {
	double reuse;      /* this request */
	double expected;   /* what a stable prefix should have given */
	int is_break;
	int planned;       /* the break is the planned one (see llama_cache_plan) */
	const char *cause; /* one line, valid until the next call; "" when no break */
	long cache_n, prompt_n;
};

void llama_cache_init(struct llama_cache *cw);
/* Free everything and leave cw empty, as after init (a second release is safe). */
void llama_cache_release(struct llama_cache *cw);
/*
 * A request is about to be sent: its messages (copied), the slot (-1 any),
 * the server identity ("build|model") and the per-slot n_ctx.
 */
void llama_cache_request(struct llama_cache *cw, const char *const *msgs, size_t n, int slot,
			const char *server, long n_ctx);
/*
 * The request just reported changes the prefix on purpose (MicroCompact,
 * compaction): a shortfall is reported as a planned break with this cause.
 */
void llama_cache_plan(struct llama_cache *cw, const char *why);
/*
 * A slot file put n tokens in the slot: the next request should reuse them
 * (a shortfall is a break: "the restored slot did not match the prompt").
 */
void llama_cache_restored(struct llama_cache *cw, long n);
/*
 * The connection to the server failed (it stopped or restarted): the next
 * shortfall is blamed on the restart, not on another client.
 */
void llama_cache_server_lost(struct llama_cache *cw);
/* Its timings arrived: fill the report and make this request the baseline. */
void llama_cache_timings(struct llama_cache *cw, const struct llm_timings *t,
			struct llama_cache_report *out);
/* Whole-session reuse so far (0..1), or -1 before any timings. */
double llama_cache_session_reuse(const struct llama_cache *cw);

#endif

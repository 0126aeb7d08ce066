/*
 * llama/llama-int: the llama provider's state, shared by its parts.  PRIVATE to
 * llama/llama.c and llama/slots.c: nothing else includes it (the public contract
 * is llama/llama.h).
 *
 * llama/llama.c owns the provider (start, cancel, the stream, errors,
 * discovery); llama/slots.c the slot a request is pinned to (learning it,
 * leaving a busy one, holding the first request for a slot restore).
 *
 * Data: struct llama holds the discovery results and at most one chat
 * call in flight.  A chat call (struct llama_call) owns its SSE parser,
 * decoder and error-body buffer; it is freed when its request completes,
 * or parked on `dead` when cancelled from inside a callback, and swept
 * later.
 */
#ifndef HEARTH_LLAMA_LLAMA_INT_H
#define HEARTH_LLAMA_LLAMA_INT_H

#include "base/buf.h"
#include "llama/cache.h"
#include "base/err.h"
#include "llama/llama.h"
#include "llama/disco.h"
#include "llm/event.h"
#include "llm/openai.h"
#include "llm/provider.h"
#include "llama/slotfile.h"
#include "llama/wire.h"
#include "io/sse.h"

struct cfg;
struct http;
struct http_req;
struct loop;

struct llama_call {
	struct llama *lm;
	struct http_req *req;
	struct sse sse;
	struct openai_dec dec;
	struct buf errbody;
	llm_sink_fn sink;
	void *ctx;
	int ended;
	int dead;
	long idle_timer; /* armed once bytes flow; silence past it means a stuck server */
	long wait_timer; /* pinned slot: no first byte yet (queued behind another client?) */
	unsigned long seq;
	int got_bytes;
	int held;        /* waiting for a slot restore before it is sent */
	long idle_last;  /* silence: the slot's progress (decoded + prompt tokens) at the last /slots look */
	int idle_stale;  /* looks in a row that found no progress */
	int idle_said;   /* the "still working" notice was given */
	char idle_why[240]; /* why the silent request is given up ("" : no data for N s) */
	char *body;      /* kept to re-send to any slot */
	struct llama_call *next_dead;
};


struct llama {
	struct loop *loop;
	struct http *http;
	const struct cfg *cfg;
	struct provider prov;
	struct llama_disco disco;
	struct llama_cache cw;
	struct llama_wire_memo memo; /* the serialised messages of the last request (llama/wire.h) */
	struct llama_slotfile ss;
	struct llama_call *call;
	struct llama_call *dead;
	unsigned long seq;          /* numbers calls, so a late /slots answer finds its call */
	unsigned long wait_seq;     /* the call whose slot is being checked */
	unsigned long idle_seq;     /* the silent call whose slot is being looked at */
	int learning;               /* a /slots look-up to find the slot that served us */
	int learn_tries;            /* at most 3: /slots may be disabled or ambiguous */
	long learn_timer;
	long learn_tokens;          /* the prompt size that identifies our slot */
	int slot_gave_up;           /* our pinned slot was taken: stay unpinned */
	struct http_req *prime_req; /* llama/prime.c: the prime in flight */
	long prime_timer;
	char *prime_text;           /* the rendered prompt up to the next user message */
	int priming;                /* a prime is running: a new chat request is held */
	int prime_off;              /* the server lacks /apply-template or /completion */
	int prime_wait;             /* exit is waiting for the prime */
	int primes;                 /* primes that succeeded */
	char *slotmap_path;         /* llama/slotmap.h: the slot records (NULL: none kept) */
	int slot_why;               /* enum llama_slotmap_why of the slot chosen at discovery */
	int restore_verdict;        /* the restore paid (1), missed (-1), none judged (0) */
	char start_notice[240];     /* said with the first request (slot choice, a skipped restore) */
	int exit_noted;             /* the exit look-up at /slots answered */
	llama_probe_fn probe_done;
	llama_loading_fn probe_loading;
	void *probe_arg;
};

/* llama/llama.c */
/* Forward one event unless the call already ended (DONE and ERROR end it). */
void llama_emit(struct llama_call *c, const struct llm_event *ev);
/* Emit a transport-level error event. */
void llama_fail(struct llama_call *c, enum llm_err_kind kind, int retryable, const char *msg);
/* POST c->body; 0 or -1 + e. */
int llama_send(struct llama_call *c, struct err *e);
/* Release a call's parser state and the call. */
void llama_call_free(struct llama_call *c);

/* Arm the pinned-slot wait timer of a call just sent. */
void llama_arm_wait(struct llama_call *c);

/* llama/prime.c */
/* provider.prime (self: the llama). */
void llama_prime(void *self, const struct provider_req *req);
/* Exit: wait up to timeout_ms for a prime in flight. */
void llama_prime_wait(struct llama *lm, long timeout_ms);
/* Cancel a prime in flight and free its state (no callbacks). */
void llama_prime_release(struct llama *lm);

/* llama/slots.c */
/* Timer (arg: the llama): ask /slots which slot served the last request, and pin to it. */
void llama_slots_learn_timer(struct loop *l, long id, void *arg);
/* llama_slotfile callback (arg: the llama): the restore ended, send the held request now. */
void llama_slots_after_restore(void *arg, const char *notice);
/* Timer (arg: the call): a pinned request has had no byte for a while: look at /slots. */
void llama_slots_on_wait(struct loop *l, long id, void *arg);

#endif

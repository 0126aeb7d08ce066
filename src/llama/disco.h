/*
 * llamadisco: what a llama-server is and how it is doing — discovery
 * (GET /health, /props, /v1/models, /slots) and slot choice.
 *
 * Discovery polls /health while the server answers 503 "Loading model"
 * (telling the caller once), then fetches /props, /v1/models and /slots
 * together, and probes the chat template (tplprobe: gen_prefix).  The slot: the configured id_slot when set; otherwise the
 * idle slot holding the least cached prompt (so another session's warm
 * cache is not evicted); -1 (any) when /slots is disabled or all are busy.
 *
 * Borrows loop, http and cfg (they must outlive it); owns the info strings.
 */
#ifndef HEARTH_LLAMADISCO_H
#define HEARTH_LLAMADISCO_H

#include "buf.h"
#include "err.h"
#include "llamawire.h"
#include "llm.h"

struct loop;
struct http;
struct cfg;
struct llamadisco_probe;
struct llamadisco_slots_req;
struct tplprobe;

struct llamadisco {
	struct loop *loop;
	struct http *http;
	const struct cfg *cfg;
	struct llama_info info;
	int slot; /* chosen slot, -1 = any */
	int choose; /* pick an idle slot at discovery (off when resuming: the server matches by prefix) */
	struct llamadisco_probe *probe;
	long probe_timer;
	struct llamadisco_slots_req *slots_reqs; /* /slots requests in flight (cancelled on release) */
	struct tplprobe *tpl;  /* the chat-template probe in flight (tplprobe.h) */
	char *gen_prefix;      /* what it found: earlier assistant turns start with it (NULL: as is) */
};

/* done: rc 0 ok, -1 with the error kind and one line that says what to do. */
typedef void (*llamadisco_fn)(int rc, enum llm_err_kind kind, const char *msg, void *arg);
/* /slots answer: status 501 means the server runs with --no-slots. */
typedef void (*llama_slots_fn)(int status, const struct llama_slot *slots, size_t n,
			       const struct err *e, void *arg);

void llamadisco_init(struct llamadisco *d, struct loop *l, struct http *h, const struct cfg *cfg);
/* Cancel a running probe (no callback) and free the info. */
void llamadisco_release(struct llamadisco *d);
/* Discovery, waiting up to wait_ms for a loading model. */
void llamadisco_probe(struct llamadisco *d, long wait_ms, void (*on_loading)(void *arg),
		      llamadisco_fn done, void *arg);
/* GET /slots once. */
void llamadisco_slots(struct llamadisco *d, llama_slots_fn done, void *arg);
/* base URL + path without a doubled slash. */
void llamadisco_url(const struct cfg *cfg, const char *path, struct buf *out);
/* The slot choice rule, pure: configured (>= 0) wins, else least-cached idle, else -1. */
int llamadisco_choose_slot(int configured, const struct llama_slot *slots, size_t n);

#endif

/*
 * llama/disco: what a server is and how it is doing — discovery
 * (GET /health, /props, /v1/models, /slots) and slot choice.
 *
 * Discovery probes, never goes by the server's name (docs/llama-server.md
 * "Other OpenAI-compatible servers"): it polls /health while the server
 * answers 503 "Loading model" (telling the caller once); a /health that
 * answers 4xx (a plain OpenAI-compatible server has none) is replaced by
 * GET /v1/models.  Then /props, /v1/models and /slots together, and the
 * chat-template probe (llama_template: gen_prefix).  A missing /props is
 * no failure: the context comes from the server_context setting, else
 * from what /v1/models states (llama_wire_models_for), else it stays 0
 * (unknown).  A part answering 401/403 makes discovery register the
 * OPENAI_API_KEY value as a Bearer key for the server's base URL
 * (io/http.h http_set_bearer) and start over once; without a key, or when
 * the key is refused, it fails with what to set.  The slot: the configured
 * id_slot when set; otherwise the
 * idle slot holding the least cached prompt (so another session's warm
 * cache is not evicted); -1 (any) when /slots is disabled or all are busy.
 *
 * Borrows loop, http and cfg (they must outlive it); owns the info strings.
 */
#ifndef HEARTH_LLAMA_DISCO_H
#define HEARTH_LLAMA_DISCO_H

#include "base/buf.h"
#include "base/err.h"
#include "llama/wire.h"
#include "llm/event.h"

struct loop;
struct http;
struct cfg;
struct llama_disco_probe;
struct llama_disco_slots_req;
struct llama_template;

struct llama_disco {
	struct loop *loop;
	struct http *http;
	const struct cfg *cfg;
	struct llama_info info;
	int slot; /* chosen slot, -1 = any */
	int choose; /* pick an idle slot at discovery (off when resuming: the server matches by prefix) */
	struct llama_disco_probe *probe;
	long probe_timer;
	struct llama_disco_slots_req *slots_reqs; /* /slots requests in flight (cancelled on release) */
	struct llama_template *tpl;  /* the chat-template probe in flight (llama/template.h) */
	char *gen_prefix;      /* what it found: earlier assistant turns start with it (NULL: as is) */
	/* the slot choice at discovery, when set (llama/slotmap.h); else llama_disco_choose_slot */
	int (*choose_fn)(void *arg, const struct llama_slot *slots, size_t n);
	void *choose_arg;
};

/* done: rc 0 ok, -1 with the error kind and one line that says what to do. */
/* The model is loading: called at each poll of /health with the time left to wait. */
typedef void (*llama_loading_fn)(void *arg, long left_ms);
typedef void (*llama_disco_fn)(int rc, enum llm_err_kind kind, const char *msg, void *arg);
/* /slots answer: status 501 means the server runs with --no-slots. */
typedef void (*llama_slots_fn)(int status, const struct llama_slot *slots, size_t n,
			       const struct err *e, void *arg);

/* Whether the server answers: up 1 when GET /health (or /v1/models without one) says 200. */
typedef void (*llama_alive_fn)(int up, void *arg);
/* GET /metrics: status, and the load read from it (load->known 0: none found). */
typedef void (*llama_load_fn)(int status, const struct llama_load *load, void *arg);

void llama_disco_init(struct llama_disco *d, struct loop *l, struct http *h, const struct cfg *cfg);
/* Cancel a running probe (no callback) and free the info. */
void llama_disco_release(struct llama_disco *d);
/*
 * Discovery, waiting up to wait_ms for a loading model (503 "Loading
 * model"); another 503 on /health is asked DISCO_503_TRIES times, then
 * fails with what to do.
 */
void llama_disco_probe(struct llama_disco *d, long wait_ms, llama_loading_fn on_loading,
		      llama_disco_fn done, void *arg);
/* GET /slots once. */
void llama_disco_slots(struct llama_disco *d, llama_slots_fn done, void *arg);
/* Cancel the /slots, alive and load requests in flight made with arg: their done is never called. */
void llama_disco_forget(struct llama_disco *d, void *arg);
/*
 * A server that went away, asked again without discovery: GET /health, and
 * GET /v1/models when it has none (a plain OpenAI-compatible server).
 * done exactly once (not after llama_disco_release).
 */
void llama_disco_alive(struct llama_disco *d, llama_alive_fn done, void *arg);
/* GET /metrics once, read as the server's load (llama_wire_load); done exactly once. */
void llama_disco_load(struct llama_disco *d, llama_load_fn done, void *arg);
/* base URL + path without a doubled slash; a base URL ending in /v1 loses it ("/v1/models" is a path). */
void llama_disco_url(const struct cfg *cfg, const char *path, struct buf *out);
/* How much of base is the server's root: trailing '/' and one trailing "/v1" dropped. */
size_t llama_disco_base_len(const char *base);
/* The slot choice rule, pure: configured (>= 0) wins, else least-cached idle, else -1. */
int llama_disco_choose_slot(int configured, const struct llama_slot *slots, size_t n);

#endif

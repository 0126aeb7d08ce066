/*
 * llama/wire: llama-server request and response formats without I/O
 * (protocols.md A2-A4).  Parsers tolerate missing fields and wrong types
 * (they leave defaults) and fail only on input that is not JSON.
 */
#ifndef HEARTH_LLAMA_WIRE_H
#define HEARTH_LLAMA_WIRE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "llm/provider.h"

struct cfg;

struct llama_info {
	char *model_id;   /* /v1/models data[0].id, NULL if unknown */
	long n_ctx;       /* per-slot context: props.default_generation_settings.n_ctx */
	long n_ctx_train; /* /v1/models meta.n_ctx_train, 0 if unknown */
	int total_slots;
	char *build_info; /* "b<number>-<commit>" */
	long ctx_meta;    /* the context /v1/models states for the model (max_model_len, context_length, ...), 0 if none */
	/* what discovery found by probing (never by the server's name): */
	int has_health;   /* GET /health answered 200 (else /v1/models stood in) */
	int has_props;    /* GET /props answered: n_ctx, slots and build are the server's */
	int has_slots;    /* GET /slots answered 200 */
	int bearer;       /* the server asked for a key (HTTP 401) and OPENAI_API_KEY is sent */
	int plain;        /* discovery ran and found no /props: OpenAI fields only, no priming */
	int model_loading; /* several models behind the URL and this one is not loaded yet (router mode
			      states "unloaded" or "loading"): the first request waits while it loads */
	char *models;     /* several models behind one URL (llama-server's router mode, llama-swap):
			     one "id (status)" line each, the status when the server states it
			     (router mode: loaded, loading, unloaded, ...); NULL with one model */
};

struct llama_slot {
	int id;
	long n_ctx;
	int is_processing;
	long id_task;                  /* -1 when the slot never ran a task */
	long n_prompt_tokens;
	long n_prompt_tokens_processed;
	long n_prompt_tokens_cache;
	long n_decoded;                /* next_token[0].n_decoded */
	long n_remain;
};

/*
 * A server's load as its Prometheus /metrics states it: the requests it
 * runs now and those queued behind them, summed over every label set.
 * llama-server: llamacpp:requests_processing and llamacpp:requests_deferred;
 * vLLM: vllm:num_requests_running and vllm:num_requests_waiting; SGLang:
 * sglang:num_running_reqs and sglang:num_queue_reqs.
 */
struct llama_load {
	int known;        /* one of the gauges above was there */
	double running, waiting;
};

/* Pure helpers (tested against the recorded fixtures). */
int llama_wire_props(const char *json, size_t n, struct llama_info *info, struct err *e);
int llama_wire_models(const char *json, size_t n, struct llama_info *info, struct err *e);
/*
 * The same for the entry whose id is want (NULL or absent: the first):
 * model_id, n_ctx_train (meta.n_ctx_train) and ctx_meta from the first of
 * max_model_len (vLLM, SGLang), context_length, context_window,
 * max_context_length, meta.n_ctx that is a positive integer.
 */
int llama_wire_models_for(const char *json, size_t n, const char *want, struct llama_info *info,
			  struct err *e);
/* *out is malloc'd (free it); 0 / -1 + e. */
int llama_wire_slots(const char *json, size_t n, struct llama_slot **out, size_t *nout,
		      struct err *e);
void llama_wire_info_release(struct llama_info *info);
/* Read /metrics text (n bytes, not NUL-terminated) into out; 0, or -1 when no gauge of it is there. */
int llama_wire_load(const char *text, size_t n, struct llama_load *out);
/* The exact request body for req (deterministic). */
void llama_wire_request(const struct cfg *cfg, const char *model, const struct provider_req *req,
			 struct buf *out);
/*
 * The same, for a server whose template renders earlier assistant turns
 * differently from how they were generated: each assistant message before
 * the last user message gets gen_prefix before its content and
 * reasoning_content " " (llama/template.h).  Reasoning goes back only within
 * the turn that produced it (docs/cache.md).  gen_prefix NULL: no prefix.
 */
void llama_wire_request_gen(const struct cfg *cfg, const char *model, const struct provider_req *req,
			   const char *gen_prefix, struct buf *out);
/*
 * What llama_wire_request_memo keeps between the requests of one session,
 * so a step's cost does not grow with the turns before it: the wire form
 * of each conv message already serialised (json: its wire messages joined
 * by ','), with the message's gen (llm/conv.h) and the bytes it was made
 * from (src: role, whether it is before the last query, the gen_prefix and
 * session part it was written with; every block too when the gen is 0,
 * not known).  An entry is reused only when the gen and those bytes are
 * equal, so a message edited in place (microcompact: a new gen), or
 * written differently (its reasoning dropped once a later query comes, a
 * new gen_prefix), is made again, and checking an old message does not
 * read its text.  notes[0..nnotes): the last request's wire messages as
 * llama_cache compares them (reasoning_content dropped, gen_prefix taken
 * off the content).  Everything is owned by the memo.
 */
struct llama_wire_memo_ent {
	unsigned long gen; /* the message's gen when made */
	int earlier;       /* written as before the last query */
	size_t end;        /* body's length after this message (see body) */
	size_t note_end;   /* notes of the request up to this message */
	struct buf src, json;
	char **notes;
	size_t nnotes;
	int took_lead; /* the session part went into this message */
};

struct llama_wire_memo {
	struct llama_wire_memo_ent *ents;
	size_t n, cap;
	const char **notes; /* borrowed from the entries (and sys_note) */
	size_t nnotes, capnotes;
	char *sys_json, *sys_note;
	struct buf sys_src;
	/* the last request's bytes up to its last message (no "]" and tail):
	 * kept while its head and messages hold, so a step appends only what
	 * is new (body_ok: it is a request's; sys_end: after the system message) */
	struct buf body;
	int body_ok;
	size_t sys_end;
};

void llama_wire_memo_init(struct llama_wire_memo *m);
void llama_wire_memo_release(struct llama_wire_memo *m);
/*
 * llama_wire_request_gen's bytes, exactly, from the entries of memo that
 * still hold (see above); the memo is updated to this request.
 */
void llama_wire_request_memo(const struct cfg *cfg, const char *model, const struct provider_req *req,
			     const char *gen_prefix, struct llama_wire_memo *memo, struct buf *out);
/*
 * A request body for a server without llama-server's /props: the fields
 * only llama-server knows (return_progress, cache_prompt, id_slot) are
 * dropped, so a strict OpenAI-compatible server does not refuse them.
 * Rewrites body in place; a body that is not JSON is left alone.
 */
void llama_wire_plain(struct buf *body);
#endif

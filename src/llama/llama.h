/*
 * llama/llama: the llama-server provider (protocols.md part A).
 *
 * Discovery (GET /health, /props, /v1/models), live server state
 * (GET /slots) and the streaming chat request (POST /v1/chat/completions
 * with return_progress, include_usage, cache_prompt, id_slot and
 * chat_template_kwargs.enable_thinking).  The stream goes http → sse →
 * openai decoder → llm events; this module only wires them and turns HTTP
 * and transport failures into LLM_ERROR events with a message that says
 * what to do.
 *
 * Ownership: a struct llama borrows the loop, the http client and the cfg
 * (all must outlive it).  Strings in llama_info are owned by the llama.
 */
#ifndef HEARTH_LLAMA_LLAMA_H
#define HEARTH_LLAMA_LLAMA_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "llm/event.h"
#include "llama/disco.h"
#include "llama/wire.h"
#include "llm/provider.h"

struct loop;
struct http;
struct cfg;

struct llama;

/* A provider for base_url (e.g. "http://127.0.0.1:8080"), borrowing its arguments. */
struct llama *llama_new(struct loop *l, struct http *h, const struct cfg *cfg);
/* Cancel everything and free. NULL ok. */
void llama_free(struct llama *lm);
/* The provider interface of this llama (owned by lm). */
struct provider *llama_provider(struct llama *lm);
/* What discovery learned (fields zero/NULL until it ran). */
const struct llama_info *llama_info(const struct llama *lm);

/*
 * Discovery.  Polls /health while the server answers 503 "Loading model"
 * (on_loading is called at each poll with the time left) for at most
 * wait_ms, then fetches /props and /v1/models.  done gets 0 or -1 with
 * the error kind (LLM_ERR_CONNECT when nothing listens, LLM_ERR_LOADING
 * when it never finished loading) and a one-line message.
 */
typedef void (*llama_probe_fn)(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg,
			       void *arg);
void llama_probe(struct llama *lm, long wait_ms, llama_loading_fn on_loading, llama_probe_fn done,
		 void *arg);

/* GET /slots; status 501 means the server runs with --no-slots. */
void llama_get_slots(struct llama *lm, llama_slots_fn done, void *arg);
/*
 * Forget a caller about to go away: its /slots, alive and load requests in
 * flight are cancelled and the discovery it started (llama_probe) goes on
 * without telling it, so none of its callbacks runs again (the llama
 * object outlives a front-end, which then saves the slot through the same
 * loop).
 */
void llama_forget(struct llama *lm, void *arg);
/* Whether a server that went away answers again (GET /health, else /v1/models); no discovery. */
void llama_alive(struct llama *lm, llama_alive_fn done, void *arg);
/* GET /metrics read as the server's load (llama_wire_load). */
void llama_get_load(struct llama *lm, llama_load_fn done, void *arg);
/*
 * A resumed session: do not pick an idle slot at discovery; send the
 * first request to any slot so the server picks the one whose cache
 * matches the prefix, then pin to the slot that served it.
 */
void llama_prefer_warm_slot(struct llama *lm);
/*
 * Keep the slot records in path (llama/slotmap.h; copied): the slot is then
 * chosen at discovery by the longest cached prefix of the next request (the
 * session's own slot still untouched, else one another hearth session left,
 * else an empty one), a restore is skipped when the slot still holds the
 * session or restores do not pay on the server, and llama_save_slot writes
 * down the slot the session leaves.  Overrides llama_prefer_warm_slot.
 */
void llama_set_slotmap(struct llama *lm, const char *path);
/*
 * Keep, in dir (copied; created when needed), a record of what each saved
 * slot file holds (llama/slotfile.h): a resumed session restores its file
 * only when the saved prompt is a prefix of its first request.
 */
void llama_set_slot_records(struct llama *lm, const char *dir);
/*
 * Slot save/restore (llama/slotfile.h): session_id names the session's file
 * (it may return "" until the session exists); a resumed session restores
 * its slot before the first request, falling back to a normal prefill
 * with a notice.  Call once, before the first request.
 */
void llama_set_session(struct llama *lm, const char *(*session_id)(void *arg), void *arg,
		       int resumed);
/* Exit: save the session's slot if it changed, running the loop up to timeout_ms. NULL ok. */
void llama_save_slot(struct llama *lm, long timeout_ms);
/* The slot requests are pinned to: chosen at discovery (-1: any). */
int llama_slot(const struct llama *lm);

/* The one-line, actionable message for an error event (appended to out). */
void llama_describe_error(const char *base_url, const struct llm_event *ev, struct buf *out);

#endif

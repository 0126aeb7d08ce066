/*
 * llama/llama: llama-server provider.
 *
 * The structs live in llama/llama-int.h (private); the slot a request is pinned
 * to is chosen in llama/slots.c.
 *
 * Data: struct llama holds the discovery results and at most one chat
 * call in flight.  A chat call (struct llama_call) owns its SSE parser,
 * decoder and error-body buffer; it is freed when its request completes,
 * or parked on `dead` when cancelled from inside a callback (curl does
 * not call on_done for a cancelled request, and the call may still be on
 * the stack), and swept later.
 *
 * Invariant: every call delivers exactly one terminal event (DONE or
 * ERROR) and nothing after it; cancel delivers nothing.
 */
#include "llama/llama.h"
#include "llama/llama-int.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cfg.h"
#include "io/http.h"
#include "llama/cache.h"
#include "base/json.h"
#include "llama/disco.h"
#include "io/loop.h"
#include "llm/openai.h"
#include "llama/slotfile.h"
#include "llama/slotmap.h"
#include "io/sse.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

/* Free calls that were cancelled while on the stack. */
static void
llama_sweep(struct llama *lm)
{
	while (lm->dead) {
		struct llama_call *c = lm->dead;

		lm->dead = c->next_dead;
		llama_call_free(c);
	}
}

/* Release a call's parser state. */
void
llama_call_free(struct llama_call *c)
{
	if (c->idle_timer)
		loop_timer_del(c->lm->loop, c->idle_timer);
	if (c->wait_timer)
		loop_timer_del(c->lm->loop, c->wait_timer);
	free(c->body);
	sse_release(&c->sse);
	openai_dec_release(&c->dec);
	buf_release(&c->errbody);
	free(c);
}

/* Forward one event unless the call already ended. */
void
llama_emit(struct llama_call *c, const struct llm_event *ev)
{
	if (c->ended || c->dead)
		return;
	if (ev->kind == LLM_DONE || ev->kind == LLM_ERROR)
		c->ended = 1;
	c->sink(c->ctx, ev);
}

/* After the timings: how much of the prompt came from the cache, and why not more. */
static void
llama_report_cache(struct llama_call *c, const struct llm_timings *t)
{
	struct llama_cache_report r;
	struct llm_event ev = { .kind = LLM_CACHE };

	llama_cache_timings(&c->lm->cw, t, &r);
	if (c->lm->ss.restored && !c->lm->restore_verdict) /* did the restore pay? (llama/slotmap.h) */
		c->lm->restore_verdict = t->cache_n * 2 >= c->lm->ss.restored_tokens ? 1 : -1;
	if (c->lm->disco.slot < 0 && c->lm->cfg->id_slot < 0 && !c->lm->learning &&
	    !c->lm->slot_gave_up && c->lm->learn_tries++ < 3) {
		c->lm->learning = 1;
		c->lm->learn_tokens = t->cache_n + t->prompt_n;
		c->lm->learn_timer = loop_timer_add(c->lm->loop, 0, llama_slots_learn_timer, c->lm);
	}
	ev.cache.reuse = r.reuse;
	ev.cache.expected = r.expected;
	ev.cache.is_break = r.is_break;
	ev.cache.planned = r.planned;
	ev.cache.cause = r.cause;
	ev.cache.cache_n = r.cache_n;
	ev.cache.prompt_n = r.prompt_n;
	llama_emit(c, &ev);
}

/* Decoder sink adapter. */
static void
llama_dec_sink(void *ctx, const struct llm_event *ev)
{
	struct llama_call *c = ctx;

	llama_emit(c, ev);
	if (ev->kind == LLM_TIMINGS && !c->dead)
		llama_report_cache(c, &ev->timings);
}

/* One SSE event → decoder; stop parsing once the call is over. */
static int
llama_on_sse(void *ctx, struct str event, struct str data)
{
	struct llama_call *c = ctx;

	openai_dec_event(&c->dec, event, data, llama_dec_sink, c);
	return c->ended || c->dead;
}

static void llama_cancel(void *self);

static void llama_touch(struct llama_call *c);

/* Silence past stream_idle_timeout: give up on the request. */
static void
llama_idle_fail(struct llama_call *c, const char *why)
{
	struct llama *lm = c->lm;
	char msg[240];

	if (why)
		snprintf(msg, sizeof msg, "%s", why);
	else
		snprintf(msg, sizeof msg, "no data for %d s %s; the server may be stuck (stream_idle_timeout)",
			 lm->cfg->stream_idle_timeout_s,
			 c->got_bytes ? "in the middle of the answer" : "after the response headers");
	llama_fail(c, LLM_ERR_DISCONNECTED, 0, msg);
	llama_cancel(lm);
}

/* Give up from a clean stack (the /slots answer arrives inside curl's callback). */
static void
llama_on_idle_fail(struct loop *l, long id, void *arg)
{
	struct llama_call *c = arg;

	(void)l;
	(void)id;
	c->idle_timer = 0;
	llama_idle_fail(c, c->idle_why[0] ? c->idle_why : NULL);
}

/* Arm the deferred failure with why (NULL: no data for N s). */
static void
llama_idle_fail_later(struct llama_call *c, const char *why)
{
	snprintf(c->idle_why, sizeof c->idle_why, "%s", why ? why : "");
	c->idle_timer = loop_timer_add(c->lm->loop, 0, llama_on_idle_fail, c);
}

/*
 * /slots answered for a silent request: a slot still working on it means
 * wait (and say so); no progress in three looks in a row, or no busy slot,
 * means the server is stuck.
 */
static void
llama_on_idle_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e, void *arg)
{
	struct llama *lm = arg;
	struct llama_call *c = lm->call;
	const struct llama_slot *mine = NULL;
	size_t i, busy = 0;
	long progress;
	char msg[240];

	(void)status;
	(void)e;
	if (!c || c->seq != lm->idle_seq || c->ended || c->dead || c->idle_timer)
		return;
	for (i = 0; i < n; i++) {
		if (lm->disco.slot >= 0 && slots[i].id == lm->disco.slot)
			mine = &slots[i];
		busy += slots[i].is_processing != 0;
	}
	if (!mine && lm->disco.slot < 0 && busy == 1) /* unpinned: the one busy slot is ours */
		for (i = 0; i < n; i++)
			if (slots[i].is_processing)
				mine = &slots[i];
	if (!mine || !mine->is_processing) {
		llama_idle_fail_later(c, NULL);
		return;
	}
	progress = mine->n_decoded + mine->n_prompt_tokens_processed;
	c->idle_stale = c->idle_last >= 0 && progress == c->idle_last ? c->idle_stale + 1 : 0;
	c->idle_last = progress;
	if (c->idle_stale >= 2) {
		snprintf(msg, sizeof msg,
			 "slot %d of llama-server has been busy for %d s without progress and sent nothing; the server may be stuck (stream_idle_timeout)",
			 mine->id, 3 * lm->cfg->stream_idle_timeout_s);
		llama_idle_fail_later(c, msg);
		return;
	}
	if (!c->idle_said) {
		struct llm_event ev = { .kind = LLM_NOTICE };

		snprintf(msg, sizeof msg,
			 "no data for %d s, but slot %d is still working on this request (%ld tokens generated): waiting",
			 lm->cfg->stream_idle_timeout_s, mine->id, mine->n_decoded);
		ev.text = str_from(msg);
		llama_emit(c, &ev);
		c->idle_said = 1;
	}
	llama_touch(c);
}

/* No byte for stream_idle_timeout seconds since the headers or the last byte: ask /slots, then give up. */
static void
llama_on_idle(struct loop *l, long id, void *arg)
{
	struct llama_call *c = arg;
	struct llama *lm = c->lm;

	(void)l;
	(void)id;
	c->idle_timer = 0;
	if (!lm->disco.info.has_slots || lm->disco.info.plain) {
		llama_idle_fail(c, NULL);
		return;
	}
	lm->idle_seq = c->seq;
	llama_disco_slots(&lm->disco, llama_on_idle_slots, lm);
}

/* Re-arm the idle timer (pings and progress chunks count as life). */
static void
llama_touch(struct llama_call *c)
{
	struct llama *lm = c->lm;

	if (lm->cfg->stream_idle_timeout_s <= 0)
		return;
	if (c->idle_timer)
		loop_timer_del(lm->loop, c->idle_timer);
	c->idle_timer = loop_timer_add(lm->loop, (uint64_t)lm->cfg->stream_idle_timeout_s * 1000u,
				       llama_on_idle, c);
}

/* The response's headers are in: from now on silence counts (the server may stall before any byte). */
static void
llama_on_headers(struct http_req *r, int status, void *arg)
{
	struct llama_call *c = arg;

	(void)r;
	(void)status;
	if (!c->dead && !c->ended)
		llama_touch(c);
}

/* Body bytes: SSE for 200, an error document otherwise. */
static int
llama_on_data(struct http_req *r, const char *data, size_t n, void *arg)
{
	struct llama_call *c = arg;
	int status = http_status(r);

	if (c->dead)
		return 1;
	if (c->ended)
		return 0; /* drain the rest so the transfer completes and on_done frees c */
	llama_touch(c);
	c->idle_stale = 0;
	c->idle_last = -1;
	if (!c->got_bytes++ && c->wait_timer) {
		loop_timer_del(c->lm->loop, c->wait_timer);
		c->wait_timer = 0;
	}
	if (status != 200) {
		if (c->errbody.len < 65536)
			buf_add(&c->errbody, data, n);
		return 0;
	}
	if (sse_feed(&c->sse, data, n, llama_on_sse, c) == SSE_TOO_BIG) {
		struct llm_event ev = { .kind = LLM_ERROR };

		ev.error.kind = LLM_ERR_PROTOCOL;
		ev.text = str_from("llama-server sent an SSE event over 16 MB; giving up on this answer");
		llama_emit(c, &ev);
	}
	return c->dead;
}

/* Emit a transport-level error event. */
void
llama_fail(struct llama_call *c, enum llm_err_kind kind, int retryable, const char *msg)
{
	struct llm_event ev = { .kind = LLM_ERROR };

	ev.error.kind = kind;
	ev.error.retryable = retryable;
	ev.text = str_from(msg);
	llama_emit(c, &ev);
}

/* The request finished: flush the stream or classify the failure. */
static void
llama_on_done(struct http_req *r, int status, enum http_fail fail, const struct err *e, void *arg)
{
	struct llama_call *c = arg;
	struct llama *lm = c->lm;

	(void)r;
	if (lm->call == c)
		lm->call = NULL;
	llama_slotfile_request_end(&lm->ss);
	if (status == 200 && !c->ended) {
		/* A partial trailing event is a cut stream, not an event: no sse_finish. */
		openai_dec_finish(&c->dec, llama_dec_sink, c);
	} else if (status && !c->ended) {
		struct llm_event ev;
		struct buf msg = BUF_INIT;

		openai_error_from_body(status, c->errbody.data, c->errbody.len, &ev, &msg);
		ev.text = str_make(msg.data, msg.len);
		llama_emit(c, &ev);
		buf_release(&msg);
	} else if (!c->ended) {
		llama_cache_server_lost(&lm->cw);
		llama_fail(c, fail == HTTP_FAIL_CONNECT ? LLM_ERR_CONNECT : LLM_ERR_DISCONNECTED,
			   fail != HTTP_FAIL_CONNECT, e ? e->msg : "request failed");
	}
	llama_call_free(c);
}

/* POST c->body; 0 or -1 + e. */
int
llama_send(struct llama_call *c, struct err *e)
{
	static const struct http_cb cb = { llama_on_data, llama_on_done, llama_on_headers };
	static const char *const headers[] = { "Content-Type: application/json",
					       "Accept: text/event-stream", NULL };
	struct llama *lm = c->lm;
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };

	llama_disco_url(lm->cfg, "/v1/chat/completions", &url);
	o.method = "POST";
	o.url = url.data;
	o.body = c->body;
	o.body_len = strlen(c->body);
	o.headers = headers;
	o.connect_timeout_ms = 10000;
	o.timeout_ms = lm->cfg->request_timeout_s > 0 ? lm->cfg->request_timeout_s * 1000L : 0;
	c->req = http_start(lm->http, &o, &cb, c, e);
	buf_release(&url);
	return c->req ? 0 : -1;
}

/*
 * Tell llama_cache what is sent: one string per message (the memo's notes
 * of the request just built, so nothing is parsed again), the slot, the server.
 */
static void
llama_note_request(struct llama *lm, int slot)
{
	struct buf server = BUF_INIT;

	buf_addf(&server, "%s|%s", lm->disco.info.build_info ? lm->disco.info.build_info : "",
		 lm->disco.info.model_id ? lm->disco.info.model_id : "");
	llama_cache_request(&lm->cw, lm->memo.notes, lm->memo.nnotes, slot, server.data,
			    lm->disco.info.n_ctx);
	buf_release(&server);
}

/* provider.start: build the body and stream it. */
static int
llama_start(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx, struct err *e)
{
	struct llama *lm = self;
	struct llama_call *c = xcalloc(1, sizeof *c);
	struct buf body = BUF_INIT;
	struct cfg pinned = *lm->cfg;

	if (lm->call)
		lm->prov.cancel(lm);
	llama_sweep(lm);
	c->lm = lm;
	c->sink = sink;
	c->ctx = ctx;
	c->seq = ++lm->seq;
	c->idle_last = -1;
	sse_init(&c->sse);
	openai_dec_init(&c->dec);
	buf_init(&c->errbody, 0);
	pinned.id_slot = lm->disco.slot;
	llama_wire_request_memo(&pinned, lm->cfg->model ? lm->cfg->model : lm->disco.info.model_id, req,
				lm->disco.gen_prefix, &lm->memo, &body);
	if (lm->disco.info.plain) /* not a llama-server: only the OpenAI fields */
		llama_wire_plain(&body);
	c->body = buf_detach(&body, NULL);
	llama_note_request(lm, pinned.id_slot);
	if (req->planned_change)
		llama_cache_plan(&lm->cw, req->planned_change);
	if (lm->start_notice[0]) {
		struct llm_event ev = { .kind = LLM_NOTICE };

		ev.text = str_from(lm->start_notice);
		c->sink(c->ctx, &ev);
		lm->start_notice[0] = 0;
	}
	if (lm->disco.info.model_loading && lm->disco.info.model_id) { /* router mode loads it first */
		struct llm_event ev = { .kind = LLM_NOTICE };
		char line[200];

		snprintf(line, sizeof line, "loading %.120s: the server starts it on demand; the answer begins once it is loaded",
			 lm->disco.info.model_id);
		ev.text = str_from(line);
		c->sink(c->ctx, &ev);
		lm->disco.info.model_loading = 0; /* once: loaded by the time this request is answered */
	}
	if (llama_slotfile_before_request(&lm->ss, lm->disco.info.plain ? NULL : c->body, llama_slots_after_restore,
					  lm)) {
		c->held = 1;
		lm->call = c;
		return 0;
	}
	if (lm->priming) { /* the prime ends where this request begins: send it after */
		c->held = 1;
		lm->call = c;
		return 0;
	}
	if (llama_send(c, e) < 0) {
		llama_call_free(c);
		return -1;
	}
	llama_arm_wait(c);
	lm->call = c;
	return 0;
}

/* Arm the pinned-slot wait timer of a call just sent. */
void
llama_arm_wait(struct llama_call *c)
{
	struct llama *lm = c->lm;

	if (lm->disco.slot >= 0 && lm->cfg->slot_wait_s > 0)
		c->wait_timer = loop_timer_add(lm->loop, (uint64_t)lm->cfg->slot_wait_s * 1000u,
					       llama_slots_on_wait, c);
}

/* provider.cancel: drop the stream; no more events. */
static void
llama_cancel(void *self)
{
	struct llama *lm = self;
	struct llama_call *c = lm->call;

	if (!c)
		return;
	lm->call = NULL;
	c->dead = 1;
	if (!c->held)
		llama_slotfile_request_end(&lm->ss);
	if (c->idle_timer)
		loop_timer_del(lm->loop, c->idle_timer);
	if (c->wait_timer)
		loop_timer_del(lm->loop, c->wait_timer);
	c->idle_timer = c->wait_timer = 0;
	if (c->req)
		http_cancel(c->req);
	c->next_dead = lm->dead;
	lm->dead = c;
}

/* provider.model */
static const char *
llama_model(void *self)
{
	struct llama *lm = self;

	return lm->cfg->model ? lm->cfg->model : lm->disco.info.model_id;
}

/* provider.n_ctx: the per-slot context from /props. */
static long
llama_n_ctx(void *self)
{
	struct llama *lm = self;

	return lm->disco.info.n_ctx;
}

/* provider.describe_error */
static void
llama_describe(void *self, const struct llm_event *ev, struct buf *out)
{
	struct llama *lm = self;

	llama_describe_error(lm->cfg->server_url, ev, out);
}

/* Allocate a provider bound to the loop/http/cfg. */
struct llama *
llama_new(struct loop *l, struct http *h, const struct cfg *cfg)
{
	struct llama *lm = xcalloc(1, sizeof *lm);

	lm->loop = l;
	lm->http = h;
	lm->cfg = cfg;
	lm->prov.name = "llama";
	lm->prov.self = lm;
	lm->prov.start = llama_start;
	lm->prov.cancel = llama_cancel;
	lm->prov.model = llama_model;
	lm->prov.describe_error = llama_describe;
	lm->prov.n_ctx = llama_n_ctx;
	lm->prov.prime = llama_prime;
	llama_disco_init(&lm->disco, l, h, cfg);
	llama_cache_init(&lm->cw);
	llama_wire_memo_init(&lm->memo);
	llama_slotfile_init(&lm->ss, l, h, cfg, &lm->disco.slot);
	return lm;
}

/* Tear down. */
void
llama_free(struct llama *lm)
{
	if (!lm)
		return;
	llama_cancel(lm);
	llama_sweep(lm);
	if (lm->learn_timer)
		loop_timer_del(lm->loop, lm->learn_timer);
	llama_prime_release(lm);
	llama_slotfile_release(&lm->ss);
	free(lm->slotmap_path);
	llama_disco_release(&lm->disco);
	llama_cache_release(&lm->cw);
	llama_wire_memo_release(&lm->memo);
	free(lm);
}

/* The provider vtable. */
struct provider *
llama_provider(struct llama *lm)
{
	return &lm->prov;
}

/* Discovery results. */
const struct llama_info *
llama_info(const struct llama *lm)
{
	return &lm->disco.info;
}

/* ---- discovery ------------------------------------------------------- */

/* Discovery finished: hand the result to the llama-level callback. */
static void
llama_probe_done(int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct llama *lm = arg;

	if (lm->probe_done)
		lm->probe_done(lm, rc, kind, msg, lm->probe_arg);
}

/* The model is loading: tell the llama-level caller. */
static void
llama_probe_loading(void *arg, long left_ms)
{
	struct llama *lm = arg;

	if (lm->probe_loading)
		lm->probe_loading(lm->probe_arg, left_ms);
}

/* Start discovery (see llama_disco_probe). */
void
llama_probe(struct llama *lm, long wait_ms, llama_loading_fn on_loading, llama_probe_fn done,
	    void *arg)
{
	lm->probe_done = done;
	lm->probe_loading = on_loading;
	lm->probe_arg = arg;
	llama_disco_probe(&lm->disco, wait_ms, llama_probe_loading, llama_probe_done, lm);
}

/* Poll /slots once. */
void
llama_get_slots(struct llama *lm, llama_slots_fn done, void *arg)
{
	llama_disco_slots(&lm->disco, done, arg);
}

/* See llama/llama.h. */
void
llama_forget(struct llama *lm, void *arg)
{
	if (lm->probe_done && lm->probe_arg == arg) { /* the probe runs on, telling no one */
		lm->probe_done = NULL;
		lm->probe_loading = NULL;
		lm->probe_arg = NULL;
	}
	llama_disco_forget(&lm->disco, arg);
}

/* Whether the server answers again (see llama/llama.h). */
void
llama_alive(struct llama *lm, llama_alive_fn done, void *arg)
{
	llama_disco_alive(&lm->disco, done, arg);
}

/* GET /metrics as the server's load (see llama/llama.h). */
void
llama_get_load(struct llama *lm, llama_load_fn done, void *arg)
{
	llama_disco_load(&lm->disco, done, arg);
}

/* Resuming: let the server match the prefix, then pin (see llama/llama.h). */
void
llama_prefer_warm_slot(struct llama *lm)
{
	lm->disco.choose = 0;
}

/* The session's id ("" when none yet). */
static const char *
llama_session_id(const struct llama *lm)
{
	const char *id = lm->ss.session_id ? lm->ss.session_id(lm->ss.session_arg) : NULL;

	return id ? id : "";
}

/* Discovery's slot choice from the records (llama/slotmap.h). */
static int
llama_choose_slot(void *arg, const struct llama_slot *slots, size_t n)
{
	struct llama *lm = arg;
	struct llama_slotmap m;
	enum llama_slotmap_why why;
	int restoring = lm->ss.restore_pending, slot;

	llama_slotmap_load(lm->slotmap_path, lm->cfg->server_url, &m);
	if (restoring && m.no_slot_files) /* known from an earlier run: keep the shared-prefix choice */
		lm->ss.restore_pending = restoring = 0;
	if (restoring && llama_slotmap_restores_useless(&m)) {
		lm->ss.restore_pending = restoring = 0;
		snprintf(lm->start_notice, sizeof lm->start_notice,
			 "not restoring the session's slot file: restores did not pay on this server (%d of them reused nothing); the first request prefills the conversation",
			 m.restore_misses);
	}
	slot = llama_slotmap_choose(&m, llama_session_id(lm), restoring, slots, n, &why);
	lm->slot_why = (int)why;
	if (why == LLAMA_SLOTMAP_LIVE && restoring) {
		lm->ss.restore_pending = 0;
		snprintf(lm->start_notice, sizeof lm->start_notice,
			 "slot %d still holds this session's cache: no restore needed", slot);
	}
	llama_slotmap_release(&m);
	return slot;
}

/* Keep the records of saved slot files in dir (llama/slotfile.h). */
void
llama_set_slot_records(struct llama *lm, const char *dir)
{
	llama_slotfile_records(&lm->ss, dir);
}

/* Keep the slot records in path. */
void
llama_set_slotmap(struct llama *lm, const char *path)
{
	free(lm->slotmap_path);
	lm->slotmap_path = path ? xstrdup(path) : NULL;
	lm->disco.choose = 1;
	lm->disco.choose_fn = path ? llama_choose_slot : NULL;
	lm->disco.choose_arg = lm;
}

/* /slots at exit: write down what the session leaves in its slot. */
static void
llama_on_exit_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e, void *arg)
{
	struct llama *lm = arg;
	struct err we = ERR_INIT;
	size_t i;
	int found = 0;
	int files = lm->ss.support == LLAMA_SLOTFILE_NO ? 0 : lm->ss.support == LLAMA_SLOTFILE_YES ? 1 : -1;

	(void)status;
	(void)e;
	for (i = 0; i < n; i++)
		if (slots[i].id == lm->disco.slot && !slots[i].is_processing) {
			llama_slotmap_note(lm->slotmap_path, lm->cfg->server_url, slots[i].id, llama_session_id(lm),
					   slots[i].id_task, slots[i].n_prompt_tokens, (long long)time(NULL),
					   lm->restore_verdict, files, &we);
			found = 1;
		}
	if (!found && (lm->restore_verdict || files >= 0))
		llama_slotmap_note(lm->slotmap_path, lm->cfg->server_url, -1, "", 0, 0, (long long)time(NULL),
				   lm->restore_verdict, files, &we);
	lm->exit_noted = 1;
	loop_stop(lm->loop);
}

/* The exit look-up took too long. */
static void
llama_on_exit_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* Exit: ask /slots what our slot holds now and record it (bounded wait). */
static void
llama_note_slot(struct llama *lm, long timeout_ms)
{
	struct err e = ERR_INIT;
	long t;

	if (!lm->slotmap_path || lm->disco.slot < 0 || !lm->disco.info.has_slots || !*llama_session_id(lm) ||
	    lm->call || lm->ss.req)
		return;
	lm->exit_noted = 0;
	t = loop_timer_add(lm->loop, (uint64_t)timeout_ms, llama_on_exit_timeout, lm);
	llama_disco_slots(&lm->disco, llama_on_exit_slots, lm);
	if (!lm->exit_noted)
		loop_run(lm->loop, &e);
	loop_timer_del(lm->loop, t);
}

/* Slot save/restore for this session (see llama/slotfile.h). */
void
llama_set_session(struct llama *lm, const char *(*session_id)(void *arg), void *arg, int resumed)
{
	llama_slotfile_session(&lm->ss, session_id, arg, resumed);
}

/* Exit: save the session's slot, waiting up to timeout_ms. */
void
llama_save_slot(struct llama *lm, long timeout_ms)
{
	if (!lm)
		return;
	llama_prime_wait(lm, timeout_ms);
	llama_slotfile_flush(&lm->ss, timeout_ms);
	llama_note_slot(lm, timeout_ms < 5000 ? timeout_ms : 5000);
}

/* The slot requests are pinned to (-1: any). */
int
llama_slot(const struct llama *lm)
{
	return lm->disco.slot;
}

/* ---- messages -------------------------------------------------------- */

/* Turn an error event into one line that says what to do. */
void
llama_describe_error(const char *base_url, const struct llm_event *ev, struct buf *out)
{
	const struct llm_error *er = &ev->error;

	switch (er->kind) {
	case LLM_ERR_CONNECT:
		buf_addf(out, "no llama-server at %s: start one, e.g. `llama-server -m MODEL.gguf --jinja`, or pass --server",
			 base_url);
		break;
	case LLM_ERR_CONTEXT:
		buf_addf(out, "the prompt (%ld tokens) exceeds the server's per-slot context (%ld tokens): restart llama-server with a larger -c or fewer -np slots, or start a shorter task",
			 er->n_prompt_tokens, er->n_ctx);
		break;
	case LLM_ERR_LOADING:
		buf_addf(out, "llama-server at %s is still loading the model; wait until its log says it is listening and try again (the wait is the loading_wait setting)",
			 base_url);
		break;
	case LLM_ERR_DISCONNECTED:
		buf_addf(out, "the connection to llama-server at %s was lost mid-answer (%.*s); check that the server is still running",
			 base_url, (int)ev->text.len, ev->text.p);
		break;
	default:
		if (str_find(ev->text, "--jinja", 7) >= 0) {
			buf_addf(out, "llama-server at %s was started without --jinja, which tools need: restart it with --jinja",
				 base_url);
			break;
		}
		if (er->http_status == 401 || er->http_status == 403) {
			buf_addf(out, "server at %s refused the request (HTTP %d: %.*s): set OPENAI_API_KEY to its key (sent as a Bearer key)",
				 base_url, er->http_status, (int)ev->text.len, ev->text.p);
			break;
		}
		if (er->http_status >= 500 && er->kind == LLM_ERR_HTTP) {
			buf_addf(out, "llama-server at %s answered HTTP %d (%.*s): it is not serving requests; check its log, or the proxy in front of it, and restart it if this persists",
				 base_url, er->http_status, (int)ev->text.len, ev->text.p);
			break;
		}
		buf_addf(out, "llama-server: %.*s", (int)ev->text.len, ev->text.p);
		if (er->http_status)
			buf_addf(out, " (HTTP %d)", er->http_status);
		break;
	}
}

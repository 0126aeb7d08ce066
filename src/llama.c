/*
 * llama: llama-server provider.
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
#include "llama.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "http.h"
#include "json.h"
#include "loop.h"
#include "oai.h"
#include "sse.h"
#include "tool.h"
#include "xmalloc.h"

struct llama_call {
	struct llama *lm;
	struct http_req *req;
	struct sse sse;
	struct oai_dec dec;
	struct buf errbody;
	llm_sink_fn sink;
	void *ctx;
	int ended;
	int dead;
	long idle_timer; /* armed once bytes flow; silence past it means a stuck server */
	struct llama_call *next_dead;
};

struct llama_probe_st {
	llama_probe_fn done;
	void (*on_loading)(void *arg);
	void *arg;
	uint64_t deadline;
	int told_loading;
	int pending; /* /props and /v1/models outstanding */
	int failed;
	struct buf msg;
	enum llm_err_kind kind;
};

struct llama {
	struct loop *loop;
	struct http *http;
	const struct cfg *cfg;
	struct provider prov;
	struct llama_info info;
	struct llama_call *call;
	struct llama_call *dead;
	struct llama_probe_st *probe;
	long probe_timer;
};

static void llama_call_free(struct llama_call *c);

/* Join base URL and path without doubling the slash. */
static void
llama_url(const struct llama *lm, const char *path, struct buf *out)
{
	const char *base = lm->cfg->server_url;
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	buf_add(out, base, n);
	buf_adds(out, path);
}

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
static void
llama_call_free(struct llama_call *c)
{
	if (c->idle_timer)
		loop_timer_del(c->lm->loop, c->idle_timer);
	sse_release(&c->sse);
	oai_dec_release(&c->dec);
	buf_release(&c->errbody);
	free(c);
}

/* Forward one event unless the call already ended. */
static void
llama_emit(struct llama_call *c, const struct llm_event *ev)
{
	if (c->ended || c->dead)
		return;
	if (ev->kind == LLM_DONE || ev->kind == LLM_ERROR)
		c->ended = 1;
	c->sink(c->ctx, ev);
}

/* Decoder sink adapter. */
static void
llama_dec_sink(void *ctx, const struct llm_event *ev)
{
	llama_emit(ctx, ev);
}

/* One SSE event → decoder; stop parsing once the call is over. */
static int
llama_on_sse(void *ctx, struct str event, struct str data)
{
	struct llama_call *c = ctx;

	oai_dec_event(&c->dec, event, data, llama_dec_sink, c);
	return c->ended || c->dead;
}

static void llama_fail(struct llama_call *c, enum llm_err_kind kind, int retryable, const char *msg);
static void llama_cancel(void *self);

/* No byte for stream_idle_timeout seconds after the stream started: give up on it. */
static void
llama_on_idle(struct loop *l, long id, void *arg)
{
	struct llama_call *c = arg;
	struct llama *lm = c->lm;
	char msg[160];

	(void)l;
	(void)id;
	c->idle_timer = 0;
	snprintf(msg, sizeof msg, "no data for %d s in the middle of the answer; the server may be stuck",
		 lm->cfg->stream_idle_timeout_s);
	llama_fail(c, LLM_ERR_DISCONNECTED, 0, msg);
	llama_cancel(lm);
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
static void
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
	if (status == 200 && !c->ended) {
		/* A partial trailing event is a cut stream, not an event: no sse_finish. */
		oai_dec_finish(&c->dec, llama_dec_sink, c);
	} else if (status && !c->ended) {
		struct llm_event ev;
		struct buf msg = BUF_INIT;

		oai_error_from_body(status, c->errbody.data, c->errbody.len, &ev, &msg);
		ev.text = str_make(msg.data, msg.len);
		llama_emit(c, &ev);
		buf_release(&msg);
	} else if (!c->ended) {
		llama_fail(c, fail == HTTP_FAIL_CONNECT ? LLM_ERR_CONNECT : LLM_ERR_DISCONNECTED,
			   fail != HTTP_FAIL_CONNECT, e ? e->msg : "request failed");
	}
	llama_call_free(c);
}

/* provider.start: build the body and stream it. */
static int
llama_start(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx, struct err *e)
{
	static const struct http_cb cb = { llama_on_data, llama_on_done };
	static const char *const headers[] = { "Content-Type: application/json",
					       "Accept: text/event-stream", NULL };
	struct llama *lm = self;
	struct llama_call *c = xcalloc(1, sizeof *c);
	struct buf url = BUF_INIT, body = BUF_INIT;
	struct http_opts o = { 0 };

	if (lm->call)
		lm->prov.cancel(lm);
	llama_sweep(lm);
	c->lm = lm;
	c->sink = sink;
	c->ctx = ctx;
	sse_init(&c->sse);
	oai_dec_init(&c->dec);
	buf_init(&c->errbody, 0);
	llama_url(lm, "/v1/chat/completions", &url);
	llamawire_request(lm->cfg, lm->cfg->model ? lm->cfg->model : lm->info.model_id, req, &body);
	o.method = "POST";
	o.url = url.data;
	o.body = body.data;
	o.body_len = body.len;
	o.headers = headers;
	o.connect_timeout_ms = 10000;
	o.timeout_ms = lm->cfg->request_timeout_s > 0 ? lm->cfg->request_timeout_s * 1000L : 0;
	c->req = http_start(lm->http, &o, &cb, c, e);
	buf_release(&url);
	buf_release(&body);
	if (!c->req) {
		llama_call_free(c);
		return -1;
	}
	lm->call = c;
	return 0;
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
	if (c->idle_timer)
		loop_timer_del(lm->loop, c->idle_timer);
	c->idle_timer = 0;
	http_cancel(c->req);
	c->next_dead = lm->dead;
	lm->dead = c;
}

/* provider.model */
static const char *
llama_model(void *self)
{
	struct llama *lm = self;

	return lm->cfg->model ? lm->cfg->model : lm->info.model_id;
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
	if (lm->probe_timer)
		loop_timer_del(lm->loop, lm->probe_timer);
	if (lm->probe) {
		buf_release(&lm->probe->msg);
		free(lm->probe);
	}
	llamawire_info_release(&lm->info);
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
	return &lm->info;
}

/* ---- discovery ------------------------------------------------------- */

static void llama_probe_health(struct llama *lm);

/* Finish the probe once, reporting rc and the message. */
static void
llama_probe_end(struct llama *lm, int rc)
{
	struct llama_probe_st *p = lm->probe;

	lm->probe = NULL;
	p->done(lm, rc, p->kind, p->msg.data, p->arg);
	buf_release(&p->msg);
	free(p);
}

/* One of /props or /v1/models answered. */
static void
llama_probe_part(struct llama *lm, int ok, const char *what, const struct err *e)
{
	struct llama_probe_st *p = lm->probe;

	if (!ok && !p->failed) {
		p->failed = 1;
		p->kind = LLM_ERR_PROTOCOL;
		buf_addf(&p->msg, "llama-server at %s: %s: %s", lm->cfg->server_url, what,
			 e && e->msg[0] ? e->msg : "bad answer");
	}
	if (--p->pending == 0)
		llama_probe_end(lm, p->failed ? -1 : 0);
}

/* /props answered. */
static void
llama_on_props(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	       void *arg)
{
	struct llama *lm = arg;
	struct err pe = ERR_INIT;
	int ok = status == 200 && llamawire_props(body->data, body->len, &lm->info, &pe) == 0;

	(void)fail;
	llama_probe_part(lm, ok, "GET /props", e ? e : &pe);
}

/* /v1/models answered. */
static void
llama_on_models(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		void *arg)
{
	struct llama *lm = arg;
	struct err pe = ERR_INIT;
	int ok = status == 200 && llamawire_models(body->data, body->len, &lm->info, &pe) == 0;

	(void)fail;
	llama_probe_part(lm, ok, "GET /v1/models", e ? e : &pe);
}

/* GET path on the server, body to done. */
static int
llama_get(struct llama *lm, const char *path, http_fetch_fn done, void *arg, struct err *e)
{
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };
	struct http_req *r;

	llama_url(lm, path, &url);
	o.url = url.data;
	o.timeout_ms = 15000;
	o.connect_timeout_ms = 5000;
	r = http_fetch(lm->http, &o, done, arg, e);
	buf_release(&url);
	return r ? 0 : -1;
}

/* Retry /health after a pause while the model loads. */
static void
llama_probe_retry(struct loop *l, long id, void *arg)
{
	struct llama *lm = arg;

	(void)l;
	(void)id;
	lm->probe_timer = 0;
	llama_probe_health(lm);
}

/* /health answered: ready → props+models; 503 → wait; else fail. */
static void
llama_on_health(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		void *arg)
{
	struct llama *lm = arg;
	struct llama_probe_st *p = lm->probe;
	struct err ge = ERR_INIT;

	(void)body;
	if (status == 503 && loop_now_ms(lm->loop) < p->deadline) {
		if (!p->told_loading++ && p->on_loading)
			p->on_loading(p->arg);
		lm->probe_timer = loop_timer_add(lm->loop, 500, llama_probe_retry, lm);
		return;
	}
	if (status == 200) {
		p->pending = 2;
		if (llama_get(lm, "/props", llama_on_props, lm, &ge) < 0)
			llama_probe_part(lm, 0, "GET /props", &ge);
		if (lm->probe && llama_get(lm, "/v1/models", llama_on_models, lm, &ge) < 0)
			llama_probe_part(lm, 0, "GET /v1/models", &ge);
		return;
	}
	if (status == 503) {
		p->kind = LLM_ERR_LOADING;
		buf_addf(&p->msg, "llama-server at %s is still loading the model; wait and try again",
			 lm->cfg->server_url);
	} else if (!status && fail == HTTP_FAIL_CONNECT) {
		p->kind = LLM_ERR_CONNECT;
		buf_addf(&p->msg,
			 "no llama-server at %s (%s): start one, e.g. `llama-server -m MODEL.gguf --jinja`, or pass --server",
			 lm->cfg->server_url, e ? e->msg : "no answer");
	} else if (!status) {
		p->kind = LLM_ERR_HTTP;
		buf_addf(&p->msg,
			 "llama-server at %s did not answer GET /health (%s): is it stuck or stopped? restart it",
			 lm->cfg->server_url, e ? e->msg : "no answer");
	} else {
		p->kind = LLM_ERR_HTTP;
		buf_addf(&p->msg, "llama-server at %s answered GET /health with HTTP %d; is this a llama-server?",
			 lm->cfg->server_url, status);
	}
	llama_probe_end(lm, -1);
}

/* Ask /health. */
static void
llama_probe_health(struct llama *lm)
{
	struct err e = ERR_INIT;

	if (llama_get(lm, "/health", llama_on_health, lm, &e) < 0) {
		lm->probe->kind = LLM_ERR_OTHER;
		buf_adds(&lm->probe->msg, e.msg);
		llama_probe_end(lm, -1);
	}
}

/* Start discovery. */
void
llama_probe(struct llama *lm, long wait_ms, void (*on_loading)(void *arg), llama_probe_fn done,
	    void *arg)
{
	struct llama_probe_st *p = xcalloc(1, sizeof *p);

	p->done = done;
	p->on_loading = on_loading;
	p->arg = arg;
	p->deadline = loop_now_ms(lm->loop) + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
	buf_init(&p->msg, 0);
	lm->probe = p;
	llama_probe_health(lm);
}

struct llama_slots_req {
	llama_slots_fn done;
	void *arg;
};

/* /slots answered. */
static void
llama_on_slots(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	       void *arg)
{
	struct llama_slots_req *sr = arg;
	struct llama_slot *slots = NULL;
	struct err pe = ERR_INIT;
	size_t n = 0;

	(void)fail;
	if (status == 200 && llamawire_slots(body->data, body->len, &slots, &n, &pe) == 0)
		sr->done(status, slots, n, NULL, sr->arg);
	else
		sr->done(status, NULL, 0, e ? e : &pe, sr->arg);
	free(slots);
	free(sr);
}

/* Poll /slots once. */
void
llama_get_slots(struct llama *lm, llama_slots_fn done, void *arg)
{
	struct llama_slots_req *sr = xmalloc(sizeof *sr);
	struct err e = ERR_INIT;

	sr->done = done;
	sr->arg = arg;
	if (llama_get(lm, "/slots", llama_on_slots, sr, &e) < 0) {
		done(0, NULL, 0, &e, arg);
		free(sr);
	}
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
		buf_addf(out, "llama-server at %s is still loading the model; wait for it and try again",
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
		buf_addf(out, "llama-server: %.*s", (int)ev->text.len, ev->text.p);
		if (er->http_status)
			buf_addf(out, " (HTTP %d)", er->http_status);
		break;
	}
}

/*
 * llama/disco: llama-server discovery and slot choice.
 *
 * Data: one probe at a time (struct llama_disco_probe) counting the parts
 * still outstanding (/props, /v1/models, /slots after /health); the first
 * hard failure is kept as the message.  /slots failing is not a failure:
 * the slot stays -1.
 */
#include "llama/disco.h"

#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "io/http.h"
#include "io/loop.h"
#include "llama/template.h"
#include "base/xmalloc.h"

#define DISCO_503_TRIES 3 /* another 503 on /health: asked this often (1 s, 2 s apart) */

struct llama_disco_probe {
	llama_disco_fn done;
	llama_loading_fn on_loading;
	void *arg;
	uint64_t deadline;
	int other_503;      /* 503s that were not "Loading model" */
	int pending;
	int failed;
	enum llm_err_kind kind;
	struct buf msg;
};

struct llama_disco_slots_req {
	struct llama_disco *d;
	struct http_req *req;
	llama_slots_fn done;
	void *arg;
	struct llama_disco_slots_req *next;
};

static void disco_health(struct llama_disco *d);

/* Start empty. */
void
llama_disco_init(struct llama_disco *d, struct loop *l, struct http *h, const struct cfg *cfg)
{
	memset(d, 0, sizeof *d);
	d->loop = l;
	d->http = h;
	d->cfg = cfg;
	d->slot = cfg->id_slot >= 0 ? cfg->id_slot : -1;
	d->choose = 1;
}

/* Drop a running probe silently and free the info. */
void
llama_disco_release(struct llama_disco *d)
{
	if (d->probe_timer)
		loop_timer_del(d->loop, d->probe_timer);
	d->probe_timer = 0;
	llama_template_cancel(d->tpl);
	d->tpl = NULL;
	free(d->gen_prefix);
	d->gen_prefix = NULL;
	if (d->probe) {
		buf_release(&d->probe->msg);
		free(d->probe);
		d->probe = NULL;
	}
	while (d->slots_reqs) { /* cancelled: no callback, so free them here */
		struct llama_disco_slots_req *sr = d->slots_reqs;

		d->slots_reqs = sr->next;
		http_cancel(sr->req);
		free(sr);
	}
	llama_wire_info_release(&d->info);
}

/* Join base URL and path. */
void
llama_disco_url(const struct cfg *cfg, const char *path, struct buf *out)
{
	const char *base = cfg->server_url;
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	buf_add(out, base, n);
	buf_adds(out, path);
}

/* GET path, whole body to done; the request, or NULL + e. */
static struct http_req *
disco_fetch(struct llama_disco *d, const char *path, http_fetch_fn done, void *arg, struct err *e)
{
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };
	struct http_req *r;

	llama_disco_url(d->cfg, path, &url);
	o.url = url.data;
	o.timeout_ms = 15000;
	o.connect_timeout_ms = 5000;
	r = http_fetch(d->http, &o, done, arg, e);
	buf_release(&url);
	return r;
}

/* GET path; 0 or -1 + e. */
static int
disco_get(struct llama_disco *d, const char *path, http_fetch_fn done, void *arg, struct err *e)
{
	return disco_fetch(d, path, done, arg, e) ? 0 : -1;
}

/* Report and forget the probe. */
static void
disco_end(struct llama_disco *d, int rc)
{
	struct llama_disco_probe *p = d->probe;

	d->probe = NULL;
	p->done(rc, p->kind, p->msg.data, p->arg);
	buf_release(&p->msg);
	free(p);
}

/* One part answered; a hard failure is kept as the message. */
static void
disco_part(struct llama_disco *d, int ok, const char *what, const struct err *e)
{
	struct llama_disco_probe *p = d->probe;

	if (!p)
		return;
	if (!ok && what && !p->failed) {
		p->failed = 1;
		p->kind = LLM_ERR_PROTOCOL;
		buf_addf(&p->msg, "llama-server at %s: %s: %s", d->cfg->server_url, what,
			 e && e->msg[0] ? e->msg : "bad answer");
	}
	if (--p->pending == 0)
		disco_end(d, p->failed ? -1 : 0);
}

/* /props answered. */
static void
disco_on_props(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	       void *arg)
{
	struct llama_disco *d = arg;
	struct err pe = ERR_INIT;
	int ok = status == 200 && llama_wire_props(body->data, body->len, &d->info, &pe) == 0;

	(void)fail;
	disco_part(d, ok, "GET /props", e ? e : &pe);
}

/* /v1/models answered. */
static void
disco_on_models(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		void *arg)
{
	struct llama_disco *d = arg;
	struct err pe = ERR_INIT;
	int ok = status == 200 && llama_wire_models(body->data, body->len, &d->info, &pe) == 0;

	(void)fail;
	disco_part(d, ok, "GET /v1/models", e ? e : &pe);
}

/* /slots answered during discovery: choose the slot; never a failure. */
static void
disco_on_slots(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	       void *arg)
{
	struct llama_disco *d = arg;
	struct llama_slot *slots = NULL;
	size_t n = 0;

	(void)fail;
	(void)e;
	if (status == 200 && llama_wire_slots(body->data, body->len, &slots, &n, NULL) == 0)
		d->slot = llama_disco_choose_slot(d->cfg->id_slot, slots, n);
	free(slots);
	disco_part(d, 1, NULL, NULL);
}

/* Ask /health again after a pause. */
static void
disco_retry(struct loop *l, long id, void *arg)
{
	struct llama_disco *d = arg;

	(void)l;
	(void)id;
	d->probe_timer = 0;
	disco_health(d);
}

/* The template probe ended: keep what it found; never a failure. */
static void
disco_on_tpl(char *prefix, void *arg)
{
	struct llama_disco *d = arg;

	d->tpl = NULL;
	free(d->gen_prefix);
	d->gen_prefix = prefix;
	disco_part(d, 1, NULL, NULL);
}

/* Start the parallel part of discovery. */
static void
disco_details(struct llama_disco *d)
{
	struct err ge = ERR_INIT;
	int want_slots = d->cfg->id_slot < 0 && d->choose;

	llama_template_cancel(d->tpl);
	d->probe->pending = 3 + want_slots;
	if (!(d->tpl = llama_template_start(d->http, d->cfg, disco_on_tpl, d)))
		d->probe->pending--;
	if (disco_get(d, "/props", disco_on_props, d, &ge) < 0)
		disco_part(d, 0, "GET /props", &ge);
	if (d->probe && disco_get(d, "/v1/models", disco_on_models, d, &ge) < 0)
		disco_part(d, 0, "GET /v1/models", &ge);
	if (d->probe && want_slots && disco_get(d, "/slots", disco_on_slots, d, &ge) < 0)
		disco_part(d, 1, NULL, NULL);
}

/* /health answered: ready → details; 503 → wait; else fail with what to do. */
static void
disco_on_health(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		void *arg)
{
	struct llama_disco *d = arg;
	struct llama_disco_probe *p = d->probe;

	if (status == 503 && !(body && body->len && strstr(body->data, "Loading model")) &&
	    ++p->other_503 < DISCO_503_TRIES) {
		d->probe_timer = loop_timer_add(d->loop, 1000u << (p->other_503 - 1), disco_retry, d);
		return;
	}
	if (status == 503 && !p->other_503 && loop_now_ms(d->loop) < p->deadline) {
		if (p->on_loading)
			p->on_loading(p->arg, (long)(p->deadline - loop_now_ms(d->loop)));
		d->probe_timer = loop_timer_add(d->loop, 500, disco_retry, d);
		return;
	}
	if (status == 200) {
		disco_details(d);
		return;
	}
	if (status == 503 && p->other_503) {
		p->kind = LLM_ERR_HTTP;
		buf_addf(&p->msg, "llama-server at %s answered GET /health with HTTP 503 %d times (not \"Loading model\"): it is not serving requests; check its log, or the proxy in front of it, and restart it",
			 d->cfg->server_url, p->other_503);
	} else if (status == 503) {
		p->kind = LLM_ERR_LOADING;
		buf_addf(&p->msg, "llama-server at %s was still loading the model after the wait (loading_wait); wait until its log says it is listening and try again",
			 d->cfg->server_url);
	} else if (!status && fail == HTTP_FAIL_CONNECT) {
		p->kind = LLM_ERR_CONNECT;
		buf_addf(&p->msg,
			 "no llama-server at %s (%s): start one, e.g. `llama-server -m MODEL.gguf --jinja`, or pass --server",
			 d->cfg->server_url, e ? e->msg : "no answer");
	} else if (!status) {
		p->kind = LLM_ERR_HTTP;
		buf_addf(&p->msg,
			 "llama-server at %s did not answer GET /health (%s): is it stuck or stopped? restart it",
			 d->cfg->server_url, e ? e->msg : "no answer");
	} else {
		p->kind = LLM_ERR_HTTP;
		buf_addf(&p->msg, "llama-server at %s answered GET /health with HTTP %d; is this a llama-server?",
			 d->cfg->server_url, status);
	}
	disco_end(d, -1);
}

/* Ask /health. */
static void
disco_health(struct llama_disco *d)
{
	struct err e = ERR_INIT;

	if (disco_get(d, "/health", disco_on_health, d, &e) < 0) {
		d->probe->kind = LLM_ERR_OTHER;
		buf_adds(&d->probe->msg, e.msg);
		disco_end(d, -1);
	}
}

/* Start discovery. */
void
llama_disco_probe(struct llama_disco *d, long wait_ms, llama_loading_fn on_loading,
		 llama_disco_fn done, void *arg)
{
	struct llama_disco_probe *p = xcalloc(1, sizeof *p);

	p->done = done;
	p->on_loading = on_loading;
	p->arg = arg;
	p->deadline = loop_now_ms(d->loop) + (uint64_t)(wait_ms > 0 ? wait_ms : 0);
	buf_init(&p->msg, 0);
	d->probe = p;
	disco_health(d);
}


/* Forget a finished (or cancelled) /slots request. */
static void
disco_slots_unlink(struct llama_disco_slots_req *sr)
{
	struct llama_disco_slots_req **pp = &sr->d->slots_reqs;

	while (*pp && *pp != sr)
		pp = &(*pp)->next;
	if (*pp)
		*pp = sr->next;
	free(sr);
}

/* /slots answered. */
static void
disco_on_slots_req(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		   void *arg)
{
	struct llama_disco_slots_req *sr = arg;
	struct llama_slot *slots = NULL;
	struct err pe = ERR_INIT;
	size_t n = 0;

	(void)fail;
	if (status == 200 && llama_wire_slots(body->data, body->len, &slots, &n, &pe) == 0)
		sr->done(status, slots, n, NULL, sr->arg);
	else
		sr->done(status, NULL, 0, e ? e : &pe, sr->arg);
	free(slots);
	disco_slots_unlink(sr);
}

/* Poll /slots once. */
void
llama_disco_slots(struct llama_disco *d, llama_slots_fn done, void *arg)
{
	struct llama_disco_slots_req *sr = xcalloc(1, sizeof *sr);
	struct err e = ERR_INIT;

	sr->d = d;
	sr->done = done;
	sr->arg = arg;
	sr->req = disco_fetch(d, "/slots", disco_on_slots_req, sr, &e);
	if (!sr->req) {
		free(sr);
		done(0, NULL, 0, &e, arg);
		return;
	}
	sr->next = d->slots_reqs;
	d->slots_reqs = sr;
}

/* Configured slot, else the idle one with the least cached prompt, else any. */
int
llama_disco_choose_slot(int configured, const struct llama_slot *slots, size_t n)
{
	long best_tokens = -1;
	int best = -1;
	size_t i;

	if (configured >= 0)
		return configured;
	for (i = 0; i < n; i++) {
		long held = slots[i].id_task < 0 ? 0 : slots[i].n_prompt_tokens + slots[i].n_decoded;

		if (slots[i].is_processing)
			continue;
		if (best < 0 || held < best_tokens) {
			best = slots[i].id;
			best_tokens = held;
		}
	}
	return best;
}

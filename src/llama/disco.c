/*
 * llama/disco: llama-server discovery and slot choice.
 *
 * Data: one probe at a time (struct llama_disco_probe) counting the parts
 * still outstanding (/props, /v1/models, /slots after /health); the first
 * hard failure is kept as the message.  /slots failing is not a failure:
 * the slot stays -1.
 */
#include "llama/disco.h"

#include <stdio.h>
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
	int have_models;    /* /v1/models already answered (it stood in for /health) */
	int health_status;  /* what /health answered when /v1/models stood in */
	int want_key;       /* a part answered 401/403 */
	int key_retried;    /* discovery was restarted once with the Bearer key */
	char want_path[32]; /* the first path that answered 401/403 */
	int want_status;
	enum llm_err_kind kind;
	struct buf msg;
};

/* A request other than discovery: GET /slots, the liveness check or GET /metrics. */
struct llama_disco_slots_req {
	struct llama_disco *d;
	struct http_req *req;
	llama_slots_fn done;      /* GET /slots */
	llama_alive_fn alive;     /* llama_disco_alive: /health, then /v1/models when it has none */
	llama_load_fn load;       /* llama_disco_load: GET /metrics */
	void *arg;
	struct llama_disco_slots_req *next;
};

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

/* Cancel and free the requests in flight: every one (all), or those made with arg. */
static void
disco_cancel(struct llama_disco *d, int all, void *arg)
{
	struct llama_disco_slots_req **pp = &d->slots_reqs, *sr;

	while ((sr = *pp) != NULL) {
		if (!all && sr->arg != arg) {
			pp = &sr->next;
			continue;
		}
		*pp = sr->next;
		http_cancel(sr->req);
		free(sr);
	}
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
	disco_cancel(d, 1, NULL); /* cancelled: no callback, so free them here */
	llama_wire_info_release(&d->info);
}

/* The base URL's length without trailing slashes and one trailing "/v1". */
size_t
llama_disco_base_len(const char *base)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	if (n >= 3 && !strncmp(base + n - 3, "/v1", 3))
		n -= 3;
	while (n && base[n - 1] == '/')
		n--;
	return n;
}

/* Join base URL (with or without /v1) and path. */
void
llama_disco_url(const struct cfg *cfg, const char *path, struct buf *out)
{
	const char *base = cfg->server_url;

	buf_add(out, base, llama_disco_base_len(base));
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

static void disco_health(struct llama_disco *d);
static void disco_details(struct llama_disco *d);

/* A part answered 401/403: remember it (the key is sent, or asked for, at the end). */
static void
disco_key_wanted(struct llama_disco *d, const char *path, int status)
{
	struct llama_disco_probe *p = d->probe;

	if (p && !p->want_key) {
		p->want_key = 1;
		p->want_status = status;
		snprintf(p->want_path, sizeof p->want_path, "%s", path);
	}
}

/* Register the Bearer key for this server; 0, or -1 when there is none or it was sent already. */
static int
disco_send_key(struct llama_disco *d)
{
	struct buf base = BUF_INIT;
	const char *url = d->cfg->server_url;

	if (!d->cfg->server_api_key || !*d->cfg->server_api_key || d->info.bearer)
		return -1;
	buf_add(&base, url, llama_disco_base_len(url));
	http_set_bearer(d->http, base.data, d->cfg->server_api_key);
	buf_release(&base);
	d->info.bearer = 1;
	return 0;
}

/* Every part is in: the key question, the context of a server without /props, the result. */
static void
disco_finish(struct llama_disco *d)
{
	struct llama_disco_probe *p = d->probe;

	if (p->want_key && !p->failed) {
		if (!p->key_retried && disco_send_key(d) == 0) {
			p->key_retried = 1; /* once more from the start, with the key */
			p->want_key = p->have_models = 0;
			disco_health(d);
			return;
		}
		p->failed = 1;
		p->kind = LLM_ERR_HTTP;
		buf_reset(&p->msg);
		if (d->info.bearer)
			buf_addf(&p->msg, "server at %s refused the API key from OPENAI_API_KEY (GET %s: HTTP %d): set OPENAI_API_KEY to the key the server was started with (llama-server --api-key)",
				 d->cfg->server_url, p->want_path, p->want_status);
		else
			buf_addf(&p->msg, "server at %s wants an API key (GET %s: HTTP %d): set OPENAI_API_KEY to it; hearth sends it as `Authorization: Bearer`",
				 d->cfg->server_url, p->want_path, p->want_status);
	}
	/* no /props (or a router's, without a slot): the setting, else what /v1/models states */
	if (!p->failed && (!d->info.has_props || d->info.n_ctx <= 0))
		d->info.n_ctx = d->cfg->server_context > 0 ? d->cfg->server_context : d->info.ctx_meta;
	d->info.plain = !p->failed && !d->info.has_props;
	disco_end(d, p->failed ? -1 : 0);
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
		buf_addf(&p->msg, "server at %s: %s: %s", d->cfg->server_url, what,
			 e && e->msg[0] ? e->msg : "bad answer");
	}
	if (--p->pending == 0)
		disco_finish(d);
}

/* /props answered: llama-server's own; a server without it is fine (not a failure). */
static void
disco_on_props(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	       void *arg)
{
	struct llama_disco *d = arg;
	struct err pe = ERR_INIT;
	int ok = 1;

	(void)fail;
	if (status == 401 || status == 403)
		disco_key_wanted(d, "/props", status);
	else if (status == 200) {
		ok = llama_wire_props(body->data, body->len, &d->info, &pe) == 0;
		d->info.has_props = ok;
	} else if (!status)
		ok = 0; /* the server went away between /health and now */
	disco_part(d, ok, "GET /props", e ? e : &pe);
}

/* /v1/models answered. */
static void
disco_on_models(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		void *arg)
{
	struct llama_disco *d = arg;
	struct err pe = ERR_INIT;
	int ok = 1;

	(void)fail;
	if (status == 401 || status == 403)
		disco_key_wanted(d, "/v1/models", status);
	else
		ok = status == 200 &&
		     llama_wire_models_for(body->data, body->len, d->cfg->model, &d->info, &pe) == 0;
	if (!ok && status && status != 200)
		err_set(&pe, "HTTP %d", status);
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
	if (status == 200 && llama_wire_slots(body->data, body->len, &slots, &n, NULL) == 0) {
		d->slot = d->choose_fn && d->cfg->id_slot < 0 ? d->choose_fn(d->choose_arg, slots, n)
							      : llama_disco_choose_slot(d->cfg->id_slot, slots, n);
		d->info.has_slots = 1;
	}
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
	int want_slots = d->cfg->id_slot < 0 && d->choose, want_models = !d->probe->have_models;

	llama_template_cancel(d->tpl);
	d->probe->pending = 2 + want_models + want_slots;
	if (!(d->tpl = llama_template_start(d->http, d->cfg, disco_on_tpl, d)))
		d->probe->pending--;
	if (disco_get(d, "/props", disco_on_props, d, &ge) < 0)
		disco_part(d, 0, "GET /props", &ge);
	if (d->probe && want_models && disco_get(d, "/v1/models", disco_on_models, d, &ge) < 0)
		disco_part(d, 0, "GET /v1/models", &ge);
	if (d->probe && want_slots && disco_get(d, "/slots", disco_on_slots, d, &ge) < 0)
		disco_part(d, 1, NULL, NULL);
}

/* No /health (a plain OpenAI-compatible server): /v1/models answered in its place. */
static void
disco_on_models_alive(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		      void *arg)
{
	struct llama_disco *d = arg;
	struct llama_disco_probe *p = d->probe;
	struct err pe = ERR_INIT;

	(void)fail;
	if (status == 200 && llama_wire_models_for(body->data, body->len, d->cfg->model, &d->info, &pe) == 0) {
		p->have_models = 1;
		disco_details(d);
		return;
	}
	if (status == 401 || status == 403) {
		disco_key_wanted(d, "/v1/models", status);
		p->pending = 1;
		disco_part(d, 1, NULL, NULL); /* the key is sent, or asked for */
		return;
	}
	p->kind = status ? LLM_ERR_HTTP : LLM_ERR_CONNECT;
	if (status == 200)
		buf_addf(&p->msg, "server at %s: GET /v1/models: %s", d->cfg->server_url, pe.msg);
	else if (status)
		buf_addf(&p->msg, "server at %s answered GET /health with HTTP %d and GET /v1/models with HTTP %d: is this an OpenAI-compatible server? pass its base URL, e.g. --server http://HOST:PORT/v1",
			 d->cfg->server_url, p->health_status, status);
	else
		buf_addf(&p->msg, "server at %s did not answer GET /v1/models (%s): check that it is running",
			 d->cfg->server_url, e ? e->msg : "no answer");
	disco_end(d, -1);
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
		d->info.has_health = 1;
		disco_details(d);
		return;
	}
	if (status >= 400 && status != 503) { /* no /health: any OpenAI-compatible server has /v1/models */
		struct err ge = ERR_INIT;

		p->health_status = status;
		if (disco_get(d, "/v1/models", disco_on_models_alive, d, &ge) < 0) {
			p->kind = LLM_ERR_OTHER;
			buf_adds(&p->msg, ge.msg);
			disco_end(d, -1);
		}
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
	d->info.has_health = d->info.has_props = d->info.has_slots = 0;
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

/* See llama/disco.h. */
void
llama_disco_forget(struct llama_disco *d, void *arg)
{
	disco_cancel(d, 0, arg);
}

static void disco_on_alive(int status, enum http_fail fail, const struct err *e, const struct buf *body,
			   void *arg);

/* A new request of the list, sent; NULL (nothing kept) when it could not be. */
static struct llama_disco_slots_req *
disco_req(struct llama_disco *d, const char *path, http_fetch_fn fn, void *arg)
{
	struct llama_disco_slots_req *sr = xcalloc(1, sizeof *sr);
	struct err e = ERR_INIT;

	sr->d = d;
	sr->arg = arg;
	sr->req = disco_fetch(d, path, fn, sr, &e);
	if (!sr->req) {
		free(sr);
		return NULL;
	}
	sr->next = d->slots_reqs;
	d->slots_reqs = sr;
	return sr;
}

/* /v1/models answered in place of a missing /health. */
static void
disco_on_alive_models(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		      void *arg)
{
	struct llama_disco_slots_req *sr = arg;

	(void)fail, (void)e, (void)body;
	sr->alive(status == 200, sr->arg);
	disco_slots_unlink(sr);
}

/* /health answered: up at 200; a server without /health (4xx but 503) is asked /v1/models. */
static void
disco_on_alive(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct llama_disco_slots_req *sr = arg, *next;
	struct llama_disco *d = sr->d;
	llama_alive_fn fn = sr->alive;
	void *fn_arg = sr->arg;

	(void)fail, (void)e, (void)body;
	if (status >= 400 && status != 503) {
		disco_slots_unlink(sr);
		if ((next = disco_req(d, "/v1/models", disco_on_alive_models, fn_arg)) != NULL)
			next->alive = fn;
		else
			fn(0, fn_arg);
		return;
	}
	fn(status == 200, fn_arg);
	disco_slots_unlink(sr);
}

/* Whether the server answers (see llama/disco.h). */
void
llama_disco_alive(struct llama_disco *d, llama_alive_fn done, void *arg)
{
	struct llama_disco_slots_req *sr = disco_req(d, "/health", disco_on_alive, arg);

	if (!sr) {
		done(0, arg);
		return;
	}
	sr->alive = done;
}

/* /metrics answered. */
static void
disco_on_load(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct llama_disco_slots_req *sr = arg;
	struct llama_load load;

	(void)fail, (void)e;
	if (status != 200 || llama_wire_load(body->data, body->len, &load) < 0)
		memset(&load, 0, sizeof load), load.known = 0;
	sr->load(status, &load, sr->arg);
	disco_slots_unlink(sr);
}

/* GET /metrics once (see llama/disco.h). */
void
llama_disco_load(struct llama_disco *d, llama_load_fn done, void *arg)
{
	struct llama_disco_slots_req *sr = disco_req(d, "/metrics", disco_on_load, arg);
	struct llama_load none;

	if (!sr) {
		memset(&none, 0, sizeof none);
		done(0, &none, arg);
		return;
	}
	sr->load = done;
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

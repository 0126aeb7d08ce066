/*
 * anthropic/anthropic: Anthropic Messages API provider (contract in anthropic/anthropic.h).
 *
 * Data: struct anthropic holds the copied options, the request body of
 * the logical request in flight (kept so a retry sends the same bytes),
 * the attempt counter, the retry timer, and at most one HTTP attempt
 * (struct an_call) with its SSE parser, decoder and error-body buffer.
 * An attempt is freed when its transfer completes, or parked on `dead`
 * when cancelled from inside a callback (curl calls no on_done then and
 * the attempt may still be on the stack) and swept later.
 *
 * Invariants: a logical request delivers exactly one terminal event and
 * nothing after it; an attempt that delivered any event is never
 * retried; cancel delivers nothing and stops both the attempt and a
 * pending retry.  The API key appears only in `keyhdr`.
 */
#include "anthropic/anthropic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anthropic/models.h"
#include "anthropic/wire.h"
#include "io/http.h"
#include "base/log.h"
#include "io/loop.h"
#include "io/sse.h"
#include "base/xmalloc.h"

struct an_call {
	struct anthropic *an;
	struct http_req *req;
	struct sse sse;
	struct anthropic_decode dec;
	struct buf errbody;
	int ended;     /* a terminal event went out, or a retry was scheduled */
	int dead;
	int delivered; /* some event reached the sink */
	long idle_timer;
	struct an_call *next_dead;
};

struct anthropic {
	struct loop *loop;
	struct http *http;
	struct provider prov;
	struct anthropic_opts o; /* strings below are owned copies */
	char *base_url, *model, *keyhdr;
	struct buf body;         /* the logical request's body */
	llm_sink_fn sink;
	void *ctx;
	int attempt;
	long retry_timer;
	uint64_t rng;
	struct an_call *call;
	struct an_call *dead;
	struct anthropic_decode_thinking *thinking; /* of the last request that ended */
	size_t nthinking;
	char *consult;           /* NULL, or the consult instruction (anthropic_set_consult) */
	anthropic_filter_fn filter;
	void *filter_arg;
	struct anthropic_models *models; /* GET /v1/models in flight */
	anthropic_models_fn models_done;
	void *models_arg;
};

static void an_send(struct anthropic *an);

/* Defaults. */
void
anthropic_opts_init(struct anthropic_opts *o)
{
	memset(o, 0, sizeof *o);
	o->tier = ANTHROPIC_WIRE_SONNET;
	o->temperature = -1;
	o->top_p = -1;
	o->top_k = -1;
}

/* Free the kept thinking blocks. */
static void
an_thinking_release(struct anthropic *an)
{
	size_t i;

	for (i = 0; i < an->nthinking; i++) {
		buf_release(&an->thinking[i].text);
		buf_release(&an->thinking[i].signature);
	}
	free(an->thinking);
	an->thinking = NULL;
	an->nthinking = 0;
}

/* Release an attempt. */
static void
an_call_free(struct an_call *c)
{
	if (c->idle_timer)
		loop_timer_del(c->an->loop, c->idle_timer);
	sse_release(&c->sse);
	anthropic_decode_release(&c->dec);
	buf_release(&c->errbody);
	free(c);
}

/* Free attempts cancelled while on the stack. */
static void
an_sweep(struct anthropic *an)
{
	while (an->dead) {
		struct an_call *c = an->dead;

		an->dead = c->next_dead;
		an_call_free(c);
	}
}

/* Stop an attempt's transfer without events; it is freed at the next sweep. */
static void
an_park(struct an_call *c)
{
	struct anthropic *an = c->an;

	if (c->dead)
		return;
	if (an->call == c)
		an->call = NULL;
	c->dead = 1;
	if (c->idle_timer)
		loop_timer_del(an->loop, c->idle_timer);
	c->idle_timer = 0;
	http_cancel(c->req);
	c->next_dead = an->dead;
	an->dead = c;
}

/* Retry timer: send the same body again. */
static void
an_on_retry(struct loop *l, long id, void *arg)
{
	struct anthropic *an = arg;

	(void)l;
	(void)id;
	an->retry_timer = 0;
	an_sweep(an);
	an_send(an);
}

/*
 * Whether a failed attempt may be sent again; if so the retry is armed.
 * retry_after_s < 0 when the server gave none.
 */
static int
an_try_retry(struct an_call *c, const struct llm_event *ev, long retry_after_s)
{
	struct anthropic *an = c->an;
	long delay = an->o.base_delay_ms, ra = retry_after_s * 1000;
	int i;

	if (c->delivered || !ev->error.retryable || an->attempt >= an->o.max_attempts ||
	    ra > an->o.max_delay_ms)
		return 0;
	for (i = 1; i < an->attempt && delay < an->o.max_delay_ms; i++)
		delay *= 2;
	if (ra > delay)
		delay = ra;
	an->rng ^= an->rng << 13; /* xorshift jitter: quality does not matter here */
	an->rng ^= an->rng >> 7;
	an->rng ^= an->rng << 17;
	delay += (long)(an->rng % (uint64_t)(delay / 4 + 1));
	if (delay > an->o.max_delay_ms && ra <= 0)
		delay = an->o.max_delay_ms;
	log_msg("anthropic: attempt %d failed (%.*s); retry in %ld ms", an->attempt, (int)ev->text.len,
		ev->text.p, delay);
	an->retry_timer = loop_timer_add(an->loop, (uint64_t)delay, an_on_retry, an);
	return 1;
}

/* Keep the thinking of a request that ends now, for anthropic_thinking. */
static void
an_keep_thinking(struct an_call *c)
{
	struct anthropic *an = c->an;

	an_thinking_release(an);
	an->thinking = c->dec.thinking;
	an->nthinking = c->dec.nthinking;
	c->dec.thinking = NULL;
	c->dec.nthinking = 0;
}

/* Forward one event, or turn a retryable early failure into a retry. */
static void
an_emit(struct an_call *c, const struct llm_event *ev, long retry_after_s)
{
	struct anthropic *an = c->an;
	struct llm_event out = *ev;
	struct buf msg = BUF_INIT;

	if (c->ended || c->dead)
		return;
	if (ev->kind == LLM_ERROR && an_try_retry(c, ev, retry_after_s)) {
		c->ended = 1;
		return;
	}
	if (ev->kind == LLM_DONE || ev->kind == LLM_ERROR) {
		c->ended = 1;
		an_keep_thinking(c);
	}
	if (ev->kind == LLM_ERROR && an->attempt > 1) {
		buf_addf(&msg, "%.*s (after %d attempts)", (int)ev->text.len, ev->text.p, an->attempt);
		out.text = str_make(msg.data, msg.len);
		out.error.retryable = 0;
	}
	c->delivered = 1;
	an->sink(an->ctx, &out);
	buf_release(&msg);
}

/* Decoder sink adapter. */
static void
an_dec_sink(void *ctx, const struct llm_event *ev)
{
	an_emit(ctx, ev, -1);
}

/* One SSE event → decoder; stop once the attempt is over. */
static int
an_on_sse(void *ctx, struct str event, struct str data)
{
	struct an_call *c = ctx;

	anthropic_decode_event(&c->dec, event, data, an_dec_sink, c);
	return c->ended || c->dead;
}

/* A transport-level error. */
static void
an_fail(struct an_call *c, enum llm_err_kind kind, int retryable, const char *msg)
{
	struct llm_event ev = { .kind = LLM_ERROR };

	ev.error.kind = kind;
	ev.error.retryable = retryable;
	ev.text = str_from(msg);
	an_emit(c, &ev, -1);
}

/* Silence for idle_timeout_ms: give the attempt up. */
static void
an_on_idle(struct loop *l, long id, void *arg)
{
	struct an_call *c = arg;
	char msg[128];

	(void)l;
	(void)id;
	c->idle_timer = 0;
	snprintf(msg, sizeof msg, "no data for %ld s from the Anthropic API",
		 c->an->o.idle_timeout_ms / 1000);
	an_fail(c, LLM_ERR_DISCONNECTED, 1, msg);
	an_park(c);
}

/* Re-arm the idle timer. */
static void
an_touch(struct an_call *c)
{
	struct anthropic *an = c->an;

	if (c->idle_timer)
		loop_timer_del(an->loop, c->idle_timer);
	c->idle_timer = loop_timer_add(an->loop, (uint64_t)an->o.idle_timeout_ms, an_on_idle, c);
}

/* The response's headers are in: the idle timer restarts from here. */
static void
an_on_headers(struct http_req *r, int status, void *arg)
{
	struct an_call *c = arg;

	(void)r;
	(void)status;
	if (!c->dead && !c->ended)
		an_touch(c);
}

/* Body bytes: SSE for 200, an error document otherwise. */
static int
an_on_data(struct http_req *r, const char *data, size_t n, void *arg)
{
	struct an_call *c = arg;

	if (c->dead)
		return 1;
	if (c->ended) {
		/* a retry is armed: this transfer is of no use; else drain it */
		if (!c->delivered)
			an_park(c);
		return c->dead;
	}
	an_touch(c);
	if (http_status(r) != 200) {
		if (c->errbody.len < 65536)
			buf_add(&c->errbody, data, n);
		return 0;
	}
	if (sse_feed(&c->sse, data, n, an_on_sse, c) == SSE_TOO_BIG)
		an_fail(c, LLM_ERR_PROTOCOL, 0, "the server sent an SSE event over 16 MB; giving up on this answer");
	if (c->ended && !c->delivered && !c->dead)
		an_park(c);
	return c->dead;
}

/* retry-after in whole seconds, or -1. */
static long
an_retry_after(struct http_req *r)
{
	const char *v = http_header(r, "retry-after");
	char *end;
	long s;

	if (!v)
		return -1;
	s = strtol(v, &end, 10);
	return end != v && s >= 0 && s < 86400 ? s : -1;
}

/* The attempt finished: end the stream or classify the failure. */
static void
an_on_done(struct http_req *r, int status, enum http_fail fail, const struct err *e, void *arg)
{
	struct an_call *c = arg;
	struct anthropic *an = c->an;

	if (an->call == c)
		an->call = NULL;
	if (status == 200 && !c->ended) {
		anthropic_decode_finish(&c->dec, an_dec_sink, c);
	} else if (status && !c->ended) {
		struct llm_event ev;
		struct buf msg = BUF_INIT;

		anthropic_decode_error_from_body(status, c->errbody.data, c->errbody.len, &ev, &msg);
		an_emit(c, &ev, an_retry_after(r));
		buf_release(&msg);
	} else if (!c->ended) {
		an_fail(c, fail == HTTP_FAIL_CONNECT ? LLM_ERR_CONNECT : LLM_ERR_DISCONNECTED, 1,
			e && e->msg[0] ? e->msg : "request failed");
	}
	an_call_free(c);
}

/* Start one attempt of the logical request; failures become the terminal event. */
static void
an_send(struct anthropic *an)
{
	static const struct http_cb cb = { an_on_data, an_on_done, an_on_headers };
	const char *headers[] = { "content-type: application/json", "accept: text/event-stream",
				  "anthropic-version: " ANTHROPIC_VERSION, an->keyhdr, NULL };
	struct an_call *c = xcalloc(1, sizeof *c);
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;

	c->an = an;
	sse_init(&c->sse);
	anthropic_decode_init(&c->dec);
	buf_init(&c->errbody, 0);
	an->attempt++;
	buf_addf(&url, "%s/v1/messages", an->base_url);
	log_msg("anthropic: POST %s model %s attempt %d", url.data, an->model, an->attempt);
	o.method = "POST";
	o.url = url.data;
	o.body = an->body.data;
	o.body_len = an->body.len;
	o.headers = headers;
	o.connect_timeout_ms = 10000;
	c->req = http_start(an->http, &o, &cb, c, &e);
	buf_release(&url);
	if (!c->req) {
		an_fail(c, LLM_ERR_OTHER, 0, e.msg);
		an_call_free(c);
		return;
	}
	an->call = c;
	an_touch(c);
}

/* Cancel the attempt and any pending retry; no more events. */
static void
an_cancel(void *self)
{
	struct anthropic *an = self;

	if (an->retry_timer)
		loop_timer_del(an->loop, an->retry_timer);
	an->retry_timer = 0;
	if (an->call)
		an_park(an->call);
}

/* provider.start: serialise once, then send. */
static int
an_start(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx, struct err *e)
{
	struct anthropic *an = self;
	struct anthropic_wire_opts wo;
	struct provider_req fr = *req;
	struct conv shown;

	(void)e;
	an_cancel(an); /* no sweep here: start may be called from inside the sink */
	an_thinking_release(an);
	anthropic_wire_opts_init(&wo, an->model);
	wo.max_tokens = an->o.max_tokens;
	wo.budget_tokens = an->o.budget_tokens;
	wo.temperature = an->o.temperature;
	wo.top_p = an->o.top_p;
	wo.top_k = an->o.top_k;
	wo.consult = an->consult;
	buf_reset(&an->body);
	conv_init(&shown);
	if (an->filter && an->filter(an->filter_arg, req->conv, &shown))
		fr.conv = &shown; /* what Claude may see (privacy) */
	anthropic_wire_request(&wo, &fr, &an->body);
	conv_release(&shown);
	an->sink = sink;
	an->ctx = ctx;
	an->attempt = 0;
	/* the first attempt starts from the loop, so no event comes from inside start() */
	an->retry_timer = loop_timer_add(an->loop, 0, an_on_retry, an);
	return 0;
}

/* provider.model */
static const char *
an_model(void *self)
{
	return ((struct anthropic *)self)->model;
}

/* provider.describe_error */
static void
an_describe(void *self, const struct llm_event *ev, struct buf *out)
{
	anthropic_decode_describe(((struct anthropic *)self)->base_url, ev, out);
}

/* provider.add_reasoning: the kept thinking blocks with their signatures. */
static void
an_add_reasoning(void *self, struct conv_msg *m)
{
	anthropic_add_thinking(self, m);
}

/* Copy the options, fill defaults. */
struct anthropic *
anthropic_new(struct loop *l, struct http *h, const struct anthropic_opts *o)
{
	struct anthropic *an = xcalloc(1, sizeof *an);
	const char *base = o->base_url && o->base_url[0] ? o->base_url : ANTHROPIC_DEFAULT_BASE_URL;
	size_t n = strlen(base);

	an->loop = l;
	an->http = h;
	an->o = *o;
	while (n && base[n - 1] == '/')
		n--;
	an->base_url = str_dup(str_make(base, n));
	an->model = xstrdup(o->model && o->model[0] ? o->model : anthropic_wire_tier_model(o->tier));
	if (o->api_key && o->api_key[0]) {
		struct buf k = BUF_INIT;

		buf_addf(&k, "x-api-key: %s", o->api_key);
		an->keyhdr = buf_detach(&k, NULL);
	}
	an->o.base_url = an->o.api_key = an->o.model = NULL;
	an->o.max_attempts = o->max_attempts > 0 ? o->max_attempts : 4;
	an->o.base_delay_ms = o->base_delay_ms > 0 ? o->base_delay_ms : 1000;
	an->o.max_delay_ms = o->max_delay_ms > 0 ? o->max_delay_ms : 60000;
	an->o.idle_timeout_ms = o->idle_timeout_ms > 0 ? o->idle_timeout_ms : 120000;
	an->rng = loop_now_ms(l) * 2654435761u + (uint64_t)getpid() + 1;
	buf_init(&an->body, 0);
	an->prov.name = "anthropic";
	an->prov.self = an;
	an->prov.start = an_start;
	an->prov.cancel = an_cancel;
	an->prov.model = an_model;
	an->prov.describe_error = an_describe;
	an->prov.add_reasoning = an_add_reasoning;
	return an;
}

/* Tear down. */
void
anthropic_free(struct anthropic *an)
{
	if (!an)
		return;
	an_cancel(an);
	an_sweep(an);
	an_thinking_release(an);
	anthropic_models_cancel(an->models); /* its callback will never run */
	if (an->keyhdr) /* do not leave the key in freed memory */
		memset(an->keyhdr, 0, strlen(an->keyhdr));
	free(an->keyhdr);
	free(an->base_url);
	free(an->model);
	free(an->consult);
	buf_release(&an->body);
	free(an);
}

/* The provider vtable. */
struct provider *
anthropic_provider(struct anthropic *an)
{
	return &an->prov;
}

/* Switch model ids (tier changes). */
void
anthropic_set_model(struct anthropic *an, const char *model)
{
	free(an->model);
	an->model = xstrdup(model);
}

/* Consult requests on or off. */
void
anthropic_set_consult(struct anthropic *an, const char *instruction)
{
	free(an->consult);
	an->consult = instruction ? xstrdup(instruction) : NULL;
}

/* The conv filter (privacy). */
void
anthropic_set_filter(struct anthropic *an, anthropic_filter_fn fn, void *arg)
{
	an->filter = fn;
	an->filter_arg = arg;
}

/* Attempts so far. */
int
anthropic_attempts(const struct anthropic *an)
{
	return an->attempt;
}

/* Kept thinking blocks. */
const struct anthropic_decode_thinking *
anthropic_thinking(const struct anthropic *an, size_t *n)
{
	*n = an->nthinking;
	return an->thinking;
}

/* Store the kept thinking blocks into an assistant message. */
void
anthropic_add_thinking(const struct anthropic *an, struct conv_msg *m)
{
	size_t i;

	for (i = 0; i < an->nthinking; i++) {
		const struct anthropic_decode_thinking *t = &an->thinking[i];
		struct conv_block *b = conv_add_block(m, CONV_REASONING, t->text.data, NULL,
						      t->redacted ? "redacted_thinking" : NULL);

		b->provider = xstrdup("anthropic");
		b->signature = xstrdup(t->signature.data);
	}
}

/* The model check (anthropic_models) answered: forget it, then tell the caller. */
static void
an_models_done(int rc, int found, const char *msg, void *arg)
{
	struct anthropic *an = arg;

	an->models = NULL;
	if (an->models_done)
		an->models_done(rc, found, msg, an->models_arg);
}

/* Whether a model check is in flight. */
int
anthropic_models_pending(const struct anthropic *an)
{
	return an && an->models != NULL;
}

/* Ask the API which models this key may use. */
int
anthropic_check_models(struct anthropic *an, anthropic_models_fn done, void *arg, struct err *e)
{
	if (!an->keyhdr)
		return err_set(e, "no ANTHROPIC_API_KEY: set it in the environment or in settings to use Claude");
	anthropic_models_cancel(an->models); /* a new check replaces one in flight */
	an->models_done = done;
	an->models_arg = arg;
	an->models = anthropic_models_start(an->http, an->base_url, an->keyhdr, an->model,
					   an_models_done, an, e);
	return an->models ? 0 : -1;
}

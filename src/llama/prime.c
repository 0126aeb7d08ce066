/*
 * llama/prime: end the slot where the next turn begins (private part of the
 * llama provider, see llama/llama-int.h; docs/cache.md "Priming").
 *
 * After a turn's answer the slot holds the prompt and the generated tokens.
 * The next request re-renders that answer (earlier turns are written the
 * way the template renders them) and adds the next user message; where the
 * re-rendered answer does not re-tokenize exactly as generated, a dense
 * model re-reads from there and a hybrid model from its last checkpoint,
 * and a slot saved to a file (no checkpoints) is not reused at all.  So,
 * once the turn ended, the conversation is rendered with a placeholder user
 * message (POST /apply-template), cut just before the placeholder (trailing
 * whitespace left out: it may merge with the next text's first token), and
 * that text is sent as a zero-generation /completion on the session's
 * slot.  The slot (and a hybrid model's state) then ends exactly where the
 * next request continues, and that is what a slot save writes.
 *
 * Data: at most one prime in flight (lm->prime_req); a chat request started
 * meanwhile is held (c->held) and sent when the prime ends, any way.  A
 * server without /apply-template or /completion (404, 501) is not primed
 * again.
 */
#include "llama/llama-int.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "io/http.h"
#include "io/loop.h"

#define LLAMA_PRIME_MARK "hearth-next-user-message-7f3a"

static void llama_prime_end(struct llama *lm);

/* The prime request answered (its body is not needed). */
static void
llama_prime_on_done(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct llama *lm = arg;
	struct err pe = ERR_INIT;
	cJSON *root;
	long n = 0;

	(void)fail;
	(void)e;
	lm->prime_req = NULL;
	if (status == 404 || status == 501)
		lm->prime_off = 1;
	if (status == 200) {
		lm->primes++;
		root = body && body->len ? json_parse(body->data, body->len, &pe) : NULL;
		if (json_long(root, "tokens_evaluated", &n) < 0) /* the prompt's size: what the slot holds */
			n = 0;
		cJSON_Delete(root);
		/* the slot holds exactly the prime's text: what a save writes, checked before a restore */
		llama_slotfile_primed(&lm->ss, lm->prime_text, n);
	}
	llama_prime_end(lm);
}

/* POST path with body; NULL when it could not start. */
static struct http_req *
llama_prime_post(struct llama *lm, const char *path, const char *body, http_fetch_fn done)
{
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;
	struct http_req *r;

	llama_disco_url(lm->cfg, path, &url);
	o.method = "POST";
	o.url = url.data;
	o.body = body;
	o.body_len = strlen(body);
	o.headers = headers;
	o.connect_timeout_ms = 5000;
	o.timeout_ms = 300000;
	r = http_fetch(lm->http, &o, done, lm, &e);
	buf_release(&url);
	return r;
}

/* Start the /completion from the loop (curl refuses transfers inside its callbacks). */
static void
llama_prime_send(struct loop *l, long id, void *arg)
{
	struct llama *lm = arg;
	cJSON *root = cJSON_CreateObject();
	char *body;

	(void)l;
	(void)id;
	lm->prime_timer = 0;
	cJSON_AddStringToObject(root, "prompt", lm->prime_text);
	cJSON_AddNumberToObject(root, "n_predict", 0);
	cJSON_AddBoolToObject(root, "cache_prompt", 1);
	cJSON_AddNumberToObject(root, "id_slot", lm->disco.slot);
	body = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	lm->prime_req = llama_prime_post(lm, "/completion", body, llama_prime_on_done);
	cJSON_free(body);
	if (!lm->prime_req)
		llama_prime_end(lm);
}

/* The rendered conversation arrived: keep what precedes the placeholder. */
static void
llama_prime_on_template(int status, enum http_fail fail, const struct err *e, const struct buf *body,
			void *arg)
{
	struct llama *lm = arg;
	struct err pe = ERR_INIT;
	cJSON *root = status == 200 && body && body->len ? json_parse(body->data, body->len, &pe) : NULL;
	const char *p = json_str(root, "prompt"), *mark = p ? strstr(p, LLAMA_PRIME_MARK) : NULL;
	size_t n;

	(void)fail;
	(void)e;
	lm->prime_req = NULL;
	if (status == 404 || status == 501)
		lm->prime_off = 1;
	if (!mark) {
		cJSON_Delete(root);
		llama_prime_end(lm);
		return;
	}
	for (n = (size_t)(mark - p); n > 0 && strchr(" \t\r\n", p[n - 1]); n--)
		;
	free(lm->prime_text);
	lm->prime_text = xstrndup(p, n);
	cJSON_Delete(root);
	lm->prime_timer = loop_timer_add(lm->loop, 0, llama_prime_send, lm);
}

/* The prime ended (any way): the slot changed; send a held request. */
static void
llama_prime_end(struct llama *lm)
{
	struct llama_call *c = lm->call;
	struct err e = ERR_INIT;

	lm->priming = 0;
	llama_slotfile_request_end(&lm->ss);
	if (lm->prime_wait)
		loop_stop(lm->loop);
	if (!c || !c->held)
		return;
	c->held = 0;
	if (llama_send(c, &e) < 0) {
		lm->call = NULL;
		llama_fail(c, LLM_ERR_OTHER, 0, e.msg);
		llama_call_free(c);
		return;
	}
	llama_arm_wait(c);
}

/* The exit wait for a prime took too long. */
static void
llama_prime_on_wait_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* provider.prime: render the conversation with a placeholder user message. */
void
llama_prime(void *self, const struct provider_req *req)
{
	struct llama *lm = self;
	struct conv tmp = *req->conv;
	struct provider_req r = *req;
	struct conv_block b = { 0 };
	struct buf body = BUF_INIT;
	struct cfg pinned = *lm->cfg;

	if (lm->prime_off || lm->disco.info.plain || !lm->cfg->cache_prime || lm->priming || (lm->call && !lm->call->ended))
		return;
	tmp.msgs = xcalloc(tmp.nmsgs + 1, sizeof *tmp.msgs);
	if (req->conv->nmsgs)
		memcpy(tmp.msgs, req->conv->msgs, req->conv->nmsgs * sizeof *tmp.msgs);
	b.kind = CONV_TEXT;
	b.text = (char *)LLAMA_PRIME_MARK;
	tmp.msgs[tmp.nmsgs].role = CONV_USER;
	tmp.msgs[tmp.nmsgs].blocks = &b;
	tmp.msgs[tmp.nmsgs].nblocks = 1;
	tmp.nmsgs++;
	tmp.amsgs = tmp.nmsgs;
	r.conv = &tmp;
	pinned.id_slot = lm->disco.slot;
	llama_wire_request_gen(&pinned, lm->cfg->model ? lm->cfg->model : lm->disco.info.model_id, &r,
			       lm->disco.gen_prefix, &body);
	free(tmp.msgs);
	lm->priming = 1;
	llama_slotfile_before_prime(&lm->ss);
	lm->prime_req = llama_prime_post(lm, "/apply-template", body.data, llama_prime_on_template);
	buf_release(&body);
	if (!lm->prime_req) {
		lm->priming = 0;
		llama_slotfile_request_end(&lm->ss);
	}
}

/* Exit: let a prime in flight finish (the slot save must come after it), up to timeout_ms. */
void
llama_prime_wait(struct llama *lm, long timeout_ms)
{
	struct err e = ERR_INIT;
	long t;

	if (!lm->priming)
		return;
	lm->prime_wait = 1;
	t = loop_timer_add(lm->loop, (uint64_t)timeout_ms, llama_prime_on_wait_timeout, lm);
	loop_run(lm->loop, &e);
	loop_timer_del(lm->loop, t);
	lm->prime_wait = 0;
}

/* Cancel a prime in flight (no callbacks). */
void
llama_prime_release(struct llama *lm)
{
	if (lm->prime_req)
		http_cancel(lm->prime_req);
	lm->prime_req = NULL;
	if (lm->prime_timer)
		loop_timer_del(lm->loop, lm->prime_timer);
	lm->prime_timer = 0;
	lm->priming = 0;
	free(lm->prime_text);
	lm->prime_text = NULL;
}

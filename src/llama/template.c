/*
 * llama/template: three POST /apply-template calls (P1 and P2 together, then
 * P3) and the pure comparison of their prompts (see llama/template.h).
 *
 * Data: struct llama_template holds the requests in flight and P1/P2's prompts
 * until P3 answers.  Invariant: done is called exactly once unless the
 * probe is cancelled; the struct is freed right after.
 */
#include "llama/template.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "io/http.h"
#include "base/json.h"
#include "llama/disco.h"
#include "base/xmalloc.h"

#define U1 "hearth-probe-u1"
#define A1 "hearth-probe-a1"
#define U2 "hearth-probe-u2"

struct llama_template;

struct tp_ref {             /* the callback argument of one probe */
	struct llama_template *p;
	int which;          /* 1..3 */
};

struct llama_template {
	struct tp_ref ref[3];
	struct http *http;
	const struct cfg *cfg;
	llama_template_fn done;
	void *arg;
	struct http_req *req[3];
	char *prompt[3];
	int answered;    /* of P1 and P2 */
	int failed;
	char *candidate;
};

/* Add one {"role", "content"} message. */
static cJSON *
tp_msg(cJSON *arr, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", content);
	cJSON_AddItemToArray(arr, m);
	return m;
}

/* The body of probe 1, 2 or 3. */
void
llama_template_body(int which, const char *prefix, struct buf *out)
{
	cJSON *root = cJSON_CreateObject(), *msgs = cJSON_AddArrayToObject(root, "messages"), *a, *kw;
	struct buf content = BUF_INIT;
	char *text;

	tp_msg(msgs, "user", U1);
	if (which > 1) {
		buf_adds(&content, which == 3 && prefix ? prefix : "");
		buf_adds(&content, A1);
		a = tp_msg(msgs, "assistant", content.data);
		if (which == 3)
			cJSON_AddStringToObject(a, "reasoning_content", " ");
		tp_msg(msgs, "user", U2);
	}
	kw = cJSON_AddObjectToObject(root, "chat_template_kwargs");
	cJSON_AddBoolToObject(kw, "enable_thinking", 0);
	text = cJSON_PrintUnformatted(root);
	buf_adds(out, text);
	cJSON_free(text);
	cJSON_Delete(root);
	buf_release(&content);
}

/* The part of P1 that P2 drops before the assistant's content, or NULL. */
char *
llama_template_candidate(const char *p1, const char *p2)
{
	size_t d = 0, n1 = strlen(p1);

	while (p1[d] && p1[d] == p2[d])
		d++;
	if (d == n1 || !strstr(p1, U1) || strncmp(p2 + d, A1, strlen(A1)) != 0)
		return NULL;
	return xstrdup(p1 + d);
}

/* P3 must read P1 followed by the assistant's content. */
int
llama_template_confirm(const char *p1, const char *p3)
{
	size_t n1 = strlen(p1);

	return strncmp(p3, p1, n1) == 0 && strncmp(p3 + n1, A1, strlen(A1)) == 0;
}

/* Report and free. */
static void
tp_finish(struct llama_template *p, char *prefix)
{
	int i;

	p->done(prefix, p->arg);
	for (i = 0; i < 3; i++)
		free(p->prompt[i]);
	free(p->candidate);
	free(p);
}

static void tp_on_answer(int status, enum http_fail fail, const struct err *e, const struct buf *body,
			 void *arg);

/* POST probe `which`; 0 or -1. */
static int
tp_post(struct llama_template *p, int which)
{
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct buf url = BUF_INIT, body = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;

	llama_template_body(which, p->candidate, &body);
	llama_disco_url(p->cfg, "/apply-template", &url);
	o.method = "POST";
	o.url = url.data;
	o.body = body.data;
	o.body_len = body.len;
	o.headers = headers;
	o.timeout_ms = 5000;
	o.connect_timeout_ms = 5000;
	p->ref[which - 1].p = p;
	p->ref[which - 1].which = which;
	p->req[which - 1] = http_fetch(p->http, &o, tp_on_answer, &p->ref[which - 1], &e);
	buf_release(&url);
	buf_release(&body);
	return p->req[which - 1] ? 0 : -1;
}

/* One probe answered. */
static void
tp_on_answer(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct tp_ref *ref = arg;
	struct llama_template *p = ref->p;
	cJSON *root = NULL;
	const char *prompt;
	int which = ref->which;

	(void)fail;
	(void)e;
	p->req[which - 1] = NULL;
	if (status == 200 && body)
		root = json_parse(body->data, body->len, NULL);
	prompt = json_str(root, "prompt");
	if (prompt)
		p->prompt[which - 1] = xstrdup(prompt);
	else
		p->failed = 1;
	cJSON_Delete(root);
	if (which == 3) {
		if (!p->failed && llama_template_confirm(p->prompt[0], p->prompt[2])) {
			char *c = p->candidate;

			p->candidate = NULL;
			tp_finish(p, c);
		} else {
			tp_finish(p, NULL);
		}
		return;
	}
	if (++p->answered < 2)
		return;
	if (p->failed || !(p->candidate = llama_template_candidate(p->prompt[0], p->prompt[1])) ||
	    tp_post(p, 3) < 0)
		tp_finish(p, NULL);
}

/* Start P1 and P2. */
struct llama_template *
llama_template_start(struct http *h, const struct cfg *cfg, llama_template_fn done, void *arg)
{
	struct llama_template *p = xcalloc(1, sizeof *p);

	p->http = h;
	p->cfg = cfg;
	p->done = done;
	p->arg = arg;
	if (tp_post(p, 1) < 0 || tp_post(p, 2) < 0) {
		llama_template_cancel(p);
		return NULL;
	}
	return p;
}

/* Cancel whatever is in flight and free. */
void
llama_template_cancel(struct llama_template *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < 3; i++) {
		if (p->req[i])
			http_cancel(p->req[i]);
		free(p->prompt[i]);
	}
	free(p->candidate);
	free(p);
}

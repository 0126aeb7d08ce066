/*
 * anthropic/models: the model-id check (see anthropic/models.h).  The
 * struct lives from start until the fetch answers or is cancelled.
 */
#include "anthropic/models.h"

#include <stdio.h>
#include <stdlib.h>

#include "anthropic/anthropic.h"
#include "anthropic/decode.h"
#include "anthropic/wire.h"
#include "base/buf.h"
#include "io/http.h"
#include "base/xmalloc.h"

struct anthropic_models {
	struct http_req *req;
	anthropic_models_fn done;
	void *arg;
	char model[128];
};

/* /v1/models answered. */
static void
am_on_models(int status, enum http_fail fail, const struct err *e, const struct buf *body,
	     void *arg)
{
	struct anthropic_models *q = arg;
	struct buf ids = BUF_INIT, msg = BUF_INIT;
	struct err pe = ERR_INIT;
	int found = -1;

	(void)fail;
	if (status == 200) /* found: 1, 0, or -1 for a body that is not a model list */
		found = anthropic_wire_models_has(body->data, body->len, q->model, &ids, &pe);
	if (found == 1) {
		q->done(0, 1, "", q->arg);
	} else if (found == 0) {
		buf_addf(&msg, "model %s is not offered to this API key; set another id in settings (available: %.300s)",
			 q->model, ids.data);
		q->done(0, 0, msg.data, q->arg);
	} else {
		struct llm_event ev;

		if (status && status != 200)
			anthropic_decode_error_from_body(status, body->data, body->len, &ev, &msg);
		else
			buf_addf(&msg, "GET /v1/models failed: %s",
				 e && e->msg[0] ? e->msg : pe.msg[0] ? pe.msg : "no answer");
		q->done(-1, 0, msg.data, q->arg);
	}
	buf_release(&ids);
	buf_release(&msg);
	free(q);
}

/* Start the fetch. */
struct anthropic_models *
anthropic_models_start(struct http *h, const char *base_url, const char *keyhdr,
		      const char *model, anthropic_models_fn done, void *arg, struct err *e)
{
	const char *headers[] = { "anthropic-version: " ANTHROPIC_VERSION, keyhdr, NULL };
	struct anthropic_models *q = xcalloc(1, sizeof *q);
	struct http_opts o = { 0 };
	struct buf url = BUF_INIT;

	q->done = done;
	q->arg = arg;
	snprintf(q->model, sizeof q->model, "%s", model);
	buf_addf(&url, "%s/v1/models?limit=1000", base_url);
	o.url = url.data;
	o.headers = headers;
	o.timeout_ms = 15000;
	o.connect_timeout_ms = 5000;
	q->req = http_fetch(h, &o, am_on_models, q, e);
	buf_release(&url);
	if (!q->req) {
		free(q);
		return NULL;
	}
	return q;
}

/* Cancel quietly. */
void
anthropic_models_cancel(struct anthropic_models *q)
{
	if (!q)
		return;
	http_cancel(q->req);
	free(q);
}

/*
 * slotsave: POST /slots/{id}?action=save|restore and the support state.
 *
 * Data: struct slotsave holds the support verdict (unknown until the
 * first answer) and at most one request in flight (req non-NULL).
 * Invariant: done is called exactly once per started action unless the
 * action is cancelled by slotsave_release.
 */
#include "slotsave.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "http.h"
#include "json.h"
#include "llamadisco.h"
#include "loop.h"

/* Keep only the characters llama-server's file name check accepts everywhere. */
void
slotsave_filename(const char *session_id, struct buf *out)
{
	const char *p;

	buf_adds(out, "hearth-");
	for (p = session_id; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '_')
			buf_add(out, p, 1);
	buf_adds(out, ".bin");
}

/* The server's error message, if the body has one. */
static void
slotsave_errmsg(cJSON *root, char *out, size_t n)
{
	const char *m = json_str(cJSON_GetObjectItemCaseSensitive(root, "error"), "message");

	snprintf(out, n, "%s", m ? m : "no message");
}

/* Interpret the answer of a save or restore. */
void
slotsave_parse(int restore, int status, const char *body, size_t n, struct slotsave_result *out)
{
	struct err e = ERR_INIT;
	cJSON *root = body && n ? json_parse(body, n, &e) : NULL;
	char why[140];
	long v;
	double d;

	memset(out, 0, sizeof *out);
	if (status == 200) {
		out->ok = 1;
		if (json_long(root, restore ? "n_restored" : "n_saved", &v) == 0)
			out->n_tokens = v;
		if (json_double(cJSON_GetObjectItemCaseSensitive(root, "timings"),
				restore ? "restore_ms" : "save_ms", &d) == 0)
			out->ms = d;
		cJSON_Delete(root);
		return;
	}
	slotsave_errmsg(root, why, sizeof why);
	cJSON_Delete(root);
	out->unsupported = status == 501 || status == 404 || status == 405 || (!restore && status == 400);
	if (!status)
		snprintf(out->msg, sizeof out->msg, "no answer from llama-server");
	else if (out->unsupported)
		snprintf(out->msg, sizeof out->msg,
			 "llama-server does not save slots (HTTP %d: %.80s); start it with --slot-save-path DIR",
			 status, why);
	else
		snprintf(out->msg, sizeof out->msg, "%s failed (HTTP %d: %.120s)",
			 restore ? "slot restore" : "slot save", status, why);
}

/* The answer arrived: remember support, tell the caller. */
static void
slotsave_on_done(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		 void *arg)
{
	struct slotsave *s = arg;
	struct slotsave_result r;

	s->req = NULL;
	slotsave_parse(s->restore, status, body ? body->data : NULL, body ? body->len : 0, &r);
	if (!status && e)
		snprintf(r.msg, sizeof r.msg, "no answer from llama-server (%.150s)", e->msg);
	(void)fail;
	if (r.unsupported)
		s->support = SLOTSAVE_NO;
	else if (r.ok)
		s->support = SLOTSAVE_YES;
	s->done(&r, s->arg);
}

/* Bind to the loop, http client, settings and the provider's slot. */
void
slotsave_init(struct slotsave *s, struct loop *l, struct http *h, const struct cfg *cfg,
	      const int *slot)
{
	memset(s, 0, sizeof *s);
	s->loop = l;
	s->http = h;
	s->cfg = cfg;
	s->slot = slot;
}

/* Cancel the action in flight and the timers. */
void
slotsave_release(struct slotsave *s)
{
	if (s->req)
		http_cancel(s->req);
	s->req = NULL;
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	if (s->cont_timer)
		loop_timer_del(s->loop, s->cont_timer);
	s->idle_timer = s->cont_timer = 0;
}

/* The session's id, "" when none yet. */
static const char *
slotsave_id(const struct slotsave *s)
{
	const char *id = s->session_id ? s->session_id(s->session_arg) : NULL;

	return id ? id : "";
}

/* Name the session; a resumed one restores before its first request. */
void
slotsave_session(struct slotsave *s, slotsave_id_fn id_fn, void *arg, int resumed)
{
	s->session_id = id_fn;
	s->session_arg = arg;
	s->restore_pending = resumed && s->cfg->slot_save;
}

/* Let the held request go on, from a clean stack (curl refuses transfers in its callbacks). */
static void
slotsave_on_cont(struct loop *l, long id, void *arg)
{
	struct slotsave *s = arg;
	slotsave_cont_fn cont = s->cont;

	(void)l;
	(void)id;
	s->cont_timer = 0;
	s->cont = NULL;
	if (cont)
		cont(s->cont_arg, s->notice[0] ? s->notice : NULL);
}

/* The restore ended: say how it went and release the request. */
static void
slotsave_on_restore(const struct slotsave_result *r, void *arg)
{
	struct slotsave *s = arg;
	struct buf name = BUF_INIT;

	slotsave_filename(slotsave_id(s), &name);
	s->restored = r->ok;
	if (r->ok) {
		s->restored_tokens = r->n_tokens;
		s->restored_ms = r->ms;
		snprintf(s->notice, sizeof s->notice,
			 "restored the session's cache into slot %d from %s: %ld tokens in %.0f ms",
			 *s->slot, name.data, r->n_tokens, r->ms);
	} else {
		snprintf(s->notice, sizeof s->notice,
			 "could not restore the session's cache (%.180s); the first request prefills the whole conversation",
			 r->msg);
	}
	buf_release(&name);
	s->cont_timer = loop_timer_add(s->loop, 0, slotsave_on_cont, s);
}

/* Before a request: a resumed session restores its slot first. */
int
slotsave_before_request(struct slotsave *s, slotsave_cont_fn cont, void *arg)
{
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	s->busy_request = 1;
	s->dirty = 1; /* the slot changes once the server takes the request, answered or not */
	if (!s->restore_pending)
		return 0;
	s->restore_pending = 0;
	s->notice[0] = 0;
	if (slotsave_start(s, 1, *s->slot, slotsave_id(s), slotsave_on_restore, s) < 0)
		return 0;
	s->cont = cont;
	s->cont_arg = arg;
	return 1;
}

/* An idle or exit save ended: the slot is on disk unless it failed. */
static void
slotsave_on_save(const struct slotsave_result *r, void *arg)
{
	struct slotsave *s = arg;

	if (r->ok)
		s->dirty = 0;
	if (s->flushing)
		loop_stop(s->loop);
}

/* The exit save took too long: stop waiting. */
static void
slotsave_on_flush_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* Quiet for slot_save_idle seconds: save the slot. */
static void
slotsave_on_idle(struct loop *l, long id, void *arg)
{
	struct slotsave *s = arg;

	(void)l;
	(void)id;
	s->idle_timer = 0;
	if (s->dirty && !s->busy_request)
		slotsave_start(s, 0, *s->slot, slotsave_id(s), slotsave_on_save, s);
}

/* A request ended: the slot holds new state. */
void
slotsave_request_end(struct slotsave *s)
{
	s->busy_request = 0;
	if (!s->cfg->slot_save || s->support == SLOTSAVE_NO)
		return;
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	if (s->cfg->slot_save_idle_s > 0)
		s->idle_timer = loop_timer_add(s->loop, (uint64_t)s->cfg->slot_save_idle_s * 1000u,
					       slotsave_on_idle, s);
}

/* Exit: one last save of a changed slot, waiting for it a bounded time. */
void
slotsave_flush(struct slotsave *s, long timeout_ms)
{
	struct err e = ERR_INIT;
	long t;

	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	if (!s->dirty || !s->cfg->slot_save || s->req)
		return;
	if (slotsave_start(s, 0, *s->slot, slotsave_id(s), slotsave_on_save, s) < 0)
		return;
	s->flushing = 1;
	t = loop_timer_add(s->loop, (uint64_t)timeout_ms, slotsave_on_flush_timeout, s);
	loop_run(s->loop, &e);
	loop_timer_del(s->loop, t);
	s->flushing = 0;
	slotsave_release(s);
}

/* Whether an action is in flight. */
int
slotsave_busy(const struct slotsave *s)
{
	return s->req != NULL;
}

/* Start a save or restore. */
int
slotsave_start(struct slotsave *s, int restore, int slot, const char *session_id,
	       slotsave_fn done, void *arg)
{
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct buf path = BUF_INIT, url = BUF_INIT, name = BUF_INIT, body = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;
	cJSON *root;
	char *text;

	if (s->support == SLOTSAVE_NO || s->req || slot < 0 || !session_id || !*session_id)
		return -1;
	slotsave_filename(session_id, &name);
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "filename", name.data);
	text = cJSON_PrintUnformatted(root);
	buf_adds(&body, text);
	cJSON_free(text);
	cJSON_Delete(root);
	buf_addf(&path, "/slots/%d?action=%s", slot, restore ? "restore" : "save");
	llamadisco_url(s->cfg, path.data, &url);
	o.method = "POST";
	o.url = url.data;
	o.body = body.data;
	o.body_len = body.len;
	o.headers = headers;
	o.connect_timeout_ms = 5000;
	o.timeout_ms = 120000;
	s->restore = restore;
	s->done = done;
	s->arg = arg;
	s->req = http_fetch(s->http, &o, slotsave_on_done, s, &e);
	buf_release(&path);
	buf_release(&url);
	buf_release(&name);
	buf_release(&body);
	return s->req ? 0 : -1;
}

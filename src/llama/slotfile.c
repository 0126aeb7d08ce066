/*
 * llama/slotfile: POST /slots/{id}?action=save|restore and the support state.
 *
 * Data: struct llama_slotfile holds the support verdict (unknown until the
 * first answer) and at most one request in flight (req non-NULL).
 * Invariant: done is called exactly once per started action unless the
 * action is cancelled by llama_slotfile_release.
 */
#include "llama/slotfile.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/cfg.h"
#include "io/http.h"
#include "base/json.h"
#include "llama/disco.h"
#include "io/loop.h"

static int llama_slotfile_start(struct llama_slotfile *s, int restore, int slot, const char *session_id,
				llama_slotfile_fn done, void *arg);

/* Keep only the characters llama-server's file name check accepts everywhere. */
void
llama_slotfile_filename(const char *session_id, struct buf *out)
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
llama_slotfile_errmsg(cJSON *root, char *out, size_t n)
{
	const char *m = json_str(cJSON_GetObjectItemCaseSensitive(root, "error"), "message");

	snprintf(out, n, "%s", m ? m : "no message");
}

/* Interpret the answer of a save or restore. */
void
llama_slotfile_parse(int restore, int status, const char *body, size_t n, struct llama_slotfile_result *out)
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
	llama_slotfile_errmsg(root, why, sizeof why);
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
llama_slotfile_on_done(int status, enum http_fail fail, const struct err *e, const struct buf *body,
		 void *arg)
{
	struct llama_slotfile *s = arg;
	struct llama_slotfile_result r;

	s->req = NULL;
	llama_slotfile_parse(s->restore, status, body ? body->data : NULL, body ? body->len : 0, &r);
	if (!status && e)
		snprintf(r.msg, sizeof r.msg, "no answer from llama-server (%.150s)", e->msg);
	(void)fail;
	if (r.unsupported)
		s->support = LLAMA_SLOTFILE_NO;
	else if (r.ok)
		s->support = LLAMA_SLOTFILE_YES;
	s->done(&r, s->arg);
}

/* Bind to the loop, http client, settings and the provider's slot. */
void
llama_slotfile_init(struct llama_slotfile *s, struct loop *l, struct http *h, const struct cfg *cfg,
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
llama_slotfile_release(struct llama_slotfile *s)
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
llama_slotfile_id(const struct llama_slotfile *s)
{
	const char *id = s->session_id ? s->session_id(s->session_arg) : NULL;

	return id ? id : "";
}

/* Name the session; a resumed one restores before its first request. */
void
llama_slotfile_session(struct llama_slotfile *s, llama_slotfile_id_fn id_fn, void *arg, int resumed)
{
	s->session_id = id_fn;
	s->session_arg = arg;
	s->restore_pending = resumed && s->cfg->slot_save;
}

/* Let the held request go on, from a clean stack (curl refuses transfers in its callbacks). */
static void
llama_slotfile_on_cont(struct loop *l, long id, void *arg)
{
	struct llama_slotfile *s = arg;
	llama_slotfile_cont_fn cont = s->cont;

	(void)l;
	(void)id;
	s->cont_timer = 0;
	s->cont = NULL;
	if (cont)
		cont(s->cont_arg, s->notice[0] ? s->notice : NULL);
}

/* The restore ended: say how it went and release the request. */
static void
llama_slotfile_on_restore(const struct llama_slotfile_result *r, void *arg)
{
	struct llama_slotfile *s = arg;
	struct buf name = BUF_INIT;

	llama_slotfile_filename(llama_slotfile_id(s), &name);
	s->restored = r->ok;
	if (r->ok) {
		s->restored_tokens = r->n_tokens;
		s->restored_ms = r->ms;
		snprintf(s->notice, sizeof s->notice,
			 "restored the session's cache into slot %d from %s: %ld tokens in %.0f ms",
			 *s->slot, name.data, r->n_tokens, r->ms);
	} else if (strstr(r->msg, "invalid slot save file") || strstr(r->msg, "No such file")) {
		snprintf(s->notice, sizeof s->notice,
			 "no saved cache for this session on the server (%s was never saved, or was deleted); the first request prefills the whole conversation",
			 name.data);
	} else {
		snprintf(s->notice, sizeof s->notice,
			 "could not restore the session's cache (%.180s); the first request prefills the whole conversation",
			 r->msg);
	}
	buf_release(&name);
	s->cont_timer = loop_timer_add(s->loop, 0, llama_slotfile_on_cont, s);
}

/* Before a request: a resumed session restores its slot first. */
int
llama_slotfile_before_request(struct llama_slotfile *s, llama_slotfile_cont_fn cont, void *arg)
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
	if (llama_slotfile_start(s, 1, *s->slot, llama_slotfile_id(s), llama_slotfile_on_restore, s) < 0)
		return 0;
	s->cont = cont;
	s->cont_arg = arg;
	return 1;
}

/* A prime is about to change the slot. */
void
llama_slotfile_before_prime(struct llama_slotfile *s)
{
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	s->busy_request = 1;
	s->dirty = 1;
}

/* An idle or exit save ended: the slot is on disk unless it failed. */
static void
llama_slotfile_on_save(const struct llama_slotfile_result *r, void *arg)
{
	struct llama_slotfile *s = arg;

	if (r->ok)
		s->dirty = 0;
	if (s->flushing)
		loop_stop(s->loop);
}

/* The exit save took too long: stop waiting. */
static void
llama_slotfile_on_flush_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* Quiet for slot_save_idle seconds: save the slot. */
static void
llama_slotfile_on_idle(struct loop *l, long id, void *arg)
{
	struct llama_slotfile *s = arg;

	(void)l;
	(void)id;
	s->idle_timer = 0;
	if (s->dirty && !s->busy_request)
		llama_slotfile_start(s, 0, *s->slot, llama_slotfile_id(s), llama_slotfile_on_save, s);
}

/* A request ended: the slot holds new state. */
void
llama_slotfile_request_end(struct llama_slotfile *s)
{
	s->busy_request = 0;
	if (!s->cfg->slot_save || s->support == LLAMA_SLOTFILE_NO)
		return;
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	if (s->cfg->slot_save_idle_s > 0)
		s->idle_timer = loop_timer_add(s->loop, (uint64_t)s->cfg->slot_save_idle_s * 1000u,
					       llama_slotfile_on_idle, s);
}

/* Exit: one last save of a changed slot, waiting for it a bounded time. */
void
llama_slotfile_flush(struct llama_slotfile *s, long timeout_ms)
{
	struct err e = ERR_INIT;
	long t;

	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	if (!s->dirty || !s->cfg->slot_save || s->req)
		return;
	if (llama_slotfile_start(s, 0, *s->slot, llama_slotfile_id(s), llama_slotfile_on_save, s) < 0)
		return;
	s->flushing = 1;
	t = loop_timer_add(s->loop, (uint64_t)timeout_ms, llama_slotfile_on_flush_timeout, s);
	loop_run(s->loop, &e);
	loop_timer_del(s->loop, t);
	s->flushing = 0;
	llama_slotfile_release(s);
}

/*
 * Start "save" or "restore" (restore != 0) of slot for session_id; done is
 * called once from the loop.  -1 when the server is known not to support
 * it, an action is in flight, or session_id/slot are unusable (no callback).
 */
static int
llama_slotfile_start(struct llama_slotfile *s, int restore, int slot, const char *session_id,
	       llama_slotfile_fn done, void *arg)
{
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct buf path = BUF_INIT, url = BUF_INIT, name = BUF_INIT, body = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;
	cJSON *root;
	char *text;

	if (s->support == LLAMA_SLOTFILE_NO || s->req || slot < 0 || !session_id || !*session_id)
		return -1;
	llama_slotfile_filename(session_id, &name);
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "filename", name.data);
	text = cJSON_PrintUnformatted(root);
	buf_adds(&body, text);
	cJSON_free(text);
	cJSON_Delete(root);
	buf_addf(&path, "/slots/%d?action=%s", slot, restore ? "restore" : "save");
	llama_disco_url(s->cfg, path.data, &url);
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
	s->req = http_fetch(s->http, &o, llama_slotfile_on_done, s, &e);
	buf_release(&path);
	buf_release(&url);
	buf_release(&name);
	buf_release(&body);
	return s->req ? 0 : -1;
}

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
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/fs.h"
#include "base/xmalloc.h"
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

/* ---- records: what a saved file holds ------------------------------------ */

/* DIR/hearth-<id>.json */
void
llama_slotfile_rec_path(const char *dir, const char *session_id, struct buf *out)
{
	struct buf name = BUF_INIT;

	llama_slotfile_filename(session_id, &name);
	name.len -= 4; /* ".bin" */
	name.data[name.len] = 0;
	buf_addf(out, "%s/%s.json", dir, name.data);
	buf_release(&name);
}

/* FNV-1a, 64 bits. */
static unsigned long long
llama_slotfile_hash(const char *p, size_t n)
{
	unsigned long long h = 1469598103934665603ull;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ull;
	}
	return h;
}

/* The record of text (n bytes) saved as tokens. */
void
llama_slotfile_rec_of(const char *text, size_t n, long tokens, struct llama_slotfile_rec *rec)
{
	rec->tokens = tokens;
	rec->bytes = text ? (long)n : -1;
	rec->hash = text ? llama_slotfile_hash(text, n) : 0;
}

/* Is the recorded text a byte prefix of prompt? */
int
llama_slotfile_rec_prefix(const struct llama_slotfile_rec *rec, const char *prompt, size_t n)
{
	if (rec->bytes < 0)
		return -1;
	if (!prompt || (size_t)rec->bytes > n)
		return 0;
	return llama_slotfile_hash(prompt, (size_t)rec->bytes) == rec->hash;
}

/* Read a record (at most 4 KiB of JSON). */
int
llama_slotfile_rec_read(const char *path, struct llama_slotfile_rec *rec)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *root;
	const char *h;
	long v;
	int rc = -1;

	if (buf_read_file(&b, path, 4096, &e) < 0) {
		buf_release(&b);
		return -1;
	}
	root = json_parse(b.data, b.len, &e);
	buf_release(&b);
	if (root && json_long(root, "tokens", &v) == 0 && v >= 0) {
		rec->tokens = v;
		rec->bytes = -1;
		rec->hash = 0;
		h = json_str(root, "fnv1a64");
		if (h && json_long(root, "bytes", &v) == 0 && v >= 0) {
			char *end;
			unsigned long long x = strtoull(h, &end, 16);

			if (*h && !*end) {
				rec->bytes = v;
				rec->hash = x;
			}
		}
		rc = 0;
	}
	cJSON_Delete(root);
	return rc;
}

/* Write a record (private: it says how long the conversation is). */
int
llama_slotfile_rec_write(const char *path, const struct llama_slotfile_rec *rec, struct err *e)
{
	struct buf b = BUF_INIT, dir = BUF_INIT;
	const char *slash = strrchr(path, '/');
	int rc;

	if (slash) {
		buf_add(&dir, path, (size_t)(slash - path));
		if (dir.len && fs_mkdirs_private(dir.data, e) < 0) {
			buf_release(&dir);
			return -1;
		}
	}
	buf_release(&dir);
	buf_addf(&b, "{\"tokens\": %ld", rec->tokens);
	if (rec->bytes >= 0)
		buf_addf(&b, ", \"bytes\": %ld, \"fnv1a64\": \"%016llx\"", rec->bytes, rec->hash);
	buf_adds(&b, "}\n");
	rc = fs_write_private(path, b.data, b.len, e);
	buf_release(&b);
	return rc;
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
static void
llama_slotfile_cancel(struct llama_slotfile *s)
{
	if (s->req)
		http_cancel(s->req);
	s->req = NULL;
	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	if (s->cont_timer)
		loop_timer_del(s->loop, s->cont_timer);
	s->idle_timer = s->cont_timer = 0;
	s->checking = 0;
}

/* Cancel everything; free what it holds. */
void
llama_slotfile_release(struct llama_slotfile *s)
{
	llama_slotfile_cancel(s);
	free(s->rec_dir);
	free(s->held_text);
	free(s->first_body);
	s->rec_dir = s->held_text = s->first_body = NULL;
}

/* Where the records go. */
void
llama_slotfile_records(struct llama_slotfile *s, const char *dir)
{
	free(s->rec_dir);
	s->rec_dir = dir ? xstrdup(dir) : NULL;
}

/* A prime made the slot hold exactly text. */
void
llama_slotfile_primed(struct llama_slotfile *s, const char *text, long tokens)
{
	free(s->held_text);
	s->held_text = text ? xstrdup(text) : NULL;
	s->held_tokens = tokens;
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

/* The recorded text of this session's file, or -1 (no record, none known). */
static int
llama_slotfile_rec_load(struct llama_slotfile *s, struct llama_slotfile_rec *rec)
{
	struct buf path = BUF_INIT;
	int rc = -1;

	if (s->rec_dir && *llama_slotfile_id(s)) {
		llama_slotfile_rec_path(s->rec_dir, llama_slotfile_id(s), &path);
		rc = llama_slotfile_rec_read(path.data, rec);
	}
	buf_release(&path);
	return rc;
}

/* The first request rendered (POST /apply-template): restore only when the file is a prefix of it. */
static void
llama_slotfile_on_check(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct llama_slotfile *s = arg;
	struct llama_slotfile_rec rec;
	struct err pe = ERR_INIT;
	cJSON *root = status == 200 && body && body->len ? json_parse(body->data, body->len, &pe) : NULL;
	const char *p = json_str(root, "prompt");
	int m = -1;

	(void)fail;
	(void)e;
	s->req = NULL;
	s->checking = 0;
	if (p && llama_slotfile_rec_load(s, &rec) == 0)
		m = llama_slotfile_rec_prefix(&rec, p, strlen(p));
	cJSON_Delete(root);
	if (m == 0) { /* the conversation is not what was saved: the restore would only cost */
		s->restore_skipped = 1;
		snprintf(s->notice, sizeof s->notice,
			 "not restoring the session's slot file: the prompt it holds (%ld tokens) is not a prefix of this request (the conversation changed after it was saved); the first request prefills the conversation",
			 rec.tokens);
		s->cont_timer = loop_timer_add(s->loop, 0, llama_slotfile_on_cont, s);
		return;
	}
	/* a prefix, or the check could not be made (no /apply-template): restore */
	if (llama_slotfile_start(s, 1, *s->slot, llama_slotfile_id(s), llama_slotfile_on_restore, s) < 0)
		s->cont_timer = loop_timer_add(s->loop, 0, llama_slotfile_on_cont, s);
}

/* Render the first request to check the file against it; -1 when it could not start. */
static int
llama_slotfile_check(struct llama_slotfile *s, const char *body)
{
	static const char *const headers[] = { "Content-Type: application/json", NULL };
	struct buf url = BUF_INIT;
	struct http_opts o = { 0 };
	struct err e = ERR_INIT;

	free(s->first_body);
	s->first_body = xstrdup(body);
	llama_disco_url(s->cfg, "/apply-template", &url);
	o.method = "POST";
	o.url = url.data;
	o.body = s->first_body;
	o.body_len = strlen(s->first_body);
	o.headers = headers;
	o.connect_timeout_ms = 5000;
	o.timeout_ms = 60000;
	s->checking = 1;
	s->req = http_fetch(s->http, &o, llama_slotfile_on_check, s, &e);
	buf_release(&url);
	if (!s->req)
		s->checking = 0;
	return s->req ? 0 : -1;
}

/* Before a request: a resumed session restores its slot first (when it holds a prefix of the request). */
int
llama_slotfile_before_request(struct llama_slotfile *s, const char *body, llama_slotfile_cont_fn cont,
			      void *arg)
{
	struct llama_slotfile_rec rec;

	if (s->idle_timer)
		loop_timer_del(s->loop, s->idle_timer);
	s->idle_timer = 0;
	s->busy_request = 1;
	s->dirty = 1; /* the slot changes once the server takes the request, answered or not */
	free(s->held_text); /* what it holds from now on is not known as text */
	s->held_text = NULL;
	if (!s->restore_pending)
		return 0;
	s->restore_pending = 0;
	s->notice[0] = 0;
	s->restore_skipped = 0;
	if (s->support == LLAMA_SLOTFILE_NO || s->req || *s->slot < 0 || !*llama_slotfile_id(s))
		return 0;
	if (body && llama_slotfile_rec_load(s, &rec) == 0 && rec.bytes >= 0) {
		if (llama_slotfile_check(s, body) < 0)
			return 0;
	} else if (llama_slotfile_start(s, 1, *s->slot, llama_slotfile_id(s), llama_slotfile_on_restore, s) < 0) {
		return 0;
	}
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
	free(s->held_text);
	s->held_text = NULL;
}

/* An idle or exit save ended: the slot is on disk unless it failed. */
static void
llama_slotfile_on_save(const struct llama_slotfile_result *r, void *arg)
{
	struct llama_slotfile *s = arg;
	struct llama_slotfile_rec rec;
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;

	if (r->ok)
		s->dirty = 0;
	if (r->ok && s->rec_dir && *llama_slotfile_id(s)) { /* what the file holds, for the restore's check */
		int exact = s->held_text && (s->held_tokens <= 0 || s->held_tokens == r->n_tokens);

		llama_slotfile_rec_of(exact ? s->held_text : NULL, exact ? strlen(s->held_text) : 0, r->n_tokens,
				      &rec);
		llama_slotfile_rec_path(s->rec_dir, llama_slotfile_id(s), &path);
		(void)llama_slotfile_rec_write(path.data, &rec, &e); /* a hint: without it the restore is unchecked */
		buf_release(&path);
	}
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
	llama_slotfile_cancel(s);
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

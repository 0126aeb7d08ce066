/*
 * mcp/http: Streamable HTTP and HTTP+SSE (see mcp/http.h).
 *
 * Each HTTP request of a server is a struct mcp_post on s->posts: a POST
 * of one message, the Streamable HTTP listening GET, or the SSE stream's
 * GET.  Its answer is read as an event stream or collected as a JSON
 * body, by its Content-Type.  A post inside one of its own callbacks is
 * only marked dead by mcp_http_close and freed when the callback returns
 * (io/http frees the curl side: on_data returns non-zero, or on_done
 * ends).
 *
 * Resuming (Streamable HTTP): the SSE events of a POST's answer and of the
 * listening GET may carry ids (io/sse keeps the last).  A POST's stream
 * that breaks or ends before the answer to its request arrived, once it
 * has given an id, is resumed by a GET with Last-Event-ID (POST_RESUME),
 * and so on while events come; the listening GET is opened again when it
 * ends (with Last-Event-ID when it had ids).  Each waits the server's
 * retry: or 0.5, 1, 2 s, and MCP_HTTP_RESUMES attempts in a row that
 * bring no event give up: a call in flight then fails alone (cancelled),
 * a start-up request fails the server, the listening stream just stops.
 * A post that waits to be sent again has a timer and no curl request.
 *
 * Sessions: a request that carried the session id and is answered 404
 * (the spec's "session expired"), or 400 with "session" in its body
 * (what the TypeScript SDK's servers answer for a session they do not
 * know, e.g. after a restart), starts a new session (mcp_server_restart).
 * Sessions are ended with a DELETE (mcp_http_end_session) on /mcp
 * reconnect and at exit; those requests live on m->ends, apart from the
 * server's, so closing the server does not cancel them.
 */
#include "mcp/http.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/http.h"
#include "io/loop.h"
#include "io/sse.h"
#include "mcp/proto.h"
#include "mcp/wire.h"
#include "base/xmalloc.h"

#define MCP_HTTP_ERR_BODY 200 /* bytes of an error body quoted */
#define MCP_HTTP_RESUMES 3    /* attempts in a row without an event before a stream is given up */

enum post_kind {
	POST_MESSAGE,    /* a POST of one message */
	POST_LISTEN,     /* Streamable HTTP: the GET that listens for the server's own messages */
	POST_SSE_STREAM, /* HTTP+SSE: the GET of the event stream */
	POST_RESUME      /* Streamable HTTP: a GET with Last-Event-ID resuming a POST's answer */
};

struct mcp_post {
	struct mcp_post *next;
	struct mcp_server *s;
	struct http_req *req; /* NULL while it waits on timer to be sent again */
	long timer;
	enum post_kind kind;
	int stream;           /* the answer is text/event-stream */
	int json;             /* the answer is application/json */
	int in_cb, dead;
	int sent_sid;         /* the request carried Mcp-Session-Id */
	long req_id;          /* POST_MESSAGE, POST_RESUME: the request whose answer is awaited (-1: none) */
	int got_response;     /* that answer arrived */
	int attempt;          /* POST_RESUME, POST_LISTEN: attempts in a row without an event */
	uint64_t t0;          /* loop time sent */
	long events;          /* events (with an id or data) read from this stream */
	char *last_id;        /* POST_RESUME, POST_LISTEN: the Last-Event-ID to send (NULL: none) */
	struct sse sse;
	struct buf body;      /* a JSON answer, or an error body */
};

/* A DELETE ending a session (m->ends). */
struct mcp_end {
	struct mcp_end *next;
	struct mcp *m;
	struct http_req *req;
};

/*
 * The MCP servers' own io/http client on the loop, made on first use: not
 * the session's, whose Bearer keys (the model provider's) must never
 * reach an MCP server's URL.
 */
static struct http *
client(struct mcp *m)
{
	struct err e = ERR_INIT;

	if (!m->http)
		m->http = http_new(m->loop, &e);
	return m->http;
}

/* Take p off its server's list and free it (not the curl request). */
static void
post_free(struct mcp_post *p)
{
	struct mcp_post **pp;

	for (pp = &p->s->posts; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	if (p->timer)
		loop_timer_del(p->s->m->loop, p->timer);
	sse_release(&p->sse);
	buf_release(&p->body);
	free(p->last_id);
	free(p);
}

/* One JSON-RPC message (or a batch) from the server; p (may be NULL) notes the answer it awaits. */
static void
take_message(struct mcp_server *s, struct mcp_post *p, const char *text, size_t n)
{
	struct mcp_wire_msg msg;
	struct err e = ERR_INIT;
	cJSON *batch;

	while (n && (text[0] == ' ' || text[0] == '\n' || text[0] == '\r' || text[0] == '\t')) {
		text++;
		n--;
	}
	if (!n || s->state == SRV_DEAD)
		return;
	if (text[0] == '[' && (batch = cJSON_ParseWithLength(text, n)) != NULL) {
		const cJSON *it;

		cJSON_ArrayForEach(it, batch) {
			char *one = cJSON_PrintUnformatted(it);

			if (s->state != SRV_DEAD)
				take_message(s, p, one, strlen(one));
			free(one);
		}
		cJSON_Delete(batch);
		return;
	}
	if (mcp_wire_parse(text, n, &msg, &e) < 0) {
		mcp_server_fail(s, e.msg);
		return;
	}
	if (p && (msg.kind == MCP_WIRE_RESULT || msg.kind == MCP_WIRE_ERROR) && msg.id == p->req_id)
		p->got_response = 1;
	mcp_proto_dispatch(s, &msg);
	mcp_wire_msg_free(&msg);
}

/* Resolve the SSE endpoint (absolute, /path or relative) against the server URL. */
static char *
resolve(const char *base, const char *ref)
{
	struct buf b = BUF_INIT;
	const char *host, *path;

	if (!strncmp(ref, "http://", 7) || !strncmp(ref, "https://", 8))
		return xstrdup(ref);
	host = strstr(base, "://");
	host = host ? host + 3 : base;
	path = host + strcspn(host, "/?#");
	if (ref[0] == '/') {
		buf_add(&b, base, (size_t)(path - base));
	} else {
		const char *end = path + strcspn(path, "?#"), *slash = end;

		while (slash > path && slash[-1] != '/')
			slash--;
		buf_add(&b, base, (size_t)(slash - base));
		if (slash == path)
			buf_addch(&b, '/');
	}
	buf_adds(&b, ref);
	return buf_detach(&b, NULL);
}

static void schedule(struct mcp_server *s);

/* An event of an answer's or a stream's SSE. */
static int
on_event(void *ctx, struct str event, struct str data)
{
	struct mcp_post *p = ctx;
	struct mcp_server *s = p->s;

	if (p->kind == POST_SSE_STREAM && event.len == 8 && !memcmp(event.p, "endpoint", 8)) {
		char *ref = xstrndup(data.p, data.len);

		free(s->post_url);
		s->post_url = resolve(s->url, ref);
		free(ref);
		schedule(s); /* what waited for the endpoint */
		return 0;
	}
	p->events++;
	p->attempt = 0; /* the stream moves: resuming starts counting again */
	if (event.len && !(event.len == 7 && !memcmp(event.p, "message", 7)))
		return 0; /* other events are not ours */
	take_message(s, p, data.p, data.len);
	return s->state == SRV_DEAD || p->dead;
}

/* Headers are in: an event stream or a JSON body; the session id. */
static void
post_on_headers(struct http_req *r, int status, void *arg)
{
	struct mcp_post *p = arg;
	const char *ct = http_header(r, "Content-Type"), *sid;

	p->stream = status < 300 && ct && !strncasecmp(ct, "text/event-stream", 17);
	p->json = status < 300 && ct && strstr(ct, "json"); /* 202 "Accepted": nothing to read */
	sid = http_header(r, "Mcp-Session-Id"); /* the same static buffer as ct */
	if (sid && status < 300 && !p->s->session_id && *sid)
		p->s->session_id = xstrndup(sid, strcspn(sid, "\r\n"));
}

/* Body bytes. */
static int
post_on_data(struct http_req *r, const char *data, size_t n, void *arg)
{
	struct mcp_post *p = arg;
	int status = http_status(r), stop = 0;

	p->in_cb = 1;
	if (status >= 300) {
		if (p->body.len < MCP_HTTP_ERR_BODY)
			buf_add(&p->body, data, n);
	} else if (p->stream) {
		int rc = sse_feed(&p->sse, data, n, on_event, p);

		if (rc == SSE_TOO_BIG)
			mcp_server_fail(p->s, "sent an event larger than 16 MB");
		stop = rc != 0;
	} else if (!p->json) {
		/* a body that is no message (202 "Accepted") */
	} else if (p->body.len + n > MCP_WIRE_MAX_LINE) {
		mcp_server_fail(p->s, "sent an answer larger than 16 MB");
	} else {
		buf_add(&p->body, data, n);
	}
	p->in_cb = 0;
	if (p->dead || stop || p->s->state == SRV_DEAD) {
		if (!p->dead && p->kind != POST_MESSAGE && p->s->state != SRV_DEAD)
			mcp_server_fail(p->s, "its event stream could not be read");
		post_free(p);
		return 1;
	}
	return 0;
}

static void post_launch(struct mcp_post *p, const char *body, size_t n);

/* Loop: a post that waited is sent again. */
static void
on_again(struct loop *l, long id, void *arg)
{
	struct mcp_post *p = arg;

	(void)l;
	(void)id;
	p->timer = 0;
	if (p->s->state == SRV_DEAD) {
		post_free(p);
		return;
	}
	post_launch(p, NULL, 0);
}

/* A new post of kind, linked on s->posts (not sent). */
static struct mcp_post *
post_new(struct mcp_server *s, enum post_kind kind)
{
	struct mcp_post *p = xcalloc(1, sizeof *p);

	p->s = s;
	p->kind = kind;
	p->req_id = -1;
	sse_init(&p->sse);
	buf_init(&p->body, 0);
	p->next = s->posts;
	s->posts = p;
	return p;
}

/*
 * Open again (from the loop, after the server's retry: or 0.5, 1, 2 s) the
 * GET that old stood for: a resume of a POST's answer or the listening
 * stream, with the last event id seen.  0, or -1 when old has had
 * MCP_HTTP_RESUMES attempts in a row without an event.
 */
static int
post_again(struct mcp_post *old)
{
	struct mcp_post *p;
	const char *id = old->sse.last_id.len ? old->sse.last_id.data : old->last_id;
	/* a stream that brought events, or stayed open a while, starts the count again */
	int fresh = old->events || (old->stream && loop_now_ms(old->s->m->loop) - old->t0 >= 5000);
	int attempt = fresh ? 0 : old->attempt + 1;
	long delay = old->sse.retry_ms > 0 ? old->sse.retry_ms : 500L << (attempt < 3 ? attempt : 3);

	if (attempt >= MCP_HTTP_RESUMES)
		return -1;
	p = post_new(old->s, old->kind == POST_MESSAGE ? POST_RESUME : old->kind);
	p->req_id = old->req_id;
	p->attempt = attempt;
	p->last_id = id && *id ? xstrdup(id) : NULL;
	p->timer = loop_timer_add(old->s->m->loop, (uint64_t)delay, on_again, p);
	return 0;
}

/* Whether the request p waits for is still in flight (not answered, cancelled or failed). */
static struct pend *
awaited(const struct mcp_post *p)
{
	struct pend *q;

	for (q = p->s->pends; q && p->req_id >= 0; q = q->next)
		if (q->id == p->req_id)
			return q;
	return NULL;
}

/* A broken answer could not be resumed: its call fails alone; a start-up request fails the server. */
static void
give_up(struct mcp_post *p, const char *why)
{
	struct mcp_server *s = p->s;
	struct pend *q = awaited(p);
	struct buf line = BUF_INIT;

	if (!q)
		return;
	if (q->job) {
		buf_addf(&line, "mcp server %s: the answer to %s was cut off and %s: the call was cancelled",
			 s->name, q->what, why);
		mcp_server_cancel(s, q, "stream lost", line.data);
	} else {
		buf_addf(&line, "the answer to %s was cut off and %s", q->what, why);
		mcp_server_fail(s, line.data);
	}
	buf_release(&line);
}

/* Whether a refusal of a request that carried the session id says the session is gone. */
static int
session_gone(const struct mcp_post *p, int status)
{
	size_t i;

	if (!p->sent_sid)
		return 0;
	if (status == 404)
		return 1;
	if (status != 400)
		return 0;
	for (i = 0; i + 7 <= p->body.len; i++) /* the TypeScript SDK: 400 "No valid session ID provided" */
		if (!strncasecmp(p->body.data + i, "session", 7))
			return 1;
	return 0;
}

/* The request ended. */
static void
post_on_done(struct http_req *r, int status, enum http_fail fail, const struct err *e, void *arg)
{
	struct mcp_post *p = arg;
	struct mcp_server *s = p->s;
	struct buf why = BUF_INIT;

	(void)r;
	p->in_cb = 1;
	p->req = NULL;
	if (fail == HTTP_OK && status >= 400 && s->state != SRV_DEAD && !p->dead && session_gone(p, status)) {
		buf_addf(&why, "its session ended (HTTP %d", status);
		if (p->body.len)
			buf_addf(&why, ": %.*s", (int)strcspn(p->body.data, "\r\n") < 120 ?
				 (int)strcspn(p->body.data, "\r\n") : 120, p->body.data);
		buf_adds(&why, ")");
		post_free(p); /* before the restart closes the server's posts */
		mcp_server_restart(s, why.data);
		buf_release(&why);
		return;
	}
	if (p->dead || s->state == SRV_DEAD) {
		/* nothing more to do */
	} else if (p->kind == POST_LISTEN) {
		if (p->stream)
			sse_finish(&p->sse, on_event, p);
		/* a listening stream that ran is opened again; one refused (405) or never opened stays shut */
		if (s->state != SRV_DEAD && !p->dead && (p->stream || (p->attempt && status < 400)))
			(void)post_again(p);
	} else if (p->kind == POST_RESUME) {
		if (p->stream)
			sse_finish(&p->sse, on_event, p);
		if (s->state != SRV_DEAD && !p->dead && !p->got_response && awaited(p)) {
			if (fail != HTTP_OK)
				buf_addf(&why, "resuming it failed (%s)", e && e->msg[0] ? e->msg : "the connection failed");
			else if (status >= 400)
				buf_addf(&why, "resuming it was refused (HTTP %d)", status);
			else
				buf_adds(&why, "resuming it brought no answer");
			if (status == 405 || post_again(p) < 0)
				give_up(p, why.data);
		}
	} else if (fail != HTTP_OK && p->got_response) {
		/* cut off after its answer: nothing lost */
	} else if (fail != HTTP_OK) {
		if (p->stream && p->sse.last_id.len && awaited(p)) {
			sse_finish(&p->sse, on_event, p);
			if (s->state != SRV_DEAD && !p->got_response && awaited(p) && post_again(p) < 0)
				give_up(p, "could not be resumed");
		} else {
			if (e && e->msg[0])
				buf_adds(&why, e->msg);
			else
				buf_addf(&why, "%s: the connection failed", s->url);
			mcp_server_fail(s, why.data);
		}
	} else if (status >= 400) {
		size_t n = p->body.len > MCP_HTTP_ERR_BODY ? MCP_HTTP_ERR_BODY : p->body.len;

		buf_addf(&why, "answered HTTP %d", status);
		if (status == 401 || status == 403)
			buf_adds(&why, " (check the \"headers\" of its .mcp.json entry)");
		if (n)
			buf_addf(&why, ": %.*s", (int)strcspn(p->body.data, "\r\n") < (int)n ?
				 (int)strcspn(p->body.data, "\r\n") : (int)n, p->body.data);
		mcp_server_fail(s, why.data);
	} else if (p->kind == POST_SSE_STREAM) {
		sse_finish(&p->sse, on_event, p);
		if (s->state != SRV_DEAD)
			mcp_server_fail(s, "closed its event stream");
	} else if (p->stream) {
		sse_finish(&p->sse, on_event, p);
		/* closed before the answer: resumable once an event had an id (a "priming" event) */
		if (s->state != SRV_DEAD && !p->dead && !p->got_response && p->sse.last_id.len && awaited(p) &&
		    post_again(p) < 0)
			give_up(p, "could not be resumed");
	} else if (p->body.len) {
		take_message(s, p, p->body.data, p->body.len);
	}
	buf_release(&why);
	post_free(p);
}

/* Send p: a POST of body, or a GET of a stream (with Last-Event-ID when resuming). */
static void
post_launch(struct mcp_post *p, const char *body, size_t n)
{
	static const struct http_cb cb = { post_on_data, post_on_done, post_on_headers };
	struct mcp_server *s = p->s;
	struct http *h = client(s->m);
	struct http_opts o = { 0 };
	const char *hv[64];
	char sid[300], lei[1100];
	size_t k = 0, i;
	struct err e = ERR_INIT;

	if (!h) {
		post_free(p);
		mcp_server_fail(s, "cannot start an HTTP client (curl)");
		return;
	}
	for (i = 0; s->headers && s->headers[i] && k < 57; i++)
		hv[k++] = s->headers[i];
	if (p->kind == POST_MESSAGE) {
		hv[k++] = "Content-Type: application/json";
		hv[k++] = "Accept: application/json, text/event-stream";
		o.method = "POST";
		o.body = body;
		o.body_len = n;
		o.url = s->post_url ? s->post_url : s->url;
	} else {
		hv[k++] = "Accept: text/event-stream";
		o.method = "GET";
		o.url = s->url;
	}
	hv[k++] = "MCP-Protocol-Version: " MCP_WIRE_PROTOCOL;
	if (s->session_id) {
		snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", s->session_id);
		hv[k++] = sid;
		p->sent_sid = 1;
	}
	if (p->last_id) {
		snprintf(lei, sizeof lei, "Last-Event-ID: %s", p->last_id);
		hv[k++] = lei;
	}
	hv[k] = NULL;
	o.headers = hv;
	o.connect_timeout_ms = (long)s->m->timeout_ms;
	p->t0 = loop_now_ms(s->m->loop);
	p->req = http_start(h, &o, &cb, p, &e);
	if (!p->req) {
		post_free(p);
		mcp_server_fail(s, e.msg[0] ? e.msg : "curl refused the request");
	}
}

/* Start one request of kind now: a POST of body, or a GET of a stream. */
static void
post_start(struct mcp_server *s, enum post_kind kind, const char *body, size_t n)
{
	struct mcp_post *p = post_new(s, kind);

	if (kind == POST_MESSAGE) { /* the request whose answer a broken stream resumes */
		cJSON *o = cJSON_ParseWithLength(body, n);
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");

		if (cJSON_IsNumber(id) && cJSON_GetObjectItemCaseSensitive(o, "method"))
			p->req_id = (long)id->valuedouble;
		cJSON_Delete(o);
	}
	post_launch(p, body, n);
}

/*
 * Loop: start the queued requests.  Requests are never started from
 * inside io/http's callbacks (curl refuses a handle added from its own
 * callback), so every send goes through here.
 */
static void
on_flush(struct loop *l, long id, void *arg)
{
	struct mcp_server *s = arg;
	struct buf q = BUF_INIT;
	size_t i = 0;

	(void)l;
	(void)id;
	s->http_timer = 0;
	if (s->state == SRV_DEAD)
		return;
	if (s->want_listen) {
		s->want_listen = 0;
		post_start(s, POST_LISTEN, NULL, 0);
	}
	if (s->transport == MCP_SSE && !s->post_url)
		return; /* the endpoint event schedules again */
	buf_add(&q, s->outq.data, s->outq.len);
	buf_reset(&s->outq);
	while (i < q.len && s->state != SRV_DEAD) {
		size_t e = i;

		while (e < q.len && q.data[e] != '\n')
			e++;
		if (e > i)
			post_start(s, POST_MESSAGE, q.data + i, e - i);
		i = e + 1;
	}
	buf_release(&q);
}

/* Flush from the loop soon. */
static void
schedule(struct mcp_server *s)
{
	if (!s->http_timer && s->state != SRV_DEAD)
		s->http_timer = loop_timer_add(s->m->loop, 0, on_flush, s);
}

/* Send one line (queued; sent from the loop). */
void
mcp_http_send(struct mcp_server *s, const struct buf *line)
{
	if (s->state == SRV_DEAD)
		return;
	if (s->outq.len + line->len > MCP_WIRE_MAX_LINE * 4) {
		mcp_server_fail(s, "does not take our messages (too many queued)");
		return;
	}
	buf_add(&s->outq, line->data, line->len);
	if (!line->len || line->data[line->len - 1] != '\n')
		buf_addch(&s->outq, '\n');
	schedule(s);
}

/* Start: the SSE stream, or nothing (initialize is the first POST). */
void
mcp_http_start(struct mcp_server *s)
{
	if (s->transport == MCP_SSE)
		post_start(s, POST_SSE_STREAM, NULL, 0);
}

/* Listen for the server's own messages (Streamable HTTP). */
void
mcp_http_initialized(struct mcp_server *s)
{
	if (s->transport == MCP_HTTP && s->state != SRV_DEAD) {
		s->want_listen = 1;
		schedule(s);
	}
}

/* Cancel everything; forget the session. */
void
mcp_http_close(struct mcp_server *s)
{
	struct mcp_post *p, *next;

	for (p = s->posts; p; p = next) {
		next = p->next;
		if (p->in_cb) {
			p->dead = 1;
			continue;
		}
		if (p->req)
			http_cancel(p->req);
		post_free(p);
	}
	if (s->http_timer)
		loop_timer_del(s->m->loop, s->http_timer);
	s->http_timer = 0;
	s->want_listen = 0;
	free(s->session_id);
	s->session_id = NULL;
	free(s->post_url);
	s->post_url = NULL;
}

/* A DELETE ended (whatever the answer: 200, 405, 404). */
static void
end_on_done(struct http_req *r, int status, enum http_fail fail, const struct err *e, void *arg)
{
	struct mcp_end *d = arg, **pp;

	(void)r;
	(void)status;
	(void)fail;
	(void)e;
	for (pp = &d->m->ends; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	if (d->m->ending && !d->m->ends)
		loop_stop(d->m->loop);
	free(d);
}

/* Body bytes of a DELETE's answer: not read. */
static int
end_on_data(struct http_req *r, const char *data, size_t n, void *arg)
{
	(void)r;
	(void)data;
	(void)n;
	(void)arg;
	return 0;
}

/* End s's session: a DELETE with its id (Streamable HTTP with a session; else nothing). */
void
mcp_http_end_session(struct mcp_server *s)
{
	static const struct http_cb cb = { end_on_data, end_on_done, NULL };
	struct http *h;
	struct http_opts o = { 0 };
	const char *hv[64];
	char sid[300];
	size_t k = 0, i;
	struct err e = ERR_INIT;
	struct mcp_end *d;

	if (s->transport != MCP_HTTP || !s->session_id || !(h = client(s->m)))
		return;
	for (i = 0; s->headers && s->headers[i] && k < 60; i++)
		hv[k++] = s->headers[i];
	hv[k++] = "MCP-Protocol-Version: " MCP_WIRE_PROTOCOL;
	snprintf(sid, sizeof sid, "Mcp-Session-Id: %s", s->session_id);
	hv[k++] = sid;
	hv[k] = NULL;
	o.method = "DELETE";
	o.url = s->url;
	o.headers = hv;
	o.connect_timeout_ms = 2000;
	o.timeout_ms = 5000;
	d = xcalloc(1, sizeof *d);
	d->m = s->m;
	d->req = http_start(h, &o, &cb, d, &e);
	if (!d->req) {
		free(d);
		return;
	}
	d->next = s->m->ends;
	s->m->ends = d;
}

/* Cancel the DELETEs still in flight. */
void
mcp_http_ends_free(struct mcp *m)
{
	struct mcp_end *d;

	while ((d = m->ends) != NULL) {
		m->ends = d->next;
		http_cancel(d->req);
		free(d);
	}
}

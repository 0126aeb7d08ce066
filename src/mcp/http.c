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
 */
#include "mcp/http.h"

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

enum post_kind { POST_MESSAGE, POST_LISTEN, POST_SSE_STREAM };

struct mcp_post {
	struct mcp_post *next;
	struct mcp_server *s;
	struct http_req *req;
	enum post_kind kind;
	int stream;           /* the answer is text/event-stream */
	int json;             /* the answer is application/json */
	int in_cb, dead;
	struct sse sse;
	struct buf body;      /* a JSON answer, or an error body */
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
	sse_release(&p->sse);
	buf_release(&p->body);
	free(p);
}

/* One JSON-RPC message (or a batch) from the server. */
static void
take_message(struct mcp_server *s, const char *text, size_t n)
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
				take_message(s, one, strlen(one));
			free(one);
		}
		cJSON_Delete(batch);
		return;
	}
	if (mcp_wire_parse(text, n, &msg, &e) < 0) {
		mcp_server_fail(s, e.msg);
		return;
	}
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
	if (event.len && !(event.len == 7 && !memcmp(event.p, "message", 7)))
		return 0; /* other events are not ours */
	take_message(s, data.p, data.len);
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

/* The request ended. */
static void
post_on_done(struct http_req *r, int status, enum http_fail fail, const struct err *e, void *arg)
{
	struct mcp_post *p = arg;
	struct mcp_server *s = p->s;
	struct buf why = BUF_INIT;

	(void)r;
	p->in_cb = 1;
	if (p->dead || s->state == SRV_DEAD) {
		/* nothing more to do */
	} else if (p->kind == POST_LISTEN) {
		if (p->stream)
			sse_finish(&p->sse, on_event, p); /* a stream that ends or is refused: no listening */
	} else if (fail != HTTP_OK) {
		if (e && e->msg[0])
			buf_adds(&why, e->msg);
		else
			buf_addf(&why, "%s: the connection failed", s->url);
		mcp_server_fail(s, why.data);
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
	} else if (p->body.len) {
		take_message(s, p->body.data, p->body.len);
	}
	buf_release(&why);
	post_free(p);
}

/* Start one request of kind: a POST of body, or a GET of a stream. */
static void
post_start(struct mcp_server *s, enum post_kind kind, const char *body, size_t n)
{
	static const struct http_cb cb = { post_on_data, post_on_done, post_on_headers };
	struct http *h = client(s->m);
	struct http_opts o = { 0 };
	struct mcp_post *p;
	const char *hv[64];
	char sid[300];
	size_t k = 0, i;
	struct err e = ERR_INIT;

	if (!h) {
		mcp_server_fail(s, "cannot start an HTTP client (curl)");
		return;
	}
	p = xcalloc(1, sizeof *p);
	p->s = s;
	p->kind = kind;
	sse_init(&p->sse);
	buf_init(&p->body, 0);
	for (i = 0; s->headers && s->headers[i] && k < 58; i++)
		hv[k++] = s->headers[i];
	if (kind == POST_MESSAGE) {
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
	}
	hv[k] = NULL;
	o.headers = hv;
	o.connect_timeout_ms = (long)s->m->timeout_ms;
	p->next = s->posts;
	s->posts = p;
	p->req = http_start(h, &o, &cb, p, &e);
	if (!p->req) {
		post_free(p);
		mcp_server_fail(s, e.msg[0] ? e.msg : "curl refused the request");
	}
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

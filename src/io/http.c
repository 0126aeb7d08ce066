/*
 * io/http: libcurl multi driven by the loop.
 *
 * Data: one CURLM per client; each request owns its easy handle, header
 * list, a small buf of response headers and (for http_fetch) the body.
 * Requests form a doubly-linked list so http_free can cancel them all.
 *
 * Re-entrancy: curl forbids removing a handle from inside its own
 * callbacks.  While curl runs (h->in_curl), http_cancel only marks the
 * request; the write callback then returns 0, and the completion sweep
 * frees marked requests without calling on_done.
 */
#include "io/http.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/loop.h"
#include "base/xmalloc.h"

struct http {
	struct loop *loop;
	CURLM *multi;
	long timer;
	int in_curl;
	struct http_req *reqs;
	struct http_bearer *bearers;
};

struct http_bearer {
	char *prefix;
	char *header; /* "Authorization: Bearer KEY" */
	struct http_bearer *next;
};

struct http_req {
	struct http *h;
	CURL *easy;
	struct curl_slist *hdrs;
	char *body;
	struct buf resp_headers;
	struct http_cb cb;
	void *arg;
	int status;
	int cancelled;
	int delivering; /* inside on_done: http_cancel must not free */
	size_t received;
	/* http_fetch */
	struct buf collected;
	http_fetch_fn fetch_done;
	void *fetch_arg;
	struct http_req *prev, *next;
};

static int curl_ready;

static void http_check_done(struct http *h);

/* Run curl for a socket or timeout and sweep finished transfers. */
static void
http_action(struct http *h, curl_socket_t s, int flags)
{
	int running;

	h->in_curl++;
	curl_multi_socket_action(h->multi, s, flags, &running);
	h->in_curl--;
	http_check_done(h);
}

/* Loop fd readiness → curl. */
static void
http_on_fd(struct loop *l, int fd, int events, void *arg)
{
	int flags = 0;

	(void)l;
	if (events & LOOP_READ)
		flags |= CURL_CSELECT_IN;
	if (events & LOOP_WRITE)
		flags |= CURL_CSELECT_OUT;
	if (events & LOOP_ERROR)
		flags |= CURL_CSELECT_ERR;
	http_action(arg, fd, flags);
}

/* curl asks us to watch or forget a socket. */
static int
http_socket_cb(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct http *h = userp;

	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_REMOVE)
		loop_unwatch(h->loop, s);
	else
		loop_watch(h->loop, s,
			   (what & CURL_POLL_IN ? LOOP_READ : 0) | (what & CURL_POLL_OUT ? LOOP_WRITE : 0),
			   http_on_fd, h);
	return 0;
}

/* The loop timer curl asked for has fired. */
static void
http_on_timer(struct loop *l, long id, void *arg)
{
	struct http *h = arg;

	(void)l;
	(void)id;
	h->timer = 0;
	http_action(h, CURL_SOCKET_TIMEOUT, 0);
}

/* curl asks for a (single) timeout; -1 cancels it. */
static int
http_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct http *h = userp;

	(void)multi;
	if (h->timer)
		loop_timer_del(h->loop, h->timer);
	h->timer = 0;
	if (timeout_ms >= 0)
		h->timer = loop_timer_add(h->loop, (uint64_t)timeout_ms, http_on_timer, h);
	return 0;
}

/* New client; curl_global_init happens here, not at start-up. */
struct http *
http_new(struct loop *l, struct err *e)
{
	struct http *h;

	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			err_set(e, "initialise libcurl failed");
			return NULL;
		}
		curl_ready = 1;
	}
	h = xcalloc(1, sizeof *h);
	h->loop = l;
	h->multi = curl_multi_init();
	if (!h->multi) {
		free(h);
		err_set(e, "initialise libcurl multi handle failed");
		return NULL;
	}
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, http_socket_cb);
	curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb);
	curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	return h;
}

/* Unlink and free one request (its handle already removed or never added). */
static void
http_req_free(struct http_req *r)
{
	struct http *h = r->h;

	if (r->prev)
		r->prev->next = r->next;
	else
		h->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	curl_multi_remove_handle(h->multi, r->easy);
	curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->hdrs);
	free(r->body);
	buf_release(&r->resp_headers);
	buf_release(&r->collected);
	free(r);
}

/* Cancel everything and free the client. */
void
http_free(struct http *h)
{
	if (!h)
		return;
	while (h->reqs)
		http_req_free(h->reqs);
	if (h->timer)
		loop_timer_del(h->loop, h->timer);
	curl_multi_cleanup(h->multi);
	while (h->bearers) {
		struct http_bearer *b = h->bearers;

		h->bearers = b->next;
		memset(b->header, 0, strlen(b->header));
		free(b->header);
		free(b->prefix);
		free(b);
	}
	free(h);
}

/* Status as soon as curl knows it. */
static void
http_note_status(struct http_req *r)
{
	long code = 0;

	if (!r->status && curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK)
		r->status = (int)code;
}

/* Body bytes from curl. */
static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct http_req *r = userp;
	size_t n = size * nmemb;

	if (r->cancelled)
		return 0;
	http_note_status(r);
	r->received += n;
	if (r->cb.on_data && r->cb.on_data(r, data, n, r->arg) != 0) {
		r->cancelled = 1;
		return 0;
	}
	return r->cancelled ? 0 : n;
}

/* Response header lines, kept for http_header(); a new status line resets them. */
static size_t
http_header_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct http_req *r = userp;
	size_t n = size * nmemb;

	if (n >= 5 && memcmp(data, "HTTP/", 5) == 0)
		buf_reset(&r->resp_headers);
	buf_add(&r->resp_headers, data, n);
	if (((n == 2 && data[0] == '\r') || n == 1) && data[n - 1] == '\n' && r->cb.on_headers &&
	    !r->cancelled) { /* the blank line that ends a header block */
		long code = 0;

		if (curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code >= 200)
			r->cb.on_headers(r, (int)code, r->arg);
	}
	return n;
}

/* Classify a curl failure. */
static enum http_fail
http_classify(CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		return HTTP_OK;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return HTTP_FAIL_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return HTTP_FAIL_TIMEOUT;
	default:
		return HTTP_FAIL_OTHER;
	}
}

/* Deliver completions; marked (cancelled) requests are freed silently. */
static void
http_check_done(struct http *h)
{
	CURLMsg *msg;
	int left;

	if (h->in_curl)
		return;
	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		struct http_req *r = NULL;
		struct err e = ERR_INIT;
		enum http_fail fail;
		char *url = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		if (!r)
			continue;
		fail = http_classify(msg->data.result);
		http_note_status(r);
		curl_multi_remove_handle(h->multi, r->easy);
		if (!r->cancelled && r->cb.on_done) {
			if (fail != HTTP_OK) {
				curl_easy_getinfo(r->easy, CURLINFO_EFFECTIVE_URL, &url);
				err_set(&e, "%s: %s", url ? url : "request",
					curl_easy_strerror(msg->data.result));
				e.code = (int)msg->data.result;
			}
			r->delivering = 1;
			r->cb.on_done(r, r->status, fail, fail != HTTP_OK ? &e : NULL, r->arg);
		}
		http_req_free(r);
	}
}

/* The Bearer entry whose prefix url starts with at a path boundary, or NULL. */
static const struct http_bearer *
http_bearer_for(const struct http *h, const char *url)
{
	const struct http_bearer *b;

	for (b = h->bearers; b && url; b = b->next) {
		size_t n = strlen(b->prefix);

		if (!strncmp(url, b->prefix, n) && strchr("/?#", url[n]))
			return b; /* strchr finds the NUL too: the prefix itself */
	}
	return NULL;
}

/* Register a Bearer key for a base URL. */
void
http_set_bearer(struct http *h, const char *url_prefix, const char *key)
{
	struct http_bearer *b;
	size_t n = strlen(url_prefix);
	struct buf hdr = BUF_INIT;

	while (n && url_prefix[n - 1] == '/')
		n--;
	for (b = h->bearers; b; b = b->next)
		if (strlen(b->prefix) == n && !strncmp(b->prefix, url_prefix, n))
			break;
	if (!b) {
		b = xcalloc(1, sizeof *b);
		b->prefix = xstrndup(url_prefix, n);
		b->next = h->bearers;
		h->bearers = b;
	} else {
		memset(b->header, 0, strlen(b->header));
		free(b->header);
	}
	buf_addf(&hdr, "Authorization: Bearer %s", key);
	b->header = buf_detach(&hdr, NULL);
}

/* Whether a key is registered for url. */
int
http_has_bearer(const struct http *h, const char *url)
{
	return http_bearer_for(h, url) != NULL;
}

/* Configure and add an easy handle. */
struct http_req *
http_start(struct http *h, const struct http_opts *o, const struct http_cb *cb, void *arg,
	   struct err *e)
{
	struct http_req *r = xcalloc(1, sizeof *r);
	const char *const *hv;
	const struct http_bearer *b;
	int own_auth = 0;

	r->h = h;
	r->cb = *cb;
	r->arg = arg;
	buf_init(&r->resp_headers, 0);
	buf_init(&r->collected, 0);
	r->easy = curl_easy_init();
	if (!r->easy) {
		free(r);
		err_set(e, "create curl handle failed");
		return NULL;
	}
	curl_easy_setopt(r->easy, CURLOPT_URL, o->url);
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(r->easy, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_USERAGENT, "hearth/" HEARTH_VERSION);
	curl_easy_setopt(r->easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(r->easy, CURLOPT_ACCEPT_ENCODING, "");
	if (o->timeout_ms > 0)
		curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	if (o->connect_timeout_ms > 0)
		curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	for (hv = o->headers; hv && *hv; hv++) {
		r->hdrs = curl_slist_append(r->hdrs, *hv);
		if (!strncasecmp(*hv, "Authorization:", 14))
			own_auth = 1;
	}
	if (!own_auth && (b = http_bearer_for(h, o->url)) != NULL)
		r->hdrs = curl_slist_append(r->hdrs, b->header);
	if (o->method && strcmp(o->method, "POST") == 0) {
		r->body = xstrndup(o->body ? o->body : "", o->body ? o->body_len : 0);
		curl_easy_setopt(r->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(o->body ? o->body_len : 0));
		r->hdrs = curl_slist_append(r->hdrs, "Expect:");
	} else if (o->method && strcmp(o->method, "GET") != 0) {
		curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST, o->method);
	}
	if (r->hdrs)
		curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->hdrs);
	r->next = h->reqs;
	if (h->reqs)
		h->reqs->prev = r;
	h->reqs = r;
	if (curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) {
		http_req_free(r);
		err_set(e, "start request to %s failed", o->url);
		return NULL;
	}
	return r;
}

/* Abort now, or mark for the sweep when curl is on the stack. */
void
http_cancel(struct http_req *r)
{
	if (!r)
		return;
	r->cancelled = 1;
	if (!r->h->in_curl && !r->delivering)
		http_req_free(r);
}

/* Response status (0 until known). */
int
http_status(struct http_req *r)
{
	http_note_status(r);
	return r->status;
}

/* Find a header value in the last response's header block. */
const char *
http_header(struct http_req *r, const char *name)
{
	static char value[512];
	size_t nl = strlen(name);
	const char *p = r->resp_headers.data;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
			const char *v = p + nl + 1;
			size_t vl = len - nl - 1;

			while (vl && (*v == ' ' || *v == '\t'))
				v++, vl--;
			while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
				vl--;
			if (vl >= sizeof value)
				vl = sizeof value - 1;
			memcpy(value, v, vl);
			value[vl] = '\0';
			return value;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

/* http_fetch: collect the body (bounded to 16 MB). */
static int
http_fetch_data(struct http_req *r, const char *data, size_t n, void *arg)
{
	(void)arg;
	if (r->collected.len + n > (16u << 20))
		return 0; /* keep what we have; a discovery body is never this big */
	buf_add(&r->collected, data, n);
	return 0;
}

/* http_fetch: hand the collected body over. */
static void
http_fetch_finish(struct http_req *r, int status, enum http_fail fail, const struct err *e,
		  void *arg)
{
	(void)arg;
	r->fetch_done(status, fail, e, &r->collected, r->fetch_arg);
}

/* Start a request whose body is delivered whole. */
struct http_req *
http_fetch(struct http *h, const struct http_opts *o, http_fetch_fn done, void *arg,
	   struct err *e)
{
	static const struct http_cb cb = { http_fetch_data, http_fetch_finish, NULL };
	struct http_req *r = http_start(h, o, &cb, NULL, e);

	if (r) {
		r->fetch_done = done;
		r->fetch_arg = arg;
	}
	return r;
}

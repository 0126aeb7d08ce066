/*
 * io/http: HTTP requests driven by libcurl's multi interface inside our loop
 * (design.md §5; curl's ephiperfifo.c pattern).  No threads, no blocking:
 * curl's socket callback becomes loop fd watches, its timer callback one
 * loop timer.
 *
 * A request streams: on_data receives body bytes as they arrive (for any
 * status; check http_status() first), then on_done runs exactly once with
 * the final status and, for transport failures, an error.  After on_done
 * returns the request is freed.  http_cancel() frees a request without
 * calling on_done; it is safe to call from inside on_data or on_done.
 */
#ifndef HEARTH_IO_HTTP_H
#define HEARTH_IO_HTTP_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

struct loop;
struct http;
struct http_req;

enum http_fail {
	HTTP_OK,           /* transport fine (the status may still be an error) */
	HTTP_FAIL_CONNECT, /* refused, unreachable, DNS */
	HTTP_FAIL_TIMEOUT,
	HTTP_FAIL_OTHER    /* dropped mid-transfer, TLS, ... */
};

struct http_opts {
	const char *method;           /* "GET" (default when NULL) or "POST" */
	const char *url;
	const char *body;             /* POST body, may be NULL */
	size_t body_len;
	const char *const *headers;   /* NULL-terminated "Name: value" list, may be NULL */
	long timeout_ms;              /* whole transfer; 0 = none */
	long connect_timeout_ms;      /* 0 = curl default */
};

struct http_cb {
	/* Body bytes; return 0 to continue, non-zero to cancel (no on_done). */
	int (*on_data)(struct http_req *r, const char *data, size_t n, void *arg);
	/* End of the request: status 0 when no response; fail says why. */
	void (*on_done)(struct http_req *r, int status, enum http_fail fail, const struct err *e,
			void *arg);
	/* Optional (may be NULL): the final response's headers are complete (status >= 200),
	 * before any body byte; a stream's idle timer starts here.  Must not cancel r. */
	void (*on_headers)(struct http_req *r, int status, void *arg);
};

/* A client bound to loop l.  curl is initialised on first use. */
struct http *http_new(struct loop *l, struct err *e);
/* Cancel all requests (no callbacks) and free.  NULL ok. */
void http_free(struct http *h);
/* Start a request; NULL + e only if curl refuses the handle. */
struct http_req *http_start(struct http *h, const struct http_opts *o, const struct http_cb *cb,
			    void *arg, struct err *e);
/* Abort and free a request without calling on_done. */
void http_cancel(struct http_req *r);
/*
 * Send "Authorization: Bearer KEY" with every later request whose URL is
 * url_prefix or continues it with '/', '?' or '#' (a server's base URL),
 * unless the request gives its own Authorization header.  Copied; a second
 * call for the same prefix replaces the key.  The copies are wiped on
 * http_free.
 */
void http_set_bearer(struct http *h, const char *url_prefix, const char *key);
/* Whether a Bearer key is registered for url (see http_set_bearer). */
int http_has_bearer(const struct http *h, const char *url);
/* The response status once headers have arrived (0 before). */
int http_status(struct http_req *r);
/* The value of a response header (case-insensitive), or NULL. */
const char *http_header(struct http_req *r, const char *name);

/*
 * Convenience for small JSON endpoints: the whole body is collected into
 * a buf and handed to done (body valid only during the call).
 */
typedef void (*http_fetch_fn)(int status, enum http_fail fail, const struct err *e,
			      const struct buf *body, void *arg);
struct http_req *http_fetch(struct http *h, const struct http_opts *o, http_fetch_fn done,
			    void *arg, struct err *e);

#endif

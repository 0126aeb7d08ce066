/*
 * mcp/http: the MCP transports over HTTP (internal to the mcp modules),
 * on the loop through io/http (curl multi, no blocking).
 *
 * Streamable HTTP ("type": "http"): every message we send is a POST of
 * one JSON-RPC message to the URL with the configured headers, Accept:
 * application/json, text/event-stream, MCP-Protocol-Version, and the
 * Mcp-Session-Id the server gave in its answer to initialize.  The answer
 * is a JSON body (one message or a batch), an event stream (each event's
 * data one message, requests and notifications from the server included),
 * or 202 with nothing.  Once initialized, a GET on the URL listens for
 * messages the server sends on its own (tools/list_changed); a server
 * without that stream (405, or any failure) simply has none.
 *
 * HTTP+SSE ("type": "sse", the older transport): a GET on the URL opens an
 * event stream whose first "endpoint" event names the URL to POST to;
 * answers arrive as "message" events on the stream.  Messages queued
 * before the endpoint is known are sent once it is.
 *
 * Resuming: an answer's event stream that breaks or ends before the
 * answer, once its events carry ids, is resumed with a GET carrying
 * Last-Event-ID; the listening GET is opened again when it ends (both up
 * to 3 attempts in a row that bring nothing).  A request that carried the
 * session id and is answered 404 (or 400 naming the session) means the
 * session is gone: a new one starts (mcp_server_restart).  The session is
 * ended with an HTTP DELETE on /mcp reconnect and at exit (mcp_end).
 *
 * Failure: a connection that fails, a status of 400 or more (the first
 * 200 bytes of the body quoted), a body that is not JSON-RPC, or the SSE
 * stream closing fails the server (mcp_server_fail) like a dead process.
 *
 * Lifetime: requests in flight are tracked per server and cancelled by
 * mcp_http_close (safe from inside their own callbacks).
 */
#ifndef HEARTH_MCP_HTTP_H
#define HEARTH_MCP_HTTP_H

#include "base/buf.h"
#include "mcp/tools.h"

/* Start an http or sse server s (its url and headers set): send initialize (http) or open the stream (sse). */
void mcp_http_start(struct mcp_server *s);
/* Send one JSON-RPC line (a message and "\n") to s. */
void mcp_http_send(struct mcp_server *s, const struct buf *line);
/* The handshake is done: listen for the server's own messages (http). */
void mcp_http_initialized(struct mcp_server *s);
/* Cancel every request of s and forget its session (an ending one's DELETE goes on). */
void mcp_http_close(struct mcp_server *s);
/* End s's session: an HTTP DELETE with its Mcp-Session-Id (Streamable HTTP with a session only). */
void mcp_http_end_session(struct mcp_server *s);
/* Cancel the DELETEs still in flight (mcp_free). */
void mcp_http_ends_free(struct mcp *m);

#endif

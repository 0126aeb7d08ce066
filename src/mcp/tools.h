/*
 * mcp/tools: the tools of MCP servers as tool-registry entries, and the
 * server state mcp/mcp.c and mcp/tools.c share (internal to the two; other
 * modules use mcp/mcp.h).
 *
 * A struct mcp_tool begins with its struct tool, so job->tool leads back
 * to it.  Tool structs are never freed before mcp_free (an agent turn
 * may still hold one after its server died or relisted); `srv` says which
 * server to call and `remote` the name the server knows the tool by.
 */
#ifndef HEARTH_MCP_TOOLS_H
#define HEARTH_MCP_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "mcp/config.h"
#include "mcp/mcp.h"
#include "mcp/wire.h"
#include "llm/tool.h"

struct http;
struct mcp_post;
struct mcp_end;
struct proc;
struct mcp_server;

enum mcp_srv_state { SRV_STARTING, SRV_READY, SRV_DEAD };

/* One prompt of a server (prompts/list): a /command. */
struct mcp_prompt {
	char *name, *description;
	char **args;           /* argument names in order, NULL-terminated */
	unsigned required;     /* bit i: args[i] is required (the first 32) */
};

/* A request in flight. */
struct pend {
	struct pend *next;
	struct mcp_server *srv;
	long id;
	long timer;
	char what[96];         /* "initialize", "tools/list", "tools/call NAME" */
	struct tool_job *job;  /* tools/call: the agent's job; else NULL */
	mcp_prompt_fn pfn;     /* prompts/get: who waits for the text; else NULL */
	void *parg;
	uint64_t t_start;      /* loop time sent (progress extends the wait up to a cap) */
	long nprogress;        /* notifications/progress received for it */
	cJSON *held;           /* a call held (not sent) until a new HTTP session is ready: its arguments */
};

enum mcp_tool_kind {
	MCP_TOOL_CALL,           /* a listed tool: tools/call */
	MCP_TOOL_LIST_RESOURCES, /* the server's resources: resources/list */
	MCP_TOOL_READ_RESOURCE   /* one resource by uri: resources/read */
};

struct mcp_tool {
	struct tool t;         /* first: job->tool points here */
	struct mcp_tool *next; /* every tool ever made (mcp->tools) */
	struct mcp_server *srv;
	enum mcp_tool_kind kind;
	char *remote;
	char *name, *desc, *schema;
};

struct mcp_server {
	struct mcp *m;
	char *name;
	char **argv, **env;    /* how to start it (copied from the config; reconnect) */
	enum mcp_transport transport;
	char *url;             /* http, sse */
	char **headers;        /* http, sse: "Name: value", NULL-terminated */
	char *session_id;      /* http: Mcp-Session-Id from the server (NULL: none yet) */
	char *post_url;        /* sse: where to POST (the stream's endpoint event) */
	struct mcp_post *posts; /* http, sse: requests in flight (mcp/http.c) */
	long http_timer;       /* http, sse: sends outq (and the listening GET) from the loop */
	int want_listen;       /* http: open the listening GET on the next flush */
	char *why;             /* the last failure's line (NULL: none) */
	int starts;            /* times started (1 + reconnects + new sessions) */
	int sessions;          /* new sessions started because the server ended one */
	enum mcp_srv_state state;
	struct proc *proc;
	int in_w, err_r;       /* stdin write end, stderr read end; -1 when closed */
	struct buf outq;       /* bytes not yet written from outpos */
	size_t outpos;
	struct mcp_wire_lines lines;
	struct buf errtail;    /* the last MCP_ERR_TAIL bytes of stderr */
	long next_id;
	struct pend *pends;
	struct mcp_wire_tool *listing; /* tools/list pages so far */
	size_t nlisting;
	int listing_busy, relist, pages;
	struct mcp_tool **reg; /* registered now */
	size_t nreg;
	int has_resources;     /* initialize: capabilities.resources */
	int has_prompts;       /* initialize: capabilities.prompts */
	struct mcp_prompt *prompts; /* prompts/list (has_prompts) */
	size_t nprompts;
	int prompts_busy;      /* a prompts/list in flight */
};

struct mcp {
	struct loop *loop;
	struct http *http;     /* the http and sse servers' client (own; made on first use) */
	char *root;
	int timeout_ms;
	struct mcp_server *servers;
	size_t nservers;
	struct mcp_tool *tools;
	mcp_report_fn report;
	void *report_arg;
	struct buf queued;     /* report lines waiting for a sink */
	struct mcp_end *ends;  /* DELETEs ending sessions, in flight (mcp/http.c) */
	int ending;            /* mcp_end_sessions waits: the last DELETE stops the loop */
};

/* mcp/mcp.c: report one line through m's sink (or keep it until there is one). */
void mcp_report(struct mcp *m, const char *fmt, ...) ERR_PRINTF(2, 3);
/* mcp/mcp.c: give up on s with one line of why (idempotent). */
void mcp_server_fail(struct mcp_server *s, const char *why);
/*
 * mcp/mcp.c: s's HTTP session is gone (why: one line): report it, fail the
 * requests in flight, and start a new session (initialize, the tools
 * listed again).  A session lost before the new one is ready fails s.
 */
void mcp_server_restart(struct mcp_server *s, const char *why);
/* mcp/mcp.c: queue one line for s's stdin. */
void mcp_server_send(struct mcp_server *s, struct buf *line);
/* mcp/mcp.c: send a request (params consumed); its pend, or NULL when s is dead. */
struct pend *mcp_server_request(struct mcp_server *s, const char *method, cJSON *params,
				const char *what);
/* mcp/mcp.c: take p off s's requests in flight and stop its timer (the caller frees p). */
void mcp_server_unlink(struct mcp_server *s, struct pend *p);
/* mcp/mcp.c: cancel a call in flight (notifications/cancelled) and fail its job with msg. */
void mcp_server_cancel(struct mcp_server *s, struct pend *p, const char *reason, const char *msg);
/*
 * mcp/mcp.c: hold a call (job, its arguments copied) while s starts a new
 * HTTP session; mcp_server_release_held sends what is held once s is
 * ready.  Held calls time out, fail and cancel like calls in flight.
 */
void mcp_server_hold(struct mcp_server *s, struct tool_job *job, const cJSON *args, const char *what);
void mcp_server_release_held(struct mcp_server *s);
/* mcp/mcp.c: notifications/progress for request id: the wait starts again (up to the cap). */
void mcp_server_progress(struct mcp_server *s, long id);

/* The name of a tool or prompt command: "mcp__<server>__<name>" (unsafe characters '_', 64 at most). */
void mcp_tools_name(struct buf *b, const char *server, const char *name);
/* mcp/proto.c: free s's prompts. */
void mcp_proto_prompts_free(struct mcp_server *s);

/* Start a call of job's tool with args (what a tool's start does; held calls go through it again). */
void mcp_tools_call(struct tool_job *job, const cJSON *args);
/* Replace s's registered tools with its finished listing (the listing is consumed). */
void mcp_tools_install(struct mcp_server *s);
/* Unregister all of s's tools. */
void mcp_tools_unregister_all(struct mcp_server *s);
/* A tools/call answer for job: its text, then the job ends. */
void mcp_tools_answer(struct mcp_server *s, struct tool_job *job, const struct mcp_wire_msg *msg);
/* Free every tool struct of m. */
void mcp_tools_free_all(struct mcp *m);

#endif

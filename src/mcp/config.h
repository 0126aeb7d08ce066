/*
 * mcp/config: which MCP servers to start, from the `.mcp.json` shape other
 * agents use:
 *
 *   {"mcpServers": {"NAME": {"command": "...", "args": ["..."],
 *                            "env": {"KEY": "value"}}}}
 *
 * read from the user config dir (`$XDG_CONFIG_HOME/hearth/mcp.json`) and
 * then the project (`<root>/.mcp.json`); a project server replaces a
 * user server of the same name.  An entry with "type": "http" (Streamable
 * HTTP) or "sse" (the older HTTP+SSE) names a "url" (http or https) and
 * optional "headers" ({"Authorization": "Bearer ${TOKEN}"}) instead of a
 * command.  `${VAR}` and `${VAR:-default}` in command, args, env, url and
 * header values are expanded from our environment.  An entry with
 * "disabled": true is left out; one of another "type" is left out with a
 * warning.  Invalid JSON is
 * reported as path:line:column; a wrong-typed entry is skipped with a
 * warning; neither stops the session.
 *
 * Ownership: everything in struct mcp_config is malloc'd and freed by
 * mcp_config_release.  argv and env are NULL-terminated ("KEY=value").
 */
#ifndef HEARTH_MCP_CONFIG_H
#define HEARTH_MCP_CONFIG_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define MCP_CONFIG_MAX_SERVERS 32

enum mcp_transport {
	MCP_STDIO,  /* a child process: argv, env */
	MCP_HTTP,   /* "type": "http": Streamable HTTP (POST url) */
	MCP_SSE     /* "type": "sse": the older HTTP+SSE (GET url for events, POST to its endpoint) */
};

struct mcp_config_server {
	char *name;
	char **argv;            /* stdio: NULL-terminated; else NULL */
	char **env;
	char *origin;           /* the file it came from */
	enum mcp_transport transport;
	char *url;              /* http, sse: http:// or https:// URL */
	char **headers;         /* http, sse: NULL-terminated "Name: value" (may be NULL) */
};

struct mcp_config {
	struct mcp_config_server v[MCP_CONFIG_MAX_SERVERS];
	size_t n;
};

/* Merge one file (missing: 0; unreadable or invalid JSON: -1 + e, c unchanged). */
int mcp_config_load_file(struct mcp_config *c, const char *path, struct buf *warnings, struct err *e);
/* Load the user file, then <root>/.mcp.json; problems become lines in warnings. */
void mcp_config_load(struct mcp_config *c, const char *root, struct buf *warnings);
/* Merge a configuration given as text (--mcp-config); origin names it in messages.  0 / -1 + e. */
int mcp_config_load_text(struct mcp_config *c, const char *text, size_t n, const char *origin,
			 struct buf *warnings, struct err *e);
/* Load the user file alone (a project whose .mcp.json is not trusted, perm/trust.h). */
void mcp_config_load_user(struct mcp_config *c, struct buf *warnings);
/* Free everything; c is left empty. */
void mcp_config_release(struct mcp_config *c);

#endif

/*
 * mcpcfg: which MCP servers to start, from the `.mcp.json` shape other
 * agents use:
 *
 *   {"mcpServers": {"NAME": {"command": "...", "args": ["..."],
 *                            "env": {"KEY": "value"}}}}
 *
 * read from the user config dir (`$XDG_CONFIG_HOME/hearth/mcp.json`) and
 * then the project (`<root>/.mcp.json`); a project server replaces a
 * user server of the same name.  `${VAR}` and `${VAR:-default}` in
 * command, args and env values are expanded from our environment.  An
 * entry with "disabled": true is left out; one whose "type" is not
 * "stdio" (http, sse) is left out with a warning.  Invalid JSON is
 * reported as path:line:column; a wrong-typed entry is skipped with a
 * warning; neither stops the session.
 *
 * Ownership: everything in struct mcpcfg is malloc'd and freed by
 * mcpcfg_release.  argv and env are NULL-terminated ("KEY=value").
 */
#ifndef HEARTH_MCPCFG_H
#define HEARTH_MCPCFG_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

#define MCPCFG_MAX_SERVERS 32

struct mcpcfg_server {
	char *name;
	char **argv;
	char **env;
	char *origin; /* the file it came from */
};

struct mcpcfg {
	struct mcpcfg_server v[MCPCFG_MAX_SERVERS];
	size_t n;
};

/* Merge one file (missing: 0; unreadable or invalid JSON: -1 + e, c unchanged). */
int mcpcfg_load_file(struct mcpcfg *c, const char *path, struct buf *warnings, struct err *e);
/* Load the user file, then <root>/.mcp.json; problems become lines in warnings. */
void mcpcfg_load(struct mcpcfg *c, const char *root, struct buf *warnings);
/* Free everything; c is left empty. */
void mcpcfg_release(struct mcpcfg *c);

#endif

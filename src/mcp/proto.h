/*
 * mcpproto: what the MCP client does with each message from a server —
 * the initialize handshake, tools/list pages (nextCursor, at most
 * MCPPROTO_MAX_PAGES), tools/call answers, ping, and
 * notifications/tools/list_changed (list again; once more after a listing
 * in progress).  Internal to the mcp modules (state in mcptool.h).
 */
#ifndef HEARTH_MCPPROTO_H
#define HEARTH_MCPPROTO_H

#include "mcptool.h"
#include "mcpwire.h"

#define MCPPROTO_MAX_PAGES 100

/* Act on one parsed message from server s (s may be failed by it). */
void mcpproto_dispatch(struct mcp_server *s, const struct mcpwire_msg *msg);

#endif

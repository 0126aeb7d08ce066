/*
 * mcp/proto: what the MCP client does with each message from a server —
 * the initialize handshake, tools/list pages (nextCursor, at most
 * MCP_PROTO_MAX_PAGES), tools/call answers, ping, and
 * notifications/tools/list_changed (list again; once more after a listing
 * in progress).  Internal to the mcp modules (state in mcp/tools.h).
 */
#ifndef HEARTH_MCP_PROTO_H
#define HEARTH_MCP_PROTO_H

#include "mcp/tools.h"
#include "mcp/wire.h"

#define MCP_PROTO_MAX_PAGES 100

/* Act on one parsed message from server s (s may be failed by it). */
void mcp_proto_dispatch(struct mcp_server *s, const struct mcp_wire_msg *msg);

#endif

/*
 * mcp/wire: the Model Context Protocol wire format over stdio, pure (no
 * I/O): newline-delimited JSON-RPC 2.0 messages.
 *
 * Framing: mcp_wire_lines collects bytes and hands out complete lines
 * (without the "\n", a trailing "\r" dropped).  A line longer than
 * MCP_WIRE_MAX_LINE is an error, so a server that never sends a newline
 * cannot grow our memory without bound.
 *
 * Messages: mcp_wire_parse classifies one line as a response to one of our
 * requests, an error response, a request from the server, or a
 * notification; anything else (not JSON, not an object, no "jsonrpc":
 * "2.0", both result and error, ...) is -1 with one line saying why.
 * The parsed message owns its cJSON tree; the pointers into it are valid
 * until mcp_wire_msg_free.
 *
 * Builders append one line each ("...\n") to a buf; params/result trees
 * passed in are consumed.
 */
#ifndef HEARTH_MCP_WIRE_H
#define HEARTH_MCP_WIRE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"

#define MCP_WIRE_MAX_LINE (16u << 20) /* 16 MB */
#define MCP_WIRE_PROTOCOL "2025-06-18"
#define MCP_WIRE_MAX_OUTPUT (100u * 1024) /* bytes of a tool result kept for the model */

struct mcp_wire_lines {
	struct buf acc; /* bytes received, acc.data[pos..] not yet handed out */
	size_t pos;
	size_t scan;    /* bytes from pos already known to hold no newline */
};

void mcp_wire_lines_init(struct mcp_wire_lines *lr);
void mcp_wire_lines_release(struct mcp_wire_lines *lr);
/* Append received bytes. */
void mcp_wire_lines_add(struct mcp_wire_lines *lr, const char *data, size_t n);
/*
 * The next complete line: 1 with *line and *len set (valid until the next
 * call), 0 when none is complete yet, -1 + e when the pending line is
 * longer than MCP_WIRE_MAX_LINE.
 */
int mcp_wire_lines_next(struct mcp_wire_lines *lr, const char **line, size_t *len, struct err *e);

enum mcp_wire_kind {
	MCP_WIRE_RESULT,       /* response with "result" */
	MCP_WIRE_ERROR,        /* response with "error" */
	MCP_WIRE_REQUEST,      /* the server asks us (id + method) */
	MCP_WIRE_NOTIFICATION  /* method, no id */
};

struct mcp_wire_msg {
	enum mcp_wire_kind kind;
	long id;              /* responses: the id when it is an integer, else -1 */
	const cJSON *id_raw;  /* requests/responses: the id as sent */
	const char *method;   /* requests and notifications */
	const cJSON *params;  /* may be NULL */
	const cJSON *result;  /* MCP_WIRE_RESULT */
	long err_code;        /* MCP_WIRE_ERROR */
	const char *err_message;
	cJSON *root;          /* owned */
};

/* Parse one line; 0, or -1 + e ("invalid JSON at ..." or what is wrong). */
int mcp_wire_parse(const char *line, size_t n, struct mcp_wire_msg *m, struct err *e);
/* Free the message's tree. */
void mcp_wire_msg_free(struct mcp_wire_msg *m);

/* A request line {"jsonrpc":"2.0","id":id,"method":...,"params":...}; params may be NULL. */
void mcp_wire_request(struct buf *out, long id, const char *method, cJSON *params);
/* A notification line (no id). */
void mcp_wire_notify(struct buf *out, const char *method, cJSON *params);
/* A result line answering the server's request id. */
void mcp_wire_reply(struct buf *out, const cJSON *id, cJSON *result);
/* An error line answering the server's request id. */
void mcp_wire_reply_error(struct buf *out, const cJSON *id, int code, const char *message);
/* The params of "initialize": protocolVersion, capabilities, clientInfo. */
cJSON *mcp_wire_init_params(const char *name, const char *version);
/* The params of notifications/cancelled for our request id. */
cJSON *mcp_wire_cancel_params(long id, const char *reason);

struct mcp_wire_tool {
	char *name;
	char *description; /* "" when the server gave none */
	char *schema;      /* inputSchema as JSON text (an object with "type": "object") */
	int read_only;     /* annotations.readOnlyHint is true */
};

/*
 * Append the tools of one tools/list page to *v (n entries, grown with
 * xrealloc); *cursor = nextCursor (malloc'd) or NULL.  A tool without a
 * usable name or schema is skipped with a line in warnings.  -1 + e when
 * the result has no "tools" array.
 */
int mcp_wire_tools(const cJSON *result, struct mcp_wire_tool **v, size_t *n, char **cursor,
		  struct buf *warnings, struct err *e);
/* Free n tools and the array. */
void mcp_wire_tools_free(struct mcp_wire_tool *v, size_t n);

/*
 * The text a tools/call result gives the model: text items joined by
 * newlines, other content as one bracketed line each ("[image image/png,
 * 2 KB]"), structuredContent when there is no content; capped at
 * MCP_WIRE_MAX_OUTPUT with a note.  *is_error from "isError".  -1 + e
 * when result is not an object.
 */
int mcp_wire_call_text(const cJSON *result, struct buf *out, int *is_error, struct err *e);
/*
 * The text a resources/list result (one line per resource: uri, name,
 * type, description; the next cursor) or a resources/read result (text
 * contents, binary ones as one bracketed line) gives the model, capped
 * like a call's.  -1 + e when it has neither "resources" nor "contents".
 */
int mcp_wire_resources_text(const cJSON *result, struct buf *out, struct err *e);

/*
 * A prompt's arguments (prompts/get) from what the user typed after its
 * command.  Words split on blanks as a shell splits them: "a b" and 'a b'
 * are one word, a backslash outside single quotes takes the next
 * character as it is (inside double quotes only before " and \\).  A word
 * NAME=value whose NAME (unquoted) is one of names sets that argument;
 * the other words fill the arguments not set by name, in order, the last
 * of them taking the words left over (joined by one blank), so
 * "/p New York" gives a one-argument prompt "New York".  The arguments
 * are added to out (an object) as strings.  names is NULL-terminated;
 * bit i of required: names[i] must be given (the first 32).
 *
 * -1 with err set to the end of a sentence that starts with the command
 * ("needs topic", "has an unclosed \" quote", "got tone twice", "takes
 * no arguments"); out may then hold some of the arguments.
 */
int mcp_wire_prompt_args(char *const *names, unsigned required, const char *args, cJSON *out,
			 struct buf *err);

#endif

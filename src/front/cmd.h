/*
 * front/cmd: the one registry of slash commands (`/help`, `/quit`, prompt
 * templates, and what later features add), shared by the line-mode
 * session, the full-screen UI and print mode.
 *
 * A command has a name, an argument synopsis, one line of help, a
 * handler and optional data.  The handler gets the front end's context
 * pointer untouched (the registry knows nothing of screens or agents) and
 * answers with what the front end should do next: nothing more, quit, or
 * submit `out` as the user's message (templates do that).  Names are
 * unique: adding a name that exists replaces nothing and reports it.
 * Commands that come and go (MCP prompts) come from a provider the
 * registry asks after its own (front_cmd_more_fn).
 */
#ifndef HEARTH_FRONT_CMD_H
#define HEARTH_FRONT_CMD_H

#include <stddef.h>

#include "base/buf.h"
#include "base/str.h"

enum cmd_result {
	CMD_ERROR = -1, /* out: one line saying what was wrong */
	CMD_DONE = 0,   /* out: text to show (may be empty) */
	CMD_QUIT,
	CMD_SUBMIT,     /* out: the message to send to the model */
	CMD_PENDING     /* out empty: the command goes on through its front_cmd_ui (front/cmd_ui.h) */
};

struct cmd {
	const char *name; /* without the '/' */
	const char *args; /* synopsis, "" when none */
	const char *help; /* one line */
	enum cmd_result (*run)(void *ctx, const struct cmd *self, const char *args, struct buf *out);
	const void *data; /* for the handler (a template's body, ...) */
};

/*
 * Commands that come and go (an MCP server's prompts, which a server lists
 * and relists while the session runs): after its own commands the registry
 * asks the provider for command i (0, 1, ...).  It fills *c (strings may
 * live in scratch, which it may reset; valid until the next call) and
 * returns 0, or -1 past the last.
 */
typedef int (*front_cmd_more_fn)(void *arg, size_t i, struct cmd *c, struct buf *scratch);

struct front_cmd {
	struct cmd *v; /* sorted by name */
	size_t n, alloc;
	front_cmd_more_fn more; /* NULL: none */
	/* An unknown name: the provider may add why to the error ("; ..."); NULL: nothing. */
	void (*more_hint)(void *arg, const char *name, size_t len, struct buf *out);
	void *more_arg;
};

void front_cmd_init(struct front_cmd *r);
void front_cmd_release(struct front_cmd *r);
/* Add a command (copied; strings borrowed, must outlive r); -1 if the name is taken. */
int front_cmd_add(struct front_cmd *r, const struct cmd *c);
/*
 * Split "/name args" into the name and the rest (leading blanks skipped).
 * Returns 0 when line is not a slash command (does not start with '/',
 * or starts with "//", which escapes a literal slash).
 */
int front_cmd_parse(const char *line, struct str *name, const char **args);
/*
 * Run a command line: unknown names give CMD_ERROR with a message that
 * lists the closest names.
 */
enum cmd_result front_cmd_run(const struct front_cmd *r, void *ctx, const char *line, struct buf *out);
/*
 * Command i: the registry's own in name order, then the provider's (see
 * front_cmd_more_fn); 0 with *c filled (strings valid until the next call
 * with the same scratch), -1 past the last.
 */
int front_cmd_get(const struct front_cmd *r, size_t i, struct cmd *c, struct buf *scratch);
/* Names that start with prefix (without '/'), one per line: the registry's sorted, then the provider's. */
void front_cmd_complete(const struct front_cmd *r, const char *prefix, struct buf *out);
/* "/name args  help" lines for /help (the provider's commands after the registry's). */
void front_cmd_help(const struct front_cmd *r, struct buf *out);

#endif

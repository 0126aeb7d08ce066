/*
 * front/commands: the slash commands every interactive front end offers (the
 * line session and the full screen): /help /quit /exit /clear /new /model
 * /export /reload /fork, the checkpoint commands (/undo /redo /diff) and the
 * prompt templates.  The handlers find their state through cmd.data, so
 * a front end adds its own commands to the same registry and passes any
 * context it likes to front_cmd_run.  /clear and /new tell the front end
 * through on_clear so it can reset its view.
 *
 * Commands that ask (/undo, /redo, /commit) speak through `ui`: after
 * front_commands_init the front end sets ui.changed and ui.arg (and whole_text)
 * and follows the front_cmd_ui contract (front/cmd_ui.h).  /commit drafts with the
 * agent's current provider and conversation.
 *
 * MCP prompts: each prompt the session's MCP servers list now is a command
 * `/mcp__<server>__<prompt> ARGS` (the registry's provider, front/cmd.h, so
 * completion and /help see them).  Running one sends prompts/get (mcp/mcp.h:
 * the arguments, quoting and NAME=value) and answers CMD_PENDING with the
 * ui BUSY; the text arrives on the loop and ends the command with
 * front_cmd_ui_submit (the front end sends it as the user's turn), or with
 * one error line.  Esc / Ctrl-C while it waits drops the answer.
 */
#ifndef HEARTH_FRONT_COMMANDS_H
#define HEARTH_FRONT_COMMANDS_H

#include "base/buf.h"
#include "front/cmd.h"
#include "front/cmd_ui.h"
#include "front/cmd_commit.h"
#include "prompt/context.h"

struct agent;
struct front_session;
struct mcp;
struct toolset;

struct front_commands {
	struct front_cmd reg;
	struct prompt_context_templates templates;
	struct agent *agent;
	const struct front_session *d;
	const char *intro;             /* first line of /help: the front end's keys */
	void (*on_clear)(void *arg);   /* after /clear, /new or /fork; may be NULL */
	void (*on_fork)(void *arg, const char *text); /* /fork: the message to edit; may be NULL */
	void *arg;
	struct front_cmd_ui ui;               /* interactive; the front end sets changed/arg */
	struct front_cmd_commit commit;
	struct front_prompt_wait *prompt; /* an MCP prompt's text awaited (NULL: none) */
};

/* Fill reg with the shared commands; template warnings appended. */
void front_commands_init(struct front_commands *sc, struct agent *agent, const struct front_session *d,
		  const char *intro, struct buf *warnings);
void front_commands_release(struct front_commands *sc);
/*
 * /mcp ARGS into out: with no argument each server's state, command and
 * tools, and how many extension tools are offered and wait in ts (NULL:
 * not said); "reconnect NAME" restarts one.  0 listed, 1 reconnecting,
 * -1 with a usage or error line.
 */
int front_mcp_command(struct mcp *m, const struct toolset *ts, const char *args, struct buf *out);

#endif

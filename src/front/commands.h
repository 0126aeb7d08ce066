/*
 * sesscmd: the slash commands every interactive front end offers (the
 * line session and the full screen): /help /quit /exit /clear /new /model
 * /export /reload /fork, the checkpoint commands (/undo /redo /diff) and the
 * prompt templates.  The handlers find their state through cmd.data, so
 * a front end adds its own commands to the same registry and passes any
 * context it likes to cmdreg_run.  /clear and /new tell the front end
 * through on_clear so it can reset its view.
 *
 * Commands that ask (/undo, /redo, /commit) speak through `ui`: after
 * sesscmd_init the front end sets ui.changed and ui.arg (and whole_text)
 * and follows the cmdui contract (cmdui.h).  /commit drafts with the
 * agent's current provider and conversation.
 */
#ifndef HEARTH_SESSCMD_H
#define HEARTH_SESSCMD_H

#include "buf.h"
#include "cmd.h"
#include "cmdui.h"
#include "commitcmd.h"
#include "ctxfiles.h"

struct agent;
struct repl_deps;

struct sesscmd {
	struct cmdreg reg;
	struct ctxfiles_templates templates;
	struct agent *agent;
	const struct repl_deps *d;
	const char *intro;             /* first line of /help: the front end's keys */
	void (*on_clear)(void *arg);   /* after /clear, /new or /fork; may be NULL */
	void (*on_fork)(void *arg, const char *text); /* /fork: the message to edit; may be NULL */
	void *arg;
	struct cmdui ui;               /* interactive; the front end sets changed/arg */
	struct commitcmd commit;
};

/* Fill reg with the shared commands; template warnings appended. */
void sesscmd_init(struct sesscmd *sc, struct agent *agent, const struct repl_deps *d,
		  const char *intro, struct buf *warnings);
void sesscmd_release(struct sesscmd *sc);

#endif

/*
 * perm/gate: between the agent and each tool call — permissions (perm) and
 * hooks (hooks), plus the question to the user.  One per run.
 *
 * For each call (agent_gate.pre_tool): a deny rule refuses at once; then
 * the pre_tool hooks run (exit 2 refuses, with the hook's stderr as the
 * reason); then a call the rules or the mode want asked about goes to the
 * front end's ask() — unless --yes answers for it, or there is no one to
 * ask (print mode), which refuses it with a message saying how to allow
 * it.  The model is told every refusal and its reason, in the tool result.
 * "Always" adds session rules (perm_always_rules).  post_tool, turn_end
 * and session_start hooks are notifications: the agent does not wait for
 * them; perm_gate_drain waits for them at exit.
 *
 * Settings (docs/permissions.md): "approval", "permissions", "hooks",
 * read from the same files as cfg (user, then project: rules and hooks of
 * both apply, the project's "approval" wins).
 *
 * Ownership: the gate borrows the loop and env; it owns its perm rules,
 * its hooks and the pending question.  Free it after the agent that uses
 * it (perm_gate_free kills hooks still running).
 */
#ifndef HEARTH_PERM_GATE_H
#define HEARTH_PERM_GATE_H

#include "agent/agent.h"
#include "base/buf.h"
#include "base/err.h"
#include "perm/perm.h"
#include "llm/tool.h"

struct loop;
struct session_journal;
struct perm_gate;

struct perm_gate_question {
	const char *tool;   /* tool name */
	const char *title;  /* one line: "bash: make test", "edit src/a.c" */
	const char *detail; /* the tool's preview (struct tool.preview): the command, or the
			     * diff the call would make, computed by the code that makes it;
			     * else why there is none and the arguments as JSON */
	int is_diff;        /* detail is a unified diff */
	const char *why;    /* why it asks */
	const char *always; /* the session rules "always" adds, one per line */
};

enum perm_gate_answer { PERM_GATE_NO, PERM_GATE_YES, PERM_GATE_ALWAYS };

/* What a front end provides; every member may be NULL. */
struct perm_gate_ui {
	void *arg;
	/* Show q (its strings live until the answer); answer with perm_gate_answer. */
	void (*ask)(void *arg, const struct perm_gate_question *q);
	/* The pending question was withdrawn (the turn was aborted). */
	void (*withdraw)(void *arg);
	/* A one-line notice: a refused call, a hook that failed. */
	void (*notice)(void *arg, const char *line);
};

/*
 * A gate for workspace env->root with the settings files' rules and hooks
 * (warnings appended).  trusted 0: of the project's settings file only
 * what narrows rights applies (deny and ask rules, a stricter approval);
 * its allow rules, hooks and a more permissive approval need the user's
 * trust (perm/trust.h).
 */
struct perm_gate *perm_gate_new(struct loop *l, const struct tool_env *env, int trusted, struct buf *warnings);
/* NULL ok. */
void perm_gate_free(struct perm_gate *g);
/* Who answers questions (a copy is kept); NULL: nobody (print mode). */
void perm_gate_set_ui(struct perm_gate *g, const struct perm_gate_ui *ui);
/* "ask" | "auto-edit" | "yolo"; -1 + e otherwise. */
int perm_gate_set_mode(struct perm_gate *g, const char *mode, struct err *e);
/* --yes: questions are answered yes (deny rules and hooks still refuse). */
void perm_gate_set_yes(struct perm_gate *g, int yes);
/* Where the session id for hook events comes from (may be NULL). */
void perm_gate_set_journal(struct perm_gate *g, const struct session_journal *j);
/* The callbacks for agent_opts.gate. */
struct agent_gate perm_gate_agent(struct perm_gate *g);
/* The user's answer to the pending question (ignored when none is pending). */
void perm_gate_answer(struct perm_gate *g, enum perm_gate_answer a);
/* Whether a question is waiting for its answer. */
int perm_gate_asking(const struct perm_gate *g);
/* Run the session_start hooks (mode "print" or "interactive"). */
void perm_gate_session_start(struct perm_gate *g, const char *mode, int resumed);
/*
 * At exit: run the loop until notification hooks have finished (each is
 * bounded by its timeout; a loop_stop, e.g. on SIGINT, ends it sooner).
 * Replaces the loop's before-sleep hook and leaves none.  NULL ok.
 */
void perm_gate_drain(struct perm_gate *g);
/* The perm state: its mode and rules (for /approval, front/commands.c, and tests). */
struct perm *perm_gate_perm(struct perm_gate *g);

#endif

/*
 * gate: between the agent and each tool call — permissions (perm) and
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
 * them; gate_drain waits for them at exit.
 *
 * Settings (docs/permissions.md): "approval", "permissions", "hooks",
 * read from the same files as cfg (user, then project: rules and hooks of
 * both apply, the project's "approval" wins).
 *
 * Ownership: the gate borrows the loop and env; it owns its perm rules,
 * its hooks and the pending question.  Free it after the agent that uses
 * it (gate_free kills hooks still running).
 */
#ifndef HEARTH_GATE_H
#define HEARTH_GATE_H

#include "agent.h"
#include "buf.h"
#include "cmd.h"
#include "err.h"
#include "perm.h"
#include "tool.h"

struct loop;
struct journal;
struct gate;

struct gate_question {
	const char *tool;   /* tool name */
	const char *title;  /* one line: "bash: make test", "edit src/a.c" */
	const char *detail; /* the command, or the diff the call would make ("" = none) */
	const char *why;    /* why it asks */
	const char *always; /* the session rules "always" adds, one per line */
};

enum gate_answer { GATE_NO, GATE_YES, GATE_ALWAYS };

/* What a front end provides; every member may be NULL. */
struct gate_ui {
	void *arg;
	/* Show q (its strings live until the answer); answer with gate_answer. */
	void (*ask)(void *arg, const struct gate_question *q);
	/* The pending question was withdrawn (the turn was aborted). */
	void (*withdraw)(void *arg);
	/* A one-line notice: a refused call, a hook that failed. */
	void (*notice)(void *arg, const char *line);
};

/* A gate for workspace env->root with the settings files' rules and hooks (warnings appended). */
struct gate *gate_new(struct loop *l, const struct tool_env *env, struct buf *warnings);
void gate_free(struct gate *g);
/* Who answers questions (a copy is kept); NULL: nobody (print mode). */
void gate_set_ui(struct gate *g, const struct gate_ui *ui);
/* "ask" | "auto-edit" | "yolo"; -1 + e otherwise. */
int gate_set_mode(struct gate *g, const char *mode, struct err *e);
/* --yes: questions are answered yes (deny rules and hooks still refuse). */
void gate_set_yes(struct gate *g, int yes);
/* Where the session id for hook events comes from (may be NULL). */
void gate_set_journal(struct gate *g, const struct journal *j);
/* The callbacks for agent_opts.gate. */
struct agent_gate gate_agent(struct gate *g);
/* The user's answer to the pending question (ignored when none is pending). */
void gate_answer(struct gate *g, enum gate_answer a);
/* Whether a question is waiting for its answer. */
int gate_asking(const struct gate *g);
/* Run the session_start hooks (mode "print" or "interactive"). */
void gate_session_start(struct gate *g, const char *mode, int resumed);
/*
 * At exit: run the loop until notification hooks have finished (each is
 * bounded by its timeout; a loop_stop, e.g. on SIGINT, ends it sooner).
 * Replaces the loop's before-sleep hook and leaves none.
 */
void gate_drain(struct gate *g);
/* Register /approval [mode] (g must outlive reg). */
void gate_commands(struct cmdreg *reg, struct gate *g);
/* The perm state (for tests and /approval). */
struct perm *gate_perm(struct gate *g);

#endif

/*
 * replint: the line session's state, shared by its parts.  PRIVATE to
 * repl.c and replobs.c: nothing else includes it (the public contract is
 * repl.h).
 *
 * repl.c owns the session (discovery, stdin, commands, the gate's
 * questions, the prompt); replobs.c the agent observer that writes the
 * turn's output.  Both work on one struct repl, which lives on repl_run's
 * stack for the whole session.
 *
 * Invariants: at_line_start says whether the last byte written ended a
 * line; ncarry <= 3 (an incomplete UTF-8 sequence held back).
 */
#ifndef HEARTH_REPLINT_H
#define HEARTH_REPLINT_H

#include <stddef.h>

#include "agent.h"
#include "buf.h"
#include "repl.h"
#include "sesscmd.h"

enum repl_state { RS_PROBING, RS_PROMPT, RS_TURN, RS_CMD, RS_QUIT };

struct repl {
	const struct repl_deps *d;
	struct agent *agent;
	enum repl_state state;
	struct buf line;
	char carry[4];
	size_t ncarry;
	int at_line_start;
	int asking;   /* the gate's question waits for a line */
	int told_first_run;
	long retry_timer;
	struct sesscmd cmds;
	int eof;      /* stdin ended: quit when the lines read so far are done */
	int draining; /* inside repl_drain */
	int booted;   /* the session prompt is in the agent (repl_boot) */
	int server_down; /* discovery failed and Claude may take turns meanwhile (server_down rule) */
};

/* repl.c */
/* Write bytes to the output fd (best effort). */
void repl_out(struct repl *r, const char *s, size_t n);
/* Write a sanitised line, starting on a fresh line. */
void repl_say(struct repl *r, const char *s);
/* Show the prompt and listen to stdin. */
void repl_prompt(struct repl *r);

/* replobs.c */
/* Streamed text: hold back an incomplete UTF-8 tail until the next delta. */
void replobs_text(struct repl *r, const char *s, size_t n);
/* The agent observer (arg: the repl): stream events. */
void replobs_on_event(void *arg, const struct llm_event *ev);
/* A tool call starts. */
void replobs_on_tool_start(void *arg, const struct agent_call *c);
/* A tool call finished: its first line, and its diff. */
void replobs_on_tool_done(void *arg, const struct agent_call *c);
/* A one-line notice (also the gate's and the MCP servers' reports). */
void replobs_on_notice(void *arg, const char *line);
/* The turn ended: tell the router, report a failure, prompt again. */
void replobs_on_end(void *arg, enum agent_end end, const char *message);

#endif

/*
 * front/line-int: the line session's state, shared by its parts.  PRIVATE to
 * front/line.c and front/line_view.c: nothing else includes it (the public contract is
 * front/line.h).
 *
 * front/line.c owns the session (discovery, stdin, commands, the gate's
 * questions, the prompt); front/line_view.c the view of the turn controller
 * (front/turn.h) that writes the turn's output.  Both work on one struct
 * front_line, which lives on front_line_run's stack for the whole session.
 *
 * Invariants: at_line_start says whether the last byte written ended a
 * line; ncarry <= 3 (an incomplete UTF-8 sequence held back).
 */
#ifndef HEARTH_FRONT_LINE_INT_H
#define HEARTH_FRONT_LINE_INT_H

#include <stddef.h>

#include "agent/agent.h"
#include "base/buf.h"
#include "front/line.h"
#include "front/commands.h"
#include "front/turn.h"

enum front_line_state { RS_PROBING, RS_PROMPT, RS_TURN, RS_CMD, RS_QUIT };

struct front_line {
	const struct front_session *d;
	struct front_turn turn; /* the agent and its turns */
	enum front_line_state state;
	struct buf line;
	char carry[4];
	size_t ncarry;
	int at_line_start;
	int asking;   /* the gate's question waits for a line */
	int told_first_run;
	long retry_timer;
	struct front_commands cmds;
	int eof;      /* stdin ended: quit when the lines read so far are done */
	int draining; /* inside front_line_drain */
	int booted;   /* the session prompt is in the agent (front_line_boot) */
	int server_down; /* discovery failed and Claude may take turns meanwhile (server_down rule) */
	int skipped;     /* discovery failed and another tier takes the turns meanwhile (route/ladder.h) */
	int wait_lines;  /* countdown lines of the wait going on (one in 30 is shown) */
	long mcp_timer;  /* a /mcp__ line waits for the MCP servers to list their prompts */
	int told_mcp_wait;
};

/* front/line.c */
/* Write bytes to the output fd (best effort). */
void front_line_out(struct front_line *r, const char *s, size_t n);
/* Write a sanitised line, starting on a fresh line. */
void front_line_say(struct front_line *r, const char *s);
/* Show the prompt and listen to stdin. */
void front_line_prompt(struct front_line *r);

/* front/line_view.c */
/* Streamed text: hold back an incomplete UTF-8 tail until the next delta. */
void front_line_view_text(struct front_line *r, const char *s, size_t n);
/* The turn controller's view (arg: the line session): stream events. */
void front_line_view_on_event(void *arg, const struct llm_event *ev);
/* A tool call starts. */
void front_line_view_on_tool_start(void *arg, const struct agent_call *c);
/* A countdown (a loading model): the first line and one in 30 after it; NULL: over. */
void front_line_view_on_wait(void *arg, const char *line);
/* A tool call finished: its first line, and its diff. */
void front_line_view_on_tool_done(void *arg, const struct agent_call *c);
/* A one-line notice (also the gate's and the MCP servers' reports). */
void front_line_view_on_notice(void *arg, const char *line);
/* The controller's own lines: routing, attachments, a turn that did not start. */
void front_line_view_say(void *arg, enum front_turn_say kind, const char *text);
/* A resumed session's messages: its line. */
void front_line_view_on_resumed(void *arg, const struct conv *msgs, const char *line);
/* The turn ended (the router has recorded it): report a failure, prompt again. */
void front_line_view_on_end(void *arg, enum agent_end end, const char *message);

#endif

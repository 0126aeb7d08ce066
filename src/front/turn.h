/*
 * front/turn: the turn controller every front end runs its turns through
 * — the full screen (ui/app/turn.c), the line session (front/line.c) and
 * print mode (front/print.c).
 *
 * It owns the session's agent, wired the same way for all three (the
 * cfg's agent options, the tools, the gate, checkpoint hooks, the
 * journal, the system prompt and a resumed session's messages), and
 * runs a turn of the user's text in one order:
 *
 *   route   route_escalate: local or Claude (a leading "@claude", /claude,
 *           the policy's rules; server_down when the local server is away);
 *           its line for the user is said as FRONT_TURN_SAY_ROUTE;
 *   attach  front_attach_expand of the `@path` references (redacted when
 *           the turn goes to Claude); the lines "attached x (1 KB)" and
 *           the refusals are said as one FRONT_TURN_SAY_ATTACH block — a
 *           refused file does not stop the turn, it is sent without it;
 *   submit  agent_submit; when the agent refuses (a turn already running)
 *           its one-line message is said as FRONT_TURN_SAY_ERROR and the
 *           turn does not start;
 *   observe the agent's observer events go to the view's callbacks as
 *           they come; when a routed turn ends the router records its
 *           outcome (route_escalate_end) before the view's on_end.
 *
 * What a front end shows, and how, is its own: struct front_turn_view is
 * the small callback interface it implements (every callback optional).
 * Print mode routes before discovery, so it decides the provider itself
 * (route_escalate_turn / _server_down), creates the controller on it and
 * uses front_turn_submit; the sessions use front_turn_send.
 *
 * Lifetime: the session (front/session.h) and the view's arg are borrowed
 * and outlive the controller; the agent is the controller's, freed by
 * front_turn_release.  Everything runs on the session's loop.
 */
#ifndef HEARTH_FRONT_TURN_H
#define HEARTH_FRONT_TURN_H

#include "agent/agent.h"
#include "front/session.h"

struct provider;
struct conv;

/* What the controller itself has to say (the view picks colour or stream). */
enum front_turn_say {
	FRONT_TURN_SAY_ROUTE,  /* where the turn went, or why it could not go to Claude */
	FRONT_TURN_SAY_ATTACH, /* one line per @path attached or refused (no trailing newline) */
	FRONT_TURN_SAY_ERROR,  /* the turn did not start: the agent's one-line reason */
};

struct front_turn_view {
	void *arg;
	/* The agent's observer events, passed on as they come (agent/agent.h). */
	void (*on_event)(void *arg, const struct llm_event *ev);
	void (*on_message)(void *arg, const struct conv_msg *m);
	void (*on_tool_start)(void *arg, const struct agent_call *c);
	void (*on_tool_done)(void *arg, const struct agent_call *c);
	void (*on_tool_output)(void *arg, const struct agent_call *c);
	void (*on_notice)(void *arg, const char *line);
	void (*on_wait)(void *arg, const char *line); /* a countdown each second; NULL: over */
	void (*on_end)(void *arg, enum agent_end end, const char *message);
	/* A line (or block of lines) of the controller's own. */
	void (*say)(void *arg, enum front_turn_say kind, const char *text);
	/* The turn goes ahead with text as the user's message (routed, before attach). */
	void (*on_user)(void *arg, const char *text);
	/*
	 * A resumed session's messages, before they move into the agent
	 * (front_turn_init), and the line announcing them.
	 */
	void (*on_resumed)(void *arg, const struct conv *msgs, const char *line);
	/*
	 * The running turn was taken out of the conversation (the server
	 * rejected it as too long for its context: agent/agent.h on_rewind);
	 * its user message is not sent again.  why is one line.
	 */
	void (*on_rejected)(void *arg, const char *why);
};

struct front_turn {
	const struct front_session *s;
	struct front_turn_view v;
	struct agent *agent;     /* owned; the front ends borrow it (commands, abort) */
	struct provider *local;  /* s->local, or the llama-server's provider */
	int routed;              /* the running turn was routed by front_turn_send */
	long tok_in, tok_out;    /* the agent's token totals at the last turn's end (the journal's usage) */
};

enum front_turn_rc {
	FRONT_TURN_STARTED, /* the agent runs the turn; the view hears its end */
	FRONT_TURN_FAILED,  /* not started: said as FRONT_TURN_SAY_ERROR */
	FRONT_TURN_WAIT,    /* server down and Claude may not take it: nothing sent */
};

/*
 * Create the agent on provider p (NULL: the local one) with the session's
 * wiring and the view v (copied); a resumed session's messages are
 * announced (v->on_resumed) and moved into it.
 */
void front_turn_init(struct front_turn *t, const struct front_session *s, struct provider *p,
    const struct front_turn_view *v);
/* Free the agent (a running turn is abandoned without on_end); t may be zeroed. */
void front_turn_release(struct front_turn *t);
/*
 * An interactive turn: route text (with the server_down rule when
 * server_down is set: FRONT_TURN_WAIT when it keeps the turn local), then
 * front_turn_submit.  The session's prompt is the caller's to have set.
 */
enum front_turn_rc front_turn_send(struct front_turn *t, const char *text, int server_down);
/* Attach text's @paths and submit it on the agent's current provider (already routed). */
enum front_turn_rc front_turn_submit(struct front_turn *t, const char *text);

#endif

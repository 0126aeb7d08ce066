/*
 * agent/agent-int: the turn loop's state, shared by its parts.  PRIVATE to the
 * agent*.c files: nothing else includes it (the public contract is agent/agent.h).
 *
 * agent/agent.c owns the lifetime (new, free), the turn (submit, steps, end,
 * abort) and the assistant message; agent/stream.c the provider's events
 * (the sink, the text gate, recovery of calls written as text, and the
 * error / retry / parse-failure policy); agent/tools.c running a step's
 * tool calls (checks, the gate, the explore cutoff, the checkpoint before
 * the first change).  Compaction before a turn and /compact are in agent.c
 * (the summary request itself is agent/compact.c, which needs no agent).
 *
 * States: IDLE → STREAMING (a provider request is in flight; the step's
 * text, reasoning and tool calls accumulate) → TOOLS (calls run one after
 * another; synchronous tools finish inside start(), so running them is a
 * trampoline, never recursion) → STREAMING for the next step, or IDLE
 * when the turn ends.  Step completion is deferred to a zero-delay timer
 * so that the provider's callbacks have returned before the next request
 * starts.
 *
 * Invariants: `timer` is 0 when no continuation is pending; calls[i] has
 * provider index call_index[i] (negative for calls recovered from text);
 * calls before next_call have finished; gate_args is set exactly while
 * gate_wait is, change_args while change_wait is; `committed` <= conv.nmsgs after agent_sync.
 */
#ifndef HEARTH_AGENT_AGENT_INT_H
#define HEARTH_AGENT_AGENT_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "base/buf.h"
#include "agent/repair.h"
#include "llm/conv.h"
#include "agent/cutoff.h"
#include "llm/event.h"
#include "llm/textcall_gate.h"

struct agent_compact_run;

enum agent_state { ST_IDLE, ST_STREAMING, ST_TOOLS };

struct agent {
	struct loop *loop;
	struct provider *prov;
	const struct tool_env *env;
	struct agent_opts opts;
	struct agent_observer obs;
	struct conv conv;
	struct agent_stats stats;
	enum agent_state state;
	int turn_steps;
	size_t turn_first;      /* conv index of the running turn's user message */
	/* current step */
	struct buf text, reasoning;
	struct agent_call *calls;
	size_t ncalls, acalls;
	int *call_index; /* provider index of each call */
	char *stop_reason;
	int parse_retried;
	int step_failures;
	size_t next_call;
	int running_tools; /* trampoline guard */
	cJSON *gate_args;  /* the current call's arguments while the gate decides */
	int gate_wait;     /* pre_tool asked, no answer yet */
	cJSON *change_args; /* the current call's arguments while the checkpoint is taken */
	int change_wait;   /* before_change called, agent_change_ready not yet */
	long timer;
	uint64_t loading_since_ms; /* the turn's first "Loading model" answer (0: none yet) */
	int waiting;               /* on_wait was told a wait that is not over */
	unsigned long call_seq;
	struct buf err_msg;
	struct textcall_gate gate;   /* what of the streamed text may be shown live */
	struct buf shown;       /* scratch for gated text */
	struct buf planned;     /* why the next request's prefix changes on purpose ("" = it does not) */
	struct agent_compact_run *compacting; /* a summary request in flight (before the turn's text) */
	int compact_pending;    /* /compact asked for one */
	char *compact_focus;
	char *compact_text;     /* the turn's text, sent once compaction ended */
	int retries;            /* transient-error retries of the current step */
	int parse_fail_streak;  /* steps in a row whose tool call could not be parsed */
	struct agent_repair_tools tools; /* the enabled tools, for recovery and checks */
	const struct tool **toolv;  /* opts.tools + extension tools, fixed for a turn */
	size_t overflow_noted;      /* toolset overflow + dropped last said in a notice */
	size_t committed;       /* messages already passed to on_commit */
	int changed;            /* before_change ran this turn */
	struct agent_cutoff cut;      /* explore→produce cutoff */
	int think_next, turn_think; /* thinking for the next / this turn only */
	agent_step_fn step_fn;  /* the router between steps (agent_set_step_hook) */
	void *step_arg;
	enum llm_err_kind err_kind; /* of the error that ends the step */
};

#define AGENT_MAX_RETRIES 2
#define AGENT_MAX_PARSE_STREAK 3

/* agent/agent.c */
/* Tell the observer a one-line notice. */
void agent_notice(struct agent *a, const char *line);
/* agent.c: report every complete message not reported yet (on_commit). */
void agent_sync(struct agent *a);
/* stream.c: take a turn the server rejected as too long out of the conv (on_rewind). */
void agent_drop_turn(struct agent *a);
/* Tell the observer a wait (agent/stream.c's loading wait) is over; no-op when none is on. */
void agent_wait_over(struct agent *a);
/* Ask the step hook; 1 = go on with another step. */
int agent_hook(struct agent *a, enum agent_step_why why);
/* End the turn (back to IDLE) and report to the gate and the observer. */
void agent_end(struct agent *a, enum agent_end end, const char *message);
/* Reset the step's calls, text, reasoning and stop reason. */
void agent_clear_step(struct agent *a);
/* Append the step's assistant message to the conv (told to the observer if notify). */
void agent_commit_message(struct agent *a, int aborted, int notify);
/* The usual case: append and tell the observer. */
void agent_commit_assistant(struct agent *a, int aborted);
/* Start one model request (a step), unless the step budget is spent. */
void agent_start_step(struct agent *a);

/* agent/stream.c */
/* The provider sink (ctx is the agent): accumulate the step and forward to the observer. */
void agent_stream_sink(void *ctx, const struct llm_event *ev);

/* agent/tools.c */
/* The turn's tools: the enabled built-ins, then the extension tools registered now (MCP). */
void agent_tools_refresh(struct agent *a);
/* Run the step's calls in order (state TOOLS); the next step starts when all finished. */
void agent_tools_run(struct agent *a);
/* Abort in state TOOLS: withdraw the gate's question, cancel the running
 * call, and append every call's result (unrun ones say so) as an aborted
 * user message.  The caller ends the turn. */
void agent_tools_abort(struct agent *a);

#endif

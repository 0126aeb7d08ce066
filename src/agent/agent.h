/*
 * agent/agent: the turn loop (design.md §2, §4).
 *
 * A turn: the user's text is appended to the conv; then steps repeat —
 * stream a model request built from system prompt + conv + tool schemas,
 * append the assistant message, run its tool calls in order, append their
 * results — until the model answers without tool calls, the step limit is
 * reached, an error ends the turn, or the user aborts.  Everything runs on
 * the loop; agent_submit returns at once and the observer hears the rest.
 *
 * Imperfect local models: tool calls written as text are recovered
 * (textcall); a server-side tool-call parse error is recovered from the
 * text received, else retried once, else reported to the model; invalid
 * arguments go back to the model as a tool error naming the problem and
 * the schema.  Such failures are counted (agent_stats) for the router.
 *
 * Ownership: the agent borrows the loop, provider, tool env and tools;
 * it owns its conv.
 */
#ifndef HEARTH_AGENT_AGENT_H
#define HEARTH_AGENT_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/err.h"
#include "llm/event.h"
#include "agent/microcompact.h"
#include "llm/tool.h"

struct cfg;
struct loop;
struct provider;

enum agent_end {
	AGENT_END_OK,
	AGENT_END_MAX_STEPS,
	AGENT_END_ERROR,
	AGENT_END_ABORTED
};

/* One tool call of the current step, as the observer sees it. */
struct agent_call {
	char *id;
	char *name;
	struct buf args;          /* JSON text as the model sent it */
	const struct tool *tool;  /* NULL when unknown */
	struct tool_job job;      /* job.out / job.is_error once finished */
	int started, finished;
	int invalid;              /* rejected before running (bad JSON, schema, unknown) */
	int refused;              /* the gate refused it (permissions, a hook) */
	uint64_t t_start_ms, t_end_ms;
};

struct agent_stats {
	int steps;                     /* model steps this session (a retry is the same step) */
	int requests;                  /* model requests, retries included */
	int tool_calls;
	int tool_failures;             /* parse/validation failures this session */
	int consecutive_tool_failures; /* in consecutive steps */
	long prompt_tokens, completion_tokens, cached_tokens;
	long cache_write_tokens;       /* Anthropic cache_creation_input_tokens */
	struct llm_timings last_timings;
	int have_timings;
	struct llm_usage last_usage;   /* the last request's usage: the context fill of a server without timings */
	int have_usage;
	double prompt_ms, predicted_ms; /* summed over requests */
	struct agent_microcompact_stats mc;   /* old tool results digested */
	int think_turns;               /* turns that ran with thinking on for that turn only */
	int explore_cutoffs;           /* times the explore→produce cutoff engaged (agent/cutoff.h) */
	long schema_tokens_saved;      /* estimated tool-schema tokens not sent per request (llm/toolset.h) */
	int tools_loaded;              /* deferred tools loaded by tool_search */
};

struct agent_observer {
	void *arg;
	/* Every stream event as it arrives (text deltas, progress, timings...). */
	void (*on_event)(void *arg, const struct llm_event *ev);
	/* An assistant message was appended (text, reasoning, tool calls). */
	void (*on_message)(void *arg, const struct conv_msg *m);
	void (*on_tool_start)(void *arg, const struct agent_call *c);
	void (*on_tool_done)(void *arg, const struct agent_call *c);
	/* A started call begins to run (after its approval; c->t_start_ms is
	 * reset to now) or wrote output (c->job.live: its tail, secrets masked). */
	void (*on_tool_output)(void *arg, const struct agent_call *c);
	/* A one-line notice: retrying, recovered a tool call from text, ... */
	void (*on_notice)(void *arg, const char *line);
	/*
	 * A passing status while the agent waits for the server: once a second
	 * while a loading model is waited out ("llama-server is loading the
	 * model · 4:58 left"), then NULL when the wait is over (any way).
	 */
	void (*on_wait)(void *arg, const char *line);
	/*
	 * A message is complete and will not change (user task, assistant
	 * message, tool results, notes): each message exactly once, in
	 * order, for journaling.  Also called for messages the caller put in
	 * the conv itself (a resumed session), unless agent_mark_committed.
	 */
	void (*on_commit)(void *commit_arg, const struct conv_msg *m);
	void *commit_arg; /* on_commit has its own argument: the journal is not the display */
	/*
	 * The last n committed messages were taken out of the conv (a turn the
	 * server rejected as too long for its context): they are not sent
	 * again; why is one line.  Called with commit_arg.
	 */
	void (*on_rewind)(void *commit_arg, size_t n, const char *why);
	/* The turn is over; message says why when end != OK. */
	void (*on_end)(void *arg, enum agent_end end, const char *message);
};

/* Calls into the workspace around changes (checkpoints); all optional. */
struct agent;
struct agent_hooks {
	void *arg;
	/*
	 * Once per turn, before the first call that may change files (write,
	 * edit, a bash command not known to be read-only).  The call waits
	 * until the workspace answers, exactly once, with agent_change_ready
	 * (before returning, or later from the loop: front/checkpoint takes the
	 * snapshot on the worker thread).
	 */
	void (*before_change)(void *arg, struct agent *a);
	/* The turn was aborted (or the agent freed) while before_change's answer
	 * was pending: none may follow. */
	void (*change_cancel)(void *arg);
	/* The turn that called before_change has ended (any way). */
	void (*turn_end)(void *arg);
};

/*
 * The tool gate (permissions and hooks: src/gate); all optional.
 * pre_tool: before a call that passed its checks runs; the gate answers
 * exactly once with agent_gate_done, before returning or later from the
 * loop.  cancel: the turn was aborted while an answer was pending (none
 * may follow).  post_tool (a call ran) and turn_end (every turn, before
 * on_end) are notifications.
 */
struct agent;
struct agent_gate {
	void *arg;
	void (*pre_tool)(void *arg, struct agent *a, const struct agent_call *c, const cJSON *args);
	void (*cancel)(void *arg);
	void (*post_tool)(void *arg, const struct agent_call *c);
	void (*turn_end)(void *arg, enum agent_end end, const char *message);
};

struct agent_opts {
	int max_steps;                   /* per turn; <= 0 means 40 */
	int thinking;
	const struct tool *const *tools; /* enabled tools in fixed order */
	size_t ntools;
	struct agent_gate gate;          /* permissions and hooks per call (all optional) */
	int loading_wait_s;              /* seconds a "Loading model" 503 is waited out (0: 300; < 0: not at all) */
	int agent_microcompact_keep;           /* tool results of the last N turns stay verbatim (0: off) */
	long context_reserve;            /* compact when a request would leave less than this (tokens; 0: 4096) */
	struct agent_hooks hooks;
	const struct cfg *cfg;           /* explore_cutoff, think_word; NULL = both off */
};

struct agent;

/* Why the step hook is called (agent_set_step_hook). */
enum agent_step_why {
	AGENT_STEP_NEXT,         /* tool results are in; the next step starts after the hook */
	AGENT_STEP_ANSWERED,     /* the model answered without tool calls: the turn would end OK */
	AGENT_STEP_MAX_STEPS,    /* the step budget is spent: the turn would end */
	AGENT_STEP_PARSE_FAILED, /* tool calls unparsable too often in a row: the turn would end */
	AGENT_STEP_SERVER_DOWN,  /* the provider is unreachable: the turn would end */
	AGENT_STEP_STREAM_CUT    /* its stream was cut before the answer finished (a server killed mid-answer): the turn would end */
};

/*
 * Called between the steps of a turn (the router): it may switch the
 * provider (agent_set_provider) and append messages to the conv.  For
 * the reasons other than NEXT, returning 1 continues the turn with
 * another step (on MAX_STEPS with a fresh step budget) instead of ending
 * it.  A non-empty note is passed on as a notice.
 */
typedef int (*agent_step_fn)(void *arg, struct agent *a, enum agent_step_why why,
			     struct buf *note);

struct agent *agent_new(struct loop *l, struct provider *p, const struct tool_env *env,
			const struct agent_opts *o, const struct agent_observer *obs);
/* Abort quietly (no on_end) and free. NULL ok. */
void agent_free(struct agent *a);
/* The transcript (owned by the agent). */
struct conv *agent_conv(struct agent *a);
/* Start a turn; -1 + e when a turn is already running. */
int agent_submit(struct agent *a, const char *text, struct err *e);
/*
 * /compact [focus]: the next agent_submit (text may be "") first has the
 * model summarise the older turns (agent/compact.h).  A turn also compacts by
 * itself when its request would leave less than context_reserve of the
 * provider's context.  -1 + e when there is nothing to compact or a turn runs.
 */
int agent_compact(struct agent *a, const char *focus, struct err *e);
/* Stop the stream and running tools; the partial answer is kept, marked aborted. */
void agent_abort(struct agent *a);
/* The gate's answer to pre_tool: run the call, or refuse it with reason (told to the model). */
void agent_gate_done(struct agent *a, int allow, const char *reason);
/*
 * The answer to hooks.before_change: the call that waited starts now.  A
 * non-empty note ("this turn cannot be undone: …") is passed on as a
 * notice.  Ignored when nothing waits (the turn was aborted).
 */
void agent_change_ready(struct agent *a, const char *note);
int agent_busy(const struct agent *a);
/* The provider the agent uses now. */
struct provider *agent_provider(const struct agent *a);
/* Use another provider from the next request on (between turns: routing). */
void agent_set_provider(struct agent *a, struct provider *p);
/* Treat every message now in the conv as already committed (after loading a session). */
void agent_mark_committed(struct agent *a);
const struct agent_stats *agent_stats(const struct agent *a);
/* Install (fn NULL: remove) the step hook. */
void agent_set_step_hook(struct agent *a, agent_step_fn fn, void *arg);
/*
 * Think on the next turn only: chat_template_kwargs.enable_thinking is
 * true for every request of that turn, then off again (unless the
 * thinking setting keeps it on).  A task containing cfg->think_word does
 * the same for its own turn.
 */
void agent_think_next(struct agent *a);

#endif

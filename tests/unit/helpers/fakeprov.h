/*
 * fakeprov: a scripted fake LLM provider for the agent tests.  A script
 * is up to FAKEPROV_MAX_STEPS steps, one a request; step i is a list of
 * up to FAKEPROV_MAX_EV events that start() delivers from a zero-delay
 * loop timer, as a real stream is delivered from loop callbacks, stopping
 * after the first LLM_DONE or LLM_ERROR.  Event kinds are stored +1 so a
 * zeroed slot ends a step (use the EV_* constructors).
 *
 * Requests past the last step replay the last step when repeat_last is
 * set, play the script again from step 0 when cycle is set, and get no
 * answer at all otherwise (a provider that never answers, for abort
 * tests; so does nsteps == 0).  on_start, when set, sees every request
 * first (to record or serialise it, or to change the script).  The counters (starts, cancels,
 * retries, nmsgs_at_start) are for the tests' assertions.  The struct
 * owns nothing: strings in the script are the test's, and must outlive
 * the turn.
 *
 * struct fakeprov_ws is the rest of an agent test's world: a loop, a
 * temp dir holding f.txt, and the tool_env over both (owned; released by
 * fakeprov_ws_release after the agent and anything else on the loop).
 */
#ifndef HEARTH_FAKEPROV_H
#define HEARTH_FAKEPROV_H

#include <stddef.h>

#include "llm/event.h"
#include "llm/provider.h"
#include "llm/tool.h"

#define FAKEPROV_MAX_EV 16
#define FAKEPROV_MAX_STEPS 8

struct loop;

struct fakeprov_ev {
	int kind; /* enum llm_kind + 1; 0 ends the step */
	const char *text;
	int index;
	const char *id, *name;
	enum llm_err_kind err; /* LLM_ERROR: the kind (retryable when LLM_ERR_HTTP) */
};

/* Event constructors; EV_DONE's argument is the stop reason. */
#define EV_TEXT(t) { LLM_TEXT + 1, t, 0, NULL, NULL, 0 }
#define EV_REASONING(t) { LLM_REASONING + 1, t, 0, NULL, NULL, 0 }
#define EV_BEGIN(i, id, n) { LLM_TOOL_CALL_BEGIN + 1, NULL, i, id, n, 0 }
#define EV_ARGS(i, t) { LLM_TOOL_CALL_ARGS + 1, t, i, NULL, NULL, 0 }
#define EV_END(i) { LLM_TOOL_CALL_END + 1, NULL, i, NULL, NULL, 0 }
#define EV_DONE(r) { LLM_DONE + 1, r, 0, NULL, NULL, 0 }
#define EV_ERR(k, t) { LLM_ERROR + 1, t, 0, NULL, NULL, k }

struct fakeprov {
	struct provider prov; /* what the agent is given; prov.self is this struct */
	struct loop *loop;
	struct fakeprov_ev steps[FAKEPROV_MAX_STEPS][FAKEPROV_MAX_EV];
	int nsteps, next; /* steps scripted; the one the next request plays */
	int repeat_last, cycle;
	void (*on_start)(void *arg, const struct provider_req *req);
	void *on_start_arg;
	int starts, cancels, retries; /* start() calls, cancel() calls, starts with req->retry */
	size_t nmsgs_at_start[FAKEPROV_MAX_STEPS * 2]; /* conv->nmsgs at each start (a ring) */
	llm_sink_fn sink;
	void *ctx;
	long timer;
};

/*
 * An empty script on loop l for a provider called name ("llama",
 * "anthropic"); model() answers "fake", describe_error() "described: "
 * and the error's text.  Tests may set prov.add_reasoning afterwards.
 */
void fakeprov_init(struct fakeprov *f, struct loop *l, const char *name);
/* Step i (< FAKEPROV_MAX_STEPS) plays evs[0..n) (n <= FAKEPROV_MAX_EV); nsteps grows to i + 1. */
void fakeprov_step(struct fakeprov *f, int i, const struct fakeprov_ev *evs, size_t n);
#define FAKEPROV_STEP(f, i, arr) fakeprov_step(f, i, arr, sizeof(arr) / sizeof((arr)[0]))
/* Step i: one tool call (index 0, with id and name, args in one piece), done with "tool_calls". */
void fakeprov_call(struct fakeprov *f, int i, const char *id, const char *tool, const char *args);
/* Step i: the answer text, done with "stop". */
void fakeprov_answer(struct fakeprov *f, int i, const char *text);

struct fakeprov_ws {
	struct loop *loop;
	char *dir;
	struct tool_env tenv; /* root dir, the loop, bash timeout 10 s */
};

/* A fresh loop and temp dir whose f.txt holds f_txt. */
void fakeprov_ws_init(struct fakeprov_ws *w, const char *f_txt);
/* Free the loop, remove the dir. */
void fakeprov_ws_release(struct fakeprov_ws *w);

#endif

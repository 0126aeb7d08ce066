/*
 * front/output: print mode output (`hearth -p`).  An agent observer that writes
 * the answer to stdout as text, one JSON object, or Claude-Code-shaped
 * stream-json lines, and progress to stderr when verbose.  stdout never
 * carries a terminal escape byte in any mode.  A closed stdout (EPIPE) is
 * noticed and reported through front_output_stdout_closed(), never a crash.
 */
#ifndef HEARTH_FRONT_OUTPUT_H
#define HEARTH_FRONT_OUTPUT_H

#include <stdint.h>

#include "agent/agent.h"

enum front_output_format { FRONT_OUTPUT_TEXT, FRONT_OUTPUT_JSON, FRONT_OUTPUT_STREAM_JSON };

struct front_output_opts {
	enum front_output_format format;
	int verbose;      /* progress and tool lines on stderr */
	int err_is_tty;   /* progress rewrites one line (\r) instead of adding lines */
	int out_fd, err_fd;
	const char *session_id;
	const char *cwd;
};

struct front_output;

struct front_output *front_output_new(const struct front_output_opts *o);
void front_output_free(struct front_output *pm);
/* The observer to hand to agent_new (its arg is pm). */
struct agent_observer front_output_observer(struct front_output *pm);
/*
 * stream-json's first line: cwd, session, tools, model, and Claude Code's
 * fields (mcp_servers, permissionMode, ...); the model is also what the
 * assistant messages name.
 */
void front_output_init(struct front_output *pm, const char *model, const struct tool *const *tools, size_t n);
/* Before init: its mcp_servers ([{name, status}], owned from now on; NULL: []) and permissionMode. */
struct cJSON;
void front_output_init_extra(struct front_output *pm, struct cJSON *mcp_servers, const char *permission_mode);
/* The turn's result was written: forget it (answer, tool calls, denials, how it ended). */
void front_output_next_turn(struct front_output *pm);
/* Write o as one line on stdout (sanitised like every line) and free it. */
void front_output_line(struct front_output *pm, struct cJSON *o);
/* A one-line notice or error on stderr (always shown). */
void front_output_error(struct front_output *pm, const char *line);
/* Progress/notice line on stderr (only when verbose). */
void front_output_note(struct front_output *pm, const char *line);
/*
 * Write the final output for a finished run; returns the exit code
 * (0 ok, 1 failed, 3 no server).  start_ms/now_ms give duration_ms.
 */
int front_output_finish(struct front_output *pm, const struct agent_stats *st, const char *model,
		 uint64_t duration_ms);
/* A file the session changed (json and stream-json results list them). */
void front_output_file_changed(struct front_output *pm, const char *path, int status, int added, int removed);
/* The route of the turn (json result: "route": {target, reason}). */
void front_output_route(struct front_output *pm, const char *target, const char *reason);
/* A countdown line (a loading model): on stderr even without --verbose, rewritten in
 * place on a terminal, else one line in 30; NULL ends it. */
void front_output_wait(struct front_output *pm, const char *line);
/* Whether the turn ended, and how. */
int front_output_ended(const struct front_output *pm);
/* End the run without an agent turn (discovery failed): kind decides the exit code. */
void front_output_fail(struct front_output *pm, enum llm_err_kind kind, const char *message);
/* Whether a write to stdout failed with EPIPE. */
int front_output_stdout_closed(const struct front_output *pm);

/* The routing summary (decisions, per-route usage, cost) for the json result; owned by pm. */
void front_output_routing(struct front_output *pm, struct cJSON *routing);
/*
 * The tier (route/tiers.h) the local route runs on: the result gets
 * "tier": {"name", "role", "url", "why", "input_tokens", "output_tokens",
 * "prompt_ms", "predicted_ms"} (the local route's tokens and the server's
 * times).
 */
void front_output_tier(struct front_output *pm, const char *name, const char *role, const char *url,
		       const char *why);

#endif

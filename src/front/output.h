/*
 * pmode: print mode output (`hearth -p`).  An agent observer that writes
 * the answer to stdout as text, one JSON object, or Claude-Code-shaped
 * stream-json lines, and progress to stderr when verbose.  stdout never
 * carries a terminal escape byte in any mode.  A closed stdout (EPIPE) is
 * noticed and reported through pmode_stdout_closed(), never a crash.
 */
#ifndef HEARTH_PMODE_H
#define HEARTH_PMODE_H

#include <stdint.h>

#include "agent.h"

enum pmode_format { PMODE_TEXT, PMODE_JSON, PMODE_STREAM_JSON };

struct pmode_opts {
	enum pmode_format format;
	int verbose;      /* progress and tool lines on stderr */
	int err_is_tty;   /* progress rewrites one line (\r) instead of adding lines */
	int out_fd, err_fd;
	const char *session_id;
	const char *cwd;
};

struct pmode;

struct pmode *pmode_new(const struct pmode_opts *o);
void pmode_free(struct pmode *pm);
/* The observer to hand to agent_new (its arg is pm). */
struct agent_observer pmode_observer(struct pmode *pm);
/* stream-json's first line: cwd, session, tools, model. */
void pmode_init(struct pmode *pm, const char *model, const struct tool *const *tools, size_t n);
/* A one-line notice or error on stderr (always shown). */
void pmode_error(struct pmode *pm, const char *line);
/* Progress/notice line on stderr (only when verbose). */
void pmode_note(struct pmode *pm, const char *line);
/*
 * Write the final output for a finished run; returns the exit code
 * (0 ok, 1 failed, 3 no server).  start_ms/now_ms give duration_ms.
 */
int pmode_finish(struct pmode *pm, const struct agent_stats *st, const char *model,
		 uint64_t duration_ms);
/* A file the session changed (json and stream-json results list them). */
void pmode_file_changed(struct pmode *pm, const char *path, int status, int added, int removed);
/* The route of the turn (json result: "route": {target, reason}). */
void pmode_route(struct pmode *pm, const char *target, const char *reason);
/* Whether the turn ended, and how. */
int pmode_ended(const struct pmode *pm);
/* End the run without an agent turn (discovery failed): kind decides the exit code. */
void pmode_fail(struct pmode *pm, enum llm_err_kind kind, const char *message);
/* Whether a write to stdout failed with EPIPE. */
int pmode_stdout_closed(const struct pmode *pm);

/* The routing summary (decisions, per-route usage, cost) for the json result; owned by pm. */
struct cJSON;
void pmode_routing(struct pmode *pm, struct cJSON *routing);

#endif

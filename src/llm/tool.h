/*
 * llm/tool: the contract between the agent and each model tool (design.md §4).
 *
 * A tool is a const table entry.  The agent validates the model's
 * arguments against schema_json (tool_validate) before start(); start()
 * receives the parsed arguments, valid only during the call (copy what
 * you keep).  A tool finishes by calling tool_job_done(job) exactly once,
 * either before start() returns (synchronous tools) or later from a loop
 * callback (bash).  cancel() asks a running job to stop; it must still end
 * with tool_job_done (is_error set, the output so far kept).
 *
 * Results are text for the model: job->out.  Errors are data: set
 * job->is_error and write one line that says what went wrong and what to
 * do next ("old_text not found in src/a.c; closest lines: ...").  Tools
 * never draw and never print.
 */
#ifndef HEARTH_LLM_TOOL_H
#define HEARTH_LLM_TOOL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"

struct loop;
struct repo;
struct tool_stale;
struct toolset;

enum {
	TOOL_READ_ONLY = 1,      /* safe to run in parallel with other read-only calls */
	TOOL_MUTATES = 2,        /* changes files: checkpoint before, diff after */
	TOOL_NEEDS_APPROVAL = 4  /* ask in "ask" approval mode */
};

/* What a tool may use: the loop, the workspace, limits from settings. */
struct tool_env {
	struct loop *loop;
	const char *root;      /* absolute, canonical workspace root (no trailing /) */
	int allow_outside;     /* settings allow paths outside root */
	const char *state_dir; /* for saved full outputs; created on demand */
	int bash_timeout_s;    /* default bash timeout (120) */
	int syntax_reject;     /* edit/write: refuse a change that adds syntax errors
				* (settings "reject"); 0 = write it and warn */
	struct repo *repo;     /* checkpoints: edit/write register each file before
				* changing it (repo_note_file); NULL = none */
	struct tool_stale *stale;   /* stale-write guard: read records what it showed,
				* edit/write refuse a file changed since (tools/stale.h);
				* owned by the caller; NULL = no guard */
	struct toolset *toolset; /* offered/deferred tools (tool_search adds to it);
				  * NULL = every enabled tool is offered */
};

struct tool_job;
typedef void (*tool_done_fn)(struct tool_job *job, void *arg);

struct tool_job {
	const struct tool *tool;
	const struct tool_env *env;
	struct buf out;  /* result text for the model */
	int is_error;
	char *diff;      /* unified diff of a file change (edit/write), or NULL */
	tool_done_fn done;
	void *done_arg;
	void *priv;      /* the tool's own state while running */
	int finished;
};

struct tool {
	const char *name;
	const char *description;
	const char *schema_json; /* JSON Schema (type object) of the arguments */
	unsigned flags;
	void (*start)(struct tool_job *job, const cJSON *args);
	void (*cancel)(struct tool_job *job); /* NULL for synchronous tools */
};

/* Prepare a job (out empty); release with tool_job_release. */
void tool_job_init(struct tool_job *job, const struct tool *t, const struct tool_env *env,
		   tool_done_fn done, void *arg);
/* Free the job's output and diff. */
void tool_job_release(struct tool_job *job);
/* Mark finished and call job->done (once; later calls are ignored). */
void tool_job_done(struct tool_job *job);
/* Finish with an error line (printf-style); convenience for tools. */
void tool_job_fail(struct tool_job *job, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Look up a tool by name (NULL when unknown). */
const struct tool *tool_find(const char *name);
/* All built-in tools in their fixed order (the order is part of the prompt prefix). */
const struct tool *const *tool_all(size_t *n);

/*
 * Extension tools (MCP): entries added at run time after the built-ins.
 * tool_register adds t (borrowed: it must stay valid until unregistered
 * and until no agent turn can still call it); a name already taken is
 * refused (-1).  tool_unregister removes it (unknown: no-op).
 * tool_extra lists them in registration order; the array is valid until
 * the next register/unregister.  tool_find finds them too.
 */
int tool_register(const struct tool *t);
void tool_unregister(const struct tool *t);
const struct tool *const *tool_extra(size_t *n);

/*
 * Check args against t's schema: object, required fields present, each
 * property's JSON type (string, integer, number, boolean, array, object)
 * right, no unknown properties.  0 when valid; else -1 with `problem` set
 * to one line naming the field and what was expected.
 */
int tool_validate(const struct tool *t, const cJSON *args, struct buf *problem);

#endif

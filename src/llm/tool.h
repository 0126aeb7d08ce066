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
 * Besides running, a tool answers for its own calls (the members after
 * cancel, like a tmux command-table entry): the change a call would make
 * (preview, by the code that makes it), the files it names (paths),
 * whether it only reads (read_only), the digest of an old result (digest)
 * and its one-line header (describe); its flags say the rest (a shell
 * tool, a discovery tool, what its result quotes).  The core asks these
 * and never compares a tool's name (mk/lint.sh section 4).
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
struct sandbox;
struct tool_stale;
struct toolset;

enum {
	TOOL_READ_ONLY = 1,      /* safe to run in parallel with other read-only calls */
	TOOL_MUTATES = 2,        /* changes files: checkpoint before, diff after */
	TOOL_NEEDS_APPROVAL = 4, /* ask in "ask" approval mode */
	TOOL_SHELL = 8,          /* args "command" is a shell command line (tool_command):
				  * permission rules match its segments */
	TOOL_DISCOVERY = 16,     /* finds and loads deferred tools (tool_search): its calls
				  * are replayed on resume, the prompt lists what it can load */
	TOOL_SHOWS_FILE = 32,    /* the result quotes the file paths() names (privacy) */
	TOOL_SHOWS_MATCHES = 64, /* the result is "file:line:text" rows (privacy) */
	TOOL_EDITS = 128,        /* a successful call changed the files paths() names */
	TOOL_CORE = 256,         /* offered up front, never deferred behind tool_search */
	TOOL_EXTERNAL = 512      /* an extension (MCP) tool: with TOOL_READ_ONLY its calls are
				  * outside the explore cutoff (agent/cutoff.h) */
};

#define TOOL_DIGEST_ARG_MAX 160 /* bytes of an argument quoted in a digest */

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
	struct sandbox *sandbox; /* what shell commands run in (io/sandbox.h); borrowed;
				  * NULL = none */
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
	long room_bytes; /* output the conversation's context can still take (the agent's
			  * estimate for this call; 0 = unknown): a tool that can show
			  * less (read) shows at most this and says how to get the rest */
	/* output of a running job as it comes (tool_job_progress): its last
	 * TOOL_LIVE_MAX bytes, for the screen only (the result is out) */
	struct buf live;
	void (*progress)(struct tool_job *job, void *arg); /* NULL: nobody watches */
	void *progress_arg;
};

#define TOOL_LIVE_MAX 4096

/*
 * A tool's entry: what it is and what it knows about its own calls.
 * Every member after cancel is optional (NULL: the default named with the
 * tool_* function that calls it, below).  All of them take the call's
 * parsed arguments, which may be anything the model sent (not validated):
 * a member must cope with missing or mistyped fields.  They never draw,
 * print or change anything.
 */
struct tool {
	const char *name;
	const char *description;
	const char *schema_json; /* JSON Schema (type object) of the arguments */
	unsigned flags;
	void (*start)(struct tool_job *job, const cJSON *args);
	void (*cancel)(struct tool_job *job); /* NULL for synchronous tools */
	/*
	 * Append to out what the call would do, computed by the same code
	 * that does it: the unified diff of a file change (returns
	 * TOOL_PREVIEW_DIFF), the command (TOOL_PREVIEW_TEXT), or nothing
	 * when the call would fail (TOOL_PREVIEW_NONE; out may hold the
	 * reason).  env may be NULL (no workspace, e.g. a saved session
	 * reloaded): then a tool previews what it can from args alone.
	 */
	int (*preview)(const cJSON *args, const struct tool_env *env, struct buf *out);
	/* Store up to max path arguments the call names (borrowed from args) in v; the count. */
	size_t (*paths)(const cJSON *args, const char **v, size_t max);
	/* Whether this call only reads (may run without approval, changes nothing). */
	int (*read_only)(const cJSON *args);
	/* Append the MicroCompact digest of an old result (text) of this call:
	 * a short paragraph ending in "]" (it follows the agent's opening mark). */
	void (*digest)(const cJSON *args, const char *text, struct buf *out);
	/* Append the one-line header of this call for transcripts ("src/a.c", "make test"). */
	void (*describe)(const cJSON *args, struct buf *out);
	/* Append what a finished call found, for its header ("12 hits in 3 files",
	 * "lines 1-120 of 340"), from its result text (nothing for an error). */
	void (*summary)(const cJSON *args, const char *text, int is_error, struct buf *out);
};

enum { TOOL_PREVIEW_NONE = -1, TOOL_PREVIEW_TEXT = 0, TOOL_PREVIEW_DIFF = 1 };

/*
 * The contract with its defaults (t non-NULL; args may be NULL).
 * tool_preview: t->preview; default TOOL_PREVIEW_NONE.
 * tool_paths: t->paths; default 0.
 * tool_is_read_only: t->read_only; default the TOOL_READ_ONLY flag.
 * tool_digest: t->digest; default "NAME, N lines, M bytes; run it again if needed".
 * tool_describe: t->describe; default (also for t NULL, an unknown tool)
 * the first string among "path", "command", "pattern", "file", "query",
 * "url", else args' JSON cut to 60 bytes (an MCP tool gets this).
 * Every out is the caller's buffer, appended to.
 * tool_summary: t->summary; default nothing (also for t NULL).
 * tool_command: the shell command of a TOOL_SHELL call, borrowed from args; NULL otherwise.
 */
int tool_preview(const struct tool *t, const cJSON *args, const struct tool_env *env, struct buf *out);
size_t tool_paths(const struct tool *t, const cJSON *args, const char **v, size_t max);
int tool_is_read_only(const struct tool *t, const cJSON *args);
void tool_digest(const struct tool *t, const cJSON *args, const char *text, struct buf *out);
void tool_describe(const struct tool *t, const cJSON *args, struct buf *out);
void tool_summary(const struct tool *t, const cJSON *args, const char *text, int is_error,
		  struct buf *out);
const char *tool_command(const struct tool *t, const cJSON *args);

/* Helpers for members: the lines of text (a last one without newline counts);
 * s on one line (newlines and tabs become spaces) cut to max bytes with "…". */
long tool_count_lines(const char *text);
void tool_add_short(struct buf *out, const char *s, size_t max);
/* paths for tools whose one path argument is "path" (read, write, edit, ...). */
size_t tool_path_arg(const cJSON *args, const char **v, size_t max);

/* Prepare a job (out empty); release with tool_job_release. */
void tool_job_init(struct tool_job *job, const struct tool *t, const struct tool_env *env,
		   tool_done_fn done, void *arg);
/* Free the job's output and diff. */
void tool_job_release(struct tool_job *job);
/* Mark finished and call job->done (once; later calls are ignored). */
void tool_job_done(struct tool_job *job);
/*
 * A running job wrote n bytes of output (bash's output, grep's rows so
 * far; on the loop thread): kept in job->live (the
 * last TOOL_LIVE_MAX bytes, from a line start when one is in reach) and
 * job->progress is called.  The result is still the tool's to write.
 */
void tool_job_progress(struct tool_job *job, const char *d, size_t n);
/* Finish with an error line (printf-style); convenience for tools. */
void tool_job_fail(struct tool_job *job, const char *fmt, ...) ERR_PRINTF(2, 3);

/*
 * The registry: declared with the contract so the core can look a tool up
 * by the name a conversation stores without including tools/; defined in
 * tools/registry.c, which holds the built-in list.
 */
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

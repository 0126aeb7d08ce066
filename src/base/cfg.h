/*
 * base/cfg: settings.  Defaults, then $XDG_CONFIG_HOME/hearth/settings.json,
 * then ./.hearth/settings.json (project wins), then environment and
 * command-line flags (applied by main).  A missing file is fine; invalid
 * JSON is reported as file:line:column and the defaults stay in force.
 * Unknown keys produce a warning, not an error.
 */
#ifndef HEARTH_BASE_CFG_H
#define HEARTH_BASE_CFG_H

#include "base/buf.h"
#include "base/err.h"

struct cfg {
	char *server_url;        /* "http://127.0.0.1:8080" */
	char *model;             /* optional model id override (NULL = server's) */
	double temperature;      /* 0.6 */
	double top_p;            /* 0.95 */
	int top_k;               /* 20 */
	double presence_penalty; /* 0 */
	int max_tokens;          /* -1 = server default */
	int thinking;            /* 0: enable_thinking false */
	int max_steps;           /* 40 */
	int allow_outside_workspace; /* 0 */
	int bash_timeout_s;      /* 120 */
	int id_slot;             /* -1 = any */
	int request_timeout_s;   /* 0 = none (queued requests are silent) */
	int stream_idle_timeout_s; /* 120: silence after the response headers means a stuck server */
	int loading_wait_s;      /* 300: how long a "Loading model" 503 is waited out (countdown shown) */
	int syntax_reject;       /* "syntax_check": "reject" refuses edits that add syntax errors; "warn" (default) notes them */
	int slot_wait_s;         /* 15: a pinned request silent this long checks whether its slot is taken */
	int mcp_timeout_s;       /* 60: an MCP request unanswered this long drops the server */
	int slot_save;           /* 1: save the session's slot on exit and after idle, restore on resume */
	int slot_save_idle_s;    /* 60: idle seconds after an answer before the slot is saved (0: only on exit) */
	int cache_prime;         /* 1: after an answer, end the slot where the next turn begins (llama/prime.c) */
	int agent_microcompact_keep;   /* 6: tool results of the last N turns stay verbatim (0: off) */
	int context_reserve;     /* 4096: compact when a request would leave fewer tokens of n_ctx */
	char *think_word;        /* "ultrathink": a task with this word thinks for its turn ("" = never) */
	int explore_cutoff;      /* 6: read-only steps in a row before only producing tools are allowed (0 = off) */
	int defer_tools;         /* -1 "auto" (default): defer when worth it; 1: offer only the core tools, the rest through tool_search; 0: all */
	int defer_tools_min_tokens; /* 2000: auto defers when the deferrable schemas come to this many tokens */
	char *serve_model;       /* "serve.model": a GGUF file to start llama-server with (NULL = none) */
	char *serve_binary;      /* "serve.binary": the llama-server to start ("llama-server" from PATH) */
	int serve_ctx;           /* "serve.ctx": context per slot for the managed server (32768; 0 = the model's) */
	int serve_slots;         /* "serve.slots": llama-server -np (1) */
	char *serve_cache_type;  /* "serve.cache_type": KV cache type, K and V ("q8_0"; f16 when the model cannot) */
	int serve_kv_unified;    /* "serve.kv_unified": --kv-unified (0) */
	int serve_cache_ram;     /* "serve.cache_ram": --cache-ram MiB (-2: the server's default) */
	double serve_slot_similarity; /* "serve.slot_similarity": --slot-prompt-similarity (-1: 0.9 with several unified slots, else the server's) */
	int slot_files_max_mb;   /* "slot_files_max_mb": the managed server's slot files are pruned to this (2048) */
	char *slot_save_dir;     /* "slot_save_dir": an external server's --slot-save-path, pruned the same way (user settings only) */
	char **serve_args;       /* "serve.args": extra llama-server arguments (user settings only); NULL-terminated or NULL */
	char *theme;             /* full-screen colour theme name or file (NULL: "default") */
	char *sandbox;           /* "workspace-write" (NULL: the default), "read-only" or "off": bash's sandbox */
	int sandbox_network;     /* 0: bash commands in the sandbox have no network */
	char *open_in;           /* /open: "editor" (suspend and run $EDITOR) or "tmux-pane" (NULL: editor) */
	int mouse;               /* 1: the full screen takes mouse reports (the wheel scrolls); 0: leave the mouse to the terminal */
	char **env_passthrough;  /* "env_passthrough": names or globs children also get (base/env.h); NULL-terminated or NULL */
	int server_context;      /* "server_context": per-request context of a server without /props (0: from /v1/models metadata) */
	char *server_api_key;    /* not a settings key: OPENAI_API_KEY as read at start (sent as a Bearer key where the server asks) */
};

/* Fill c with the built-in defaults. */
void cfg_defaults(struct cfg *c);
/* Free strings. */
void cfg_release(struct cfg *c);
/* Free a NULL-terminated list of strings such as serve_args (NULL ok). */
void cfg_list_free(char **v);
/*
 * Merge one settings file into c.  Missing file: 0.  Invalid JSON: -1
 * with e = "path:line:col: invalid JSON ...", c unchanged.  Unknown keys
 * and wrong types are appended to `warnings` (one line each).
 */
int cfg_load_file(struct cfg *c, const char *path, struct buf *warnings, struct err *e);
/*
 * Call fn for each settings file in precedence order (user, then
 * project); a file fn fails on (-1 + e) becomes a line in warnings.
 */
typedef int (*cfg_file_fn)(void *arg, const char *path, struct buf *warnings, struct err *e);
void cfg_each_file(const char *cwd, cfg_file_fn fn, void *arg, struct buf *warnings);
/* Load user then project settings; errors and warnings go to `warnings`. */
void cfg_load(struct cfg *c, const char *cwd, struct buf *warnings);

#endif

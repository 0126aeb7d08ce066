/*
 * llama/serve: a llama-server that hearth starts and stops itself (issue 6,
 * "managed server"): `hearth --serve MODEL.gguf` or the serve.model
 * setting.
 *
 * llama_serve_start checks the model file and the binary (serve.binary, else
 * llama-server from PATH) and fails with one line when either is
 * missing; picks a free port on 127.0.0.1; starts
 *   llama-server -m MODEL --host 127.0.0.1 --port N -ngl 99 -fa on
 *     --cache-type-k T --cache-type-v T --jinja --reasoning off
 *     -np SLOTS --slot-save-path DIR --alias NAME -c CTX*SLOTS
 *     [--kv-unified] [--cache-ram MIB] --slot-prompt-similarity S --checkpoint-min-step 0 [ARGS...]
 * (T = cache_type, q8_0 by default; CTX = ctx per slot, 0: the model's
 * native window; S defaults to 0.9 with several unified slots; a server
 * that exits before it listens because the model cannot take the cache
 * type, or does not know one of the optional flags, is started again with
 * f16 or without that flag, and `notes` says so; DIR =
 * STATE/slots; NAME = the file name without .gguf) in its own process
 * group, with its output in STATE/llama-server.log; and waits, running
 * the loop, until the port accepts connections (the server answers 503
 * while it loads the model; the caller's probe waits that out and shows
 * it).  A server that exits first is reported with its last output line.
 *
 * llama_serve_stop sends SIGTERM to the group, SIGKILL after PROC_KILL_GRACE_MS,
 * and waits (bounded) for it to go.
 *
 * Ownership: a serve borrows the loop, which must outlive it.
 */
#ifndef HEARTH_LLAMA_SERVE_H
#define HEARTH_LLAMA_SERVE_H

#include "base/buf.h"
#include "base/err.h"

struct loop;
struct llama_serve;

struct llama_serve_opts {
	const char *model;      /* path of the GGUF file */
	const char *binary;     /* NULL: "llama-server" from PATH */
	int ctx;                /* per slot; 0: the model's own context size */
	int slots;              /* -np (<= 0: 1) */
	const char *cache_type; /* K and V cache type (NULL: q8_0) */
	int kv_unified;         /* --kv-unified */
	int cache_ram;          /* --cache-ram MiB; < -1: not passed */
	double similarity;      /* --slot-prompt-similarity; < 0: 0.95 (0.9 with several unified slots) */
	char *const *args;      /* extra arguments, NULL-terminated (may be NULL) */
	struct buf *notes;      /* fallbacks taken, one line each (may be NULL) */
	const char *state_dir;  /* for slots/ and the log */
	int wait_ms;            /* how long to wait for the port (0: 60 s) */
	const int *interrupted; /* stop waiting when this becomes non-zero (may be NULL) */
};

/*
 * Start the server and wait for its port.  The base URL
 * ("http://127.0.0.1:N") is appended to url.  NULL + e (one line) when the
 * model or binary is missing, the server cannot start or exits early.
 */
struct llama_serve *llama_serve_start(struct loop *l, const struct llama_serve_opts *o, struct buf *url,
			  struct err *e);
/* Stop the server (TERM, then KILL) and free. NULL ok. */
void llama_serve_stop(struct llama_serve *s);
/*
 * Whether the server has exited (after it listened: it failed to load
 * the model, crashed); why gets one line with its last output.
 */
int llama_serve_exited(const struct llama_serve *s, struct buf *why);
/*
 * Slot files beyond the budget (issue 14: slot files were never deleted):
 * delete the oldest (by mtime) hearth-<session>.bin files of dir until the
 * rest come to at most max_bytes.  Other files are left alone.  Returns the
 * number deleted; freed gets their bytes (may be NULL).  A missing dir: 0.
 */
int llama_serve_prune_slots(const char *dir, long long max_bytes, long long *freed);

#endif

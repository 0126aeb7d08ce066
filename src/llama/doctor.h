/*
 * llama/doctor: `hearth doctor` (issue 17 item 6) — what a server's own
 * endpoints say about how it was started, each misconfiguration with the
 * exact flag to change, and the recommended command line for the model it
 * serves (docs/llama-server.md "hearth doctor").
 *
 * llama_doctor_check is pure: it reads the answers of GET /props, /slots,
 * /metrics, /v1/models and of one side-effect-free slot-save probe (POST
 * /slots/0?action=save with an invalid file name: 501 means no
 * --slot-save-path, 400 means one is set) and of POST /apply-template with
 * one user message and one tool (an error naming --jinja means it is
 * missing; a prompt ending in an open "<think>" means thinking is
 * on at the engine; /props does not tell --reasoning off from auto) and
 * writes one line per check:
 * "  ✗ WHAT: WHY → FLAG" for a problem, "  ✓ WHAT" for what is right,
 * "  · WHAT" for what cannot be told from the outside.  A server without
 * /props is not llama-server: only what /v1/models states is checked.
 * Malformed answers count as absent (the input is the server's, never
 * trusted).
 *
 * llama_doctor_run fetches those answers from cfg's server (the base URL
 * with or without /v1; OPENAI_API_KEY sent as a Bearer key when a request
 * answers 401), running the loop up to timeout_ms, then checks.
 */
#ifndef HEARTH_LLAMA_DOCTOR_H
#define HEARTH_LLAMA_DOCTOR_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

struct loop;
struct http;
struct cfg;

/* One endpoint's answer: status 0 = no answer (or not asked). */
struct llama_doctor_ans {
	int status;
	const char *body;
	size_t len;
};

struct llama_doctor_in {
	const char *url;                 /* the server as given */
	struct llama_doctor_ans props, slots, metrics, models;
	struct llama_doctor_ans save;    /* the slot-save probe */
	struct llama_doctor_ans render;  /* POST /apply-template of one user message: {"prompt"} */
	long turn_max;                   /* largest prompt a session here sent (tokens; 0: unknown) */
};

/* Minimum per-slot context hearth recommends, and the one it refuses to call enough. */
#define LLAMA_DOCTOR_CTX_GOOD 65536
#define LLAMA_DOCTOR_CTX_MIN 32768

/* The report for one server → out; returns how many problems (✗ lines) it found. */
int llama_doctor_check(const struct llama_doctor_in *in, struct buf *out);

/*
 * Fetch and check cfg's server.  Returns the number of problems, or -1 +
 * e when the server did not answer at all.
 */
int llama_doctor_run(struct loop *l, struct http *h, const struct cfg *cfg, long turn_max,
		     long timeout_ms, struct buf *out, struct err *e);

#endif

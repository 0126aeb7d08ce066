/*
 * anthropic/models: GET {base}/v1/models — is the configured model id
 * offered to this API key?  (protocols.md B; used once per session by
 * the router, through anthropic_check_models.)
 *
 * One check is one struct anthropic_models, from start until its done
 * callback returns (it frees itself then) or until anthropic_models_cancel
 * (no callback).  done gets rc 0 and found 1, or found 0 with a one-line
 * message naming the available ids; or rc -1 and why the check failed.
 * Borrows the http client; copies the strings.
 */
#ifndef HEARTH_ANTHROPIC_MODELS_H
#define HEARTH_ANTHROPIC_MODELS_H

#include "base/err.h"

struct http;
struct anthropic_models;

typedef void (*anthropic_models_fn)(int rc, int found, const char *msg, void *arg);

/* Start the check; NULL + e when the request cannot start.  keyhdr is "x-api-key: ...". */
struct anthropic_models *anthropic_models_start(struct http *h, const char *base_url,
					      const char *keyhdr, const char *model,
					      anthropic_models_fn done, void *arg, struct err *e);
/* Stop a check in flight without calling done.  NULL ok. */
void anthropic_models_cancel(struct anthropic_models *q);

#endif

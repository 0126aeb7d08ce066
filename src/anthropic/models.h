/*
 * anthropicmodels: GET {base}/v1/models — is the configured model id
 * offered to this API key?  (protocols.md B; used once per session by
 * the router, through anthropic_check_models.)
 *
 * One check is one struct anthropicmodels, from start until its done
 * callback returns (it frees itself then) or until anthropicmodels_cancel
 * (no callback).  done gets rc 0 and found 1, or found 0 with a one-line
 * message naming the available ids; or rc -1 and why the check failed.
 * Borrows the http client; copies the strings.
 */
#ifndef HEARTH_ANTHROPICMODELS_H
#define HEARTH_ANTHROPICMODELS_H

#include "err.h"

struct http;
struct anthropicmodels;

typedef void (*anthropicmodels_fn)(int rc, int found, const char *msg, void *arg);

/* Start the check; NULL + e when the request cannot start.  keyhdr is "x-api-key: ...". */
struct anthropicmodels *anthropicmodels_start(struct http *h, const char *base_url,
					      const char *keyhdr, const char *model,
					      anthropicmodels_fn done, void *arg, struct err *e);
/* Stop a check in flight without calling done.  NULL ok. */
void anthropicmodels_cancel(struct anthropicmodels *q);

#endif

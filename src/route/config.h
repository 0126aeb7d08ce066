/*
 * route/config: the "routing" object of the settings files (docs/routing.md).
 *
 * route_config_defaults fills a struct route_policy (route/route.h) with the
 * built-in values; route_config_apply merges one "routing" JSON object over
 * it key by key (a list — patterns, privacy — replaces the list; prices
 * merge per model id).  An invalid value never stops loading: it is
 * reported in `warnings` (one line each, "ORIGIN: routing.KEY ...") and
 * the previous value is kept.
 *
 * Ownership: the policy owns everything it points to; route_config_release
 * frees it and leaves the policy zeroed.  A policy must not be copied by
 * value (compiled regexes).
 */
#ifndef HEARTH_ROUTE_CONFIG_H
#define HEARTH_ROUTE_CONFIG_H

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"
#include "route/route.h"

/* Fill p with the defaults (see docs/routing.md). */
void route_config_defaults(struct route_policy *p);
/* Free what p owns; p is left zeroed (call route_config_defaults to reuse). */
void route_config_release(struct route_policy *p);
/*
 * Merge the "routing" member of the settings JSON text (a whole settings
 * object).  No member: nothing happens.  Invalid JSON: -1 + e, p unchanged.
 */
int route_config_apply_text(struct route_policy *p, const char *json, size_t len,
			const char *origin, struct buf *warnings, struct err *e);
/* User settings then the project's (the same files as cfg_load). */
void route_config_load(struct route_policy *p, const char *cwd, struct buf *warnings);
const char *route_config_mode_name(enum route_mode m);
/* Set the mode from "auto" / "local" / "claude" (--route, /route).  0 / -1 + e. */
int route_config_set_mode(struct route_policy *p, const char *name, struct err *e);

#endif

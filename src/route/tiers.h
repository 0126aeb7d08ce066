/*
 * route/tiers: the `servers` setting (issue 17 item 2, docs/routing.md
 * "Tiers"): several OpenAI-compatible servers, each a tier with a name and
 * a role, below Claude.
 *
 *   "servers": [{"name": "small", "url": "http://127.0.0.1:8080",
 *                "role": "interactive", "model": "...", "thinking": false,
 *                "api_key_env": "SMALL_KEY"}, ...]
 *
 * name and url are required; role is "interactive" (default) or
 * "workhorse"; model, thinking and api_key_env are optional (thinking -1:
 * as the settings say).  An entry that is not valid is left out with one
 * line in warnings saying what to fix; a duplicate name keeps the first.
 * The setting is read from the user's settings file only: a project cannot
 * name the servers (and keys) hearth sends its work to.
 *
 * Ownership: struct route_tiers owns its strings; route_tiers_release
 * frees them.
 */
#ifndef HEARTH_ROUTE_TIERS_H
#define HEARTH_ROUTE_TIERS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/buf.h"

#define ROUTE_TIERS_MAX 8

enum route_tier_role { ROUTE_TIER_INTERACTIVE, ROUTE_TIER_WORKHORSE };

struct route_tier {
	char *name, *url, *model, *api_key_env;
	enum route_tier_role role;
	int thinking; /* -1: the settings' */
};

struct route_tiers {
	struct route_tier v[ROUTE_TIERS_MAX];
	size_t n;
};

/* Parse a "servers" array (NULL or absent: none) into t (zeroed first). */
void route_tiers_parse(struct route_tiers *t, const cJSON *servers, struct buf *warnings);
/* Read "servers" from the user's settings file ($XDG_CONFIG_HOME/hearth/settings.json). */
void route_tiers_load_user(struct route_tiers *t, struct buf *warnings);
void route_tiers_release(struct route_tiers *t);
/* The tier of that name, or NULL. */
const struct route_tier *route_tiers_find(const struct route_tiers *t, const char *name, size_t len);
/* Where a session starts: the first interactive tier, else the first; NULL when there is none. */
const struct route_tier *route_tiers_start(const struct route_tiers *t);
/* The next rung up from tier (the first workhorse after an interactive one), or NULL (then Claude). */
const struct route_tier *route_tiers_next(const struct route_tiers *t, const struct route_tier *tier);
const char *route_tiers_role_name(enum route_tier_role r);
/* "a, b, c": the names, for messages. */
void route_tiers_names(const struct route_tiers *t, struct buf *out);

#endif

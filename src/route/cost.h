/*
 * route/cost: what Claude requests cost, priced from the policy's
 * "prices" table (struct route_price, route/route.h; docs/routing.md).
 * Pure: no I/O.  The spend caps (route_decide's guards) and the outcomes
 * log (route/outcomes.h) are fed from it.
 */
#ifndef HEARTH_ROUTE_COST_H
#define HEARTH_ROUTE_COST_H

#include "route/route.h"

/* Token usage of one request or a whole turn. */
struct route_usage {
	long input, output, cache_write, cache_read;
};

/*
 * Cost in USD of usage on model (exact id, else the longest price id
 * that prefixes it up to a '-' or '@', so "claude-haiku-4-5" prices
 * "claude-haiku-4-5-20251001").  Returns 0, or -1 when the model has no
 * price: then *usd uses the highest price of each kind in the table, so
 * spend caps still hold (0 when the table is empty).
 */
int route_cost_usd(const struct route_policy *p, const char *model,
		   const struct route_usage *u, double *usd);

#endif

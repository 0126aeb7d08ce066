/* route/cost: what a Claude request costs, from the policy's price table (see route/cost.h). */
#include "route/cost.h"

#include <math.h>
#include <string.h>

/* The price entry for model: exact, else the longest prefix; NULL if none. */
static const struct route_price *
route_find_price(const struct route_policy *p, const char *model)
{
	const struct route_price *best = NULL;
	size_t i, len, best_len = 0;

	for (i = 0; model && i < p->nprices; i++) {
		len = strlen(p->prices[i].model);
		if (strncmp(p->prices[i].model, model, len) == 0 &&
		    (model[len] == '\0' || model[len] == '-' || model[len] == '@') && len > best_len) {
			best = &p->prices[i];
			best_len = len;
		}
	}
	return best;
}

/* Cost of usage (see route/cost.h). */
int
route_cost_usd(const struct route_policy *p, const char *model, const struct route_usage *u,
	       double *usd)
{
	const struct route_price *pr = route_find_price(p, model);
	struct route_price w = { NULL, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; !pr && i < p->nprices; i++) {
		w.input = fmax(w.input, p->prices[i].input);
		w.output = fmax(w.output, p->prices[i].output);
		w.cache_write = fmax(w.cache_write, p->prices[i].cache_write);
		w.cache_read = fmax(w.cache_read, p->prices[i].cache_read);
	}
	if (pr)
		w = *pr;
	*usd = ((double)u->input * w.input + (double)u->output * w.output +
		(double)u->cache_write * w.cache_write + (double)u->cache_read * w.cache_read) / 1e6;
	return pr ? 0 : -1;
}

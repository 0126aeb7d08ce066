#include "ring.h"

#include <stdlib.h>

int
ring_init(struct ring *r, size_t cap)
{
	r->head = r->count = 0;
	r->cap = cap;
	r->v = cap ? calloc(cap, sizeof *r->v) : NULL;
	return r->v ? 0 : -1;
}

void
ring_free(struct ring *r)
{
	free(r->v);
	r->v = NULL;
	r->cap = r->count = r->head = 0;
}

void
ring_push(struct ring *r, double x)
{
	if (r->count < r->cap) {
		r->v[(r->head + r->count) % r->cap] = x;
		r->count++;
	} else {
		r->v[r->head] = x;
	}
}

double
ring_get(const struct ring *r, size_t i)
{
	if (i >= r->count)
		return 0;
	return r->v[r->head + i];
}

int
ring_pop(struct ring *r, double *out)
{
	if (r->count == 0)
		return -1;
	*out = r->v[r->head];
	r->head = (r->head + 1) % r->cap;
	r->count--;
	return 0;
}

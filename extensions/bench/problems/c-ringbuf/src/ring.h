/* ring: a fixed-capacity ring buffer of doubles.  When full, a push overwrites the oldest value. */
#ifndef RING_H
#define RING_H
#include <stddef.h>

struct ring {
	double *v;
	size_t cap;   /* slots */
	size_t head;  /* index of the oldest value */
	size_t count; /* values held, <= cap */
};

int ring_init(struct ring *r, size_t cap); /* 0, or -1 when cap is 0 or memory runs out */
void ring_free(struct ring *r);
void ring_push(struct ring *r, double x);
/* The i-th value from the oldest (0) to the newest (count-1); 0 when out of range. */
double ring_get(const struct ring *r, size_t i);
/* Remove and return the oldest value in *out; 0, or -1 when empty. */
int ring_pop(struct ring *r, double *out);
#endif

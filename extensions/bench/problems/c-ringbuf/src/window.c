#include "window.h"

#include <stdlib.h>

double
window_mean(const struct ring *r)
{
	double sum = 0;
	size_t i;

	if (r->count == 0)
		return 0;
	for (i = 0; i < r->count; i++)
		sum += ring_get(r, i);
	return sum / (double)r->count;
}

double
window_min(const struct ring *r)
{
	double m;
	size_t i;

	if (r->count == 0)
		return 0;
	m = ring_get(r, 0);
	for (i = 1; i < r->count; i++)
		if (ring_get(r, i) < m)
			m = ring_get(r, i);
	return m;
}

double
window_max(const struct ring *r)
{
	double m;
	size_t i;

	if (r->count == 0)
		return 0;
	m = ring_get(r, 0);
	for (i = 1; i < r->count; i++)
		if (ring_get(r, i) > m)
			m = ring_get(r, i);
	return m;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
window_median(const struct ring *r)
{
	double *tmp, m;
	size_t i, n = r->count;

	if (n == 0)
		return 0;
	if (!(tmp = malloc(n * sizeof *tmp)))
		return 0;
	for (i = 0; i < n; i++)
		tmp[i] = ring_get(r, i);
	qsort(tmp, n, sizeof *tmp, cmp_double);
	m = n % 2 ? tmp[n / 2] : tmp[n / 2];
	free(tmp);
	return m;
}

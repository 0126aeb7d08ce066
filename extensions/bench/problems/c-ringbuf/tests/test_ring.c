#include <math.h>

#include "ring.h"
#include "tap.h"
#include "window.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void
fill(struct ring *r, size_t cap, int n)
{
	int i;

	CHECK(ring_init(r, cap) == 0);
	for (i = 1; i <= n; i++)
		ring_push(r, i);
}

static void t_init_zero(void) { struct ring r; CHECK(ring_init(&r, 0) == -1); }
static void t_push_get(void) { struct ring r; fill(&r, 4, 3); CHECK(r.count == 3); CHECK(NEAR(ring_get(&r, 0), 1)); CHECK(NEAR(ring_get(&r, 2), 3)); ring_free(&r); }
static void t_get_out_of_range(void) { struct ring r; fill(&r, 4, 2); CHECK(NEAR(ring_get(&r, 2), 0)); ring_free(&r); }
static void t_full(void) { struct ring r; fill(&r, 3, 3); CHECK(r.count == 3); CHECK(NEAR(ring_get(&r, 2), 3)); ring_free(&r); }
static void t_overwrite_oldest(void) { struct ring r; fill(&r, 3, 5); CHECK(r.count == 3); CHECK(NEAR(ring_get(&r, 0), 3)); CHECK(NEAR(ring_get(&r, 1), 4)); CHECK(NEAR(ring_get(&r, 2), 5)); ring_free(&r); }
static void t_pop_order(void) { struct ring r; double x; fill(&r, 3, 2); CHECK(ring_pop(&r, &x) == 0 && NEAR(x, 1)); CHECK(ring_pop(&r, &x) == 0 && NEAR(x, 2)); CHECK(ring_pop(&r, &x) == -1); ring_free(&r); }
static void t_pop_after_wrap(void) { struct ring r; double x; fill(&r, 3, 4); CHECK(ring_pop(&r, &x) == 0 && NEAR(x, 2)); ring_push(&r, 9); CHECK(r.count == 3); CHECK(NEAR(ring_get(&r, 2), 9)); ring_free(&r); }
static void t_many_wraps(void) { struct ring r; fill(&r, 4, 1001); CHECK(NEAR(ring_get(&r, 0), 998)); CHECK(NEAR(ring_get(&r, 3), 1001)); ring_free(&r); }
static void t_mean(void) { struct ring r; fill(&r, 4, 4); CHECK(NEAR(window_mean(&r), 2.5)); ring_free(&r); }
static void t_mean_window(void) { struct ring r; fill(&r, 2, 5); CHECK(NEAR(window_mean(&r), 4.5)); ring_free(&r); }
static void t_min_max(void) { struct ring r; CHECK(ring_init(&r, 4) == 0); ring_push(&r, -2); ring_push(&r, 7); ring_push(&r, 3); CHECK(NEAR(window_min(&r), -2)); CHECK(NEAR(window_max(&r), 7)); ring_free(&r); }
static void t_min_max_window(void) { struct ring r; fill(&r, 3, 6); CHECK(NEAR(window_min(&r), 4)); CHECK(NEAR(window_max(&r), 6)); ring_free(&r); }
static void t_median_odd(void) { struct ring r; CHECK(ring_init(&r, 5) == 0); ring_push(&r, 5); ring_push(&r, 1); ring_push(&r, 3); CHECK(NEAR(window_median(&r), 3)); ring_free(&r); }
static void t_median_even(void) { struct ring r; CHECK(ring_init(&r, 5) == 0); ring_push(&r, 4); ring_push(&r, 1); ring_push(&r, 3); ring_push(&r, 2); CHECK(NEAR(window_median(&r), 2.5)); ring_free(&r); }
static void t_empty_stats(void) { struct ring r; CHECK(ring_init(&r, 2) == 0); CHECK(NEAR(window_mean(&r), 0)); CHECK(NEAR(window_median(&r), 0)); CHECK(NEAR(window_min(&r), 0)); ring_free(&r); }

int
main(void)
{
	static const struct tap_case cases[] = {
		{ "init_zero", t_init_zero }, { "push_get", t_push_get }, { "get_out_of_range", t_get_out_of_range },
		{ "full", t_full }, { "overwrite_oldest", t_overwrite_oldest }, { "pop_order", t_pop_order },
		{ "pop_after_wrap", t_pop_after_wrap }, { "many_wraps", t_many_wraps }, { "mean", t_mean },
		{ "mean_window", t_mean_window }, { "min_max", t_min_max }, { "min_max_window", t_min_max_window },
		{ "median_odd", t_median_odd }, { "median_even", t_median_even }, { "empty_stats", t_empty_stats },
	};
	return tap_run(cases, (int)(sizeof cases / sizeof *cases));
}

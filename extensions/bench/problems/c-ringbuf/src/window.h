/* window: statistics over the values a ring holds (a moving window). */
#ifndef WINDOW_H
#define WINDOW_H
#include "ring.h"

double window_mean(const struct ring *r);  /* 0 when empty */
double window_min(const struct ring *r);   /* 0 when empty */
double window_max(const struct ring *r);   /* 0 when empty */
/* The median: the middle value, or the mean of the two middle values; 0 when empty. */
double window_median(const struct ring *r);
#endif

/*
 * bench_util: the timing helpers the bench programs share (bench_tools,
 * bench_intel): monotonic and CPU milliseconds, medians, max RSS, a shell
 * command timed with its children's CPU time, rm -rf.  Header-only
 * (static inline) because each bench program is one source file
 * (Makefile: $(BUILD)/bench/%).  Nothing here asserts: a bench prints.
 */
#ifndef HEARTH_BENCH_UTIL_H
#define HEARTH_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Monotonic milliseconds. */
static inline double
bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time (user + system, ms) of this process (RUSAGE_SELF) or its waited-for children. */
static inline double
bench_cpu_ms(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* Ascending doubles for qsort. */
static inline int
bench_cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place); the fastest into *min when min is not NULL. */
static inline double
bench_median(double *v, int n, double *min)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_d);
	if (min)
		*min = v[0];
	return v[n / 2];
}

/* Max RSS of this process so far, KB. */
static inline long
bench_maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * Wall time (ms) of a shell command, its output thrown away; its CPU time
 * (the children's user + system) into *cpu when cpu is not NULL.  -1 when
 * no shell could run.
 */
static inline double
bench_time_cmd(const char *cmd, double *cpu)
{
	char full[8192];
	double t = bench_now_ms(), c = bench_cpu_ms(RUSAGE_CHILDREN);

	snprintf(full, sizeof full, "%s >/dev/null 2>&1", cmd);
	if (system(full) < 0)
		return -1;
	if (cpu)
		*cpu = bench_cpu_ms(RUSAGE_CHILDREN) - c;
	return bench_now_ms() - t;
}

/* Whether a program is on PATH. */
static inline int
bench_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* rm -rf dir (a line on stderr when it fails). */
static inline void
bench_rmrf(const char *dir)
{
	char cmd[4096];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench: could not remove %s\n", dir);
}

#endif

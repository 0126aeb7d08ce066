/*
 * front/bench_problem: what `hearth bench` needs of a problem and of the
 * files, without the loop (front/bench.h runs the trials).
 *
 * A problem is a directory NAME/ holding PROBLEM.md (the prompt), the
 * buggy project, tests/ (frozen: the agent must not change it), bench.json
 * (how to test it) and .reference/ (the reference fix, never copied to the
 * agent).  bench.json:
 *   {"test": "python3 -m unittest discover -s tests -v",   shell command run in the copy
 *    "format": "unittest" | "tap",                          how to read its output
 *    "tests": 15,                                           how many tests there are
 *    "language": "python", "level": 1, "summary": "..."}    for --list (optional)
 *    "timeout": 120                                         seconds for the test command (optional)
 * "unittest" reads Python's "Ran N tests" and "FAILED (failures=a, errors=b, ...)";
 * "tap" counts lines starting "ok " and "not ok ".  A run that reports fewer
 * tests than declared (a compile error, a crash) counts the missing ones
 * as failed: total is never below the declared number.
 *
 * Ownership: a problem owns its strings (front_bench_problem_release);
 * problem lists are arrays the caller frees with front_bench_problems_free.
 */
#ifndef HEARTH_FRONT_BENCH_PROBLEM_H
#define HEARTH_FRONT_BENCH_PROBLEM_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define FRONT_BENCH_REFERENCE ".reference" /* never copied to the agent */
#define FRONT_BENCH_TESTS "tests"           /* frozen */

enum front_bench_format { FRONT_BENCH_UNITTEST, FRONT_BENCH_TAP };

struct front_bench_problem {
	char *name, *dir;         /* dir: absolute */
	char *test;               /* shell command */
	char *language, *summary; /* "" when not given */
	enum front_bench_format format;
	long tests, level, timeout_s;
};

/*
 * Load the problem in dir (its bench.json and PROBLEM.md must exist).
 * 0, or -1 + e naming the file and what is wrong.
 */
int front_bench_problem_load(struct front_bench_problem *p, const char *dir, struct err *e);
void front_bench_problem_release(struct front_bench_problem *p);

/*
 * Every problem under root (its subdirectories holding a bench.json),
 * sorted by level then name; only those whose names are in `only`
 * (comma-separated, NULL = all).  *out is malloc'd (free with
 * front_bench_problems_free).  The count, or -1 + e (root unreadable, a
 * broken bench.json, a name in `only` not found).
 */
long front_bench_problems_load(const char *root, const char *only, struct front_bench_problem **out,
			       struct err *e);
void front_bench_problems_free(struct front_bench_problem *p, long n);

/*
 * Copy the tree src into the existing directory dst: regular files (with
 * their mode), directories and symlinks; the top-level entries named
 * FRONT_BENCH_REFERENCE and bench.json are left out.  0 or -1 + e.
 */
int front_bench_copy(const char *src, const char *dst, struct err *e);
/* Remove the tree at path (not following symlinks).  0 or -1 + e. */
int front_bench_rmtree(const char *path, struct err *e);
/*
 * The canonical text of a tree (sorted paths, type, mode, contents;
 * symlinks by their target), for comparing before and after: two trees
 * snapshot alike exactly when they are the same.  A missing tree is "".
 * At most max bytes of contents; -1 + e beyond, or on a read error.
 */
int front_bench_snapshot(const char *path, struct buf *out, size_t max, struct err *e);

/*
 * Read passed/total from a test command's output.  *passed and *total
 * are what the output says (0/0 when it says nothing); returns 1 when
 * the counts were found, 0 when not.
 */
int front_bench_parse_counts(enum front_bench_format f, const char *out, size_t n, long *passed, long *total);
/*
 * Read llama-server's /metrics text: the counters
 * llamacpp:prompt_tokens_total and llamacpp:tokens_predicted_total.
 * 0 when both were found, -1 otherwise.
 */
int front_bench_parse_metrics(const char *text, size_t n, double *prompt, double *predicted);
/* One sample "name value" of a /metrics text (the whole name): 0 and *out, or -1. */
int front_bench_metric(const char *text, size_t n, const char *name, double *out);

/* hearth's own figures from its --output-format json/stream-json output (-1 when absent). */
struct front_bench_hearth {
	long steps, escalations;
	double cost_usd;
};
/* Find the last {"type":"result",...} line in out; 1 when found (h filled), 0 when not (h all -1). */
int front_bench_parse_hearth(const char *out, size_t n, struct front_bench_hearth *h);

#endif

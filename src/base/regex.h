/*
 * base/regex: POSIX extended regular expressions that cannot exhaust
 * memory or time.
 *
 * glibc's regcomp copies a subexpression once per count of a bounded
 * repetition, so "(a{255}){255}" or "((a{99}){99}){99}" asks for millions
 * of tree nodes and gigabytes (found by fuzz_route); a backreference makes
 * regexec exponential in the line length.  Patterns reach regcomp from the
 * model (grep, code predicates) and from settings files (routing), so
 * every caller compiles through regex_compile, which refuses such a
 * pattern with a one-line reason before regcomp sees it.
 *
 * The check: the pattern's size once every repetition is expanded
 * (regex_cost: atoms count 1, a group the sum of its branches, a{m,n}
 * max(m,n) times a, a{m,} m+1 times, a+ twice) must stay within
 * REGEX_MAX_COST, and it may hold no backreference (\1 … \9).  Ordinary
 * patterns cost their length; the limit is far above any a person writes.
 *
 * No state; no allocation beyond what regcomp does.  On success the
 * caller owns *re and frees it with regfree; on failure *re holds nothing
 * to free.
 */
#ifndef HEARTH_BASE_REGEX_H
#define HEARTH_BASE_REGEX_H

#include <regex.h>
#include <stddef.h>

#define REGEX_MAX_COST 20000

/* The expanded size of ERE pattern (saturating at REGEX_MAX_COST + 1);
 * sets *backref when it holds \1 … \9 outside a bracket expression. */
size_t regex_cost(const char *pattern, int *backref);

/* The ']' that closes the bracket expression opening at p ('['), with
 * "[]...]", "[^]...]" and [:class:], [.coll.], [=equiv=] inside taken as
 * POSIX does; NULL when it is never closed. */
const char *regex_bracket_end(const char *p);

/* regcomp(re, pattern, flags | REG_EXTENDED) after the cost check; 0 on
 * success, else -1 with a one-line reason in why (regerror's for a syntax
 * error). */
int regex_compile(regex_t *re, const char *pattern, int flags, char *why, size_t whylen);

#endif

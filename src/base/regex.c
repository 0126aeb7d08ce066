/*
 * base/regex: the cost check in front of regcomp (see regex.h).
 *
 * Written by hand because no library estimates what glibc's regcomp will
 * build; the walk follows POSIX ERE syntax only as far as the estimate
 * needs (brackets skipped whole, escapes one atom, groups nested).
 */
#include <stdio.h>
#include <string.h>

#include "base/regex.h"

#define REGEX_DEPTH 64
#define REGEX_CAP (REGEX_MAX_COST + 1)

/* Saturating arithmetic: nothing past REGEX_CAP matters. */
static size_t
regex_add(size_t a, size_t b)
{
	return a + b > REGEX_CAP ? REGEX_CAP : a + b;
}

static size_t
regex_mul(size_t a, size_t b)
{
	if (a && b > REGEX_CAP / a)
		return REGEX_CAP;
	return a * b > REGEX_CAP ? REGEX_CAP : a * b;
}

const char *
regex_bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *end = strchr(p + 2, p[1]);

			while (end && end[1] != ']')
				end = strchr(end + 1, p[1]);
			if (!end)
				return NULL;
			p = end + 2;
		} else
			p++;
	}
	return *p ? p : NULL;
}

/* Read the counts of an interval at p ('{'); the factor it multiplies its
 * atom by, and *end past the '}'.  A malformed interval costs 1: regcomp
 * refuses it or takes it literally. */
static size_t
regex_interval(const char *p, const char **end)
{
	size_t m = 0, n = 0;
	int have_n = 0, comma = 0;

	p++;
	while (*p >= '0' && *p <= '9') {
		m = regex_add(regex_mul(m, 10), (size_t)(*p - '0'));
		p++;
	}
	if (*p == ',') {
		comma = 1;
		p++;
		while (*p >= '0' && *p <= '9') {
			have_n = 1;
			n = regex_add(regex_mul(n, 10), (size_t)(*p - '0'));
			p++;
		}
	}
	if (*p != '}') {
		*end = p;
		return 1;
	}
	*end = p + 1;
	if (!comma)
		return m ? m : 1;
	if (!have_n)
		return regex_add(m, 1);
	return (m > n ? m : n) ? (m > n ? m : n) : 1;
}

size_t
regex_cost(const char *pattern, int *backref)
{
	/* Per open group: the cost of the finished branches and of the
	 * current one; last is the cost of the atom a repetition applies to. */
	size_t done[REGEX_DEPTH], cur[REGEX_DEPTH];
	size_t last = 0;
	int depth = 0;
	const char *p = pattern;

	*backref = 0;
	done[0] = cur[0] = 0;
	while (*p) {
		size_t atom = 0, factor = 0;

		switch (*p) {
		case '[': {
			const char *end = regex_bracket_end(p);

			p = end ? end + 1 : p + strlen(p); /* unclosed: regcomp refuses it */
			atom = 1;
			break;
		}
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				*backref = 1;
			p += p[1] ? 2 : 1;
			atom = 1;
			break;
		case '(':
			if (depth + 1 >= REGEX_DEPTH)
				return REGEX_CAP;
			depth++;
			done[depth] = cur[depth] = 0;
			p++;
			last = 0;
			continue;
		case ')':
			if (depth == 0) {
				p++;
				atom = 1;
				break;
			}
			atom = regex_add(regex_add(done[depth], cur[depth]), 1);
			depth--;
			p++;
			break;
		case '|':
			done[depth] = regex_add(done[depth], cur[depth]);
			cur[depth] = 0;
			last = 0;
			p++;
			continue;
		case '*':
		case '?':
			factor = 1;
			p++;
			break;
		case '+':
			factor = 2;
			p++;
			break;
		case '{':
			factor = regex_interval(p, &p);
			break;
		default:
			p++;
			atom = 1;
			break;
		}
		if (factor) {
			/* The repeated atom is replaced by factor copies of it. */
			cur[depth] = regex_add(cur[depth] - last, regex_mul(last, factor));
			last = regex_mul(last, factor);
			continue;
		}
		cur[depth] = regex_add(cur[depth], atom);
		last = atom;
	}
	while (depth > 0) {
		size_t g = regex_add(done[depth], cur[depth]);

		depth--;
		cur[depth] = regex_add(cur[depth], g);
	}
	return regex_add(done[0], cur[0]);
}

int
regex_compile(regex_t *re, const char *pattern, int flags, char *why, size_t whylen)
{
	int backref, rc;
	size_t cost = regex_cost(pattern, &backref);

	if (backref) {
		snprintf(why, whylen, "backreferences (\\1 … \\9) are not supported; "
			 "match the text itself");
		return -1;
	}
	if (cost > REGEX_MAX_COST) {
		snprintf(why, whylen, "the pattern's repetitions expand past %d elements; "
			 "use smaller counts ({n} of 255 at most, not nested) or * and +",
			 REGEX_MAX_COST);
		return -1;
	}
	rc = regcomp(re, pattern, flags | REG_EXTENDED);
	if (rc != 0) {
		regerror(rc, re, why, whylen);
		regfree(re);
		return -1;
	}
	return 0;
}

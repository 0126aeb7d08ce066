/*
 * code/predicate: evaluating query text predicates (see code/predicate.h).
 *
 * A predicate is a run of steps [string name][args...][DONE]; an argument
 * is a capture id or a string id.  Node text is compared in place
 * (memcmp) except for regexes, which need a NUL-terminated copy: it is cut
 * at CODE_PREDICATE_TEXT_MAX bytes (identifiers and keywords are far shorter).
 *
 * The regex cache maps the query's string pointer (stable for the life of
 * the query, and queries are cached for the life of the process) to its
 * compiled form; when full, further patterns are compiled and freed per
 * use.
 */
#include "code/predicate.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/regex.h"

#define CODE_PREDICATE_TEXT_MAX 256
#define CODE_PREDICATE_CACHE 512

struct rx {
	const char *src; /* the query's string (key) */
	int ok;          /* compiled */
	regex_t re;
};

static struct rx cache[CODE_PREDICATE_CACHE];
static size_t ncache;

/* Append Rust-regex text s as POSIX ERE (\d \w \s and negations translated). */
static void
translate(struct buf *out, const char *s)
{
	int in_br = 0;

	for (; *s; s++) {
		const char *in = NULL, *outside = NULL;

		if (*s == '[' && !in_br) {
			in_br = 1;
			buf_addch(out, *s);
			if (s[1] == '^')
				buf_addch(out, *++s);
			if (s[1] == ']')
				buf_addch(out, *++s);
			continue;
		}
		if (*s == ']' && in_br)
			in_br = 0;
		if (*s != '\\' || !s[1]) {
			buf_addch(out, *s);
			continue;
		}
		switch (s[1]) {
		case 'd': in = "0-9"; outside = "[0-9]"; break;
		case 'w': in = "A-Za-z0-9_"; outside = "[A-Za-z0-9_]"; break;
		case 's': in = "[:space:]"; outside = "[[:space:]]"; break;
		case 'D': outside = "[^0-9]"; break;
		case 'W': outside = "[^A-Za-z0-9_]"; break;
		case 'S': outside = "[^[:space:]]"; break;
		default: break;
		}
		if (in_br && in)
			buf_adds(out, in);
		else if (!in_br && outside)
			buf_adds(out, outside);
		else if (in_br)
			buf_addch(out, s[1]); /* POSIX brackets have no escapes */
		else {
			buf_addch(out, '\\');
			buf_addch(out, s[1]);
		}
		s++;
	}
}

/* Compile pattern src into r; 0 on success. */
static int
compile(regex_t *r, const char *src)
{
	struct buf b = BUF_INIT;
	char why[160];
	int rc;

	translate(&b, src);
	rc = regex_compile(r, b.data ? b.data : "", REG_NOSUB, why, sizeof why);
	buf_release(&b);
	return rc;
}

/* Whether node text t matches pattern src (compiled once and cached). */
static int
rx_match(const char *src, const char *t)
{
	regex_t tmp;
	size_t i;
	int m;

	for (i = 0; i < ncache; i++)
		if (cache[i].src == src)
			return cache[i].ok && regexec(&cache[i].re, t, 0, NULL, 0) == 0;
	if (ncache < CODE_PREDICATE_CACHE) {
		struct rx *c = &cache[ncache++];
		c->src = src;
		c->ok = compile(&c->re, src) == 0;
		return c->ok && regexec(&c->re, t, 0, NULL, 0) == 0;
	}
	if (compile(&tmp, src) != 0)
		return 0;
	m = regexec(&tmp, t, 0, NULL, 0) == 0;
	regfree(&tmp);
	return m;
}

/* The text of the (first) node captured as `id` in m; 0 when none. */
static int
cap_text(const TSQueryMatch *m, uint32_t id, const char *text, size_t n, const char **s,
    size_t *len)
{
	uint16_t i;

	for (i = 0; i < m->capture_count; i++) {
		if (m->captures[i].index != id)
			continue;
		uint32_t a = ts_node_start_byte(m->captures[i].node);
		uint32_t b = ts_node_end_byte(m->captures[i].node);
		if (a > b || b > n)
			return 0;
		*s = text + a;
		*len = b - a;
		return 1;
	}
	return 0;
}

/* The value of an argument step: a capture's text or a string. */
static int
arg_text(const TSQuery *q, const TSQueryMatch *m, const TSQueryPredicateStep *st,
    const char *text, size_t n, const char **s, size_t *len)
{
	uint32_t l;

	if (st->type == TSQueryPredicateStepTypeCapture)
		return cap_text(m, st->value_id, text, n, s, len);
	if (st->type != TSQueryPredicateStepTypeString)
		return 0;
	*s = ts_query_string_value_for_id(q, st->value_id, &l);
	*len = l;
	return 1;
}

/* Evaluate one predicate of nargs arguments; 1 when it holds (or is not ours). */
static int
eval(const TSQuery *q, const TSQueryMatch *m, const char *name,
    const TSQueryPredicateStep *a, size_t nargs, const char *text, size_t n)
{
	int neg = strncmp(name, "not-", 4) == 0;
	const char *op = neg ? name + 4 : name, *x, *y;
	char buf[CODE_PREDICATE_TEXT_MAX + 1];
	size_t xl, yl, i;
	int r = 0;

	if (strcmp(op, "eq?") && strcmp(op, "match?") && strcmp(op, "any-of?"))
		return 1;
	if (nargs < 2 || !arg_text(q, m, &a[0], text, n, &x, &xl))
		return 1; /* capture absent from this match (quantified): nothing to test */
	if (!strcmp(op, "eq?")) {
		r = arg_text(q, m, &a[1], text, n, &y, &yl) && xl == yl && !memcmp(x, y, xl);
	} else if (!strcmp(op, "any-of?")) {
		for (i = 1; i < nargs && !r; i++)
			r = arg_text(q, m, &a[i], text, n, &y, &yl) && xl == yl && !memcmp(x, y, xl);
	} else {
		if (a[1].type != TSQueryPredicateStepTypeString)
			return 0;
		if (xl > CODE_PREDICATE_TEXT_MAX)
			xl = CODE_PREDICATE_TEXT_MAX;
		memcpy(buf, x, xl);
		buf[xl] = '\0';
		if (memchr(buf, '\0', xl))
			return 0;
		r = rx_match(ts_query_string_value_for_id(q, a[1].value_id, &(uint32_t){0}), buf);
	}
	return neg ? !r : r;
}

/* Walk the pattern's predicates; all must hold. */
int
code_predicate_ok(const TSQuery *q, const TSQueryMatch *m, const char *text, size_t n)
{
	uint32_t ns, i = 0, j, len;
	const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(q, m->pattern_index, &ns);

	while (i < ns) {
		const char *name;

		for (j = i; j < ns && st[j].type != TSQueryPredicateStepTypeDone; j++)
			;
		if (st[i].type == TSQueryPredicateStepTypeString) {
			name = ts_query_string_value_for_id(q, st[i].value_id, &len);
			if (!eval(q, m, name, st + i + 1, j - i - 1, text, n))
				return 0;
		}
		i = j + 1;
	}
	return 1;
}

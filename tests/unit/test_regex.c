/* test_regex: the cost check in front of regcomp (base/regex). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/regex.h"

static size_t
cost(const char *p)
{
	int br;

	return regex_cost(p, &br);
}

/* Ordinary patterns cost about their length and compile. */
static void
test_ordinary(void **state)
{
	static const char *const ok[] = {
		"TODO", "fn_[a-z]+\\(", "^(foo|bar)baz$", "[[:alpha:]_][[:alnum:]_]*", "a{2,5}b{3}",
		"[]a{}]{1000}x", "x{3,}", "(ab|cd){10}", "\\{100000\\}", "[^]x]+", "a|b|c",
	};
	char why[200];
	regex_t re;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof *ok; i++) {
		assert_true(cost(ok[i]) <= REGEX_MAX_COST);
		assert_int_equal(regex_compile(&re, ok[i], REG_NOSUB, why, sizeof why), 0);
		regfree(&re);
	}
	assert_int_equal(cost("abc"), 3);
	assert_int_equal(cost("a{5}"), 5);
	assert_int_equal(cost("a{2,7}"), 7);
	assert_int_equal(cost("a{4,}"), 5);
	assert_int_equal(cost("a+"), 2);
	assert_int_equal(cost("(ab){3}"), 9);
	assert_int_equal(cost("(a|bc)d"), 5);
	assert_int_equal(cost("[abc]{4}"), 4);
}

/* Nested or huge repetitions are refused before regcomp builds them. */
static void
test_explosive(void **state)
{
	static const char *const bad[] = {
		"(a{255}){255}", "((a{99}){99}){99}", "((((((((a+)+)+)+)+)+)+)+){1000}",
		"(x{1,30000})", "([a-z]{200}|b){200}", "((ab){150}c){150}",
		"(((a{1,255}){1,255}){1,255}", /* unclosed groups count too */
	};
	char why[200];
	regex_t re;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_true(cost(bad[i]) > REGEX_MAX_COST);
		assert_int_equal(regex_compile(&re, bad[i], REG_NOSUB, why, sizeof why), -1);
		assert_non_null(strstr(why, "repetitions"));
	}
}

/* A backreference is refused: it makes matching exponential. */
static void
test_backref(void **state)
{
	char why[200];
	regex_t re;
	int br;

	(void)state;
	regex_cost("(a)\\1", &br);
	assert_true(br);
	regex_cost("[\\1]", &br);
	assert_false(br);
	assert_int_equal(regex_compile(&re, "(a*)*\\1x", REG_NOSUB, why, sizeof why), -1);
	assert_non_null(strstr(why, "backreference"));
}

/* A syntax error keeps regerror's words. */
static void
test_syntax(void **state)
{
	char why[200];
	regex_t re;

	(void)state;
	assert_int_equal(regex_compile(&re, "a(b", REG_NOSUB, why, sizeof why), -1);
	assert_true(why[0] != 0);
	assert_null(strstr(why, "repetitions"));
}

/* The closing ']' of a bracket expression, as POSIX reads it (grep's \\d
 * rewrite and literal prefilter, and the cost estimate, all rely on it). */
static void
test_bracket_end(void **state)
{
	static const struct { const char *re; int end; } cases[] = {
		{ "[abc]x", 4 }, { "[]a]x", 3 }, { "[^]a]x", 4 }, { "[]]", 2 },
		{ "[[:alpha:]_]x", 11 }, { "[[.].]a]b", 7 }, { "[[=e=]]", 6 },
		{ "[a\\]b]", 3 }, /* a backslash is literal inside brackets */
		{ "[abc", -1 }, { "[]", -1 }, { "[[:alpha:", -1 }, { "[^", -1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *e = regex_bracket_end(cases[i].re);

		if (cases[i].end < 0)
			assert_null(e);
		else {
			assert_non_null(e);
			assert_int_equal(e - cases[i].re, cases[i].end);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinary),
		cmocka_unit_test(test_explosive),
		cmocka_unit_test(test_backref),
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_bracket_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

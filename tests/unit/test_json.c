/*
 * test_json: the cJSON helpers — parse errors with positions, typed getters
 * on wrong types, the deterministic escaper (checked against cJSON's own
 * parser), printing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/json.h"

/* Parse a C string, asserting success. */
static cJSON *
parse_ok(const char *s)
{
	struct err e = ERR_INIT;
	cJSON *v = json_parse(s, strlen(s), &e);

	assert_non_null(v);
	assert_false(err_isset(&e));
	return v;
}

/* Parse a C string, asserting failure with the given message. */
static void
parse_fails(const char *s, size_t n, const char *want)
{
	struct err e = ERR_INIT;

	assert_null(json_parse(s, n, &e));
	assert_string_equal(e.msg, want);
}

static void
test_parse_ok(void **state)
{
	cJSON *v;

	(void)state;
	v = parse_ok("  {\"a\": [1, 2, {\"b\": null}]}\n\t");
	assert_true(cJSON_IsObject(v));
	cJSON_Delete(v);
	/* Only n bytes are read: what follows is not part of the value. */
	v = json_parse("{\"a\":1}garbage", 7, NULL);
	assert_non_null(v);
	cJSON_Delete(v);
	v = parse_ok("42");
	assert_true(cJSON_IsNumber(v));
	cJSON_Delete(v);
}

static void
test_parse_errors(void **state)
{
	(void)state;
	parse_fails("{\"a\":1} x", 9, "invalid JSON at line 1, column 9: near 'x'");
	parse_fails("{\n  \"a\": 1,\n  \"b\": tru\n}", 23,
		    "invalid JSON at line 3, column 8: near 'tru'");
	parse_fails("", 0, "invalid JSON at line 1, column 1: unexpected end of input");
	parse_fails("{\"a\":", 5, "invalid JSON at line 1, column 5: near ':'");
	parse_fails("[1,2]]", 6, "invalid JSON at line 1, column 6: near ']'");
	/* Control bytes in the quoted context are made printable. */
	parse_fails("{\"a\":1 \x7f\x7f}", 10, "invalid JSON at line 1, column 8: near '??}'");
	/* The error pointer never escapes the n bytes given. */
	parse_fails("{\"a\":\"bc", 8, "invalid JSON at line 1, column 7: near 'bc'");
	parse_fails("[1,2", 4, "invalid JSON at line 1, column 4: near '2'");
	/* NULL message target is allowed. */
	assert_null(json_parse("nope", 4, NULL));
	assert_null(json_parse(NULL, 0, NULL));
}

static void
test_getters(void **state)
{
	cJSON *v = parse_ok("{\"s\":\"x\",\"n\":3.9,\"neg\":-2,\"big\":1e300,\"t\":true,"
			    "\"f\":false,\"z\":null,\"o\":{\"k\":1},\"a\":[1],\"one\":1}");
	long l = 77;
	double d = 0;
	int b = 9;

	(void)state;
	assert_string_equal(json_str(v, "s"), "x");
	assert_null(json_str(v, "n"));
	assert_null(json_str(v, "missing"));
	assert_null(json_str(NULL, "s"));
	assert_null(json_str(json_arr(v, "a"), "s"));
	assert_int_equal(json_long(v, "n", &l), 0);
	assert_int_equal(l, 3);
	assert_int_equal(json_long(v, "neg", &l), 0);
	assert_int_equal(l, -2);
	l = 77;
	assert_int_equal(json_long(v, "big", &l), -1);
	assert_int_equal(json_long(v, "s", &l), -1);
	assert_int_equal(json_long(v, "z", &l), -1);
	assert_int_equal(l, 77);
	assert_int_equal(json_double(v, "n", &d), 0);
	assert_true(d > 3.89 && d < 3.91);
	assert_int_equal(json_double(v, "t", &d), -1);
	assert_int_equal(json_bool(v, "t", &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(json_bool(v, "f", &b), 0);
	assert_int_equal(b, 0);
	b = 9;
	assert_int_equal(json_bool(v, "one", &b), -1);
	assert_int_equal(b, 9);
	assert_non_null(json_obj(v, "o"));
	assert_null(json_obj(v, "a"));
	assert_non_null(json_arr(v, "a"));
	assert_null(json_arr(v, "o"));
	assert_null(json_obj(NULL, "o"));
	assert_int_equal(json_long(json_arr(v, "a"), "k", &l), -1);
	cJSON_Delete(v);
}

/* Escape n bytes and return the literal (caller frees). */
static char *
escape(const char *s, size_t n)
{
	struct buf b = BUF_INIT;

	json_add_escaped(&b, s, n);
	return buf_detach(&b, NULL);
}

/* Assert the escaped form of n bytes of s. */
static void
escapes_to(const char *s, size_t n, const char *want)
{
	char *got = escape(s, n);

	assert_string_equal(got, want);
	free(got);
}

static void
test_escape(void **state)
{
	(void)state;
	escapes_to("", 0, "\"\"");
	escapes_to("plain text", 10, "\"plain text\"");
	escapes_to("q\"b\\s/", 6, "\"q\\\"b\\\\s/\"");
	escapes_to("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"");
	escapes_to("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	escapes_to("a\0b", 3, "\"a\\u0000b\"");
	/* Valid UTF-8 (2, 3 and 4 bytes) is copied as is. */
	escapes_to("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
		   "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* Invalid: lone continuation, truncated, overlong, surrogate, > U+10FFFF. */
	escapes_to("\x80", 1, "\"\\ufffd\"");
	escapes_to("\xe2\x82", 2, "\"\\ufffd\"");
	escapes_to("\xe2\x82x", 3, "\"\\ufffdx\"");
	escapes_to("\xc0\x80", 2, "\"\\ufffd\\ufffd\"");
	escapes_to("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
	escapes_to("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	escapes_to("\xf5z", 2, "\"\\ufffdz\"");
	escapes_to("\xf0\x9f\x98", 3, "\"\\ufffd\"");
}

/* Every byte string escapes to a literal cJSON reads back (valid input: unchanged). */
static void
test_escape_roundtrip(void **state)
{
	char bytes[256];
	const char *valid = "tab\there \"q\" back\\ nl\n \xc3\xa9 \xf0\x9f\x98\x80 end";
	cJSON *v;
	char *lit;
	int i;

	(void)state;
	for (i = 0; i < 256; i++)
		bytes[i] = (char)(255 - i);
	lit = escape(bytes, sizeof bytes);
	v = parse_ok(lit);
	assert_true(cJSON_IsString(v));
	cJSON_Delete(v);
	free(lit);
	lit = escape(valid, strlen(valid));
	v = parse_ok(lit);
	assert_string_equal(v->valuestring, valid);
	cJSON_Delete(v);
	free(lit);
	/* Deterministic: same input, same bytes; appends to what is there. */
	{
		struct buf a = BUF_INIT, b = BUF_INIT;

		buf_adds(&a, "x=");
		json_add_escaped(&a, valid, strlen(valid));
		json_add_escaped(&b, valid, strlen(valid));
		assert_string_equal(a.data + 2, b.data);
		buf_release(&a);
		buf_release(&b);
	}
}

static void
test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(json_utf8_len("a", 1), 1);
	assert_int_equal(json_utf8_len("\xc3\xa9", 2), 2);
	assert_int_equal(json_utf8_len("\xc3\xa9", 1), 0);
	assert_int_equal(json_utf8_len("\xe2\x82\xac", 3), 3);
	assert_int_equal(json_utf8_len("\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(json_utf8_len("\xbf", 1), 0);
	assert_int_equal(json_utf8_len("x", 0), 0);
}

static void
test_print(void **state)
{
	cJSON *v = parse_ok("{ \"b\" : [ 1 , true ],\n \"a\" : \"\\u00e9\" }");
	char *s = json_print(v);

	(void)state;
	assert_string_equal(s, "{\"b\":[1,true],\"a\":\"\xc3\xa9\"}");
	free(s);
	cJSON_Delete(v);
	assert_null(json_print(NULL));
}

/* A lone surrogate escape reads as U+FFFD (EF BF BD); pairs and escaped backslashes are kept. */
static void
test_lone_surrogate(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "\"a\\ud800b\"", "a\xef\xbf\xbd" "b" },                 /* high, then a plain char */
		{ "\"\\ud800\"", "\xef\xbf\xbd" },                         /* high at the end */
		{ "\"\\udc00x\"", "\xef\xbf\xbdx" },                       /* low alone */
		{ "\"\\ud800\\u0041\"", "\xef\xbf\xbd" "A" },              /* high, then not a low */
		{ "\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80" }, /* lone high, then a pair */
		{ "\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80" },              /* a pair, upper case */
		{ "\"\\\\ud800\"", "\\ud800" },                            /* an escaped backslash: text */
		{ "\"\\udbff\\n\"", "\xef\xbf\xbd\n" },                    /* high, then another escape */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *v = parse_ok(cases[i].in);

		assert_true(cJSON_IsString(v));
		assert_string_equal(v->valuestring, cases[i].want);
		cJSON_Delete(v);
	}
}

/* A stream chunk with a lone surrogate keeps the rest of the answer. */
static void
test_lone_surrogate_in_object(void **state)
{
	const char *s = "{\"choices\":[{\"delta\":{\"content\":\"x\\udfffy\"}}],\"n\":1}";
	cJSON *v = parse_ok(s);
	const cJSON *d = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "choices"), 0), "delta");

	(void)state;
	assert_string_equal(json_str(d, "content"), "x\xef\xbf\xbdy");
	cJSON_Delete(v);
	/* a truncated escape is still an error, at the same place */
	parse_fails("\"\\ud80", 6, "invalid JSON at line 1, column 2: near '\\ud80'");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_roundtrip),
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_lone_surrogate),
		cmocka_unit_test(test_lone_surrogate_in_object),
	};

	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

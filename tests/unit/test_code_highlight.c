/*
 * test_code_highlight: code_highlight — kinds of well-known tokens in several
 * languages, predicates (#match? on constants), fence info strings,
 * unknown languages, the size cut-off and bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "code/code.h"

/* Kind of the byte where `needle` starts in text (CODE_PLAIN when uncovered). */
static enum code_kind
kind_at(const struct code_hl *h, const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	size_t at, i;

	assert_non_null(p);
	at = (size_t)(p - text);
	for (i = 0; i < h->n; i++)
		if (h->spans[i].start <= at && at < h->spans[i].end)
			return h->spans[i].kind;
	return CODE_PLAIN;
}

/* Highlight text as language `name`, checking the result's invariants. */
static void
hl(const char *name, const char *text, struct code_hl *h)
{
	struct err e = ERR_INIT;
	size_t i;

	assert_int_equal(code_highlight(code_lang_by_name(name), text, strlen(text), h, &e), 0);
	assert_int_equal(h->cut, 0);
	assert_int_equal(h->done, strlen(text));
	for (i = 0; i < h->n; i++) {
		assert_true(h->spans[i].start < h->spans[i].end);
		assert_true(h->spans[i].end <= strlen(text));
		assert_int_not_equal(h->spans[i].kind, CODE_PLAIN);
		assert_non_null(h->spans[i].capture);
		if (i)
			assert_true(h->spans[i - 1].end <= h->spans[i].start);
	}
}

static void
test_c(void **state)
{
	const char *t = "/* hi */\nstatic int\nmain(void)\n{\n\treturn puts(\"x\") + 42;\n}\n";
	struct code_hl h;

	(void)state;
	hl("c", t, &h);
	assert_int_equal(kind_at(&h, t, "/* hi"), CODE_COMMENT);
	assert_int_equal(kind_at(&h, t, "static"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, t, "return"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, t, "int"), CODE_TYPE);
	assert_int_equal(kind_at(&h, t, "\"x\""), CODE_STRING);
	assert_int_equal(kind_at(&h, t, "42"), CODE_NUMBER);
	assert_int_equal(kind_at(&h, t, "puts"), CODE_FUNCTION);
	assert_int_equal(kind_at(&h, t, "main"), CODE_FUNCTION);
	assert_int_equal(kind_at(&h, t, "\n{"), CODE_PLAIN);
	code_hl_release(&h);
}

static void
test_python(void **state)
{
	const char *t = "# note\ndef area(r):\n    return 3.14 * r * r  # pi\nMAX_SIZE = 'big'\n";
	struct code_hl h;

	(void)state;
	hl("python", t, &h);
	assert_int_equal(kind_at(&h, t, "# note"), CODE_COMMENT);
	assert_int_equal(kind_at(&h, t, "def"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, t, "area"), CODE_FUNCTION);
	assert_int_equal(kind_at(&h, t, "3.14"), CODE_NUMBER);
	assert_int_equal(kind_at(&h, t, "'big'"), CODE_STRING);
	/* (identifier) @constant (#match? @constant "^[A-Z][A-Z_]*$") */
	assert_int_equal(kind_at(&h, t, "MAX_SIZE"), CODE_CONSTANT);
	code_hl_release(&h);
}

static void
test_more_langs(void **state)
{
	const char *go = "package main\n\nfunc main() {\n\tx := \"s\"\n\t_ = x\n}\n";
	const char *rs = "fn add(a: i32) -> i32 { a + 1 }\n";
	const char *js = "const f = (x) => x + 1; // c\n";
	const char *json = "{\"a\": [1, true, null]}\n";
	struct code_hl h;

	(void)state;
	hl("go", go, &h);
	assert_int_equal(kind_at(&h, go, "func"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, go, "\"s\""), CODE_STRING);
	code_hl_release(&h);
	hl("rust", rs, &h);
	assert_int_equal(kind_at(&h, rs, "fn"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, rs, "add"), CODE_FUNCTION);
	assert_int_equal(kind_at(&h, rs, "i32"), CODE_TYPE);
	code_hl_release(&h);
	hl("javascript", js, &h);
	assert_int_equal(kind_at(&h, js, "const"), CODE_KEYWORD);
	assert_int_equal(kind_at(&h, js, "// c"), CODE_COMMENT);
	code_hl_release(&h);
	hl("json", json, &h);
	assert_int_equal(kind_at(&h, json, "1,"), CODE_NUMBER);
	assert_int_equal(kind_at(&h, json, "true"), CODE_CONSTANT);
	code_hl_release(&h);
}

static void
test_fence_info(void **state)
{
	(void)state;
	assert_string_equal(code_lang_for_fence("c")->name, "c");
	assert_string_equal(code_lang_for_fence("py")->name, "python");
	assert_string_equal(code_lang_for_fence("Python title=x")->name, "python");
	assert_string_equal(code_lang_for_fence("{.rust}")->name, "rust");
	assert_string_equal(code_lang_for_fence("shell")->name, "bash");
	assert_string_equal(code_lang_for_fence("sh")->name, "bash");
	assert_string_equal(code_lang_for_fence("ts")->name, "typescript");
	assert_string_equal(code_lang_for_fence("c++")->name, "cpp");
	assert_string_equal(code_lang_for_fence("src/main.go")->name, "go");
	assert_null(code_lang_for_fence(""));
	assert_null(code_lang_for_fence(NULL));
	assert_null(code_lang_for_fence("klingon"));
	assert_null(code_lang_for_fence("text"));
	assert_string_equal(code_kind_name(CODE_KEYWORD), "keyword");
	assert_string_equal(code_kind_name((enum code_kind)99), "plain");
	assert_int_equal(code_kind_of_capture("function.method"), CODE_FUNCTION);
	assert_int_equal(code_kind_of_capture("property"), CODE_VARIABLE);
	assert_int_equal(code_kind_of_capture("nonsense"), CODE_PLAIN);
}

static void
test_unknown_lang(void **state)
{
	struct code_hl h;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(code_highlight(NULL, "int x;", 6, &h, &e), -1);
	assert_non_null(strstr(e.msg, "no language"));
	assert_int_equal(h.n, 0);
	assert_null(h.spans);
	code_hl_release(&h);
}

/* Over CODE_HL_MAX_BYTES: highlighted up to a line end, the rest left plain, in bounded time. */
static void
test_huge_cut(void **state)
{
	const char *line = "int v = 1; /* c */\n";
	size_t ll = strlen(line), n = CODE_HL_MAX_BYTES * 3, i;
	char *t = malloc(n + 1);
	struct code_hl h;
	struct err e = ERR_INIT;

	(void)state;
	for (i = 0; i + ll <= n; i += ll)
		memcpy(t + i, line, ll);
	memset(t + i, 'x', n - i);
	t[n] = '\0';
	assert_int_equal(code_highlight(code_lang_by_name("c"), t, n, &h, &e), 0);
	assert_int_equal(h.cut, 1);
	assert_true(h.done <= CODE_HL_MAX_BYTES);
	assert_true(h.done == 0 || t[h.done - 1] == '\n');
	for (i = 0; i < h.n; i++)
		assert_true(h.spans[i].end <= h.done);
	code_hl_release(&h);
	/* (spans over the cut part depend on the machine's speed: the time bound
	 * may stop the parse under valgrind; a small prefix always highlights) */
	assert_int_equal(code_highlight(code_lang_by_name("c"), t, 1000, &h, &e), 0);
	assert_int_equal(h.cut, 0);
	assert_true(h.n > 0);
	code_hl_release(&h);
	free(t);
}

/* Binary, NUL bytes and invalid UTF-8 are safe and give valid spans. */
static void
test_bad_input(void **state)
{
	static const char junk[] = "int \xff\xfe x = \"\x00\x1b[2J\"; \xc3( return 0; }}}";
	struct code_hl h;
	struct err e = ERR_INIT;
	size_t i, n = sizeof junk - 1;
	size_t k;

	(void)state;
	for (k = 0; k < 17; k++) {
		size_t nl;
		const struct code_lang *l = code_langs(&nl) + k;
		assert_true(k < nl);
		assert_int_equal(code_highlight(l, junk, n, &h, &e), 0);
		for (i = 0; i < h.n; i++)
			assert_true(h.spans[i].end <= n);
		code_hl_release(&h);
	}
	assert_int_equal(code_highlight(code_lang_by_name("c"), NULL, 10, &h, &e), 0);
	assert_int_equal(h.n, 0);
	code_hl_release(&h);
	code_hl_release(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_more_langs),
		cmocka_unit_test(test_fence_info),
		cmocka_unit_test(test_unknown_lang),
		cmocka_unit_test(test_huge_cut),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

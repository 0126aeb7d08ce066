/*
 * test_syn: every compiled-in grammar loads with the system libtree-sitter,
 * parses a valid sample cleanly and a broken one with errors, and its
 * embedded queries compile (or fail exactly where code/code.c documents it with
 * CODE_NO_HIGHLIGHTS).  Also: path mapping, the size limit, bad input.
 *
 * `samples` must name every language in the registry: a grammar added to
 * mk/grammars.mk and code/code.c without a sample here fails test_every_lang_has_sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <tree_sitter/api.h>

#include "code/code.h"

struct sample {
	const char *lang;
	const char *good;   /* parses without ERROR/MISSING */
	const char *broken; /* has at least one ERROR/MISSING; NULL if the grammar accepts anything */
};

static const struct sample samples[] = {
	{ "c", "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 1); return 0; }\n",
		"int main( { return 0; }\n" },
	{ "cpp", "#include <vector>\nint main() { std::vector<int> v{1, 2}; return (int)v.size(); }\n",
		"class A { public: int f( };\n" },
	{ "python", "def f(x):\n    return [i * 2 for i in range(x)]\n", "def f(:\n    return\n" },
	{ "javascript", "const f = (x) => x + 1;\nrender(<div>{f(1)}</div>);\n",
		"function f( { return 1; }\n" },
	{ "typescript", "function f(x: number): number { return x + 1; }\n",
		"function f(x: number: number { return x }\n" },
	{ "tsx", "const A = (p: { n: number }) => <div>{p.n}</div>;\n",
		"const A = <div>{p.n</div>;\n" },
	{ "go", "package main\n\nfunc main() {\n\tprintln(1)\n}\n", "package main\n\nfunc main( {\n}\n" },
	{ "rust", "fn main() { let x: i32 = 1; println!(\"{}\", x); }\n", "fn main() { let x = ; }\n" },
	{ "bash", "for f in *.c; do echo \"$f\"; done\n", "for f in *.c; do echo \"$f\"\n" },
	{ "json", "{\"a\": [1, 2, {\"b\": null}], \"c\": true}\n", "{\"a\": }\n" },
	{ "java", "class A { int f() { return 1; } }\n", "class A { int f( { return 1; } }\n" },
	{ "ruby", "def f(x)\n  x.map { |y| y + 1 }\nend\n", "def f(x\n  x +\n" },
	{ "html", "<!DOCTYPE html>\n<html><body><p class=\"a\">hi</p></body></html>\n",
		"<p class=\"a>hi</p>\n" },
	{ "css", "body { color: red; margin: 0 auto; }\n", "body { color: red;\n" },
	{ "yaml", "a: 1\nb:\n  - x\n  - y\n", "a: [1, 2\nb: }\n" },
	{ "markdown", "# Title\n\nSome text.\n\n- item\n", NULL },
	{ "markdown_inline", "some *emphasis* and `code`", NULL },
};

#define NSAMPLES (sizeof samples / sizeof samples[0])

/* The sample row of a language, or NULL. */
static const struct sample *
sample_for(const char *lang)
{
	size_t i;

	for (i = 0; i < NSAMPLES; i++)
		if (strcmp(samples[i].lang, lang) == 0)
			return &samples[i];
	return NULL;
}

/* Registry and sample table name the same languages. */
static void
test_every_lang_has_sample(void **state)
{
	size_t n, i;
	const struct code_lang *l = code_langs(&n);

	(void)state;
	assert_true(n >= 12);
	for (i = 0; i < n; i++) {
		if (!sample_for(l[i].name))
			fail_msg("no sample for language %s", l[i].name);
	}
	for (i = 0; i < NSAMPLES; i++)
		assert_non_null(code_lang_by_name(samples[i].lang));
}

/* Every grammar has an ABI the system library accepts. */
static void
test_grammars_load(void **state)
{
	size_t n, i;
	const struct code_lang *l = code_langs(&n);

	(void)state;
	for (i = 0; i < n; i++) {
		TSParser *p = ts_parser_new();
		const TSLanguage *tl = l[i].language();
		uint32_t v = ts_language_version(tl);

		if (!ts_parser_set_language(p, tl))
			fail_msg("%s: ts_parser_set_language refused ABI %u", l[i].name, (unsigned)v);
		assert_in_range(v, TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
			TREE_SITTER_LANGUAGE_VERSION);
		ts_parser_delete(p);
	}
}

/* Valid code parses with no ERROR or MISSING node. */
static void
test_valid_samples_parse_clean(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NSAMPLES; i++) {
		const struct code_lang *l = code_lang_by_name(samples[i].lang);
		struct code_tree *t = NULL;
		struct err e = ERR_INIT;
		struct code_error first;
		size_t nerr;

		assert_int_equal(code_parse(l, samples[i].good, strlen(samples[i].good), &t, &e), 0);
		assert_ptr_equal(code_tree_lang(t), l);
		nerr = code_errors(t, &first, 1);
		if (nerr)
			fail_msg("%s: %zu errors, first %s at %zu:%zu", l->name, nerr, first.what,
				first.line, first.col);
		assert_false(ts_node_has_error(ts_tree_root_node(code_tree_ts(t))));
		assert_true(ts_node_child_count(ts_tree_root_node(code_tree_ts(t))) > 0);
		code_release(t);
	}
}

/* Broken code yields at least one counted and described error. */
static void
test_broken_samples_count_errors(void **state)
{
	size_t i, nbroken = 0;

	(void)state;
	for (i = 0; i < NSAMPLES; i++) {
		const struct code_lang *l = code_lang_by_name(samples[i].lang);
		struct code_tree *t = NULL;
		struct err e = ERR_INIT;
		struct code_error errs[4];
		size_t nerr, k;

		if (!samples[i].broken)
			continue;
		nbroken++;
		assert_int_equal(code_parse(l, samples[i].broken, strlen(samples[i].broken), &t, &e),
			0);
		nerr = code_errors(t, errs, 4);
		if (nerr == 0)
			fail_msg("%s: broken sample parsed without errors", l->name);
		assert_true(ts_node_has_error(ts_tree_root_node(code_tree_ts(t))));
		for (k = 0; k < nerr && k < 4; k++)
			assert_non_null(errs[k].what);
		/* Counting without storage gives the same number. */
		assert_int_equal(code_errors(t, NULL, 0), nerr);
		code_release(t);
	}
	assert_true(nbroken >= 12);
}

/* A missing semicolon is reported as MISSING ";" on its line. */
static void
test_missing_token_position(void **state)
{
	static const char src[] = "int f(void)\n{\n\treturn 0\n}\n";
	struct code_tree *t = NULL;
	struct err e = ERR_INIT;
	struct code_error er;

	(void)state;
	assert_int_equal(code_parse(code_lang_by_name("c"), src, strlen(src), &t, &e), 0);
	assert_int_equal(code_errors(t, &er, 1), 1);
	assert_int_equal(er.missing, 1);
	assert_string_equal(er.what, ";");
	assert_int_equal(er.line, 2);
	code_release(t);
}

/* Compile a query; returns 1 when it compiles, printing why when not. */
static int
query_ok(const struct code_lang *l, const char *kind, const char *src)
{
	uint32_t off = 0;
	TSQueryError qe = TSQueryErrorNone;
	TSQuery *q = ts_query_new(l->language(), src, (uint32_t)strlen(src), &off, &qe);

	if (q) {
		assert_true(ts_query_pattern_count(q) > 0);
		ts_query_delete(q);
		return 1;
	}
	print_message("%s %s: ts_query_new error %d at offset %u\n", l->name, kind, (int)qe,
		(unsigned)off);
	return 0;
}

/* Embedded queries compile with libtree-sitter 0.20.7, as code/code.c documents. */
static void
test_queries_compile(void **state)
{
	size_t n, i, ntags = 0;
	const struct code_lang *l = code_langs(&n);

	(void)state;
	for (i = 0; i < n; i++) {
		int want = !(l[i].flags & CODE_NO_HIGHLIGHTS);

		assert_non_null(l[i].highlights);
		assert_non_null(l[i].tags);
		if (!*l[i].highlights)
			fail_msg("%s: no highlights query embedded", l[i].name);
		if (query_ok(&l[i], "highlights", l[i].highlights) != want)
			fail_msg("%s: highlights query %s, but syn.c documents the opposite",
				l[i].name, want ? "fails" : "compiles");
		if (*l[i].tags) {
			ntags++;
			if (!query_ok(&l[i], "tags", l[i].tags))
				fail_msg("%s: tags query does not compile", l[i].name);
		}
	}
	assert_true(ntags >= 8);
}

/* File names map to the right grammar, or to none. */
static void
test_lang_for_path(void **state)
{
	static const struct {
		const char *path, *lang; /* lang NULL: no grammar */
	} cases[] = {
		{ "main.c", "c" }, { "src/syn.h", "c" }, { "a.cc", "cpp" }, { "a.cpp", "cpp" },
		{ "/x/y.hpp", "cpp" }, { "a.cxx", "cpp" }, { "t.py", "python" },
		{ "a.js", "javascript" }, { "a.mjs", "javascript" }, { "a.cjs", "javascript" },
		{ "a.jsx", "javascript" }, { "a.ts", "typescript" }, { "App.tsx", "tsx" },
		{ "main.go", "go" }, { "lib.rs", "rust" }, { "x.sh", "bash" }, { "x.bash", "bash" },
		{ "package.json", "json" }, { "a.yaml", "yaml" }, { "a.yml", "yaml" },
		{ "README.md", "markdown" }, { "README.MD", "markdown" }, { "A.java", "java" },
		{ "x.rb", "ruby" }, { "i.html", "html" }, { "s.css", "css" },
		{ "/home/u/.bashrc", "bash" }, { "Gemfile", "ruby" },
		{ "Makefile", NULL }, { "README", NULL }, { "", NULL }, { "dir/", NULL },
		{ "x.", NULL }, { ".c", NULL }, { "dir.c/file", NULL }, { "a.unknown", NULL },
		{ "a.c.orig", NULL }, { "src/.hidden.py", "python" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct code_lang *l = code_lang_for_path(cases[i].path);
		const char *got = l ? l->name : NULL;

		if (!cases[i].lang ? got != NULL : !got || strcmp(got, cases[i].lang) != 0)
			fail_msg("%s: got %s, want %s", cases[i].path, got ? got : "none",
				cases[i].lang ? cases[i].lang : "none");
	}
	assert_null(code_lang_for_path(NULL));
	assert_null(code_lang_by_name(NULL));
	assert_null(code_lang_by_name("cobol"));
	assert_string_equal(code_lang_by_name("tsx")->name, "tsx");
}

/* Text over CODE_MAX_BYTES is refused with a note; at the limit it parses. */
static void
test_too_big_is_refused(void **state)
{
	size_t n = CODE_MAX_BYTES + 1;
	char *big = malloc(n);
	struct code_tree *t = (struct code_tree *)&n; /* must be reset to NULL */
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(big);
	memset(big, ' ', n);
	assert_int_equal(code_parse(code_lang_by_name("c"), big, n, &t, &e), -1);
	assert_null(t);
	assert_non_null(strstr(e.msg, "limit"));
	/* Exactly at the limit is parsed. */
	assert_int_equal(code_parse(code_lang_by_name("json"), big, n - 1, &t, &e), 0);
	code_release(t);
	free(big);
}

/* NULL arguments, empty text and binary junk neither crash nor leak. */
static void
test_bad_input(void **state)
{
	static const char junk[] = "\x00\xff\xfe{{\x80\xc3(\"\\\x00]]";
	struct code_tree *t = NULL;
	struct err e = ERR_INIT;
	size_t n, i;
	const struct code_lang *l = code_langs(&n);

	(void)state;
	assert_int_equal(code_parse(NULL, "x", 1, &t, &e), -1);
	assert_true(err_isset(&e));
	assert_null(t);
	assert_int_equal(code_parse(l, NULL, 3, &t, &e), -1);
	/* Empty text and binary junk parse in every grammar without crashing. */
	for (i = 0; i < n; i++) {
		assert_int_equal(code_parse(&l[i], NULL, 0, &t, &e), 0);
		/* markdown_inline (only ever injected into markdown) wants some text. */
		if (code_errors(t, NULL, 0) != 0 && strcmp(l[i].name, "markdown_inline") != 0)
			fail_msg("%s: empty text has errors", l[i].name);
		code_release(t);
		assert_int_equal(code_parse(&l[i], junk, sizeof junk - 1, &t, &e), 0);
		(void)code_errors(t, NULL, 0);
		code_release(t);
	}
	assert_int_equal(code_errors(NULL, NULL, 0), 0);
	assert_null(code_tree_ts(NULL));
	code_release(NULL);
}

/* A deeply nested broken document is walked without recursion. */
static void
test_deep_nesting(void **state)
{
	size_t depth = 20000, i, n = 0;
	char *s = malloc(depth * 2 + 2);
	struct code_tree *t = NULL;
	struct err e = ERR_INIT;
	struct code_error er;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < depth; i++)
		s[n++] = '[';
	s[n++] = '1';
	for (i = 0; i < depth - 1; i++) /* one bracket short */
		s[n++] = ']';
	assert_int_equal(code_parse(code_lang_by_name("json"), s, n, &t, &e), 0);
	assert_true(code_errors(t, &er, 1) >= 1);
	code_release(t);
	free(s);
}

/* Run every test. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_lang_has_sample),
		cmocka_unit_test(test_grammars_load),
		cmocka_unit_test(test_valid_samples_parse_clean),
		cmocka_unit_test(test_broken_samples_count_errors),
		cmocka_unit_test(test_missing_token_position),
		cmocka_unit_test(test_queries_compile),
		cmocka_unit_test(test_lang_for_path),
		cmocka_unit_test(test_too_big_is_refused),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

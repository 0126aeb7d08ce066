/*
 * test_synskel: the definitions-only parse.  Per language, the prescan
 * leaves out exactly the function bodies (named by their lines), not the
 * braces of structs, initializers, control statements or literals; the
 * tree outside the bodies is the whole parse's, node for node; holes that
 * do not fit are dropped and what is left is checked again; trouble in the
 * text never crashes and never gives a wrong tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skeldump.h"
#include <tree_sitter/api.h>

#include "code/code.h"
#include "code/cpp.h"
#include "code/skeleton.h"

/* The holes of text as "L1-L2 L3-L4" (1-based lines of each hole's start and end byte). */
static void
hole_lines(const char *lang, const char *text, struct buf *out)
{
	struct code_skeleton_holes h = { NULL, 0, 0 };
	size_t k, i, line;

	buf_reset(out);
	assert_int_equal(code_skeleton_find(lang, text, strlen(text), &h), 0);
	for (k = 0; k < 2 * h.n; k++) {
		for (line = 1, i = 0; i < h.at[k]; i++)
			line += text[i] == '\n';
		buf_addf(out, "%s%zu", k == 0 ? "" : k % 2 ? "-" : " ", line);
	}
	code_skeleton_holes_release(&h);
}

/*
 * Parse text both ways and check the trees agree outside the holes (when
 * the whole parse is clean: tree-sitter's error recovery inside a body can
 * change the tree around it); returns the bytes left out.
 */
static size_t
same_tree(const char *lang_name, const char *text)
{
	const struct code_lang *lang = code_lang_by_name(lang_name);
	struct code_skeleton_holes h = { NULL, 0, 0 };
	struct code_tree *whole = NULL, *skel = NULL;
	struct buf a = BUF_INIT, b = BUF_INIT;
	size_t n = strlen(text), gone = 0;
	int python = !strcmp(lang_name, "python");

	assert_non_null(lang);
	assert_int_equal(code_parse(lang, text, n, &whole, NULL), 0);
	assert_int_equal(code_skeleton_parse(lang, CODE_BODIES_MAP, text, n, &skel, &gone, NULL), 0);
	if (gone)
		assert_int_equal(code_skeleton_find(lang_name, text, n, &h), 0);
	skeldump(ts_tree_root_node(code_tree_ts(whole)), &h, python, &a);
	skeldump(ts_tree_root_node(code_tree_ts(skel)), &h, python, &b);
	if (!ts_node_has_error(ts_tree_root_node(code_tree_ts(whole))))
		assert_string_equal(a.data, b.data); /* error recovery may differ */
	code_skeleton_holes_release(&h);
	code_release(whole);
	code_release(skel);
	buf_release(&a);
	buf_release(&b);
	return gone;
}

/* The holes of text are want (see hole_lines), and the trees agree with some bytes left out. */
static void
expect_holes(const char *lang, const char *text, const char *want)
{
	struct buf l = BUF_INIT;

	hole_lines(lang, text, &l);
	assert_string_equal(l.data, want);
	assert_true(same_tree(lang, text) > 0);
	buf_release(&l);
}

static const char c_text[] =
	"#include <stdio.h>\n"                          /* 1 */
	"#define OPEN {\n"                              /* 2 */
	"struct point { int x, y; };\n"                 /* 3 */
	"static const int table[] = { 1, 2, 3 };\n"     /* 4 */
	"int proto(int a);\n"                           /* 5 */
	"/* a comment with { in it */\n"                /* 6 */
	"int\n"                                         /* 7 */
	"first(int a)\n"                                /* 8 */
	"{\n"                                           /* 9 */
	"\tconst char *s = \"}\";\n"                    /* 10 */
	"\tchar c = '{';\n"                             /* 11 */
	"\tif (a) {\n"                                  /* 12 */
	"#ifdef X\n"                                    /* 13 */
	"\t\treturn 1;\n"                               /* 14 */
	"#endif\n"                                      /* 15 */
	"\t}\n"                                         /* 16 */
	"\treturn c + s[0];\n"                          /* 17 */
	"}\n"                                           /* 18 */
	"static void second(void) __attribute__((unused)) { (void)0; }\n" /* 19 */
	"const char *\n"                                /* 20 */
	"third(void) { return \"{\"; }\n";              /* 21 */

/* C: function bodies only; strings, characters, comments and directives hold no braces. */
static void
test_c(void **state)
{
	(void)state;
	expect_holes("c", c_text, "9-18 19-19 21-21");
}

static const char cpp_text[] =
	"namespace ns {\n"                                      /* 1 */
	"class Box : public Base<int> {\n"                      /* 2 */
	"public:\n"                                             /* 3 */
	"  Box() : w_(1), h_{2} { init(); }\n"                  /* 4 */
	"  int area() const override { return w_ * h_; }\n"     /* 5 */
	"  bool operator==(const Box &o) const { return w_ == o.w_; }\n" /* 6 */
	"  int w_, h_;\n"                                       /* 7 */
	"};\n"                                                  /* 8 */
	"auto lambda = [](int x) { return x; };\n"              /* 9 */
	"int Box::twice() const noexcept {\n"                   /* 10 */
	"  const char *r = R\"x(} {)x\";\n"                     /* 11 */
	"  return 1'000 + area();\n"                            /* 12 */
	"}\n"                                                   /* 13 */
	"template <class T> T id(T v) { return v; }\n"          /* 14 */
	"}  // namespace ns\n"                                  /* 15 */
	"extern \"C\" {\n"                                      /* 16 */
	"int c_api(void) { return 0; }\n"                       /* 17 */
	"}\n";                                                  /* 18 */

/*
 * C++: methods in classes and namespaces, an initializer list, qualifiers,
 * raw strings and digit separators; no hole in a lambda's initializer or
 * an operator== (its "=" reads as an initializer: parsed whole).
 */
static void
test_cpp(void **state)
{
	(void)state;
	expect_holes("cpp", cpp_text, "5-5 10-13 14-14 17-17");
}

static const char go_text[] =
	"package main\n"                                        /* 1 */
	"\n"                                                    /* 2 */
	"import \"fmt\"\n"                                      /* 3 */
	"\n"                                                    /* 4 */
	"type S struct {\n"                                     /* 5 */
	"\tA int\n"                                             /* 6 */
	"}\n"                                                   /* 7 */
	"\n"                                                    /* 8 */
	"var table = map[string]int{\"a\": 1}\n"                /* 9 */
	"\n"                                                    /* 10 */
	"func (s *S) Get() (int, error) {\n"                    /* 11 */
	"\tr := `}`\n"                                          /* 12 */
	"\tc := '{'\n"                                          /* 13 */
	"\tfmt.Println(r, c)\n"                                 /* 14 */
	"\treturn s.A, nil\n"                                   /* 15 */
	"}\n"                                                   /* 16 */
	"\n"                                                    /* 17 */
	"func New() struct{ B int } {\n"                        /* 18 */
	"\treturn struct{ B int }{1}\n"                         /* 19 */
	"}\n";                                                  /* 20 */

/*
 * Go: func bodies, not struct types, composite literals, raw strings or
 * runes.  A struct type in a func's result ends the head, so that body is
 * parsed whole (rare, and never wrong).
 */
static void
test_go(void **state)
{
	(void)state;
	expect_holes("go", go_text, "11-16");
}

static const char rust_text[] =
	"/* outer /* nested { */ still a comment */\n"         /* 1 */
	"struct Wrap<'a> { s: &'a str }\n"                      /* 2 */
	"impl<'a> Wrap<'a> {\n"                                 /* 3 */
	"    pub fn brace(&self) -> char { '{' }\n"             /* 4 */
	"    fn raw(&self) -> &'static str {\n"                 /* 5 */
	"        r#\"}\"#\n"                                    /* 6 */
	"    }\n"                                               /* 7 */
	"}\n"                                                   /* 8 */
	"trait T { fn d(&self) -> u8 { 1 } }\n"                 /* 9 */
	"macro_rules! m { () => { 1 } }\n"                      /* 10 */
	"fn main() where u8: Copy {\n"                          /* 11 */
	"    let v = Wrap { s: \"}\" };\n"                      /* 12 */
	"}\n";                                                  /* 13 */

/* Rust: fn bodies in impls and traits; lifetimes, char literals, raw strings, nested comments. */
static void
test_rust(void **state)
{
	(void)state;
	expect_holes("rust", rust_text, "4-4 5-7 9-9 11-13");
}

static const char java_text[] =
	"package p;\n"                                          /* 1 */
	"public class A extends B implements C {\n"            /* 2 */
	"    static { init(); }\n"                              /* 3 */
	"    private final Runnable r = new Runnable() {\n"     /* 4 */
	"        public void run() { }\n"                       /* 5 */
	"    };\n"                                              /* 6 */
	"    public <T> T get(T v) throws IOException, X {\n"   /* 7 */
	"        String s = \"\"\"\n"                           /* 8 */
	"            } text block {\n"                          /* 9 */
	"            \"\"\";\n"                                 /* 10 */
	"        return v;\n"                                   /* 11 */
	"    }\n"                                               /* 12 */
	"    record R(int x) { int twice() { return 2 * x; } }\n" /* 13 */
	"    interface I { default int one() { return 1; } }\n" /* 14 */
	"}\n";                                                  /* 15 */

/* Java: methods (throws lists, generics), records and interfaces as containers, text blocks. */
static void
test_java(void **state)
{
	(void)state;
	expect_holes("java", java_text, "7-12 13-13 14-14");
}

static const char js_text[] =
	"import x from 'y';\n"                                  /* 1 */
	"export function f(a, b) {\n"                           /* 2 */
	"  const re = /[}]/g;\n"                                /* 3 */
	"  return `${ {a: 1}.a } }`;\n"                         /* 4 */
	"}\n"                                                   /* 5 */
	"const g = (a) => {\n"                                  /* 6 */
	"  return a / 2 / 3;\n"                                 /* 7 */
	"};\n"                                                  /* 8 */
	"if (x) {\n"                                            /* 9 */
	"  function inner() { return 1; }\n"                    /* 10 */
	"}\n"                                                   /* 11 */
	"class K extends Base {\n"                              /* 12 */
	"  constructor(a) { super(a); }\n"                      /* 13 */
	"  get size() { return 1; }\n"                          /* 14 */
	"}\n"                                                   /* 15 */
	"describe('x', () => {\n"                               /* 16 */
	"  it('y', function () { return 2; });\n"               /* 17 */
	"});\n"                                                 /* 18 */
	"const o = { m() { return '}'; } };\n";                 /* 19 */

/*
 * JavaScript: declarations, arrow functions, class methods and callbacks;
 * not the body of an if, an object literal's methods, regular
 * expressions or template literals.
 */
static void
test_js(void **state)
{
	(void)state;
	expect_holes("javascript", js_text, "2-5 6-8 13-13 14-14 16-18");
	assert_true(same_tree("typescript", "function f(a: number): string {\n  return '}';\n}\n"
			      "class C { m(x: T): Promise<void> { return p; } }\n") > 10);
}

static const char py_text[] =
	"import os\n"                                           /* 1 */
	"\n"                                                    /* 2 */
	"def first(a, b):\n"                                    /* 3 */
	"    \"\"\"Doc\n"                                       /* 4 */
	"    with two lines.\"\"\"\n"                           /* 5 */
	"    x = (a +\n"                                        /* 6 */
	"         b)\n"                                         /* 7 */
	"    return x\n"                                        /* 8 */
	"\n"                                                    /* 9 */
	"\n"                                                    /* 10 */
	"class K(Base):\n"                                      /* 11 */
	"    @property\n"                                       /* 12 */
	"    def size(self):\n"                                 /* 13 */
	"        @cache\n"                                      /* 14 */
	"        def inner():\n"                                /* 15 */
	"            return 1\n"                                /* 16 */
	"        if self.x:\n"                                  /* 17 */
	"            return 2\n"                                /* 18 */
	"        y = inner()\n"                                 /* 19 */
	"        # a comment\n"                                 /* 20 */
	"        return y\n"                                    /* 21 */
	"\n"                                                    /* 22 */
	"    def one(self): return 1\n"                         /* 23 */
	"\n"                                                    /* 24 */
	"if os.name:\n"                                         /* 25 */
	"    def local():\n"                                    /* 26 */
	"        a = 1\n"                                       /* 27 */
	"        return a\n"                                    /* 28 */
	"async def run():\n"                                    /* 29 */
	"    await x\n"                                         /* 30 */
	"    await y\n";                                        /* 31 */

/*
 * Python: a body keeps its first simple statement (here a two-line
 * docstring; after a decorated def and an if block, the assignment) and
 * the rest is left out; one-line defs and defs under an if are whole.
 */
static void
test_python(void **state)
{
	(void)state;
	expect_holes("python", py_text, "6-9 20-22 31-32");
}

/* Trouble ends the scan: the holes before it stand, the rest is parsed whole. */
static void
test_trouble(void **state)
{
	const char *cut = "int a(void) { return 1; }\nint b(void) {\n\tif (x) {\n";
	const char *extra = "int a(void) { return 1; }\n}\nint b(void) { return 2; }\n";
	const char *open_str = "int a(void) { return 1; }\nint b(void) { s = \"unterminated\n}\n";
	const char *split = "int a(void) { return 1; }\n#if A\nint b(int x) {\n#else\n"
			    "int b(void) {\n#endif\n\treturn 0;\n}\nint c(void) { return 3; }\n";
	struct buf l = BUF_INIT;

	(void)state;
	hole_lines("c", cut, &l);
	assert_string_equal(l.data, "1-1");
	hole_lines("c", extra, &l);
	assert_string_equal(l.data, "1-1");
	hole_lines("c", open_str, &l);
	assert_string_equal(l.data, "1-1 2-3");
	hole_lines("c", split, &l);
	assert_string_equal(l.data, "1-1");
	same_tree("c", cut);
	same_tree("c", extra);
	same_tree("c", open_str);
	same_tree("c", split);
	buf_release(&l);
}

/*
 * A hole the grammar does not see as a body (a Java enum constant's class
 * body read as a method's) is dropped and the rest tried again; a Python
 * text with a syntax error is parsed whole.
 */
static void
test_misfit(void **state)
{
	const char *java = "enum E {\n  A(1) { int f() { return 1; } },\n  B(2);\n"
			   "  E(int v) { this.v = v; this.w = v * 2; this.u = v + 1; this.t = v - 1; }\n"
			   "  int v, w, u, t;\n}\n";
	const char *py = "def f():\n    x = 1\n    return x\n\ndef g(:\n    pass\n";
	const struct code_lang *lang = code_lang_by_name("python");
	struct code_tree *t = NULL;
	size_t gone = 1;

	(void)state;
	assert_true(same_tree("java", java) > 0);
	assert_int_equal(code_skeleton_parse(lang, CODE_BODIES_MAP, py, strlen(py), &t, &gone, NULL), 0);
	assert_int_equal(gone, 0);
	assert_true(ts_node_has_error(ts_tree_root_node(code_tree_ts(t))));
	code_release(t);
}

/* Only where bodies are skipped for the use; other languages and uses parse whole. */
static void
test_uses(void **state)
{
	const char *py = "def f():\n    x = 1\n    return x\n";
	const char *sh = "f() { echo '}'; }\n";
	struct code_tree *t = NULL;
	size_t gone = 1;

	(void)state;
	assert_int_equal(code_skeleton_parse(code_lang_by_name("python"), CODE_BODIES_OUTLINE, py,
				       strlen(py), &t, &gone, NULL), 0);
	assert_int_equal(gone, 0);
	code_release(t);
	gone = 1;
	assert_int_equal(code_skeleton_parse(code_lang_by_name("bash"), CODE_BODIES_MAP, sh, strlen(sh), &t,
				       &gone, NULL), 0);
	assert_int_equal(gone, 0);
	code_release(t);
	assert_int_equal(code_skeleton_parse(code_lang_by_name("python"), CODE_BODIES_MAP, py, strlen(py),
				       &t, &gone, NULL), 0);
	assert_int_equal(gone, strlen("    return x\n"));
	code_release(t);
	assert_int_equal(code_skeleton_parse(NULL, CODE_BODIES_MAP, py, strlen(py), &t, NULL, NULL), -1);
	assert_null(t);
}

/* code_parse_holes refuses holes out of order or past the text. */
static void
test_bad_holes(void **state)
{
	const struct code_lang *c = code_lang_by_name("c");
	const char *text = "int a(void) { return 1; }\n";
	uint32_t backwards[] = { 14, 22, 3, 5 }, past[] = { 14, 100 };
	struct code_tree *t = NULL;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(code_parse_holes(c, text, strlen(text), backwards, 2, &t, &e), -1);
	assert_null(t);
	assert_non_null(strstr(e.msg, "out of order"));
	assert_int_equal(code_parse_holes(c, text, strlen(text), past, 1, &t, &e), -1);
	assert_null(t);
}

/* The tree of a whole parse of text as lang, as an S-expression (malloc'd). */
static char *
whole_tree(const struct code_lang *lang, const char *text)
{
	struct code_tree *t = NULL;
	char *s;

	assert_int_equal(code_parse(lang, text, strlen(text), &t, NULL), 0);
	s = ts_node_string(ts_tree_root_node(code_tree_ts(t)));
	code_release(t);
	return s;
}

/*
 * A thread keeps its parser between parses: one over holes, or in another
 * language, leaves nothing behind for the next (its ranges and language
 * are set again each time).
 */
static void
test_parser_kept(void **state)
{
	const struct code_lang *c = code_lang_by_name("c"), *py = code_lang_by_name("python");
	const char *text = "int a(void) { return 1; }\nint b(void) { return 2; }\n";
	uint32_t hole[] = { 13, 24 };
	struct code_tree *t = NULL;
	char *first, *again, *holed;

	(void)state;
	first = whole_tree(c, text);
	assert_int_equal(code_parse_holes(c, text, strlen(text), hole, 1, &t, NULL), 0);
	holed = ts_node_string(ts_tree_root_node(code_tree_ts(t)));
	code_release(t);
	assert_string_not_equal(holed, first); /* the hole was left out */
	again = whole_tree(c, text);
	assert_string_equal(again, first); /* and the next whole parse has it all */
	free(again);
	free(whole_tree(py, "def f():\n    return 1\n"));
	again = whole_tree(c, text);
	assert_string_equal(again, first);
	free(again), free(holed), free(first);
}

/* Mangled texts (cut, bytes flipped, NULs, invalid UTF-8) never crash and keep the trees equal. */
static void
test_mangled(void **state)
{
	static const struct {
		const char *lang, *text;
	} samples[] = {
		{ "c", c_text }, { "cpp", cpp_text }, { "go", go_text }, { "rust", rust_text },
		{ "java", java_text }, { "javascript", js_text }, { "python", py_text },
	};
	static const char junk[] = "{}\"'`/*#\n\0\xff\xc3(";
	unsigned seed = 12345;
	size_t s, round, n;

	(void)state;
	for (s = 0; s < sizeof samples / sizeof samples[0]; s++)
		for (round = 0; round < 200; round++) {
			struct code_tree *t = NULL;
			char buf[2048];

			n = strlen(samples[s].text);
			memcpy(buf, samples[s].text, n + 1);
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % n] = junk[(seed >> 20) % (sizeof junk - 1)];
			if (round % 3 == 0)
				n = (seed >> 4) % n; /* cut */
			buf[n] = '\0';
			n = strlen(buf);
			assert_int_equal(code_skeleton_parse(code_lang_by_name(samples[s].lang), CODE_BODIES_MAP,
						       buf, n, &t, NULL, NULL), 0);
			code_release(t);
			if (!strchr(buf, '\xff') && !strchr(buf, '\xc3'))
				same_tree(samples[s].lang, buf);
		}
}

/* Whether s is C++ by code_cpp. */
static int
is_cpp(const char *s)
{
	return code_cpp_is_cpp(s, strlen(s));
}

/* C++ markers outside comments and literals make a ".h" text C++. */
static void
test_cpp_sniff(void **state)
{
	const struct code_lang *c = code_lang_by_name("c");

	(void)state;
	assert_true(is_cpp("namespace a {\n}\n"));
	assert_true(is_cpp("template <class T> struct X;"));
	assert_true(is_cpp("class A {\npublic:\n int x;\n};"));
	assert_true(is_cpp("x = std::move(y);"));
	assert_false(is_cpp("/* namespace a; std::x */ int template;\n"));
	assert_false(is_cpp("const char *s = \"std::string\"; // public:\n"));
	assert_false(is_cpp("struct s { int private_x; };"));
	assert_false(is_cpp("/* unterminated namespace"));
	assert_ptr_equal(code_lang_for_file("a/x.h", "using namespace std;", 20),
			 code_lang_by_name("cpp"));
	assert_ptr_equal(code_lang_for_file("X.H", "template <class T> T f();", 25),
			 code_lang_by_name("cpp"));
	assert_ptr_equal(code_lang_for_file("a/x.h", "int x;", 6), c);
	assert_ptr_equal(code_lang_for_file("a/x.c", "using namespace std;", 20), c);
	assert_ptr_equal(code_lang_for_file("x.go", "namespace x", 11), code_lang_by_name("go"));
	assert_null(code_lang_for_file("Makefile", "namespace x", 11));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c),
		cmocka_unit_test(test_cpp),
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_java),
		cmocka_unit_test(test_js),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_trouble),
		cmocka_unit_test(test_misfit),
		cmocka_unit_test(test_uses),
		cmocka_unit_test(test_bad_holes),
		cmocka_unit_test(test_parser_kept),
		cmocka_unit_test(test_mangled),
		cmocka_unit_test(test_cpp_sniff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

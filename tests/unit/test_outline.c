/*
 * test_outline: the outline tool on small fixture files written by the
 * test (C, Python, JavaScript, TypeScript, Go, Rust): each expected symbol
 * appears with its kind, its line range and its signature line; plus the
 * notes for binary, over-size, unknown and missing files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "code/code.h"
#include "llm/tool.h"
#include "tool_fixture.h"

extern const struct tool tool_outline;

/* Outline rel (written with text first when text is not NULL). */
static char *
outline(struct fixture *f, const char *rel, const char *text, int *is_error)
{
	char json[512];

	if (text)
		fixture_puts(f, rel, text);
	snprintf(json, sizeof json, "{\"path\":\"%s\"}", rel);
	return fixture_out(f, &tool_outline, json, is_error);
}

/* Whether out has a line "<start>-<end> <kind> <sig>" (spacing ignored). */
static int
has_sym(const char *out, int start, int end, const char *kind, const char *sig)
{
	char want[512];
	const char *line = out;

	snprintf(want, sizeof want, "%d-%d %s %s", start, end, kind, sig);
	while (line && *line) {
		char norm[1024];
		size_t n = 0;
		int sp = 1;
		for (; *line && *line != '\n' && n + 1 < sizeof norm; line++) {
			if (*line == ' ') {
				if (!sp && n)
					norm[n++] = ' ';
				sp = 1;
			} else {
				norm[n++] = *line;
				sp = 0;
			}
		}
		while (n && norm[n - 1] == ' ')
			n--;
		norm[n] = 0;
		if (!strcmp(norm, want))
			return 1;
		line = *line ? line + 1 : line;
	}
	return 0;
}

#define SYM(out, a, b, k, s)                                                  \
	do {                                                                  \
		if (!has_sym(out, a, b, k, s))                                \
			fail_msg("missing \"%d-%d %s %s\" in:\n%s", a, b, k, s, out); \
	} while (0)

static void
test_c(void **state)
{
	struct fixture *f = fixture_new();
	int err;
	char *o = outline(f, "a.c",
			  "#include <stdio.h>\n"                     /* 1 */
			  "\n"                                       /* 2 */
			  "struct point {\n"                         /* 3 */
			  "\tint x, y;\n"                            /* 4 */
			  "};\n"                                     /* 5 */
			  "\n"                                       /* 6 */
			  "typedef unsigned long ulong;\n"           /* 7 */
			  "\n"                                       /* 8 */
			  "static int\n"                             /* 9 */
			  "parse_args(int argc, char **argv)\n"      /* 10 */
			  "{\n"                                      /* 11 */
			  "\treturn argc;\n"                         /* 12 */
			  "}\n"                                      /* 13 */
			  "\n"                                       /* 14 */
			  "char *name(void) { return 0; }\n",        /* 15 */
			  &err);

	(void)state;
	assert_int_equal(err, 0);
	SYM(o, 3, 5, "class", "struct point {");
	SYM(o, 7, 7, "type", "typedef unsigned long ulong;");
	SYM(o, 9, 13, "fn", "parse_args(int argc, char **argv)");
	SYM(o, 15, 15, "fn", "char *name(void) { return 0; }");
	assert_non_null(strstr(o, "a.c (c, 15 lines, 4 symbols)"));
	free(o);
	fixture_free(f);
}

/*
 * A C++ header named ".h" is outlined as C++ (code_lang_for_file), with
 * the bodies of its methods left out of the parse and its line ranges
 * still those of the whole file.
 */
static void
test_cpp_header(void **state)
{
	struct fixture *f = fixture_new();
	int err;
	char *o = outline(f, "box.h",
			  "#pragma once\n"                          /* 1 */
			  "namespace geo {\n"                       /* 2 */
			  "class Box {\n"                           /* 3 */
			  " public:\n"                              /* 4 */
			  "  int area() const {\n"                  /* 5 */
			  "    return w * h;\n"                     /* 6 */
			  "  }\n"                                   /* 7 */
			  "  int w, h;\n"                           /* 8 */
			  "};\n"                                    /* 9 */
			  "}  // namespace geo\n",                  /* 10 */
			  &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_non_null(strstr(o, "box.h (cpp, 10 lines"));
	SYM(o, 3, 9, "class", "class Box {");
	SYM(o, 5, 7, "fn", "int area() const {");
	free(o);
	fixture_free(f);
}

static void
test_python(void **state)
{
	struct fixture *f = fixture_new();
	int err;
	char *o = outline(f, "m.py",
			  "import os\n"                       /* 1 */
			  "\n"                                /* 2 */
			  "class Shape:\n"                    /* 3 */
			  "    def area(self, scale=1):\n"    /* 4 */
			  "        return 0\n"                /* 5 */
			  "\n"                                /* 6 */
			  "@cache\n"                          /* 7 */
			  "def load(path):\n"                 /* 8 */
			  "    return open(path).read()\n",   /* 9 */
			  &err);

	(void)state;
	assert_int_equal(err, 0);
	SYM(o, 3, 5, "class", "class Shape:");
	SYM(o, 4, 5, "fn", "def area(self, scale=1):");
	SYM(o, 7, 9, "fn", "def load(path):");
	assert_non_null(strstr(o, "\n  ")); /* the method is indented under its class */
	free(o);
	fixture_free(f);
}

static void
test_js_ts(void **state)
{
	struct fixture *f = fixture_new();
	int err;
	char *o = outline(f, "app.js",
			  "function start(port) {\n"          /* 1 */
			  "  return port;\n"                  /* 2 */
			  "}\n"                               /* 3 */
			  "class Server {\n"                  /* 4 */
			  "  listen(n) {\n"                   /* 5 */
			  "    return n;\n"                   /* 6 */
			  "  }\n"                             /* 7 */
			  "}\n",                              /* 8 */
			  &err);

	(void)state;
	assert_int_equal(err, 0);
	SYM(o, 1, 3, "fn", "function start(port) {");
	SYM(o, 4, 8, "class", "class Server {");
	SYM(o, 5, 7, "method", "listen(n) {");
	free(o);
	o = outline(f, "t.ts",
		    "interface Opts {\n"                        /* 1 */
		    "  port: number;\n"                         /* 2 */
		    "}\n"                                       /* 3 */
		    "export function run(o: Opts): void {\n"    /* 4 */
		    "}\n"                                       /* 5 */
		    "abstract class Base {\n"                   /* 6 */
		    "  abstract go(): void;\n"                  /* 7 */
		    "}\n",                                      /* 8 */
		    &err);
	assert_int_equal(err, 0);
	SYM(o, 1, 3, "iface", "interface Opts {");
	SYM(o, 4, 5, "fn", "export function run(o: Opts): void {");
	SYM(o, 6, 8, "class", "abstract class Base {");
	free(o);
	fixture_free(f);
}

static void
test_go_rust(void **state)
{
	struct fixture *f = fixture_new();
	int err;
	char *o = outline(f, "main.go",
			  "package main\n"                              /* 1 */
			  "\n"                                          /* 2 */
			  "type Server struct {\n"                      /* 3 */
			  "\tport int\n"                                /* 4 */
			  "}\n"                                         /* 5 */
			  "\n"                                          /* 6 */
			  "func (s *Server) Run() error {\n"            /* 7 */
			  "\treturn nil\n"                              /* 8 */
			  "}\n"                                         /* 9 */
			  "\n"                                          /* 10 */
			  "func main() {\n"                             /* 11 */
			  "}\n",                                        /* 12 */
			  &err);

	(void)state;
	assert_int_equal(err, 0);
	SYM(o, 3, 5, "type", "type Server struct {");
	SYM(o, 7, 9, "method", "func (s *Server) Run() error {");
	SYM(o, 11, 12, "fn", "func main() {");
	free(o);
	o = outline(f, "lib.rs",
		    "pub struct Point {\n"                      /* 1 */
		    "    x: i32,\n"                             /* 2 */
		    "}\n"                                       /* 3 */
		    "impl Point {\n"                            /* 4 */
		    "    pub fn norm(&self) -> i32 {\n"         /* 5 */
		    "        self.x\n"                          /* 6 */
		    "    }\n"                                   /* 7 */
		    "}\n"                                       /* 8 */
		    "fn helper(a: u8) -> u8 { a }\n"            /* 9 */
		    "trait Shape {\n"                           /* 10 */
		    "    fn area(&self) -> f64;\n"              /* 11 */
		    "}\n",                                      /* 12 */
		    &err);
	assert_int_equal(err, 0);
	SYM(o, 1, 3, "class", "pub struct Point {");
	SYM(o, 5, 7, "method", "pub fn norm(&self) -> i32 {");
	SYM(o, 9, 9, "fn", "fn helper(a: u8) -> u8 { a }");
	SYM(o, 10, 12, "iface", "trait Shape {");
	free(o);
	fixture_free(f);
}

/* Binary, over-size, unknown type, missing file, directory, no symbols. */
static void
test_bad_input(void **state)
{
	struct fixture *f = fixture_new();
	char *o, *big;
	int err;

	(void)state;
	fixture_write(f, "x.c", "int\0\1\2", 6);
	o = outline(f, "x.c", NULL, &err);
	assert_non_null(strstr(o, "binary"));
	free(o);
	big = malloc(CODE_MAX_BYTES + 1);
	memset(big, '\n', CODE_MAX_BYTES + 1);
	fixture_write(f, "big.c", big, CODE_MAX_BYTES + 1);
	free(big);
	o = outline(f, "big.c", NULL, &err);
	assert_non_null(strstr(o, "over the 5 MB limit"));
	free(o);
	o = outline(f, "README", "hello\n", &err);
	assert_int_equal(err, 0);
	assert_non_null(strstr(o, "no grammar"));
	free(o);
	o = outline(f, "gone.c", NULL, &err);
	assert_int_equal(err, 1);
	assert_non_null(strstr(o, "does not exist"));
	free(o);
	fixture_mkdir(f, "d.py");
	o = outline(f, "d.py", NULL, &err);
	assert_int_equal(err, 1);
	free(o);
	o = outline(f, "empty.py", "print(1)\n", &err);
	assert_non_null(strstr(o, "no symbols found"));
	free(o);
	o = outline(f, "s.sh", "greet() {\n  echo hi\n}\n", &err);
	SYM(o, 1, 3, "fn", "greet() {");
	free(o);
	o = outline(f, "../../etc/passwd.c", NULL, &err);
	assert_int_equal(err, 1);
	free(o);
	fixture_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c),
		cmocka_unit_test(test_cpp_header),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_js_ts),
		cmocka_unit_test(test_go_rust),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

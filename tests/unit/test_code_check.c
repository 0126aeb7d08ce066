/*
 * test_synchk: the syntax check names new errors with their lines, stays
 * quiet for unchanged or repaired errors and unknown languages, and skips
 * over-size text with a note.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "code/code.h"
#include "code/check.h"

static const char good_c[] =
	"#include <stdio.h>\n"
	"\n"
	"int\n"
	"main(void)\n"
	"{\n"
	"\tint x = 1;\n"
	"\tprintf(\"%d\\n\", x);\n"
	"\treturn 0;\n"
	"}\n";

/* A missing ';' on line 6 is named with its line (tree-sitter sees line 6 as unparsable). */
static void
test_broken_c_edit(void **state)
{
	const char *bad = "#include <stdio.h>\n\nint\nmain(void)\n{\n\tint x = 1\n"
			  "\tprintf(\"%d\\n\", x);\n\treturn 0;\n}\n";
	struct buf note = BUF_INIT;

	(void)state;
	assert_int_equal(code_check_check("src/a.c", good_c, strlen(good_c), bad, strlen(bad),
				      &note), 1);
	assert_non_null(strstr(note.data, "syntax check: 1 new error in src/a.c"));
	assert_non_null(strstr(note.data, ": line 6: "));
	assert_null(strstr(note.data, "line 7"));
	buf_release(&note);
}

/* Unparsable text is quoted with its line. */
static void
test_error_node_quoted(void **state)
{
	const char *bad = "int f(void)\n{\n\treturn 1;\n}\n\nint g(void) { return ))) 2; }\n";
	struct buf note = BUF_INIT;

	(void)state;
	assert_int_equal(code_check_check("x.c", NULL, 0, bad, strlen(bad), &note), 1);
	assert_non_null(strstr(note.data, "line 6: "));
	buf_release(&note);
}

/* An already broken file edited elsewhere: no new error, no note. */
static void
test_already_broken(void **state)
{
	const char *old = "int f(void) { return 1 }\n\nint g(void)\n{\n\treturn 2;\n}\n";
	const char *new_text = "int f(void) { return 1 }\n\nint g(void)\n{\n\treturn 3;\n}\n";
	const char *fixed = "int f(void) { return 1; }\n\nint g(void)\n{\n\treturn 3;\n}\n";
	struct buf note = BUF_INIT;

	(void)state;
	assert_int_equal(code_check_check("b.c", old, strlen(old), new_text, strlen(new_text), &note),
			 0);
	assert_int_equal(code_check_check("b.c", old, strlen(old), fixed, strlen(fixed), &note), 0);
	assert_int_equal(note.len, 0);
	/* a second error in the broken file is reported, the old one is not named */
	new_text = "int f(void) { return 1 }\n\nint g(void)\n{\n\treturn 3\n}\n";
	assert_int_equal(code_check_check("b.c", old, strlen(old), new_text, strlen(new_text), &note),
			 1);
	assert_non_null(strstr(note.data, "1 new error in b.c: line 5: missing \";\""));
	assert_null(strstr(note.data, "line 1:"));
	buf_release(&note);
}

/* Other languages, unknown ones, and the size limit. */
static void
test_langs_and_limits(void **state)
{
	const char *py_old = "def f(x):\n    return x\n", *py_new = "def f(x:\n    return x\n";
	struct buf note = BUF_INIT;
	char *big;

	(void)state;
	assert_int_equal(code_check_check("m.py", py_old, strlen(py_old), py_new, strlen(py_new),
				      &note), 1);
	assert_non_null(strstr(note.data, "line 1"));
	buf_reset(&note);
	assert_int_equal(code_check_check("README", NULL, 0, "((( {{{", 7, &note), 0);
	assert_int_equal(code_check_check("notes.txt", NULL, 0, "int x(", 6, &note), 0);
	assert_int_equal(note.len, 0);
	assert_int_equal(code_check_check("ok.c", NULL, 0, good_c, strlen(good_c), &note), 0);
	assert_int_equal(note.len, 0);
	big = malloc(CODE_MAX_BYTES + 10);
	memset(big, ' ', CODE_MAX_BYTES + 10);
	assert_int_equal(code_check_check("big.c", NULL, 0, big, CODE_MAX_BYTES + 10, &note), 0);
	assert_non_null(strstr(note.data, "skipped"));
	free(big);
	buf_release(&note);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_c_edit),
		cmocka_unit_test(test_error_node_quoted),
		cmocka_unit_test(test_already_broken),
		cmocka_unit_test(test_langs_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

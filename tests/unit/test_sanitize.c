/* test_sanitize: nothing from a model reaches a terminal raw. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/sanitize.h"

static void
check_term(const char *in, size_t n, const char *want)
{
	struct buf b = BUF_INIT;

	sanitize_term(&b, in, n);
	assert_string_equal(b.data, want);
	buf_release(&b);
}

static void
test_term(void **state)
{
	(void)state;
	check_term("plain\ttext\n", 11, "plain\ttext\n");
	check_term("\x1b[2Jclear", 9, "^[[2Jclear");
	check_term("bell\x07 del\x7f", 10, "bell^G del^?");
	check_term("csi \xc2\x9b" "31m", 9, "csi <U+009B>31m");
	check_term("bad \xff\xfe utf", 10, "bad \xef\xbf\xbd\xef\xbf\xbd utf");
	check_term("cut \xe2\x82", 6, "cut \xef\xbf\xbd\xef\xbf\xbd");
	check_term("ok \xe2\x82\xac \xf0\x9f\x94\xa5", 11, "ok \xe2\x82\xac \xf0\x9f\x94\xa5");
	check_term("nul\0x", 5, "nul^@x");
	check_term("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
	check_term("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");                /* overlong */
}

static void
test_utf8_and_json(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	sanitize_utf8(&b, "\x1b ok \xff", 6);
	assert_string_equal(b.data, "\x1b ok \xef\xbf\xbd");
	buf_reset(&b);
	buf_adds(&b, "{\"t\":\"a\xc2\x9b" "b\xc2\xa0" "c\"}");
	sanitize_json_c1(&b);
	assert_string_equal(b.data, "{\"t\":\"a\\u009bb\xc2\xa0" "c\"}");
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term),
		cmocka_unit_test(test_utf8_and_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

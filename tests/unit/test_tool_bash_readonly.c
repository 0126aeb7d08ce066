/* test_shellro: which bash commands skip the checkpoint (conservatively few). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "tools/bash_readonly.h"

static void
test_read_only(void **state)
{
	(void)state;
	assert_true(tool_bash_readonly_is_read_only("ls -la src"));
	assert_true(tool_bash_readonly_is_read_only("grep -rn foo src | head -20"));
	assert_true(tool_bash_readonly_is_read_only("git status --short && git diff HEAD~1"));
	assert_true(tool_bash_readonly_is_read_only("cat a.c; wc -l a.c"));
	assert_true(tool_bash_readonly_is_read_only("find . -name '*.c'"));
}

static void
test_changing(void **state)
{
	(void)state;
	assert_false(tool_bash_readonly_is_read_only("make test"));
	assert_false(tool_bash_readonly_is_read_only("rm -rf build"));
	assert_false(tool_bash_readonly_is_read_only("echo hi > f.txt"));
	assert_false(tool_bash_readonly_is_read_only("cat a | tee b"));
	assert_false(tool_bash_readonly_is_read_only("git commit -am x"));
	assert_false(tool_bash_readonly_is_read_only("git checkout ."));
	assert_false(tool_bash_readonly_is_read_only("ls; rm x"));
	assert_false(tool_bash_readonly_is_read_only("find . -name '*.o' -delete"));
	assert_false(tool_bash_readonly_is_read_only("find . -exec rm {} +"));
	assert_false(tool_bash_readonly_is_read_only("echo $(rm x)"));
	assert_false(tool_bash_readonly_is_read_only("echo `rm x`"));
	assert_false(tool_bash_readonly_is_read_only("sort -o out in"));
	assert_false(tool_bash_readonly_is_read_only(NULL));
	assert_true(tool_bash_readonly_is_read_only("")); /* nothing runs */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_changing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

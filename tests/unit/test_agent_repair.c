/* test_callfix: recovering tool calls from text, typed by the schema; checking calls. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "agent/repair.h"
#include "base/json.h"
#include "llm/tool.h"

static struct agent_repair_tools
all_tools(void)
{
	struct agent_repair_tools t;

	t.v = tool_all(&t.n);
	return t;
}

static void
test_recover_typed_by_schema(void **state)
{
	struct agent_repair_tools t = all_tools();
	struct textcall_result out;
	static const char text[] =
		"I'll look.\n<tool_call>\n<function=read>\n<parameter=path>\n2024\n</parameter>\n"
		"<parameter=offset>\n10\n</parameter>\n</function>\n</tool_call>";

	(void)state;
	agent_repair_recover(&t, text, sizeof text - 1, &out);
	assert_int_equal(out.ncalls, 1);
	assert_string_equal(out.calls[0].name, "read");
	/* path is a string in the schema even though it looks like a number; offset is an integer */
	assert_non_null(strstr(out.calls[0].args_json, "\"path\":\"2024\""));
	assert_non_null(strstr(out.calls[0].args_json, "\"offset\":10"));
	assert_int_equal(agent_repair_count(&t, text, sizeof text - 1), 1);
	assert_int_equal(agent_repair_count(&t, "no calls here", 13), 0);
	textcall_release(&out);
}

static void
test_check(void **state)
{
	struct agent_repair_tools t = all_tools();
	struct buf p = BUF_INIT;
	cJSON *a;

	(void)state;
	a = agent_repair_check(&t, "read", "{\"path\":\"a.c\"}", 14, &p);
	assert_non_null(a);
	assert_int_equal(p.len, 0);
	cJSON_Delete(a);
	a = agent_repair_check(&t, "read", "", 0, &p); /* no arguments at all: {} */
	assert_null(a);
	assert_non_null(strstr(p.data, "missing required field \"path\""));
	assert_non_null(strstr(p.data, "expected arguments for read (JSON Schema)"));
	buf_reset(&p);
	assert_null(agent_repair_check(&t, "read", "{\"path\":", 8, &p));
	assert_non_null(strstr(p.data, "not valid JSON"));
	buf_reset(&p);
	assert_null(agent_repair_check(&t, "rm", "{}", 2, &p));
	assert_non_null(strstr(p.data, "unknown tool \"rm\"; available tools: read, write"));
	assert_null(strstr(p.data, "JSON Schema")); /* no schema for an unknown tool */
	assert_null(agent_repair_tool(&t, "rm"));
	assert_non_null(agent_repair_tool(&t, "bash"));
	buf_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recover_typed_by_schema),
		cmocka_unit_test(test_check),
	};
	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

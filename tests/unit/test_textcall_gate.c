/* test_textgate: what of a streamed answer is shown live, at every split point. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llm/textcall_gate.h"

/* Shown text for `in` fed as two pieces split at k (k == n: one piece). */
static void
shown(const char *in, size_t k, struct buf *out)
{
	struct textcall_gate g;
	size_t n = strlen(in);

	textcall_gate_init(&g);
	textcall_gate_feed(&g, in, k, out);
	textcall_gate_feed(&g, in + k, n - k, out);
	textcall_gate_flush(&g, out);
	textcall_gate_release(&g);
}

/* Every two-way split and one-byte feeding give `want`. */
static void
check(const char *in, const char *want)
{
	size_t n = strlen(in), k;
	struct buf out = BUF_INIT;
	struct textcall_gate g;

	for (k = 0; k <= n; k++) {
		buf_reset(&out);
		shown(in, k, &out);
		if (strcmp(out.data, want))
			fail_msg("split at %zu of \"%s\": shown \"%s\", want \"%s\"", k, in, out.data, want);
	}
	buf_reset(&out);
	textcall_gate_init(&g);
	for (k = 0; k < n; k++)
		textcall_gate_feed(&g, in + k, 1, &out);
	textcall_gate_flush(&g, &out);
	textcall_gate_release(&g);
	assert_string_equal(out.data, want);
	buf_release(&out);
}

static void
test_plain_text_passes(void **state)
{
	(void)state;
	check("Hello, world.", "Hello, world.");
	check("a < b and <b>bold</b> and <tool", "a < b and <b>bold</b> and <tool");
	check("{\"key\": 1} is JSON", "{\"key\": 1} is JSON");
	check("", "");
}

static void
test_markup_is_withheld(void **state)
{
	(void)state;
	check("Let me look.\n<tool_call>\n{\"name\":\"read\"}\n</tool_call>", "Let me look.\n");
	check("<function=read>\n<parameter=path>\na.c\n</parameter>\n</function>", "");
	check("  {\"name\": \"ls\", \"arguments\": {}}", "");
	check("{ \"name\":\"ls\"}", "");
	check("text then <function=x> then more", "text then ");
}

static void
test_live_not_delayed(void **state)
{
	struct textcall_gate g;
	struct buf out = BUF_INIT;

	(void)state;
	textcall_gate_init(&g);
	textcall_gate_feed(&g, "Hello <", 7, &out);
	assert_string_equal(out.data, "Hello "); /* only the '<' waits */
	textcall_gate_feed(&g, "b> world", 8, &out);
	assert_string_equal(out.data, "Hello <b> world");
	textcall_gate_reset(&g);
	buf_reset(&out);
	textcall_gate_feed(&g, "{", 1, &out);
	assert_string_equal(out.data, ""); /* could be a bare JSON tool call */
	textcall_gate_feed(&g, "\"x\"", 3, &out);
	assert_string_equal(out.data, "{\"x\"");
	textcall_gate_release(&g);
	buf_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_passes),
		cmocka_unit_test(test_markup_is_withheld),
		cmocka_unit_test(test_live_not_delayed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

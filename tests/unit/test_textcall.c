/*
 * test_toolparse: tool calls recovered from answer text — Hermes/Qwen JSON
 * tags, Qwen3-Coder XML, fenced JSON, thinking leaks, the visible text
 * left over, and robustness on random and adversarial input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/json.h"
#include "llm/textcall.h"

/* Run on a C string; "name args|name args|..." of the calls into *calls. */
static void
run_opt(const char *in, textcall_type_fn fn, struct textcall_result *r, struct buf *calls)
{
	size_t i;

	textcall_run(in, strlen(in), fn, NULL, r);
	buf_reset(calls);
	for (i = 0; i < r->ncalls; i++)
		buf_addf(calls, "%s%s %s", i ? "|" : "", r->calls[i].name, r->calls[i].args_json);
}

/* Assert calls, visible text and reasoning for one input. */
static void
check_fn(const char *in, textcall_type_fn fn, const char *calls, const char *text,
	 const char *reasoning)
{
	struct textcall_result r;
	struct buf c = BUF_INIT;

	run_opt(in, fn, &r, &c);
	if (strcmp(c.data, calls) != 0 || strcmp(r.text.data, text) != 0 ||
	    strcmp(r.reasoning.data, reasoning) != 0)
		fail_msg("input [%s]\ncalls [%s] want [%s]\ntext [%s] want [%s]\n"
			 "reasoning [%s] want [%s]", in, c.data, calls, r.text.data, text,
			 r.reasoning.data, reasoning);
	textcall_release(&r);
	buf_release(&c);
}

#define CHECK(in, calls, text) check_fn((in), NULL, (calls), (text), "")

static void
test_hermes_json(void **state)
{
	(void)state;
	CHECK("<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.c\"}}\n</tool_call>",
	      "read {\"path\":\"a.c\"}", "");
	CHECK("I'll read it.\n\n<tool_call>\n{\"name\":\"read\",\"arguments\":{\"path\":\"a.c\"}}\n"
	      "</tool_call>\n\n\nThen done.\n",
	      "read {\"path\":\"a.c\"}", "I'll read it.\n\nThen done.");
	/* Arguments as a JSON string, as `parameters`, or missing. */
	CHECK("<tool_call>{\"name\":\"ls\",\"arguments\":\"{\\\"path\\\": \\\".\\\"}\"}</tool_call>",
	      "ls {\"path\":\".\"}", "");
	CHECK("<tool_call>{\"name\":\"ls\",\"parameters\":{\"path\":\"x\"}}</tool_call>",
	      "ls {\"path\":\"x\"}", "");
	CHECK("<tool_call>{\"name\":\"ls\"}</tool_call>", "ls {}", "");
	CHECK("<tool_call>{\"name\":\"ls\",\"arguments\":null}</tool_call>", "ls {}", "");
	/* Closing tag missing at the end; opening tag missing at the start. */
	CHECK("ok\n<tool_call>\n{\"name\":\"bash\",\"arguments\":{\"command\":\"make\"}}\n",
	      "bash {\"command\":\"make\"}", "ok");
	CHECK("{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>", "ls {}", "");
	CHECK("  \n{\"name\": \"ls\", \"arguments\": {}}", "ls {}", "");
	/* issue 20: blanks after a leading object go with it, as after a tag */
	CHECK("{\"name\":\"ls\"}  then", "ls {}", "then");
	/* Two tags, and two objects in one tag. */
	CHECK("<tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call>\n"
	      "<tool_call>{\"name\":\"b\",\"arguments\":{\"x\":[1,2]}}</tool_call>",
	      "a {}|b {\"x\":[1,2]}", "");
	CHECK("<tool_call>\n{\"name\":\"a\",\"arguments\":{}}\n{\"name\":\"b\",\"arguments\":{}}\n</tool_call>",
	      "a {}|b {}", "");
	/* OpenAI's nested shape inside a tag. */
	CHECK("<tool_call>{\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}</tool_call>",
	      "f {}", "");
	/* issue 20: a JSON value other than an object in a tag hides no call inside it */
	CHECK("<tool_call>\"<function=ls></function>\"", "ls {}", "<tool_call>\"\n\n\"");
	/* issue 20: inside a tag, keys beyond a call's are allowed (not in a fence or bare) */
	CHECK("<tool_call>{\"name\":\"ls\",\"arguments\":{},\"why\":\"x\"}</tool_call>", "ls {}", "");
	/* issue 20: a name of its own wins over a nested function's */
	CHECK("<tool_call>{\"name\":\"a\",\"function\":{\"name\":\"f\"}}</tool_call>", "a {}", "");
}

static void
test_hermes_rejects(void **state)
{
	(void)state;
	/* Not JSON, arguments of the wrong type, no name: left as text. */
	CHECK("<tool_call>{\"name\": \"read\", \"arguments\": {\"path\": }</tool_call>", "",
	      "<tool_call>{\"name\": \"read\", \"arguments\": {\"path\": }</tool_call>");
	CHECK("<tool_call>{\"name\":\"x\",\"arguments\":[1]}</tool_call>", "",
	      "<tool_call>{\"name\":\"x\",\"arguments\":[1]}</tool_call>");
	CHECK("<tool_call>{\"name\":\"x\",\"arguments\":\"not json\"}</tool_call>", "",
	      "<tool_call>{\"name\":\"x\",\"arguments\":\"not json\"}</tool_call>");
	CHECK("<tool_call>{\"arguments\":{}}</tool_call>", "", "<tool_call>{\"arguments\":{}}</tool_call>");
	CHECK("<tool_call>{\"name\":\"two words\"}</tool_call>", "",
	      "<tool_call>{\"name\":\"two words\"}</tool_call>");
	CHECK("<tool_call>{\"name\":\"\"}</tool_call>", "", "<tool_call>{\"name\":\"\"}</tool_call>");
	CHECK("<tool_call> plain words </tool_call>", "", "<tool_call> plain words </tool_call>");
	/* A broken block does not hide a good one after it. */
	CHECK("<tool_call>{bad}</tool_call>\n<tool_call>{\"name\":\"ok\"}</tool_call>", "ok {}",
	      "<tool_call>{bad}</tool_call>");
	/* A bare object at the start is a call only with the call's keys. */
	CHECK("{\"name\": \"Bob\", \"age\": 3}", "", "{\"name\": \"Bob\", \"age\": 3}");
	/* ...and only at the start. */
	CHECK("see {\"name\":\"ls\",\"arguments\":{}}", "", "see {\"name\":\"ls\",\"arguments\":{}}");
}

/* Issue 20: a tool name of 256 bytes (the most a name may have) is a call; of 257, text (JSON and XML). */
static void
test_name_length(void **state)
{
	struct buf in = BUF_INIT, name = BUF_INIT, want = BUF_INIT;
	int i;

	(void)state;
	for (i = 0; i < 256; i++)
		buf_addch(&name, 'a' + i % 26);
	buf_addf(&in, "<tool_call>{\"name\":\"%s\"}</tool_call>", name.data);
	buf_addf(&want, "%s {}", name.data);
	CHECK(in.data, want.data, "");
	buf_reset(&in);
	buf_addf(&in, "<function=%s>\n</function>", name.data);
	CHECK(in.data, want.data, "");
	buf_addch(&name, 'z');
	buf_reset(&in);
	buf_addf(&in, "<tool_call>{\"name\":\"%s\"}</tool_call>", name.data);
	CHECK(in.data, "", in.data);
	buf_reset(&in);
	buf_addf(&in, "<function=%s>\n</function>", name.data);
	CHECK(in.data, "", in.data);
	/* A name too long or not a name inside a parameter's value does not make the value a call. */
	buf_reset(&in);
	buf_addf(&in, "x<parameter=k><function=%s</parameter></function>", name.data);
	CHECK(in.data, "", in.data);
	buf_release(&in);
	buf_release(&name);
	buf_release(&want);
}

/* Issue 20: a name with a space, '<', '>', '"' or DEL anywhere (the first byte too) is no tool's. */
static void
test_name_chars(void **state)
{
	static const char *const bad[] = {
		"<tool_call>{\"name\":\" ls\"}</tool_call>", "<tool_call>{\"name\":\"<ls\"}</tool_call>",
		"<tool_call>{\"name\":\"a<b\"}</tool_call>", "<tool_call>{\"name\":\"a>b\"}</tool_call>",
		"<tool_call>{\"name\":\"a\\\"b\"}</tool_call>", "<tool_call>{\"name\":\"a\x7f\"}</tool_call>",
		"<tool_call>{\"name\":\"a\\tb\"}</tool_call>",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(bad[i], "", bad[i]);
	CHECK("<tool_call>{\"name\":\"a-b.c_d!\"}</tool_call>", "a-b.c_d! {}", "");
}

/*
 * Issue 20: only n bytes are read: what follows them (a blank, the '>'
 * that would close a tag, the newline that would open a value, the rest
 * of a fence's info line and its content) changes nothing.
 */
static void
test_bytes_past_n(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *calls;
	} cases[] = {
		{ "<function=ls> ", 13, "ls {}" },
		{ "<tool_call>{\"name\":\"ls\"} \n", 25, "ls {}" },
		{ "<function=f><parameter=a>", 24, "" },
		{ "<function=f><parameter=a>\n", 25, "f {\"a\":\"\"}" },
		{ "```json \n{\"name\":\"ls\"}\n```", 7, "" },
		{ "<tool_call>{\"name\":\"a\"}</tool_call>  ", 36, "a {}" },
	};
	struct textcall_result r;
	struct buf c = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		textcall_run(cases[i].in, cases[i].n, NULL, NULL, &r);
		buf_reset(&c);
		if (r.ncalls)
			buf_addf(&c, "%s %s", r.calls[0].name, r.calls[0].args_json);
		assert_int_equal(r.ncalls, cases[i].calls[0] != '\0');
		assert_string_equal(c.data, cases[i].calls);
		assert_true(r.text.len <= cases[i].n);
		textcall_release(&r);
	}
	buf_release(&c);
}

/* Issue 20: textcall_release leaves the result empty. */
static void
test_release_empties(void **state)
{
	const char *in = "<think>t</think>x<tool_call>{\"name\":\"a\"}</tool_call>";
	struct textcall_result r;

	(void)state;
	textcall_run(in, strlen(in), NULL, NULL, &r);
	assert_int_equal(r.ncalls, 1);
	assert_int_equal(r.text.len, 1);
	assert_int_equal(r.reasoning.len, 1);
	textcall_release(&r);
	assert_int_equal(r.ncalls, 0);
	assert_null(r.calls);
	assert_int_equal(r.text.len, 0);
	assert_int_equal(r.reasoning.len, 0);
}

/* Issue 20: CR (a CRLF model) and the other ASCII spaces around a call object are whitespace. */
static void
test_crlf_and_spaces(void **state)
{
	(void)state;
	CHECK("<tool_call>\r\n{\"name\":\"ls\"}\r\n</tool_call>", "ls {}", "");
	CHECK("<tool_call>\f{\"name\":\"ls\"}\v</tool_call>", "ls {}", "");
	CHECK("<tool_call>\t{\"name\":\"ls\"} </tool_call>", "ls {}", "");
}

static void
test_qwen_xml(void **state)
{
	(void)state;
	CHECK("<tool_call>\n<function=write>\n<parameter=path>\nsrc/a.c\n</parameter>\n"
	      "<parameter=content>\nint x;\n\nint y;\n\n</parameter>\n</function>\n</tool_call>",
	      "write {\"path\":\"src/a.c\",\"content\":\"int x;\\n\\nint y;\\n\"}", "");
	/* Missing <tool_call>, no parameters. */
	CHECK("Listing.\n<function=ls>\n</function>", "ls {}", "Listing.");
	/* Truncated at the end. */
	CHECK("<tool_call>\n<function=bash>\n<parameter=command>\nls -la",
	      "bash {\"command\":\"ls -la\"}", "");
	CHECK("<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n",
	      "bash {\"command\":\"ls\"}", "");
	/* A parameter without its closer ends at the next parameter. */
	CHECK("<function=f><parameter=a>1<parameter=b>x</parameter></function>", "f {\"a\":1,\"b\":\"x\"}", "");
	/* Repeated parameter: the last wins. */
	CHECK("<function=f><parameter=a>1</parameter><parameter=a>2</parameter></function>", "f {\"a\":2}", "");
	/* Values keep inner markup, including a literal </function>. */
	CHECK("<function=write>\n<parameter=content>\n<a></function>\n</parameter>\n</function>",
	      "write {\"content\":\"<a></function>\"}", "");
	/* Garbage between parameters: not a call. */
	CHECK("<function=f>\n<parameter=a>1</parameter>\njunk\n</function>", "",
	      "<function=f>\n<parameter=a>1</parameter>\njunk\n</function>");
	CHECK("<function=>\n</function>", "", "<function=>\n</function>");
	CHECK("<function=a b>\n</function>", "", "<function=a b>\n</function>");
	/* issue 20: a missing </parameter> before </function> ends at </function> */
	CHECK("<function=f><parameter=a>1</function>", "f {\"a\":1}", "");
	/* issue 20: a tag's name does not span lines */
	CHECK("<function=ls\n>\n</function>", "", "<function=ls\n>\n</function>");
	/*
	 * issue 20: a bad <function=...> or <parameter=...> name fails the call
	 * where it stands (inside an earlier parameter-like text here, which a
	 * restart from the text's start would take for the call's parameter).
	 */
	CHECK("x<parameter=k><function=a b></parameter></function>", "",
	      "x<parameter=k><function=a b></parameter></function>");
	CHECK("x<parameter=k><function=a\n></parameter></function>", "",
	      "x<parameter=k><function=a\n></parameter></function>");
	CHECK("x<parameter=k><function=f><parameter=a b></parameter></function>", "",
	      "x<parameter=k><function=f><parameter=a b></parameter></function>");
}

static void
test_xml_typing_default(void **state)
{
	(void)state;
	CHECK("<function=f>"
	      "<parameter=n>\n10\n</parameter><parameter=b>\ntrue\n</parameter>"
	      "<parameter=o>\n{\"k\": [1]}\n</parameter><parameter=z>\nnull\n</parameter>"
	      "<parameter=q>\n\"quoted\"\n</parameter><parameter=s>\nplain text\n</parameter>"
	      "<parameter=e>\n\n</parameter></function>",
	      "f {\"n\":10,\"b\":true,\"o\":{\"k\":[1]},\"z\":\"null\",\"q\":\"\\\"quoted\\\"\","
	      "\"s\":\"plain text\",\"e\":\"\"}",
	      "");
}

/* Schema stand-in: `command` and `q` are strings, `n` and `q2` are not, others unknown. */
static int
schema(void *ctx, const char *tool, const char *param)
{
	(void)ctx;
	assert_string_equal(tool, "f");
	if (strcmp(param, "command") == 0 || strcmp(param, "q") == 0)
		return 1;
	if (strcmp(param, "n") == 0 || strcmp(param, "q2") == 0)
		return 0;
	return -1;
}

static void
test_xml_typing_callback(void **state)
{
	(void)state;
	check_fn("<function=f><parameter=command>\n123\n</parameter><parameter=n>\nabc\n</parameter>"
		 "<parameter=q>\n\"x\"\n</parameter><parameter=q2>\n\"x\"\n</parameter>"
		 "<parameter=other>\n7\n</parameter></function>",
		 schema, "f {\"command\":\"123\",\"n\":\"abc\",\"q\":\"\\\"x\\\"\",\"q2\":\"x\",\"other\":7}",
		 "", "");
}

static void
test_fences(void **state)
{
	(void)state;
	CHECK("Sure:\n```json\n{\"name\":\"grep\",\"arguments\":{\"pattern\":\"x\"}}\n```\nok",
	      "grep {\"pattern\":\"x\"}", "Sure:\n\nok");
	CHECK("```\n{\"name\":\"ls\",\"parameters\":{}}\n```", "ls {}", "");
	CHECK("```json\n{\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}\n```",
	      "ls {}", "");
	/* Unterminated fence at the end. */
	CHECK("```json\n{\"name\":\"ls\",\"arguments\":{}}\n", "ls {}", "");
	/* Arbitrary JSON in a fence is never a call. */
	CHECK("```json\n{\"name\":\"bob\",\"age\":3}\n```", "", "```json\n{\"name\":\"bob\",\"age\":3}\n```");
	CHECK("```json\n[{\"name\":\"ls\"}]\n```", "", "```json\n[{\"name\":\"ls\"}]\n```");
	/* A fence of only tool-call tags goes with them. */
	CHECK("Run:\n```xml\n<tool_call>\n<function=ls>\n</function>\n</tool_call>\n```\nbye",
	      "ls {}", "Run:\n\nbye");
	CHECK("```\n<tool_call>{\"name\":\"a\"}</tool_call>\n<tool_call>{\"name\":\"b\"}</tool_call>\n```",
	      "a {}|b {}", "");
	/* Examples in prose fences and other languages stay text. */
	CHECK("```\nExample: <tool_call>{\"name\":\"a\"}</tool_call>\n```", "",
	      "```\nExample: <tool_call>{\"name\":\"a\"}</tool_call>\n```");
	CHECK("```python\n<tool_call>{\"name\":\"a\"}</tool_call>\n```\n<tool_call>{\"name\":\"b\"}</tool_call>",
	      "b {}", "```python\n<tool_call>{\"name\":\"a\"}</tool_call>\n```");
	/* Fences open lines: an inline ``` hides nothing. */
	CHECK("Use ``` to fence.\n<tool_call>{\"name\":\"a\"}</tool_call>", "a {}", "Use ``` to fence.");
	CHECK("x ```<tool_call>{\"name\":\"a\"}</tool_call>", "a {}", "x ```"); /* issue 20: right after it */
	/* issue 20: an empty fence holds no calls: it stays */
	CHECK("a\n```\n\n```\nb", "", "a\n```\n\n```\nb");
	CHECK("  ```json\n  {\"name\":\"a\"}\n  ```  \nx", "a {}", "x");
	CHECK("```\nsee ``` here\n```\n<tool_call>{\"name\":\"b\"}</tool_call>", "b {}",
	      "```\nsee ``` here\n```");
	/* A fence inside a call's arguments belongs to the call. */
	CHECK("<tool_call>{\"name\":\"write\",\"arguments\":{\"content\":\"```\\ncode\\n```\"}}</tool_call>",
	      "write {\"content\":\"```\\ncode\\n```\"}", "");
}

static void
test_think(void **state)
{
	(void)state;
	check_fn("I should list.\n</think>\n\nHere.", NULL, "", "Here.", "I should list.");
	check_fn("<think>\nhmm\n</think>\nAnswer", NULL, "", "Answer", "hmm");
	check_fn("<think>never closed", NULL, "", "", "never closed");
	check_fn("<think></think>Answer", NULL, "", "Answer", ""); /* issue 20: empty thinking */
	check_fn("a <think> b </think> c", NULL, "", "a <think> b </think> c", "");
	check_fn("plan</think><tool_call>{\"name\":\"ls\"}</tool_call>", NULL, "ls {}", "", "plan");
	check_fn("</think>", NULL, "", "", "");
}

static void
test_visible_text(void **state)
{
	(void)state;
	CHECK("A\n\n\n<tool_call>{\"name\":\"a\"}</tool_call>\n\n\nB", "a {}", "A\n\nB");
	CHECK("<tool_call>{\"name\":\"a\"}</tool_call>\n\n    indented\n", "a {}", "    indented");
	CHECK("one <tool_call>{\"name\":\"a\"}</tool_call> two", "a {}", "one\n\ntwo");
	CHECK("Hello\n", "", "Hello");
	CHECK("\n\n  Hello  \n\n", "", "  Hello");
	CHECK("  Hello", "", "  Hello"); /* issue 20: the first line's indentation without a blank line before it */
	CHECK("", "", "");
	CHECK("x", "", "x"); /* issue 20: one byte is a text too */
	CHECK("   \n\t ", "", "");
	CHECK("x <tool_call>{\"name\":\"a\"}</tool_call>\n \n<tool_call>{\"name\":\"b\"}</tool_call> y",
	      "a {}|b {}", "x\n\ny");
}

/* Invariants that hold for any input: names valid, args are objects, text trimmed. */
static void
invariants(const char *in, size_t n)
{
	struct textcall_result r, r2;
	size_t i;
	cJSON *v;

	textcall_run(in, n, NULL, NULL, &r);
	for (i = 0; i < r.ncalls; i++) {
		assert_true(strlen(r.calls[i].name) > 0);
		v = json_parse(r.calls[i].args_json, strlen(r.calls[i].args_json), NULL);
		assert_true(cJSON_IsObject(v));
		cJSON_Delete(v);
	}
	if (r.text.len) {
		assert_true(r.text.data[r.text.len - 1] != '\n' && r.text.data[r.text.len - 1] != ' ');
		assert_true(r.text.data[0] != '\n');
	}
	assert_true(r.text.len <= n);
	textcall_run(in, n, NULL, NULL, &r2);
	assert_int_equal(r.ncalls, r2.ncalls);
	assert_int_equal(r.text.len, r2.text.len);
	assert_memory_equal(r.text.data, r2.text.data, r.text.len);
	textcall_release(&r);
	textcall_release(&r2);
}

static void
test_random(void **state)
{
	static const char *const tok[] = {
		"<tool_call>", "</tool_call>", "<function=f>", "<parameter=p>", "</parameter>",
		"</function>", "```", "```json\n", "{", "}", "\"name\"", ":", "\"x\"", ",",
		"\"arguments\"", "[", "]", "\n", " ", "</think>", "<think>", "a", "\\", "\xff",
		"1", "\"", "<", "\0",
	};
	struct buf b = BUF_INIT;
	uint32_t seed = 12345;
	int iter, k, len;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		buf_reset(&b);
		seed = seed * 1103515245u + 12345u;
		len = (int)(seed >> 16) % 40;
		for (k = 0; k < len; k++) {
			size_t t;

			seed = seed * 1103515245u + 12345u;
			t = (seed >> 16) % (sizeof tok / sizeof tok[0]);
			buf_add(&b, tok[t], t + 1 == sizeof tok / sizeof tok[0] ? 1 : strlen(tok[t]));
		}
		invariants(b.data, b.len);
	}
	buf_release(&b);
	invariants(NULL, 0);
}

/* n copies of s. */
static void
repeat(struct buf *b, const char *s, size_t n)
{
	buf_reset(b);
	while (n--)
		buf_adds(b, s);
}

/* Inputs that would take minutes with a quadratic scan finish at once. */
static void
test_adversarial(void **state)
{
	static const char *const units[] = {
		"<tool_call>{", "<tool_call>{\"name\":\"x\",\"arguments\":\"",
		"<function=a>\n<parameter=x>", "<function=a><parameter=x>v</parameter>",
		"```json\n", "```\n{", "</think>", "<think>", "{", "[", "\"", "<tool_call>",
	};
	struct buf b = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		repeat(&b, units[i], (1u << 20) / strlen(units[i]));
		invariants(b.data, b.len);
	}
	/* One huge valid call still parses. */
	buf_reset(&b);
	buf_adds(&b, "<tool_call>{\"name\":\"w\",\"arguments\":{\"c\":\"");
	for (i = 0; i < 200000; i++)
		buf_adds(&b, "ab\\n");
	buf_adds(&b, "\"}}</tool_call>");
	{
		struct textcall_result r;

		textcall_run(b.data, b.len, NULL, NULL, &r);
		assert_int_equal(r.ncalls, 1);
		assert_int_equal(strlen(r.calls[0].args_json), 200000 * 4 + 8);
		textcall_release(&r);
	}
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hermes_json),
		cmocka_unit_test(test_hermes_rejects),
		cmocka_unit_test(test_name_length),
		cmocka_unit_test(test_name_chars),
		cmocka_unit_test(test_bytes_past_n),
		cmocka_unit_test(test_release_empties),
		cmocka_unit_test(test_crlf_and_spaces),
		cmocka_unit_test(test_qwen_xml),
		cmocka_unit_test(test_xml_typing_default),
		cmocka_unit_test(test_xml_typing_callback),
		cmocka_unit_test(test_fences),
		cmocka_unit_test(test_think),
		cmocka_unit_test(test_visible_text),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_adversarial),
	};

	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_mcpwire: the MCP wire codec and the .mcp.json reader with hostile
 * input: split and oversized lines, non-JSON, wrong shapes and types,
 * huge tool results; and mcp_config's merging, expansion and warnings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/json.h"
#include "mcp/config.h"
#include "mcp/wire.h"
#include "testutil.h"

/* Lines come out whole however the bytes are split; CR is dropped. */
static void
test_lines_split(void **state)
{
	struct mcp_wire_lines lr;
	struct err e = ERR_INIT;
	const char *line, *in = "{\"a\":1}\r\n\n{\"b\":2}\npartial";
	size_t len, i;
	int got = 0;

	(void)state;
	mcp_wire_lines_init(&lr);
	for (i = 0; in[i]; i++) {
		mcp_wire_lines_add(&lr, in + i, 1);
		while (mcp_wire_lines_next(&lr, &line, &len, &e) == 1) {
			if (got == 0)
				assert_true(len == 7 && !memcmp(line, "{\"a\":1}", 7));
			if (got == 1)
				assert_int_equal(len, 0);
			if (got == 2)
				assert_true(len == 7 && !memcmp(line, "{\"b\":2}", 7));
			got++;
		}
	}
	assert_int_equal(got, 3);
	assert_int_equal(mcp_wire_lines_next(&lr, &line, &len, &e), 0);
	mcp_wire_lines_release(&lr);
}

/* A line over the limit without a newline is an error, not unbounded memory. */
static void
test_lines_too_long(void **state)
{
	struct mcp_wire_lines lr;
	struct err e = ERR_INIT;
	char *chunk = malloc(1 << 20);
	const char *line;
	size_t len;
	int i, rc = 0;

	(void)state;
	memset(chunk, 'x', 1 << 20);
	mcp_wire_lines_init(&lr);
	for (i = 0; i < 18 && rc == 0; i++) {
		mcp_wire_lines_add(&lr, chunk, 1 << 20);
		rc = mcp_wire_lines_next(&lr, &line, &len, &e);
	}
	assert_int_equal(rc, -1);
	assert_non_null(strstr(e.msg, "longer than 16 MB"));
	mcp_wire_lines_release(&lr);
	free(chunk);
}

/* Parse one string; rc and message. */
static int
parse(const char *s, struct mcp_wire_msg *m, struct err *e)
{
	err_clear(e);
	return mcp_wire_parse(s, strlen(s), m, e);
}

/* Every kind of message, and each malformed one with its reason. */
static void
test_parse(void **state)
{
	static const struct { const char *in, *why; } bad[] = {
		{ "not json", "invalid JSON" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1", "invalid JSON" },
		{ "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]", "not an object" },
		{ "42", "not an object" },
		{ "{\"id\":1,\"result\":{}}", "jsonrpc" },
		{ "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}", "jsonrpc" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}", "both" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1}", "neither" },
		{ "{\"jsonrpc\":\"2.0\"}", "neither" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}", "not an object" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":7}", "method" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":[1]}", "id" },
	};
	struct mcp_wire_msg m;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(parse(bad[i].in, &m, &e), -1);
		assert_non_null(strstr(e.msg, bad[i].why));
		assert_null(m.root);
	}
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"x\":1}}", &m, &e), 0);
	assert_int_equal(m.kind, MCP_WIRE_RESULT);
	assert_int_equal(m.id, 7);
	mcp_wire_msg_free(&m);
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":null}", &m, &e), 0);
	assert_int_equal(m.id, -1); /* not one of ours */
	mcp_wire_msg_free(&m);
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601}}", &m, &e), 0);
	assert_int_equal(m.kind, MCP_WIRE_ERROR);
	assert_int_equal(m.err_code, -32601);
	assert_string_equal(m.err_message, "(no message)");
	mcp_wire_msg_free(&m);
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}", &m, &e), 0);
	assert_int_equal(m.kind, MCP_WIRE_REQUEST);
	mcp_wire_msg_free(&m);
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}",
			       &m, &e), 0);
	assert_int_equal(m.kind, MCP_WIRE_NOTIFICATION);
	mcp_wire_msg_free(&m);
}

/*
 * Found by tests/fuzz/fuzz_mcpwire: an id too large for a long was
 * converted before its range was checked (undefined; clang's UBSan
 * reports it).  Such ids, negative ones and fractions are not ours: -1.
 */
static void
test_parse_huge_id(void **state)
{
	static const char *const ids[] = {
		"1777777777777777777777777777777777777777777777777777777777777777777777777",
		"-1e300", "1e16", "2.5", "-3",
	};
	struct mcp_wire_msg m;
	struct err e = ERR_INIT;
	char line[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		snprintf(line, sizeof line,
			 "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32000,\"message\":\"refused\"}}",
			 ids[i]);
		assert_int_equal(parse(line, &m, &e), 0);
		assert_int_equal(m.kind, MCP_WIRE_ERROR);
		assert_int_equal(m.id, -1);
		mcp_wire_msg_free(&m);
	}
	assert_int_equal(parse("{\"jsonrpc\":\"2.0\",\"id\":1000000000000000,\"result\":{}}", &m, &e), 0);
	assert_int_equal(m.id, 1000000000000000L);
	mcp_wire_msg_free(&m);
}

/* Builders give one line each, with no raw newline inside. */
static void
test_builders(void **state)
{
	struct buf b = BUF_INIT;
	cJSON *id;

	(void)state;
	json_init();
	mcp_wire_request(&b, 1, "initialize", mcp_wire_init_params("hearth", "0.1"));
	assert_non_null(strstr(b.data, "\"protocolVersion\":\"" MCP_WIRE_PROTOCOL "\""));
	assert_non_null(strstr(b.data, "\"clientInfo\":{\"name\":\"hearth\""));
	assert_int_equal(strchr(b.data, '\n') - b.data, (long)b.len - 1);
	buf_reset(&b);
	mcp_wire_notify(&b, "notifications/cancelled", mcp_wire_cancel_params(5, "a\nb"));
	assert_string_equal(b.data, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5,\"reason\":\"a\\nb\"}}\n");
	buf_reset(&b);
	id = cJSON_CreateString("x");
	mcp_wire_reply_error(&b, id, -32601, "method not found");
	assert_string_equal(b.data, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}\n");
	cJSON_Delete(id);
	buf_release(&b);
}

/* tools/list: good tools kept, bad ones skipped with a warning, the cursor returned. */
static void
test_tools(void **state)
{
	const char *page = "{\"tools\":[{\"name\":\"ok\",\"inputSchema\":{\"type\":\"object\"}},"
			   "{\"name\":\"\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":5},"
			   "{\"name\":\"noschema\"},{\"name\":\"arr\",\"inputSchema\":{\"type\":\"array\"}},"
			   "\"junk\",{\"name\":\"d\",\"description\":\"hi\",\"annotations\":{\"readOnlyHint\":true},\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}],"
			   "\"nextCursor\":\"c2\"}";
	struct mcp_wire_tool *v = NULL;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	char *cursor;
	size_t n = 0;
	cJSON *r = json_parse(page, strlen(page), &e);

	(void)state;
	assert_int_equal(mcp_wire_tools(r, &v, &n, &cursor, &w, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "ok");
	assert_string_equal(v[0].description, "");
	assert_string_equal(v[1].description, "hi");
	assert_int_equal(v[0].read_only, 0);
	assert_int_equal(v[1].read_only, 1);
	assert_string_equal(cursor, "c2");
	assert_non_null(strstr(w.data, "noschema"));
	free(cursor);
	cJSON_Delete(r);
	r = json_parse("{\"tools\":{}}", 12, &e);
	assert_int_equal(mcp_wire_tools(r, &v, &n, &cursor, &w, &e), -1);
	assert_non_null(strstr(e.msg, "tools"));
	cJSON_Delete(r);
	mcp_wire_tools_free(v, n);
	buf_release(&w);
}

/* tools/call results: text joined, other kinds summarised, isError, the cap. */
static void
test_call_text(void **state)
{
	const char *res = "{\"content\":[{\"type\":\"text\",\"text\":\"one\"},{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAAA\"},"
			  "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///x\"}},{\"type\":\"text\"},7],\"isError\":true}";
	struct buf out = BUF_INIT, big = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *r = json_parse(res, strlen(res), &e), *o, *c, *t;
	int is_error;
	size_t i;

	(void)state;
	assert_int_equal(mcp_wire_call_text(r, &out, &is_error, &e), 0);
	assert_int_equal(is_error, 1);
	assert_string_equal(out.data, "one\n[image image/png, 0 KB]\n[resource file:///x]\n[text content]\n[unknown content]");
	cJSON_Delete(r);
	buf_reset(&out);
	assert_int_equal(mcp_wire_call_text(NULL, &out, &is_error, &e), -1);
	r = json_parse("{}", 2, &e);
	assert_int_equal(mcp_wire_call_text(r, &out, &is_error, &e), 0);
	assert_string_equal(out.data, "(no output)");
	cJSON_Delete(r);
	buf_reset(&out);
	for (i = 0; i < 300000; i++)
		buf_adds(&big, "\xc3\xa9");
	o = cJSON_CreateObject();
	c = cJSON_AddArrayToObject(o, "content");
	t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", big.data);
	cJSON_AddItemToArray(c, t);
	assert_int_equal(mcp_wire_call_text(o, &out, &is_error, &e), 0);
	assert_true(out.len < MCP_WIRE_MAX_OUTPUT + 100);
	assert_non_null(strstr(out.data, "[output truncated: 102400 of 600000 bytes shown]"));
	assert_int_equal(json_utf8_len(out.data + 102398, 2), 2); /* no cut sequence */
	cJSON_Delete(o);
	buf_release(&out);
	buf_release(&big);
}

/* .mcp.json: good entries kept (stdio, http, sse); wrong types, unknown transports and disabled ones left out. */
static void
test_cfg_file(void **state)
{
	char *dir = tu_tmpdir(), path[512];
	struct mcp_config c = { 0 };
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	setenv("MCPTEST_X", "ex", 1);
	tu_write(dir, "a.json", "{\"mcpServers\":{"
		 "\"good\":{\"command\":\"${MCPTEST_X}/bin\",\"args\":[\"-v\",\"${NOPE:-dflt}\"],\"env\":{\"K\":\"v${MCPTEST_X}\"}},"
		 "\"noargs\":{\"command\":\"x\",\"args\":\"-v\"},\"badargs\":{\"command\":\"x\",\"args\":[1]},"
		 "\"nocmd\":{\"args\":[]},\"badenv\":{\"command\":\"x\",\"env\":{\"K\":1}},"
		 "\"web\":{\"type\":\"http\",\"url\":\"http://x/${MCPTEST_X}\",\"headers\":{\"Authorization\":\"Bearer ${MCPTEST_X}\"}},"
		 "\"old\":{\"type\":\"sse\",\"url\":\"https://y/sse\"},\"nourl\":{\"type\":\"http\",\"url\":\"ftp://z\"},"
		 "\"badhdr\":{\"type\":\"http\",\"url\":\"http://x\",\"headers\":{\"A\":\"1\\r\\nB: 2\"}},"
		 "\"ws\":{\"type\":\"ws\",\"url\":\"ws://x\"},\"off\":{\"command\":\"x\",\"disabled\":true},"
		 "\"str\":\"x\"}}");
	snprintf(path, sizeof path, "%s/a.json", dir);
	assert_int_equal(mcp_config_load_file(&c, path, &w, &e), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.v[1].transport, MCP_HTTP);
	assert_null(c.v[1].argv);
	assert_string_equal(c.v[1].url, "http://x/ex");
	assert_string_equal(c.v[1].headers[0], "Authorization: Bearer ex");
	assert_null(c.v[1].headers[1]);
	assert_int_equal(c.v[2].transport, MCP_SSE);
	assert_string_equal(c.v[2].url, "https://y/sse");
	assert_non_null(strstr(w.data, "\"nourl\" needs a \"url\" starting with http:// or https://"));
	assert_non_null(strstr(w.data, "header \"A\" must be a one-line string"));
	assert_non_null(strstr(w.data, "\"ws\" is of type \"ws\"; use \"stdio\", \"http\" or \"sse\""));
	assert_string_equal(c.v[0].argv[0], "ex/bin");
	assert_string_equal(c.v[0].argv[2], "dflt");
	assert_null(c.v[0].argv[3]);
	assert_string_equal(c.v[0].env[0], "K=vex");
	assert_non_null(strstr(w.data, "\"noargs\""));
	assert_non_null(strstr(w.data, "\"badargs\""));
	assert_non_null(strstr(w.data, "\"nocmd\""));
	assert_non_null(strstr(w.data, "\"badenv\""));
	assert_null(strstr(w.data, "\"off\""));
	assert_non_null(strstr(w.data, "\"str\""));
	tu_write(dir, "b.json", "{\"mcpServers\":{\"good\":{\"command\":\"other\"}}}");
	snprintf(path, sizeof path, "%s/b.json", dir);
	assert_int_equal(mcp_config_load_file(&c, path, &w, &e), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.v[0].argv[0], "other");
	tu_write(dir, "c.json", "{\"mcpServers\":{\n\"x\": }");
	snprintf(path, sizeof path, "%s/c.json", dir);
	assert_int_equal(mcp_config_load_file(&c, path, &w, &e), -1);
	assert_non_null(strstr(e.msg, "line 2"));
	assert_int_equal(c.n, 3);
	tu_write(dir, "d.json", "[1,2]");
	snprintf(path, sizeof path, "%s/d.json", dir);
	assert_int_equal(mcp_config_load_file(&c, path, &w, &e), 0);
	snprintf(path, sizeof path, "%s/missing.json", dir);
	assert_int_equal(mcp_config_load_file(&c, path, &w, &e), 0);
	mcp_config_release(&c);
	buf_release(&w);
	tu_rmrf(dir);
	free(dir);
}

/* resources/list and resources/read answers as text for the model. */
static void
test_resources_text(void **state)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *r;

	(void)state;
	r = cJSON_Parse("{\"resources\":[{\"uri\":\"demo://a\",\"name\":\"A\",\"mimeType\":\"text/plain\","
			"\"description\":\"first\\nsecond\"},{\"name\":\"no uri\"}],\"nextCursor\":\"c2\"}");
	assert_int_equal(mcp_wire_resources_text(r, &out, &e), 0);
	assert_string_equal(out.data, "demo://a  A (text/plain): first\nmore: call again with cursor c2\n");
	cJSON_Delete(r);
	buf_reset(&out);
	r = cJSON_Parse("{\"contents\":[{\"uri\":\"demo://a\",\"text\":\"hello\"},"
			"{\"uri\":\"demo://b\",\"mimeType\":\"image/png\",\"blob\":\"AAAA\"}]}");
	assert_int_equal(mcp_wire_resources_text(r, &out, &e), 0);
	assert_string_equal(out.data, "hello\n[demo://b image/png, 0 KB of binary data]");
	cJSON_Delete(r);
	buf_reset(&out);
	r = cJSON_Parse("{\"resources\":[]}");
	assert_int_equal(mcp_wire_resources_text(r, &out, &e), 0);
	assert_string_equal(out.data, "(no resources)\n");
	cJSON_Delete(r);
	r = cJSON_Parse("{\"other\":1}");
	assert_int_equal(mcp_wire_resources_text(r, &out, &e), -1);
	assert_non_null(strstr(e.msg, "neither"));
	cJSON_Delete(r);
	buf_release(&out);
}

/* args → the arguments object as JSON text (0), or the error sentence (-1) in out. */
static int
prompt_args(char *const *names, unsigned required, const char *args, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	struct buf err = BUF_INIT;
	int rc = mcp_wire_prompt_args(names, required, args, o, &err);
	char *j = cJSON_PrintUnformatted(o);

	buf_reset(out);
	buf_adds(out, rc == 0 ? j : err.data);
	free(j);
	cJSON_Delete(o);
	buf_release(&err);
	return rc;
}

/* A prompt's arguments: shell-like words, quotes, NAME=value, the last taking the rest, the errors. */
static void
test_prompt_args(void **state)
{
	char *two[] = { (char *)"city", (char *)"state", NULL };
	char *one[] = { (char *)"focus", NULL };
	char *none[] = { NULL };
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(prompt_args(two, 1, "Paris", &b), 0);
	assert_string_equal(b.data, "{\"city\":\"Paris\"}");
	assert_int_equal(prompt_args(two, 1, "  \"New York\"  NY ", &b), 0);
	assert_string_equal(b.data, "{\"city\":\"New York\",\"state\":\"NY\"}");
	assert_int_equal(prompt_args(two, 1, "'San Jose' 'it''s'", &b), 0);
	assert_string_equal(b.data, "{\"city\":\"San Jose\",\"state\":\"its\"}");
	/* by name, in any order; the positional word fills what is left */
	assert_int_equal(prompt_args(two, 1, "state=\"New Mexico\" Santa\\ Fe", &b), 0);
	assert_string_equal(b.data, "{\"state\":\"New Mexico\",\"city\":\"Santa Fe\"}");
	assert_int_equal(prompt_args(two, 1, "state='a b' city=x", &b), 0);
	assert_string_equal(b.data, "{\"state\":\"a b\",\"city\":\"x\"}");
	/* the last argument takes the words left over; an = that names nothing is text */
	assert_int_equal(prompt_args(two, 1, "Paris France and more", &b), 0);
	assert_string_equal(b.data, "{\"city\":\"Paris\",\"state\":\"France and more\"}");
	assert_int_equal(prompt_args(one, 0, "the error handling in x=1", &b), 0);
	assert_string_equal(b.data, "{\"focus\":\"the error handling in x=1\"}");
	assert_int_equal(prompt_args(one, 0, "\"focus=quoted\"", &b), 0); /* a quoted NAME= is a value */
	assert_string_equal(b.data, "{\"focus\":\"focus=quoted\"}");
	assert_int_equal(prompt_args(one, 0, "'focus'=x", &b), 0);
	assert_string_equal(b.data, "{\"focus\":\"focus=x\"}");
	assert_int_equal(prompt_args(one, 0, "\"say \\\"hi\\\" \\\\ \\n\"", &b), 0);
	assert_string_equal(b.data, "{\"focus\":\"say \\\"hi\\\" \\\\ \\\\n\"}");
	assert_int_equal(prompt_args(one, 0, "''", &b), 0); /* an empty word is a value */
	assert_string_equal(b.data, "{\"focus\":\"\"}");
	assert_int_equal(prompt_args(two, 0, "", &b), 0);
	assert_string_equal(b.data, "{}");
	/* errors */
	assert_int_equal(prompt_args(two, 1, "", &b), -1);
	assert_string_equal(b.data, "needs city");
	assert_int_equal(prompt_args(two, 3, "state=NY", &b), -1);
	assert_string_equal(b.data, "needs city");
	assert_int_equal(prompt_args(two, 1, "\"New York", &b), -1);
	assert_string_equal(b.data, "has an unclosed \" quote (close it, or escape it with \\\")");
	assert_int_equal(prompt_args(two, 1, "x 'y", &b), -1);
	assert_non_null(strstr(b.data, "unclosed ' quote"));
	assert_int_equal(prompt_args(two, 1, "city=a city=b", &b), -1);
	assert_string_equal(b.data, "got city twice");
	assert_int_equal(prompt_args(two, 1, "city=a state=b extra", &b), -1);
	assert_string_equal(b.data, "got \"extra\" but every argument is already given by name");
	assert_int_equal(prompt_args(none, 0, "words", &b), -1);
	assert_string_equal(b.data, "takes no arguments");
	assert_int_equal(prompt_args(none, 0, " \t", &b), 0);
	buf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_split),
		cmocka_unit_test(test_lines_too_long),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_huge_id),
		cmocka_unit_test(test_builders),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_call_text),
		cmocka_unit_test(test_cfg_file),
		cmocka_unit_test(test_resources_text),
		cmocka_unit_test(test_prompt_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

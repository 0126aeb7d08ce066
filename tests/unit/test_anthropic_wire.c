/*
 * test_anthropicwire: request conversion (pure) — fields, tool ids and
 * results, message merging and pairing repairs, thinking blocks, cache
 * breakpoints, the model table (sampling, thinking, tiers), determinism,
 * and the /v1/models list parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "anthropic_fixture.h"
#include "anthropic/wire.h"
#include "base/cfg.h"
#include "llm/conv.h"
#include "llama/wire.h"
#include "llm/tool.h"

/* Message i of a request body. */
static cJSON *
msg_at(cJSON *j, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(j, "messages"), i);
}

/* Content block b of message m of a request body. */
static cJSON *
block_at(cJSON *j, int m, int b)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(msg_at(j, m), "content"), b);
}

/* Count members named key anywhere in the tree. */
static int
count_key(const cJSON *o, const char *key)
{
	const cJSON *it;
	int n = 0;

	for (it = o ? o->child : NULL; it; it = it->next) {
		if (it->string && !strcmp(it->string, key))
			n++;
		n += count_key(it, key);
	}
	return n;
}

static void
test_wire_fields(void **state)
{
	struct conv cv;
	cJSON *j, *tools, *sys;
	int i, n;

	(void)state;
	conv_init(&cv);
	local_turn(&cv);
	j = wire(&cv, "claude-sonnet-5", 0, -1, 1);
	assert_string_equal(jstr(j, "model"), "claude-sonnet-5");
	assert_int_equal(cJSON_GetObjectItem(j, "max_tokens")->valueint, 16000);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "stream")));
	sys = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "system"), 0);
	assert_string_equal(jstr(sys, "type"), "text");
	assert_string_equal(jstr(sys, "text"), "You are a coding agent.");
	assert_string_equal(jstr(cJSON_GetObjectItem(sys, "cache_control"), "type"), "ephemeral");
	tools = cJSON_GetObjectItem(j, "tools");
	n = cJSON_GetArraySize(tools);
	assert_true(n >= 5);
	for (i = 0; i < n; i++) {
		cJSON *t = cJSON_GetArrayItem(tools, i);

		assert_non_null(jstr(t, "name"));
		assert_non_null(jstr(t, "description"));
		assert_true(cJSON_IsObject(cJSON_GetObjectItem(t, "input_schema")));
		assert_null(cJSON_GetObjectItem(t, "type"));
		/* the breakpoint is on the last tool only */
		assert_true((cJSON_GetObjectItem(t, "cache_control") != NULL) == (i == n - 1));
	}
	assert_null(cJSON_GetObjectItem(j, "thinking"));
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_tool_ids_and_results(void **state)
{
	struct conv cv;
	cJSON *j, *u0, *u1, *r0, *r1;
	const char *id0, *id1;

	(void)state;
	conv_init(&cv);
	local_turn(&cv);
	j = wire(&cv, "claude-opus-5", 0, -1, 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "messages")), 3);
	/* assistant: local reasoning dropped, text then the two tool_use blocks */
	assert_string_equal(jstr(msg_at(j, 1), "role"), "assistant");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(msg_at(j, 1), "content")), 3);
	assert_string_equal(jstr(block_at(j, 1, 0), "type"), "text");
	u0 = block_at(j, 1, 1);
	u1 = block_at(j, 1, 2);
	assert_string_equal(jstr(u0, "type"), "tool_use");
	assert_string_equal(jstr(u0, "name"), "bash");
	assert_string_equal(jstr(cJSON_GetObjectItem(u0, "input"), "command"), "ls");
	id0 = jstr(u0, "id");
	id1 = jstr(u1, "id");
	assert_true(id_valid(id0));
	assert_true(id_valid(id1));
	assert_string_not_equal(id0, LLAMA_ID);
	assert_string_not_equal(id0, id1);
	r0 = block_at(j, 2, 0);
	r1 = block_at(j, 2, 1);
	assert_string_equal(jstr(r0, "type"), "tool_result");
	assert_string_equal(jstr(r0, "tool_use_id"), id0);
	assert_string_equal(jstr(r0, "content"), "a.c\nb.c");
	assert_null(cJSON_GetObjectItem(r0, "is_error"));
	assert_string_equal(jstr(r1, "tool_use_id"), id1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r1, "is_error")));
	{
		char *txt = cJSON_PrintUnformatted(j);

		assert_null(strstr(txt, "local thought"));
		free(txt);
	}
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_id_mapping(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT, c = BUF_INIT;

	(void)state;
	anthropic_wire_tool_id("toolu_01AbC-d_e", &a);
	assert_string_equal(a.data, "toolu_01AbC-d_e"); /* Claude's own ids are kept */
	buf_reset(&a);
	anthropic_wire_tool_id("call_0", &a);
	anthropic_wire_tool_id("call_0", &b);
	anthropic_wire_tool_id("call_1", &c);
	assert_string_equal(a.data, b.data); /* deterministic */
	assert_string_not_equal(a.data, c.data);
	assert_true(id_valid(a.data));
	buf_reset(&a);
	anthropic_wire_tool_id("toolu_bad id/with:chars", &a);
	assert_true(id_valid(a.data));
	buf_reset(&a);
	anthropic_wire_tool_id(NULL, &a);
	assert_true(id_valid(a.data));
	buf_release(&a);
	buf_release(&b);
	buf_release(&c);
}

static void
test_wire_merge_and_placement(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	cJSON *j, *c;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "first");
	conv_add_user_text(&cv, "second");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(m, CONV_TEXT, "one", NULL, NULL);
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{}", "toolu_A", "ls");
	/* text first in the conv, result after it: the result must come first */
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TEXT, "note", NULL, NULL);
	conv_add_block(m, CONV_TOOL_RESULT, "x", "toolu_A", "ls");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TEXT, "", NULL, NULL); /* empty text: dropped */
	conv_add_block(m, CONV_TEXT, "more", NULL, NULL);
	j = wire(&cv, "claude-sonnet-5", 0, -1, 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "messages")), 3);
	assert_string_equal(jstr(msg_at(j, 0), "role"), "user");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(msg_at(j, 0), "content")), 2);
	assert_string_equal(jstr(msg_at(j, 1), "role"), "assistant");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(msg_at(j, 1), "content")), 2);
	c = cJSON_GetObjectItem(msg_at(j, 2), "content");
	assert_int_equal(cJSON_GetArraySize(c), 3);
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "type"), "tool_result");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 1), "text"), "note");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 2), "text"), "more");
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_pairing_repairs(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	cJSON *j, *c;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "go");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	m->aborted = 1;
	conv_add_block(m, CONV_TOOL_CALL, "not json", "toolu_X", "bash");
	conv_add_user_text(&cv, "where was I?");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "stray", "toolu_nobody", "bash");
	j = wire(&cv, "claude-sonnet-5", 0, -1, 0);
	/* bad arguments become an empty input object */
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(block_at(j, 1, 0), "input")));
	c = cJSON_GetObjectItem(msg_at(j, 2), "content");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "type"), "tool_result");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "tool_use_id"), "toolu_X");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(c, 0), "is_error")));
	/* the orphan result is kept as text, not lost */
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 1), "type"), "text");
	assert_non_null(strstr(jstr(cJSON_GetArrayItem(c, 1), "text"), "stray"));
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 2), "text"), "where was I?");
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_thinking_blocks(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	struct conv_block *b;
	cJSON *j, *c;
	char *txt;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "go");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	b = conv_add_block(m, CONV_REASONING, "claude thought", NULL, NULL);
	b->provider = strdup("anthropic");
	b->signature = strdup("SIG+/=abc");
	b = conv_add_block(m, CONV_REASONING, "", NULL, "redacted_thinking");
	b->provider = strdup("anthropic");
	b->signature = strdup("REDACTEDDATA");
	b = conv_add_block(m, CONV_REASONING, "unsigned claude", NULL, NULL);
	b->provider = strdup("anthropic");
	b = conv_add_block(m, CONV_REASONING, "llama thought", NULL, NULL);
	b->provider = strdup("llama");
	conv_add_block(m, CONV_TEXT, "answer", NULL, NULL);
	conv_add_user_text(&cv, "next");
	j = wire(&cv, "claude-sonnet-5", 1, 0.3, 0);
	c = cJSON_GetObjectItem(msg_at(j, 1), "content");
	assert_int_equal(cJSON_GetArraySize(c), 3);
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "type"), "thinking");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "thinking"), "claude thought");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 0), "signature"), "SIG+/=abc");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 1), "type"), "redacted_thinking");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 1), "data"), "REDACTEDDATA");
	assert_string_equal(jstr(cJSON_GetArrayItem(c, 2), "type"), "text");
	txt = cJSON_PrintUnformatted(j);
	assert_null(strstr(txt, "llama thought"));
	assert_null(strstr(txt, "unsigned claude"));
	free(txt);
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_cache_breakpoints(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	cJSON *j, *msgs;
	int i, n;

	(void)state;
	conv_init(&cv);
	local_turn(&cv);
	for (i = 0; i < 12; i++) {
		char id[32];

		snprintf(id, sizeof id, "call_%d", i + 5);
		m = conv_add_msg(&cv, CONV_ASSISTANT);
		conv_add_block(m, CONV_TOOL_CALL, "{}", id, "ls");
		m = conv_add_msg(&cv, CONV_USER);
		conv_add_block(m, CONV_TOOL_RESULT, "out", id, "ls");
	}
	j = wire(&cv, "claude-sonnet-5", 0, -1, 1);
	assert_int_equal(count_key(j, "cache_control"), 4);
	msgs = cJSON_GetObjectItem(j, "messages");
	n = cJSON_GetArraySize(msgs);
	/* the final message's last block and the previous user message's last block */
	assert_int_equal(count_key(cJSON_GetArrayItem(msgs, n - 1), "cache_control"), 1);
	assert_int_equal(count_key(cJSON_GetArrayItem(msgs, n - 2), "cache_control"), 0);
	assert_int_equal(count_key(cJSON_GetArrayItem(msgs, n - 3), "cache_control"), 1);
	assert_non_null(cJSON_GetObjectItem(block_at(j, n - 1, 0), "cache_control"));
	cJSON_Delete(j);
	/* without tools or system: fewer, never more */
	conv_set_system(&cv, "");
	j = wire(&cv, "claude-sonnet-5", 0, -1, 0);
	assert_null(cJSON_GetObjectItem(j, "system"));
	assert_int_equal(count_key(j, "cache_control"), 2);
	cJSON_Delete(j);
	conv_release(&cv);
}

static void
test_wire_models_sampling_thinking(void **state)
{
	struct conv cv;
	cJSON *j, *t;
	struct anthropic_wire_caps caps;

	(void)state;
	conv_init(&cv);
	conv_add_user_text(&cv, "hi");
	/* Sonnet 5: manual thinking and sampling rejected → adaptive, no temperature */
	j = wire(&cv, "claude-sonnet-5", 1, 0.5, 0);
	t = cJSON_GetObjectItem(j, "thinking");
	assert_string_equal(jstr(t, "type"), "adaptive");
	assert_null(cJSON_GetObjectItem(t, "budget_tokens"));
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	cJSON_Delete(j);
	j = wire(&cv, "claude-sonnet-5", 0, 0.5, 0);
	assert_null(cJSON_GetObjectItem(j, "thinking"));
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	cJSON_Delete(j);
	j = wire(&cv, "claude-fable-5-1", 1, 0.5, 0);
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "thinking"), "type"), "adaptive");
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	cJSON_Delete(j);
	j = wire(&cv, "claude-opus-4-7", 1, 0.5, 0);
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "thinking"), "type"), "adaptive");
	cJSON_Delete(j);
	/* Haiku 4.5: manual budget; temperature only without thinking */
	j = wire(&cv, "claude-haiku-4-5", 1, 0.5, 0);
	t = cJSON_GetObjectItem(j, "thinking");
	assert_string_equal(jstr(t, "type"), "enabled");
	assert_int_equal(cJSON_GetObjectItem(t, "budget_tokens")->valueint, 8000);
	assert_null(cJSON_GetObjectItem(j, "temperature"));
	cJSON_Delete(j);
	j = wire(&cv, "claude-haiku-4-5", 0, 0.5, 0);
	assert_true(cJSON_GetObjectItem(j, "temperature")->valuedouble == 0.5);
	cJSON_Delete(j);
	/* a local model behind llama-server's /v1/messages */
	j = wire(&cv, "local-tiny", 1, 0.6, 0);
	assert_string_equal(jstr(cJSON_GetObjectItem(j, "thinking"), "type"), "enabled");
	cJSON_Delete(j);
	anthropic_wire_caps("claude-unknown-9", &caps);
	assert_false(caps.sampling);
	assert_false(caps.manual_thinking);
	conv_release(&cv);
}

static void
test_wire_deterministic(void **state)
{
	struct conv cv;
	struct anthropic_wire_opts o;
	struct provider_req req = { 0 };
	struct buf a = BUF_INIT, b = BUF_INIT;
	size_t n;

	(void)state;
	conv_init(&cv);
	local_turn(&cv);
	anthropic_wire_opts_init(&o, "claude-sonnet-5");
	req.conv = &cv;
	req.tools = tool_all(&n);
	req.ntools = n;
	anthropic_wire_request(&o, &req, &a);
	anthropic_wire_request(&o, &req, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	buf_release(&a);
	buf_release(&b);
	conv_release(&cv);
}

static void
test_models_list(void **state)
{
	static const char list[] = "{\"data\":[{\"id\":\"claude-opus-5\",\"type\":\"model\"},"
				   "{\"id\":\"claude-haiku-4-5-20251001\"},{\"x\":1}],\"has_more\":false}";
	struct buf ids = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(anthropic_wire_models_has(list, strlen(list), "claude-opus-5", &ids, &e), 1);
	buf_reset(&ids);
	assert_int_equal(anthropic_wire_models_has(list, strlen(list), "claude-haiku-4-5", &ids, &e), 1);
	buf_reset(&ids);
	assert_int_equal(anthropic_wire_models_has(list, strlen(list), "claude-sonnet-5", &ids, &e), 0);
	assert_non_null(strstr(ids.data, "claude-opus-5, claude-haiku-4-5-20251001"));
	assert_int_equal(anthropic_wire_models_has("{}", 2, "x", &ids, &e), -1);
	assert_int_equal(anthropic_wire_models_has("nope", 4, "x", &ids, &e), -1);
	buf_release(&ids);
}

static void
test_tiers(void **state)
{
	enum anthropic_wire_tier t;

	(void)state;
	assert_string_equal(anthropic_wire_tier_model(ANTHROPIC_WIRE_HAIKU), "claude-haiku-4-5");
	assert_string_equal(anthropic_wire_tier_model(ANTHROPIC_WIRE_SONNET), "claude-sonnet-5");
	assert_string_equal(anthropic_wire_tier_model(ANTHROPIC_WIRE_OPUS), "claude-opus-5");
	assert_int_equal(anthropic_wire_tier_parse("opus", &t), 0);
	assert_int_equal(t, ANTHROPIC_WIRE_OPUS);
	assert_int_equal(anthropic_wire_tier_parse("gpt", &t), -1);
	assert_int_equal(anthropic_wire_tier_parse(NULL, &t), -1);
}

/* A tool for the exact-bytes test (one, so the body stays short). */
static const struct tool echo_tool = {
	.name = "echo", .description = "Echo.",
	.schema_json = "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}}}",
};

/*
 * The exact request bytes: cache_control on the last tool, the system
 * prompt, the final message's last block and the previous user message's
 * last block — nothing else (four breakpoints, the API's maximum).
 */
static void
test_wire_exact_bytes(void **state)
{
	const struct tool *tools[] = { &echo_tool };
	struct anthropic_wire_opts o;
	struct provider_req req = { 0 };
	struct buf out = BUF_INIT;
	struct conv cv;
	struct conv_msg *m;

	(void)state;
	conv_init(&cv);
	conv_set_system(&cv, "S");
	conv_add_user_text(&cv, "hi");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{\"s\":\"x\"}", "toolu_1", "echo");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "x", "toolu_1", "echo");
	anthropic_wire_opts_init(&o, "claude-sonnet-5");
	req.conv = &cv;
	req.tools = tools;
	req.ntools = 1;
	anthropic_wire_request(&o, &req, &out);
	assert_string_equal(out.data,
		"{\"model\":\"claude-sonnet-5\",\"max_tokens\":16000,"
		"\"system\":[{\"type\":\"text\",\"text\":\"S\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
		"\"messages\":["
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\",\"cache_control\":{\"type\":\"ephemeral\"}}]},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"echo\",\"input\":{\"s\":\"x\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"x\",\"cache_control\":{\"type\":\"ephemeral\"}}]}],"
		"\"tools\":[{\"name\":\"echo\",\"description\":\"Echo.\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"}}},\"cache_control\":{\"type\":\"ephemeral\"}}],"
		"\"stream\":true}");
	/* a consult: the instruction closes the last user message, tools stay, tool_choice none */
	buf_reset(&out);
	o.consult = "PLAN?";
	anthropic_wire_request(&o, &req, &out);
	assert_non_null(strstr(out.data, "\"content\":\"x\"},{\"type\":\"text\",\"text\":\"PLAN?\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]"));
	assert_non_null(strstr(out.data, "\"tool_choice\":{\"type\":\"none\"}"));
	assert_non_null(strstr(out.data, "\"tools\":[{\"name\":\"echo\""));
	buf_release(&out);
	conv_release(&cv);
}

/*
 * One conv, local → Claude → local with tool history: each provider sees
 * every call and result; Claude gets its signed thinking back and never
 * the local reasoning; llama never gets Claude's thinking or signature.
 */
static void
test_wire_round_trip(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	struct conv_block *b;
	struct provider_req req = { 0 };
	struct buf lw = BUF_INIT;
	struct cfg cfg;
	cJSON *j;
	char *aw;

	(void)state;
	conv_init(&cv);
	local_turn(&cv);                                   /* local: reasoning + two calls + results */
	m = conv_add_msg(&cv, CONV_ASSISTANT);             /* Claude: signed thinking + a call */
	b = conv_add_block(m, CONV_REASONING, "claude secret thought", NULL, NULL);
	b->provider = strdup("anthropic");
	b->signature = strdup("SIG-RT-1");
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"b.c\"}", "toolu_01A", "read");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "int b;", "toolu_01A", "read");
	m = conv_add_msg(&cv, CONV_ASSISTANT);             /* local again */
	b = conv_add_block(m, CONV_REASONING, "local again", NULL, NULL);
	b->provider = strdup("llama");
	conv_add_block(m, CONV_TEXT, "done", NULL, NULL);
	conv_add_user_text(&cv, "and now?");
	j = wire(&cv, "claude-sonnet-5", 1, -1, 1);
	aw = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(aw, "\"signature\":\"SIG-RT-1\""));
	assert_non_null(strstr(aw, "claude secret thought"));
	assert_null(strstr(aw, "local thought"));
	assert_null(strstr(aw, "local again"));
	assert_int_equal(count_key(j, "tool_use_id"), 3);
	assert_non_null(strstr(aw, "int b;"));
	/* llama on the same conv: the whole tool history, never Claude's thinking */
	cfg_defaults(&cfg);
	req.conv = &cv;
	llama_wire_request(&cfg, "m", &req, &lw);
	assert_null(strstr(lw.data, "claude secret thought"));
	assert_null(strstr(lw.data, "SIG-RT-1"));
	assert_non_null(strstr(lw.data, "toolu_01A"));     /* Claude's call and result, in OpenAI form */
	assert_non_null(strstr(lw.data, "int b;"));
	cfg_release(&cfg);
	buf_release(&lw);
	free(aw);
	cJSON_Delete(j);
	conv_release(&cv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_fields),
		cmocka_unit_test(test_wire_tool_ids_and_results),
		cmocka_unit_test(test_wire_id_mapping),
		cmocka_unit_test(test_wire_merge_and_placement),
		cmocka_unit_test(test_wire_pairing_repairs),
		cmocka_unit_test(test_wire_thinking_blocks),
		cmocka_unit_test(test_wire_cache_breakpoints),
		cmocka_unit_test(test_wire_models_sampling_thinking),
		cmocka_unit_test(test_wire_deterministic),
		cmocka_unit_test(test_models_list),
		cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_wire_exact_bytes),
		cmocka_unit_test(test_wire_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

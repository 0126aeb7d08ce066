/*
 * test_tplprobe: reading the three /apply-template renderings (strings as
 * a real llama-server with the Qwen3.5 template returned them), and the
 * wire form llama_wire writes with the prefix found.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "base/cfg.h"
#include "llm/conv.h"
#include "llama/wire.h"
#include "llama/template.h"

#define T "<think>\n\n</think>\n\n"
#define P1 "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\n" T
#define P2 "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\nhearth-probe-a1<|im_end|>\n" \
	   "<|im_start|>user\nhearth-probe-u2<|im_end|>\n<|im_start|>assistant\n" T
#define P3 "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\n" T "hearth-probe-a1<|im_end|>\n" \
	   "<|im_start|>user\nhearth-probe-u2<|im_end|>\n<|im_start|>assistant\n" T

static void
test_qwen35_template(void **state)
{
	char *c;

	(void)state;
	c = llama_template_candidate(P1, P2);
	assert_non_null(c);
	assert_string_equal(c, T);
	assert_true(llama_template_confirm(P1, P3));
	free(c);
}

static void
test_templates_that_need_nothing_or_cannot_be_fixed(void **state)
{
	/* earlier turns rendered as generated (ChatML without think blocks) */
	const char *p1 = "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\n";
	const char *p2 = "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\nhearth-probe-a1<|im_end|>\n"
			 "<|im_start|>user\nhearth-probe-u2<|im_end|>\n<|im_start|>assistant\n";
	/* a template that rewrites the assistant turn some other way */
	const char *p2b = "<|im_start|>user\nhearth-probe-u1<|im_end|>\n<|im_start|>assistant\n[a]hearth-probe-a1";

	(void)state;
	assert_null(llama_template_candidate(p1, p2));
	assert_null(llama_template_candidate(P1, p2b));
	assert_null(llama_template_candidate("", ""));
	assert_null(llama_template_candidate("garbage", "other"));
	/* P3 that still splits the content (reasoning_content ignored) */
	assert_false(llama_template_confirm(P1, P2));
	assert_false(llama_template_confirm(P1, ""));
}

static void
test_probe_bodies(void **state)
{
	struct buf b = BUF_INIT;
	cJSON *j, *m;

	(void)state;
	llama_template_body(1, NULL, &b);
	j = cJSON_Parse(b.data);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "messages")), 1);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "chat_template_kwargs"),
						      "enable_thinking")));
	cJSON_Delete(j);
	b.len = 0;
	llama_template_body(3, T, &b);
	j = cJSON_Parse(b.data);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "messages"), 1);
	assert_string_equal(cJSON_GetObjectItem(m, "content")->valuestring, T "hearth-probe-a1");
	assert_string_equal(cJSON_GetObjectItem(m, "reasoning_content")->valuestring, " ");
	cJSON_Delete(j);
	buf_release(&b);
}

/* Two turns: the first turn's answer is written as generated; the running turn's is not. */
static void
test_wire_form(void **state)
{
	struct conv cv;
	struct conv_msg *m;
	struct cfg cfg;
	struct provider_req req = { 0 };
	struct buf out = BUF_INIT;
	cJSON *j, *msgs;

	(void)state;
	cfg_defaults(&cfg);
	conv_init(&cv);
	conv_add_user_text(&cv, "first");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(m, CONV_REASONING, "old thoughts", NULL, NULL);
	conv_add_block(m, CONV_TEXT, "answer one", NULL, NULL);
	conv_add_user_text(&cv, "second");
	m = conv_add_msg(&cv, CONV_ASSISTANT);
	conv_add_block(m, CONV_REASONING, "new thoughts", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{}", "c1", "ls");
	m = conv_add_msg(&cv, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "a.c", "c1", "ls");
	req.conv = &cv;
	llama_wire_request_gen(&cfg, "m", &req, T, &out);
	j = cJSON_Parse(out.data);
	msgs = cJSON_GetObjectItem(j, "messages");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 1), "content")->valuestring,
			    T "answer one");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 1), "reasoning_content")->valuestring,
			    " ");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 3), "content")->valuestring, "");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 3), "reasoning_content")->valuestring,
			    "new thoughts");
	assert_null(strstr(out.data, "old thoughts"));
	cJSON_Delete(j);
	/* without the probe's prefix: only the old reasoning goes */
	out.len = 0;
	llama_wire_request(&cfg, "m", &req, &out);
	assert_null(strstr(out.data, "old thoughts"));
	assert_null(strstr(out.data, "<think>"));
	assert_non_null(strstr(out.data, "\"content\":\"answer one\"}"));
	buf_release(&out);
	conv_release(&cv);
	cfg_release(&cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qwen35_template),
		cmocka_unit_test(test_templates_that_need_nothing_or_cannot_be_fixed),
		cmocka_unit_test(test_probe_bodies),
		cmocka_unit_test(test_wire_form),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

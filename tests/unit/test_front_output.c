/*
 * test_pmode: print-mode output — json and stream-json are valid JSON
 * with the documented fields, no terminal control byte reaches stdout in
 * any mode, exit codes follow how the run ended, EPIPE is survived.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "front/output.h"
#include "front/output_json.h"
#include "llm/tool.h"

struct out {
	int p[2], e[2];
	struct front_output *pm;
	struct agent_observer obs;
	struct agent_stats st;
};

static void
open_out(struct out *o, enum front_output_format f)
{
	struct front_output_opts po = { 0 };

	memset(o, 0, sizeof *o);
	assert_int_equal(pipe(o->p), 0);
	assert_int_equal(pipe(o->e), 0);
	po.format = f;
	po.out_fd = o->p[1];
	po.err_fd = o->e[1];
	po.session_id = "s1";
	po.cwd = "/w";
	o->pm = front_output_new(&po);
	o->obs = front_output_observer(o->pm);
}

/* Close the write ends and read everything written to stdout. */
static char *
drain(struct out *o)
{
	static char b[65536];
	ssize_t n, have = 0;

	close(o->p[1]);
	close(o->e[1]);
	while ((n = read(o->p[0], b + have, sizeof b - 1 - (size_t)have)) > 0)
		have += n;
	b[have] = '\0';
	close(o->p[0]);
	close(o->e[0]);
	front_output_free(o->pm);
	return b;
}

static void
assert_no_controls(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		assert_false(c == 0x1b);
		assert_false(c < 0x20 && c != '\n' && c != '\t');
		if (c == 0xc2)
			assert_false((unsigned char)s[1] >= 0x80 && (unsigned char)s[1] < 0xa0);
	}
}

/* Simulate a step: text with an escape sequence, one tool call, then the end. */
static void
play(struct out *o, enum agent_end end, const char *msg)
{
	struct conv_msg m;
	struct conv_block blocks[2];
	struct llm_event ev;
	struct agent_call c;

	memset(&ev, 0, sizeof ev);
	ev.kind = LLM_PROGRESS;
	ev.progress.total = 100;
	ev.progress.processed = 50;
	ev.progress.time_ms = 10;
	o->obs.on_event(o->obs.arg, &ev);
	ev.kind = LLM_TEXT;
	ev.text = str_from("red \x1b[31malert\xc2\x9b \xff");
	o->obs.on_event(o->obs.arg, &ev);
	memset(&c, 0, sizeof c);
	c.id = (char *)"t1";
	c.name = (char *)"read";
	buf_init(&c.args, 0);
	buf_adds(&c.args, "{\"path\":\"a.c\"}");
	buf_init(&c.job.out, 0);
	buf_adds(&c.job.out, "1\tint x;\x1b]0;pwned\x07");
	c.t_end_ms = 5;
	o->obs.on_tool_start(o->obs.arg, &c);
	o->obs.on_tool_done(o->obs.arg, &c);
	memset(&m, 0, sizeof m);
	memset(blocks, 0, sizeof blocks);
	m.role = CONV_ASSISTANT;
	m.blocks = blocks;
	m.nblocks = 2;
	blocks[0].kind = CONV_TEXT;
	blocks[0].text = (char *)"red \x1b[31malert\xc2\x9b \xff";
	blocks[1].kind = CONV_TOOL_CALL;
	blocks[1].text = (char *)"{\"path\":\"a.c\"}";
	blocks[1].id = (char *)"t1";
	blocks[1].name = (char *)"read";
	o->obs.on_message(o->obs.arg, &m);
	o->obs.on_end(o->obs.arg, end, msg);
	buf_release(&c.args);
	buf_release(&c.job.out);
	o->st.steps = 2;
	o->st.requests = 2;
	o->st.prompt_tokens = 100;
	o->st.have_timings = 1;
	o->st.last_timings.cache_n = 75;
	o->st.last_timings.prompt_n = 25;
}

static void
test_text_mode(void **state)
{
	struct out o;
	char *s;

	(void)state;
	open_out(&o, FRONT_OUTPUT_TEXT);
	play(&o, AGENT_END_OK, "");
	assert_int_equal(front_output_finish(o.pm, &o.st, "m", 12), 0);
	s = drain(&o);
	assert_no_controls(s);
	assert_non_null(strstr(s, "red ^[[31malert<U+009B> \xef\xbf\xbd\n"));
}

static void
test_json_mode(void **state)
{
	struct out o;
	cJSON *j;
	char *s;

	(void)state;
	open_out(&o, FRONT_OUTPUT_JSON);
	play(&o, AGENT_END_MAX_STEPS, "stopped after 2 steps (--max-steps 2)");
	assert_int_equal(front_output_finish(o.pm, &o.st, "local-tiny", 12), 1);
	s = drain(&o);
	assert_no_controls(s);
	assert_non_null(strchr(s, '\n'));
	assert_null(strchr(s, '\n') + 1 == NULL ? NULL : strchr(strchr(s, '\n') + 1, '\n'));
	j = cJSON_Parse(s);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "type")->valuestring, "result");
	assert_string_equal(cJSON_GetObjectItem(j, "subtype")->valuestring, "error_max_turns");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "is_error")));
	assert_int_equal(cJSON_GetObjectItem(j, "num_turns")->valueint, 2);
	assert_string_equal(cJSON_GetObjectItem(j, "model")->valuestring, "local-tiny");
	assert_true(cJSON_GetObjectItem(j, "cache_reuse")->valuedouble == 0.75);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "tool_calls")), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tool_calls"), 0),
						"name")->valuestring, "read");
	assert_non_null(strstr(cJSON_GetObjectItem(j, "error")->valuestring, "max-steps"));
	/* lossless: the ESC is still there as \u001b once parsed */
	assert_non_null(strstr(cJSON_GetObjectItem(j, "result")->valuestring, "\x1b[31m"));
	assert_non_null(cJSON_GetObjectItem(j, "usage"));
	assert_non_null(cJSON_GetObjectItem(j, "timings"));
	cJSON_Delete(j);
}

static void
test_stream_json_mode(void **state)
{
	struct out o;
	char *s, *line, *save = NULL;
	int n = 0, saw_init = 0, saw_delta = 0, saw_assistant = 0, saw_result = 0, saw_user = 0;

	(void)state;
	open_out(&o, FRONT_OUTPUT_STREAM_JSON);
	front_output_init(o.pm, "m", NULL, 0);
	play(&o, AGENT_END_OK, "");
	assert_int_equal(front_output_finish(o.pm, &o.st, "m", 12), 0);
	s = drain(&o);
	assert_no_controls(s);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line);
		const char *type;

		assert_non_null(j);
		type = cJSON_GetObjectItem(j, "type")->valuestring;
		if (n++ == 0)
			assert_string_equal(type, "system");
		saw_init |= !strcmp(type, "system") && cJSON_GetObjectItem(j, "subtype") &&
			    !strcmp(cJSON_GetObjectItem(j, "subtype")->valuestring, "init");
		saw_delta |= !strcmp(type, "stream_event");
		saw_assistant |= !strcmp(type, "assistant");
		saw_user |= !strcmp(type, "user");
		saw_result |= !strcmp(type, "result");
		cJSON_Delete(j);
	}
	assert_true(saw_init && saw_delta && saw_assistant && saw_user && saw_result);
}

static void
test_exit_codes(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, FRONT_OUTPUT_TEXT);
	front_output_fail(o.pm, LLM_ERR_CONNECT, "no llama-server at http://x");
	assert_int_equal(front_output_finish(o.pm, &o.st, NULL, 1), 3);
	drain(&o);
	open_out(&o, FRONT_OUTPUT_TEXT);
	o.obs.on_end(o.obs.arg, AGENT_END_ABORTED, "aborted");
	assert_int_equal(front_output_finish(o.pm, &o.st, NULL, 1), 130);
	drain(&o);
	open_out(&o, FRONT_OUTPUT_TEXT);
	front_output_fail(o.pm, LLM_ERR_CONTEXT, "too big");
	assert_int_equal(front_output_finish(o.pm, &o.st, NULL, 1), 1);
	drain(&o);
}

static void
test_closed_stdout(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, FRONT_OUTPUT_STREAM_JSON);
	close(o.p[0]);
	o.p[0] = open("/dev/null", 0);
	signal(SIGPIPE, SIG_IGN);
	play(&o, AGENT_END_OK, "");
	assert_true(front_output_stdout_closed(o.pm));
	front_output_finish(o.pm, &o.st, "m", 1);
	drain(&o);
}

/* The "● read src/a.c" header of a call: the tool's describe(), first line, sanitised. */
static void
summary_is(const char *name, const char *args, const char *want)
{
	struct agent_call c;
	struct buf out = BUF_INIT;

	memset(&c, 0, sizeof c);
	c.name = (char *)name;
	buf_init(&c.args, 0);
	buf_adds(&c.args, args);
	c.tool = tool_find(name);
	front_output_json_call_summary(&c, &out);
	assert_string_equal(out.data, want);
	buf_release(&out);
	buf_release(&c.args);
}

static void
test_call_summary(void **state)
{
	(void)state;
	summary_is("read", "{\"offset\":3,\"path\":\"src/a.c\"}", "read src/a.c:3");
	summary_is("bash", "{\"timeout\":5,\"command\":\"make -j2\\nmake test\"}", "bash make -j2");
	summary_is("grep", "{\"pattern\":\"foo\",\"path\":\"src\"}", "grep \"foo\" in src");
	summary_is("mcp__gone__x", "{\"n\":1,\"url\":\"http://e\\u001b[31m\"}", "mcp__gone__x http://e^[[31m");
	summary_is("edit", "not json", "edit");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_mode),
		cmocka_unit_test(test_json_mode),
		cmocka_unit_test(test_stream_json_mode),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_closed_stdout),
		cmocka_unit_test(test_call_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

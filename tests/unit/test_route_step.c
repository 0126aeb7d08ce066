/*
 * test_escstep: step-level routing without I/O — the failure signals read
 * from a conv (route_failures) for each rule, as route_decide sees them; the
 * privacy filter over what Claude is sent (redact); the "anthropic"
 * settings (anthropic_config); the consult text and the per-route accounting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "anthropic/config.h"
#include "llm/conv.h"
#include "route/escalate.h"
#include "route/step.h"
#include "route/privacy.h"
#include "route/config.h"
#include "route/failures.h"
#include "testutil.h"

/* Append an assistant call and its result. */
static void
add_call(struct conv *c, const char *id, const char *name, const char *args, const char *out,
	 int is_error)
{
	struct conv_msg *m = conv_add_msg(c, CONV_ASSISTANT);

	conv_add_block(m, CONV_TOOL_CALL, args, id, name);
	m = conv_add_msg(c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, out, id, name)->is_error = is_error;
}

/* Decide with the signals of c (local, key present). */
static void
decide(const struct route_policy *p, const struct conv *c, int fails, int max_steps,
       struct route_decision *d)
{
	struct route_failures rs;
	struct route_signals s;

	memset(&rs, 0, sizeof rs);
	route_failures_scan(&rs, p, c, 0);
	memset(&s, 0, sizeof s);
	s.calls = rs.calls;
	s.ncalls = rs.ncalls;
	s.tests = rs.tests;
	s.ntests = rs.ntests;
	s.files_changed = rs.files_changed;
	s.max_steps_hit = max_steps;
	s.consecutive_tool_failures = fails;
	s.have_key = 1;
	route_decide(p, &s, ROUTE_REQ_NONE, d);
	route_failures_release(&rs);
}

static void
test_rule_repeated_call(void **state)
{
	struct route_policy p;
	struct conv c;
	struct route_decision d;

	(void)state;
	route_config_defaults(&p);
	conv_init(&c);
	conv_add_user_text(&c, "task");
	add_call(&c, "a", "read", "{\"path\":\"x.c\",\"limit\":5}", "1\tx", 0);
	add_call(&c, "b", "read", "{ \"limit\": 5, \"path\": \"x.c\" }", "1\tx", 0);
	decide(&p, &c, 0, 0, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);          /* twice is not a loop */
	add_call(&c, "c", "ls", "{}", "x.c", 0);
	add_call(&c, "d", "read", "{\"limit\":5,\"path\":\"x.c\"}", "1\tx", 0);
	decide(&p, &c, 0, 0, &d);                         /* keys in another order: same call */
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_CONSULT);
	assert_string_equal(d.reason, "the same read call repeated 3 times (a loop)");
	conv_release(&c);
	route_config_release(&p);
}

static void
test_rule_test_failures(void **state)
{
	struct route_policy p;
	struct conv c;
	struct route_decision d;
	int i;

	(void)state;
	route_config_defaults(&p);
	conv_init(&c);
	conv_add_user_text(&c, "fix the tests");
	add_call(&c, "t0", "bash", "{\"command\":\"make test\"}", "FAIL\nexit code: 2", 0);
	for (i = 1; i <= 3; i++) {
		char id[16];

		snprintf(id, sizeof id, "e%d", i);
		add_call(&c, id, "edit", "{\"path\":\"a.c\",\"old_text\":\"x\",\"new_text\":\"y\"}", "ok", 0);
		snprintf(id, sizeof id, "t%d", i);
		decide(&p, &c, 0, 0, &d);
		assert_int_equal(d.target, ROUTE_LOCAL);
		add_call(&c, id, "bash", "{\"command\":\"make test\"}",
			 "FAIL\nexit code: 10", 0);
	}
	decide(&p, &c, 0, 0, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "`make test` still failing after 3 edit-test cycles");
	/* a pass resets the count */
	add_call(&c, "t9", "bash", "{\"command\":\"make test\"}", "ok\nexit code: 0", 0);
	decide(&p, &c, 0, 0, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	conv_release(&c);
	route_config_release(&p);
}

static void
test_rule_max_steps_and_failures(void **state)
{
	struct route_policy p;
	struct conv c;
	struct route_decision d;

	(void)state;
	route_config_defaults(&p);
	conv_init(&c);
	conv_add_user_text(&c, "look around");
	add_call(&c, "a", "ls", "{}", "x.c", 0);
	decide(&p, &c, 0, 1, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "step limit reached with no file changed");
	add_call(&c, "w", "write", "{\"path\":\"n.c\",\"content\":\"x\"}", "wrote", 0);
	decide(&p, &c, 0, 1, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);          /* a file changed: not stuck */
	decide(&p, &c, 2, 0, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	decide(&p, &c, 3, 0, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "3 failed tool calls in a row");
	conv_release(&c);
	route_config_release(&p);
}

/* The text of block b of message m of c. */
static const char *
text_at(const struct conv *c, size_t m, size_t b)
{
	return c->msgs[m].blocks[b].text;
}

static void
test_redact(void **state)
{
	struct route_policy p;
	struct conv c, out, again;

	(void)state;
	route_config_defaults(&p);
	conv_init(&c);
	conv_init(&out);
	conv_init(&again);
	conv_set_system(&c, "sys");
	conv_add_user_text(&c, "task");
	add_call(&c, "r1", "read", "{\"path\":\"config/.env\"}", "1\tTOKEN=SECRET1", 0);
	add_call(&c, "r2", "read", "{\"path\":\"src/a.c\"}", "1\tint a;", 0);
	add_call(&c, "g", "grep", "{\"pattern\":\"TOKEN\"}",
		 "config/.env:1:TOKEN=SECRET2\nsrc/a.c:3:TOKEN here", 0);
	add_call(&c, "b", "bash", "{\"command\":\"cat secrets/db.txt | head\"}", "SECRET3", 0);
	add_call(&c, "w", "write", "{\"path\":\"id_rsa\",\"content\":\"SECRET4\"}", "wrote 7 bytes", 0);
	assert_int_equal(route_privacy_conv(&p, &c, &out), 5);
	assert_string_equal(out.system, "sys");
	assert_non_null(strstr(text_at(&out, 2, 0), "the contents of config/.env (15 bytes) are not shown to Claude"));
	assert_string_equal(text_at(&out, 4, 0), "1\tint a;");
	assert_non_null(strstr(text_at(&out, 6, 0), "src/a.c:3:TOKEN here"));
	assert_null(strstr(text_at(&out, 6, 0), "SECRET2"));
	assert_non_null(strstr(text_at(&out, 6, 0), "1 matching line of privacy-listed files"));
	assert_non_null(strstr(text_at(&out, 8, 0), "names a privacy-listed file"));
	assert_null(strstr(text_at(&out, 9, 0), "SECRET4"));                /* the write's content */
	assert_non_null(strstr(text_at(&out, 9, 0), "\"path\":\"id_rsa\""));
	assert_non_null(strstr(text_at(&out, 10, 0), "not shown to Claude"));  /* its result */
	/* deterministic (prompt cache) and the original is untouched */
	route_privacy_conv(&p, &c, &again);
	assert_string_equal(text_at(&again, 2, 0), text_at(&out, 2, 0));
	assert_string_equal(text_at(&c, 2, 0), "1\tTOKEN=SECRET1");
	assert_true(route_privacy_command(&p, "cat ./.env.local"));
	{	/* @path attachments in a user message */
		struct conv a, ao;

		conv_init(&a);
		conv_init(&ao);
		conv_add_user_text(&a, "see @a.c @.env\n\n<file path=\"a.c\">\nint a;\n</file>\n\n"
				   "<file path=\".env\">\nK=SECRET5\n</file>");
		assert_int_equal(route_privacy_conv(&p, &a, &ao), 1);
		assert_null(strstr(text_at(&ao, 0, 0), "SECRET5"));
		assert_non_null(strstr(text_at(&ao, 0, 0), "<file path=\"a.c\">\nint a;\n</file>"));
		assert_non_null(strstr(text_at(&ao, 0, 0), "<file path=\".env\">\n[hearth: the contents of .env (9 bytes) are not shown to Claude"));
		assert_non_null(strstr(text_at(&ao, 0, 0), "]\n</file>"));
		conv_release(&a);
		conv_release(&ao);
	}
	{	/* issue 20: edit's old_text and new_text, outline's result, and
		 * attachments whose path is 8 characters or more */
		struct conv a, ao;
		const char *t;

		conv_init(&a);
		conv_init(&ao);
		add_call(&a, "e", "edit", "{\"path\":\"config/.env.local\",\"old_text\":\"K=SECRET6\","
			 "\"new_text\":\"K=SECRET7\",\"replace_all\":false}", "edited", 0);
		add_call(&a, "o", "outline", "{\"path\":\"secrets/deep/k.py\"}", "def SECRET8():", 0);
		add_call(&a, "p", "edit", "{\"path\":\"src/a.c\",\"old_text\":\"int a;\",\"new_text\":\"int b;\"}",
			 "edited", 0);
		conv_add_user_text(&a, "<file path=\"src/notes.md\">\nPUBLIC9\n</file>\n"
				   "<file path=\"config/prod/.env\">\nK=SECRET10\n</file>\n"
				   "<file path=\"deploy/server.key\">\nSECRET11\n</file> tail");
		assert_int_equal(route_privacy_conv(&p, &a, &ao), 4);
		t = text_at(&ao, 0, 0);
		assert_null(strstr(t, "SECRET6"));
		assert_null(strstr(t, "SECRET7"));
		assert_non_null(strstr(t, "\"path\":\"config/.env.local\""));
		assert_non_null(strstr(t, "\"old_text\":\"[hearth: the contents of config/.env.local"));
		assert_non_null(strstr(t, "\"new_text\":\"[hearth: the contents of config/.env.local"));
		assert_non_null(strstr(t, "\"replace_all\":false"));
		assert_null(strstr(text_at(&ao, 1, 0), "SECRET"));      /* the edit's result */
		assert_null(strstr(text_at(&ao, 3, 0), "SECRET8"));     /* outline's result */
		assert_non_null(strstr(text_at(&ao, 3, 0), "the contents of secrets/deep/k.py"));
		assert_string_equal(text_at(&ao, 4, 0),                  /* a public edit as it was */
				    "{\"path\":\"src/a.c\",\"old_text\":\"int a;\",\"new_text\":\"int b;\"}");
		t = text_at(&ao, 6, 0);
		assert_non_null(strstr(t, "<file path=\"src/notes.md\">\nPUBLIC9\n</file>\n"));
		assert_null(strstr(t, "SECRET10"));
		assert_null(strstr(t, "SECRET11"));
		assert_non_null(strstr(t, "<file path=\"config/prod/.env\">\n[hearth: the contents of config/prod/.env (10 bytes)"));
		assert_non_null(strstr(t, "<file path=\"deploy/server.key\">\n[hearth: the contents of deploy/server.key (8 bytes)"));
		assert_non_null(strstr(t, "]\n</file> tail"));
		conv_release(&a);
		conv_release(&ao);
	}
	{	/* issue 20: paths of 1,024 characters or more, in grep's output and
		 * in an attachment, are redacted like short ones */
		struct conv a, ao;
		struct buf longp = BUF_INIT, text = BUF_INIT;
		const char *t;
		int i;

		conv_init(&a);
		conv_init(&ao);
		buf_adds(&longp, "secrets");
		for (i = 0; i < 110; i++)
			buf_adds(&longp, "/deeper123");
		buf_adds(&longp, "/k.txt");
		assert_true(longp.len >= 1024);
		buf_addf(&text, "%s:1:SECRET12\nsrc/a.c:1:public line\n", longp.data);
		add_call(&a, "g", "grep", "{\"pattern\":\"x\"}", text.data, 0);
		buf_reset(&text);
		buf_addf(&text, "<file path=\"%s\">\nSECRET13\n</file>\n<file path=\".env\">\nSECRET14\n</file>",
			 longp.data);
		conv_add_user_text(&a, text.data);
		assert_int_equal(route_privacy_conv(&p, &a, &ao), 2);
		t = text_at(&ao, 1, 0);
		assert_null(strstr(t, "SECRET12"));
		assert_non_null(strstr(t, "src/a.c:1:public line"));
		t = text_at(&ao, 2, 0);
		assert_null(strstr(t, "SECRET13"));
		assert_null(strstr(t, "SECRET14"));
		conv_release(&a);
		conv_release(&ao);
		buf_release(&longp);
		buf_release(&text);
	}
	assert_false(route_privacy_command(&p, "cat README.md"));
	assert_false(route_privacy_command(&p, NULL)); /* no command: nothing named */
	conv_release(&c);
	conv_release(&out);
	conv_release(&again);
	route_config_release(&p);
}

/*
 * The privacy filter at its edges (mutants of route/privacy.c that every
 * other test missed): parallel calls, results without a known call, grep
 * output that is all private or has no ':' at all, one-character paths,
 * empty attachments, command words of any length.
 */
static void
test_redact_edges(void **state)
{
	static char g1[] = "x", g2[] = ".env*";
	char *globs[] = { g1, g2 };
	struct route_policy p;
	struct conv a, ao;
	struct conv_msg *m;
	struct buf out = BUF_INIT, cmd = BUF_INIT;
	int i;

	(void)state;
	memset(&p, 0, sizeof p);
	p.privacy = globs;
	p.nprivacy = 2;
	conv_init(&a);
	conv_init(&ao);
	/* 0: two calls in one message, the private one first: each result is
	 * tied to its own call by id, not to the message's first call */
	m = conv_add_msg(&a, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\".env\"}", "r1", "read");
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"pub.c\"}", "r2", "read");
	m = conv_add_msg(&a, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "1\tK=SECRET1", "r1", "read");
	conv_add_block(m, CONV_TOOL_RESULT, "1\tint pub;", "r2", "read");
	/* 2: a result whose call is not in the conversation, and one of a tool
	 * hearth does not know: passed as they are */
	m = conv_add_msg(&a, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "orphan .env", "nope", "read");
	add_call(&a, "u", "no_such_tool", "{\"path\":\".env\"}", "unknown .env", 0);
	/* 5: grep output whose every line is private: the notice alone */
	add_call(&a, "g1", "grep", "{\"pattern\":\"K\"}", ".env:1:K=SECRET2\nx:2:SECRET3", 0);
	/* 7: a public line without a newline, then private ones: one newline
	 * between it and the notice; names without ':' (grep -l) are names */
	add_call(&a, "g2", "grep", "{\"pattern\":\"K\"}", "pub.c:1:K\n.env\n.env:1:SECRET4", 0);
	add_call(&a, "g3", "grep", "{\"pattern\":\"K\"}", "pub.c:1:K\n", 0);
	/* 11: an empty private attachment, after one with an empty path */
	conv_add_user_text(&a, "<file path=\"\">\nnothing\n</file>\n<file path=\".env\">\n\n</file>\n"
			   "<file path=\".env.b\">\nSECRET5\n</file>");
	assert_int_equal(route_privacy_conv(&p, &a, &ao), 4);
	assert_non_null(strstr(text_at(&ao, 1, 0), "the contents of .env (11 bytes)"));
	assert_string_equal(text_at(&ao, 1, 1), "1\tint pub;");
	assert_string_equal(text_at(&ao, 2, 0), "orphan .env");
	assert_string_equal(text_at(&ao, 4, 0), "unknown .env");
	assert_string_equal(text_at(&ao, 6, 0), "[hearth: 2 matching lines of privacy-listed files "
			    "not shown to Claude (routing.privacy)]");
	assert_string_equal(text_at(&ao, 8, 0), "pub.c:1:K\n.env\n[hearth: 1 matching line of "
			    "privacy-listed files not shown to Claude (routing.privacy)]");
	assert_string_equal(text_at(&ao, 10, 0), "pub.c:1:K\n");
	assert_string_equal(text_at(&ao, 11, 0), "<file path=\"\">\nnothing\n</file>\n"
			    "<file path=\".env\">\n[hearth: the contents of .env (0 bytes) are not shown "
			    "to Claude: it matches the privacy glob \".env*\" (routing.privacy)]\n</file>\n"
			    "<file path=\".env.b\">\n[hearth: the contents of .env.b (7 bytes) are not "
			    "shown to Claude: it matches the privacy glob \".env*\" (routing.privacy)]\n</file>");
	conv_release(&ao);
	conv_init(&ao);
	conv_release(&a);
	conv_init(&a);
	/* a write of a private file with nothing but its path changes nothing;
	 * the assistant's own text passes as it is, even in the shape of an
	 * attachment; an attachment that does
	 * not end is left as typed */
	m = conv_add_msg(&a, CONV_ASSISTANT);
	conv_add_block(m, CONV_TEXT, "hello <file path=\".env\">\nK\n</file>", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\".env\"}", "w", "write");
	conv_add_user_text(&a, "<file path=\"pub.c\">\nint pub;");
	/* a call that lies past its message's last block (room the message
	 * has, not a block of it) is not a call: the result stays */
	m = conv_add_msg(&a, CONV_ASSISTANT);
	conv_add_block(m, CONV_TEXT, "next", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\".env\"}", "ghost", "read");
	m->nblocks = 1;
	m = conv_add_msg(&a, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "ghost .env", "ghost", "read");
	assert_int_equal(route_privacy_conv(&p, &a, &ao), 0);
	/* (the filter rewrites what came from files: attachments are in user
	 * messages; the model's own words are its own) */
	assert_string_equal(text_at(&ao, 0, 0), "hello <file path=\".env\">\nK\n</file>");
	assert_string_equal(text_at(&ao, 0, 1), "{\"path\":\".env\"}");
	assert_string_equal(text_at(&ao, 1, 0), "<file path=\"pub.c\">\nint pub;");
	assert_string_equal(text_at(&ao, 3, 0), "ghost .env");
	a.msgs[2].nblocks = 2;
	/* a bash command that names a private file by a path of 512
	 * characters or more hides its output like a short one */
	buf_adds(&cmd, "cat ");
	for (i = 0; i < 60; i++)
		buf_adds(&cmd, "deeper123/");
	buf_adds(&cmd, ".env");
	assert_true(cmd.len > 600);
	assert_true(route_privacy_command(&p, cmd.data));
	assert_true(route_privacy_command(&p, "cat x"));
	assert_false(route_privacy_command(&p, "cat y"));
	assert_false(route_privacy_command(&p, ""));
	/* redact of no content adds nothing */
	assert_int_equal(route_privacy_redact(&p, "pub.c", NULL, 5, &out), 0);
	assert_int_equal(out.len, 0);
	buf_release(&out);
	buf_release(&cmd);
	conv_release(&a);
	conv_release(&ao);
}

static void
test_anthcfg(void **state)
{
	struct anthropic_config c;
	struct buf w = BUF_INIT;
	cJSON *o;

	(void)state;
	anthropic_config_defaults(&c);
	assert_string_equal(anthropic_config_model(&c), "claude-sonnet-5");
	assert_int_equal(c.max_tokens, 16000);
	assert_int_equal(c.retries, 3);
	o = cJSON_Parse("{\"tier\":\"opus\",\"models\":{\"opus\":\"claude-opus-5-5\",\"big\":\"x\",\"haiku\":7},"
			"\"max_tokens\":2000000,\"retries\":5,\"api_key\":\"sk-x\"}");
	anthropic_config_apply(&c, o, "P", 0, &w);
	assert_string_equal(anthropic_config_model(&c), "claude-opus-5-5");
	assert_int_equal(c.max_tokens, 16000);
	assert_int_equal(c.retries, 5);
	assert_null(c.api_key);                                 /* not from a project file */
	assert_non_null(strstr(w.data, "P: anthropic.models.big is not a tier"));
	assert_non_null(strstr(w.data, "P: anthropic.models.haiku must be a model id string; keeping claude-haiku-4-5"));
	assert_non_null(strstr(w.data, "P: anthropic.max_tokens must be an integer from 1024 to 128000; keeping 16000"));
	assert_non_null(strstr(w.data, "only read from the user settings file"));
	anthropic_config_apply(&c, o, "U", 1, &w);
	assert_string_equal(c.api_key, "sk-x");
	cJSON_Delete(o);
	buf_reset(&w);
	o = cJSON_Parse("{\"tier\":\"giant\"}");
	anthropic_config_apply(&c, o, "P", 0, &w);
	assert_string_equal(w.data, "P: anthropic.tier must be \"haiku\", \"sonnet\" or \"opus\"; keeping opus\n");
	cJSON_Delete(o);
	anthropic_config_release(&c);
	buf_release(&w);
}

/*
 * Found with tests/fuzz/fuzz_cfg: a number int cannot hold (1e300) was
 * converted before its range was checked (undefined; clang's UBSan
 * reports it).  It is out of range like any other: a warning, the value kept.
 */
static void
test_anthcfg_huge_numbers(void **state)
{
	static const char *const in[] = {
		"{\"max_tokens\":1e300}", "{\"max_tokens\":-1e300}", "{\"retries\":3e9}",
		"{\"retries\":2.5}",
	};
	struct anthropic_config c;
	struct buf w = BUF_INIT;
	size_t i;

	(void)state;
	anthropic_config_defaults(&c);
	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		cJSON *o = cJSON_Parse(in[i]);

		buf_reset(&w);
		anthropic_config_apply(&c, o, "U", 1, &w);
		assert_non_null(strstr(w.data, "must be an integer from"));
		cJSON_Delete(o);
	}
	assert_int_equal(c.max_tokens, 16000);
	assert_int_equal(c.retries, 3);
	anthropic_config_release(&c);
	buf_release(&w);
}

static void
test_accounting_json(void **state)
{
	struct route_escalate x;
	struct agent_stats st;
	struct route_decision d;
	struct buf t = BUF_INIT;
	cJSON *j;
	char *s;

	(void)state;
	memset(&x, 0, sizeof x);
	memset(&st, 0, sizeof st);
	route_config_defaults(&x.policy);
	st.requests = 2;
	st.prompt_tokens = 1000;
	st.cached_tokens = 600;
	st.completion_tokens = 50;
	route_step_account(&x, &st);                       /* local */
	memset(&d, 0, sizeof d);
	d.target = ROUTE_CLAUDE;
	d.mode = ROUTE_HANDOFF;
	snprintf(d.reason, sizeof d.reason, "3 failed tool calls in a row");
	route_step_record(&x, &d, 4);
	x.on_claude = 1;
	st.requests = 3;
	st.prompt_tokens = 1500;                        /* +500: 300 new, 100 written, 100 read */
	st.cache_write_tokens = 100;
	st.cached_tokens = 700;
	st.completion_tokens = 80;
	j = route_step_json(&x, &st);
	s = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(s, "\"decisions\":[{\"step\":4,\"target\":\"claude\",\"mode\":\"handoff\",\"reason\":\"3 failed tool calls in a row\",\"blocked\":false}]"));
	assert_non_null(strstr(s, "\"local\":{\"input_tokens\":400,\"output_tokens\":50,\"cache_read_input_tokens\":600,\"cache_creation_input_tokens\":0"));
	assert_non_null(strstr(s, "\"claude\":{\"input_tokens\":300,\"output_tokens\":30,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":100"));
	assert_int_equal(x.last_prompt, 500);
	cJSON_free(s);
	cJSON_Delete(j);
	route_step_consult_text("task mentions \"design\"", &t);
	assert_non_null(strstr(t.data, "You are consulted for one answer (task mentions \"design\")"));
	assert_non_null(strstr(t.data, "Do not call tools"));
	buf_release(&t);
	free(x.dec);
	route_config_release(&x.policy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_repeated_call),
		cmocka_unit_test(test_rule_test_failures),
		cmocka_unit_test(test_rule_max_steps_and_failures),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_redact_edges),
		cmocka_unit_test(test_anthcfg),
		cmocka_unit_test(test_anthcfg_huge_numbers),
		cmocka_unit_test(test_accounting_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_cfg: defaults, merging, hostile settings files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/cfg.h"
#include "testutil.h"

static void
test_defaults(void **state)
{
	struct cfg c;

	(void)state;
	cfg_defaults(&c);
	assert_string_equal(c.server_url, "http://127.0.0.1:8080");
	assert_true(c.temperature == 0.6 && c.top_p == 0.95 && c.top_k == 20);
	assert_true(c.presence_penalty == 0);
	assert_int_equal(c.thinking, 0);
	assert_int_equal(c.max_steps, 40);
	assert_int_equal(c.bash_timeout_s, 120);
	cfg_release(&c);
}

static void
test_project_overrides_user(void **state)
{
	char *dir = tu_tmpdir();
	struct buf w = BUF_INIT, env = BUF_INIT;
	struct cfg c;
	char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;

	(void)state;
	buf_addf(&env, "%s/cfg", dir);
	setenv("XDG_CONFIG_HOME", env.data, 1);
	buf_addf(&env, "/hearth");
	{
		struct buf cmd = BUF_INIT;

		buf_addf(&cmd, "mkdir -p '%s' '%s/.hearth'", env.data, dir);
		assert_int_equal(system(cmd.data), 0);
		buf_release(&cmd);
	}
	tu_write(dir, "cfg/hearth/settings.json",
		 "{\"server\":\"http://user:1\",\"temperature\":0.2,\"max_steps\":7,"
		 "\"env_passthrough\":[\"MYAPP_*\",\"CARGO_HOME\"]}");
	tu_write(dir, ".hearth/settings.json",
		 "{\"server\":\"http://project:2\",\"top_k\":5,\"bogus\":1,\"max_steps\":\"many\","
		 "\"syntax_check\":\"reject\",\"env_passthrough\":[\"X\",3]}");
	cfg_defaults(&c);
	cfg_load(&c, dir, &w);
	assert_string_equal(c.server_url, "http://project:2");
	assert_true(c.temperature == 0.2);
	assert_int_equal(c.top_k, 5);
	assert_int_equal(c.max_steps, 7); /* wrong type in the project file: ignored */
	assert_int_equal(c.syntax_reject, 1);
	assert_non_null(strstr(w.data, "unknown setting \"bogus\""));
	assert_non_null(strstr(w.data, "\"max_steps\" must be an integer"));
	/* a list: the user's stays when the project's is not a list of strings */
	assert_non_null(c.env_passthrough);
	assert_string_equal(c.env_passthrough[0], "MYAPP_*");
	assert_string_equal(c.env_passthrough[1], "CARGO_HOME");
	assert_null(c.env_passthrough[2]);
	assert_non_null(strstr(w.data, "\"env_passthrough\" must be a list of non-empty strings"));
	cfg_release(&c);
	if (old) {
		setenv("XDG_CONFIG_HOME", old, 1);
		free(old);
	} else {
		unsetenv("XDG_CONFIG_HOME");
	}
	buf_release(&w);
	buf_release(&env);
	tu_rmrf(dir);
	free(dir);
}

static void
test_invalid_json_reports_position(void **state)
{
	char *dir = tu_tmpdir();
	struct buf w = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct cfg c;

	(void)state;
	tu_write(dir, "s.json", "{\n  \"server\": \"x\",\n  \"top_k\": ,\n}");
	buf_addf(&p, "%s/s.json", dir);
	cfg_defaults(&c);
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "s.json"));
	assert_non_null(strstr(e.msg, "line 3"));
	assert_string_equal(c.server_url, "http://127.0.0.1:8080"); /* unchanged */
	/* a non-object and a huge file are refused too; a missing file is fine */
	tu_write(dir, "s.json", "[1,2]");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	buf_addch(&p, 'x');
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	cfg_release(&c);
	buf_release(&w);
	buf_release(&p);
	tu_rmrf(dir);
	free(dir);
}

static void
test_discipline_and_serve_keys(void **state)
{
	char *dir = tu_tmpdir();
	struct buf w = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct cfg c;

	(void)state;
	cfg_defaults(&c);
	assert_string_equal(c.think_word, "ultrathink");
	assert_int_equal(c.explore_cutoff, 6);
	assert_int_equal(c.defer_tools, 1); /* issue 14: deferred by default */
	assert_int_equal(c.defer_tools_min_tokens, 2000);
	assert_null(c.serve_model);
	buf_addf(&p, "%s/s.json", dir);
	tu_write(dir, "s.json",
		 "{\"serve\": {\"model\": \"m.gguf\", \"ctx\": 8192, \"port\": 1, \"binary\": 3},"
		 " \"serve.binary\": \"/opt/ls\", \"explore_cutoff\": 0, \"defer_tools\": false,"
		 " \"think_word\": \"\"}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_string_equal(c.serve_model, "m.gguf");
	assert_int_equal(c.serve_ctx, 8192);
	assert_string_equal(c.serve_binary, "/opt/ls");
	assert_int_equal(c.explore_cutoff, 0);
	assert_int_equal(c.defer_tools, 0);
	assert_string_equal(c.think_word, "");
	assert_non_null(strstr(w.data, "unknown setting \"serve.port\""));
	assert_non_null(strstr(w.data, "\"serve.binary\" must be a string"));
	buf_reset(&w);
	tu_write(dir, "s.json", "{\"serve\": \"m.gguf\"}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_non_null(strstr(w.data, "\"serve\" must be an object"));
	assert_string_equal(c.serve_model, "m.gguf");
	/* defer_tools: "auto", true or false; anything else is ignored with a warning */
	buf_reset(&w);
	tu_write(dir, "s.json", "{\"defer_tools\": \"auto\", \"defer_tools_min_tokens\": 500}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_int_equal(c.defer_tools, -1);
	assert_int_equal(c.defer_tools_min_tokens, 500);
	tu_write(dir, "s.json", "{\"defer_tools\": true}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_int_equal(c.defer_tools, 1);
	tu_write(dir, "s.json", "{\"defer_tools\": \"sometimes\"}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_int_equal(c.defer_tools, 1);
	assert_non_null(strstr(w.data, "\"defer_tools\" must be \"auto\", true or false"));
	cfg_release(&c);
	buf_release(&w);
	buf_release(&p);
	tu_rmrf(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_project_overrides_user),
		cmocka_unit_test(test_invalid_json_reports_position),
		cmocka_unit_test(test_discipline_and_serve_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

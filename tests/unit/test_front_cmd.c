/* test_cmd: the slash-command registry and prompt templates as commands. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "front/cmd.h"
#include "front/cmd_template.h"
#include "testutil.h"

static enum cmd_result
run_echo(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(*(int *)ctx)++;
	buf_addf(out, "%s:%s", self->name, args);
	return CMD_DONE;
}

static enum cmd_result
run_quit(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)ctx;
	(void)self;
	(void)args;
	(void)out;
	return CMD_QUIT;
}

static void
test_registry(void **state)
{
	struct front_cmd r;
	struct cmd a = { "help", "", "list the commands", run_echo, NULL };
	struct cmd b = { "quit", "", "leave", run_quit, NULL };
	struct cmd c = { "model", "[id]", "show or pick the model", run_echo, NULL };
	struct buf out = BUF_INIT;
	struct str name;
	const char *args;
	int calls = 0;

	(void)state;
	front_cmd_init(&r);
	assert_int_equal(front_cmd_add(&r, &a), 0);
	assert_int_equal(front_cmd_add(&r, &b), 0);
	assert_int_equal(front_cmd_add(&r, &c), 0);
	assert_int_equal(front_cmd_add(&r, &a), -1);
	assert_true(front_cmd_parse("/model  qwen 9b", &name, &args));
	assert_true(str_eq(name, "model"));
	assert_string_equal(args, "qwen 9b");
	assert_false(front_cmd_parse("//not a command", &name, &args));
	assert_false(front_cmd_parse("plain text", &name, &args));
	assert_false(front_cmd_parse("/", &name, &args));
	assert_int_equal(front_cmd_run(&r, &calls, "/model x", &out), CMD_DONE);
	assert_string_equal(out.data, "model:x");
	assert_int_equal(calls, 1);
	buf_reset(&out);
	assert_int_equal(front_cmd_run(&r, &calls, "/quit", &out), CMD_QUIT);
	assert_int_equal(front_cmd_run(&r, &calls, "/mdl", &out), CMD_ERROR);
	assert_string_equal(out.data, "unknown command /mdl; did you mean /model");
	buf_reset(&out);
	assert_int_equal(front_cmd_run(&r, &calls, "/zzz", &out), CMD_ERROR);
	assert_non_null(strstr(out.data, "/help lists"));
	buf_reset(&out);
	front_cmd_complete(&r, "", &out);
	assert_string_equal(out.data, "help\nmodel\nquit\n"); /* sorted */
	buf_reset(&out);
	front_cmd_complete(&r, "q", &out);
	assert_string_equal(out.data, "quit\n");
	buf_reset(&out);
	front_cmd_help(&r, &out);
	assert_non_null(strstr(out.data, "/model [id]  show or pick the model\n"));
	assert_non_null(strstr(out.data, "/help        list the commands\n"));
	buf_release(&out);
	front_cmd_release(&r);
}

static void
test_templates_as_commands(void **state)
{
	char *dir = tu_tmpdir(), *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	struct buf cfgdir = BUF_INIT, w = BUF_INIT, out = BUF_INIT, cmdline = BUF_INIT;
	struct prompt_context_templates t;
	struct front_cmd r;
	struct cmd help = { "help", "", "list", run_echo, NULL };
	int calls = 0;

	(void)state;
	buf_addf(&cfgdir, "%s/cfg", dir);
	setenv("XDG_CONFIG_HOME", cfgdir.data, 1);
	buf_addf(&cmdline, "mkdir -p '%s/cfg/hearth/prompts' '%s/.hearth/prompts'", dir, dir);
	assert_int_equal(system(cmdline.data), 0);
	tu_write(dir, "cfg/hearth/prompts/review.md", "description: review a file\nReview $1 for $2 bugs.\n");
	tu_write(dir, ".hearth/prompts/help.md", "shadowed\n");
	front_cmd_init(&r);
	front_cmd_add(&r, &help);
	prompt_context_templates_load(dir, &t, &w);
	front_cmd_template_add(&r, &t, &w);
	assert_non_null(strstr(w.data, "/help is a built-in command"));
	assert_int_equal(front_cmd_run(&r, &calls, "/review src/a.c memory", &out), CMD_SUBMIT);
	assert_non_null(strstr(out.data, "Review src/a.c for memory bugs."));
	buf_reset(&out);
	front_cmd_help(&r, &out);
	assert_non_null(strstr(out.data, "review a file"));
	front_cmd_release(&r);
	prompt_context_templates_release(&t);
	if (old) {
		setenv("XDG_CONFIG_HOME", old, 1);
		free(old);
	} else {
		unsetenv("XDG_CONFIG_HOME");
	}
	buf_release(&cfgdir);
	buf_release(&w);
	buf_release(&out);
	buf_release(&cmdline);
	tu_rmrf(dir);
	free(dir);
}

/* A provider of two commands that come and go: "mcp__s__p1 a [b]" and "mcp__s__p2" (n of them). */
static int
more_cmds(void *arg, size_t i, struct cmd *c, struct buf *scratch)
{
	size_t n = *(size_t *)arg;

	if (i >= n)
		return -1;
	buf_addf(scratch, "mcp__s__p%zu", i + 1);
	buf_addch(scratch, '\0');
	c->name = scratch->data; /* nothing more goes into scratch */
	c->args = i ? "" : "a [b]";
	c->help = i ? "the second" : "the first";
	c->run = run_echo;
	c->data = NULL;
	return 0;
}

static void
more_hint(void *arg, const char *name, size_t len, struct buf *out)
{
	(void)arg;
	if (len > 5 && !strncmp(name, "mcp__", 5))
		buf_adds(out, " (still starting)");
}

/* The provider's commands run, complete, show in /help and are suggested, after the registry's own. */
static void
test_more(void **state)
{
	struct front_cmd r;
	struct cmd a = { "help", "", "list the commands", run_echo, NULL };
	struct cmd m = { "mcp", "", "servers", run_echo, NULL };
	struct buf out = BUF_INIT, scratch = BUF_INIT;
	struct cmd c;
	size_t n = 2;
	int calls = 0;

	(void)state;
	front_cmd_init(&r);
	front_cmd_add(&r, &a);
	front_cmd_add(&r, &m);
	r.more = more_cmds;
	r.more_hint = more_hint;
	r.more_arg = &n;
	assert_int_equal(front_cmd_run(&r, &calls, "/mcp__s__p1 x 'y z'", &out), CMD_DONE);
	assert_string_equal(out.data, "mcp__s__p1:x 'y z'");
	assert_int_equal(calls, 1);
	buf_reset(&out);
	assert_int_equal(front_cmd_run(&r, &calls, "/mcp__s__p2", &out), CMD_DONE);
	assert_string_equal(out.data, "mcp__s__p2:");
	buf_reset(&out);
	assert_int_equal(front_cmd_get(&r, 0, &c, &scratch), 0);
	assert_string_equal(c.name, "help");
	assert_int_equal(front_cmd_get(&r, 3, &c, &scratch), 0);
	assert_string_equal(c.name, "mcp__s__p2");
	assert_int_equal(front_cmd_get(&r, 4, &c, &scratch), -1);
	front_cmd_complete(&r, "mcp", &out);
	assert_string_equal(out.data, "mcp\nmcp__s__p1\nmcp__s__p2\n");
	buf_reset(&out);
	front_cmd_help(&r, &out);
	assert_non_null(strstr(out.data, "/mcp__s__p1 a [b]  the first\n"));
	assert_non_null(strstr(out.data, "/mcp__s__p2        the second\n"));
	buf_reset(&out);
	assert_int_equal(front_cmd_run(&r, &calls, "/mcp__s__p3", &out), CMD_ERROR);
	assert_string_equal(out.data, "unknown command /mcp__s__p3 (still starting); did you mean /mcp__s__p1, /mcp__s__p2");
	n = 0; /* the server went away: its commands with it */
	buf_reset(&out);
	assert_int_equal(front_cmd_run(&r, &calls, "/mcp__s__p1", &out), CMD_ERROR);
	assert_string_equal(out.data, "unknown command /mcp__s__p1 (still starting); did you mean /mcp");
	buf_release(&out);
	buf_release(&scratch);
	front_cmd_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_templates_as_commands),
		cmocka_unit_test(test_more),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

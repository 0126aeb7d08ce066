/* Unit tests: front/cli — Claude Code's headless flags as hearth's (issue 18, item 3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <getopt.h>

#include "front/cli.h"

/* Parse a NULL-terminated argv into o; the return of front_cli_parse. */
static int
parse(struct front_cli *o, const char **args)
{
	char *argv[32];
	int argc = 0;

	memset(o, 0, sizeof *o);
	o->thinking = -1;
	buf_init(&o->task, 0);
	buf_init(&o->allowed_tools, 0);
	buf_init(&o->disallowed_tools, 0);
	argv[argc++] = (char *)"hearth";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	optind = 0; /* glibc: reinitialise getopt for a new argv */
	return front_cli_parse(argc, argv, o);
}

static void
test_tool_rules(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	front_cli_tool_rules("Read,Bash(git log:*) Edit, Glob  MultiEdit,LS,Bash(npm run test, lint)", &b);
	assert_string_equal(b.data, "Read\nBash(git log:*)\nEdit\nfind\nedit\nls\nBash(npm run test, lint)\n");
	buf_release(&b);
	front_cli_tool_rules("  ", &b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}

static void
test_aliases(void **state)
{
	struct front_cli o;
	const char *a1[] = { "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
			     "--max-turns=3", "--allowedTools=Read", "--allowedTools", "Bash(ls:*)",
			     "--disallowedTools", "Write", "--permission-mode", "acceptEdits",
			     "--append-system-prompt", "be brief", "--setting-sources", "", "--strict-mcp-config",
			     "--include-partial-messages", NULL };
	const char *a2[] = { "-p", "--resume=20261122-005913-123-abcd1234", "task", NULL };
	const char *a3[] = { "-p", "--permission-mode", "bypassPermissions", "x", NULL };

	(void)state;
	assert_int_equal(parse(&o, a1), -1);
	assert_true(o.print); /* the SDK does not pass -p */
	assert_true(o.input_stream_json);
	assert_int_equal(o.max_steps, 3);
	assert_string_equal(o.allowed_tools.data, "Read\nBash(ls:*)\n");
	assert_string_equal(o.disallowed_tools.data, "Write\n");
	assert_string_equal(o.approval, "auto-edit");
	assert_string_equal(o.append_system_prompt, "be brief");
	front_cli_release(&o);

	assert_int_equal(parse(&o, a2), -1);
	assert_true(o.resume);
	assert_string_equal(o.resume_id, "20261122-005913-123-abcd1234");
	assert_string_equal(o.task.data, "task");
	front_cli_release(&o);

	assert_int_equal(parse(&o, a3), -1);
	assert_string_equal(o.approval, "yolo");
	front_cli_release(&o);
}

static void
test_usage_errors(void **state)
{
	struct front_cli o;
	const char *bad_mode[] = { "-p", "--permission-mode", "sometimes", "x", NULL };
	const char *bad_input[] = { "--input-format", "xml", NULL };
	const char *no_stream_out[] = { "--input-format", "stream-json", NULL };
	FILE *saved = stderr;

	(void)state;
	stderr = fopen("/dev/null", "w");
	assert_int_equal(parse(&o, bad_mode), FRONT_CLI_EXIT_USAGE);
	front_cli_release(&o);
	assert_int_equal(parse(&o, bad_input), FRONT_CLI_EXIT_USAGE);
	front_cli_release(&o);
	assert_int_equal(parse(&o, no_stream_out), FRONT_CLI_EXIT_USAGE);
	front_cli_release(&o);
	fclose(stderr);
	stderr = saved;
}

/* Whether file f contains the text pre+name+one of the enders. */
static int
mentions(const char *text, const char *pre, const char *name, const char *enders)
{
	char pat[128];
	const char *p = text;
	size_t n = (size_t)snprintf(pat, sizeof pat, "%s%s", pre, name);

	while ((p = strstr(p, pat)) != NULL) {
		if (p[n] && strchr(enders, p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* Every option of the real table is completed by the bash, zsh and fish scripts, and
 * every option the bash script offers exists (item 7: a missing or stale one fails). */
static void
test_completions(void **state)
{
	static const char *const files[] = { "completions/hearth.bash", "completions/_hearth",
					      "completions/hearth.fish" };
	struct buf t[3];
	const char *name, *p;
	int has_arg, hidden, shown = 0;
	size_t i, k;

	(void)state;
	for (k = 0; k < 3; k++) {
		buf_init(&t[k], 0);
		assert_int_equal(buf_read_file(&t[k], files[k], 1 << 20, NULL), 0);
	}
	for (i = 0; (name = front_cli_option(i, &has_arg, &hidden)) != NULL; i++) {
		if (hidden)
			continue;
		shown++;
		if (!mentions(t[0].data, "--", name, " '\n|)\t"))
			fail_msg("completions/hearth.bash lacks --%s", name);
		if (!mentions(t[1].data, "--", name, has_arg ? "=" : "[}"))
			fail_msg("completions/_hearth lacks --%s%s", name, has_arg ? "=" : "");
		if (!mentions(t[2].data, "-l ", name, " \n"))
			fail_msg("completions/hearth.fish lacks -l %s", name);
	}
	assert_true(shown > 30);
	/* the other way: every --word in the bash script is a real option */
	for (p = t[0].data; (p = strstr(p, "--")) != NULL; p += 2) {
		char w[64];
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-");
		int found = 0;

		if (!n || n >= sizeof w)
			continue;
		memcpy(w, p + 2, n);
		w[n] = '\0';
		for (i = 0; (name = front_cli_option(i, NULL, &hidden)) != NULL; i++)
			found |= !strcmp(name, w) && !hidden;
		if (!found)
			fail_msg("completions/hearth.bash offers --%s, which hearth does not take", w);
		p += n;
	}
	for (k = 0; k < 3; k++)
		buf_release(&t[k]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tool_rules),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_completions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

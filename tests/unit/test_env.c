/* test_env: the children's environment (base/env) and the masked secrets (base/secret). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/env.h"
#include "base/secret.h"
#include "testutil.h"

/* Hearth's environment as a test sees it: 42 variables in the issue, a few here. */
static const char *const env_from[] = {
	"HOME=/home/u", "PATH=/usr/bin:/bin", "TERM=xterm-256color", "LANG=C.UTF-8",
	"LC_ALL=C.UTF-8", "LC_CTYPE=C", "USER=u", "LOGNAME=u", "SHELL=/bin/bash", "TMPDIR=/tmp/u",
	"TZ=UTC", "NO_COLOR=1", "EDITOR=vim", "DISPLAY=:0", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
	"ANTHROPIC_API_KEY=sk-ant-probe-0123456789", "ANTHROPIC_BASE_URL=http://x", "FOO_TOKEN=tok-abcdefgh",
	"github_token=ghp_lowercase123", "AWS_ACCESS_KEY_ID=AKIA123456", "DB_PASSWORD=hunter22hunter",
	"MY_SECRET_THING=s3cr3t-value", "OPENAI_API_KEY=sk-openai-123456", "STRIPE_KEY=sk_live_12345678",
	"MYAPP_DEBUG=1", "MYAPP_COLOR=red", "CARGO_HOME=/c", "HEARTH_LOG=/tmp/l", NULL,
};

/* Whether v holds exactly "entry". */
static int
has(char **v, const char *entry)
{
	for (; *v; v++)
		if (!strcmp(*v, entry))
			return 1;
	return 0;
}

/* Whether v has a variable of this name. */
static int
has_name(char **v, const char *name)
{
	size_t n = strlen(name);

	for (; *v; v++)
		if (!strncmp(*v, name, n) && (*v)[n] == '=')
			return 1;
	return 0;
}

static size_t
count(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

static void
test_secret_names(void **state)
{
	static const char *const secret[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "FOO_TOKEN",
		"GITHUB_TOKEN", "github_token", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE",
		"OPENAI_API_KEY", "DB_PASSWORD", "MY_SECRET_THING", "STRIPE_KEY", "HF_TOKEN",
		"GOOGLE_APPLICATION_CREDENTIALS", "DATABASE_URL", "SSH_AUTH_SOCK", "CLAUDE_CODE_OAUTH_TOKEN",
		"X_API_KEY=v" };
	static const char *const plain[] = { "HOME", "PATH", "LC_ALL", "TERM", "EDITOR", "KEYBOARD",
		"MYAPP_DEBUG", "LANG", "TMPDIR", "HOME=/x" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof secret / sizeof secret[0]; i++)
		if (!env_name_is_secret(secret[i]))
			fail_msg("%s should be a secret's name", secret[i]);
	for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
		if (env_name_is_secret(plain[i]))
			fail_msg("%s is not a secret's name", plain[i]);
}

static void
test_clean_allowlist(void **state)
{
	char **v;

	(void)state;
	env_set_passthrough(NULL, 0, NULL);
	v = env_build(env_from, NULL, ENV_CLEAN);
	assert_true(has(v, "HOME=/home/u"));
	assert_true(has(v, "PATH=/usr/bin:/bin"));
	assert_true(has(v, "LC_ALL=C.UTF-8"));
	assert_true(has(v, "LC_CTYPE=C"));
	assert_true(has(v, "TMPDIR=/tmp/u"));
	assert_true(has(v, "TZ=UTC"));
	assert_false(has_name(v, "EDITOR"));
	assert_false(has_name(v, "DISPLAY"));
	assert_false(has_name(v, "MYAPP_DEBUG"));
	assert_false(has_name(v, "ANTHROPIC_API_KEY"));
	assert_false(has_name(v, "ANTHROPIC_BASE_URL"));
	assert_false(has_name(v, "FOO_TOKEN"));
	assert_false(has_name(v, "HEARTH_LOG"));
	assert_int_equal(count(v), 12);
	free(v);
}

static void
test_passthrough_and_deny(void **state)
{
	const char *pass[] = { "MYAPP_*", "CARGO_HOME", "FOO_TOKEN", "*_KEY*", "ANTHROPIC_*", "*" };
	struct buf w = BUF_INIT;
	char **v;

	(void)state;
	env_set_passthrough(pass, 3, &w);
	assert_non_null(strstr(w.data, "\"FOO_TOKEN\" is a secret's name"));
	v = env_build(env_from, NULL, ENV_CLEAN);
	assert_true(has(v, "MYAPP_DEBUG=1"));
	assert_true(has(v, "MYAPP_COLOR=red"));
	assert_true(has(v, "CARGO_HOME=/c"));
	assert_false(has_name(v, "FOO_TOKEN")); /* deny beats an exact name */
	assert_false(has_name(v, "EDITOR"));
	free(v);
	/* deny beats globs, even "*" */
	env_set_passthrough(pass, sizeof pass / sizeof pass[0], NULL);
	v = env_build(env_from, NULL, ENV_CLEAN);
	assert_true(has_name(v, "EDITOR"));
	assert_true(has_name(v, "DISPLAY"));
	assert_false(has_name(v, "ANTHROPIC_API_KEY"));
	assert_false(has_name(v, "ANTHROPIC_BASE_URL"));
	assert_false(has_name(v, "STRIPE_KEY"));
	assert_false(has_name(v, "github_token"));
	assert_false(has_name(v, "AWS_ACCESS_KEY_ID"));
	assert_false(has_name(v, "DB_PASSWORD"));
	assert_false(has_name(v, "MY_SECRET_THING"));
	assert_false(has_name(v, "SSH_AUTH_SOCK"));
	free(v);
	env_clear_passthrough();
	buf_release(&w);
}

static void
test_user_base_and_add(void **state)
{
	const char *add[] = { "FOO_TOKEN=explicit-ok", "PATH=/only", "HOME", "NEW=1", NULL };
	char **v;

	(void)state;
	v = env_build(env_from, NULL, ENV_USER);
	assert_true(has(v, "EDITOR=vim"));
	assert_true(has(v, "MYAPP_DEBUG=1"));
	assert_true(has(v, "ANTHROPIC_BASE_URL=http://x") == 0);
	assert_false(has_name(v, "ANTHROPIC_API_KEY"));
	assert_false(has_name(v, "OPENAI_API_KEY"));
	free(v);
	/* what the caller adds is explicit: applied, not filtered; "NAME" alone unsets */
	v = env_build(env_from, add, ENV_CLEAN);
	assert_true(has(v, "FOO_TOKEN=explicit-ok"));
	assert_true(has(v, "PATH=/only"));
	assert_false(has_name(v, "HOME"));
	assert_true(has(v, "NEW=1"));
	assert_int_equal(count(v), 13);
	free(v);
}

static void
test_secret_mask(void **state)
{
	struct buf b = BUF_INIT;
	char *s;

	(void)state;
	secret_reset();
	secret_capture(env_from);
	secret_add("anthropic.api_key", "sk-ant-settings-key-777");
	secret_add("short", "1234567"); /* under SECRET_MIN_LEN: ignored */
	secret_add("again", "sk-ant-settings-key-777"); /* held already */
	assert_false(secret_count() == 0);
	buf_adds(&b, "A=sk-ant-probe-0123456789\nB=tok-abcdefgh tok-abcdefgh\nC=sk-ant-settings-key-777\n"
		     "D=1234567 E=s3cr3t-value");
	assert_int_equal(secret_mask(&b), 5);
	assert_string_equal(b.data, "A=[redacted ANTHROPIC_API_KEY]\nB=[redacted FOO_TOKEN] [redacted FOO_TOKEN]\n"
				    "C=[redacted anthropic.api_key]\nD=1234567 E=[redacted MY_SECRET_THING]");
	assert_null(strstr(b.data, "sk-ant"));
	assert_int_equal(secret_mask(&b), 0);
	buf_release(&b);
	/* a value containing another is masked whole */
	secret_add("OUTER", "xx-tok-abcdefgh-yy");
	s = strdup("[xx-tok-abcdefgh-yy]");
	assert_int_equal(secret_mask_str(&s), 1);
	assert_string_equal(s, "[[redacted OUTER]]");
	free(s);
	secret_reset();
	assert_int_equal(secret_count(), 0);
}

static void
test_scrub_own_environment(void **state)
{
	(void)state;
	assert_int_equal(setenv("ZZ_PROBE_TOKEN", "probe-token-value", 1), 0);
	assert_int_equal(setenv("ZZ_PLAIN", "plain-value", 1), 0);
	assert_true(env_scrub_secrets() >= 1);
	assert_null(getenv("ZZ_PROBE_TOKEN"));
	assert_string_equal(getenv("ZZ_PLAIN"), "plain-value");
	assert_int_equal(env_scrub_secrets(), 0);
	unsetenv("ZZ_PLAIN");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_names),
		cmocka_unit_test(test_clean_allowlist),
		cmocka_unit_test(test_passthrough_and_deny),
		cmocka_unit_test(test_user_base_and_add),
		cmocka_unit_test(test_secret_mask),
		cmocka_unit_test(test_scrub_own_environment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_route: the routing policy — triggers, guards, settings, costs, privacy, outcomes log. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "base/cfg.h"
#include "route/route.h"
#include "route/config.h"
#include "route/cost.h"
#include "route/outcomes.h"
#include "route/privacy.h"
#include "testutil.h"

/* Count lines in s. */
static int
lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Signals of a quiet session with a key and no spend. */
static struct route_signals
quiet(void)
{
	struct route_signals s;

	memset(&s, 0, sizeof s);
	s.task = "fix the typo in README";
	s.prompt_tokens = 2000;
	s.n_ctx = 65536;
	s.have_key = 1;
	return s;
}

/* Decide with default settings. */
static void
decide(const struct route_signals *s, enum route_request req, struct route_decision *d)
{
	struct route_policy p;

	route_config_defaults(&p);
	route_decide(&p, s, req, d);
	route_config_release(&p);
}

static void
test_quiet_stays_local(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_string_equal(d.reason, "");
	assert_int_equal(d.blocked, 0);
	assert_int_equal(d.notify, 0);
	assert_int_equal(d.rule, -1); /* no rule fired (0 is the first rule) */
}

static void
test_tool_failures(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.consecutive_tool_failures = 2;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.consecutive_tool_failures = 3;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "3 failed tool calls in a row");
}

static void
test_repeated_call(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;
	struct route_call calls[] = {
		{ "read", "{\"path\":\"a.c\"}" }, { "grep", "{\"q\":\"x\"}" },
		{ "read", "{\"path\":\"b.c\"}" }, { "read", "{\"path\":\"a.c\"}" },
		{ "read", "{\"path\":\"a.c\"}" },
	};

	(void)state;
	s.calls = calls;
	s.ncalls = 4; /* a.c twice: below 3 */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.ncalls = 5;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_CONSULT);
	assert_string_equal(d.reason, "the same read call repeated 3 times (a loop)");
	calls[4].args = "{\"path\":\"c.c\"}"; /* newest differs: no loop */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
}

static void
test_failing_tests(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;
	struct route_test t[] = {
		{ "make test", 0, 0 }, { "make test", 0, 1 }, { "make lint", 0, 1 },
		{ "make test", 0, 1 }, { "make test", 0, 1 },
	};

	(void)state;
	s.tests = t;
	s.ntests = 4; /* 2 cycles (the lint run is another command) */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.ntests = 5;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_CONSULT);
	assert_string_equal(d.reason, "`make test` still failing after 3 edit-test cycles");
	t[1].passed = 1; /* a pass in between restarts the count */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	t[1].passed = 0;
	t[4].passed = 1; /* newest passes */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
}

static void
test_max_steps(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.max_steps_hit = 1;
	s.files_changed = 1;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.files_changed = 0;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "step limit reached with no file changed");
}

static void
test_context(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.prompt_tokens = 58982; /* 90% of 65536 is 58982.4 */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.prompt_tokens = 58000 + 1000;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason,
			    "prompt \xe2\x89\x88 59k tokens > 90% of the local 64k context");
	s.n_ctx = 0; /* unknown context: no rule */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
}

/* The context rule's reason for prompt/n_ctx when it fires with fraction f (else ""). */
static const char *
context_reason(long prompt, long n_ctx, double f, char *out, size_t n)
{
	struct route_signals s = quiet();
	struct route_policy p;
	struct route_decision d;

	route_config_defaults(&p);
	p.context_fraction = f;
	s.prompt_tokens = prompt;
	s.n_ctx = n_ctx;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	route_config_release(&p);
	snprintf(out, n, "%s", d.target == ROUTE_CLAUDE ? d.reason : "");
	return out;
}

/*
 * Edges of the count and context rules: tokens said as people say them
 * (999, 1k at 1000, rounding at 1500, a context of 2^n in k of 1024), the
 * context rule at exactly its fraction and at a context of 1, a test cycle
 * at index 0, a threshold of 1, and empty or odd signal lists.
 */
static void
test_rule_edges(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;
	struct route_policy p;
	struct route_call calls[] = { { "read", "{\"path\":\"a.c\"}" } };
	struct route_test t[] = {
		{ "make test", 0, 1 }, { "make test", 0, 1 }, { "make test", 0, 1 }, { NULL, 0, 1 },
	};
	char r[160];

	(void)state;
	assert_string_equal(context_reason(999, 65536, 0.001, r, sizeof r),
			    "prompt \xe2\x89\x88 999 tokens > 0% of the local 64k context");
	assert_string_equal(context_reason(1000, 100000, 0.001, r, sizeof r),
			    "prompt \xe2\x89\x88 1k tokens > 0% of the local 100k context");
	assert_string_equal(context_reason(1499, 3072, 0.001, r, sizeof r),
			    "prompt \xe2\x89\x88 1k tokens > 0% of the local 3k context");
	assert_string_equal(context_reason(1500, 65536, 0.001, r, sizeof r),
			    "prompt \xe2\x89\x88 2k tokens > 0% of the local 64k context");
	/* a prompt of 21 x 1024 tokens is 22k (rounded), not 21k (a context would be) */
	assert_string_equal(context_reason(21504, 65536, 0.001, r, sizeof r),
			    "prompt \xe2\x89\x88 22k tokens > 0% of the local 64k context");
	assert_string_equal(context_reason(500, 1000, 0.5, r, sizeof r), ""); /* not over */
	assert_string_equal(context_reason(501, 1000, 0.5, r, sizeof r),
			    "prompt \xe2\x89\x88 501 tokens > 50% of the local 1k context");
	assert_string_equal(context_reason(10, 1, 0.9, r, sizeof r),
			    "prompt \xe2\x89\x88 10 tokens > 90% of the local 1 context");
	/* three failing cycles, the first at index 0 */
	s.tests = t;
	s.ntests = 3;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	/* the newest test has no command: no rule (nothing to compare with) */
	s.ntests = 4;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.ntests = 0; /* a list with nothing in it */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.tests = NULL;
	/* a threshold of 1: one call is already "repeated" */
	route_config_defaults(&p);
	p.rules[ROUTE_RULE_REPEATED_CALL].threshold = 1;
	s.calls = calls;
	s.ncalls = 1;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "the same read call repeated 1 times (a loop)");
	s.ncalls = 0;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	route_config_release(&p);
}

static void
test_server_down(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.server_down = 1;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "the local server is unreachable or unhealthy");
}

static void
test_patterns(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.task = "Why is there a Race Condition in the queue?";
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_CONSULT);
	assert_string_equal(d.reason, "task mentions \"race condition\"");
	s.task = "please do a security review of auth.c";
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "task mentions \"security review\"");
	s.task = "race the conditions";
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.task = NULL;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
}

static void
test_regex_pattern(void **state)
{
	struct route_policy p;
	struct route_signals s = quiet();
	struct route_decision d;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	static const char js[] = "{\"routing\":{\"patterns\":[{\"pattern\":\"dead.?lock\","
				 "\"regex\":true,\"mode\":\"handoff\"},{\"pattern\":\"(\","
				 "\"regex\":true}]}}";
	static const char js2[] = "{\"routing\":{\"patterns\":[{\"pattern\":\"^refactor\","
				  "\"regex\":true},{\"pattern\":\"dead.?lock\",\"regex\":true}]}}";

	(void)state;
	route_config_defaults(&p);
	assert_int_equal(route_config_apply_text(&p, js, strlen(js), "t.json", &w, &e), 0);
	assert_int_equal(p.npatterns, 1);
	assert_non_null(strstr(w.data, "t.json: routing.patterns \"(\": invalid regex"));
	s.task = "a DEAD-LOCK in main";
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.mode, ROUTE_HANDOFF);
	assert_string_equal(d.reason, "task matches /dead.?lock/");
	s.task = "design a thing"; /* the default list was replaced */
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	route_config_release(&p);
	/* an anchored pattern matches at the task's start; the second pattern names itself */
	route_config_defaults(&p);
	buf_reset(&w);
	assert_int_equal(route_config_apply_text(&p, js2, strlen(js2), "t.json", &w, &e), 0);
	s.task = "refactor the parser";
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "task matches /^refactor/");
	s.task = "a deadlock";
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_string_equal(d.reason, "task matches /dead.?lock/");
	route_config_release(&p);
	buf_release(&w);
}

static void
test_explicit(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;
	struct route_policy p;

	(void)state;
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "requested with /claude");
	decide(&s, ROUTE_REQ_AT_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "requested with @claude");
	s.consecutive_tool_failures = 5; /* /local beats a firing rule */
	decide(&s, ROUTE_REQ_LOCAL, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_string_equal(d.reason, "requested with /local");
	route_config_defaults(&p);
	assert_int_equal(route_config_set_mode(&p, "claude", NULL), 0); /* --route claude */
	s.consecutive_tool_failures = 0;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_string_equal(d.reason, "routing mode is claude");
	{
		struct err e = ERR_INIT;

		assert_int_equal(route_config_set_mode(&p, "cloud", &e), -1);
		assert_string_equal(e.msg, "unknown route \"cloud\": use auto, local or claude");
		assert_int_equal(p.mode, ROUTE_ONLY_CLAUDE);
	}
	route_config_release(&p);
}

static void
test_guard_local_mode(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;
	struct route_policy p;

	(void)state;
	route_config_defaults(&p);
	route_config_set_mode(&p, "local", NULL);
	s.consecutive_tool_failures = 3;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 1);
	assert_int_equal(d.notify, 1);
	assert_string_equal(d.blocked_why, "routing mode is local: staying local "
			    "(would escalate: 3 failed tool calls in a row)");
	s.told = d.told; /* said once */
	route_decide(&p, &s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 1);
	assert_int_equal(d.notify, 0);
	route_config_release(&p);
}

static void
test_guard_no_key(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.have_key = 0;
	s.task = "review the architecture";
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 1);
	assert_int_equal(d.notify, 1);
	assert_true(d.told & ROUTE_TOLD_NO_KEY);
	assert_string_equal(d.blocked_why, "no ANTHROPIC_API_KEY: staying local "
			    "(would escalate: task mentions \"architecture\")");
	decide(&s, ROUTE_REQ_AT_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	s.task = "hello"; /* nothing wanted: nothing to say */
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.blocked, 0);
	assert_string_equal(d.blocked_why, "");
}

static void
test_guard_spend_caps(void **state)
{
	struct route_signals s = quiet();
	struct route_decision d;

	(void)state;
	s.server_down = 1;
	s.spent_session_usd = 1.99;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	s.spent_session_usd = 2.0;
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 1);
	assert_true(d.told & ROUTE_TOLD_CAP);
	assert_string_equal(d.blocked_why, "session spend cap $2.00 reached ($2.00 spent): "
			    "staying local (would escalate: requested with /claude)");
	s.spent_session_usd = 0.5;
	s.spent_day_usd = 10.25;
	decide(&s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_non_null(strstr(d.blocked_why, "daily spend cap $10.00 reached ($10.25 spent today)"));
	/* issue 20: the day's spend is held against the daily cap, not the
	 * session's: $5 today is over the session cap ($2) and under the day's */
	s.told = 0;
	s.spent_session_usd = 0.5;
	s.spent_day_usd = 5.0;
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_int_equal(d.blocked, 0);
	s.spent_day_usd = 9.99;
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	s.spent_day_usd = 10.0;                 /* reaching the cap is enough */
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 1);
	assert_true(d.told & ROUTE_TOLD_CAP);
	assert_int_equal(d.notify, 1);
	s.told = d.told;                        /* told once: not again */
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.notify, 0);
	s.spent_day_usd = 0;
	s.spent_session_usd = 1.99;             /* just under the session cap */
	decide(&s, ROUTE_REQ_CLAUDE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
}

static void
test_strip_at_claude(void **state)
{
	(void)state;
	assert_string_equal(route_strip_at_claude("@claude why is this slow?"), "why is this slow?");
	assert_string_equal(route_strip_at_claude("  @Claude: plan it"), "plan it");
	assert_string_equal(route_strip_at_claude("@claude"), "");
	assert_string_equal(route_strip_at_claude("@claude\n\nmulti"), "multi");
	assert_string_equal(route_strip_at_claude("@claude, fix it"), "fix it");
	assert_null(route_strip_at_claude("@claudette hi"));
	assert_null(route_strip_at_claude("@claudex"));
	assert_null(route_strip_at_claude("ask @claude later"));
	assert_null(route_strip_at_claude(""));
	assert_null(route_strip_at_claude(NULL));
}

static void
test_canon_args(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)state;
	route_canon_args("{\"b\": 1, \"a\": {\"y\": [1, {\"d\":2,\"c\":3}], \"x\": \"s\"}}", &a);
	assert_string_equal(a.data, "{\"a\":{\"x\":\"s\",\"y\":[1,{\"c\":3,\"d\":2}]},\"b\":1}");
	route_canon_args("{\"a\":{\"x\":\"s\",\"y\":[1,{\"d\":2,\"c\":3}]},\"b\":1}", &b);
	assert_string_equal(a.data, b.data);
	buf_reset(&a);
	route_canon_args("not json {", &a);
	assert_string_equal(a.data, "not json {");
	buf_reset(&a);
	route_canon_args(NULL, &a);
	assert_string_equal(a.data, "");
	buf_release(&a);
	buf_release(&b);
}

static void
test_is_test_command(void **state)
{
	struct route_policy p;
	struct buf w = BUF_INIT;
	static const char js[] = "{\"routing\":{\"test_commands\":[\"./run-tests.sh\",\"\",3]}}";

	(void)state;
	route_config_defaults(&p);
	assert_true(route_is_test_command(&p, "make test"));
	assert_true(route_is_test_command(&p, "cd x && python3 -m pytest -q tests/"));
	assert_true(route_is_test_command(&p, "cargo test --lib"));
	assert_false(route_is_test_command(&p, "make testing-tools"));
	assert_false(route_is_test_command(&p, "ls tests"));
	assert_false(route_is_test_command(&p, "cat pytest.ini"));
	assert_false(route_is_test_command(&p, NULL));
	/* at the command's start, whatever byte lies before it in memory */
	assert_true(route_is_test_command(&p, "xmake test" + 1));
	assert_int_equal(route_config_apply_text(&p, js, strlen(js), NULL, &w, NULL), 0);
	assert_int_equal(lines(w.data), 2);
	assert_true(route_is_test_command(&p, "./run-tests.sh -v"));
	assert_false(route_is_test_command(&p, "make test"));
	route_config_release(&p);
	buf_release(&w);
}

static void
test_privacy(void **state)
{
	struct route_policy p;
	static const char *const yes[] = {
		".env", ".env.local", "a/b/secrets/x", "secrets/deep/k.txt", "id_rsa",
		"key.pem", "conf/server.key", "home/.ssh/id_ed25519.pub", "/abs/path/.env",
	};
	static const char *const no[] = {
		"src/main.c", "environment.txt", "README.md", "keys.txt", "identity.c",
		"pem.c", "secrets.md", "a/secretsx/y", "", NULL,
	};
	size_t i;

	(void)state;
	route_config_defaults(&p);
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!route_privacy_match(&p, yes[i]))
			fail_msg("%s should be private", yes[i]);
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		if (route_privacy_match(&p, no[i]))
			fail_msg("%s should not be private", no[i] ? no[i] : "(null)");
	route_config_release(&p);
}

static void
test_redact(void **state)
{
	struct route_policy p;
	struct buf out = BUF_INIT;

	(void)state;
	route_config_defaults(&p);
	assert_int_equal(route_privacy_redact(&p, "config/.env", "TOKEN=abc\n", 10, &out), 1);
	assert_null(strstr(out.data, "TOKEN"));
	assert_string_equal(out.data, "[hearth: the contents of config/.env (10 bytes) are not "
			    "shown to Claude: it matches the privacy glob \".env*\" "
			    "(routing.privacy)]");
	buf_reset(&out);
	assert_int_equal(route_privacy_redact(&p, "src/a.c", "int x;\n", 7, &out), 0);
	assert_string_equal(out.data, "int x;\n");
	route_config_release(&p);
	buf_release(&out);
}

static void
test_cost(void **state)
{
	struct route_policy p;
	struct route_usage u = { 10000, 2000, 4000, 50000 };
	double usd = -1;

	(void)state;
	route_config_defaults(&p);
	/* sonnet 5: 10000*2 + 2000*10 + 4000*2.5 + 50000*0.2 = 60000 -> $0.06 */
	assert_int_equal(route_cost_usd(&p, "claude-sonnet-5", &u, &usd), 0);
	assert_true(fabs(usd - 0.06) < 1e-12);
	/* haiku by dated id: 10000*1 + 2000*5 + 4000*1.25 + 50000*0.1 = 30000 -> $0.03 */
	assert_int_equal(route_cost_usd(&p, "claude-haiku-4-5-20251001", &u, &usd), 0);
	assert_true(fabs(usd - 0.03) < 1e-12);
	/* opus 5.5 is not priced as opus 5: 40000 + 40000 + 20000 + 20000 -> $0.12 */
	assert_int_equal(route_cost_usd(&p, "claude-opus-5-5", &u, &usd), 0);
	assert_true(fabs(usd - 0.12) < 1e-12);
	/* unknown: the dearest of each kind (fable): 100000+100000+50000+50000 -> $0.30 */
	assert_int_equal(route_cost_usd(&p, "claude-unknown-9", &u, &usd), -1);
	assert_true(fabs(usd - 0.30) < 1e-12);
	assert_int_equal(route_cost_usd(&p, "claude-sonnet-50", &u, &usd), -1);
	/* the first entry of the table is found too: opus 5, 50000+50000+25000+25000 -> $0.15 */
	assert_int_equal(route_cost_usd(&p, "claude-opus-5", &u, &usd), 0);
	assert_true(fabs(usd - 0.15) < 1e-12);
	assert_int_equal(route_cost_usd(&p, "claude-opus-5@20260101", &u, &usd), 0);
	assert_true(fabs(usd - 0.15) < 1e-12);
	route_config_release(&p);
}

/*
 * An unknown model is priced at the dearest of the table's own entries: an
 * entry past nprices (here a dearer one that lies right after the table in
 * memory) is never read.
 */
static void
test_cost_unknown_reads_only_the_table(void **state)
{
	static char a[] = "a", b[] = "b", c[] = "c";
	struct route_price tbl[3] = {
		{ a, 1, 2, 3, 4 },
		{ b, 4, 3, 2, 1 },
		{ c, 1000, 1000, 1000, 1000 },   /* not part of the table */
	};
	struct route_policy p;
	struct route_usage u = { 1000000, 1000000, 1000000, 1000000 };
	double usd = -1;

	(void)state;
	memset(&p, 0, sizeof p);
	p.prices = tbl;
	p.nprices = 2;
	/* a one-letter model is found by its name */
	assert_int_equal(route_cost_usd(&p, "a", &u, &usd), 0);
	assert_true(fabs(usd - (1 + 2 + 3 + 4)) < 1e-9);
	assert_int_equal(route_cost_usd(&p, "zzz", &u, &usd), -1);
	assert_true(fabs(usd - (4 + 3 + 3 + 4)) < 1e-9);
	/* and a prefix beyond the table is not found */
	assert_int_equal(route_cost_usd(&p, "c-1", &u, &usd), -1);
	/* an empty table prices nothing */
	p.nprices = 0;
	assert_int_equal(route_cost_usd(&p, "a", &u, &usd), -1);
	assert_true(usd == 0);
}

static void
test_settings_valid(void **state)
{
	struct route_policy p;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	static const char js[] =
		"{\"server\":\"x\",\"routing\":{\"mode\":\"local\",\"context_fraction\":0.5,"
		"\"rules\":{\"tool_failures\":{\"threshold\":5,\"mode\":\"consult\"},"
		"\"max_steps\":{\"enabled\":false}},"
		"\"patterns\":[\"refactor\"],\"privacy\":[\"*.sqlite\"],"
		"\"spend_cap_session_usd\":0.5,\"spend_cap_day_usd\":3,"
		"\"prices\":{\"my-model\":{\"input\":1,\"output\":2,\"cache_write\":3,"
		"\"cache_read\":4},\"claude-sonnet-5\":{\"output\":12}}}}";
	struct route_usage u = { 1000000, 0, 0, 0 };
	double usd;

	(void)state;
	route_config_defaults(&p);
	assert_int_equal(route_config_apply_text(&p, js, strlen(js), NULL, &w, &e), 0);
	assert_string_equal(w.data, "");
	assert_int_equal(p.mode, ROUTE_ONLY_LOCAL);
	assert_true(p.context_fraction == 0.5);
	assert_int_equal(p.rules[ROUTE_RULE_TOOL_FAILURES].threshold, 5);
	assert_int_equal(p.rules[ROUTE_RULE_TOOL_FAILURES].mode, ROUTE_CONSULT);
	assert_int_equal(p.rules[ROUTE_RULE_MAX_STEPS].enabled, 0);
	assert_int_equal(p.npatterns, 1);
	assert_int_equal(p.patterns[0].mode, ROUTE_CONSULT);
	assert_int_equal(p.nprivacy, 1);
	assert_true(route_privacy_match(&p, "db.sqlite"));
	assert_false(route_privacy_match(&p, ".env"));
	assert_true(p.spend_cap_session_usd == 0.5 && p.spend_cap_day_usd == 3);
	assert_int_equal(route_cost_usd(&p, "my-model", &u, &usd), 0);
	assert_true(usd == 1.0);
	u.input = 0, u.output = 1000000;
	route_cost_usd(&p, "claude-sonnet-5", &u, &usd);
	assert_true(usd == 12.0);
	u.output = 0, u.cache_read = 1000000; /* other fields of a merged price stay */
	route_cost_usd(&p, "claude-sonnet-5", &u, &usd);
	assert_true(usd == 0.2);
	route_config_release(&p);
	buf_release(&w);
}

static void
test_settings_invalid(void **state)
{
	struct route_policy p;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	static const char js[] =
		"{\"routing\":{\"mode\":\"cloud\",\"context_fraction\":1.5,"
		"\"rules\":{\"tool_failures\":{\"threshold\":0,\"mode\":\"maybe\",\"x\":1},"
		"\"max_steps\":{\"threshold\":2,\"enabled\":\"no\"},\"bogus\":{}},"
		"\"patterns\":[{\"regex\":true},7,{\"pattern\":\"p\",\"mode\":\"later\"}],"
		"\"privacy\":\"*.env\",\"spend_cap_session_usd\":-1,\"spend_cap_day_usd\":\"5\","
		"\"prices\":{\"m\":{\"input\":-2,\"output\":\"x\"},\"n\":3},\"colour\":1}}";

	(void)state;
	route_config_defaults(&p);
	assert_int_equal(route_config_apply_text(&p, js, strlen(js), "s.json", &w, &e), 0);
	assert_int_equal(p.mode, ROUTE_AUTO);
	assert_true(p.context_fraction == 0.9);
	assert_int_equal(p.rules[ROUTE_RULE_TOOL_FAILURES].threshold, 3);
	assert_int_equal(p.rules[ROUTE_RULE_TOOL_FAILURES].mode, ROUTE_HANDOFF);
	assert_int_equal(p.rules[ROUTE_RULE_MAX_STEPS].enabled, 1);
	assert_int_equal(p.npatterns, 1); /* only the good entry, mode defaulted */
	assert_int_equal(p.patterns[0].mode, ROUTE_CONSULT);
	assert_int_equal(p.nprivacy, 5);
	assert_true(p.spend_cap_session_usd == 2.0 && p.spend_cap_day_usd == 10.0);
	assert_non_null(strstr(w.data, "s.json: routing.mode must be \"auto\", \"local\" or "
			       "\"claude\"; keeping \"auto\"\n"));
	assert_non_null(strstr(w.data, "s.json: routing.context_fraction must be a number from "
			       "0.05 to 1; keeping 0.9\n"));
	assert_non_null(strstr(w.data, "routing.rules.tool_failures.threshold must be an integer"));
	assert_non_null(strstr(w.data, "routing.rules.tool_failures.mode must be"));
	assert_non_null(strstr(w.data, "routing.rules.tool_failures.x unknown key"));
	assert_non_null(strstr(w.data, "routing.rules.max_steps.threshold unknown key"));
	assert_non_null(strstr(w.data, "routing.rules.max_steps.enabled must be true or false"));
	assert_non_null(strstr(w.data, "unknown rule \"bogus\""));
	assert_non_null(strstr(w.data, "routing.privacy must be a list"));
	assert_non_null(strstr(w.data, "routing.spend_cap_session_usd must be a number >= 0; "
			       "keeping 2\n"));
	assert_non_null(strstr(w.data, "routing.prices.m.input must be a number >= 0"));
	assert_non_null(strstr(w.data, "routing.prices.n must be an object"));
	assert_non_null(strstr(w.data, "unknown setting \"routing.colour\" ignored"));
	assert_int_equal(lines(w.data), 18);
	buf_reset(&w);
	assert_int_equal(route_config_apply_text(&p, "{\"routing\":[1]}", 15, NULL, &w, &e), 0);
	assert_string_equal(w.data, "settings: routing must be an object; ignored\n");
	assert_int_equal(route_config_apply_text(&p, "{\"routing\":", 11, "b.json", &w, &e), -1);
	assert_non_null(strstr(e.msg, "b.json: invalid JSON"));
	assert_int_equal(p.nprivacy, 5);
	route_config_release(&p);
	buf_release(&w);
}

static void
test_load_files(void **state)
{
	char *dir = tu_tmpdir();
	struct route_policy p;
	struct buf w = BUF_INIT, cfgdir = BUF_INIT;
	char *old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;

	(void)state;
	buf_addf(&cfgdir, "%s/cfg", dir);
	setenv("XDG_CONFIG_HOME", cfgdir.data, 1);
	buf_addf(&cfgdir, "/hearth");
	{
		struct buf d = BUF_INIT;

		buf_addf(&d, "%s/cfg", dir);
		mkdir(d.data, 0700);
		mkdir(cfgdir.data, 0700);
		buf_reset(&d);
		buf_addf(&d, "%s/.hearth", dir);
		mkdir(d.data, 0700);
		buf_release(&d);
	}
	tu_write(dir, "cfg/hearth/settings.json",
		 "{\"routing\":{\"mode\":\"local\",\"spend_cap_day_usd\":1}}");
	tu_write(dir, ".hearth/settings.json", "{\"routing\":{\"mode\":\"claude\"}}");
	route_config_defaults(&p);
	route_config_load(&p, dir, &w);
	assert_string_equal(w.data, "");
	assert_int_equal(p.mode, ROUTE_ONLY_CLAUDE);     /* project wins */
	assert_true(p.spend_cap_day_usd == 1.0);         /* user value kept */
	tu_write(dir, ".hearth/settings.json", "{oops");
	{	/* an invalid file is reported once: by cfg_load, not again by routing */
		struct cfg c;
		const char *first;

		cfg_defaults(&c);
		cfg_load(&c, dir, &w);
		route_config_load(&p, dir, &w);
		first = strstr(w.data, ".hearth/settings.json: invalid JSON");
		assert_non_null(first);
		assert_null(strstr(first + 30, "invalid JSON"));
		cfg_release(&c);
	}
	assert_int_equal(p.mode, ROUTE_ONLY_LOCAL);
	route_config_release(&p);
	if (old)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old);
	buf_release(&w);
	buf_release(&cfgdir);
	tu_rmrf(dir);
	free(dir);
}

static void
test_outcomes(void **state)
{
	char *dir = tu_tmpdir();
	struct buf path = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	struct route_outcomes_turn o;
	char *text;
	struct stat st;

	(void)state;
	buf_addf(&path, "%s/state/hearth/routes.jsonl", dir);
	assert_int_equal(route_outcomes_stats(path.data, &out, &e), 0);
	assert_non_null(strstr(out.data, "no routed turns recorded yet"));
	memset(&o, 0, sizeof o);
	o.target = ROUTE_LOCAL;
	o.steps = 4;
	o.answered = 1;
	o.tokens.input = 1000;
	o.tokens.output = 200;
	o.wall_s = 3.5;
	o.ts = 1790000000;
	assert_int_equal(route_outcomes_append(path.data, &o, &e), 0);
	o.target = ROUTE_CLAUDE;
	o.mode = ROUTE_CONSULT;
	o.reason = "task mentions \"design\"";
	o.steps = 1;
	o.tokens.cache_read = 500;
	o.cost_usd = 0.0125;
	o.files_changed = 0;
	assert_int_equal(route_outcomes_append(path.data, &o, &e), 0);
	o.mode = ROUTE_HANDOFF;
	o.reason = "3 failed tool calls in a row";
	o.files_changed = 1;
	o.answered = 0;
	o.cost_usd = 0.5;
	assert_int_equal(route_outcomes_append(path.data, &o, &e), 0);
	assert_int_equal(stat(path.data, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	text = tu_read(dir, "state/hearth/routes.jsonl");
	assert_non_null(text);
	assert_int_equal(lines(text), 3);
	assert_non_null(strstr(text, "{\"ts\":\"2026-09-21T"));
	assert_non_null(strstr(text, "\"route\":\"claude\",\"mode\":\"consult\",\"reason\":"
			       "\"task mentions \\\"design\\\"\",\"steps\":1,\"answered\":true"));
	free(text);
	/* A torn line (crash mid-append) is skipped and does not eat the next one. */
	{
		FILE *f = fopen(path.data, "a");

		assert_non_null(f);
		fputs("{\"ts\":\"x\",\"rou", f);
		fclose(f);
	}
	o.target = ROUTE_LOCAL;
	o.cost_usd = 0;
	assert_int_equal(route_outcomes_append(path.data, &o, &e), 0);
	assert_int_equal(route_outcomes_stats(path.data, &out, &e), 0);
	assert_non_null(strstr(out.data, "route            turns  answered  changed"));
	assert_non_null(strstr(out.data, "\nlocal                2         1        1        "
			       "2500         400     0.0000       7.0\n"));
	assert_non_null(strstr(out.data, "\nclaude handoff       1         0        1        "
			       "1500         200     0.5000       3.5\n"));
	assert_non_null(strstr(out.data, "\nclaude consult       1         1        0        "
			       "1500         200     0.0125       3.5\n"));
	assert_non_null(strstr(out.data, "escalations: 2, ended with an answer: 1, changed files: 1, "
			       "cost $0.5125\n"));
	assert_non_null(strstr(out.data, "skipped 1 unreadable line\n"));
	{
		double usd = -1;

		assert_int_equal(route_outcomes_spent_day(path.data, 1790000000 + 3600, &usd, &e), 0);
		assert_true(fabs(usd - 0.5125) < 1e-9);
		assert_int_equal(route_outcomes_spent_day(path.data, 1790000000 + 86400, &usd, &e), 0);
		assert_true(usd == 0);
		buf_addch(&path, 'x'); /* no log yet: nothing spent */
		usd = -1;
		assert_int_equal(route_outcomes_spent_day(path.data, 1790000000, &usd, &e), 0);
		assert_true(usd == 0);
	}
	buf_release(&path);
	buf_release(&out);
	tu_rmrf(dir);
	free(dir);
}

static void
test_stats_hostile(void **state)
{
	char *dir = tu_tmpdir();
	struct buf path = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	static const char bad[] = "\x01\xff\0garbage\n\n{}\n[1]\n{\"route\":5}\n"
				  "{\"route\":\"claude\",\"tokens\":[1],\"answered\":\"yes\","
				  "\"cost_usd\":\"lots\"}\n";
	FILE *f;

	(void)state;
	buf_addf(&path, "%s/routes.jsonl", dir);
	f = fopen(path.data, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bad, 1, sizeof bad - 1, f), sizeof bad - 1);
	fclose(f);
	assert_int_equal(route_outcomes_stats(path.data, &out, &e), 0);
	assert_non_null(strstr(out.data, "\nclaude handoff       1         0        0           "
			       "0           0     0.0000       0.0\n"));
	assert_non_null(strstr(out.data, "skipped 4 unreadable lines\n"));
	buf_reset(&out);
	assert_int_equal(route_outcomes_stats(dir, &out, &e), -1); /* a directory */
	assert_true(err_isset(&e));
	buf_release(&path);
	buf_release(&out);
	tu_rmrf(dir);
	free(dir);
}

static void
test_outcome_append_fails(void **state)
{
	char *dir = tu_tmpdir();
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;
	struct route_outcomes_turn o;

	(void)state;
	memset(&o, 0, sizeof o);
	tu_write(dir, "file", "x");
	buf_addf(&path, "%s/file/routes.jsonl", dir); /* parent is a file */
	assert_int_equal(route_outcomes_append(path.data, &o, &e), -1);
	assert_true(err_isset(&e));
	buf_release(&path);
	tu_rmrf(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_stays_local),
		cmocka_unit_test(test_tool_failures),
		cmocka_unit_test(test_repeated_call),
		cmocka_unit_test(test_failing_tests),
		cmocka_unit_test(test_max_steps),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_rule_edges),
		cmocka_unit_test(test_server_down),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_regex_pattern),
		cmocka_unit_test(test_explicit),
		cmocka_unit_test(test_guard_local_mode),
		cmocka_unit_test(test_guard_no_key),
		cmocka_unit_test(test_guard_spend_caps),
		cmocka_unit_test(test_strip_at_claude),
		cmocka_unit_test(test_canon_args),
		cmocka_unit_test(test_is_test_command),
		cmocka_unit_test(test_privacy),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_cost_unknown_reads_only_the_table),
		cmocka_unit_test(test_settings_valid),
		cmocka_unit_test(test_settings_invalid),
		cmocka_unit_test(test_load_files),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_stats_hostile),
		cmocka_unit_test(test_outcome_append_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

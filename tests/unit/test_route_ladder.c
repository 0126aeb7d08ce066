/*
 * test_route_ladder: the tiers' ladder without I/O (route/ladder.h) — the
 * next rung by role, by state (down) and by context room; a turn's start
 * rung from @NAME, a pin, a task pattern's tier and a rule that climbs;
 * /route NAME; a pattern with a "tier" decided local with no guard; the
 * least loaded by /metrics; the front end's own server down at launch;
 * a pattern naming no tier; the tiers a turn ran on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "llm/provider.h"
#include "route/config.h"
#include "route/escalate.h"
#include "route/ladder.h"

static struct provider prov[4]; /* stand-ins: the ladder only compares and hands them on */

/* small, small2 (interactive), big, huge (workhorse); contexts 4k, 4k, 8k, 128k. */
static void
ladder(struct route_escalate *x)
{
	memset(x, 0, sizeof *x);
	route_config_defaults(&x->policy);
	assert_int_equal(route_escalate_add_rung(x, "small", 0, &prov[0]), 0);
	assert_int_equal(route_escalate_add_rung(x, "small2", 0, &prov[1]), 1);
	assert_int_equal(route_escalate_add_rung(x, "big", 1, &prov[2]), 2);
	assert_int_equal(route_escalate_add_rung(x, "huge", 1, &prov[3]), 3);
	route_escalate_rung_ready(x, 0, 4096, 0);
	route_escalate_rung_ready(x, 1, 4096, 0);
	route_escalate_rung_ready(x, 2, 8192, 0);
	route_escalate_rung_ready(x, 3, 131072, 0);
}

static void
release(struct route_escalate *x)
{
	route_config_release(&x->policy);
	free(x->dec);
}

static void
test_next(void **state)
{
	struct route_escalate x;

	(void)state;
	ladder(&x);
	assert_int_equal(x.start, 0);
	assert_int_equal(route_ladder_next(&x, 0, 0, 0), 2);   /* a failure: up to the workhorse */
	assert_int_equal(route_ladder_next(&x, 0, 1, 0), 1);   /* down: the same role first */
	assert_int_equal(route_ladder_next(&x, 2, 0, 0), 3);   /* the next workhorse */
	assert_int_equal(route_ladder_next(&x, 3, 0, 0), -1);  /* the top: Claude */
	assert_int_equal(route_ladder_next(&x, 0, 0, 10000), 3); /* room: 90% of 128k, not of 8k */
	assert_int_equal(route_ladder_next(&x, 0, 0, 7000), 2);
	assert_int_equal(route_ladder_next(&x, 0, 0, 200000), -1);
	route_escalate_rung_ready(&x, 1, 4096, 1);
	assert_int_equal(route_ladder_next(&x, 0, 1, 0), 2);   /* small2 down too: up */
	route_escalate_rung_ready(&x, 3, 0, 0);
	assert_int_equal(route_ladder_next(&x, 0, 0, 10000), -1); /* an unknown context has no room */
	release(&x);
}

static void
test_turn(void **state)
{
	struct route_escalate x;
	struct buf note = BUF_INIT;
	const char *text = "  @big: refactor it";

	(void)state;
	ladder(&x);
	x.last.rule = -1;
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_string_equal(text, "refactor it");
	assert_int_equal(x.rung, 2);
	assert_ptr_equal(x.local, &prov[2]);
	assert_int_equal(x.n_ctx, 8192);
	assert_string_equal(note.data, "→ big (workhorse): requested with @big");
	assert_string_equal(x.dec[x.ndec - 1].tier, "big");
	buf_reset(&note);
	text = "@nosuch hi"; /* not a tier: the text stays, the start rung */
	assert_int_equal(route_ladder_turn(&x, &text, &note), 0);
	assert_string_equal(text, "@nosuch hi");
	assert_int_equal(x.rung, 0);
	assert_ptr_equal(x.local, &prov[0]);
	x.last.tier = "huge"; /* a task pattern's tier */
	snprintf(x.last.reason, sizeof x.last.reason, "task mentions \"refactor\"");
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 3);
	assert_string_equal(note.data, "→ huge (workhorse): task mentions \"refactor\"");
	buf_reset(&note);
	x.last.tier = NULL; /* the context rule fired at the start: a tier with room */
	x.last.rule = ROUTE_RULE_CONTEXT;
	x.last.target = ROUTE_CLAUDE;
	x.last_prompt = 6000;
	snprintf(x.last.reason, sizeof x.last.reason, "prompt too big");
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 2);
	assert_string_equal(note.data, "→ big (workhorse): prompt too big on small");
	buf_reset(&note);
	x.pin = 1; /* /route small2: no climbing */
	assert_int_equal(route_ladder_turn(&x, &text, &note), 0);
	assert_int_equal(x.rung, 1);
	x.pin = -1;
	x.last.rule = -1;
	x.last.target = ROUTE_LOCAL;
	route_escalate_rung_ready(&x, 0, 4096, 1); /* the start is down: the next interactive */
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 1);
	assert_string_equal(note.data, "→ small2 (interactive): small is down; skipped");
	buf_release(&note);
	release(&x);
}

/* Among servers of one role: the warm cache first, then a free slot, then the most free. */
static void
test_choice(void **state)
{
	struct route_escalate x;
	struct buf note = BUF_INIT;
	const char *text = "hi";

	(void)state;
	ladder(&x);
	x.last.rule = -1;
	route_escalate_rung_slots(&x, 0, 1, 0); /* small busy, small2 free */
	route_escalate_rung_slots(&x, 1, 2, 1);
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 1);
	assert_string_equal(note.data, "→ small2 (interactive): small has no free slot (0 of 1), small2 has 1");
	buf_reset(&note);
	route_escalate_rung_slots(&x, 0, 4, 1); /* small has 1 free, small2 3: the least loaded */
	route_escalate_rung_slots(&x, 1, 4, 3);
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 1);
	assert_string_equal(note.data, "→ small2 (interactive): small2 has 3 free slots, small 1");
	buf_reset(&note);
	x.warm = 0; /* the session's cache is on small: it stays there, busy or not */
	route_escalate_rung_slots(&x, 0, 1, 0);
	assert_int_equal(route_ladder_turn(&x, &text, &note), 0);
	assert_int_equal(x.rung, 0);
	x.warm = 1; /* warm on small2: quietly there */
	assert_int_equal(route_ladder_turn(&x, &text, &note), 0);
	assert_int_equal(x.rung, 1);
	assert_int_equal(note.len, 0);
	route_escalate_rung_slots(&x, 2, 1, 0); /* workhorses: big busy, huge free */
	route_escalate_rung_slots(&x, 3, 1, 1);
	assert_int_equal(route_ladder_next(&x, 0, 0, 0), 3);
	buf_release(&note);
	release(&x);
}

static void
test_set_mode(void **state)
{
	struct route_escalate x;
	struct err e = ERR_INIT;

	(void)state;
	ladder(&x);
	assert_int_equal(route_escalate_set_mode(&x, "big", &e), 0);
	assert_int_equal(x.pin, 2);
	assert_int_equal(x.policy.mode, ROUTE_ONLY_LOCAL);
	assert_int_equal(route_escalate_set_mode(&x, "auto", &e), 0);
	assert_int_equal(x.pin, -1);
	assert_int_equal(x.policy.mode, ROUTE_AUTO);
	assert_int_equal(route_escalate_set_mode(&x, "nosuch", &e), -1);
	assert_string_equal(e.msg, "unknown route \"nosuch\": use auto, local, claude or a tier (small, small2, big, huge)");
	x.on_claude = 0;
	x.rung = 3;
	assert_string_equal(route_escalate_where(&x), "huge");
	x.on_claude = 1;
	assert_string_equal(route_escalate_where(&x), "claude");
	release(&x);
}

static void
test_pattern_tier(void **state)
{
	struct route_policy p;
	struct route_signals s;
	struct route_decision d;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	const char *j = "{\"routing\": {\"patterns\": [{\"pattern\": \"refactor\", \"tier\": \"big\"},"
			" {\"pattern\": \"design\"}, {\"pattern\": \"x\", \"tier\": 7}]}}";

	(void)state;
	route_config_defaults(&p);
	assert_int_equal(route_config_apply_text(&p, j, strlen(j), "test", &w, &e), 0);
	assert_non_null(strstr(w.data, "routing.patterns \"x\": tier must be the name of a tier"));
	memset(&s, 0, sizeof s);
	s.task = "please refactor the parser"; /* no key: a tier needs none */
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_LOCAL);
	assert_int_equal(d.blocked, 0);
	assert_string_equal(d.tier, "big");
	assert_int_equal(d.rule, ROUTE_RULE_COUNT);
	s.task = "design the API";
	s.have_key = 1;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.target, ROUTE_CLAUDE);
	assert_null(d.tier);
	s.consecutive_tool_failures = 3;
	route_decide(&p, &s, ROUTE_REQ_NONE, &d);
	assert_int_equal(d.rule, ROUTE_RULE_TOOL_FAILURES);
	buf_release(&w);
	route_config_release(&p);
}

/* Servers without /slots ranked by their /metrics: running + queued, an empty queue first. */
static void
test_load(void **state)
{
	struct route_escalate x;
	struct buf note = BUF_INIT;
	const char *text = "go";

	(void)state;
	ladder(&x);
	x.last.rule = -1;
	route_escalate_rung_load(&x, 0, 1, 2, 3); /* small: 2 running, 3 queued */
	route_escalate_rung_load(&x, 1, 1, 1, 0); /* small2: 1 running, none queued */
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 1);
	assert_string_equal(note.data, "→ small2 (interactive): small is busier (2 running, 3 queued), small2 has 1 running, 0 queued");
	buf_reset(&note);
	route_escalate_rung_load(&x, 0, 1, 4, 0); /* both with an empty queue: fewer running wins */
	route_escalate_rung_load(&x, 1, 1, 5, 0);
	assert_int_equal(route_ladder_turn(&x, &text, &note), 0);
	assert_int_equal(x.rung, 0);
	route_escalate_rung_load(&x, 1, 1, 3, 0);
	assert_int_equal(route_ladder_turn(&x, &text, &note), 1);
	assert_int_equal(x.rung, 1);
	buf_reset(&note);
	route_escalate_rung_load(&x, 2, 1, 0, 9); /* workhorses: big queues, huge unknown */
	assert_int_equal(route_ladder_next(&x, 0, 0, 0), 2); /* neither free nor comparable: the setting's order */
	route_escalate_rung_load(&x, 3, 1, 0, 0);
	assert_int_equal(route_ladder_next(&x, 0, 0, 0), 3);
	buf_release(&note);
	release(&x);
}

/* The line session's and full screen's own server down at launch: the rung turns start on instead. */
static void
test_own(void **state)
{
	struct route_escalate x;
	struct buf note = BUF_INIT;

	(void)state;
	ladder(&x);
	assert_int_equal(route_ladder_own(&x, &prov[0], 0, 1, &note), 1);
	assert_true(x.rungs[0].down);
	assert_string_equal(note.data, "small does not answer; turns start on small2 (interactive) until it does (hearth keeps asking)");
	assert_int_equal(route_ladder_own(&x, &prov[0], 32768, 0, NULL), 0);
	assert_false(x.rungs[0].down);
	assert_int_equal(x.rungs[0].n_ctx, 32768);
	x.pin = 0; /* the turns pinned to it: wait for it */
	assert_int_equal(route_ladder_own(&x, &prov[0], 0, 1, NULL), -1);
	x.pin = 2; /* pinned elsewhere: that one */
	assert_int_equal(route_ladder_own(&x, &prov[0], 0, 1, NULL), 2);
	x.pin = -1;
	route_escalate_rung_ready(&x, 1, 0, 1);
	route_escalate_rung_ready(&x, 2, 0, 1);
	route_escalate_rung_ready(&x, 3, 0, 1);
	assert_int_equal(route_ladder_own(&x, &prov[0], 0, 1, NULL), -1); /* nothing else up */
	assert_int_equal(route_ladder_own(&x, &prov[3] + 1, 0, 1, NULL), -1); /* not a rung's */
	buf_release(&note);
	release(&x);
}

/* A pattern's tier that is not in the servers setting: one line that says what to do. */
static void
test_check_patterns(void **state)
{
	struct route_escalate x;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	const char *j = "{\"routing\": {\"patterns\": [{\"pattern\": \"refactor\", \"tier\": \"bigg\"},"
			" {\"pattern\": \"port\", \"tier\": \"BIG\"}, {\"pattern\": \"design\"}]}}";

	(void)state;
	ladder(&x);
	assert_int_equal(route_config_apply_text(&x.policy, j, strlen(j), "test", &w, &e), 0);
	buf_reset(&w);
	assert_int_equal(route_ladder_check_patterns(&x, &w), 1);
	assert_string_equal(w.data, "routing.patterns \"refactor\": tier \"bigg\" is not in the servers setting (tiers: small, small2, big, huge): use one of those names, or add a server by that name; tasks it matches start where any task does\n");
	buf_reset(&w);
	x.nrungs = 0;
	assert_int_equal(route_ladder_check_patterns(&x, &w), 2);
	assert_non_null(strstr(w.data, "tier \"BIG\" is not in the servers setting (there is none): add {\"name\": \"BIG\""));
	buf_release(&w);
	release(&x);
}

/* The stand-ins' model id (route_ladder_account prices by it). */
static const char *
stand_in_model(void *self)
{
	(void)self;
	return "local-model";
}

/* A turn's tiers: only those that served it, with the turn's own figures, Claude last. */
static void
test_turn_tiers(void **state)
{
	struct route_escalate x;
	struct route_outcomes_tier t[ROUTE_OUTCOMES_TIERS];
	struct route_usage u = { 100, 10, 0, 0 };

	(void)state;
	ladder(&x);
	prov[0].model = prov[2].model = stand_in_model;
	x.rung = 0;
	route_ladder_account(&x, &u, 2, 500); /* an earlier turn */
	route_ladder_turn_start(&x);
	route_ladder_account(&x, &u, 1, 250);
	x.rung = 2;
	route_ladder_account(&x, &u, 3, 1000);
	x.route_use[ROUTE_CLAUDE].output = 7;
	x.claude_requests = 1;
	x.claude_ms = 40;
	assert_int_equal(route_ladder_turn_tiers(&x, t, ROUTE_OUTCOMES_TIERS), 3);
	assert_string_equal(t[0].name, "small");
	assert_int_equal(t[0].requests, 1);
	assert_int_equal(t[0].tokens.input, 100);
	assert_true(t[0].ms == 250);
	assert_string_equal(t[1].name, "big");
	assert_string_equal(t[1].role, "workhorse");
	assert_int_equal(t[1].requests, 3);
	assert_string_equal(t[2].name, "claude");
	assert_int_equal(t[2].tokens.output, 7);
	assert_int_equal(route_ladder_turn_tiers(&x, t, 1), 1);
	x.nrungs = 0;
	assert_int_equal(route_ladder_turn_tiers(&x, t, ROUTE_OUTCOMES_TIERS), 0); /* no tiers: no rows */
	release(&x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_turn),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_set_mode),
		cmocka_unit_test(test_pattern_tier),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_own),
		cmocka_unit_test(test_check_patterns),
		cmocka_unit_test(test_turn_tiers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

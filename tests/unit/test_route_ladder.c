/*
 * test_route_ladder: the tiers' ladder without I/O (route/ladder.h) — the
 * next rung by role, by state (down) and by context room; a turn's start
 * rung from @NAME, a pin, a task pattern's tier and a rule that climbs;
 * /route NAME; a pattern with a "tier" decided local with no guard.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_turn),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_set_mode),
		cmocka_unit_test(test_pattern_tier),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

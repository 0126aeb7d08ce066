/* test_cachewatch: reuse accounting and the cause of each kind of cache break. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llama/cache.h"
#include "llama/disco.h"

static struct llama_cache_report
step(struct llama_cache *cw, const char *const *msgs, size_t n, int slot, const char *server,
     long cache_n, long prompt_n)
{
	struct llm_timings t;
	struct llama_cache_report r;

	memset(&t, 0, sizeof t);
	t.cache_n = cache_n;
	t.prompt_n = prompt_n;
	llama_cache_request(cw, msgs, n, slot, server, 8192);
	llama_cache_timings(cw, &t, &r);
	return r;
}

static void
test_stable_prefix_no_break(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1", "tool1", "asst2" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	assert_true(llama_cache_session_reuse(&cw) == -1); /* nothing sent yet: no figure (not 0/0) */
	r = step(&cw, m, 2, 0, "b1|m", 0, 1000);
	assert_false(r.is_break);
	assert_true(r.reuse == 0);
	r = step(&cw, m, 4, 0, "b1|m", 1000, 120);
	assert_false(r.is_break);
	assert_true(r.reuse > 0.89 && r.reuse < 0.90);
	assert_true(r.expected > 0.89 && r.expected < 0.90);
	r = step(&cw, m, 5, 0, "b1|m", 1100, 40); /* generated tokens re-rendered: fine */
	assert_false(r.is_break);
	assert_true(llama_cache_session_reuse(&cw) > 0.64 && llama_cache_session_reuse(&cw) < 0.65); /* 2100 of 3260 */
	llama_cache_release(&cw);
}

/* Issue 20: a prompt of one token is judged too (nothing of it reused after a 1000-token request: a break). */
static void
test_one_token_prompt(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 2, 0, "b1|m", 0, 1000);
	r = step(&cw, m, 3, 0, "b1|m", 0, 1);
	assert_true(r.expected > 0.99);
	assert_true(r.is_break);
	llama_cache_release(&cw);
}

/*
 * Issue 20: a conversation that shrinks (after /compact, say) is compared
 * up to its own end: the first message not sent again is the change.
 */
static void
test_shrunk_conversation(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1", "tool1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 4, 0, "b1|m", 0, 1000);
	r = step(&cw, m, 2, 0, "b1|m", 0, 500);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the prompt prefix changed at message 2");
	llama_cache_release(&cw);
}

static void
test_prefix_change_named(void **state)
{
	struct llama_cache cw;
	const char *a[] = { "sys", "user1", "asst1" };
	const char *b[] = { "sys", "user1 EDITED", "asst1", "tool" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, a, 3, 0, "b1|m", 0, 1000);
	r = step(&cw, b, 4, 0, "b1|m", 10, 1100);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the prompt prefix changed at message 1");
	llama_cache_release(&cw);
}

static void
test_other_causes(void **state)
{
	struct llama_cache cw;
	const char *a[] = { "sys", "user1" };
	const char *b[] = { "sys", "user1", "asst", "tool" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, a, 2, 0, "b1|m", 0, 1000);
	r = step(&cw, b, 4, 1, "b1|m", 0, 1100);
	assert_true(r.is_break);
	assert_non_null(strstr(r.cause, "another slot (1, was 0)"));
	r = step(&cw, b, 4, 1, "b2|m", 0, 1100);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the server restarted or the model changed");
	r = step(&cw, b, 4, 1, "b2|m", 0, 1100);
	assert_true(r.is_break);
	assert_non_null(strstr(r.cause, "dropped the cached prefix"));
	r = step(&cw, b, 4, 1, "b2|m", 100, 9000);
	assert_true(r.is_break);
	assert_non_null(strstr(r.cause, "context was truncated"));
	assert_int_equal(cw.breaks, 4);
	llama_cache_release(&cw);
}

/* A restore that put tokens in the slot, then a total miss: a break naming the restore. */
static void
test_restore_miss_is_break(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1", "user2" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	llama_cache_restored(&cw, 2427);
	r = step(&cw, m, 4, 0, "b1|m", 0, 2483);
	assert_true(r.is_break);
	assert_false(r.planned);
	assert_string_equal(r.cause, "the restored slot did not match the prompt: 2427 tokens restored from the slot file, 0 reused");
	/* a restore that paid: no break; the flag does not outlive the request */
	llama_cache_restored(&cw, 2427);
	r = step(&cw, m, 4, 0, "b1|m", 2427, 56);
	assert_false(r.is_break);
	r = step(&cw, m, 4, 0, "b1|m", 2483, 30);
	assert_false(r.is_break);
	llama_cache_release(&cw);
}

/* The connection was lost in between: a total miss is blamed on the restart. */
static void
test_server_lost_is_restart(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1", "user2" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 2, 0, "b1|m", 0, 1000);
	llama_cache_server_lost(&cw);
	r = step(&cw, m, 4, 0, "b1|m", 0, 1100);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the server restarted (the connection was lost): its cache is empty");
	r = step(&cw, m, 4, 0, "b1|m", 0, 1200); /* later ones: back to the usual explanation */
	assert_true(r.is_break);
	assert_true(strstr(r.cause, "dropped") != NULL);
	llama_cache_release(&cw);
}

static void
test_failed_request_keeps_baseline(void **state)
{
	struct llama_cache cw;
	const char *a[] = { "sys", "user1" };
	const char *b[] = { "sys", "XX" };
	const char *c[] = { "sys", "user1", "asst" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, a, 2, 0, "s", 0, 500);
	llama_cache_request(&cw, b, 2, 0, "s", 8192); /* no timings: it failed */
	r = step(&cw, c, 3, 0, "s", 500, 50);
	assert_false(r.is_break);
	llama_cache_release(&cw);
}

/* Like step, with the slot's n_ctx given. */
static struct llama_cache_report
step_ctx(struct llama_cache *cw, const char *const *msgs, size_t n, long n_ctx, long cache_n,
	 long prompt_n)
{
	struct llm_timings t;
	struct llama_cache_report r;

	memset(&t, 0, sizeof t);
	t.cache_n = cache_n;
	t.prompt_n = prompt_n;
	llama_cache_request(cw, msgs, n, 0, "b1|m", n_ctx);
	llama_cache_timings(cw, &t, &r);
	return r;
}

/* Issue 20: the system prompt (message 0) changed is a prefix change at message 0. */
static void
test_change_at_first_message(void **state)
{
	struct llama_cache cw;
	const char *a[] = { "sys", "user1", "asst1" };
	const char *b[] = { "sys, edited", "user1", "asst1", "user2" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, a, 3, 0, "b1|m", 0, 1000);
	r = step(&cw, b, 4, 0, "b1|m", 3, 1100);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the prompt prefix changed at message 0");
	llama_cache_release(&cw);
}

/*
 * Issue 20: timings for a request that was never reported leave the slot
 * unknown, and a shortfall after it is not blamed on a slot change.
 */
static void
test_unknown_slot(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1" };
	struct llm_timings t = { .cache_n = 0, .prompt_n = 1000 };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	llama_cache_timings(&cw, &t, &r);
	assert_false(r.is_break);
	r = step(&cw, m, 2, 0, "b1|m", 0, 1100);
	assert_true(r.is_break);
	assert_null(strstr(r.cause, "another slot"));
	assert_non_null(strstr(r.cause, "dropped"));
	llama_cache_release(&cw);
}

/*
 * Issue 20: a prompt that fills n_ctx exactly was truncated; an n_ctx of 0
 * (not known) never says so; a context of one token is a context.
 */
static void
test_truncation_bounds(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step_ctx(&cw, m, 2, 4096, 0, 3000);
	r = step_ctx(&cw, m, 2, 4096, 96, 4000); /* 4,096 tokens: exactly full */
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the context was truncated (4096 tokens, n_ctx 4096)");
	r = step_ctx(&cw, m, 2, 0, 0, 5000); /* n_ctx unknown */
	assert_true(r.is_break);
	assert_non_null(strstr(r.cause, "dropped"));
	r = step_ctx(&cw, m, 2, 1, 0, 5000);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the context was truncated (5000 tokens, n_ctx 1)");
	llama_cache_release(&cw);
}

/*
 * Issue 20: timings of no tokens give 0, never 0/0, whether after a request
 * or after a restore; a one-token prompt served from cache is reuse 1.
 */
static void
test_empty_and_tiny_prompts(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	r = step(&cw, m, 2, 0, "b1|m", 0, 0);
	assert_true(r.reuse == 0 && r.expected == 0 && !r.is_break);
	assert_true(llama_cache_session_reuse(&cw) == -1); /* still no prompt tokens */
	r = step(&cw, m, 2, 0, "b1|m", 1, 0);
	assert_true(r.reuse == 1);
	assert_true(llama_cache_session_reuse(&cw) == 1); /* 1 of 1 */
	r = step(&cw, m, 2, 0, "b1|m", 0, 0);
	assert_true(r.reuse == 0 && r.expected == 0 && !r.is_break);
	llama_cache_restored(&cw, 500);
	r = step(&cw, m, 2, 0, "b1|m", 0, 0);
	assert_true(r.reuse == 0 && r.expected == 0 && !r.is_break);
	/* a restore of one token that a one-token prompt did not reuse is a break */
	llama_cache_restored(&cw, 1);
	r = step(&cw, m, 2, 0, "b1|m", 0, 1);
	assert_true(r.expected == 1);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the restored slot did not match the prompt: 1 tokens restored from the slot file, 0 reused");
	llama_cache_release(&cw);
}

/* Issue 20: exactly LLAMA_CACHE_SLACK short is still no break, in both comparisons. */
static void
test_slack_boundary(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 2, 0, "b1|m", 0, 100);
	r = step(&cw, m, 2, 0, "b1|m", 95, 5); /* expected 1.00, reused 0.95 */
	assert_true(r.expected == 1);
	assert_false(r.is_break);
	r = step(&cw, m, 2, 0, "b1|m", 94, 6);
	assert_true(r.is_break);
	llama_cache_restored(&cw, 100);
	r = step(&cw, m, 2, 0, "b1|m", 95, 5);
	assert_true(r.expected == 1);
	assert_false(r.is_break);
	llama_cache_restored(&cw, 100);
	r = step(&cw, m, 2, 0, "b1|m", 94, 6);
	assert_true(r.is_break);
	llama_cache_release(&cw);
}

/*
 * Issue 20: each break's cause is its own (a restore's after an earlier
 * break does not carry the earlier text); release leaves the watcher empty,
 * so releasing twice is safe.
 */
static void
test_cause_fresh_and_release(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 2, 0, "b1|m", 0, 1000);
	r = step(&cw, m, 2, 0, "b1|m", 0, 1000);
	assert_true(r.is_break);
	llama_cache_restored(&cw, 800);
	r = step(&cw, m, 2, 0, "b1|m", 0, 1000);
	assert_true(r.is_break);
	assert_string_equal(r.cause, "the restored slot did not match the prompt: 800 tokens restored from the slot file, 0 reused");
	llama_cache_release(&cw);
	assert_null(cw.msgs);
	assert_null(cw.server);
	assert_int_equal(cw.requests, 0);
	assert_true(llama_cache_session_reuse(&cw) == -1);
	llama_cache_release(&cw);
}

static void
test_slot_choice(void **state)
{
	struct llama_slot s[3];

	(void)state;
	memset(s, 0, sizeof s);
	s[0].id = 0;
	s[0].is_processing = 1;
	s[1].id = 1;
	s[1].id_task = 4;
	s[1].n_prompt_tokens = 9000; /* someone's warm cache */
	s[2].id = 2;
	s[2].id_task = -1;           /* never used */
	assert_int_equal(llama_disco_choose_slot(-1, s, 3), 2);
	assert_int_equal(llama_disco_choose_slot(1, s, 3), 1);
	s[2].is_processing = 1;
	assert_int_equal(llama_disco_choose_slot(-1, s, 3), 1);
	s[1].is_processing = 1;
	assert_int_equal(llama_disco_choose_slot(-1, s, 3), -1);
	assert_int_equal(llama_disco_choose_slot(-1, NULL, 0), -1);
}

static void
test_planned_break(void **state)
{
	struct llama_cache cw;
	const char *m[] = { "sys", "user1", "asst1", "tool1", "asst2" };
	const char *d[] = { "sys", "user1", "asst1", "digest1", "asst2", "user2" };
	struct llama_cache_report r;

	(void)state;
	llama_cache_init(&cw);
	step(&cw, m, 5, 0, "b1|m", 0, 2000);
	llama_cache_request(&cw, d, 6, 0, "b1|m", 8192);
	llama_cache_plan(&cw, "MicroCompact: 1 old tool result digested");
	{
		struct llm_timings t = { .cache_n = 300, .prompt_n = 500 };

		llama_cache_timings(&cw, &t, &r);
	}
	assert_true(r.is_break);
	assert_true(r.planned);
	assert_string_equal(r.cause, "expected: MicroCompact: 1 old tool result digested");
	/* the plan covers one request: the same shortfall next time is a bug again */
	r = step(&cw, d, 6, 0, "b1|m", 10, 900);
	assert_true(r.is_break);
	assert_false(r.planned);
	assert_non_null(strstr(r.cause, "dropped"));
	/* a plan with no shortfall reports nothing and is forgotten */
	llama_cache_request(&cw, d, 6, 0, "b1|m", 8192);
	llama_cache_plan(&cw, "x");
	{
		struct llm_timings t = { .cache_n = 905, .prompt_n = 10 };

		llama_cache_timings(&cw, &t, &r);
	}
	assert_false(r.is_break);
	assert_null(cw.planned);
	/* a planned break after an unplanned one names the plan alone (issue 20) */
	llama_cache_request(&cw, d, 6, 0, "b1|m", 8192);
	llama_cache_plan(&cw, "y");
	{
		struct llm_timings t = { .cache_n = 10, .prompt_n = 900 };

		llama_cache_timings(&cw, &t, &r);
	}
	assert_true(r.is_break);
	assert_string_equal(r.cause, "expected: y");
	llama_cache_release(&cw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable_prefix_no_break),
		cmocka_unit_test(test_one_token_prompt),
		cmocka_unit_test(test_shrunk_conversation),
		cmocka_unit_test(test_prefix_change_named),
		cmocka_unit_test(test_other_causes),
		cmocka_unit_test(test_failed_request_keeps_baseline),
		cmocka_unit_test(test_restore_miss_is_break),
		cmocka_unit_test(test_server_lost_is_restart),
		cmocka_unit_test(test_slot_choice),
		cmocka_unit_test(test_planned_break),
		cmocka_unit_test(test_change_at_first_message),
		cmocka_unit_test(test_unknown_slot),
		cmocka_unit_test(test_truncation_bounds),
		cmocka_unit_test(test_empty_and_tiny_prompts),
		cmocka_unit_test(test_slack_boundary),
		cmocka_unit_test(test_cause_fresh_and_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

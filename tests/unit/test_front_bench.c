/* test_front_bench: what `hearth bench` reads (front/bench_problem): test counts, /metrics, hearth's result, problems, trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/json.h"
#include "front/bench_problem.h"

static long passed, total;

static int
counts(enum front_bench_format f, const char *s)
{
	return front_bench_parse_counts(f, s, strlen(s), &passed, &total);
}

static void
test_unittest_counts(void **state)
{
	(void)state;
	assert_int_equal(counts(FRONT_BENCH_UNITTEST, "....\n------\nRan 17 tests in 0.01s\n\nOK\n"), 1);
	assert_int_equal(passed, 17);
	assert_int_equal(total, 17);
	assert_int_equal(counts(FRONT_BENCH_UNITTEST, "F.E\n------\nRan 22 tests in 0.011s\n\nFAILED (failures=2, errors=5)\n"), 1);
	assert_int_equal(passed, 15);
	assert_int_equal(total, 22);
	assert_int_equal(counts(FRONT_BENCH_UNITTEST, "Ran 3 tests\nFAILED (failures=1, skipped=1, unexpected successes=1)\n"), 1);
	assert_int_equal(passed, 1);
	/* an import error before any test: nothing counted */
	assert_int_equal(counts(FRONT_BENCH_UNITTEST, "Traceback ...\nSyntaxError: invalid syntax\n"), 0);
	assert_int_equal(passed, 0);
	assert_int_equal(total, 0);
	/* a test printing "Ran " itself does not count: only the last line that starts so */
	assert_int_equal(counts(FRONT_BENCH_UNITTEST, "Ran 99 tests\nRan 4 tests in 0s\nFAILED (errors=4)\n"), 1);
	assert_int_equal(total, 4);
	assert_int_equal(passed, 0);
}

static void
test_tap_counts(void **state)
{
	(void)state;
	assert_int_equal(counts(FRONT_BENCH_TAP, "1..4\nok 1 - a\nnot ok 2 - b\n# not ok in a comment\nok 3 - c\nok 4 - d"), 1);
	assert_int_equal(passed, 3);
	assert_int_equal(total, 4);
	assert_int_equal(counts(FRONT_BENCH_TAP, "cc: error: x.c: No such file\n"), 0);
	assert_int_equal(total, 0);
	assert_int_equal(counts(FRONT_BENCH_TAP, " ok 1 indented does not count\nokay\n"), 0);
}

static void
test_metrics(void **state)
{
	const char *m = "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
			"# TYPE llamacpp:prompt_tokens_total counter\n"
			"llamacpp:prompt_tokens_total 1234\n"
			"llamacpp:prompt_tokens_seconds 5.5\n"
			"llamacpp:tokens_predicted_total_x 1\n"
			"llamacpp:tokens_predicted_total 56\n";
	double p = -1, g = -1;

	(void)state;
	assert_int_equal(front_bench_parse_metrics(m, strlen(m), &p, &g), 0);
	assert_true(p == 1234);
	assert_true(g == 56);
	assert_int_equal(front_bench_metric(m, strlen(m), "llamacpp:prompt_tokens_seconds", &p), 0);
	assert_true(p == 5.5);
	assert_int_equal(front_bench_metric(m, strlen(m), "llamacpp:requests_processing", &p), -1);
	assert_int_equal(front_bench_parse_metrics("llamacpp:prompt_tokens_total 3\n", 31, &p, &g), -1);
	assert_int_equal(front_bench_parse_metrics("", 0, &p, &g), -1);
}

static void
test_hearth_result(void **state)
{
	const char *out = "{\"type\":\"system\"}\nnot json\n"
			  "{\"type\":\"result\",\"num_turns\":6,\"routing\":{\"decisions\":["
			  "{\"target\":\"claude\",\"blocked\":false},{\"target\":\"claude\",\"blocked\":true},"
			  "{\"target\":\"local\"},{\"target\":\"claude\"}],\"cost_usd\":0.5}}\n";
	struct front_bench_hearth h;

	(void)state;
	assert_int_equal(front_bench_parse_hearth(out, strlen(out), &h), 1);
	assert_int_equal(h.steps, 6);
	assert_int_equal(h.escalations, 2);
	assert_true(h.cost_usd == 0.5);
	/* no routing: one escalation when the turn went to Claude, cost 0 */
	out = "{\"type\":\"result\",\"num_turns\":2,\"route\":{\"target\":\"claude\"}}";
	assert_int_equal(front_bench_parse_hearth(out, strlen(out), &h), 1);
	assert_int_equal(h.escalations, 1);
	assert_true(h.cost_usd == 0);
	out = "{\"type\":\"assistant\"}\nplain text answer\n";
	assert_int_equal(front_bench_parse_hearth(out, strlen(out), &h), 0);
	assert_int_equal(h.steps, -1);
	assert_int_equal(h.escalations, -1);
}

static char tmp[64];

static void
put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", tmp, rel);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static void
test_problems_and_trees(void **state)
{
	struct front_bench_problem *v;
	struct buf a = BUF_INIT, b = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	char dst[64];
	long n;

	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/test_bench.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	buf_addf(&p, "%s/b", tmp);
	assert_int_equal(mkdir(p.data, 0755), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/a", tmp);
	assert_int_equal(mkdir(p.data, 0755), 0);
	buf_addf(&p, "/tests");
	assert_int_equal(mkdir(p.data, 0755), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/a/.reference", tmp);
	assert_int_equal(mkdir(p.data, 0755), 0);
	put("a/bench.json", "{\"test\":\"make test\",\"format\":\"tap\",\"tests\":3,\"level\":2,\"summary\":\"s\"}");
	put("a/PROBLEM.md", "fix it");
	put("a/tests/t.c", "int x;");
	put("a/.reference/fix.patch", "secret");
	put("b/bench.json", "{\"test\":\"python3 -m unittest\",\"tests\":5,\"level\":1}");
	put("b/PROBLEM.md", "fix b");

	assert_int_equal(n = front_bench_problems_load(tmp, NULL, &v, &e), 2);
	assert_string_equal(v[0].name, "b"); /* level 1 first */
	assert_int_equal(v[0].format, FRONT_BENCH_UNITTEST);
	assert_int_equal(v[1].format, FRONT_BENCH_TAP);
	assert_int_equal(v[1].tests, 3);
	assert_string_equal(v[1].summary, "s");
	front_bench_problems_free(v, n);
	assert_int_equal(n = front_bench_problems_load(tmp, "a", &v, &e), 1);
	front_bench_problems_free(v, n);
	assert_int_equal(front_bench_problems_load(tmp, "a,zz", &v, &e), -1);
	assert_non_null(strstr(e.msg, "\"zz\""));

	/* the copy leaves the reference and bench.json out */
	snprintf(dst, sizeof dst, "/tmp/test_bench_dst.XXXXXX");
	assert_non_null(mkdtemp(dst));
	buf_reset(&p);
	buf_addf(&p, "%s/a", tmp);
	assert_int_equal(front_bench_copy(p.data, dst, &e), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/.reference", dst);
	assert_int_equal(access(p.data, F_OK), -1);
	buf_reset(&p);
	buf_addf(&p, "%s/bench.json", dst);
	assert_int_equal(access(p.data, F_OK), -1);
	buf_reset(&p);
	buf_addf(&p, "%s/tests/t.c", dst);
	assert_int_equal(access(p.data, R_OK), 0);

	/* snapshots: equal copies agree; a changed byte, a new file, a mode differ */
	buf_reset(&p);
	buf_addf(&p, "%s/tests", dst);
	assert_int_equal(front_bench_snapshot(p.data, &a, 1 << 20, &e), 0);
	{
		struct buf q = BUF_INIT;

		buf_addf(&q, "%s/a/tests", tmp);
		assert_int_equal(front_bench_snapshot(q.data, &b, 1 << 20, &e), 0);
		buf_release(&q);
	}
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	buf_reset(&p);
	buf_addf(&p, "%s/tests/t.c", dst);
	{
		FILE *f = fopen(p.data, "w");

		fputs("int y;", f);
		fclose(f);
	}
	buf_reset(&p);
	buf_addf(&p, "%s/tests", dst);
	assert_int_equal(front_bench_snapshot(p.data, &b, 1 << 20, &e), 0);
	assert_true(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
	buf_reset(&p);
	buf_addf(&p, "%s/tests/t.c", dst);
	{
		FILE *f = fopen(p.data, "w");

		fputs("int x;", f);
		fclose(f);
	}
	assert_int_equal(chmod(p.data, 0700), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/tests", dst);
	assert_int_equal(front_bench_snapshot(p.data, &b, 1 << 20, &e), 0);
	assert_true(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
	/* too big */
	assert_int_equal(front_bench_snapshot(p.data, &b, 3, &e), -1);

	assert_int_equal(front_bench_rmtree(dst, &e), 0);
	assert_int_equal(access(dst, F_OK), -1);
	assert_int_equal(front_bench_rmtree(tmp, &e), 0);
	buf_release(&a);
	buf_release(&b);
	buf_release(&p);
}

static void
test_bad_bench_json(void **state)
{
	struct front_bench_problem pr;
	struct err e = ERR_INIT;

	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/test_bench.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	put("PROBLEM.md", "x");
	put("bench.json", "{\"test\":\"x\",\"format\":\"junit\",\"tests\":3}");
	assert_int_equal(front_bench_problem_load(&pr, tmp, &e), -1);
	assert_non_null(strstr(e.msg, "\"unittest\" or \"tap\""));
	put("bench.json", "{\"test\":\"x\"}");
	assert_int_equal(front_bench_problem_load(&pr, tmp, &e), -1);
	assert_non_null(strstr(e.msg, "\"tests\""));
	put("bench.json", "{\"test\":");
	assert_int_equal(front_bench_problem_load(&pr, tmp, &e), -1);
	assert_non_null(strstr(e.msg, "bench.json"));
	assert_int_equal(front_bench_rmtree(tmp, &e), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unittest_counts),
		cmocka_unit_test(test_tap_counts),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_hearth_result),
		cmocka_unit_test(test_problems_and_trees),
		cmocka_unit_test(test_bad_bench_json),
	};
	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * fuzz_bench: libFuzzer harness for what `hearth bench` reads from
 * outside (front/bench_problem.h): a test command's output (unittest and
 * tap), a server's /metrics text and an agent's json output.  The first
 * byte picks the reader.  Checks: the counts are never negative, passed
 * never exceeds total, a count that was not found leaves 0/0; metrics
 * are read without overreading; hearth's figures are -1 (absent) or >= 0, with
 * escalations <= the decisions present, and cost finite.
 *
 * dict: "Ran "
 * dict: " tests in "
 * dict: "FAILED (failures="
 * dict: "errors="
 * dict: "unexpected successes="
 * dict: "ok "
 * dict: "not ok "
 * dict: "llamacpp:prompt_tokens_total "
 * dict: "llamacpp:tokens_predicted_total "
 * dict: "{\"type\":\"result\""
 * dict: "\"num_turns\":"
 * dict: "\"routing\":{\"decisions\":["
 * dict: "{\"target\":\"claude\",\"blocked\":false}"
 * dict: "\"cost_usd\":"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "front/bench_problem.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s;
	size_t n;
	char *copy;

	if (size < 1)
		return 0;
	json_init();
	n = size - 1;
	/* an exact-size heap copy, so ASan sees a read past the end */
	copy = malloc(n ? n : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, n);
	s = copy;
	switch (data[0] % 3) {
	case 0: {
		long passed = -7, total = -7;
		enum front_bench_format f = (data[0] / 3) % 2 ? FRONT_BENCH_TAP : FRONT_BENCH_UNITTEST;
		int found = front_bench_parse_counts(f, s, n, &passed, &total);

		if (passed < 0 || total < 0 || passed > total)
			abort();
		if (!found && (passed || total))
			abort();
		break;
	}
	case 1: {
		double p = -1, g = -1;

		/* memory safety only: any number strtod reads is a value (the caller clamps deltas) */
		if (front_bench_parse_metrics(s, n, &p, &g) < 0 && n == 0 && (p != -1 || g != -1))
			abort();
		break;
	}
	default: {
		struct front_bench_hearth h;
		int found = front_bench_parse_hearth(s, n, &h);

		if (!found && (h.steps != -1 || h.escalations != -1 || h.cost_usd != -1))
			abort();
		if (found && (h.escalations < 0 || h.steps < -1))
			abort();
		break;
	}
	}
	free(copy);
	return 0;
}

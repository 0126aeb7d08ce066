/*
 * fuzz_route: libFuzzer harness for the routing settings
 * (route/config.c, route_config_apply_text: the text of a settings file)
 * and what they drive: the loaded policy (patterns, regexes, rules,
 * privacy globs, test commands) decides a turn whose task is the input
 * itself, and matches the input's first line as a path and a command.
 * Checks: a failure says why; the decision's strings are NUL-terminated
 * and its target and mode named; the policy frees cleanly after a second
 * file is merged on top.
 *
 * dict: "\"routing\""
 * dict: "\"mode\""
 * dict: "\"patterns\""
 * dict: "\"pattern\""
 * dict: "\"regex\":true"
 * dict: "\"handoff\""
 * dict: "\"consult\""
 * dict: "\"context_fraction\""
 * dict: "\"rules\""
 * dict: "\"tool_failures\""
 * dict: "\"repeated_call\""
 * dict: "\"threshold\""
 * dict: "\"privacy\""
 * dict: "\"spend_cap\""
 * dict: "\"prices\""
 * dict: "\"test_commands\""
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "route/config.h"
#include "route/privacy.h"
#include "route/route.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct route_policy p;
	struct route_signals sig;
	struct route_decision d;
	struct buf warnings = BUF_INIT, task = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	int k;

	route_config_defaults(&p);
	if (route_config_apply_text(&p, (const char *)data, size, "fuzz.json", &warnings, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	err_clear(&e);
	(void)route_config_apply_text(&p, (const char *)data, size, "again.json", &warnings, &e);
	FUZZ_CHECK(!warnings.len || warnings.data[warnings.len - 1] == '\n');

	buf_add(&task, (const char *)data, size);
	memset(&sig, 0, sizeof sig);
	sig.task = task.data;
	sig.prompt_tokens = (long)size * 100;
	sig.n_ctx = 4096;
	sig.have_key = 1;
	sig.consecutive_tool_failures = size ? data[0] % 5 : 0;
	for (k = ROUTE_REQ_NONE; k <= ROUTE_REQ_AT_CLAUDE; k++) {
		memset(&d, 'x', sizeof d);
		route_decide(&p, &sig, (enum route_request)k, &d);
		FUZZ_CHECK(memchr(d.reason, 0, sizeof d.reason) != NULL);
		FUZZ_CHECK(memchr(d.blocked_why, 0, sizeof d.blocked_why) != NULL);
		FUZZ_CHECK(route_target_name(d.target) != NULL);
		FUZZ_CHECK(route_config_mode_name(d.mode) != NULL);
	}
	buf_reset(&task);
	buf_add(&task, (const char *)data, strcspn(task.data, "\n"));
	(void)route_privacy_match(&p, task.data);
	(void)route_privacy_command(&p, task.data);
	(void)route_is_test_command(&p, task.data);
	if (route_privacy_redact(&p, task.data, "secret\n", 7, &out))
		FUZZ_CHECK(out.len && !strstr(out.data, "secret\n"));
	buf_release(&out);
	buf_release(&task);
	buf_release(&warnings);
	route_config_release(&p);
	return 0;
}

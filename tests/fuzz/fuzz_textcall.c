/*
 * fuzz_textcall: libFuzzer harness for tool-call recovery.  Any bytes:
 * no crash, no leak, and every recovered call has a non-empty name and
 * arguments that parse as a JSON object; the visible text is no longer
 * than the input.  The first byte picks the parameter typing rule.
 *
 * Tokens for libFuzzer's -dict (mk/fuzz.mk extracts the "dict:" lines):
 * dict: "<tool_call>"
 * dict: "</tool_call>"
 * dict: "<function="
 * dict: "</function>"
 * dict: "<parameter="
 * dict: "</parameter>"
 * dict: "```"
 * dict: "```json\x0a"
 * dict: "<think>"
 * dict: "</think>"
 * dict: "{\"name\":"
 * dict: "\"arguments\":"
 * dict: "\"parameters\":"
 * dict: "\"function\":"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "llm/textcall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Typing callback: a fixed answer chosen by the input. */
static int
typing(void *ctx, const char *tool, const char *param)
{
	(void)tool;
	(void)param;
	return *(const int *)ctx;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct textcall_result r;
	int rule;
	size_t i;
	cJSON *v;

	if (size == 0)
		return 0;
	rule = data[0] % 4 - 2; /* -2: no callback; -1, 0, 1 */
	textcall_run((const char *)data + 1, size - 1, rule == -2 ? NULL : typing, &rule, &r);
	for (i = 0; i < r.ncalls; i++) {
		if (!r.calls[i].name[0])
			abort();
		v = json_parse(r.calls[i].args_json, strlen(r.calls[i].args_json), NULL);
		if (!cJSON_IsObject(v))
			abort();
		cJSON_Delete(v);
	}
	if (r.text.len > size - 1 || r.reasoning.len > size - 1)
		abort();
	textcall_release(&r);
	return 0;
}

/*
 * agent/repair: tool calls from imperfect local models — what the agent does
 * between "the model asked for something" and "a tool runs".
 *
 * Recovery: tool calls written as text (textcall) with each argument
 * typed by the tool's schema (a Qwen3-Coder XML value for a string
 * parameter stays a string even when it looks like a number).
 * Checking: the tool exists among the enabled ones, the arguments are a
 * JSON object, and they fit the schema; otherwise one line that names the
 * exact problem and, for a known tool, the schema it expects.  Pure.
 */
#ifndef HEARTH_AGENT_REPAIR_H
#define HEARTH_AGENT_REPAIR_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "llm/textcall.h"

struct tool;

struct agent_repair_tools {
	const struct tool *const *v; /* enabled tools, fixed order */
	size_t n;
};

/* Tool calls written in text (out as textcall_run; release with textcall_release). */
void agent_repair_recover(const struct agent_repair_tools *t, const char *text, size_t n,
		     struct textcall_result *out);
/* How many tool calls the text holds (nothing kept). */
size_t agent_repair_count(const struct agent_repair_tools *t, const char *text, size_t n);
/* The enabled tool called name, or NULL. */
const struct tool *agent_repair_tool(const struct agent_repair_tools *t, const char *name);
/*
 * Check a call.  Valid: returns the parsed arguments (the caller frees
 * them with cJSON_Delete).  Invalid: NULL, and `problem` holds
 * "error: …" plus the expected schema when the tool is known.
 */
cJSON *agent_repair_check(const struct agent_repair_tools *t, const char *name, const char *args,
		     size_t len, struct buf *problem);

#endif

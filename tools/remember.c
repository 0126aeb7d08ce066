/*
 * remember: keep a fact for later sessions (prompt/memory.h does the checks
 * and the atomic write).  The prompt of this session does not change (it
 * is frozen for the server's prompt cache); the entry is loaded at the
 * next session start or /reload.
 */
#include <cjson/cJSON.h>

#include "base/err.h"
#include "base/json.h"
#include "prompt/memory.h"
#include "llm/tool.h"

/* Validate and write one memory entry. */
static void
remember_start(struct tool_job *job, const cJSON *args)
{
	struct err e = ERR_INIT;

	if (prompt_memory_add(job->env->root, json_str(args, "kind"), json_str(args, "text"),
		       json_str(args, "path"), &job->out, &e) < 0) {
		tool_job_fail(job, "remember: %s", e.msg);
		return;
	}
	tool_job_done(job);
}

const struct tool tool_remember = {
	.name = "remember",
	.description =
		"Keep one short fact for later sessions. kind: user (who the user is, how they "
		"work), feedback (a correction or preference about how you work), project (a fact "
		"about this project), reference (where something is; give path). Use it when the "
		"user asks you to remember something or corrects you.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"kind\":{\"type\":\"string\",\"enum\":[\"user\",\"feedback\",\"project\",\"reference\"]},"
		"\"text\":{\"type\":\"string\",\"description\":\"The fact, one line\"},"
		"\"path\":{\"type\":\"string\",\"description\":\"A file or URL the fact refers to (optional)\"}},"
		"\"required\":[\"kind\",\"text\"],\"additionalProperties\":false}",
	.flags = 0,
	.start = remember_start,
	.cancel = NULL,
	.paths = tool_path_arg, /* confinement: a file it refers to */
};

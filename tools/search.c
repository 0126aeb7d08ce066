/*
 * tool_search: load deferred tools (see llm/toolset.h).  The model calls
 * it with a keyword; the matching tools' schemas are appended to the
 * tool list of every later request and the result names them.  Without a
 * toolset (deferral off) there is nothing to load and it says so.
 */
#include <cjson/cJSON.h>

#include "llm/tool.h"
#include "llm/toolset.h"

/* Search the deferred tools and load the matches. */
static void
search_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(args, "query");

	if (!cJSON_IsString(q) || !*q->valuestring) {
		tool_job_fail(job, "tool_search needs \"query\": a keyword such as outline, map, symbols, or * for every tool");
		return;
	}
	if (!job->env->toolset) {
		tool_job_fail(job, "every tool is already available; call the one you need");
		return;
	}
	if (toolset_search(job->env->toolset, q->valuestring, &job->out))
		buf_adds(&job->out, "these tools can be called from now on\n");
	tool_job_done(job);
}

const struct tool tool_search = {
	.name = "tool_search",
	.description =
		"Load a tool that is not loaded yet (see the system prompt) by name or keyword; "
		"* loads all.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"query\":{\"type\":\"string\"}},\"required\":[\"query\"]}",
	.flags = TOOL_READ_ONLY | TOOL_DISCOVERY,
	.start = search_start,
	.cancel = NULL,
};

/*
 * repo_map: the ranked map of definitions across the workspace (repomap.h),
 * so a model sees at a glance where the important code is.  Read-only; the
 * per-file cache makes a second call cheap.
 */
#include <math.h>

#include "repomap.h"
#include "tool.h"

/* The budget argument in tokens: absent or null = default, clamped by repomap. */
static size_t
budget_arg(const cJSON *args)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "budget");

	if (!cJSON_IsNumber(v) || isnan(v->valuedouble))
		return REPOMAP_DEFAULT_TOKENS;
	if (v->valuedouble < 0)
		return 0;
	if (v->valuedouble > REPOMAP_MAX_TOKENS)
		return REPOMAP_MAX_TOKENS;
	return (size_t)v->valuedouble;
}

/* Entry point. */
static void
repo_map_start(struct tool_job *job, const cJSON *args)
{
	struct err e = ERR_INIT;

	buf_adds(&job->out, "Repository map: files whose definitions other files use most come "
		 "first; each line is a definition's line number and signature.\n");
	if (repomap_build(job->env->root, budget_arg(args), &job->out, &e) < 0)
		tool_job_fail(job, "repo_map: %s", e.msg);
	else
		tool_job_done(job);
}

const struct tool tool_repo_map = {
	.name = "repo_map",
	.description =
		"Show a map of the repository: the definitions (functions, types, classes) of "
		"its source files with line numbers and signatures, the files whose symbols are "
		"used most by other files first, cut to a token budget. Use it to find your way "
		"in an unfamiliar repository, then outline or read the files you need.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"budget\":{\"type\":\"integer\",\"description\":\"Approximate size of the "
		"map in tokens (default 2000, at most 16000)\"}},"
		"\"additionalProperties\":false}",
	.flags = TOOL_READ_ONLY,
	.start = repo_map_start,
	.cancel = NULL,
};

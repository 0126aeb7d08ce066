/*
 * repo_map: the ranked map of definitions across the workspace (repomap/repomap.h),
 * so a model sees at a glance where the important code is.  Read-only; the
 * per-file cache makes a second call cheap.
 *
 * A cold map parses every file (0.7 s on 2,000 files here, seconds on
 * larger trees), so it is built on the worker thread (io/work.h) and the tool
 * finishes from the loop; every repomap_* call of the product goes through
 * that thread, which keeps repomap's cache single-threaded (the build
 * itself parses on that thread and helpers it starts and joins).  A job whose tool call was cancelled still runs to its
 * end (a parse cannot be interrupted; the cache it fills serves the next
 * call); its struct repo_map_run is then detached (job = NULL) and its
 * result dropped.  At shutdown the build gives up between files
 * (work_stopping).  Without a loop (unit tests) the map is built in place.
 */
#include <math.h>
#include <stdlib.h>

#include "repomap/repomap.h"
#include "llm/tool.h"
#include "io/work.h"
#include "base/xmalloc.h"

/* One map being built: owned by the worker from submit until repo_map_finish. */
struct repo_map_run {
	struct tool_job *job; /* NULL once cancelled: the result is dropped */
	char *root;           /* a copy: the job's env may be gone when the worker runs */
	size_t tokens;
	struct buf out;       /* the map (not job->out: the loop thread owns that) */
	struct err e;
	int rc;
	struct loop *loop;    /* the job's, for the save that follows */
};

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

/* The worker: build the map into the job's own buffer (touches nothing else). */
static void
repo_map_work(void *arg)
{
	struct repo_map_run *r = arg;

	repomap_defer_save(1); /* the answer first: repo_map_flush_work saves after */
	r->rc = repomap_build(r->root, r->tokens, &r->out, &r->e);
}

/* The worker, right after a build's job: write the map's disk cache (repomap_flush). */
static void
repo_map_flush_work(void *arg)
{
	(void)arg;
	repomap_flush();
}

static void
repo_map_flush_done(void *arg, int ran)
{
	(void)arg, (void)ran; /* not run (shutting down): repomap_cache_free writes it */
}

/* Back on the loop thread: hand the map to the tool job, unless it was cancelled. */
static void
repo_map_finish(void *arg, int ran)
{
	struct repo_map_run *r = arg;
	struct tool_job *job = r->job;

	if (job) {
		job->priv = NULL;
		if (!ran)
			tool_job_fail(job, "repo_map: not run: hearth is shutting down");
		else if (r->rc < 0)
			tool_job_fail(job, "repo_map: %s", r->e.msg);
		else {
			buf_add(&job->out, r->out.data, r->out.len);
			tool_job_done(job);
		}
	}
	if (ran) { /* the disk cache, after the answer (cancelled or not: the build is done) */
		struct err e = ERR_INIT;
		if (work_submit(r->loop, repo_map_flush_work, repo_map_flush_done, NULL, &e) < 0)
			(void)work_submit(NULL, repo_map_flush_work, repo_map_flush_done, NULL, &e);
	}
	buf_release(&r->out);
	free(r->root);
	free(r);
}

/* Entry point: the map is built on the worker thread (io/work.h); no loop: here and now. */
static void
repo_map_start(struct tool_job *job, const cJSON *args)
{
	struct repo_map_run *r = xcalloc(1, sizeof *r);
	struct err e = ERR_INIT;

	buf_adds(&job->out, "Repository map: files whose definitions other files use most come "
		 "first; each line is a definition's line number and signature.\n");
	r->job = job;
	r->root = xstrdup(job->env->root);
	r->tokens = budget_arg(args);
	r->loop = job->env->loop;
	buf_init(&r->out, 0);
	job->priv = r;
	if (work_submit(job->env->loop, repo_map_work, repo_map_finish, r, &e) < 0)
		/* no worker: block the loop rather than fail (in place, after any running job) */
		(void)work_submit(NULL, repo_map_work, repo_map_finish, r, &e);
}

/* Abort: the parse cannot be interrupted; its result is dropped when it ends. */
static void
repo_map_cancel(struct tool_job *job)
{
	struct repo_map_run *r = job->priv;

	if (!r || job->finished)
		return;
	r->job = NULL;
	job->priv = NULL;
	buf_adds(&job->out, "[aborted]");
	job->is_error = 1;
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
	.cancel = repo_map_cancel,
};

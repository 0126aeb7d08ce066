/*
 * find: list paths matching a glob under a directory.
 *
 * The walk (fs_walk) yields entries in sorted order, skipping .git and
 * .gitignore'd paths.  Each entry's path is tried against the pattern
 * twice: relative to the searched directory and relative to the workspace
 * root, so both find{"*.c", path:"src"} and find{"src/ ** / *.c"} (without
 * the spaces) work.
 * Matches are printed relative to the root (directories with a trailing
 * '/') until FIND_MAX_RESULTS or FIND_MAX_OUT, then only counted.
 *
 * The walk runs on the worker thread (io/work.h) so keys and redraws stay
 * live on a large tree; it reads only directory entries (types_only: no
 * stat per entry) and settles tracked paths through the git index
 * (base/fs.h).  A cancelled call ends at once; its walk stops at the next
 * entry and the result is dropped.  Without a loop it runs in place.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "io/work.h"
#include "llm/tool.h"
#include "base/workspace.h"

#define FIND_MAX_RESULTS 500
#define FIND_MAX_OUT (50 * 1024)

struct find {
	struct tool_job *job; /* loop thread; NULL once cancelled */
	char *root;           /* copies: the job's env may be gone when the worker runs */
	char *pattern;
	char *start;          /* searched directory, absolute */
	size_t slen;
	size_t matches, shown;
	int capped;
	atomic_int stop;      /* set by cancel: the walk ends at the next entry */
	struct buf out;       /* the worker's (job->out belongs to the loop thread) */
	struct fs_walk w;
	struct err e;
	int rc;
};

/* Path of abs relative to the searched directory. */
static const char *
rel_to_start(const struct find *f, const char *abs)
{
	if (strncmp(abs, f->start, f->slen) == 0 && abs[f->slen] == '/')
		return abs + f->slen + 1;
	if (f->slen == 1 && f->start[0] == '/')
		return abs + 1;
	return abs;
}

/* Walk visitor: match and print or count. */
static int
visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct find *f = arg;
	struct buf *out = &f->out;
	size_t before = out->len;
	int dir = S_ISDIR(st->st_mode);

	if (atomic_load(&f->stop) || work_stopping())
		return 1;
	if (!fs_glob_match(f->pattern, rel_to_start(f, abs)) &&
	    !fs_glob_match(f->pattern, rel))
		return 0;
	f->matches++;
	if (f->capped)
		return 0;
	fs_add_utf8(out, rel, strlen(rel));
	buf_adds(out, dir ? "/\n" : "\n");
	if (f->shown >= FIND_MAX_RESULTS || out->len > FIND_MAX_OUT) {
		buf_setlen(out, before);
		f->capped = 1;
		return 0;
	}
	f->shown++;
	return 0;
}

/* Final note: caps, walk limit, or "nothing found". */
static void
add_note(struct find *f, const char *where, const struct fs_walk *w)
{
	struct buf *out = &f->out;

	if (f->matches == 0) {
		buf_addf(out, "no paths match \"%s\" under %s", f->pattern, where);
		if (w->ignored)
			buf_addf(out, " (%zu entries ignored by .gitignore were skipped)",
				 w->ignored);
	}
	if (f->capped)
		buf_addf(out, "[showing %zu of %zu matches; use a more specific pattern or a "
			 "narrower path]", f->shown, f->matches);
	fs_walk_note(w, out);
}

/* On the worker: the walk, into f->out. */
static void
find_work(void *arg)
{
	struct find *f = arg;

	f->w.root = f->root;
	f->w.visit = visit;
	f->w.arg = f;
	f->w.types_only = 1;
	f->rc = fs_walk(&f->w, f->start, &f->e);
	if (f->rc == 0)
		add_note(f, workspace_rel(f->root, f->start), &f->w);
}

/* Free a run. */
static void
find_free(struct find *f)
{
	free(f->root);
	free(f->pattern);
	free(f->start);
	buf_release(&f->out);
	free(f);
}

/* Back on the loop: hand the result to the job, unless it was cancelled. */
static void
find_finish(void *arg, int ran)
{
	struct find *f = arg;
	struct tool_job *job = f->job;
	const char *where = workspace_rel(f->root, f->start);

	if (!job) {
		find_free(f);
		return;
	}
	job->priv = NULL;
	if (!ran)
		tool_job_fail(job, "find: not run: hearth is shutting down");
	else if (f->rc < 0 && f->e.code == ENOENT)
		tool_job_fail(job, "%s does not exist; use ls to see what is there", where);
	else if (f->rc < 0)
		tool_job_fail(job, "find %s", f->e.msg);
	else {
		buf_add(&job->out, f->out.data, f->out.len);
		tool_job_done(job);
	}
	find_free(f);
}

/* Entry point: the walk runs on the worker thread; without a loop, here and now. */
static void
find_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *pat = cJSON_GetObjectItemCaseSensitive(args, "pattern");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;
	struct find *f;

	if (!cJSON_IsString(pat) || !*pat->valuestring) {
		tool_job_fail(job, "find needs a non-empty \"pattern\" (string), e.g. \"*.c\"");
		return;
	}
	if (workspace_resolve(job->env->root, job->env->allow_outside,
		       cJSON_IsString(path) ? path->valuestring : NULL, &abs, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		buf_release(&abs);
		return;
	}
	f = xcalloc(1, sizeof *f);
	f->job = job;
	f->root = xstrdup(job->env->root);
	f->pattern = xstrdup(pat->valuestring);
	f->slen = abs.len;
	f->start = buf_detach(&abs, NULL);
	atomic_init(&f->stop, 0);
	buf_init(&f->out, 0);
	job->priv = f;
	if (work_submit(job->env->loop, find_work, find_finish, f, &e) < 0)
		(void)work_submit(NULL, find_work, find_finish, f, &e);
}

/* Abort: the walk stops at its next entry; its result is dropped. */
static void
find_cancel(struct tool_job *job)
{
	struct find *f = job->priv;

	if (!f || job->finished)
		return;
	atomic_store(&f->stop, 1);
	f->job = NULL;
	job->priv = NULL;
	buf_adds(&job->out, "[aborted]");
	job->is_error = 1;
	tool_job_done(job);
}

/* The header: "PATTERN" in PATH. */
static void
find_describe(const cJSON *args, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path");

	buf_addch(out, '"');
	tool_add_short(out, pat ? pat : "?", 80);
	buf_adds(out, "\" in ");
	tool_add_short(out, path && *path ? path : ".", 80);
}

/* After the call: "14 files, 2 dirs" (the total when capped). */
static void
find_summary(const cJSON *args, const char *text, int is_error, struct buf *out)
{
	const char *p = text, *cap = strstr(text, "[showing ");
	long files = 0, dirs = 0;
	size_t shown, total;

	(void)args;
	if (is_error)
		return;
	if (cap && sscanf(cap, "[showing %zu of %zu matches", &shown, &total) == 2) {
		buf_addf(out, "%zu matches (%zu shown)", total, shown);
		return;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl || *p == '[')
			break;
		if (nl > p)
			*(nl[-1] == '/' ? &dirs : &files) += 1;
		p = nl + 1;
	}
	if (!files && !dirs)
		buf_adds(out, "no matches");
	else if (!dirs)
		buf_addf(out, "%ld file%s", files, files == 1 ? "" : "s");
	else
		buf_addf(out, "%ld file%s, %ld dir%s", files, files == 1 ? "" : "s", dirs,
			 dirs == 1 ? "" : "s");
}

/* Named tool_find_files: tool_find() is the registry lookup. */
const struct tool tool_find_files = {
	.name = "find",
	.description =
		"Find files and directories by name with a glob. A pattern without '/' matches "
		"the name at any depth (*.c); with '/' it matches the path, and ** matches any "
		"number of directories (src/**/*.h); {a,b} gives alternatives. Skips .git and "
		".gitignore'd paths. Prints paths sorted, directories with a trailing '/', at "
		"most 500.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"pattern\":{\"type\":\"string\",\"description\":\"Glob, e.g. *.c, "
		"src/**/*.{c,h} or Makefile\"},"
		"\"path\":{\"type\":\"string\",\"description\":\"Directory to search "
		"(default: workspace root)\"}},"
		"\"required\":[\"pattern\"],\"additionalProperties\":false}",
	.flags = TOOL_READ_ONLY,
	.start = find_start,
	.cancel = find_cancel,
	.paths = tool_path_arg,
	.describe = find_describe,
	.summary = find_summary,
};

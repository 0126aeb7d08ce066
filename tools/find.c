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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/fs.h"
#include "base/json.h"
#include "llm/tool.h"
#include "base/workspace.h"

#define FIND_MAX_RESULTS 500
#define FIND_MAX_OUT (50 * 1024)

struct find {
	struct tool_job *job;
	const char *pattern;
	const char *start; /* searched directory, absolute */
	size_t slen;
	size_t matches, shown;
	int capped;
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
	struct buf *out = &f->job->out;
	size_t before = out->len;
	int dir = S_ISDIR(st->st_mode);

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

/* Start a new line unless out is empty or already at one. */
static void
line_break(struct buf *out)
{
	if (out->len && out->data[out->len - 1] != '\n')
		buf_addch(out, '\n');
}

/* Final note: caps, walk limit, or "nothing found". */
static void
add_note(struct find *f, const char *where, const struct fs_walk *w)
{
	struct buf *out = &f->job->out;

	if (f->matches == 0) {
		buf_addf(out, "no paths match \"%s\" under %s", f->pattern, where);
		if (w->ignored)
			buf_addf(out, " (%zu entries ignored by .gitignore were skipped)",
				 w->ignored);
	}
	if (f->capped)
		buf_addf(out, "[showing %zu of %zu matches; use a more specific pattern or a "
			 "narrower path]", f->shown, f->matches);
	if (w->truncated) {
		line_break(out);
		buf_addf(out, "[stopped after %zu entries; pass a narrower path]",
			 w->max_entries);
	}
}

/* Entry point. */
static void
find_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *pat = cJSON_GetObjectItemCaseSensitive(args, "pattern");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	struct find f = { job, NULL, NULL, 0, 0, 0, 0 };
	struct fs_walk w = { job->env->root, visit, &f, 0, 0, 0 };
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;
	const char *where;

	if (!cJSON_IsString(pat) || !*pat->valuestring) {
		tool_job_fail(job, "find needs a non-empty \"pattern\" (string), e.g. \"*.c\"");
		return;
	}
	f.pattern = pat->valuestring;
	if (workspace_resolve(job->env->root, job->env->allow_outside,
		       cJSON_IsString(path) ? path->valuestring : NULL, &abs, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		goto out;
	}
	f.start = abs.data;
	f.slen = abs.len;
	where = workspace_rel(job->env->root, abs.data);
	if (fs_walk(&w, abs.data, &e) < 0) {
		if (e.code == ENOENT)
			tool_job_fail(job, "%s does not exist; use ls to see what is there", where);
		else
			tool_job_fail(job, "find %s", e.msg);
		goto out;
	}
	add_note(&f, where, &w);
	tool_job_done(job);
out:
	buf_release(&abs);
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
	.cancel = NULL,
	.paths = tool_path_arg,
	.describe = find_describe,
	.summary = find_summary,
};

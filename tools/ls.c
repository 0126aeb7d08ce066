/*
 * ls: list one directory (not recursive), or describe one file.
 *
 * Entries are read whole, sorted with strcmp and printed one per line:
 * directories with a trailing '/', symlinks as "name -> target", other
 * files with their size.  Hidden entries are shown (.git included: this is
 * a plain listing, not a search).  Output stops at LS_MAX_ENTRIES or
 * LS_MAX_OUT with a note giving the total.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "llm/tool.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

#define LS_MAX_ENTRIES 1000
#define LS_MAX_OUT (50 * 1024)

/* Order for qsort over names. */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir, without "." and ".."; NULL + errno when unreadable. */
static char **
list_names(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v;
	size_t cap = 16;

	*n = 0;
	if (!d)
		return NULL;
	v = xmalloc(cap * sizeof *v);
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(v, *n, sizeof *v, cmp_names);
	return v;
}

/* One line for the entry `name` whose full path is in path. */
static void
describe(struct buf *out, const char *name, const char *path)
{
	struct stat st;
	char target[4096];
	ssize_t n;

	fs_add_utf8(out, name, strlen(name));
	if (lstat(path, &st) < 0) {
		buf_adds(out, "  (unreadable)\n");
	} else if (S_ISDIR(st.st_mode)) {
		buf_adds(out, "/\n");
	} else if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof target - 1);
		buf_adds(out, " -> ");
		fs_add_utf8(out, target, n > 0 ? (size_t)n : 0);
		buf_addch(out, '\n');
	} else if (S_ISREG(st.st_mode)) {
		buf_addf(out, "  %jd bytes\n", (intmax_t)st.st_size);
	} else {
		buf_adds(out, "  (special file)\n");
	}
}

/* List the directory abs. */
static void
list_dir(struct tool_job *job, const char *abs, const char *rel)
{
	struct buf path = BUF_INIT, *out = &job->out;
	size_t n, i, shown = 0, before;
	char **names = list_names(abs, &n);

	if (!names) {
		tool_job_fail(job, "ls %s: %s", rel, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (shown == i) {
			buf_reset(&path);
			buf_addf(&path, "%s/%s", abs, names[i]);
			before = out->len;
			describe(out, names[i], path.data);
			if (shown >= LS_MAX_ENTRIES || out->len > LS_MAX_OUT)
				buf_setlen(out, before);
			else
				shown++;
		}
		free(names[i]);
	}
	free(names);
	buf_release(&path);
	if (n == 0)
		buf_addf(out, "%s is an empty directory", rel);
	else if (shown < n)
		buf_addf(out, "[showing %zu of %zu entries; use find with a pattern to narrow]",
			 shown, n);
	tool_job_done(job);
}

/* Entry point: a directory is listed, a file described. */
static void
ls_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	const char *rel;

	if (workspace_resolve(job->env->root, job->env->allow_outside,
		       cJSON_IsString(path) ? path->valuestring : NULL, &abs, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		goto out;
	}
	rel = workspace_rel(job->env->root, abs.data);
	if (lstat(abs.data, &st) < 0) {
		if (errno == ENOENT)
			tool_job_fail(job, "%s does not exist; use find to search for it", rel);
		else
			tool_job_fail(job, "ls %s: %s", rel, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		list_dir(job, abs.data, rel);
	} else {
		describe(&job->out, rel, abs.data);
		tool_job_done(job);
	}
out:
	buf_release(&abs);
}

/* The header: the path (the workspace root when none). */
static void
ls_describe(const cJSON *args, struct buf *out)
{
	const char *path = json_str(args, "path");

	tool_add_short(out, path && *path ? path : ".", 120);
}

/* After the call: "12 entries (3 dirs)" (the total when capped). */
static void
ls_summary(const cJSON *args, const char *text, int is_error, struct buf *out)
{
	const char *p = text, *cap = strstr(text, "[showing ");
	long n = 0, dirs = 0;
	size_t shown, total;

	(void)args;
	if (is_error || strstr(text, " is an empty directory")) {
		if (!is_error)
			buf_adds(out, "empty");
		return;
	}
	if (cap && sscanf(cap, "[showing %zu of %zu entries", &shown, &total) == 2) {
		buf_addf(out, "%zu entries (%zu shown)", total, shown);
		return;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl || *p == '[')
			break;
		n++;
		dirs += nl > p && nl[-1] == '/';
		p = nl + 1;
	}
	if (n == 1 && !dirs)
		return; /* one file described */
	buf_addf(out, "%ld entr%s", n, n == 1 ? "y" : "ies");
	if (dirs)
		buf_addf(out, " (%ld dir%s)", dirs, dirs == 1 ? "" : "s");
}

const struct tool tool_ls = {
	.name = "ls",
	.description =
		"List a directory (not recursive): entries sorted by name, directories with a "
		"trailing '/', files with their size in bytes, at most 1000 entries. Given a "
		"file, shows just that file. For recursive listings use find.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"Directory or file (default: "
		"workspace root)\"}},"
		"\"additionalProperties\":false}",
	.flags = TOOL_READ_ONLY,
	.start = ls_start,
	.cancel = NULL,
	.paths = tool_path_arg,
	.describe = ls_describe,
	.summary = ls_summary,
};

/*
 * write: create or replace a whole file.
 *
 * The old content (if any, and if it is text under WRITE_DIFF_MAX bytes) is
 * read first so the change can be shown as a unified diff (job->diff); a new
 * file is diffed against the empty text.  The file is replaced through
 * fs_write_atomic, keeping the old mode; identical content is not
 * rewritten.  The syntax check (code_check) compares the new content with the
 * old: added parse errors are noted in the result, or with
 * env->syntax_reject the write is refused.
 *
 * The stale-write guard (env->stale, see tools/stale.h): a new file may always be
 * created, but an existing file is overwritten only after the agent read it
 * (or wrote it) and only when it has not changed on disk since; the record
 * is updated after each write.  Identical content passes (nothing is lost).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diff.h"
#include "base/fs.h"
#include "repo/repo.h"
#include "tools/stale.h"
#include "code/check.h"
#include "llm/tool.h"
#include "base/workspace.h"

#define WRITE_DIFF_MAX (8u << 20)

/* Lines in s: newlines, plus one for an unterminated last line. */
static size_t
count_lines(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c + (n && s[n - 1] != '\n');
}

/* Create the parent directory of abs when missing. */
static int
make_parent(const char *abs, struct err *e)
{
	const char *slash = strrchr(abs, '/');
	struct buf dir = BUF_INIT;
	int rc;

	if (!slash || slash == abs)
		return 0;
	buf_add(&dir, abs, (size_t)(slash - abs));
	rc = fs_mkdirs(dir.data, e);
	buf_release(&dir);
	return rc;
}

/*
 * Old content for the diff: *exists says whether there is a file; *diffable
 * whether old holds its text.  -1 when the target cannot be written at all.
 */
static int
load_old(struct tool_job *job, const char *abs, const char *rel, struct buf *old,
	 int *exists, int *diffable)
{
	struct stat st;
	struct err e = ERR_INIT;

	*exists = stat(abs, &st) == 0;
	*diffable = 1;
	if (!*exists)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		tool_job_fail(job, "%s is a directory; give a file path", rel);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tool_job_fail(job, "%s is not a regular file; not written", rel);
		return -1;
	}
	if ((uintmax_t)st.st_size > WRITE_DIFF_MAX ||
	    buf_read_file(old, abs, WRITE_DIFF_MAX, &e) < 0 ||
	    fs_is_binary(old->data, old->len))
		*diffable = 0;
	return 0;
}

/* Report the write and attach the diff. */
static void
report(struct tool_job *job, const char *rel, const struct buf *old, const char *content,
       size_t len, int exists, int diffable, const struct buf *note)
{
	struct buf d = BUF_INIT;
	int added = 0, removed = 0;

	if (diffable)
		diff_unified(rel, old->data, old->len, content, len, &d, &added, &removed);
	if (d.len)
		job->diff = buf_detach(&d, NULL);
	buf_release(&d);
	buf_addf(&job->out, "%s %s (%zu lines, %zu bytes)", exists ? "overwrote" : "created", rel,
		 count_lines(content, len), len);
	if (exists && diffable)
		buf_addf(&job->out, "; +%d -%d lines", added, removed);
	if (note->len)
		buf_addf(&job->out, "\n%s", note->data);
	tool_job_done(job);
}

/* Resolve, load the old text, write atomically, report. */
static void
write_file(struct tool_job *job, const char *abs, const char *content)
{
	const char *rel = workspace_rel(job->env->root, abs);
	struct buf old = BUF_INIT, note = BUF_INIT;
	struct err e = ERR_INIT;
	size_t len = strlen(content);
	int exists, diffable, worse;

	if (load_old(job, abs, rel, &old, &exists, &diffable) < 0)
		goto out;
	if (exists && diffable && old.len == len && memcmp(old.data, content, len) == 0) {
		buf_addf(&job->out, "%s already has this content (%zu lines); nothing written",
			 rel, count_lines(content, len));
		tool_stale_wrote(job->env->stale, abs, content, len);
		tool_job_done(job);
		goto out;
	}
	if (exists && tool_stale_check(job->env->stale, abs, rel, "overwriting", &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		goto out;
	}
	worse = code_check_check(rel, exists && diffable ? old.data : NULL, old.len, content, len,
			     &note);
	if (worse && job->env->syntax_reject) {
		tool_job_fail(job, "%s\n%s not written: the content has syntax errors the old "
			      "file did not; fix them and try again", note.data, rel);
		goto out;
	}
	if (job->env->repo) /* so /undo can restore it, in git or not */
		repo_note_file(job->env->repo, abs, NULL);
	if (make_parent(abs, &e) < 0 || fs_write_atomic(abs, content, len, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		goto out;
	}
	tool_stale_wrote(job->env->stale, abs, content, len);
	report(job, rel, &old, content, len, exists, diffable, &note);
out:
	buf_release(&old);
	buf_release(&note);
}

/* Entry point. */
static void
write_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(args, "content");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;

	if (!cJSON_IsString(path) || !cJSON_IsString(content)) {
		tool_job_fail(job, "write needs \"path\" (string) and \"content\" (string)");
		return;
	}
	if (!*path->valuestring)
		tool_job_fail(job, "path is empty; give the file to write");
	else if (workspace_resolve(job->env->root, job->env->allow_outside, path->valuestring, &abs,
			    &e) < 0)
		tool_job_fail(job, "%s", e.msg);
	else
		write_file(job, abs.data, content->valuestring);
	buf_release(&abs);
}

const struct tool tool_write = {
	.name = "write",
	.description =
		"Create a file or replace its whole content. Missing parent directories are "
		"created. Prefer edit for changing part of an existing file. Returns the line "
		"and byte count.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"File path, relative to the "
		"workspace root or absolute\"},"
		"\"content\":{\"type\":\"string\",\"description\":\"The complete new content "
		"of the file\"}},"
		"\"required\":[\"path\",\"content\"],\"additionalProperties\":false}",
	.flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL,
	.start = write_start,
	.cancel = NULL,
};

/*
 * write: create or replace a whole file.
 *
 * The old content (if any, and if it is text under WRITE_DIFF_MAX bytes) is
 * read first so the change can be shown as a unified diff (job->diff); a new
 * file is diffed against the empty text.  The file is replaced through
 * fs_write_beneath (beneath the workspace, race-free), keeping the old mode; identical content is not
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
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diff.h"
#include "base/fs.h"
#include "base/json.h"
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

/*
 * The call and what it would do: write_plan fills it from the arguments,
 * then write_start writes content and write_preview shows the diff -- one
 * computation.
 */
struct wplan {
	struct buf abs;
	const char *rel;
	const char *content;
	size_t len;
	struct buf old;   /* the file's text when diffable */
	int exists;       /* there is a file */
	int diffable;     /* old holds its text */
	int same;         /* it already has this content: nothing to write */
	struct buf note;  /* the syntax check's note */
	int worse;        /* content adds syntax errors */
};

#define WPLAN_INIT { BUF_INIT, NULL, NULL, 0, BUF_INIT, 0, 0, 0, BUF_INIT, 0 }

static void
wplan_release(struct wplan *w)
{
	buf_release(&w->abs);
	buf_release(&w->old);
	buf_release(&w->note);
}

/*
 * Old content for the diff, read through an fd opened beneath the
 * workspace; -1 with why set when the target cannot be written at all.
 */
static int
load_old(struct wplan *w, const char *root, struct buf *why)
{
	struct stat st;
	struct err e = ERR_INIT;
	int fd = workspace_open(root, w->abs.data, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, &e);

	w->diffable = 1;
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (fd < 0 && errno != EACCES) {
		buf_adds(why, e.msg);
		return -1;
	}
	w->exists = 1;
	if (fd < 0) { /* unreadable: not diffable, still replaceable */
		w->diffable = 0;
		return 0;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		buf_addf(why, "write %s: %s", w->rel, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) {
		close(fd);
		buf_addf(why, S_ISDIR(st.st_mode) ? "%s is a directory; give a file path"
			 : "%s is not a regular file; not written", w->rel);
		return -1;
	}
	if ((uintmax_t)st.st_size > WRITE_DIFF_MAX ||
	    buf_read_fd(&w->old, fd, w->rel, WRITE_DIFF_MAX, &e) < 0 ||
	    fs_is_binary(w->old.data, w->old.len))
		w->diffable = 0;
	close(fd);
	return 0;
}

/*
 * Everything the call would do, short of writing: the arguments, the path,
 * the old file, the stale-write guard and the syntax check.  0 with w
 * filled; -1 with why set to the line for the model.
 */
static int
write_plan(const cJSON *args, const struct tool_env *env, struct wplan *w, struct buf *why)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(args, "content");
	struct err e = ERR_INIT;

	if (!cJSON_IsString(path) || !cJSON_IsString(content)) {
		buf_adds(why, "write needs \"path\" (string) and \"content\" (string)");
		return -1;
	}
	if (!*path->valuestring) {
		buf_adds(why, "path is empty; give the file to write");
		return -1;
	}
	if (workspace_resolve(env->root, env->allow_outside, path->valuestring, &w->abs, &e) < 0) {
		buf_adds(why, e.msg);
		return -1;
	}
	w->rel = workspace_rel(env->root, w->abs.data);
	w->content = content->valuestring;
	w->len = strlen(w->content);
	if (load_old(w, env->root, why) < 0)
		return -1;
	if (w->exists && w->diffable && w->old.len == w->len && memcmp(w->old.data, w->content, w->len) == 0) {
		w->same = 1;
		return 0;
	}
	if (w->exists && tool_stale_check(env->stale, w->abs.data, w->rel, "overwriting", &e) < 0) {
		buf_adds(why, e.msg);
		return -1;
	}
	w->worse = code_check_check(w->rel, w->exists && w->diffable ? w->old.data : NULL, w->old.len,
				    w->content, w->len, &w->note);
	if (w->worse && env->syntax_reject) {
		buf_addf(why, "%s\n%s not written: the content has syntax errors the old file did not; "
			 "fix them and try again", w->note.data, w->rel);
		return -1;
	}
	return 0;
}

/* The diff of the change (nothing when the old file is not text). */
static void
write_diff(const struct wplan *w, struct buf *d, int *added, int *removed)
{
	if (w->diffable)
		diff_unified(w->rel, w->old.data, w->old.len, w->content, w->len, d, added, removed);
}

/* Report the write and attach the diff. */
static void
report(struct tool_job *job, const struct wplan *w)
{
	struct buf d = BUF_INIT;
	int added = 0, removed = 0;

	write_diff(w, &d, &added, &removed);
	if (d.len)
		job->diff = buf_detach(&d, NULL);
	buf_release(&d);
	buf_addf(&job->out, "%s %s (%zu lines, %zu bytes)", w->exists ? "overwrote" : "created", w->rel,
		 count_lines(w->content, w->len), w->len);
	if (w->exists && w->diffable)
		buf_addf(&job->out, "; +%d -%d lines", added, removed);
	if (w->note.len)
		buf_addf(&job->out, "\n%s", w->note.data);
	tool_job_done(job);
}

/* Entry point: plan, then write atomically and report. */
static void
write_start(struct tool_job *job, const cJSON *args)
{
	struct wplan w = WPLAN_INIT;
	struct buf why = BUF_INIT;
	struct err e = ERR_INIT;

	if (write_plan(args, job->env, &w, &why) < 0) {
		tool_job_fail(job, "%s", why.data);
	} else if (w.same) {
		buf_addf(&job->out, "%s already has this content (%zu lines); nothing written",
			 w.rel, count_lines(w.content, w.len));
		tool_stale_wrote(job->env->stale, w.abs.data, w.content, w.len);
		tool_job_done(job);
	} else {
		if (job->env->repo) /* so /undo can restore it, in git or not */
			repo_note_file(job->env->repo, w.abs.data, NULL);
		if (fs_write_beneath(job->env->root, w.abs.data, w.content, w.len, FS_MKDIRS, &e) < 0) {
			tool_job_fail(job, "%s", e.msg);
		} else {
			tool_stale_wrote(job->env->stale, w.abs.data, w.content, w.len);
			report(job, &w);
		}
	}
	buf_release(&why);
	wplan_release(&w);
}

/*
 * preview: the diff write_start would make (same plan), or why it would
 * not.  Without env: the content as a new file (what a reloaded session shows).
 */
static int
write_preview(const cJSON *args, const struct tool_env *env, struct buf *out)
{
	struct wplan w = WPLAN_INIT;
	const char *path = json_str(args, "path"), *content = json_str(args, "content");
	int rc = TOOL_PREVIEW_DIFF;

	if (!env) {
		if (!path || !content)
			return TOOL_PREVIEW_NONE;
		diff_unified(path, "", 0, content, strlen(content), out, NULL, NULL);
		return TOOL_PREVIEW_DIFF;
	}
	if (write_plan(args, env, &w, out) < 0) {
		rc = TOOL_PREVIEW_NONE;
	} else if (w.same) {
		buf_addf(out, "%s already has this content; nothing to write", w.rel);
		rc = TOOL_PREVIEW_TEXT;
	} else if (!w.diffable) {
		buf_addf(out, "overwrite %s (%zu lines, %zu bytes); the old file is not text", w.rel,
			 count_lines(w.content, w.len), w.len);
		rc = TOOL_PREVIEW_TEXT;
	} else {
		write_diff(&w, out, NULL, NULL);
	}
	wplan_release(&w);
	return rc;
}

const struct tool tool_write = {
	.name = "write",
	.description =
		"Create a file or replace all of it. Use edit to change part of a file.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
		"\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}",
	.flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL | TOOL_SHOWS_FILE | TOOL_EDITS | TOOL_CORE,
	.start = write_start,
	.preview = write_preview,
	.paths = tool_path_arg,
	.cancel = NULL,
};

/*
 * read: show a window of a text file with line numbers, cat -n style.
 *
 * The file is streamed through a 64 KB buffer: lines before `offset` are
 * skipped with memchr, at most READ_MAX_LINE bytes of each shown line are
 * kept, and after the window the rest is only scanned for newlines to
 * count the total.  Memory is therefore bounded by the buffer, the window
 * and the output caps, whatever the file size; files over READ_MAX_FILE
 * are refused before any byte is read, binary ones after the first 8 KB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "tools/stale.h"
#include "llm/tool.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

#define READ_MAX_LINES 2000
#define READ_MAX_OUT (50 * 1024)
#define READ_MAX_LINE 2000
#define READ_MAX_FILE ((off_t)256 << 20)

struct reader {
	int fd;
	size_t pos, len;
	int eof;
	uint64_t hash; /* of every byte read so far (stale guard) */
	char chunk[65536];
};

/* Refill when the buffer is used up; 0 at end of file (or read error). */
static int
reader_fill(struct reader *r)
{
	ssize_t n;

	if (r->pos < r->len)
		return 1;
	if (r->eof)
		return 0;
	do
		n = read(r->fd, r->chunk, sizeof r->chunk);
	while (n < 0 && errno == EINTR);
	r->pos = 0;
	r->len = n > 0 ? (size_t)n : 0;
	r->eof = n <= 0;
	r->hash = tool_stale_hash(r->hash, r->chunk, r->len);
	return n > 0;
}

/*
 * Read the next line: keep up to `keep` of its bytes (newline excluded) in
 * line, and its full length in *full.  0 at end of file.
 */
static int
reader_line(struct reader *r, struct buf *line, size_t keep, size_t *full)
{
	const char *p, *nl;
	size_t n, take;
	int any = 0;

	buf_reset(line);
	*full = 0;
	while (reader_fill(r)) {
		any = 1;
		p = r->chunk + r->pos;
		nl = memchr(p, '\n', r->len - r->pos);
		n = nl ? (size_t)(nl - p) : r->len - r->pos;
		take = line->len < keep ? keep - line->len : 0;
		buf_add(line, p, n < take ? n : take);
		*full += n;
		r->pos += n + (nl != NULL);
		if (nl)
			return 1;
	}
	return any;
}

/* Append one numbered line, cut at READ_MAX_LINE bytes on a UTF-8 boundary. */
static void
add_numbered(struct buf *out, long no, struct buf *line, size_t full)
{
	size_t n = line->len;

	if (full > READ_MAX_LINE) {
		n = READ_MAX_LINE;
		while (n > 0 && ((unsigned char)line->data[n] & 0xC0) == 0x80)
			n--;
	} else if (n && line->data[n - 1] == '\r') {
		n--;
	}
	buf_addf(out, "%6ld\t", no);
	fs_add_utf8(out, line->data, n);
	if (full > READ_MAX_LINE)
		buf_addf(out, " [... line cut: %zu more bytes]", full - n);
	buf_addch(out, '\n');
}

struct window {
	long offset, limit; /* first line (1-based) and line count asked for */
	size_t max_out;     /* bytes of output at most: READ_MAX_OUT, less when the context is short */
	long shown_last;    /* last line written, offset - 1 when none */
	long total;         /* lines in the file */
	int capped;         /* stopped by READ_MAX_OUT */
};

/* Stream the file: skip, show the window, count the rest. */
static void
stream(struct reader *r, struct window *w, struct buf *out)
{
	struct buf line = BUF_INIT;
	size_t full, before;
	long no = 0;
	int showing;

	w->shown_last = w->offset - 1;
	for (;;) {
		showing = no + 1 >= w->offset && no + 1 < w->offset + w->limit && !w->capped;
		if (!reader_line(r, &line, showing ? READ_MAX_LINE + 4 : 0, &full))
			break;
		no++;
		if (!showing)
			continue;
		before = out->len;
		add_numbered(out, no, &line, full);
		if (out->len > w->max_out && no > w->offset) {
			buf_setlen(out, before);
			w->capped = 1;
			continue;
		}
		w->shown_last = no;
	}
	w->total = no;
	buf_release(&line);
}

/* Integer argument, or dflt when absent or null. */
static long
int_arg(const cJSON *args, const char *name, long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, name);

	if (!cJSON_IsNumber(v))
		return dflt;
	if (v->valuedouble > 1e15)
		return (long)1e15;
	if (v->valuedouble < -1e15 || v->valuedouble != v->valuedouble)
		return -1;
	return (long)v->valuedouble;
}

/* Checks before streaming; 0 when the file should be shown. */
static int
precheck(struct tool_job *job, int fd, const char *rel, struct stat *st)
{
	char sniff[FS_SNIFF];
	ssize_t n;

	if (S_ISDIR(st->st_mode)) {
		tool_job_fail(job, "%s is a directory; use ls to list it", rel);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		tool_job_fail(job, "%s is not a regular file; not read", rel);
		return -1;
	}
	if (st->st_size > READ_MAX_FILE) {
		tool_job_fail(job, "%s is %jd bytes, over read's 256 MB limit; use grep to "
			      "find what you need in it", rel, (intmax_t)st->st_size);
		return -1;
	}
	n = pread(fd, sniff, sizeof sniff, 0);
	if (n < 0) {
		tool_job_fail(job, "read %s: %s", rel, strerror(errno));
		return -1;
	}
	if (fs_is_binary(sniff, (size_t)n)) {
		tool_job_fail(job, "%s is a binary file (%jd bytes); not shown", rel,
			      (intmax_t)st->st_size);
		return -1;
	}
	return 0;
}

/* Say what was left out and how to get it. */
static void
add_note(struct buf *out, const struct window *w, const char *rel, long asked_limit)
{
	if (w->total == 0) {
		buf_addf(out, "%s is empty (0 lines)", rel);
		return;
	}
	if (w->shown_last >= w->total)
		return;
	buf_addf(out, "[showing lines %ld-%ld of %ld", w->offset, w->shown_last, w->total);
	if (w->capped && w->max_out < READ_MAX_OUT)
		buf_addf(out, "; output capped at %zu KB, what the context has room for (about %zu "
			 "tokens); read the rest in smaller parts with offset and limit", w->max_out /
			 1024, w->max_out / 3);
	else if (w->capped)
		buf_adds(out, "; output capped at 50 KB");
	else if (asked_limit > READ_MAX_LINES)
		buf_addf(out, "; at most %d lines per call", READ_MAX_LINES);
	buf_addf(out, "; call read with offset=%ld to continue]", w->shown_last + 1);
}

/* Open, check, stream, annotate. */
static void
show_file(struct tool_job *job, const char *root, const char *abs, const char *rel, long offset,
	  long limit)
{
	struct reader *r;
	struct window w = { offset, limit > READ_MAX_LINES ? READ_MAX_LINES : limit, READ_MAX_OUT,
			    0, 0, 0 };
	struct stat st;
	struct err e = ERR_INIT;
	int fd = workspace_open(root, abs, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, &e);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			tool_job_fail(job, "%s does not exist; use find or ls to locate the file", rel);
		else
			tool_job_fail(job, "%s", e.msg);
		return;
	}
	if (fstat(fd, &st) < 0 || precheck(job, fd, rel, &st) < 0) {
		if (!job->finished)
			tool_job_fail(job, "read %s: %s", rel, strerror(errno));
		close(fd);
		return;
	}
	if (job->room_bytes > 0 && (size_t)job->room_bytes < w.max_out)
		w.max_out = (size_t)job->room_bytes;
	r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->hash = TOOL_STALE_HASH_INIT;
	stream(r, &w, &job->out);
	if (r->eof) /* every byte seen: what the agent now knows of the file */
		tool_stale_seen(job->env->stale, abs, &st, r->hash);
	close(fd);
	free(r);
	if (w.total > 0 && offset > w.total) {
		buf_reset(&job->out);
		tool_job_fail(job, "offset %ld is past the end of %s, which has %ld lines; use an "
			      "offset from 1 to %ld", offset, rel, w.total, w.total);
		return;
	}
	add_note(&job->out, &w, rel, limit);
	tool_job_done(job);
}

/* The workspace, or state_dir: bash saves long outputs there and points the model to them. */
static int
read_resolve(const struct tool_env *env, const char *path, struct buf *abs, struct err *e)
{
	if (workspace_resolve(env->root, env->allow_outside, path, abs, e) == 0)
		return 0;
	if (!env->state_dir)
		return -1;
	buf_reset(abs);
	return workspace_resolve(env->state_dir, 0, path, abs, NULL) == 0 ? 0 : -1;
}

/* Entry point: validate the numbers, resolve the path, show the window. */
static void
read_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;
	long offset = int_arg(args, "offset", 1), limit = int_arg(args, "limit", READ_MAX_LINES);

	if (!cJSON_IsString(path)) {
		tool_job_fail(job, "missing required field \"path\" (string)");
		return;
	}
	if (offset < 1)
		offset = 1;
	if (limit < 1)
		limit = READ_MAX_LINES;
	if (read_resolve(job->env, path->valuestring, &abs, &e) < 0)
		tool_job_fail(job, "%s", e.msg);
	else /* opened beneath the root it was resolved under (bash's saved outputs: the state dir) */
		show_file(job, !workspace_inside(job->env->root, abs.data) && job->env->state_dir &&
			  workspace_inside(job->env->state_dir, abs.data) ? job->env->state_dir
			  : job->env->root, abs.data, workspace_rel(job->env->root, abs.data), offset, limit);
	buf_release(&abs);
}

/* The numbered lines a result shows ("%6ld\t..."): the first and last
 * number (-1 when none) and the file's total from the "[showing lines A-B
 * of N" note (0 when the result has none). */
static void
read_shown(const char *text, long *first, long *last, long *total)
{
	const char *p = text, *of = strstr(text, "[showing lines ");

	*first = *last = -1;
	while (*p) {
		char *end;
		long no = strtol(p, &end, 10);

		if (end != p && *end == '\t') {
			if (*first < 0)
				*first = no;
			*last = no;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (!of || sscanf(of, "[showing lines %*d-%*d of %ld", total) != 1)
		*total = 0;
}

/* read: the numbered lines shown: first and last number. */
static void
read_digest(const cJSON *args, const char *text, struct buf *out)
{
	const char *path = json_str(args, "path");
	long first, last, total;

	read_shown(text, &first, &last, &total);
	buf_adds(out, "read ");
	tool_add_short(out, path ? path : "?", TOOL_DIGEST_ARG_MAX);
	if (first >= 0)
		buf_addf(out, " lines %ld-%ld", first, last);
	if (total > 0)
		buf_addf(out, " of %ld", total);
	buf_adds(out, "; read it again if needed]");
}

/* The header: the path and the range asked for ("src/a.c:120+40"). */
static void
read_describe(const cJSON *args, struct buf *out)
{
	const char *path = json_str(args, "path");
	long offset = int_arg(args, "offset", 0), limit = int_arg(args, "limit", 0);

	tool_add_short(out, path ? path : "?", 120);
	if (offset > 1 || limit > 0)
		buf_addf(out, ":%ld", offset > 1 ? offset : 1);
	if (limit > 0)
		buf_addf(out, "+%ld", limit);
}

/* After the call: the lines shown, "lines 1-120 of 340" (of the whole file when all of it). */
static void
read_summary(const cJSON *args, const char *text, int is_error, struct buf *out)
{
	long first, last, total;

	(void)args;
	if (is_error)
		return;
	read_shown(text, &first, &last, &total);
	if (first < 0)
		return;
	if (total > 0)
		buf_addf(out, "lines %ld-%ld of %ld", first, last, total);
	else if (first == 1)
		buf_addf(out, "%ld line%s", last, last == 1 ? "" : "s");
	else
		buf_addf(out, "lines %ld-%ld", first, last);
}

const struct tool tool_read = {
	.name = "read",
	.description =
		"Read a text file; lines are numbered like cat -n. At most 2000 lines and 50 KB per "
		"call (less when the context is nearly full): a final note gives the offset to continue.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
		"\"offset\":{\"type\":\"integer\",\"description\":\"First line, 1-based\"},"
		"\"limit\":{\"type\":\"integer\",\"description\":\"Number of lines\"}},"
		"\"required\":[\"path\"]}",
	.flags = TOOL_READ_ONLY | TOOL_SHOWS_FILE | TOOL_CORE,
	.start = read_start,
	.cancel = NULL,
	.paths = tool_path_arg,
	.digest = read_digest,
	.describe = read_describe,
	.summary = read_summary,
};

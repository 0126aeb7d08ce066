/*
 * grep: search file contents under a path for a regex or a fixed string.
 *
 * The walk (fs_walk) yields entries in sorted order, skipping .git and
 * .gitignore'd paths.  Each regular file up to GREP_MAX_FILE that does not
 * look binary is read whole and scanned line by line; matches are written
 * as "path:line:text" until GREP_MAX_MATCHES or GREP_MAX_OUT, after which
 * they are only counted so the final note can say how many were left out.
 * Regexes are POSIX ERE (glibc also knows \w \s \b); \d and \D are
 * rewritten to bracket expressions since models use them a lot.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/regex.h"
#include "llm/tool.h"
#include "base/workspace.h"

#define GREP_MAX_MATCHES 200
#define GREP_MAX_OUT (50 * 1024)
#define GREP_MAX_FILE (4 << 20)
#define GREP_MAX_LINE 300

struct grep {
	struct tool_job *job;
	const char *glob;  /* file-name filter, or NULL */
	const char *needle; /* literal search, or NULL for the regex */
	size_t nlen;
	int icase;
	regex_t re;
	size_t matches, shown, files, skipped_big;
	int capped;        /* output cap reached */
	struct buf text;   /* the current file */
};

/* Rewrite \d and \D (not understood by POSIX ERE) outside brackets. */
static void
translate(const char *p, struct buf *out)
{
	int bracket = 0;

	for (; *p; p++) {
		if (!bracket && p[0] == '\\' && (p[1] == 'd' || p[1] == 'D')) {
			buf_adds(out, p[1] == 'd' ? "[0-9]" : "[^0-9]");
			p++;
		} else if (!bracket && p[0] == '\\' && p[1]) {
			buf_add(out, p, 2);
			p++;
		} else {
			if (!bracket && *p == '[') {
				bracket = 1;
				buf_addch(out, *p++);
				if (*p == '^')
					buf_addch(out, *p++);
				if (*p == ']')
					buf_addch(out, *p++);
				if (!*p)
					break;
			} else if (bracket && *p == ']') {
				bracket = 0;
			}
			buf_addch(out, *p);
		}
	}
}

/* Case-insensitive (ASCII) or exact search for the literal in line. */
static int
has_literal(const struct grep *g, const char *line, size_t n)
{
	size_t i;

	if (g->nlen > n)
		return 0;
	for (i = 0; i + g->nlen <= n; i++)
		if (g->icase ? !strncasecmp(line + i, g->needle, g->nlen)
			     : !memcmp(line + i, g->needle, g->nlen))
			return 1;
	return 0;
}

/* Whether one line (NUL-terminated at n) matches. */
static int
line_matches(struct grep *g, char *line, size_t n)
{
	if (g->needle)
		return has_literal(g, line, n);
	return regexec(&g->re, line, 0, NULL, 0) == 0;
}

/* Write one match line, cut long text; stop showing at the caps. */
static void
emit(struct grep *g, const char *rel, long no, const char *line, size_t n)
{
	struct buf *out = &g->job->out;
	size_t before = out->len, k = n;

	g->matches++;
	if (g->capped)
		return;
	if (k && line[k - 1] == '\r')
		k--;
	if (k > GREP_MAX_LINE) {
		k = GREP_MAX_LINE;
		while (k > 0 && ((unsigned char)line[k] & 0xC0) == 0x80)
			k--;
	}
	buf_addf(out, "%s:%ld:", rel, no);
	fs_add_utf8(out, line, k);
	if (k < n && !(k == n - 1 && line[k] == '\r'))
		buf_adds(out, " [...]");
	buf_addch(out, '\n');
	if (g->shown >= GREP_MAX_MATCHES || out->len > GREP_MAX_OUT) {
		buf_setlen(out, before);
		g->capped = 1;
		return;
	}
	g->shown++;
}

/* Scan the text of one file line by line. */
static void
scan(struct grep *g, const char *rel)
{
	char *p = g->text.data, *end = p + g->text.len, *nl;
	size_t before = g->matches;
	long no = 0;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		*nl = '\0';
		no++;
		if (line_matches(g, p, (size_t)(nl - p)))
			emit(g, rel, no, p, (size_t)(nl - p));
		p = nl + 1;
	}
	g->files += g->matches > before;
}

/* Walk visitor: filter, read, sniff, scan. */
static int
visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct grep *g = arg;
	struct err e = ERR_INIT;

	if (!S_ISREG(st->st_mode))
		return 0;
	if (g->glob && !fs_glob_match(g->glob, rel))
		return 0;
	if (st->st_size > GREP_MAX_FILE) {
		g->skipped_big++;
		return 0;
	}
	buf_reset(&g->text);
	if (fs_read_beneath(g->job->env->root, abs, &g->text, GREP_MAX_FILE, &e) < 0 ||
	    fs_is_binary(g->text.data, g->text.len) ||
	    memchr(g->text.data, '\0', g->text.len))
		return 0;
	scan(g, rel);
	return 0;
}

/* Start a new line unless out is empty or already at one. */
static void
line_break(struct buf *out)
{
	if (out->len && out->data[out->len - 1] != '\n')
		buf_addch(out, '\n');
}

/* Final note: caps, skipped files, or "no matches". */
static void
add_note(struct grep *g, const char *pattern, const char *where, const struct fs_walk *w)
{
	struct buf *out = &g->job->out;

	if (g->matches == 0)
		buf_addf(out, "no matches for \"%s\" in %s%s%s", pattern, where,
			 g->glob ? " (files matching " : "", g->glob ? g->glob : "");
	if (g->matches == 0 && g->glob)
		buf_addch(out, ')');
	if (g->capped)
		buf_addf(out, "[showing %zu of %zu matches in %zu files; narrow the search with "
			 "path, glob or a more specific pattern]", g->shown, g->matches, g->files);
	if (g->skipped_big) {
		line_break(out);
		buf_addf(out, "[skipped %zu files over 4 MB]", g->skipped_big);
	}
	if (w->truncated) {
		line_break(out);
		buf_addf(out, "[stopped after %zu entries; pass a narrower path]",
			 w->max_entries);
	}
}

/* Compile the pattern; -1 after failing the job. */
static int
compile(struct grep *g, const char *pattern, int literal)
{
	struct buf ere = BUF_INIT;
	char msg[256];
	int rc;

	if (literal) {
		g->needle = pattern;
		g->nlen = strlen(pattern);
		return 0;
	}
	translate(pattern, &ere);
	rc = regex_compile(&g->re, ere.data ? ere.data : "", REG_NOSUB | (g->icase ? REG_ICASE : 0),
			   msg, sizeof msg);
	buf_release(&ere);
	if (rc == 0)
		return 0;
	tool_job_fail(g->job, "invalid pattern \"%s\": %s; patterns are POSIX extended regular "
		      "expressions (escape ( ) [ ] { } . * + ? | with \\, or set literal=true)",
		      pattern, msg);
	return -1;
}

/* Walk and search; the job is finished here. */
static void
run(struct grep *g, const char *pattern, const char *abs)
{
	struct fs_walk w = { g->job->env->root, visit, g, 0, 0, 0 };
	struct err e = ERR_INIT;
	const char *where = workspace_rel(g->job->env->root, abs);

	if (fs_walk(&w, abs, &e) < 0) {
		if (e.code == ENOENT)
			tool_job_fail(g->job, "%s does not exist; use ls or find to locate it", where);
		else
			tool_job_fail(g->job, "grep %s", e.msg);
		return;
	}
	add_note(g, pattern, where, &w);
	tool_job_done(g->job);
}

/* Entry point. */
static void
grep_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *pat = cJSON_GetObjectItemCaseSensitive(args, "pattern");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	const cJSON *glob = cJSON_GetObjectItemCaseSensitive(args, "glob");
	struct grep g;
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;

	memset(&g, 0, sizeof g);
	g.job = job;
	buf_init(&g.text, 0);
	g.icase = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "ignore_case"));
	g.glob = cJSON_IsString(glob) && *glob->valuestring ? glob->valuestring : NULL;
	if (!cJSON_IsString(pat) || !*pat->valuestring) {
		tool_job_fail(job, "grep needs a non-empty \"pattern\" (string)");
		return;
	}
	if (workspace_resolve(job->env->root, job->env->allow_outside,
		       cJSON_IsString(path) ? path->valuestring : NULL, &abs, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
	} else if (compile(&g, pat->valuestring,
			   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "literal"))) == 0) {
		run(&g, pat->valuestring, abs.data);
		if (!g.needle)
			regfree(&g.re);
	}
	buf_release(&g.text);
	buf_release(&abs);
}

/* grep: pattern, where, and how many matching lines ("file:line:" rows). */
static void
grep_digest(const cJSON *args, const char *text, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path"), *p = text;
	long hits = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *c1 = strchr(p, ':');

		if (c1 && (!nl || c1 < nl) && c1[1] >= '0' && c1[1] <= '9')
			hits++;
		if (!nl)
			break;
		p = nl + 1;
	}
	buf_adds(out, "grep \"");
	tool_add_short(out, pat ? pat : "?", TOOL_DIGEST_ARG_MAX);
	buf_adds(out, "\" in ");
	tool_add_short(out, path ? path : ".", TOOL_DIGEST_ARG_MAX);
	buf_addf(out, ": %ld matching lines; search again if needed]", hits);
}

/* Rows "file:line:" of a result, and the files they are in (sorted by path: a new file is a new name). */
static long
grep_hits(const char *text, long *files)
{
	const char *p = text, *last = NULL;
	size_t lastn = 0;
	long hits = 0;

	*files = 0;
	while (*p) {
		const char *nl = strchr(p, '\n'), *c1 = strchr(p, ':');

		if (c1 && (!nl || c1 < nl) && c1[1] >= '0' && c1[1] <= '9') {
			hits++;
			if (!last || lastn != (size_t)(c1 - p) || memcmp(last, p, lastn)) {
				(*files)++;
				last = p;
				lastn = (size_t)(c1 - p);
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return hits;
}

/* The header: "PATTERN" in SCOPE (glob, -i). */
static void
grep_describe(const cJSON *args, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path");
	const char *glob = json_str(args, "glob");

	buf_addch(out, '"');
	tool_add_short(out, pat ? pat : "?", 80);
	buf_adds(out, "\" in ");
	tool_add_short(out, path && *path ? path : ".", 80);
	if (glob && *glob) {
		buf_adds(out, " ");
		tool_add_short(out, glob, 40);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "ignore_case")))
		buf_adds(out, " -i");
}

/* After the call: "12 hits in 3 files" ("of N" when the output was capped). */
static void
grep_summary(const cJSON *args, const char *text, int is_error, struct buf *out)
{
	const char *cap = strstr(text, "[showing ");
	long files, hits = grep_hits(text, &files);
	size_t shown, total, nfiles;

	(void)args;
	if (is_error)
		return;
	if (cap && sscanf(cap, "[showing %zu of %zu matches in %zu files", &shown, &total,
	    &nfiles) == 3)
		buf_addf(out, "%zu hits in %zu files (%zu shown)", total, nfiles, shown);
	else if (!hits)
		buf_adds(out, "no hits");
	else
		buf_addf(out, "%ld hit%s in %ld file%s", hits, hits == 1 ? "" : "s", files,
			 files == 1 ? "" : "s");
}

const struct tool tool_grep = {
	.name = "grep",
	.description =
		"Search file contents with a POSIX extended regex (or literal text) under "
		"path (default: the workspace), skipping .git and ignored files. Prints "
		"path:line:text.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},"
		"\"path\":{\"type\":\"string\"},"
		"\"glob\":{\"type\":\"string\",\"description\":\"e.g. *.c\"},"
		"\"ignore_case\":{\"type\":\"boolean\"},\"literal\":{\"type\":\"boolean\"}},"
		"\"required\":[\"pattern\"]}",
	.flags = TOOL_READ_ONLY | TOOL_SHOWS_MATCHES | TOOL_CORE,
	.start = grep_start,
	.cancel = NULL,
	.paths = tool_path_arg,
	.digest = grep_digest,
	.describe = grep_describe,
	.summary = grep_summary,
};

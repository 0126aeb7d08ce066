/*
 * prompt/memory: the memory files (see prompt/memory.h).  Entries are lines starting
 * with "- "; other lines (headings, notes the user wrote) are kept as
 * they are and shown in the prompt too.  Duplicate detection compares
 * entries lowercased with runs of blanks folded to one space.
 */
#include "prompt/memory.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/workspace.h"

/* The kinds in prompt order, NULL-terminated. */
static const char *const prompt_memory_kinds[] = { "user", "feedback", "project", "reference", NULL };

/* Whether kind is one of the four. */
static int
prompt_memory_kind_ok(const char *kind)
{
	size_t i;

	for (i = 0; kind && prompt_memory_kinds[i]; i++)
		if (!strcmp(prompt_memory_kinds[i], kind))
			return 1;
	return 0;
}

/* The user's memory dir: $XDG_CONFIG_HOME/hearth/memory or ~/.config/hearth/memory. */
static void
prompt_memory_user_dir(struct buf *out)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		buf_addf(out, "%s/hearth/memory", xdg);
	else
		buf_addf(out, "%s/.config/hearth/memory", home && *home ? home : "/tmp");
}

/* Where kind lives: user and feedback with the user, the rest in the project. */
static int
prompt_memory_dir(const char *kind, const char *root, struct buf *out)
{
	if (!prompt_memory_kind_ok(kind))
		return -1;
	if (!strcmp(kind, "user") || !strcmp(kind, "feedback"))
		prompt_memory_user_dir(out);
	else
		buf_addf(out, "%s/.hearth/memory", root);
	return 0;
}

/* Append one file's lines under its kind's heading (once per kind). */
static void
prompt_memory_load_file(const char *dir, const char *kind, int *headed, struct buf *out,
		 struct buf *warnings)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct err e = ERR_INIT;

	buf_addf(&path, "%s/%s.md", dir, kind);
	if (access(path.data, F_OK) == 0) {
		if (buf_read_file(&text, path.data, PROMPT_MEMORY_MAX_FILE * 4, &e) < 0) {
			buf_addf(warnings, "memory: %s\n", e.msg);
		} else {
			buf_rtrim(&text);
			if (text.len && !*headed) {
				buf_addf(out, "\n### %s\n", kind);
				*headed = 1;
			}
			if (text.len)
				buf_addf(out, "%s\n", text.data);
		}
	}
	buf_release(&path);
	buf_release(&text);
}

/* Every kind, from the user's dir then the project's. */
void
prompt_memory_load(const char *root, struct buf *out, struct buf *warnings)
{
	struct buf user = BUF_INIT, proj = BUF_INIT, body = BUF_INIT;
	size_t i;

	prompt_memory_user_dir(&user);
	buf_addf(&proj, "%s/.hearth/memory", root);
	for (i = 0; prompt_memory_kinds[i]; i++) {
		int headed = 0;

		prompt_memory_load_file(user.data, prompt_memory_kinds[i], &headed, &body, warnings);
		if (strcmp(user.data, proj.data))
			prompt_memory_load_file(proj.data, prompt_memory_kinds[i], &headed, &body, warnings);
	}
	if (body.len) {
		buf_adds(out, "\nMemory (notes kept from earlier sessions; the remember tool adds to it):\n");
		buf_add(out, body.data, body.len);
	}
	buf_release(&user);
	buf_release(&proj);
	buf_release(&body);
}

/* s lowercased with blank runs folded and ends trimmed, into out. */
static void
prompt_memory_norm(const char *s, size_t n, struct buf *out)
{
	size_t i;
	int space = 0;

	buf_reset(out);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (isspace(ch)) {
			space = out->len > 0;
			continue;
		}
		if (space)
			buf_addch(out, ' ');
		space = 0;
		buf_addch(out, (char)tolower(ch));
	}
	buf_addch(out, '\0');
	out->len--;
}

/* Whether file text already holds entry (normalised). */
static int
prompt_memory_has(const struct buf *text, const char *entry)
{
	struct buf want = BUF_INIT, got = BUF_INIT;
	const char *p = text->data ? text->data : "";
	int found = 0;

	prompt_memory_norm(entry, strlen(entry), &want);
	while (*p && !found) {
		size_t n = strcspn(p, "\n");

		if (n >= 2 && p[0] == '-' && p[1] == ' ') {
			prompt_memory_norm(p + 2, n - 2, &got);
			found = !strcmp(got.data, want.data);
		}
		p += n + (p[n] == '\n');
	}
	buf_release(&want);
	buf_release(&got);
	return found;
}

/* The text as one line: checks emptiness, control characters and length. */
static int
prompt_memory_check_text(const char *text, struct buf *line, struct err *e)
{
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '\n' || ch == '\r' || ch == '\t')
			buf_addch(line, ' ');
		else if (ch < 0x20 || ch == 0x7f)
			return err_set(e, "the text has control characters: write plain text");
		else
			buf_addch(line, (char)ch);
	}
	buf_rtrim(line);
	if (!line->len)
		return err_set(e, "nothing to remember: text is empty");
	if (line->len > PROMPT_MEMORY_MAX_TEXT)
		return err_set(e, "the text is %zu bytes; keep one entry under %d bytes (one fact per call)",
			       line->len, PROMPT_MEMORY_MAX_TEXT);
	return 0;
}

/* A referenced path must exist (inside the workspace or absolute); URLs are not checked. */
static int
prompt_memory_check_path(const char *root, const char *path, struct err *e)
{
	struct buf abs = BUF_INIT;
	struct err we = ERR_INIT;
	struct stat st;
	int rc = 0;

	if (!strncmp(path, "http://", 7) || !strncmp(path, "https://", 8))
		return 0;
	if (strchr(path, '\n'))
		return err_set(e, "path must be one line");
	if (workspace_resolve(root, 1, path, &abs, &we) < 0 || stat(abs.data, &st) < 0)
		rc = err_set(e, "path %s does not exist: give a path that exists (relative to the workspace root) or leave it out",
			     path);
	buf_release(&abs);
	return rc;
}

/* Check everything, then append the entry and replace the file atomically. */
int
prompt_memory_add(const char *root, const char *kind, const char *text, const char *path,
	   struct buf *out, struct err *e)
{
	struct buf dir = BUF_INIT, file = BUF_INIT, line = BUF_INIT, body = BUF_INIT;
	int rc = -1;

	if (!kind || prompt_memory_dir(kind, root, &dir) < 0) {
		err_set(e, "kind \"%s\" is not one of user, feedback, project, reference", kind ? kind : "");
		goto out;
	}
	if (prompt_memory_check_text(text ? text : "", &line, e) < 0 ||
	    (path && *path && prompt_memory_check_path(root, path, e) < 0))
		goto out;
	if (path && *path)
		buf_addf(&line, " (path: %s)", path);
	buf_addf(&file, "%s/%s.md", dir.data, kind);
	if (access(file.data, F_OK) == 0 && buf_read_file(&body, file.data, PROMPT_MEMORY_MAX_FILE * 4, e) < 0)
		goto out;
	if (prompt_memory_has(&body, line.data)) {
		err_set(e, "already remembered in %s: nothing to add", file.data);
		goto out;
	}
	if (body.len + line.len + 3 > PROMPT_MEMORY_MAX_FILE) {
		err_set(e, "%s is full (%d bytes): ask the user to tidy it before adding more", file.data,
			PROMPT_MEMORY_MAX_FILE);
		goto out;
	}
	buf_end_line(&body);
	buf_addf(&body, "- %s\n", line.data);
	if (fs_mkdirs(dir.data, e) < 0 || fs_write_atomic(file.data, body.data, body.len, e) < 0)
		goto out;
	buf_addf(out, "remembered (%s) in %s; it is part of the prompt from the next session or /reload on",
		 kind, file.data);
	rc = 0;
out:
	buf_release(&dir);
	buf_release(&file);
	buf_release(&line);
	buf_release(&body);
	return rc;
}

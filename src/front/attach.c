/*
 * front/attach: @path references (see front/attach.h).
 *
 * Expansion scans the message once for reference tokens; each candidate
 * path is resolved (workspace_resolve), checked (a regular file, size, binary
 * test on the content) and appended as a block.  `seen` keeps the
 * absolute paths already attached (a buffer of NUL-separated names) so a
 * file named twice is attached once.  Completion reads one directory.
 */
#include "front/attach.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "route/privacy.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

#define FRONT_ATTACH_PATH_MAX 4096 /* longer words are not paths (and would be slow to try) */

static const char *const heavy_dirs[] = {
	".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache",
	".tox", ".hg", ".svn", ".cache", ".next", ".gradle",
};

/* Whether name is one of the skipped directories. */
static int
heavy(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof heavy_dirs / sizeof heavy_dirs[0]; i++)
		if (!strcmp(name, heavy_dirs[i]))
			return 1;
	return 0;
}

/* Human size: "812 B", "1.2 KB", "3.4 MB". */
static void
human(char *out, size_t cap, size_t n)
{
	if (n < 1024)
		snprintf(out, cap, "%zu B", n);
	else if (n < 1024 * 1024)
		snprintf(out, cap, "%.1f KB", n / 1024.0);
	else
		snprintf(out, cap, "%.1f MB", n / (1024.0 * 1024.0));
}

/* Whether abs is in the NUL-separated list seen. */
static int
seen_has(const struct buf *seen, const char *abs)
{
	size_t i = 0;

	while (i < seen->len) {
		if (!strcmp(seen->data + i, abs))
			return 1;
		i += strlen(seen->data + i) + 1;
	}
	return 0;
}

struct ctx {
	const char *root;
	int allow_outside;
	const struct route_policy *redact;
	struct buf *out, *notices, seen;
	size_t total;
	int attached;
};

/* Resolve name to an existing path in abs; 1 found, 0 absent, -1 refused (notice given). */
static int
find(struct ctx *c, const char *name, struct buf *abs)
{
	struct err e = ERR_INIT;
	struct stat st;

	if (workspace_resolve(c->root, c->allow_outside, name, abs, &e) < 0) {
		if (strstr(e.msg, "outside the workspace")) {
			buf_addf(c->notices, "@%s: refused: it is outside the workspace %s; "
			    "not attached\n", name, c->root);
			return -1;
		}
		return 0;
	}
	return stat(abs->data, &st) == 0;
}

/* Attach the file at abs (shown as name), or say why not. */
static void
attach(struct ctx *c, const char *name, const char *abs)
{
	struct buf body = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	char sz[32];
	const char *rel = workspace_rel(c->root, abs);

	if (seen_has(&c->seen, abs))
		return;
	buf_add(&c->seen, abs, strlen(abs) + 1);
	if (stat(abs, &st) < 0 || !S_ISREG(st.st_mode)) {
		buf_addf(c->notices, "@%s: not a regular file (a directory?); not attached\n", name);
		return;
	}
	human(sz, sizeof sz, (size_t)st.st_size);
	if ((size_t)st.st_size > FRONT_ATTACH_FILE_MAX) {
		buf_addf(c->notices, "@%s: %s is over the %zu KB attachment limit; not attached "
		    "(ask the agent to read the part you need)\n", name, sz, FRONT_ATTACH_FILE_MAX / 1024);
		return;
	}
	if (c->total + (size_t)st.st_size > FRONT_ATTACH_TOTAL_MAX) {
		buf_addf(c->notices, "@%s: the attachments would pass %zu KB in all; not attached\n",
		    name, FRONT_ATTACH_TOTAL_MAX / 1024);
		return;
	}
	if (buf_read_file(&body, abs, FRONT_ATTACH_FILE_MAX, &e) < 0) {
		buf_addf(c->notices, "@%s: %s; not attached\n", name, e.msg);
	} else if (fs_is_binary(body.data ? body.data : "", body.len)) {
		buf_addf(c->notices, "@%s: a binary file (%s); not attached\n", name, sz);
	} else {
		buf_addf(c->out, "\n\n<file path=\"%s\">\n", rel);
		if (c->redact)
			route_privacy_redact(c->redact, rel, body.data, body.len, c->out);
		else
			buf_add(c->out, body.data ? body.data : "", body.len);
		if (body.len && body.data[body.len - 1] != '\n')
			buf_addch(c->out, '\n');
		buf_adds(c->out, "</file>");
		buf_addf(c->notices, "attached %s (%s)\n", rel, sz);
		c->total += body.len;
		c->attached++;
	}
	buf_release(&body);
}

/* One reference token t[0..n) (without the '@'). */
static void
reference(struct ctx *c, const char *t, size_t n)
{
	struct buf name = BUF_INIT, abs = BUF_INIT;
	int r;

	buf_add(&name, t, n);
	while ((r = find(c, name.data, &abs)) == 0 && name.len &&
	    strchr(".,;:!?)'\"", name.data[name.len - 1]))
		buf_setlen(&name, name.len - 1);
	if (r > 0)
		attach(c, name.data, abs.data);
	else if (r == 0 && name.len && strpbrk(name.data, "/.") && name.data[0] != '.')
		buf_addf(c->notices, "@%s: no such file in the workspace; not attached\n",
		    name.data);
	buf_release(&name);
	buf_release(&abs);
}

/* Expand every @reference of msg. */
int
front_attach_expand(const char *root, int allow_outside, const char *msg,
    const struct route_policy *redact, struct buf *out, struct buf *notices)
{
	struct ctx c = { root, allow_outside, redact, out, notices, BUF_INIT, 0, 0 };
	const char *p;
	size_t n;

	buf_adds(out, msg);
	for (p = msg; (p = strchr(p, '@')) != NULL; p += 1 + n) {
		n = strcspn(p + 1, " \t\r\n");
		if (p > msg && !strchr(" \t\r\n(", p[-1]))
			continue;
		if (n && n <= FRONT_ATTACH_PATH_MAX)
			reference(&c, p + 1, n);
	}
	buf_release(&c.seen);
	return c.attached;
}

/* qsort order of the candidates: byte-wise by name. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Complete "@prefix" from one directory listing. */
size_t
front_attach_complete(const char *root, const char *prefix, struct buf *out)
{
	const char *slash = strrchr(prefix, '/'), *base = slash ? slash + 1 : prefix;
	struct buf dir = BUF_INIT, abs = BUF_INIT, full = BUF_INIT;
	struct err e = ERR_INIT;
	struct dirent *de;
	struct stat st;
	char **v = NULL;
	size_t n = 0, i, bl = strlen(base);
	DIR *d = NULL;

	buf_add(&dir, prefix, slash ? (size_t)(slash - prefix + 1) : 0);
	if (workspace_resolve(root, 0, dir.len ? dir.data : "", &abs, &e) == 0)
		d = opendir(abs.data);
	while (d && (de = readdir(d)) != NULL && n < FRONT_ATTACH_COMPLETE_MAX) {
		if (strncmp(de->d_name, base, bl) || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, "..") || (de->d_name[0] == '.' && base[0] != '.'))
			continue;
		buf_reset(&full);
		buf_addf(&full, "%s/%s", abs.data, de->d_name);
		if (stat(full.data, &st) < 0 || (S_ISDIR(st.st_mode) && heavy(de->d_name)))
			continue;
		buf_reset(&full);
		buf_addf(&full, "%s%s%s", dir.len ? dir.data : "", de->d_name,
		    S_ISDIR(st.st_mode) ? "/" : "");
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = buf_detach(&full, NULL);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_str);
	for (i = 0; i < n; i++) {
		buf_addf(out, "%s\n", v[i]);
		free(v[i]);
	}
	free(v);
	buf_release(&dir);
	buf_release(&abs);
	buf_release(&full);
	return n;
}

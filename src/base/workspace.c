/*
 * base/workspace: workspace path resolution (see base/workspace.h).
 *
 * Resolution works on a joined absolute path.  We peel trailing
 * components off until realpath(3) succeeds on the remaining prefix; the
 * peeled components (which do not exist) are then re-applied lexically on
 * top of the canonical prefix.  The result therefore never contains ".",
 * "..", "//" or a symlink in its existing part.
 */
#include "base/workspace.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

/* Apply one lexical component to an absolute path held in b. */
static void
push_component(struct buf *b, const char *c, size_t n)
{
	char *slash;

	if (n == 0 || (n == 1 && c[0] == '.'))
		return;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		slash = strrchr(b->data, '/');
		buf_setlen(b, slash && slash != b->data ? (size_t)(slash - b->data) : 1);
		return;
	}
	if (b->len == 0 || b->data[b->len - 1] != '/')
		buf_addch(b, '/');
	buf_add(b, c, n);
}

/* Apply every component of the '/'-separated string s lexically onto b. */
static void
push_components(struct buf *b, const char *s)
{
	const char *end;

	while (*s) {
		while (*s == '/')
			s++;
		end = strchr(s, '/');
		if (!end)
			end = s + strlen(s);
		push_component(b, s, (size_t)(end - s));
		s = end;
	}
}

/* Build the absolute, not yet canonical path the user meant. */
static void
join_path(const char *root, const char *path, struct buf *joined)
{
	const char *home = getenv("HOME");

	buf_reset(joined);
	if (!path || !*path) {
		buf_adds(joined, root);
	} else if (path[0] == '/') {
		buf_adds(joined, path);
	} else if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') && home && *home) {
		buf_adds(joined, home);
		buf_addch(joined, '/');
		buf_adds(joined, path + 1);
	} else {
		buf_adds(joined, root);
		buf_addch(joined, '/');
		buf_adds(joined, path);
	}
}

/*
 * Canonicalise `joined` into out: realpath on the longest existing prefix,
 * lexical application of the rest.  -1 + e on errors other than a missing
 * component.
 */
static int
canonicalise(const char *joined, struct buf *out, struct err *e)
{
	char *work = xstrdup(joined);
	char *real = NULL;
	size_t cut = strlen(work);
	int rc = 0;

	for (;;) {
		work[cut] = '\0';
		real = realpath(cut ? work : "/", NULL);
		if (real)
			break;
		if (errno != ENOENT && errno != ENOTDIR) {
			rc = err_errno(e, "resolve %s", joined);
			break;
		}
		while (cut > 0 && work[cut - 1] == '/')
			cut--;
		while (cut > 0 && work[cut - 1] != '/')
			cut--;
	}
	if (real) {
		buf_reset(out);
		buf_adds(out, real);
		push_components(out, joined + cut);
		free(real);
	}
	free(work);
	return rc;
}

/* True when abs is root or lies below it. */
int
workspace_inside(const char *root, const char *abs)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return abs[0] == '/';
	return strncmp(abs, root, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

/* Resolve a tool's path argument against the workspace (see base/workspace.h). */
int
workspace_resolve(const char *root, int allow_outside, const char *path, struct buf *out,
	   struct err *e)
{
	struct buf joined = BUF_INIT;
	char *real_root = realpath(root, NULL);
	const char *r = real_root ? real_root : root;
	int rc;

	join_path(root, path, &joined);
	rc = canonicalise(joined.data, out, e);
	if (rc == 0 && !allow_outside && !workspace_inside(r, out->data))
		rc = err_set(e, "path \"%s\" is outside the workspace %s; use a path inside it",
			     path ? path : "", r);
	buf_release(&joined);
	free(real_root);
	return rc;
}

/* Display form of an absolute path: relative when inside root. */
const char *
workspace_rel(const char *root, const char *abs)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!workspace_inside(root, abs))
		return abs;
	if (n == 1)
		return abs[1] ? abs + 1 : ".";
	return abs[n] ? abs + n + 1 : ".";
}

/*
 * perm/protect: classify protected paths (see perm/protect.h).
 *
 * Inside the workspace the path relative to the root is split into
 * components and each compared without case; outside it the user's
 * config and state dirs are prefixes, compared without case both as the
 * environment names them and as realpath(3) resolves them.
 */
#include "perm/protect.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/workspace.h"

#define PERM_PROTECT_MAX_LINKS 8

/* Whether abs is dir or below it, without case; dir as given and as realpath has it. */
static int
perm_protect_under(const char *dir, const char *abs)
{
	char *real;
	size_t n = strlen(dir);
	int in;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	in = n > 1 && !strncasecmp(abs, dir, n) && (abs[n] == '\0' || abs[n] == '/');
	if (!in && (real = realpath(dir, NULL)) != NULL) {
		n = strlen(real);
		in = n > 1 && !strncasecmp(abs, real, n) && (abs[n] == '\0' || abs[n] == '/');
		free(real);
	}
	return in;
}

/* Whether abs is under ENV/hearth or HOME/FALLBACK/hearth. */
static int
perm_protect_user_dir(const char *abs, const char *env, const char *fallback)
{
	const char *x = getenv(env), *home = getenv("HOME");
	struct buf d = BUF_INIT;
	int in = 0;

	if (x && x[0] == '/') {
		buf_addf(&d, "%s/hearth", x);
		in = perm_protect_under(d.data, abs);
	}
	if (!in && home && home[0] == '/') {
		buf_reset(&d);
		buf_addf(&d, "%s/%s/hearth", home, fallback);
		in = perm_protect_under(d.data, abs);
	}
	buf_release(&d);
	return in;
}

static enum perm_protect_kind perm_protect_components(const char *rel);

/* Classify a canonical absolute path. */
enum perm_protect_kind
perm_protect_classify(const char *root, const char *abs)
{
	enum perm_protect_kind k = PERM_PROTECT_NONE;

	if (!abs || abs[0] != '/')
		return PERM_PROTECT_NONE;
	if (perm_protect_user_dir(abs, "XDG_CONFIG_HOME", ".config"))
		return PERM_PROTECT_CONFIG;
	if (perm_protect_user_dir(abs, "XDG_STATE_HOME", ".local/state") ||
	    perm_protect_user_dir(abs, "XDG_CACHE_HOME", ".cache"))
		return PERM_PROTECT_STATE;
	if (!root)
		return PERM_PROTECT_NONE;
	if (!workspace_inside(root, abs)) {
		/* above the workspace, up to the repository root: hearth reads the project's
		 * files from there too (workspace_project_file), so they are protected alike */
		struct buf top = BUF_INIT;

		workspace_project_top(root, &top);
		k = strcmp(top.data, root) && workspace_inside(top.data, abs) ? perm_protect_components(
			workspace_rel(top.data, abs)) : PERM_PROTECT_NONE;
		buf_release(&top);
		return k;
	}
	return perm_protect_components(workspace_rel(root, abs));
}

/* The kind of a path relative to a directory hearth reads project files from. */
static enum perm_protect_kind
perm_protect_components(const char *rel)
{
	const char *p, *end;
	enum perm_protect_kind k = PERM_PROTECT_NONE;

	if (!strcmp(rel, "."))
		return PERM_PROTECT_NONE;
	for (p = rel; *p; p = *end ? end + 1 : end) {
		size_t n;

		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (n == 4 && !strncasecmp(p, ".git", 4))
			return PERM_PROTECT_GIT;
		if (n == 7 && !strncasecmp(p, ".hearth", 7))
			k = k ? k : PERM_PROTECT_HEARTH;
		if (!*end && n == 9 && !strncasecmp(p, ".mcp.json", 9))
			k = k ? k : PERM_PROTECT_MCP;
	}
	return k;
}

/* Resolve, classify, follow a dangling final symlink. */
enum perm_protect_kind
perm_protect_path(const char *root, const char *path, struct buf *abs)
{
	struct buf cur = BUF_INIT, target = BUF_INIT;
	enum perm_protect_kind k = PERM_PROTECT_NONE;
	struct err e = ERR_INIT;
	int hop;

	buf_reset(abs);
	buf_adds(&cur, path ? path : "");
	for (hop = 0; hop <= PERM_PROTECT_MAX_LINKS; hop++) {
		struct buf res = BUF_INIT;
		struct stat st;
		char link[PATH_MAX];
		ssize_t n;

		if (workspace_resolve(root, 1, cur.data, &res, &e) < 0) {
			err_clear(&e);
			buf_reset(&res);
			buf_adds(&res, cur.data);
		}
		if (hop == 0) {
			buf_reset(abs);
			buf_adds(abs, res.data);
		}
		k = perm_protect_classify(root, res.data);
		if (k) {
			buf_reset(abs);
			buf_adds(abs, res.data);
		}
		if (k || lstat(res.data, &st) != 0 || !S_ISLNK(st.st_mode) ||
		    (n = readlink(res.data, link, sizeof link - 1)) <= 0) {
			buf_release(&res);
			break;
		}
		link[n] = '\0';
		buf_reset(&target);
		if (link[0] != '/') { /* relative to the link's directory */
			const char *slash = strrchr(res.data, '/');

			buf_add(&target, res.data, slash ? (size_t)(slash - res.data) + 1 : 0);
		}
		buf_adds(&target, link);
		buf_reset(&cur);
		buf_adds(&cur, target.data);
		buf_release(&res);
	}
	buf_release(&cur);
	buf_release(&target);
	return k;
}

/* Why a kind is protected. */
const char *
perm_protect_why(enum perm_protect_kind k)
{
	switch (k) {
	case PERM_PROTECT_GIT:
		return "git runs commands from a repository's config and hooks";
	case PERM_PROTECT_HEARTH:
		return "the project's hearth settings and hooks set what runs without asking";
	case PERM_PROTECT_MCP:
		return "hearth starts the MCP servers it lists";
	case PERM_PROTECT_CONFIG:
		return "hearth's user settings, hooks and MCP servers";
	case PERM_PROTECT_STATE:
		return "hearth's own state: trusted projects, sessions, checkpoints";
	case PERM_PROTECT_NONE:
		break;
	}
	return "";
}

/* Whether pattern contains needle, without case. */
static int
perm_protect_has(const char *pattern, const char *needle)
{
	size_t n = strlen(needle);

	for (; *pattern; pattern++)
		if (!strncasecmp(pattern, needle, n))
			return 1;
	return 0;
}

/* Whether an allow pattern names kind k explicitly. */
int
perm_protect_named(enum perm_protect_kind k, const char *pattern)
{
	if (!pattern)
		return 0;
	switch (k) {
	case PERM_PROTECT_GIT:
		return perm_protect_has(pattern, ".git");
	case PERM_PROTECT_HEARTH:
		return perm_protect_has(pattern, ".hearth");
	case PERM_PROTECT_MCP:
		return perm_protect_has(pattern, ".mcp.json");
	case PERM_PROTECT_CONFIG:
	case PERM_PROTECT_STATE:
		return perm_protect_has(pattern, "hearth");
	case PERM_PROTECT_NONE:
		break;
	}
	return 1;
}

/* tools/bash_gitrepo: can git run a program from this repository? (see tools/bash_gitrepo.h) */
#include "tools/bash_gitrepo.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"

static int gr_no(struct buf *why, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Record why git could run a program (the checks stop at the first); returns 0. */
static int
gr_no(struct buf *why, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		buf_vaddf(why, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* Read file path (at most 1 MB) into out; 0 when absent, -1 on error, 1 when read. */
static int
gr_read(const char *path, struct buf *out)
{
	struct err e = ERR_INIT;
	struct stat st;

	buf_reset(out);
	if (lstat(path, &st) < 0)
		return 0;
	if (!S_ISREG(st.st_mode))
		return -1; /* a symlink or something else: do not guess */
	return buf_read_file(out, path, 1 << 20, &e) < 0 ? -1 : 1;
}

/* Whether config key "section[.sub].key" (section and key lowercased) is one git cannot run anything from. */
static int
gr_key_inert(const char *sec, int has_sub, const char *key)
{
	static const char *const plain[] = {
		"core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
		"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
		"core.safecrlf", "core.quotepath", "core.sparsecheckout", "core.sparsecheckoutcone",
		"core.checkstat", "core.trustctime", "core.abbrev", "core.untrackedcache",
		"core.splitindex", "core.commentchar", "core.longpaths", "core.preloadindex",
		"core.compression", "core.bigfilethreshold", "core.whitespace",
		"user.name", "user.email", "user.signingkey", "init.defaultbranch", "pull.rebase",
		"pull.ff", "push.default", "push.autosetupremote", "fetch.prune", "merge.conflictstyle",
		"merge.ff", "rerere.enabled", "index.version", "extensions.objectformat",
		"extensions.worktreeconfig", "extensions.preciousobjects", "lfs.repositoryformatversion",
		"log.decorate", "log.date", "log.abbrevcommit", "diff.renames", "diff.algorithm",
		"diff.mnemonicprefix", "diff.noprefix", "diff.colormoved", "diff.context",
		"diff.indentheuristic", "diff.renamelimit", "status.showuntrackedfiles",
		"status.branch", "status.short", "status.relativepaths", "status.aheadbehind",
		"feature.manyfiles", "gc.auto", "color.ui", "column.ui",
	};
	static const char *const sub[] = {
		"remote.url", "remote.fetch", "remote.pushurl", "remote.push", "remote.tagopt",
		"remote.prune", "remote.mirror", "remote.promisor", "remote.partialclonefilter",
		"branch.remote", "branch.merge", "branch.rebase", "branch.pushremote",
		"branch.description",
	};
	char full[128];
	size_t i;

	if (!strcmp(sec, "color") || !strcmp(sec, "advice"))
		return 1; /* colours and hints only */
	if (snprintf(full, sizeof full, "%s.%s", sec, key) >= (int)sizeof full)
		return 0;
	if (!has_sub) {
		for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
			if (!strcmp(full, plain[i]))
				return 1;
		return 0;
	}
	for (i = 0; i < sizeof sub / sizeof sub[0]; i++)
		if (!strcmp(full, sub[i]))
			return 1;
	return 0;
}

/*
 * Whether a git config file (text) sets only inert keys.  The parse
 * follows git's (config.c): a section header may be followed by a key on
 * the same line, a value runs to the end of the line unless a backslash
 * continues it (not inside a comment), quotes may not span lines.  What
 * git would reject (and so not run) or this parse does not follow makes
 * the file unsafe, with the offending key in bad.
 */
static int
gr_config_inert(const char *p, char *bad, size_t badn)
{
	char sec[64] = "", key[64];
	int has_sub = 0;

	if (!strncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	for (;;) {
		char c = *p;

		if (!c)
			return 1;
		if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
			continue;
		}
		if (c == '#' || c == ';') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (c == '[') {
			size_t n = 0;

			p++;
			has_sub = 0;
			while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '.') && n + 1 < sizeof sec)
				sec[n++] = (char)tolower((unsigned char)*p++);
			sec[n] = '\0';
			if (!n)
				goto unsafe;
			if (strchr(sec, '.')) { /* [section.sub]: the old form */
				*strchr(sec, '.') = '\0';
				has_sub = 1;
			}
			if (*p == ' ' || *p == '\t') {
				while (*p == ' ' || *p == '\t')
					p++;
				if (*p++ != '"' || has_sub)
					goto unsafe;
				while (*p && *p != '"' && *p != '\n')
					p += (*p == '\\' && p[1] && p[1] != '\n') ? 2 : 1;
				if (*p++ != '"')
					goto unsafe;
				has_sub = 1;
			}
			if (*p++ != ']')
				goto unsafe;
			continue;
		}
		if (!isalpha((unsigned char)c)) {
			snprintf(bad, badn, "unparsable");
			return 0;
		}
		{
			size_t n = 0;

			while (*p && (isalnum((unsigned char)*p) || *p == '-')) {
				if (n + 1 >= sizeof key)
					goto unsafe;
				key[n++] = (char)tolower((unsigned char)*p++);
			}
			key[n] = '\0';
			if (!sec[0] || !gr_key_inert(sec, has_sub, key)) {
				snprintf(bad, badn, "%s.%s", sec, key);
				return 0;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '\r' && p[1] == '\n')
				p++;
			if (!*p || *p == '\n')
				continue;
			if (*p++ != '=')
				goto unsafe;
			{
				int quote = 0, comment = 0;

				for (; *p; p++) {
					if (*p == '\n')
						break;
					if (comment)
						continue;
					if (!quote && (*p == ';' || *p == '#')) {
						comment = 1;
						continue;
					}
					if (*p == '\\') {
						if (!p[1])
							goto unsafe;
						p++;
						if (*p == '\r' && p[1] == '\n')
							p++;
						if (*p != '\n' && !strchr("tbn\\\"", *p))
							goto unsafe; /* git rejects the file */
						continue;
					}
					if (*p == '"')
						quote = !quote;
				}
				if (quote)
					goto unsafe;
			}
		}
	}
unsafe:
	snprintf(bad, badn, "unparsable");
	return 0;
}

/* Directory of file path (copy into out). */
static void
gr_dirname(const char *path, struct buf *out)
{
	const char *sl = strrchr(path, '/');

	buf_reset(out);
	if (!sl)
		buf_adds(out, ".");
	else if (sl == path)
		buf_adds(out, "/");
	else
		buf_add(out, path, (size_t)(sl - path));
}

/* Resolve "gitdir: X" in file .git at dir into out; 0 on failure. */
static int
gr_gitfile(const char *dir, const char *text, struct buf *out)
{
	size_t n;

	if (strncmp(text, "gitdir: ", 8))
		return 0;
	text += 8;
	n = strcspn(text, "\r\n");
	buf_reset(out);
	if (text[0] != '/')
		buf_addf(out, "%s/", dir);
	buf_add(out, text, n);
	return 1;
}

/*
 * Whether git directory gitdir (work tree top, or "" for a bare one) can
 * make git run a program: its config files (and the common directory's,
 * for a linked worktree), the hooks read commands trigger, submodules.
 */
static int
gr_dir_inert(struct buf *why, const char *gitdir, const char *top)
{
	static const char *const hooks[] = { "post-index-change", "reference-transaction" };
	struct buf common = BUF_INIT, path = BUF_INIT, text = BUF_INIT;
	char bad[160];
	struct stat st;
	int ok = 1, r;
	size_t i;

	buf_adds(&common, gitdir);
	buf_addf(&path, "%s/commondir", gitdir);
	r = gr_read(path.data, &text);
	if (r < 0)
		ok = gr_no(why, "%s cannot be checked", path.data);
	if (r > 0) {
		buf_reset(&common);
		if (text.data[0] != '/')
			buf_addf(&common, "%s/", gitdir);
		buf_add(&common, text.data, strcspn(text.data, "\r\n"));
	}
	for (i = 0; i < 3 && ok; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", i == 2 ? gitdir : common.data,
			 i == 0 ? "config" : "config.worktree");
		r = gr_read(path.data, &text);
		if (r < 0) {
			ok = gr_no(why, "git config %s cannot be checked", path.data);
		} else if (r > 0 && !gr_config_inert(text.data, bad, sizeof bad)) {
			buf_addf(&path, ": %s", bad);
			ok = gr_no(why, "git may run a program named in its config (%s)", path.data);
		}
	}
	for (i = 0; i < 2 && ok; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/hooks/%s", common.data, hooks[i]);
		if (lstat(path.data, &st) == 0)
			ok = gr_no(why, "git would run the hook %s", path.data);
	}
	buf_reset(&path);
	buf_addf(&path, "%s/modules", common.data);
	if (ok && lstat(path.data, &st) == 0)
		ok = gr_no(why, "git would run in submodules (%s)", path.data);
	if (ok && *top) {
		buf_reset(&path);
		buf_addf(&path, "%s/.gitmodules", top);
		if (lstat(path.data, &st) == 0)
			ok = gr_no(why, "git would run in submodules (%s)", path.data);
	}
	buf_release(&common);
	buf_release(&path);
	buf_release(&text);
	return ok;
}

/* See tools/bash_gitrepo.h. */
int
tool_bash_gitrepo_inert(const char *root, struct buf *why)
{
	struct buf dir = BUF_INIT, gitdir = BUF_INIT, path = BUF_INIT, text = BUF_INIT;
	const char *env = getenv("GIT_DIR");
	struct stat st;
	int ok = 1;

	if (env && *env)
		return gr_dir_inert(why, env, "");
	buf_adds(&dir, root);
	while (ok) {
		const char *d = strcmp(dir.data, "/") ? dir.data : "";

		buf_reset(&path);
		buf_addf(&path, "%s/.git", d);
		if (lstat(path.data, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				buf_adds(&gitdir, path.data); /* once: the walk ends here */
			} else if (!S_ISREG(st.st_mode) || gr_read(path.data, &text) != 1 ||
				   !gr_gitfile(dir.data, text.data, &gitdir)) {
				ok = gr_no(why, "%s is neither a directory nor a gitdir file", path.data);
				break;
			}
			ok = gr_dir_inert(why, gitdir.data, dir.data);
			break;
		}
		buf_reset(&path);
		buf_addf(&path, "%s/HEAD", d);
		if (lstat(path.data, &st) == 0) /* a bare repository, or what git may take for one */
			ok = gr_dir_inert(why, dir.data, "");
		if (!*d)
			break;
		gr_dirname(dir.data, &path);
		buf_reset(&dir);
		buf_adds(&dir, path.data);
	}
	buf_release(&dir);
	buf_release(&gitdir);
	buf_release(&path);
	buf_release(&text);
	return ok;
}

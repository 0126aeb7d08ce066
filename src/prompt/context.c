/*
 * prompt/context: context files and prompt templates (rules in prompt/context.h).
 *
 * Context files are gathered into a struct join: the output buffer, the
 * byte budget left under PROMPT_CONTEXT_MAX, and the real paths already taken
 * (so a directory reached twice contributes once).  Once the budget is
 * spent (`cut`), nothing more is added.  Templates are kept in a sorted
 * array; loading the project directory after the user one replaces
 * entries of the same name.
 */
#include "prompt/context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xmalloc.h"

/* Largest template file read. */
#define TEMPLATE_MAX (256 * 1024)

struct join {
	struct buf *out;
	struct buf *warn;
	size_t left;
	int cut;
	char **seen;
	size_t nseen;
	size_t nfiles;
};

/* The user config dir. */
int
prompt_context_config_dir(struct buf *out, struct err *e)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && x[0] == '/')
		buf_addf(out, "%s/hearth", x);
	else if (h && h[0])
		buf_addf(out, "%s/.config/hearth", h);
	else
		return err_set(e, "find the config directory: neither XDG_CONFIG_HOME nor HOME is set");
	return 0;
}

/* Whether dir/name exists (any type). */
static int
exists_in(const char *dir, const char *name)
{
	struct buf p = BUF_INIT;
	struct stat st;
	int ok;

	buf_addf(&p, "%s/%s", dir, name);
	ok = stat(p.data, &st) == 0;
	buf_release(&p);
	return ok;
}

/* Whether a is b or below it. */
static int
is_below(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (n == 1 && b[0] == '/')
		return a[0] == '/';
	return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

/* Nearest ancestor of cwd with .git, else root. */
void
prompt_context_repo_root(const char *root, const char *cwd, struct buf *out)
{
	struct buf d = BUF_INIT;
	char *slash;

	buf_adds(&d, cwd);
	for (;;) {
		if (exists_in(d.len ? d.data : "/", ".git")) {
			buf_adds(out, d.len ? d.data : "/");
			buf_release(&d);
			return;
		}
		if (!d.len || !(slash = strrchr(d.data, '/')))
			break;
		buf_setlen(&d, (size_t)(slash - d.data));
	}
	buf_release(&d);
	buf_adds(out, is_below(cwd, root) ? root : cwd);
}

/* Read up to max bytes of path into b; -1 + e when it cannot be opened or read. */
static int
read_prefix(const char *path, size_t max, struct buf *b, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char chunk[16384];
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return err_errno(e, "read %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, "read %s: not a regular file", path);
	}
	while (b->len < max) {
		size_t want = max - b->len < sizeof chunk ? max - b->len : sizeof chunk;
		n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return n < 0 ? err_errno(e, "read %s", path) : 0;
		}
		buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

/* Whether real path rp was already joined (remembering it if not). */
static int
seen_before(struct join *j, const char *rp)
{
	size_t i;

	for (i = 0; i < j->nseen; i++)
		if (!strcmp(j->seen[i], rp))
			return 1;
	j->seen = xrealloc(j->seen, (j->nseen + 1) * sizeof *j->seen);
	j->seen[j->nseen++] = xstrdup(rp);
	return 0;
}

/* Add one file's header and text within the budget. */
static void
join_text(struct join *j, const char *path, const struct buf *raw, int more)
{
	struct buf t = BUF_INIT;
	size_t n;

	buf_addf(&t, "%s# Context from %s\n\n", j->out->len ? "\n" : "", path);
	fs_add_utf8(&t, raw->data, raw->len);
	buf_rtrim(&t);
	buf_addch(&t, '\n');
	if (t.len <= j->left && !more) {
		buf_add(j->out, t.data, t.len);
		j->left -= t.len;
		buf_release(&t);
		return;
	}
	n = t.len < j->left ? t.len : j->left;
	while (n > 0 && ((unsigned char)t.data[n] & 0xc0) == 0x80)
		n--;
	buf_add(j->out, t.data, n);
	buf_addf(j->out, "\n[context files cut at %d bytes: the rest of %s and any later "
		 "files were left out]\n", PROMPT_CONTEXT_MAX, path);
	j->cut = 1;
	buf_release(&t);
}

/* Join the file dir/name, if it exists. */
static void
join_file(struct join *j, const char *dir, const char *name)
{
	struct buf p = BUF_INIT, raw = BUF_INIT;
	struct err e = ERR_INIT;
	char rp[PATH_MAX];

	if (j->cut)
		return;
	buf_addf(&p, "%s/%s", strcmp(dir, "/") ? dir : "", name);
	if (realpath(p.data, rp) && !seen_before(j, rp)) {
		if (read_prefix(p.data, j->left + 1, &raw, &e) < 0) {
			if (j->warn)
				buf_addf(j->warn, "context file: %s\n", e.msg);
		} else {
			join_text(j, p.data, &raw, raw.len > j->left);
			j->nfiles++;
		}
	}
	buf_release(&p);
	buf_release(&raw);
}

/* Join AGENTS.md (or CLAUDE.md) of dir, then CLAUDE.local.md (Claude Code's private file). */
static void
join_dir(struct join *j, const char *dir)
{
	join_file(j, dir, exists_in(dir, "AGENTS.md") ? "AGENTS.md" : "CLAUDE.md");
	join_file(j, dir, "CLAUDE.local.md");
}

/* Call fn on top, then on each directory below it down to cwd (only top
 * when cwd is not below it). */
static void
walk_down(const char *top, const char *cwd, void (*fn)(const char *dir, void *arg), void *arg)
{
	struct buf d = BUF_INIT;
	const char *s;

	buf_adds(&d, top);
	fn(top, arg);
	for (s = cwd + strlen(top); is_below(cwd, top) && *s;) {
		const char *end;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		end = strchr(s, '/');
		end = end ? end : s + strlen(s);
		if (d.len && d.data[d.len - 1] != '/')
			buf_addch(&d, '/');
		buf_add(&d, s, (size_t)(end - s));
		fn(d.data, arg);
		s = end;
	}
	buf_release(&d);
}

static void
join_one(const char *dir, void *arg)
{
	join_dir(arg, dir);
}

/* Join the repository root's files and each directory below it down to cwd. */
static void
join_path(struct join *j, const char *top, const char *cwd)
{
	walk_down(top, cwd, join_one, j);
}

/* The joined context files. */
size_t
prompt_context_load(const char *root, const char *cwd, struct buf *out, struct buf *warnings)
{
	struct join j = { out, warnings, PROMPT_CONTEXT_MAX, 0, NULL, 0, 0 };
	struct buf cfg = BUF_INIT, top = BUF_INIT;
	size_t i;

	if (prompt_context_config_dir(&cfg, NULL) == 0)
		join_dir(&j, cfg.data);
	if (getenv("HOME") && getenv("HOME")[0] == '/') { /* Claude Code's user memory */
		buf_reset(&cfg);
		buf_addf(&cfg, "%s/.claude", getenv("HOME"));
		join_file(&j, cfg.data, "CLAUDE.md");
	}
	prompt_context_repo_root(root, cwd, &top);
	join_path(&j, top.data, cwd);
	for (i = 0; i < j.nseen; i++)
		free(j.seen[i]);
	free(j.seen);
	buf_release(&cfg);
	buf_release(&top);
	return j.nfiles;
}

/* Length of the line at s (without its '\n'). */
static size_t
line_len(const char *s)
{
	return strcspn(s, "\n");
}

/* Value of a "description:" line (trimmed, malloc'd), or NULL. */
static char *
desc_of(const char *s, size_t n)
{
	static const char key[] = "description:";
	size_t k = sizeof key - 1;

	if (n < k || strncmp(s, key, k))
		return NULL;
	s += k, n -= k;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* Split text into description and body (see prompt/context.h). */
static void
parse_template(const char *text, struct prompt_context_template *t)
{
	size_t n = line_len(text);
	const char *s = text, *body = text;
	char *d;

	if ((d = desc_of(text, n)) != NULL) {
		body = text + n + (text[n] == '\n');
	} else if (n == 3 && !strncmp(text, "---", 3) && text[3] == '\n') {
		for (s = text + 4; *s; s += n + (s[n] == '\n')) {
			n = line_len(s);
			if (n >= 3 && !strncmp(s, "---", 3) && (n == 3 || s[3] == '\r')) {
				body = s + n + (s[n] == '\n');
				break;
			}
			if (!d)
				d = desc_of(s, n);
		}
		if (body == text) { /* no closing line: not front matter */
			free(d);
			d = NULL;
		}
	}
	t->description = d ? d : xstrdup("");
	t->body = xstrdup(body);
}

/* Whether name is a usable command name. */
static int
valid_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", s[i]))
			return 0;
	return n > 0 && s[0] != '.';
}

/* Free one template. */
static void
template_release(struct prompt_context_template *t)
{
	free(t->name), free(t->description), free(t->body), free(t->path);
}

/* Insert t (by name, replacing a same-named one). */
static void
templates_put(struct prompt_context_templates *ts, struct prompt_context_template *t)
{
	size_t i;
	int c = 1;

	for (i = 0; i < ts->n && (c = strcmp(ts->v[i].name, t->name)) < 0; i++)
		;
	if (i < ts->n && c == 0) {
		template_release(&ts->v[i]);
		ts->v[i] = *t;
		return;
	}
	ts->v = xrealloc(ts->v, (ts->n + 1) * sizeof *ts->v);
	memmove(&ts->v[i + 1], &ts->v[i], (ts->n - i) * sizeof *ts->v);
	ts->v[i] = *t;
	ts->n++;
}

/* Load one NAME.md file of dir. */
static void
load_template(struct prompt_context_templates *ts, const char *dir, const char *fn, struct buf *warn)
{
	struct prompt_context_template t = { 0 };
	struct buf p = BUF_INIT, raw = BUF_INIT, text = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	size_t n = strlen(fn) - 3;

	buf_addf(&p, "%s/%s", dir, fn);
	if (stat(p.data, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (warn)
			buf_addf(warn, "prompt template %s: not a regular file; skipped\n", p.data);
	} else if (!valid_name(fn, n)) {
		if (warn)
			buf_addf(warn, "prompt template %s: the name is not a usable command "
				 "(letters, digits, '-', '_', '.'); skipped\n", p.data);
	} else if (buf_read_file(&raw, p.data, TEMPLATE_MAX, &e) < 0) {
		if (warn)
			buf_addf(warn, "prompt template: %s; skipped\n", e.msg);
	} else {
		fs_add_utf8(&text, raw.data, raw.len);
		t.name = xstrndup(fn, n);
		t.path = xstrdup(p.data);
		parse_template(text.data, &t);
		templates_put(ts, &t);
	}
	buf_release(&p);
	buf_release(&raw);
	buf_release(&text);
}

/* Load every *.md of dir (a missing dir is not a problem). */
static void
load_dir(struct prompt_context_templates *ts, const char *dir, struct buf *warn)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n;

	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR && warn)
			buf_addf(warn, "prompt templates: open %s: %s\n", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n > 3 && !strcmp(de->d_name + n - 3, ".md"))
			load_template(ts, dir, de->d_name, warn);
	}
	closedir(d);
}

/*
 * The command directories of a project directory, in the order they load
 * (a later one wins a name): other tools' first, hearth's own last.
 */
static const char *const project_command_dirs[] = {
	".claude/commands", ".opencode/command", ".pi/prompts", ".hearth/prompts",
};

/* Load the project command directories of dir. */
static void
load_project_dirs(struct prompt_context_templates *ts, const char *dir, struct buf *warn)
{
	struct buf d = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof project_command_dirs / sizeof project_command_dirs[0]; i++) {
		buf_reset(&d);
		buf_addf(&d, "%s/%s", strcmp(dir, "/") ? dir : "", project_command_dirs[i]);
		load_dir(ts, d.data, warn);
	}
	buf_release(&d);
}

struct load_project {
	struct prompt_context_templates *ts;
	struct buf *warn;
};

static void
load_one(const char *dir, void *arg)
{
	struct load_project *lp = arg;

	load_project_dirs(lp->ts, dir, lp->warn);
}

/*
 * User templates (Claude Code's, opencode's and pi's command directories,
 * then hearth's), then the project's (which win), from the repository
 * root down to cwd (a nearer directory wins).
 */
void
prompt_context_templates_load(const char *root, struct prompt_context_templates *out, struct buf *warnings)
{
	struct buf dir = BUF_INIT, top = BUF_INIT;
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	struct load_project lp;

	memset(out, 0, sizeof *out);
	if (home && home[0] == '/') {
		buf_addf(&dir, "%s/.claude/commands", home);
		load_dir(out, dir.data, warnings);
		buf_reset(&dir);
		if (xdg && xdg[0] == '/')
			buf_addf(&dir, "%s/opencode/command", xdg);
		else
			buf_addf(&dir, "%s/.config/opencode/command", home);
		load_dir(out, dir.data, warnings);
		buf_reset(&dir);
		buf_addf(&dir, "%s/.pi/agent/prompts", home);
		load_dir(out, dir.data, warnings);
		buf_reset(&dir);
	}
	if (prompt_context_config_dir(&dir, NULL) == 0) {
		buf_adds(&dir, "/prompts");
		load_dir(out, dir.data, warnings);
	}
	/* the project: the repository root, then each directory down to root (the workspace) */
	prompt_context_repo_root(root, root, &top);
	lp.ts = out, lp.warn = warnings;
	walk_down(top.data, root, load_one, &lp);
	buf_release(&dir);
	buf_release(&top);
}

/* Free every template. */
void
prompt_context_templates_release(struct prompt_context_templates *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		template_release(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* Lookup by name. */
const struct prompt_context_template *
prompt_context_template_find(const struct prompt_context_templates *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

/* Split args into words (quotes group); returns the count, *v malloc'd. */
static size_t
split_args(const char *s, char ***v)
{
	struct buf w = BUF_INIT;
	size_t n = 0;
	char q;

	*v = NULL;
	while (s && *s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		for (q = 0; *s && (q || !strchr(" \t\n\r", *s)); s++) {
			if (!q && (*s == '"' || *s == '\''))
				q = *s;
			else if (q && *s == q)
				q = 0;
			else
				buf_addch(&w, *s);
		}
		*v = xrealloc(*v, (n + 1) * sizeof **v);
		(*v)[n++] = buf_detach(&w, NULL);
	}
	return n;
}

/* The body with arguments substituted. */
void
prompt_context_expand(const char *body, const char *args, struct buf *out)
{
	char **v;
	size_t n = split_args(args, &v), i, k;
	const char *s;

	for (s = body; *s; s++) {
		if (*s != '$') {
			buf_addch(out, *s);
		} else if (s[1] == '$') {
			buf_addch(out, '$');
			s++;
		} else if (!strncmp(s + 1, "ARGUMENTS", 9)) { /* Claude Code's, opencode's: the arguments as typed */
			struct buf a = BUF_INIT;

			buf_adds(&a, args ? args : "");
			buf_rtrim(&a);
			buf_adds(out, a.data + strspn(a.data, " \t"));
			buf_release(&a);
			s += 9;
		} else if (s[1] == '@') {
			for (i = 0; i < n; i++)
				buf_addf(out, "%s%s", i ? " " : "", v[i]);
			s++;
		} else if (s[1] >= '1' && s[1] <= '9') {
			for (k = 0, s++; *s >= '0' && *s <= '9'; s++)
				k = k > 100000 ? k : k * 10 + (size_t)(*s - '0');
			s--;
			if (k <= n)
				buf_adds(out, v[k - 1]);
		} else {
			buf_addch(out, '$');
		}
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

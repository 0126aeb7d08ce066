/* tools/bash_readonly: the strict allowlist of read-only shell commands (see tools/bash_readonly.h). */
#include "tools/bash_readonly.h"

#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/workspace.h"
#include "base/xmalloc.h"
#include "tools/bash_gitrepo.h"

/* ---- words -------------------------------------------------------------- */

struct ro_word {
	char *s;        /* the word after quote removal: what the program gets */
	char *pat;      /* the same with quoted glob characters escaped (for glob(3)) */
	int glob;       /* an unquoted * ? [ */
	int quoted;     /* some part was quoted or escaped */
};

struct ro_cmd {
	struct ro_word *w; /* n words, then zeroed slots (w[n].s is NULL once there is a word) */
	size_t n, cap;
};

struct ro_ctx {
	const char *root;
	struct buf *why;
	int ok;         /* 0 once something is not read-only */
};

static int ro_no(struct ro_ctx *c, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Record the first reason the line is not read-only; returns 0. */
static int
ro_no(struct ro_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->ok && c->why) {
		va_start(ap, fmt);
		buf_vaddf(c->why, fmt, ap);
		va_end(ap);
	}
	c->ok = 0;
	return 0;
}

static void
ro_cmd_clear(struct ro_cmd *cmd)
{
	size_t i;

	for (i = 0; i < cmd->n; i++) {
		free(cmd->w[i].s);
		free(cmd->w[i].pat);
	}
	cmd->n = 0;
}

/* ---- paths -------------------------------------------------------------- */

/* A path a command reads: inside the workspace (symlinks resolved), /dev/null or "-". */
static int
ro_path_one(struct ro_ctx *c, const char *p)
{
	struct buf abs = BUF_INIT, lit = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (!strcmp(p, "-") || !strcmp(p, "/dev/null") || !*p)
		return 1;
	if (p[0] == '~') /* a quoted ~ is a directory named "~", not $HOME */
		buf_adds(&lit, "./");
	buf_adds(&lit, p);
	rc = workspace_resolve(c->root, 0, lit.data, &abs, &e);
	if (rc == 0 && (!strncmp(abs.data, "/proc", 5) || !strncmp(abs.data, "/sys", 4)))
		rc = -1;
	buf_release(&abs);
	buf_release(&lit);
	if (rc < 0)
		return ro_no(c, "it reads %s, outside the workspace", p);
	return 1;
}

/*
 * Whether word w, used as a path that is read, is safe: a glob is expanded
 * as the shell would (relative to root) and every match checked; a match
 * that begins with '-' would become an option.
 */
static int
ro_path(struct ro_ctx *c, const struct ro_word *w)
{
	struct buf pat = BUF_INIT;
	glob_t g;
	size_t i, skip = 0;
	int rc, ok = 1;

	if (!w->glob)
		return ro_path_one(c, w->s);
	if (w->pat[0] != '/') {
		if (strpbrk(c->root, "*?[\\"))
			return ro_no(c, "a glob under a root with glob characters (%s)", c->root);
		buf_adds(&pat, c->root);
		if (pat.data[pat.len - 1] != '/') /* a root of "/": "/x", not "//x" (glob gives "/-x" back) */
			buf_addch(&pat, '/');
		skip = pat.len;
	}
	buf_adds(&pat, w->pat);
	memset(&g, 0, sizeof g);
	rc = glob(pat.data, 0, NULL, &g);
	buf_release(&pat);
	if (rc == GLOB_NOMATCH)
		return ro_path_one(c, w->s);
	if (rc != 0)
		return ro_no(c, "the glob %s could not be checked", w->s);
	for (i = 0; ok && i < g.gl_pathc; i++) {
		const char *m = g.gl_pathv[i] + (strlen(g.gl_pathv[i]) >= skip ? skip : 0);

		if (m[0] == '-')
			ok = ro_no(c, "the glob matches %s, which the program would take as an option", m);
		else
			ok = ro_path_one(c, g.gl_pathv[i]);
	}
	globfree(&g);
	return ok;
}

/* A glob in a place that is not a path read: fine only when it matches nothing (stays literal). */
static int
ro_glob_literal(struct ro_ctx *c, const struct ro_word *w)
{
	struct buf pat = BUF_INIT;
	glob_t g;
	int rc;

	if (!w->glob)
		return 1;
	if (w->pat[0] != '/')
		buf_addf(&pat, "%s/", c->root);
	buf_adds(&pat, w->pat);
	memset(&g, 0, sizeof g);
	rc = glob(pat.data, 0, NULL, &g);
	buf_release(&pat);
	globfree(&g);
	if (rc == GLOB_NOMATCH)
		return 1;
	return ro_no(c, "the unquoted %s would be expanded by the shell; quote it", w->s);
}

/* ---- option tables ------------------------------------------------------ */

enum { OP_NONE, OP_PATHS, OP_STRINGS };
enum {
	RO_NUMOPT = 1,   /* -NUM is an option (head -5) */
	RO_NOBUNDLE = 2, /* options are whole words (xxd) */
	RO_PATTERN = 4,  /* the first operand is a pattern unless an option gave one */
	RO_NOOPTS = 8    /* every word is an operand (test, printf) */
};

struct ro_spec;
typedef int (*ro_special_fn)(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first);

/*
 * shorts: option letters; after a letter '#' a number, ':' a string,
 * '@' a path read, '?' an optional value attached to the letter (-U3),
 * then '!' when the value is the pattern (grep -e).
 * longs: space-separated "name", "name=#", "name=:", "name=@", "name?"
 * (optional value, only with '='), '!' the value is the pattern, '^' no
 * pattern at all (rg --files).  Long options match exactly: never by prefix.
 */
struct ro_spec {
	const char *name;
	const char *shorts;
	const char *longs;
	unsigned flags;
	int operands;
	int max; /* operands at most; -1 any */
	ro_special_fn special;
};

/* Whether s is a number as options take them: [+-]digits, then letters or % (sizes, 50%). */
static int
ro_number(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s))
		s++;
	while (isalpha((unsigned char)*s) || *s == '%')
		s++;
	return *s == '\0';
}

/* Check one option value of kind k ('#', ':', '@', '?'). */
static int
ro_value(struct ro_ctx *c, char k, const struct ro_word *w, const char *v)
{
	if (k == '#' && !ro_number(v))
		return ro_no(c, "an option value is not a number: %s", v);
	if (k == '@') {
		struct ro_word tmp = *w;

		if (v != w->s) { /* an attached value: check the text, no glob */
			tmp.s = (char *)v;
			tmp.glob = 0;
		}
		return ro_path(c, &tmp);
	}
	return ro_glob_literal(c, w);
}

/* Option NAME of kind k takes the next word as its value: check it and step *i past it. */
static int
ro_next_value(struct ro_ctx *c, char k, const struct ro_cmd *cmd, size_t *i, const char *name)
{
	if (*i + 1 >= cmd->n)
		return ro_no(c, "option %s lacks its value", name);
	++*i;
	return ro_value(c, k, &cmd->w[*i], cmd->w[*i].s);
}

/* Find long option name (n bytes) in list: its kind char (0 none) and marks; -1 when not listed. */
static int
ro_long_find(const char *list, const char *name, size_t n, char *mark)
{
	const char *p = list;

	while (p && *p) {
		const char *e = p;
		size_t ln;

		while (*e && *e != ' ')
			e++;
		ln = 0;
		while (p + ln < e && p[ln] != '=' && p[ln] != '?' && p[ln] != '!' && p[ln] != '^')
			ln++;
		if (ln == n && !memcmp(p, name, n)) {
			const char *q = p + ln;
			int kind = 0;

			*mark = 0;
			if (*q == '=') {
				kind = q[1];
				q += 2;
			} else if (*q == '?') {
				kind = '?';
				q++;
			}
			if (q < e)
				*mark = *q;
			return kind;
		}
		p = *e ? e + 1 : e;
	}
	return -1;
}

/* Find short option ch: its kind (0 none) and mark; -1 when not listed. */
static int
ro_short_find(const char *list, char ch, char *mark)
{
	const char *p;

	for (p = list; p && *p; p++) {
		if (strchr("#:@?!", *p))
			continue;
		if (*p == ch) {
			int kind = 0;

			*mark = 0;
			if (p[1] && strchr("#:@?", p[1]))
				kind = *++p;
			if (p[1] == '!')
				*mark = '!';
			return kind;
		}
	}
	return -1;
}

/*
 * Walk options and operands from word first: every option listed, every
 * value checked; operands are collected (their indexes) in *opsp, which
 * is allocated here and is the caller's to free, whatever is returned.
 * *pattern: an option gave the pattern (or said there is none).
 */
static int
ro_parse(struct ro_ctx *c, const struct ro_spec *sp, const struct ro_cmd *cmd, size_t first,
	 size_t **opsp, size_t *nops, int *pattern)
{
	size_t i, *ops = *opsp = xcalloc(cmd->n + 1, sizeof *ops);
	int dashdash = 0;

	*nops = 0;
	*pattern = 0;
	for (i = first; i < cmd->n; i++) {
		const struct ro_word *w = &cmd->w[i];
		const char *s = w->s;

		if (dashdash || s[0] != '-' || !s[1] || (sp->flags & RO_NOOPTS)) {
			ops[(*nops)++] = i;
			continue;
		}
		if (!strcmp(s, "--")) {
			dashdash = 1;
			continue;
		}
		if (w->glob && !ro_glob_literal(c, w))
			return 0;
		if (s[1] == '-') {
			const char *eq = strchr(s + 2, '=');
			size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
			char mark = 0;
			int k = ro_long_find(sp->longs, s + 2, n, &mark);

			if (k < 0)
				return ro_no(c, "option %s is not known to be read-only", s);
			if (mark)
				*pattern = 1;
			if (k == 0 && eq)
				return ro_no(c, "option %s takes no value", s);
			if (k == 0 || (k == '?' && !eq))
				continue;
			if (eq) {
				if (!ro_value(c, (char)k, w, eq + 1))
					return 0;
				continue;
			}
			if (!ro_next_value(c, (char)k, cmd, &i, s))
				return 0;
			continue;
		}
		if ((sp->flags & RO_NUMOPT) && strspn(s + 1, "0123456789") == strlen(s + 1))
			continue; /* -NUM, digits only (grep -3f FILE is -3 then -f) */
		if (sp->flags & RO_NOBUNDLE) {
			char mark = 0;
			int k = s[2] ? -1 : ro_short_find(sp->shorts, s[1], &mark);

			if (k < 0)
				return ro_no(c, "option %s is not known to be read-only", s);
			if (k && !ro_next_value(c, (char)k, cmd, &i, s))
				return 0;
			continue;
		}
		{
			size_t j;

			for (j = 1; s[j]; j++) {
				char mark = 0;
				int k = ro_short_find(sp->shorts, s[j], &mark);
				char opt[3] = { '-', s[j], 0 };

				if (k < 0)
					return ro_no(c, "option %s is not known to be read-only", opt);
				if (mark)
					*pattern = 1;
				if (k == 0)
					continue;
				if (k == '?') {
					if (s[j + 1] && !ro_value(c, '?', w, s + j + 1))
						return 0;
					break;
				}
				if (s[j + 1]) {
					if (!ro_value(c, (char)k, w, s + j + 1))
						return 0;
					break;
				}
				if (!ro_next_value(c, (char)k, cmd, &i, opt))
					return 0;
				break;
			}
		}
	}
	return 1;
}

/* Options, then operands as the spec says. */
static int
ro_generic(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	size_t *ops, nops, i, from = 0;
	int pattern, ok;

	ok = ro_parse(c, sp, cmd, first, &ops, &nops, &pattern);
	if (ok && (sp->flags & RO_PATTERN) && !pattern && nops) {
		ok = ro_glob_literal(c, &cmd->w[ops[0]]); /* the pattern */
		from = 1;
	}
	if (ok && sp->max >= 0 && nops - from > (size_t)sp->max)
		ok = ro_no(c, "%s: an operand beyond the ones it reads (it could be an output file)",
			   sp->name);
	if (ok && sp->operands == OP_NONE && nops > from)
		ok = ro_no(c, "%s takes no operands here", sp->name);
	for (i = from; ok && i < nops; i++) {
		const struct ro_word *w = &cmd->w[ops[i]];

		if (sp->operands == OP_PATHS)
			ok = ro_path(c, w);
		else
			ok = ro_glob_literal(c, w);
	}
	free(ops);
	return ok;
}

/* ---- sed ---------------------------------------------------------------- */

/*
 * Skip a regex or s/// part delimited by d starting at *pp (after the
 * opening delimiter); a bracket expression may not contain d or '[' (so
 * that sed and this scan agree on where it ends).  With d ']' no '[' at
 * all: sed reads no bracket in a replacement or y/// part, so the
 * bracket's own ']' ends the part there (s]x]a[b]w y] writes "y]").
 * 0 when malformed.
 */
static int
ro_sed_delim(const char **pp, char d)
{
	const char *p = *pp;

	while (*p && *p != d && *p != '\n') {
		if (*p == '\\') {
			if (!p[1] || p[1] == '\n')
				return 0;
			p += 2;
			continue;
		}
		if (*p == '[') {
			const char *q = p + 1;

			if (d == ']')
				return 0;

			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']') {
				if (*q == d || *q == '[' || *q == '\n' || *q == '\\')
					return 0;
				q++;
			}
			if (*q != ']')
				return 0;
			p = q + 1;
			continue;
		}
		p++;
	}
	if (*p != d)
		return 0;
	*pp = p + 1;
	return 1;
}

/* One sed address: N, $, first~step, /re/[IM], \cREc[IM], +N / ~N (second only). */
static int
ro_sed_addr(const char **pp, int second)
{
	const char *p = *pp;

	if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '~') {
			p++;
			while (isdigit((unsigned char)*p))
				p++;
		}
	} else if (*p == '$') {
		p++;
	} else if (second && (*p == '+' || *p == '~') && isdigit((unsigned char)p[1])) {
		p++;
		while (isdigit((unsigned char)*p))
			p++;
	} else if (*p == '/' || (*p == '\\' && p[1] && p[1] != '\n' && p[1] != '\\')) {
		char d = *p == '/' ? '/' : p[1];

		p += *p == '/' ? 1 : 2;
		if (!ro_sed_delim(&p, d))
			return 0;
		while (*p == 'I' || *p == 'M')
			p++;
	} else {
		return 0;
	}
	*pp = p;
	return 1;
}

/* Whether a sed script uses only commands that print (no w, W, e, r, R, s///e, s///w). */
static int
ro_sed_script(const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';')
			p++;
		if (!*p)
			return 1;
		if (*p == '#') { /* a comment to the end of the line (#n first: -n) */
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '}') {
			p++;
			continue;
		}
		if (*p != '{' && *p != 's' && *p != 'y' && !strchr("pPlL=dDnNgGhHxqQz!", *p)) {
			if (!ro_sed_addr(&p, 0))
				return 0;
			while (*p == ' ')
				p++;
			if (*p == ',') {
				p++;
				while (*p == ' ')
					p++;
				if (!ro_sed_addr(&p, 1))
					return 0;
			}
		}
		while (*p == ' ')
			p++;
		while (*p == '!' || *p == ' ')
			p++;
		if (*p == '{') {
			p++;
			continue;
		}
		if (*p == 's' || *p == 'y') {
			char cmdc = *p, d = p[1];

			if (!d || d == '\n' || d == '\\')
				return 0;
			p += 2;
			if (!ro_sed_delim(&p, d) || !ro_sed_delim(&p, d))
				return 0;
			if (cmdc == 's')
				while (*p && strchr("gpiImM0123456789", *p))
					p++;
		} else if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'Q') {
			p++;
			while (*p == ' ')
				p++;
			while (isdigit((unsigned char)*p))
				p++;
		} else if (*p && strchr("pP=dDnNgGhHxz", *p)) {
			p++;
		} else {
			return 0;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != ';' && *p != '\n' && *p != '}' && *p != '#')
			return 0;
	}
}

static int
ro_sed(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	size_t i, nscripts = 0;
	int dashdash = 0, have_e = 0;

	(void)sp;
	for (i = first; i < cmd->n; i++) /* -e / --expression given: every operand is a file */
		if (!strcmp(cmd->w[i].s, "--"))
			break;
		else if (!strcmp(cmd->w[i].s, "-e") || !strcmp(cmd->w[i].s, "-ne") ||
			 !strncmp(cmd->w[i].s, "--expression", 12))
			have_e = 1;
	for (i = first; i < cmd->n; i++) {
		const struct ro_word *w = &cmd->w[i];
		const char *s = w->s, *script = NULL;

		if (!dashdash && !strcmp(s, "--")) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && s[0] == '-' && s[1]) {
			if (!strcmp(s, "-e") || !strcmp(s, "--expression") || !strcmp(s, "-ne")) {
				if (++i >= cmd->n)
					return ro_no(c, "sed %s lacks its script", s);
				script = cmd->w[i].s;
			} else if (!strncmp(s, "--expression=", 13)) {
				script = s + 13;
			} else if (!strcmp(s, "-n") || !strcmp(s, "-E") || !strcmp(s, "-r") ||
				   !strcmp(s, "-s") || !strcmp(s, "-z") || !strcmp(s, "-u") ||
				   !strcmp(s, "--quiet") || !strcmp(s, "--silent") ||
				   !strcmp(s, "--regexp-extended") || !strcmp(s, "--separate") ||
				   !strcmp(s, "--null-data") || !strcmp(s, "--posix") ||
				   !strcmp(s, "--sandbox") || !strcmp(s, "--debug") ||
				   !strcmp(s, "-nE") || !strcmp(s, "-En") || !strcmp(s, "-nr") ||
				   !strcmp(s, "-rn")) {
				continue;
			} else {
				return ro_no(c, "sed option %s is not known to be read-only", s);
			}
		} else if (!have_e && nscripts == 0) {
			script = s;
		} else {
			if (!ro_path(c, w))
				return 0;
			continue;
		}
		nscripts++;
		if (cmd->w[i].glob && !ro_glob_literal(c, &cmd->w[i]))
			return 0;
		if (!ro_sed_script(script))
			return ro_no(c, "the sed script %s may write a file or run a command (only p = l d q s/// y/// are read-only)", script);
	}
	if (!nscripts)
		return ro_no(c, "sed without a script%s", "");
	return 1;
}

/* ---- awk ---------------------------------------------------------------- */

static int
ro_awk(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	static const char *const bad[] = { "system", "getline", "ENVIRON", "PROCINFO", "ARGV",
					   "ARGC", "close", "|", ">", "@", "fflush" };
	size_t i, k;
	int have_prog = 0, dashdash = 0;

	(void)sp;
	for (i = first; i < cmd->n; i++) {
		const struct ro_word *w = &cmd->w[i];
		const char *s = w->s;

		if (!dashdash && !have_prog && !strcmp(s, "--")) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && !have_prog && s[0] == '-' && s[1]) {
			if (!strcmp(s, "-F") || !strcmp(s, "-v")) {
				if (++i >= cmd->n)
					return ro_no(c, "awk %s lacks its value", s);
				if (cmd->w[i].glob && !ro_glob_literal(c, &cmd->w[i]))
					return 0;
			} else if (!strncmp(s, "-F", 2) || !strncmp(s, "-v", 2)) {
				if (w->glob && !ro_glob_literal(c, w))
					return 0;
			} else {
				return ro_no(c, "awk option %s is not known to be read-only", s);
			}
			continue;
		}
		if (!have_prog) {
			for (k = 0; k < sizeof bad / sizeof bad[0]; k++)
				if (strstr(s, bad[k]))
					return ro_no(c, "the awk program uses %s (it can run commands, write files or read the environment)", bad[k]);
			if (w->glob && !ro_glob_literal(c, w))
				return 0;
			have_prog = 1;
			continue;
		}
		if (strchr(s, '=') && (isalpha((unsigned char)s[0]) || s[0] == '_'))
			continue; /* var=value operand: an assignment, not a file */
		if (!ro_path(c, w))
			return 0;
	}
	if (!have_prog)
		return ro_no(c, "awk without a program%s", "");
	return 1;
}

/* ---- find --------------------------------------------------------------- */

static int
ro_find(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	/* primaries without a value, and with one value */
	static const char none[] =
		" -print -print0 -prune -o -or -a -and -not ! ( ) , -empty -depth -xdev -mount"
		" -noleaf -daystart -true -false -readable -writable -executable -nouser -nogroup"
		" -ls -quit -ignore_readdir_race -noignore_readdir_race -P -H ";
	static const char one[] =
		" -name -iname -path -ipath -wholename -iwholename -type -xtype -maxdepth -mindepth"
		" -mtime -mmin -atime -amin -ctime -cmin -size -regex -iregex -regextype -perm -user"
		" -group -uid -gid -links -lname -ilname -printf -used -inum -samefile -newer -anewer"
		" -cnewer -fstype ";
	size_t i = first;
	char key[64];

	(void)sp;
	for (; i < cmd->n; i++) { /* starting points: up to the first expression word */
		const char *s = cmd->w[i].s;

		if (s[0] == '-' || !strcmp(s, "(") || !strcmp(s, "!") || !strcmp(s, ","))
			break;
		if (!ro_path(c, &cmd->w[i]))
			return 0;
	}
	for (; i < cmd->n; i++) {
		const struct ro_word *w = &cmd->w[i];

		if (w->glob && !ro_glob_literal(c, w))
			return 0;
		if (strlen(w->s) + 3 > sizeof key)
			return ro_no(c, "find: %s is not a known read-only primary", w->s);
		snprintf(key, sizeof key, " %s ", w->s);
		if (strstr(none, key))
			continue;
		if (strstr(one, key)) {
			if (++i >= cmd->n)
				return ro_no(c, "find %s lacks its value", w->s);
			if (!strcmp(w->s, "-samefile") || !strcmp(w->s, "-newer") ||
			    !strcmp(w->s, "-anewer") || !strcmp(w->s, "-cnewer")) {
				if (!ro_path(c, &cmd->w[i]))
					return 0;
			} else if (cmd->w[i].glob && !ro_glob_literal(c, &cmd->w[i])) {
				return 0;
			}
			continue;
		}
		return ro_no(c, "find %s is not a known read-only primary (no -exec, -ok, -delete, -fprint, -fls, -L)", w->s);
	}
	return 1;
}

/* ---- git ---------------------------------------------------------------- */

/* Whether the repository git would use from c->root cannot make git run a program. */
static int
ro_git_repo_inert(struct ro_ctx *c)
{
	struct buf why = BUF_INIT;
	int ok = tool_bash_gitrepo_inert(c->root, &why);

	if (!ok)
		ro_no(c, "%s", why.data);
	buf_release(&why);
	return ok;
}

#define GIT_DIFFOPT \
	" patch no-patch unified=# raw patch-with-raw stat? numstat shortstat dirstat?" \
	" summary patch-with-stat name-only name-status abbrev? no-abbrev full-index binary" \
	" color? no-color color-moved? color-words? word-diff? word-diff-regex=: no-renames" \
	" find-renames? find-copies? break-rewrites? irreversible-delete diff-filter=:" \
	" pickaxe-all pickaxe-regex relative? no-relative text ignore-cr-at-eol" \
	" ignore-space-at-eol ignore-space-change ignore-all-space ignore-blank-lines" \
	" inter-hunk-context=# function-context exit-code quiet no-ext-diff no-textconv" \
	" ignore-submodules? src-prefix=: dst-prefix=: no-prefix minimal patience histogram" \
	" anchored=: diff-algorithm=: indent-heuristic no-indent-heuristic check ws-error-highlight=:" \
	" compact-summary stat-width=# stat-name-width=# stat-count=# stat-graph-width=#" \
	" line-prefix=: ita-invisible-in-index cached staged merge-base"
#define GIT_LOGOPT \
	" oneline max-count=# skip=# since=: until=: after=: before=: author=: committer=:" \
	" grep=: all-match invert-grep regexp-ignore-case extended-regexp fixed-strings" \
	" perl-regexp merges no-merges min-parents=# max-parents=# first-parent all branches?" \
	" tags? remotes? glob=: exclude=: follow decorate? no-decorate source graph reverse" \
	" topo-order date-order author-date-order format=: pretty? abbrev-commit no-abbrev-commit" \
	" date=: relative-date parents children left-right cherry-pick cherry-mark cherry boundary" \
	" full-history simplify-by-decoration simplify-merges ancestry-path? dense sparse" \
	" walk-reflogs no-walk? do-walk encoding=: expand-tabs? no-expand-tabs no-notes" \
	" log-size use-mailmap mailmap no-use-mailmap no-mailmap cc diff-merges=:" \
	" combined-all-paths full-diff no-color-moved clear-decorations" \
	" decorate-refs=: decorate-refs-exclude=: not root"

static const struct ro_spec ro_git_subs[] = {
	{ "status", "szbvu?", " short branch porcelain? long verbose untracked-files? ignored?"
	  " ignore-submodules? no-renames renames find-renames? show-stash ahead-behind"
	  " no-ahead-behind column? no-column null", 0, OP_PATHS, -1, NULL },
	{ "log", "pusUMCBDlSGRabwWinEFPgcmtz#", GIT_DIFFOPT GIT_LOGOPT, RO_NUMOPT, OP_PATHS, -1, NULL },
	{ "whatchanged", "pusUMCBDlSGRabwWinEFPgcmtz#", GIT_DIFFOPT GIT_LOGOPT, RO_NUMOPT, OP_PATHS, -1, NULL },
	{ "show", "pusUMCBDlSGRabwWinEFPgcmtz#", GIT_DIFFOPT GIT_LOGOPT, RO_NUMOPT, OP_PATHS, -1, NULL },
	{ "diff", "pusU#M?C?B?DlSGRabwWz", GIT_DIFFOPT " no-index", 0, OP_PATHS, -1, NULL },
	{ "blame", "bcelpstnwfM?C?L:", " root show-stats porcelain line-porcelain incremental"
	  " show-name show-number show-email since=: reverse=: first-parent date=: abbrev?"
	  " color-lines color-by-age progress no-progress minimal ignore-rev=: score-debug", 0,
	  OP_PATHS, -1, NULL },
	{ "shortlog", "sneccw?", " summary numbered email committer group=: format=:" GIT_LOGOPT, 0,
	  OP_PATHS, -1, NULL },
	{ "rev-parse", "q", " verify short? abbrev-ref? symbolic symbolic-full-name show-toplevel"
	  " show-prefix show-cdup git-dir git-common-dir absolute-git-dir is-inside-work-tree"
	  " is-inside-git-dir is-bare-repository is-shallow-repository show-superproject-working-tree"
	  " quiet all branches? tags? remotes? default=: sq revs-only no-revs flags no-flags"
	  " local-env-vars show-object-format? since=: until=: path-format=:", 0, OP_PATHS, -1, NULL },
	{ "rev-list", "n#", " count all branches? tags? remotes? max-count=# skip=# since=: until=:"
	  " reverse first-parent no-merges merges objects left-right cherry-pick topo-order"
	  " date-order oneline abbrev-commit format=: pretty? parents children boundary"
	  " ancestry-path? not", RO_NUMOPT, OP_PATHS, -1, NULL },
	{ "ls-files", "cdmoiskutvfzx:", " cached deleted modified others ignored stage killed"
	  " unmerged full-name error-unmatch exclude=: exclude-standard directory"
	  " no-empty-directory abbrev? eol debug deduplicate format=: sparse", 0, OP_PATHS, -1, NULL },
	{ "ls-tree", "rtdlz", " long name-only name-status object-only full-name full-tree abbrev?"
	  " format=:", 0, OP_PATHS, -1, NULL },
	{ "cat-file", "tsepP", " batch-check? batch? allow-unknown-type follow-symlinks"
	  " batch-all-objects", 0, OP_PATHS, 2, NULL },
	{ "grep", "nlLhHicowvEFGPrIz3A#B#C#e:!f@!m#pW", " line-number files-with-matches"
	  " files-without-match ignore-case count only-matching word-regexp invert-match"
	  " extended-regexp fixed-strings basic-regexp perl-regexp recursive no-recursive"
	  " text heading break full-name null cached untracked no-index no-exclude-standard"
	  " exclude-standard max-depth=# and or not all-match show-function function-context"
	  " max-count=# threads=# column color? no-color quiet regexp=:! file=@!"
	  " after-context=# before-context=# context=#", RO_NUMOPT | RO_PATTERN, OP_PATHS, -1, NULL },
	{ "describe", "", " tags all always long abbrev=# dirty? broken? exact-match match=:"
	  " exclude=: contains first-parent candidates=#", 0, OP_PATHS, -1, NULL },
	{ "merge-base", "a", " all octopus is-ancestor independent fork-point", 0, OP_PATHS, -1, NULL },
	{ "show-ref", "sdq", " head tags heads hash? abbrev? verify dereference quiet exists", 0,
	  OP_PATHS, -1, NULL },
	{ "for-each-ref", "", " count=# sort=: format=: points-at=: merged? no-merged? contains?"
	  " no-contains? ignore-case shell python tcl perl", 0, OP_PATHS, -1, NULL },
	{ "name-rev", "", " tags refs=: exclude=: all annotate-stdin name-only no-undefined always",
	  0, OP_PATHS, -1, NULL },
	{ "check-ignore", "qvn", " quiet verbose non-matching no-index", 0, OP_PATHS, -1, NULL },
	{ "count-objects", "vH", " verbose human-readable", 0, OP_NONE, 0, NULL },
	/* listing forms only (checked in ro_git) */
	{ "branch", "arvlv", " all remotes verbose list show-current contains? no-contains? merged?"
	  " no-merged? sort=: format=: color? no-color points-at=: column? ignore-case", 0,
	  OP_STRINGS, -1, NULL },
	{ "tag", "ln?", " list sort=: contains? no-contains? merged? no-merged? points-at=:"
	  " format=: column? color? ignore-case", 0, OP_STRINGS, -1, NULL },
	{ "remote", "v", " verbose", 0, OP_NONE, 0, NULL },
	{ "stash", "p", " patch stat" GIT_LOGOPT, 0, OP_STRINGS, -1, NULL },
	{ "reflog", "n#", GIT_LOGOPT, RO_NUMOPT, OP_STRINGS, -1, NULL },
	{ "worktree", "v", " verbose porcelain", 0, OP_STRINGS, 1, NULL },
};

static int
ro_git(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	static const char *const global_ok[] = { "--no-pager", "--no-optional-locks",
						 "--literal-pathspecs", "--glob-pathspecs",
						 "--noglob-pathspecs", "--icase-pathspecs", "-P",
						 "--no-replace-objects" };
	const struct ro_spec *sub = NULL;
	size_t i = first, k, *ops, nops;
	int pattern, ok;
	const char *name;

	(void)sp;
	for (; i < cmd->n && cmd->w[i].s[0] == '-'; i++) {
		if (!strcmp(cmd->w[i].s, "--version") && i + 1 == cmd->n)
			return 1;
		for (k = 0; k < sizeof global_ok / sizeof global_ok[0]; k++)
			if (!strcmp(cmd->w[i].s, global_ok[k]))
				break;
		if (k == sizeof global_ok / sizeof global_ok[0])
			return ro_no(c, "git option %s is not known to be read-only (no -c, -C, --exec-path, --git-dir, --work-tree, --config-env, -p)", cmd->w[i].s);
	}
	if (i >= cmd->n)
		return ro_no(c, "git without a subcommand%s", "");
	name = cmd->w[i].s;
	if (!strcmp(name, "version") && i + 1 == cmd->n)
		return 1;
	for (k = 0; k < sizeof ro_git_subs / sizeof ro_git_subs[0]; k++)
		if (!strcmp(name, ro_git_subs[k].name))
			sub = &ro_git_subs[k];
	if (!sub || cmd->w[i].quoted || cmd->w[i].glob)
		return ro_no(c, "git %s is not a known read-only subcommand", name);
	i++;
	ok = ro_parse(c, sub, cmd, i, &ops, &nops, &pattern);
	if (ok && !strcmp(name, "branch") && nops) {
		for (k = i; k < cmd->n; k++)
			if (!strcmp(cmd->w[k].s, "--list") || !strcmp(cmd->w[k].s, "-l") ||
			    !strcmp(cmd->w[k].s, "-a") || !strcmp(cmd->w[k].s, "-r"))
				break;
		if (k == cmd->n)
			ok = ro_no(c, "git branch with a name creates a branch (use --list)%s", "");
	}
	if (ok && !strcmp(name, "tag") && nops) {
		for (k = i; k < cmd->n; k++)
			if (!strcmp(cmd->w[k].s, "--list") || !strcmp(cmd->w[k].s, "-l"))
				break;
		if (k == cmd->n)
			ok = ro_no(c, "git tag with a name creates a tag (use --list)%s", "");
	}
	if (ok && !strcmp(name, "stash") &&
	    (!nops || (strcmp(cmd->w[ops[0]].s, "list") && strcmp(cmd->w[ops[0]].s, "show"))))
		ok = ro_no(c, "only git stash list and git stash show are read-only%s", "");
	if (ok && !strcmp(name, "reflog") && nops && strcmp(cmd->w[ops[0]].s, "show"))
		ok = ro_no(c, "only git reflog [show] is read-only%s", "");
	if (ok && !strcmp(name, "worktree") && (nops != 1 || strcmp(cmd->w[ops[0]].s, "list")))
		ok = ro_no(c, "only git worktree list is read-only%s", "");
	if (ok && sub->max >= 0 && nops > (size_t)sub->max)
		ok = ro_no(c, "git %s: too many operands", name);
	if (ok && sub->operands == OP_NONE && nops)
		ok = ro_no(c, "git %s takes no operands here", name);
	for (k = ((sub->flags & RO_PATTERN) && !pattern) ? 1 : 0; ok && k < nops; k++) {
		const struct ro_word *w = &cmd->w[ops[k]];

		ok = sub->operands == OP_PATHS ? ro_path(c, w) : ro_glob_literal(c, w);
	}
	if (ok && nops && (sub->flags & RO_PATTERN) && !pattern)
		ok = ro_glob_literal(c, &cmd->w[ops[0]]);
	free(ops);
	return ok && ro_git_repo_inert(c);
}

/* ---- printf and date ----------------------------------------------------- */

/* printf -v NAME assigns a shell variable (printf -v PATH . ; ls runs ./ls): no option at all. */
static int
ro_printf(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	if (first < cmd->n && cmd->w[first].s[0] == '-')
		return ro_no(c, "printf %s (printf -v assigns a shell variable)", cmd->w[first].s);
	return ro_generic(c, sp, cmd, first);
}

/* An operand of date that is not +FORMAT is a time to set the clock to (date 0101...). */
static int
ro_date(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	size_t *ops, nops, i;
	int pattern, ok;

	ok = ro_parse(c, sp, cmd, first, &ops, &nops, &pattern);
	for (i = 0; ok && i < nops; i++)
		if (cmd->w[ops[i]].s[0] != '+')
			ok = ro_no(c, "date %s sets the clock (only date +FORMAT is read-only)",
				   cmd->w[ops[i]].s);
	free(ops);
	return ok && ro_generic(c, sp, cmd, first);
}

/*
 * diff DIR X compares the files of DIR by name and follows the symlinks
 * among them (diff dir1 dir2 prints a dir1/x -> /etc/hostname): no
 * directory operand, and no glob, which might expand to one.
 */
static int
ro_diff(struct ro_ctx *c, const struct ro_spec *sp, struct ro_cmd *cmd, size_t first)
{
	size_t *ops, nops, i;
	int pattern, ok;

	ok = ro_parse(c, sp, cmd, first, &ops, &nops, &pattern);
	for (i = 0; ok && i < nops; i++) {
		const struct ro_word *w = &cmd->w[ops[i]];
		struct buf abs = BUF_INIT;
		struct err e = ERR_INIT;
		struct stat st;

		if (w->glob)
			ok = ro_no(c, "diff with a glob (%s) might compare a directory", w->s);
		else if (workspace_resolve(c->root, 0, w->s, &abs, &e) == 0 &&
			 stat(abs.data, &st) == 0 && S_ISDIR(st.st_mode))
			ok = ro_no(c, "diff of the directory %s follows the symlinks in it", w->s);
		buf_release(&abs);
		err_clear(&e);
	}
	free(ops);
	return ok && ro_generic(c, sp, cmd, first);
}

/* ---- the command table --------------------------------------------------- */

#define GREP_SHORTS "EFGPe:!f@!iywxvcLlm#obHhnqsrTZzaIUuA#B#C#D:d:"
#define GREP_LONGS                                                                              \
	" extended-regexp fixed-strings basic-regexp perl-regexp regexp=:! file=@! ignore-case"   \
	" no-ignore-case word-regexp line-regexp no-messages invert-match version help"           \
	" max-count=# byte-offset line-number no-line-number line-buffered with-filename"         \
	" no-filename label=: only-matching quiet silent binary-files=: text include=:"           \
	" exclude=: exclude-from=@ exclude-dir=: files-without-match files-with-matches count"    \
	" initial-tab null null-data before-context=# after-context=# context=# color? colour?"   \
	" binary recursive devices=: directories=:"

static const struct ro_spec ro_cmds[] = {
	{ "ls", "aAbBcCdfFgGhiklmnNopqQrRsStuUvxXZ1T#w#I:", " all almost-all author escape"
	  " block-size=: ignore-backups directory classify? file-type full-time group-directories-first"
	  " no-group human-readable si hide=: hyperlink? indicator-style=: inode ignore=: kibibytes"
	  " literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style=:"
	  " reverse recursive size sort=: time=: time-style=: tabsize=# width=# context zero color?",
	  0, OP_PATHS, -1, NULL },
	{ "cat", "AbeEnstTuv", " show-all number-nonblank show-ends number squeeze-blank show-tabs"
	  " show-nonprinting", 0, OP_PATHS, -1, NULL },
	{ "tac", "brs:", " before regex separator=:", 0, OP_PATHS, -1, NULL },
	{ "head", "c#n#qvz", " bytes=# lines=# quiet silent verbose zero-terminated", RO_NUMOPT,
	  OP_PATHS, -1, NULL },
	{ "tail", "c#n#qvz", " bytes=# lines=# quiet silent verbose zero-terminated", RO_NUMOPT,
	  OP_PATHS, -1, NULL },
	{ "wc", "clmwL", " bytes chars lines words max-line-length total=:", 0, OP_PATHS, -1, NULL },
	{ "grep", GREP_SHORTS, GREP_LONGS, RO_NUMOPT | RO_PATTERN, OP_PATHS, -1, NULL },
	{ "egrep", GREP_SHORTS, GREP_LONGS, RO_NUMOPT | RO_PATTERN, OP_PATHS, -1, NULL },
	{ "fgrep", GREP_SHORTS, GREP_LONGS, RO_NUMOPT | RO_PATTERN, OP_PATHS, -1, NULL },
	{ "rg", "e:!f@!iSsFwxvcloqnNHhIpuabUPA#B#C#m#M#t:T:g:d#j#E:r:0.", " regexp=:! file=@!"
	  " ignore-case smart-case case-sensitive fixed-strings word-regexp line-regexp invert-match"
	  " count count-matches files-with-matches files-without-match only-matching quiet"
	  " line-number no-line-number with-filename no-filename no-heading heading column"
	  " vimgrep json pretty text binary multiline multiline-dotall pcre2 no-pcre2 unrestricted"
	  " hidden no-hidden no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global"
	  " no-ignore-exclude no-ignore-files no-ignore-messages no-messages after-context=#"
	  " before-context=# context=# max-count=# max-columns=# max-columns-preview max-depth=#"
	  " max-filesize=: type=: type-not=: glob=: iglob=: glob-case-insensitive sort=: sortr=:"
	  " color=: colors=: context-separator=: field-match-separator=: field-context-separator=:"
	  " path-separator=: replace=: trim null null-data passthru crlf encoding=: engine=:"
	  " stats threads=# ignore-file=@ files^ type-list^ no-config byte-offset line-buffered"
	  " block-buffered include-zero no-unicode one-file-system", RO_PATTERN, OP_PATHS, -1, NULL },
	{ "find", "", "", 0, OP_PATHS, -1, ro_find },
	{ "sed", "", "", 0, OP_PATHS, -1, ro_sed },
	{ "awk", "", "", 0, OP_PATHS, -1, ro_awk },
	{ "mawk", "", "", 0, OP_PATHS, -1, ro_awk },
	{ "git", "", "", 0, OP_PATHS, -1, ro_git },
	{ "pwd", "LP", "", 0, OP_NONE, 0, NULL },
	{ "echo", "neE", "", 0, OP_STRINGS, -1, NULL },
	{ "printf", "", "", RO_NOOPTS, OP_STRINGS, -1, ro_printf },
	{ "true", "", "", RO_NOOPTS, OP_STRINGS, -1, NULL },
	{ "false", "", "", RO_NOOPTS, OP_STRINGS, -1, NULL },
	{ "which", "as", "", 0, OP_STRINGS, -1, NULL },
	{ "type", "aftpP", "", 0, OP_STRINGS, -1, NULL },
	{ "basename", "as:z", " multiple suffix=: zero", 0, OP_STRINGS, -1, NULL },
	{ "dirname", "z", " zero", 0, OP_STRINGS, -1, NULL },
	{ "realpath", "emLPqsz", " canonicalize-existing canonicalize-missing logical physical"
	  " quiet strip no-symlinks zero relative-to=: relative-base=:", 0, OP_STRINGS, -1, NULL },
	{ "readlink", "femnqsvz", " canonicalize canonicalize-existing canonicalize-missing"
	  " no-newline quiet silent verbose zero", 0, OP_STRINGS, -1, NULL },
	{ "file", "bchiklLNnprsS0e:F:", " brief mime mime-type mime-encoding keep-going"
	  " dereference no-dereference no-pad preserve-date raw special-files no-sandbox print0"
	  " exclude=: separator=: extension apple", 0, OP_PATHS, -1, NULL },
	{ "stat", "fLtc:", " file-system dereference terse format=: printf=: cached=:", 0, OP_PATHS,
	  -1, NULL },
	{ "du", "0abcDhHklmsSxd#t:B:", " null all apparent-size bytes total dereference-args"
	  " human-readable si summarize separate-dirs one-file-system max-depth=# threshold=:"
	  " block-size=: exclude=: time? inodes", 0, OP_PATHS, -1, NULL },
	{ "df", "ahiklPTHt:x:B:", " all human-readable si inodes local portability print-type"
	  " total type=: exclude-type=: block-size=: output?", 0, OP_PATHS, -1, NULL },
	{ "tree", "adfixpsugDFvtcrhqNACSnJL#I:P:", " noreport dirsfirst filesfirst gitignore"
	  " charset=: du prune matchdirs ignore-case filelimit=# sort=: si inodes device",
	  0, OP_PATHS, -1, NULL },
	{ "cut", "b:c:f:d:nsz", " bytes=: characters=: fields=: delimiter=: complement"
	  " only-delimited output-delimiter=: zero-terminated", 0, OP_PATHS, -1, NULL },
	{ "sort", "bdfgiMhnRrVcCsuzk:t:S:", " ignore-leading-blanks dictionary-order ignore-case"
	  " general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort"
	  " random-sort reverse version-sort sort=: check? stable unique zero-terminated key=:"
	  " field-separator=: buffer-size=: parallel=# debug", 0, OP_PATHS, -1, NULL },
	{ "uniq", "cdDiuzf#s#w#", " count repeated all-repeated? ignore-case unique zero-terminated"
	  " skip-fields=# skip-chars=# check-chars=# group?", 0, OP_PATHS, 1, NULL },
	{ "tr", "cCdst", " complement delete squeeze-repeats truncate-set1", 0, OP_STRINGS, 2, NULL },
	{ "nl", "pb:d:f:h:i#l#n:s:v#w#", " body-numbering=: section-delimiter=: footer-numbering=:"
	  " header-numbering=: line-increment=# join-blank-lines=# number-format=: no-renumber"
	  " number-separator=: starting-line-number=# number-width=#", 0, OP_PATHS, 1, NULL },
	{ "diff", "abBdeEinNpqstTuwyZU#C#W#x:X@F:I:", " normal brief report-identical-files"
	  " context? unified? ed rcs side-by-side left-column suppress-common-lines show-c-function"
	  " show-function-line=: label=: expand-tabs initial-tab suppress-blank-empty"
	  " tabsize=# strip-trailing-cr ignore-case ignore-tab-expansion ignore-trailing-space"
	  " ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines=: text"
	  " minimal speed-large-files horizon-lines=# color? palette=: width=# exclude=:"
	  " exclude-from=@ new-file unidirectional-new-file no-dereference", 0, OP_PATHS, 2, ro_diff },
	{ "cmp", "blsn#i:", " print-bytes verbose silent quiet bytes=# ignore-initial=:", 0,
	  OP_PATHS, 2, NULL },
	{ "comm", "123iz", " check-order nocheck-order output-delimiter=: total zero-terminated",
	  0, OP_PATHS, 2, NULL },
	{ "md5sum", "btz", " binary text zero tag", 0, OP_PATHS, -1, NULL },
	{ "sha1sum", "btz", " binary text zero tag", 0, OP_PATHS, -1, NULL },
	{ "sha256sum", "btz", " binary text zero tag", 0, OP_PATHS, -1, NULL },
	{ "sha512sum", "btz", " binary text zero tag", 0, OP_PATHS, -1, NULL },
	{ "xxd", "pubeiEc#l#s#g#o#", "", RO_NOBUNDLE, OP_PATHS, 1, NULL },
	{ "od", "bcdfilosvxA:j#N#S#t:w?", " address-radix=: endian=: skip-bytes=# read-bytes=#"
	  " strings? format=: output-duplicates width? traditional", 0, OP_PATHS, -1, NULL },
	{ "hexdump", "bcCdoxvn#s#", " canonical length=# skip=#", 0, OP_PATHS, -1, NULL },
	{ "strings", "afdwn#t:e:", " all data print-file-name bytes=# radix=: encoding=:"
	  " include-all-whitespace", 0, OP_PATHS, -1, NULL },
	{ "whoami", "", "", 0, OP_NONE, 0, NULL },
	{ "id", "gGnruz", " group groups name real user zero", 0, OP_STRINGS, 1, NULL },
	{ "uname", "asnrvmpio", " all kernel-name nodename kernel-release kernel-version machine"
	  " processor hardware-platform operating-system", 0, OP_NONE, 0, NULL },
	{ "nproc", "", " all ignore=#", 0, OP_NONE, 0, NULL },
	{ "date", "uRd:I?", " utc universal rfc-email date=: iso-8601? rfc-3339=:", 0, OP_STRINGS, 1,
	  ro_date },
	{ "test", "", "", RO_NOOPTS, OP_STRINGS, -1, NULL },
	{ "[", "", "", RO_NOOPTS, OP_STRINGS, -1, NULL },
};

/* Whether command name w (a word with no quoting or glob) is in the table; the entry. */
static const struct ro_spec *
ro_lookup(const struct ro_word *w)
{
	size_t i;

	if (w->quoted || (w->glob && strcmp(w->s, "[")))
		return NULL;
	for (i = 0; i < sizeof ro_cmds / sizeof ro_cmds[0]; i++)
		if (!strcmp(ro_cmds[i].name, w->s))
			return &ro_cmds[i];
	return NULL;
}

/* One simple command. */
static int
ro_simple(struct ro_ctx *c, struct ro_cmd *cmd)
{
	const struct ro_spec *sp;
	const char *s;

	if (!cmd->n)
		return 1;
	s = cmd->w[0].s;
	if (strchr(s, '=') && (isalpha((unsigned char)s[0]) || s[0] == '_'))
		return ro_no(c, "it sets an environment variable (%s) for the command", s);
	sp = ro_lookup(&cmd->w[0]);
	if (!sp)
		return ro_no(c, "%s is not a known read-only command", s);
	if (sp->special)
		return sp->special(c, sp, cmd, 1);
	return ro_generic(c, sp, cmd, 1);
}

/* ---- the shell parse ----------------------------------------------------- */

struct ro_lex {
	const char *p;
	struct buf s, pat;
	int in_word, glob, quoted, brace;
};

static void
ro_lex_add(struct ro_lex *l, char ch, int quoted)
{
	if (quoted && strchr("*?[\\", ch))
		buf_addch(&l->pat, '\\');
	buf_addch(&l->pat, ch);
	buf_addch(&l->s, ch);
	l->in_word = 1;
	if (quoted)
		l->quoted = 1;
}

/* End the word being read (if any) and add it to cmd. */
static int
ro_lex_end(struct ro_ctx *c, struct ro_lex *l, struct ro_cmd *cmd)
{
	struct ro_word *w;

	if (!l->in_word)
		return 1;
	if (l->brace && (strchr(l->s.data, ',') || strstr(l->s.data, "..")))
		return ro_no(c, "brace expansion in %s", l->s.data);
	if (cmd->n + 1 >= cmd->cap) { /* room for the word and a zeroed one after it */
		size_t cap = cmd->cap ? cmd->cap * 2 : 16;

		cmd->w = xrealloc(cmd->w, cap * sizeof *cmd->w);
		memset(cmd->w + cmd->cap, 0, (cap - cmd->cap) * sizeof *cmd->w);
		cmd->cap = cap;
	}
	w = &cmd->w[cmd->n++];
	w->s = buf_detach(&l->s, NULL);
	w->pat = buf_detach(&l->pat, NULL);
	w->glob = l->glob;
	w->quoted = l->quoted;
	l->in_word = l->glob = l->quoted = l->brace = 0;
	return 1;
}

/*
 * Read one word's characters at l->p (quotes, escapes) until a blank or
 * an operator; refuses expansions.  Returns 0 when not read-only.
 */
static int
ro_lex_word(struct ro_ctx *c, struct ro_lex *l)
{
	for (;;) {
		char ch = *l->p;
		char nx = ch ? l->p[1] : 0;

		if (!ch || strchr(" \t\n;&|<>()", ch))
			return 1;
		if (ch == '\'') {
			const char *q = strchr(l->p + 1, '\'');

			if (!q)
				return ro_no(c, "an unterminated quote%s", "");
			l->in_word = l->quoted = 1;
			for (l->p++; l->p < q; l->p++)
				ro_lex_add(l, *l->p, 1);
			l->p++;
			continue;
		}
		if (ch == '"') {
			l->in_word = l->quoted = 1;
			for (l->p++; *l->p != '"'; l->p++) {
				char d = *l->p;

				if (!d)
					return ro_no(c, "an unterminated quote%s", "");
				if (d == '`')
					return ro_no(c, "command substitution%s", "");
				if (d == '$') {
					if (l->p[1] == '"')
						ro_lex_add(l, '$', 1);
					else
						return ro_no(c, "an expansion ($...) in %s", l->p);
					continue;
				}
				if (d == '\\' && l->p[1] && strchr("$`\"\\\n", l->p[1])) {
					l->p++;
					if (*l->p != '\n')
						ro_lex_add(l, *l->p, 1);
					continue;
				}
				ro_lex_add(l, d, 1);
			}
			l->p++;
			continue;
		}
		if (ch == '\\') {
			if (!nx)
				return ro_no(c, "a trailing backslash%s", "");
			l->p += 2;
			if (nx != '\n')
				ro_lex_add(l, nx, 1);
			continue;
		}
		if (ch == '`')
			return ro_no(c, "command substitution%s", "");
		if (ch == '$') {
			if (nx && !strchr(" \t\n;&|<>()", nx))
				return ro_no(c, "an expansion ($...) in %s", l->p);
			ro_lex_add(l, '$', 0);
			l->p++;
			continue;
		}
		if (ch == '~') {
			size_t n = l->s.len;

			if (!l->in_word || (n && (l->s.data[n - 1] == '=' || l->s.data[n - 1] == ':')))
				return ro_no(c, "an unquoted ~ (a path in the home directory)%s", "");
		}
		if (ch == '*' || ch == '?' || ch == '[')
			l->glob = 1;
		if (ch == '{')
			l->brace = 1;
		ro_lex_add(l, ch, 0);
		l->in_word = 1;
		l->p++;
	}
}

/* Whether word text is all digits (an fd before a redirection). */
static int
ro_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A redirection at l->p ('<' or '>'); the fd number word (if any) was already taken off. */
static int
ro_lex_redir(struct ro_ctx *c, struct ro_lex *l)
{
	char op = *l->p++;
	struct ro_cmd tgt = { NULL, 0, 0 };
	int ok;

	if (op == '<' && (*l->p == '<' || *l->p == '>' || *l->p == '&' || *l->p == '('))
		return ro_no(c, "a here-document, here-string or <%c redirection", *l->p);
	if (op == '>') {
		if (*l->p == '>')
			l->p++;
		else if (*l->p == '|' || *l->p == '(')
			return ro_no(c, "a >%c redirection", *l->p);
		else if (*l->p == '&') { /* >&N, >&- */
			l->p++;
			if (*l->p == '-') {
				l->p++;
			} else if (isdigit((unsigned char)*l->p)) {
				while (isdigit((unsigned char)*l->p))
					l->p++;
			} else {
				return ro_no(c, "a >& redirection to a file%s", "");
			}
			if (*l->p && !strchr(" \t\n;&|", *l->p))
				return ro_no(c, "a >& redirection to a file%s", "");
			return 1;
		}
	}
	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
	buf_reset(&l->s);
	buf_reset(&l->pat);
	l->in_word = l->glob = l->quoted = l->brace = 0;
	if (!ro_lex_word(c, l) || !ro_lex_end(c, l, &tgt))
		ok = 0;
	else if (tgt.n != 1)
		ok = ro_no(c, "a redirection without a file%s", "");
	else if (op == '>')
		ok = !strcmp(tgt.w[0].s, "/dev/null") ? 1 :
		     ro_no(c, "output goes to the file %s", tgt.w[0].s);
	else
		ok = ro_path(c, &tgt.w[0]);
	ro_cmd_clear(&tgt);
	free(tgt.w);
	return ok;
}

/* Parse the whole line, checking each simple command as it ends. */
static int
ro_line(struct ro_ctx *c, const char *line)
{
	struct ro_lex l;
	struct ro_cmd cmd = { NULL, 0, 0 };

	memset(&l, 0, sizeof l);
	l.p = line;
	buf_init(&l.s, 0);
	buf_init(&l.pat, 0);
	while (c->ok) {
		char ch = *l.p;

		if (ch == ' ' || ch == '\t') {
			ro_lex_end(c, &l, &cmd);
			l.p++;
		} else if (ch == '#' && !l.in_word) {
			while (*l.p && *l.p != '\n')
				l.p++;
		} else if (!ch || ch == '\n' || ch == ';' || ch == '|' || ch == '&') {
			if (ch == ';' && l.p[1] == ';') {
				ro_no(c, "a ;; outside case%s", "");
				break;
			}
			if (ch == '|' && l.p[1] == '&') {
				ro_no(c, "|&%s", "");
				break;
			}
			if (ch == '&' && l.p[1] != '&') {
				ro_no(c, "a & (background job or &> redirection)%s", "");
				break;
			}
			if (!ro_lex_end(c, &l, &cmd))
				break;
			if (!ro_simple(c, &cmd))
				break;
			ro_cmd_clear(&cmd);
			if (!ch)
				break;
			l.p += ((ch == '|' || ch == '&') && l.p[1] == ch) ? 2 : 1;
		} else if (ch == '(' || ch == ')') {
			ro_no(c, "a subshell or group ( )%s", "");
		} else if (ch == '<' || ch == '>') {
			if (l.in_word && !l.quoted && !l.glob && ro_digits(l.s.data)) {
				buf_reset(&l.s); /* N> : the descriptor */
				buf_reset(&l.pat);
				l.in_word = 0;
			} else if (!ro_lex_end(c, &l, &cmd)) {
				break;
			}
			ro_lex_redir(c, &l);
			buf_reset(&l.s);
			buf_reset(&l.pat);
			l.in_word = l.glob = l.quoted = l.brace = 0;
		} else {
			ro_lex_word(c, &l);
		}
	}
	ro_cmd_clear(&cmd);
	free(cmd.w);
	buf_release(&l.s);
	buf_release(&l.pat);
	return c->ok;
}

/* A PATH entry that is not absolute would let a workspace file stand in for a listed command. */
static int
ro_path_env_ok(struct ro_ctx *c)
{
	const char *p = getenv("PATH");

	if (!p)
		return 1;
	for (;;) {
		if (*p != '/')
			return ro_no(c, "PATH has a relative entry%s", "");
		p = strchr(p, ':');
		if (!p)
			return 1;
		p++;
	}
}

int
tool_bash_readonly_check(const char *command, const char *root, struct buf *why)
{
	struct ro_ctx c = { root, why, 1 };

	if (!command)
		return ro_no(&c, "no command%s", "");
	if (!root || root[0] != '/')
		return ro_no(&c, "no workspace%s", "");
	if (!ro_path_env_ok(&c))
		return 0;
	return ro_line(&c, command);
}

int
tool_bash_readonly_is_read_only(const char *command)
{
	char root[PATH_MAX];

	if (!getcwd(root, sizeof root))
		return 0;
	return tool_bash_readonly_check(command, root, NULL);
}

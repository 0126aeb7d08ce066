/*
 * perm/perm: approval modes and rules (see perm/perm.h).
 *
 * Each rule list is a growable array of parsed rules.  A call is reduced
 * to its subject: for bash the normalised simple commands (perm_segments,
 * NUL-separated), for path tools the relative and absolute path; a rule
 * matches a subject when its tool name matches and its pattern (if any)
 * globs one of the subject's strings.
 */
#include "perm/perm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/workspace.h"
#include "io/sandbox.h"
#include "base/xmalloc.h"
#include "perm/protect.h"

#define PERM_MAX_PATHS 8 /* path arguments of one call checked for protected paths */

/* What a call touches, as the rules see it. */
struct perm_subject {
	const struct tool *t;
	const char *tool;
	const char *command;    /* a shell tool's command line (TOOL_SHELL) */
	struct buf segs;        /* shell tools: NUL-separated simple commands */
	struct buf raw;         /* the same commands as written (assignments and
				 * wrappers kept): what read-only-ness is asked of */
	size_t nsegs;
	int subst;              /* the line was split at ( ) ` or $( : its parts are
				 * not commands that run as written */
	struct buf abs;         /* path tools: canonical absolute path ("" = none) */
	const char *rel;        /* relative to root when inside, else abs */
	int has_path, outside;
	enum perm_protect_kind protect; /* a change to a protected path (perm/protect.h) */
	struct buf pabs;        /* that path, absolute */
	const char *prel;       /* and relative to root when inside */
};

/* Empty rule lists, mode auto-edit. */
void
perm_init(struct perm *p)
{
	memset(p, 0, sizeof *p);
	p->mode = PERM_AUTO_EDIT;
}

/* Free the rules. */
void
perm_release(struct perm *p)
{
	size_t i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < p->lists[i].n; j++) {
			free(p->lists[i].v[j].text);
			free(p->lists[i].v[j].tool);
			free(p->lists[i].v[j].pattern);
			free(p->lists[i].v[j].alt);
		}
		free(p->lists[i].v);
	}
	memset(p, 0, sizeof *p);
}

/* Mode name -> mode. */
int
perm_mode_parse(const char *s, enum perm_mode *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "ask"))
		*out = PERM_ASK;
	else if (!strcmp(s, "auto-edit"))
		*out = PERM_AUTO_EDIT;
	else if (!strcmp(s, "yolo"))
		*out = PERM_YOLO;
	else
		return -1;
	return 0;
}

/* Mode -> name. */
const char *
perm_mode_name(enum perm_mode m)
{
	return m == PERM_ASK ? "ask" : m == PERM_YOLO ? "yolo" : "auto-edit";
}

/* Parse "tool" or "tool(pattern)" and append it. */
int
perm_add_rule(struct perm *p, enum perm_list which, const char *text, struct err *e)
{
	struct perm_rules *l = &p->lists[which];
	struct perm_rule r = { 0 };
	const char *open = strchr(text, '('), *end = text + strlen(text);
	size_t tl, i;

	if (open && (end == open + 1 || end[-1] != ')'))
		return err_set(e, "rule \"%s\": a pattern ends with ')': write tool(pattern)", text);
	if (open && end == open + 2)
		return err_set(e, "rule \"%s\": empty pattern: write the tool name alone for all its calls", text);
	tl = open ? (size_t)(open - text) : (size_t)(end - text);
	for (i = 0; i < tl; i++)
		if (!isalnum((unsigned char)text[i]) && !strchr("_-.*?", text[i]))
			break;
	if (!tl || i < tl)
		return err_set(e, "rule \"%s\": start with a tool name, e.g. bash(git push*) or edit", text);
	r.text = xstrdup(text);
	r.tool = xstrndup(text, tl);
	for (i = 0; i < tl; i++)
		r.tool[i] = (char)tolower((unsigned char)r.tool[i]);
	if (open) {
		struct buf pat = BUF_INIT;
		const char *ps = open + 1, *home = getenv("HOME");
		size_t pl = (size_t)(end - 1 - ps);

		if (pl >= 2 && ps[0] == '~' && ps[1] == '/' && home && *home) {
			buf_adds(&pat, home);
			ps++;
			pl--;
		}
		buf_add(&pat, ps, pl);
		if (pat.len >= 2 && !strcmp(pat.data + pat.len - 2, ":*")) {
			buf_setlen(&pat, pat.len - 2);
			r.alt = xmalloc(pat.len + 3);
			memcpy(r.alt, pat.data, pat.len);
			memcpy(r.alt + pat.len, " *", 3);
		}
		r.pattern = buf_detach(&pat, NULL);
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = r;
	return 0;
}

/* Merge {"allow": [...], "ask": [...], "deny": [...]}. */
void
perm_load_json(struct perm *p, const cJSON *obj, const char *where, struct buf *warnings)
{
	static const char *const names[] = { "allow", "ask", "deny" };
	const cJSON *it, *r;
	size_t i;

	if (!cJSON_IsObject(obj)) {
		buf_addf(warnings, "%s: \"permissions\" must be an object like {\"deny\": [\"bash(git push*)\"]}; ignored\n", where);
		return;
	}
	cJSON_ArrayForEach(it, obj) {
		for (i = 0; i < 3; i++)
			if (!strcmp(it->string, names[i]))
				break;
		if (i == 3) {
			buf_addf(warnings, "%s: unknown key \"permissions.%s\" ignored (allow, ask, deny)\n", where, it->string);
			continue;
		}
		if (!cJSON_IsArray(it)) {
			buf_addf(warnings, "%s: \"permissions.%s\" must be an array of rule strings; ignored\n", where, it->string);
			continue;
		}
		cJSON_ArrayForEach(r, it) {
			struct err e = ERR_INIT;

			if (!cJSON_IsString(r))
				buf_addf(warnings, "%s: permissions.%s: a rule must be a string; ignored\n", where, it->string);
			else if (perm_add_rule(p, (enum perm_list)i, r->valuestring, &e) < 0)
				buf_addf(warnings, "%s: permissions.%s: %s; ignored\n", where, it->string, e.msg);
		}
	}
}

/*
 * Glob: `*` any run, `?` one character, a backslash makes the character
 * after it literal (iterative, with one backtrack point).
 */
int
perm_glob(const char *pat, const char *s)
{
	const char *star = NULL, *mark = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			mark = s;
		} else if (*pat == '\\' && pat[1] ? pat[1] == *s : *pat == '?' || *pat == *s) {
			pat += *pat == '\\' && pat[1] ? 2 : 1;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++mark;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

/* Whether word w (n bytes) is a NAME=value assignment. */
static int
perm_is_assign(const char *w, size_t n)
{
	size_t i;

	if (!n || !(isalpha((unsigned char)w[0]) || w[0] == '_'))
		return 0;
	for (i = 1; i < n && w[i] != '='; i++)
		if (!isalnum((unsigned char)w[i]) && w[i] != '_')
			return 0;
	return i < n;
}

/* The value of hex digit c (isxdigit). */
static unsigned
perm_hex(char c)
{
	return isdigit((unsigned char)c) ? (unsigned)(c - '0') : (unsigned)(tolower((unsigned char)c) - 'a' + 10);
}

/* Append code point v as UTF-8 (bash's $'\u' and $'\U' in a UTF-8 locale). */
static void
perm_utf8(struct buf *out, unsigned long v)
{
	if (v < 0x80) {
		buf_addch(out, (int)v);
	} else if (v < 0x800) {
		buf_addch(out, (int)(0xc0 | v >> 6));
		buf_addch(out, (int)(0x80 | (v & 0x3f)));
	} else if (v < 0x10000) {
		buf_addch(out, (int)(0xe0 | v >> 12));
		buf_addch(out, (int)(0x80 | (v >> 6 & 0x3f)));
		buf_addch(out, (int)(0x80 | (v & 0x3f)));
	} else {
		buf_addch(out, (int)(0xf0 | (v >> 18 & 0x07)));
		buf_addch(out, (int)(0x80 | (v >> 12 & 0x3f)));
		buf_addch(out, (int)(0x80 | (v >> 6 & 0x3f)));
		buf_addch(out, (int)(0x80 | (v & 0x3f)));
	}
}

/*
 * Append word [w, w + n) after bash's quote removal: '...' as it is, "..."
 * and $"..." with \ before " \ $ ` removed, $'...' with its escapes (\xHH,
 * octal, \uHHHH, \UHHHHHHHH, \cX, \a \b \e \E \f \n \r \t \v, \\ \' \" \?; any
 * other \c kept as \c, as bash does; a decoded NUL ends that $'...' part,
 * as bash's strings hold none: $'rm\0x'y is rmy), \c outside quotes as c.  Used for
 * the command word, which bash runs whatever its quoting ('rm', \rm, r""m).
 */
static void
perm_unquote(struct buf *out, const char *w, size_t n)
{
	const char *p = w, *end = w + n;

	while (p < end) {
		const char *nul;
		size_t start;
		char q = 0;

		if (*p == '\\' && p + 1 < end) {
			buf_addch(out, p[1]);
			p += 2;
			continue;
		}
		if (*p == '$' && p + 1 < end && (p[1] == '\'' || p[1] == '"'))
			q = *++p == '\'' ? '$' : '"';
		else if (*p == '\'' || *p == '"')
			q = *p;
		if (!q) {
			buf_addch(out, *p++);
			continue;
		}
		start = out->len;
		for (p++; p < end && *p != (q == '$' ? '\'' : q); p++) {
			if (*p != '\\' || p + 1 >= end || q == '\'') {
				buf_addch(out, *p);
			} else if (q == '"') {
				if (!strchr("\"\\$`", p[1]))
					buf_addch(out, *p);
				buf_addch(out, *++p);
			} else if (p[1] == 'x' && p + 2 < end && isxdigit((unsigned char)p[2])) {
				unsigned v = 0;
				int k;

				for (k = 0, p++; k < 2 && p + 1 < end && isxdigit((unsigned char)p[1]); k++, p++)
					v = v * 16 + perm_hex(p[1]);
				buf_addch(out, (int)v);
			} else if (p[1] >= '0' && p[1] <= '7') {
				unsigned v = 0;
				int k;

				for (k = 0; k < 3 && p + 1 < end && p[1] >= '0' && p[1] <= '7'; k++, p++)
					v = v * 8 + (unsigned)(p[1] - '0');
				buf_addch(out, (int)(v & 0xff));
			} else if ((p[1] == 'u' || p[1] == 'U') && p + 2 < end && isxdigit((unsigned char)p[2])) {
				unsigned long v = 0;
				int k, most = *++p == 'u' ? 4 : 8;

				for (k = 0; k < most && p + 1 < end &&
						 isxdigit((unsigned char)p[1]); k++, p++)
					v = v * 16 + perm_hex(p[1]);
				perm_utf8(out, v);
			} else if (p[1] == 'c' && p + 2 < end && p[2] != '\'') {
				/* \cX: control-X (\c? is DEL; \c\\ is \034, as is \c\ before an escaped ') */
				char x = p[2];

				p += 2;
				buf_addch(out, x == '?' ? 0x7f : toupper((unsigned char)x) & 0x1f);
				if (x == '\\' && p + 1 < end && (p[1] == '\\' || p[1] == '\''))
					if (*++p == '\'')
						buf_addch(out, '\'');
			} else if (strchr("abeEfnrtv", p[1])) { /* p[1] is in the word: not NUL */
				buf_addch(out, "\a\b\033\033\f\n\r\t\v"[strchr("abeEfnrtv", *++p) - "abeEfnrtv"]);
			} else if (!strchr("\\'\"?", p[1])) {
				buf_addch(out, *p); /* bash keeps the \ of \c, \8, \q: c is text next */
			} else {
				buf_addch(out, *++p);
			}
		}
		if (q == '$' && (nul = memchr(out->data + start, 0, out->len - start)))
			buf_setlen(out, (size_t)(nul - out->data)); /* bash cuts $'' at a NUL */
		if (p < end)
			p++;
	}
}

/*
 * Whether word w (n bytes) is a redirection ("2>x", ">>", "<<EOF", "&>x",
 * ">&2"); *bare is set when it is the operator alone, its target the next word.
 */
static int
perm_is_redir(const char *w, size_t n, int *bare)
{
	size_t i = 0;

	while (i < n && isdigit((unsigned char)w[i]))
		i++;
	if (i < n && w[i] == '&' && i + 1 < n && w[i + 1] == '>')
		i++;
	if (i >= n || (w[i] != '<' && w[i] != '>'))
		return 0;
	while (i < n && strchr("<>&|-", w[i]))
		i++;
	*bare = i == n;
	return 1;
}

/* Whether word w (n bytes) runs the rest of the line as a command. */
static int
perm_is_wrapper(const char *w, size_t n)
{
	static const char *const wrappers[] = { "sudo", "command", "exec", "nohup", "time", "nice",
						"env", "builtin", "timeout", "stdbuf", "doas" };
	size_t i;

	for (i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
		if (strlen(wrappers[i]) == n && !memcmp(wrappers[i], w, n))
			return 1;
	return 0;
}

/*
 * [p, end) without its line continuations, as bash reads it: a backslash
 * and newline outside '...' and $'...' are removed ("git pu\<newline>sh"
 * is git push).
 */
static void
perm_unfold(struct buf *out, const char *p, const char *end)
{
	char q = 0;

	for (; p < end; p++) {
		if (q == '\'') {
			q = *p == '\'' ? 0 : q;
		} else if (*p == '\\' && p + 1 < end) {
			if (p[1] != '\n' || q == '$')
				buf_add(out, p, 2);
			p++;
			continue;
		} else if (q) {
			q = *p == '\'' && q == '$' ? 0 : *p == '"' && q == '"' ? 0 : q;
		} else if (*p == '$' && p + 1 < end && p[1] == '\'') {
			q = '$';
			buf_addch(out, *p++);
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		}
		buf_addch(out, *p);
	}
}

/*
 * Append segment [p, end) normalised: line continuations removed, blanks
 * collapsed, wrappers and assignments dropped; when it is not empty and
 * raw is non-NULL, append the segment as written (trimmed) to raw too.
 */
static int
perm_add_segment(struct buf *out, struct buf *raw, const char *p, const char *end)
{
	const char *p0 = p, *e0 = end;
	size_t start = out->len;
	int lead = 1, skip_arg = 0, target = 0, comment = 0;
	struct buf flat = BUF_INIT, word = BUF_INIT, pre = BUF_INIT;

	perm_unfold(&flat, p, end);
	p = flat.data;
	end = flat.data + flat.len;
	while (p < end) {
		const char *w;
		size_t n;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			break;
		w = p;
		comment |= *w == '#'; /* a comment's text is kept as written */
		while (p < end && !isspace((unsigned char)*p)) {
			if ((*p == '<' || *p == '>') && lead && !comment && p > w && !strchr("<>", p[-1])) {
				/* bash ends a word at < and > ("rm>x -rf src" is rm -rf src
				 * >x, "rm&>x" rm &>x); digits before it are its fd (2>x).
				 * Only up to the command word, which the rules read. */
				const char *d = p - (p[-1] == '&'), *i = w;

				while (i < d && isdigit((unsigned char)*i))
					i++;
				if (i < d) {
					p = d;
					break;
				}
			}
			if (*p == '$' && p + 1 < end && p[1] == '\'') { /* $'...': \' inside */
				for (p += 2; p < end && *p != '\''; p++)
					if (*p == '\\' && p + 1 < end)
						p++;
			} else if (*p == '\'' || *p == '"') { /* a quoted part stays one word */
				char q = *p++;

				while (p < end && *p != q) /* in "...", \" and \\ do not end it */
					p += q == '"' && *p == '\\' && p + 1 < end ? 2 : 1;
			} else if (*p == '\\' && p + 1 < end) {
				p++; /* an escaped quote or blank is part of the word (FOO=\' rm: FOO is ') */
			}
			if (p < end)
				p++;
		}
		n = (size_t)(p - w);
		if (lead) {
			int bare = 0;

			/* redirections before the command ("2>/dev/null rm -rf x", "> out rm")
			 * go after it, so that rules see the command first */
			if (target || perm_is_redir(w, n, &bare)) {
				buf_addch(&pre, ' ');
				buf_add(&pre, w, n);
				target = !target && bare;
				continue;
			}
			if (perm_is_assign(w, n) || (w[0] == '-' && out->len == start))
				continue;
			if (skip_arg) { /* timeout's duration */
				skip_arg = 0;
				continue;
			}
			/* the command word as bash runs it: 'rm', \rm and "sudo" are rm and sudo */
			buf_reset(&word);
			perm_unquote(&word, w, n);
			if (perm_is_wrapper(word.data, word.len)) {
				skip_arg = word.len == 7 && !memcmp(word.data, "timeout", 7);
				continue;
			}
			lead = 0;
			if (word.len) { /* a lone quote ('"' unterminated) stays as written */
				w = word.data;
				n = word.len;
			}
			if (out->len > start)
				buf_addch(out, ' ');
			buf_add(out, w, n);
			buf_add(out, pre.data, pre.len);
			continue;
		}
		if (out->len > start)
			buf_addch(out, ' ');
		buf_add(out, w, n);
	}
	if (lead && pre.len) /* redirections alone ("> file" empties it): they are the segment */
		buf_add(out, pre.data + 1, pre.len - 1);
	buf_release(&pre);
	buf_release(&word);
	buf_release(&flat);
	while (p0 < e0 && isspace((unsigned char)*p0))
		p0++;
	while (e0 > p0 && isspace((unsigned char)e0[-1]))
		e0--;
	if (out->len == start) {
		/* only wrappers or assignments ("env", "FOO=1"): nothing for the
		 * rules, but with raw it is a command that runs, kept as written */
		if (!raw || p0 == e0)
			return 0;
		buf_add(out, p0, (size_t)(e0 - p0));
	}
	buf_addch(out, '\0');
	if (raw) {
		buf_add(raw, p0, (size_t)(e0 - p0));
		buf_addch(raw, '\0');
	}
	return 1;
}

#define PERM_HEREDOCS 4 /* here-documents of one line followed */

/* A here-document whose body follows the line: its delimiter and form. */
struct perm_heredoc {
	char word[64]; /* the delimiter, quotes and backslashes removed */
	int quoted;    /* any quoting in it: the body is not expanded */
	int tabs;      /* <<- : leading tabs stripped from the body's lines */
};

/*
 * Parse the here-document operator at p ("<<", not "<<<") into d: the end
 * of its delimiter word, or NULL when it is not one hearth can follow
 * (no word, a word too long, a $ or ` or a newline in it).
 */
static const char *
perm_heredoc_op(const char *p, struct perm_heredoc *d)
{
	size_t n = 0;
	char q = 0;

	memset(d, 0, sizeof *d);
	p += 2;
	if (*p == '-')
		d->tabs = 1, p++;
	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p && (q || !strchr(" \t\n;&|<>()", *p)); p++) {
		if (q ? *p == q : (*p == '\'' || *p == '"')) {
			q = q ? 0 : *p;
			d->quoted = 1;
			continue;
		}
		if (*p == '\n' || (*p == '\\' && p[1] == '\n'))
			return NULL; /* a word over two lines (or joined by \ newline) */
		if (*p == '\\' && p[1] && (!q || (q == '"' && strchr("$`\"\\", p[1])))) {
			d->quoted = 1; /* inside "..." only these are escaped: "E\OF" ends at E\OF */
			p++;
		} else if ((*p == '$' && q != '\'') || *p == '`') {
			return NULL;
		}
		if (n + 1 >= sizeof d->word)
			return NULL;
		d->word[n++] = *p;
	}
	return n && !q ? p : NULL;
}

/*
 * The end of the here-document body that starts at p: the byte after its
 * delimiter line (or the end of the text: bash reads to the end when the
 * delimiter never comes).  NULL when a line of an expanded body ends with
 * a backslash (it joins the next, which hearth does not follow).
 */
static const char *
perm_heredoc_end(const char *p, const struct perm_heredoc *d, const char **body_end)
{
	size_t n = strlen(d->word);

	for (;;) {
		const char *line = p, *nl = strchr(p, '\n');
		const char *e = nl ? nl : p + strlen(p);

		if (d->tabs)
			while (*line == '\t')
				line++;
		if ((size_t)(e - line) == n && !memcmp(line, d->word, n)) {
			*body_end = p;
			return nl ? nl + 1 : e;
		}
		if (!d->quoted && e > p && e[-1] == '\\')
			return NULL;
		if (!nl) {
			*body_end = e;
			return e;
		}
		p = nl + 1;
	}
}

/* Whether [p, end) has a command substitution ($( or `, escaped or not). */
static int
perm_has_subst(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p == '`' || (*p == '$' && p + 1 < end && p[1] == '('))
			return 1;
	return 0;
}

/*
 * Split a command line into normalised simple commands in out, and (when
 * raw is non-NULL) as written in raw; *subst when a split was at ( ) ` $( .
 * The body of a here-document is text, not commands, when hearth can
 * follow it: the operator outside parentheses and quotes, at most
 * PERM_HEREDOCS on a line, a plain delimiter word, and a body that is
 * either not expanded (a quoted delimiter) or has no $( or ` in it ($((
 * too: arithmetic may hold one).  Any other body is split into lines as
 * commands, which asks more, never less.
 */
static size_t
perm_split(const char *cmd, struct buf *out, struct buf *raw, int *subst)
{
	const char *p = cmd, *start = cmd;
	char quote = 0;
	size_t n = 0, nh = 0, k;
	struct perm_heredoc docs[PERM_HEREDOCS];
	int depth = 0, follow = !strstr(cmd, "$["), comment = 0;

	buf_reset(out);
	if (raw)
		buf_reset(raw);
	*subst = 0;
	for (;; p++) {
		char c = *p;
		int sep = 0;

		if (c == '\0') {
			n += (size_t)perm_add_segment(out, raw, start, p);
			return n;
		}
		if (comment && c != '\n')
			continue; /* a comment: no quote, "<<" or separator in it counts */
		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			continue;
		}
		if (c == '\\' && p[1]) {
			p++; /* in $'...' too: \' does not end it */
			continue;
		}
		if (quote == '$') {
			if (c == '\'')
				quote = 0;
			continue;
		}
		if (quote == '"') {
			if (c == '"')
				quote = 0;
			else if (c == '$' && p[1] == '(')
				sep = *++p; /* a substitution runs even inside double quotes */
			else
				sep = c == '`' || c == ')';
		} else if (c == '$' && p[1] == '\'') {
			quote = '$', p++; /* an ANSI-C string: backslashes escape */
		} else if (c == '\'' || c == '"') {
			quote = c;
		} else if (c == '&') {
			sep = !(p > cmd && p[-1] == '>') && p[1] != '>';
		} else if (c == '#' && (p == cmd || strchr(" \t\n;&|()", p[-1]))) {
			comment = 1; /* to the line's end */
		} else if (c == '<' && p[1] == '<') {
			const char *w = NULL;

			if (p[2] == '<') { /* a here-string */
				p += 2;
				continue;
			}
			if (follow && depth == 0 && nh < PERM_HEREDOCS)
				w = perm_heredoc_op(p, &docs[nh]);
			if (w)
				nh++, p = w - 1;
			else
				follow = 0, p++; /* not followed: the body's lines are commands */
			continue;
		} else {
			sep = c == ';' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`';
			depth += c == '(' ? 1 : c == ')' && depth > 0 ? -1 : 0;
		}
		if (c == '\n')
			comment = 0;
		if (!sep)
			continue;
		if (strchr("()`", *p)) /* *p: '(' of a quoted $( too */
			*subst = 1;
		n += (size_t)perm_add_segment(out, raw, start, p);
		start = p + 1;
		if (c != '\n' || !nh)
			continue;
		for (k = 0; k < nh && follow; k++) { /* the bodies follow this line */
			const char *body = p + 1, *body_end, *next = perm_heredoc_end(body, &docs[k], &body_end);

			if (!next || (!docs[k].quoted && perm_has_subst(body, body_end)))
				follow = 0;
			else
				p = next - 1, start = next;
		}
		nh = 0;
	}
}

/* Split a command line into normalised simple commands (see perm/perm.h). */
size_t
perm_segments(const char *cmd, struct buf *out)
{
	int subst;

	return perm_split(cmd, out, NULL, &subst);
}

/* Whether a command writes output to a file ('>' other than >&N and >/dev/null). */
static int
perm_redirects(const char *seg)
{
	const char *p;

	for (p = strchr(seg, '>'); p; p = strchr(p + 1, '>')) {
		const char *q = p + 1;

		if (*q == '>')
			q++;
		if (*q == '&' && isdigit((unsigned char)q[1]))
			continue;
		while (*q == ' ')
			q++;
		/* /dev/null as a whole word: ">/dev/nullx" writes the file /dev/nullx */
		if (!strncmp(q, "/dev/null", 9) && (q[9] == '\0' || q[9] == ' '))
			continue;
		return 1;
	}
	return 0;
}

/* Whether rule r's pattern matches the string s. */
static int
perm_rule_str(const struct perm_rule *r, const char *s)
{
	return perm_glob(r->pattern, s) || (r->alt && perm_glob(r->alt, s));
}

/* Whether rule r matches one bash segment (allow: no uncovered redirection). */
static int
perm_rule_seg(const struct perm_rule *r, const char *seg, int allow)
{
	if (!perm_rule_str(r, seg))
		return 0;
	return !allow || strchr(r->pattern, '>') || !perm_redirects(seg);
}

/* Whether rule tool name rt covers tool: equal or a glob (without case), or "mcp__server" for its tools. */
static int
perm_tool_matches(const char *rt, const char *tool)
{
	/* the whole name, however long: a copy cut at 159 bytes let a rule
	 * naming a longer (MCP) tool miss it (issue 20) */
	char *low = xstrdup(tool);
	size_t i, n = strlen(rt);
	int hit;

	for (i = 0; low[i]; i++)
		low[i] = (char)tolower((unsigned char)low[i]);
	hit = !strcmp(rt, low) || perm_glob(rt, low) ||
	      (!strncmp(rt, "mcp__", 5) && !strncmp(rt, low, n) && !strncmp(low + n, "__", 2));
	free(low);
	return hit;
}

/* Whether rule r matches subject s (for bash: any of its simple commands). */
static int
perm_rule_matches(const struct perm_rule *r, const struct perm_subject *s)
{
	if (!perm_tool_matches(r->tool, s->tool))
		return 0;
	if (!r->pattern)
		return 1;
	if (s->command) {
		const char *seg = s->segs.data;
		size_t i;

		for (i = 0; i < s->nsegs; i++, seg += strlen(seg) + 1)
			if (perm_rule_seg(r, seg, 0))
				return 1;
		return 0;
	}
	if (s->has_path)
		return perm_rule_str(r, s->rel) || perm_rule_str(r, s->abs.data);
	return 0;
}

/* The first rule of list l that matches s, or NULL. */
static const struct perm_rule *
perm_find(const struct perm_rules *l, const struct perm_subject *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (perm_rule_matches(&l->v[i], s))
			return &l->v[i];
	return NULL;
}

/*
 * Whether the shell tool t would call cmd read-only: the tool answers
 * (its read_only member) for a call whose command is cmd, so what counts
 * as read-only stays in the tool's file.
 */
static int
perm_command_read_only(const struct tool *t, const char *cmd)
{
	cJSON *args = cJSON_CreateObject();
	int ro;

	if (!args || !cJSON_AddStringToObject(args, "command", cmd)) {
		cJSON_Delete(args);
		return 0;
	}
	ro = tool_is_read_only(t, args);
	cJSON_Delete(args);
	return ro;
}

/* Whether one segment of a shell tool's command is allowed by the allow or session rules. */
static int
perm_seg_allowed(const struct perm *p, const char *tool, const char *seg)
{
	const struct perm_rules *ls[2] = { &p->lists[PERM_LIST_ALLOW], &p->lists[PERM_LIST_SESSION] };
	size_t i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < ls[i]->n; j++)
			if (perm_tool_matches(ls[i]->v[j].tool, tool) &&
			    (!ls[i]->v[j].pattern || perm_rule_seg(&ls[i]->v[j], seg, 1)))
				return 1;
	return 0;
}

/* Whether allow/session rules (or read-only-ness) cover the whole call. */
static int
perm_allowed(const struct perm *p, const struct perm_subject *s)
{
	const char *seg = s->segs.data, *raw = s->raw.data;
	size_t i;

	if (!s->command)
		return perm_find(&p->lists[PERM_LIST_ALLOW], s) || perm_find(&p->lists[PERM_LIST_SESSION], s);
	if (!s->nsegs)
		return 0;
	/* a segment not covered by a rule must be read-only as written, and only
	 * when the line's segments are the commands that run (no substitution) */
	for (i = 0; i < s->nsegs; i++, seg += strlen(seg) + 1, raw += strlen(raw) + 1)
		if (!perm_seg_allowed(p, s->tool, seg) &&
		    (s->subst || !perm_command_read_only(s->t, raw)))
			return 0;
	return 1;
}

/* Note in s the first protected path among candidate string p. */
static void
perm_protect_one(struct perm_subject *s, const char *root, const char *p)
{
	if (s->protect || !p || !*p)
		return;
	s->protect = perm_protect_path(root, p, &s->pabs);
	if (s->protect)
		s->prel = workspace_rel(root, s->pabs.data);
}

/*
 * Whether a changing call touches a protected path: the paths the tool
 * names, and for a tool whose writes hearth does not make itself (no
 * TOOL_EDITS: an MCP server's) also every string argument and every
 * string in an array argument, since its file arguments have any name.
 */
static void
perm_subject_protect(struct perm_subject *s, const struct tool *t, const cJSON *args, const char *root)
{
	const char *v[PERM_MAX_PATHS];
	const cJSON *it, *el;
	size_t i, n = tool_paths(t, args, v, PERM_MAX_PATHS);

	for (i = 0; i < n; i++)
		perm_protect_one(s, root, v[i]);
	if ((t->flags & TOOL_EDITS) || !cJSON_IsObject(args))
		return;
	cJSON_ArrayForEach(it, args) {
		if (cJSON_IsString(it))
			perm_protect_one(s, root, it->valuestring);
		else if (cJSON_IsArray(it))
			cJSON_ArrayForEach(el, it)
				if (cJSON_IsString(el))
					perm_protect_one(s, root, el->valuestring);
	}
}

/* Reduce a call to its subject. */
static void
perm_subject(struct perm_subject *s, const struct tool *t, const cJSON *args, const char *root)
{
	const char *path = NULL;
	struct err e = ERR_INIT;

	memset(s, 0, sizeof *s);
	buf_init(&s->segs, 0);
	buf_init(&s->raw, 0);
	buf_init(&s->abs, 0);
	buf_init(&s->pabs, 0);
	s->t = t;
	s->tool = t->name;
	if (t->flags & TOOL_SHELL) {
		s->command = tool_command(t, args);
		if (!s->command)
			s->command = "";
		s->nsegs = perm_split(s->command, &s->segs, &s->raw, &s->subst);
		return;
	}
	if (t->flags & TOOL_MUTATES)
		perm_subject_protect(s, t, args, root);
	if (!tool_paths(t, args, &path, 1))
		return;
	s->has_path = 1;
	if (workspace_resolve(root, 1, path, &s->abs, &e) < 0) {
		buf_reset(&s->abs);
		buf_adds(&s->abs, path ? path : "");
		s->outside = 1;
		s->rel = s->abs.data;
		return;
	}
	s->outside = !workspace_inside(root, s->abs.data);
	s->rel = workspace_rel(root, s->abs.data);
}

static void
perm_subject_release(struct perm_subject *s)
{
	buf_release(&s->segs);
	buf_release(&s->raw);
	buf_release(&s->abs);
	buf_release(&s->pabs);
}

/*
 * Whether an allow or session rule covers the protected path of s: only a
 * rule whose pattern names it (perm_protect_named), never a bare tool
 * name or a broad glob.
 */
static int
perm_protect_allowed(const struct perm *p, const struct perm_subject *s)
{
	const struct perm_rules *ls[2] = { &p->lists[PERM_LIST_ALLOW], &p->lists[PERM_LIST_SESSION] };
	size_t i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < ls[i]->n; j++) {
			const struct perm_rule *r = &ls[i]->v[j];

			if (perm_tool_matches(r->tool, s->tool) && perm_protect_named(s->protect, r->pattern) &&
			    (perm_rule_str(r, s->prel) || perm_rule_str(r, s->pabs.data)))
				return 1;
		}
	return 0;
}

/*
 * A read-only shell call: the tool's answer for the whole line as written
 * (the bash tool parses the line itself: tools/bash_readonly.h).
 */
static int
perm_read_only(const struct perm_subject *s)
{
	return s->nsegs && perm_command_read_only(s->t, s->command);
}

/* The mode's answer when no rule decided. */
static enum perm_verdict
perm_by_mode(const struct perm *p, const struct tool *t, const struct perm_subject *s,
	     struct buf *why)
{
	if (p->mode == PERM_YOLO)
		return PERM_ALLOW;
	if (s->command) {
		if (perm_read_only(s))
			return PERM_ALLOW;
		if (p->mode == PERM_AUTO_EDIT && sandbox_confines(p->sandbox))
			return PERM_ALLOW; /* the sandbox confines what it can write */
		buf_adds(why, "a bash command not known to be read-only");
		if (p->mode == PERM_AUTO_EDIT && p->sandbox && sandbox_mode(p->sandbox) != SANDBOX_OFF)
			buf_addf(why, ", and the sandbox (%s) does not confine it",
				 sandbox_kind_name(sandbox_kind(p->sandbox)));
		return PERM_QUESTION;
	}
	if (!(t->flags & TOOL_MUTATES) && (p->mode != PERM_ASK || !(t->flags & TOOL_NEEDS_APPROVAL)))
		return PERM_ALLOW; /* reads; tools that only need approval (MCP) ask in mode ask */
	if (s->has_path && s->outside) {
		buf_adds(why, "a change outside the workspace");
		return PERM_QUESTION;
	}
	if (p->mode == PERM_AUTO_EDIT)
		return PERM_ALLOW; /* edits inside the workspace, MCP tools */
	buf_adds(why, "approval mode ask");
	return PERM_QUESTION;
}

/* Allow/session rules alone (see perm/perm.h). */
int
perm_allowed_by_rule(const struct perm *p, const struct tool *t, const cJSON *args, const char *root)
{
	struct perm_subject s;
	const char *seg;
	size_t i;
	int ok;

	perm_subject(&s, t, args, root);
	if (!s.command) {
		ok = perm_find(&p->lists[PERM_LIST_ALLOW], &s) || perm_find(&p->lists[PERM_LIST_SESSION], &s);
	} else {
		ok = s.nsegs > 0;
		for (i = 0, seg = s.segs.data; ok && i < s.nsegs; i++, seg += strlen(seg) + 1)
			ok = perm_seg_allowed(p, s.tool, seg);
	}
	perm_subject_release(&s);
	return ok;
}

/* Deny > ask > allow/session > mode. */
enum perm_verdict
perm_check(const struct perm *p, const struct tool *t, const cJSON *args, const char *root,
	   struct buf *why)
{
	struct perm_subject s;
	const struct perm_rule *r;
	enum perm_verdict v;

	perm_subject(&s, t, args, root);
	if ((r = perm_find(&p->lists[PERM_LIST_DENY], &s)) != NULL) {
		buf_addf(why, "denied by the rule \"%s\" in permissions.deny", r->text);
		v = PERM_DENY;
	} else if ((r = perm_find(&p->lists[PERM_LIST_ASK], &s)) != NULL) {
		buf_addf(why, "the rule \"%s\" in permissions.ask", r->text);
		v = PERM_QUESTION;
	} else if (s.protect && p->mode != PERM_YOLO) {
		v = perm_protect_allowed(p, &s) ? PERM_ALLOW : PERM_QUESTION;
		if (v == PERM_QUESTION)
			buf_addf(why, "a change to %s, a protected path: %s", s.prel, perm_protect_why(s.protect));
	} else if (perm_allowed(p, &s)) {
		v = PERM_ALLOW;
	} else {
		v = perm_by_mode(p, t, &s, why);
	}
	perm_subject_release(&s);
	return v;
}

/*
 * The "always" rule of one shell segment: "bash(w1 w2:*)", or the exact
 * command, where a newline (inside quotes) is written '?' (any one
 * character): the rules are one a line.
 */
static void
perm_always_seg(const char *tool, const char *seg, struct buf *out)
{
	const char *sp = strchr(seg, ' '), *sp2;
	size_t n = strlen(seg);

	if (out->len)
		buf_addch(out, '\n');
	if (sp && sp[1] != '-' && !strpbrk(seg, "'\"$*?\n\\")) {
		sp2 = strchr(sp + 1, ' ');
		n = sp2 ? (size_t)(sp2 - seg) : n;
		buf_addf(out, "%s(%.*s:*)", tool, (int)n, seg);
		return;
	}
	/* exactly this command: its * ? and \ made literal ("rm *.o" must not
	 * cover "rm -rf ~ x.o"), a newline any one character */
	buf_addf(out, "%s(", tool);
	for (; *seg; seg++) {
		if (*seg == '*' || *seg == '?' || *seg == '\\')
			buf_addch(out, '\\');
		buf_addch(out, *seg == '\n' ? '?' : *seg);
	}
	buf_addch(out, ')');
}

/* Session rules for an "always" answer (see perm/perm.h). */
void
perm_always_rules(const struct perm *p, const struct tool *t, const cJSON *args, const char *root,
		  struct buf *out)
{
	struct perm_subject s;
	const char *seg;
	size_t i;

	perm_subject(&s, t, args, root);
	if (s.protect) {
		buf_addf(out, "%s(%s)", t->name, s.prel); /* exactly this path (perm_protect_named) */
	} else if (s.command) {
		const char *raw = s.raw.data;

		for (i = 0, seg = s.segs.data; i < s.nsegs;
		     i++, seg += strlen(seg) + 1, raw += strlen(raw) + 1)
			if (!perm_seg_allowed(p, t->name, seg) &&
			    (s.subst || !perm_command_read_only(t, raw)))
				perm_always_seg(t->name, seg, out);
	} else if (s.has_path && s.outside) {
		const char *slash = strrchr(s.abs.data, '/');

		/* no '/': a relative name that could not be resolved (perm_subject);
		 * a folder rule would be "/" and its star, every path: name it exactly */
		if (!slash)
			buf_addf(out, "%s(%s)", t->name, s.abs.data);
		else
			buf_addf(out, "%s(%.*s/*)", t->name, (int)(slash - s.abs.data), s.abs.data);
	} else if (s.has_path) {
		buf_addf(out, "%s(%s/*)", t->name, root);
	} else {
		buf_adds(out, t->name);
	}
	perm_subject_release(&s);
}

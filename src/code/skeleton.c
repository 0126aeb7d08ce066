/*
 * code/skeleton: definitions-only parses with function bodies left out (see
 * code/skeleton.h).  Brace languages are scanned by code_braces; Python is scanned
 * here, by logical lines.
 *
 * Python: a `def` whose enclosing blocks are all classes (or none) keeps
 * its header and its body up to the end of the body's first simple
 * statement at the body's indentation (a docstring, usually: a block needs
 * one statement, and a compound one would need its own block); the hole
 * runs from there to the end of the body's last code line, so the parse
 * resumes at the start of a line and the indentation scanner sees the
 * same dedent it would without the hole.
 */
#include "code/skeleton.h"

#include <string.h>

#include <tree_sitter/api.h>

#include "code/braces.h"
#include "base/xmalloc.h"

#define PY_MAX_BLOCKS 128

enum { PY_OTHER, PY_DEF, PY_CLASS };

/* One logical line of Python. */
struct pyline {
	size_t end;  /* after the newline ending its last physical line (or the text's end) */
	int indent;  /* columns; a tab goes to the next multiple of 8 */
	int blank;   /* no code: empty, or a comment only */
	int header;  /* ends with ":" outside brackets: a block follows */
	int word;    /* PY_DEF, PY_CLASS or PY_OTHER: how it starts */
	int decorator; /* starts with "@": needs the definition after it */
};

/* See code/skeleton.h. */
void
code_skeleton_hole(struct code_skeleton_holes *h, uint32_t from, uint32_t to)
{
	if (to <= from)
		return;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->at = xrealloc(h->at, h->cap * 2 * sizeof *h->at);
	}
	h->at[2 * h->n] = from;
	h->at[2 * h->n + 1] = to;
	h->n++;
}

/* See code/skeleton.h. */
void
code_skeleton_holes_release(struct code_skeleton_holes *h)
{
	free(h->at);
	memset(h, 0, sizeof *h);
}

/* Whether the text at i starts with the keyword kw followed by a non-word byte. */
static int
py_kw(const char *s, size_t n, size_t i, const char *kw)
{
	size_t k = strlen(kw);
	unsigned char c;

	if (n - i < k || memcmp(s + i, kw, k))
		return 0;
	if (i + k == n)
		return 1;
	c = (unsigned char)s[i + k];
	return !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		 (c >= '0' && c <= '9') || c >= 0x80);
}

/* How the code at i starts: def, async def, class, or other. */
static int
py_word(const char *s, size_t n, size_t i)
{
	if (py_kw(s, n, i, "def"))
		return PY_DEF;
	if (py_kw(s, n, i, "class"))
		return PY_CLASS;
	if (py_kw(s, n, i, "async")) {
		for (i += 5; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
			;
		return py_kw(s, n, i, "def") ? PY_DEF : PY_OTHER;
	}
	return PY_OTHER;
}

/* Past the string opened at i (prefix letters already passed); -1 at the text's end. */
static long
py_string(const char *s, size_t n, size_t i)
{
	char q = s[i];
	int triple = n - i >= 3 && s[i + 1] == q && s[i + 2] == q;

	for (i += triple ? 3 : 1; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '\n' && !triple)
			return (long)i; /* unterminated: its line ends it */
		else if (s[i] == q && (!triple || (n - i >= 3 && s[i + 1] == q && s[i + 2] == q)))
			return (long)(i + (triple ? 3 : 1));
	}
	return -1;
}

/* Read the logical line at i into l; -1 when a string runs to the end. */
static int
py_line(const char *s, size_t n, size_t i, struct pyline *l)
{
	int depth = 0;
	char last = 0;
	long j;

	l->indent = 0;
	for (; i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'); i++)
		l->indent = s[i] == '\t' ? (l->indent / 8 + 1) * 8 : l->indent + 1;
	l->word = py_word(s, n, i);
	l->decorator = i < n && s[i] == '@';
	while (i < n) {
		char c = s[i];
		if (c == '#') {
			const char *nl = memchr(s + i, '\n', n - i);
			i = nl ? (size_t)(nl - s) : n;
		} else if (c == '\\' && i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
			i += s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n' ? 3 : 2;
		} else if (c == '"' || c == '\'') {
			if ((j = py_string(s, n, i)) < 0)
				return -1;
			i = (size_t)j, last = '"';
		} else if (c == '\n') {
			i++;
			if (depth == 0)
				break;
		} else {
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			if (c != ' ' && c != '\t' && c != '\r' && c != '\f')
				last = c;
			i++;
		}
	}
	l->end = i;
	l->blank = last == 0;
	l->header = last == ':';
	return 0;
}

/* The def whose body is being passed over. */
struct pydef {
	int active, indent, body_indent, kept;
	size_t keep_end, body_end;
};

/* The def's body ended: its hole, if it kept a statement and has more. */
static void
py_def_end(struct pydef *d, struct code_skeleton_holes *h)
{
	if (d->active && d->kept && d->body_end > d->keep_end)
		code_skeleton_hole(h, (uint32_t)d->keep_end, (uint32_t)d->body_end);
	d->active = 0;
}

/* Whether the line l belongs to the body of d (and note what it means for the hole). */
static int
py_in_body(struct pydef *d, const struct pyline *l)
{
	if (!d->active || l->indent <= d->indent)
		return 0;
	if (d->body_indent < 0)
		d->body_indent = l->indent;
	else if (l->indent < d->body_indent)
		return 0; /* a dedent short of the def's level still ends its block */
	if (!d->kept && l->indent == d->body_indent && !l->header && !l->decorator) {
		d->keep_end = l->end;
		d->kept = 1;
	}
	d->body_end = l->end;
	return 1;
}

/* The Python scan (see the top); 0 or -1. */
static int
py_holes(const char *s, size_t n, struct code_skeleton_holes *h)
{
	struct { int indent, cls; } blocks[PY_MAX_BLOCKS];
	struct pydef d = { 0, 0, -1, 0, 0, 0 };
	struct pyline l;
	int depth = 0, k, in_class_only;
	size_t i;

	for (i = 0; i < n; i = l.end) {
		if (py_line(s, n, i, &l) < 0)
			return -1;
		if (l.blank || py_in_body(&d, &l))
			continue;
		py_def_end(&d, h);
		while (depth > 0 && blocks[depth - 1].indent >= l.indent)
			depth--;
		if (!l.header)
			continue;
		for (in_class_only = 1, k = 0; k < depth; k++)
			in_class_only &= blocks[k].cls;
		if (l.word == PY_DEF && in_class_only) {
			d.active = 1, d.indent = l.indent, d.body_indent = -1, d.kept = 0;
			continue;
		}
		if (depth == PY_MAX_BLOCKS)
			return -1;
		blocks[depth].indent = l.indent;
		blocks[depth++].cls = l.word == PY_CLASS && in_class_only;
	}
	py_def_end(&d, h);
	return 0;
}

/* Whether pattern pat of q captures a definition. */
static int
pattern_defines(TSQuery *q, uint32_t pat)
{
	uint32_t i, clen, n = ts_query_capture_count(q);

	for (i = 0; i < n; i++) {
		const char *cap = ts_query_capture_name_for_id(q, i, &clen);
		if (clen > 11 && !strncmp(cap, "definition.", 11) &&
		    ts_query_capture_quantifier_for_id(q, pat, i) != TSQuantifierZero)
			return 1;
	}
	return 0;
}

/* See code/skeleton.h. */
TSQuery *
code_skeleton_defs_query(const struct code_lang *lang, const char *src)
{
	uint32_t off, i, n;
	TSQueryError qe;
	TSQuery *q = ts_query_new(lang->language(), src, (uint32_t)strlen(src), &off, &qe);

	if (!q)
		return NULL;
	n = ts_query_pattern_count(q);
	for (i = 0; i < n; i++)
		if (!pattern_defines(q, i))
			ts_query_disable_pattern(q, i);
	return q;
}

/* See code/skeleton.h. */
int
code_skeleton_find(const char *lang, const char *text, size_t n, struct code_skeleton_holes *h)
{
	if (code_braces_knows(lang))
		return code_braces_holes(lang, text, n, h);
	if (!strcmp(lang, "python") && py_holes(text, n, h) == 0)
		return 0;
	code_skeleton_holes_release(h);
	return -1;
}

/* Body node types a hole must fill exactly (brace languages). */
static const char *const body_types[] = {
	"compound_statement", "block", "statement_block", "constructor_body",
};

/* Whether the hole [from, to) lies exactly inside a body node under root. */
static int
hole_fits(TSNode root, uint32_t from, uint32_t to)
{
	TSNode body = ts_node_descendant_for_byte_range(root, from - 1, to + 1);
	const char *type;
	size_t i;

	if (ts_node_start_byte(body) != from - 1 || ts_node_end_byte(body) != to + 1)
		return 0;
	type = ts_node_type(body);
	for (i = 0; i < sizeof body_types / sizeof body_types[0]; i++)
		if (!strcmp(type, body_types[i]))
			return 1;
	return 0;
}

/*
 * Keep in h only the holes t shows to be right (see the top of code/skeleton.h;
 * Python's are all wrong when the tree has an error); the count dropped.
 */
static size_t
keep_fitting(const char *lang, const struct code_tree *t, struct code_skeleton_holes *h)
{
	TSNode root = ts_tree_root_node(code_tree_ts(t));
	size_t k, kept = 0, dropped;

	if (!strcmp(lang, "python")) {
		dropped = ts_node_has_error(root) ? h->n : 0;
		if (dropped)
			h->n = 0;
		return dropped;
	}
	for (k = 0; k < h->n; k++)
		if (hole_fits(root, h->at[2 * k], h->at[2 * k + 1])) {
			h->at[2 * kept] = h->at[2 * k];
			h->at[2 * kept++ + 1] = h->at[2 * k + 1];
		}
	dropped = h->n - kept;
	h->n = kept;
	return dropped;
}

/* See code/skeleton.h. */
int
code_skeleton_parse(const struct code_lang *lang, enum code_bodies_use use, const char *text, size_t n,
	      struct code_tree **out, size_t *skipped, struct err *e)
{
	struct code_skeleton_holes h = { NULL, 0, 0 };
	size_t k, gone, dropped;
	int tries;

	if (skipped)
		*skipped = 0;
	*out = NULL;
	if (!lang || !text || n > CODE_MAX_BYTES || !code_bodies_any(lang->name, use) ||
	    code_skeleton_find(lang->name, text, n, &h) < 0 || h.n == 0) {
		code_skeleton_holes_release(&h);
		return code_parse(lang, text, n, out, e);
	}
	/*
	 * A hole that does not fit spoils the tree: one more try without the
	 * misfits, when what fits still leaves out a quarter of the text.
	 */
	for (tries = 0; tries < 2 && h.n; tries++) {
		if (code_parse_holes(lang, text, n, h.at, h.n, out, NULL) < 0)
			break;
		dropped = keep_fitting(lang->name, *out, &h);
		for (gone = 0, k = 0; k < h.n; k++)
			gone += h.at[2 * k + 1] - h.at[2 * k];
		if (dropped == 0) {
			if (skipped)
				*skipped = gone;
			code_skeleton_holes_release(&h);
			return 0;
		}
		code_release(*out);
		*out = NULL;
		if (gone < n / 4)
			break;
	}
	code_skeleton_holes_release(&h);
	return code_parse(lang, text, n, out, e);
}

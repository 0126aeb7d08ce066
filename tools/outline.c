/*
 * outline: the symbols of a file (functions, types, classes, methods) with
 * their line ranges and signatures, so a model can find its way around a
 * file without reading it.
 *
 * Symbols come from the language's embedded tags query (@definition.KIND
 * captures with their @name), or for languages without one from a short
 * list of node types.  A capture is widened to its whole definition by
 * climbing through declarator and wrapper nodes (a C function_declarator
 * becomes its function_definition; a Python def its decorated_definition),
 * which gives the line range; the signature is the line of the name,
 * trimmed.  Symbols are deduplicated by name position (a method pattern
 * wins over a function pattern for the same node), sorted by position and
 * indented by how many earlier symbols contain them.  Compiled queries are
 * cached per language for the life of the program (never freed).
 *
 * Speed (make bench: a 5,000-line C file): parsing is most of the cost.
 * In languages whose functions hold no symbols worth listing (C, C++, Go,
 * Rust, Java) the bodies of functions are left out of the parse (code/skeleton.h)
 * and the query does not enter them: it runs once per top-level node,
 * over a function only up to its body.  A ".h" header is outlined as C++
 * when its text is (code_lang_for_file).
 * The last OUTLINE_RESULTS answers are kept, keyed by the file's path,
 * device, inode, size and mtime (ns), so asking again about an unchanged
 * file costs a stat; fs's atomic writes give an edited file a new
 * inode, and any change moves its mtime.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tree_sitter/api.h>

#include "base/fs.h"
#include "base/str.h"
#include "code/code.h"
#include "code/bodies.h"
#include "code/skeleton.h"
#include "llm/tool.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

#define OUTLINE_MAX_SYMS 400 /* lines shown; the rest counted */
#define OUTLINE_SIG_MAX 120  /* bytes of a signature */
#define OUTLINE_CACHE 32     /* languages whose query is cached */
#define OUTLINE_RESULTS 16   /* answers kept for unchanged files */

struct sym {
	uint32_t name_at;    /* start byte of the name: dedup key */
	uint32_t start, end; /* 0-based rows of the definition */
	uint32_t sig_row;
	const char *kind;    /* "fn", "method", "class", ... */
	int depth;
};

/* Short kinds for @definition.X. */
static const struct {
	const char *def, *kind;
} kinds[] = {
	{ "function", "fn" }, { "method", "method" }, { "class", "class" },
	{ "type", "type" }, { "interface", "iface" }, { "module", "mod" },
	{ "macro", "macro" }, { "constant", "const" },
};

/* Parents that are part of a definition, climbed to find its full range. */
static const char *const wrappers[] = {
	"function_declarator", "pointer_declarator", "reference_declarator",
	"function_definition", "declaration", "field_declaration", "export_statement",
	"decorated_definition", "template_declaration", "lexical_declaration",
	"variable_declarator", "type_declaration",
};

/* Fallback queries for languages whose package ships no tags.scm. */
static const struct {
	const char *lang, *query;
} fallbacks[] = {
	{ "bash", "(function_definition name: (word) @name) @definition.function" },
};

/* A kept answer (see the top). */
struct kept {
	char *abs, *rel;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *out;
};

static struct kept kept[OUTLINE_RESULTS];
static size_t kept_next;

/* The kind for a capture name, or NULL when it is not a definition. */
static const char *
kind_of(const char *cap, uint32_t len)
{
	size_t i, pre = strlen("definition.");

	if (len <= pre || strncmp(cap, "definition.", pre))
		return NULL;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strlen(kinds[i].def) == len - pre && !strncmp(cap + pre, kinds[i].def, len - pre))
			return kinds[i].kind;
	return "sym";
}

/* The compiled query for lang (cached), or NULL when it has none. */
static TSQuery *
query_for(const struct code_lang *lang)
{
	static struct {
		const struct code_lang *lang;
		TSQuery *q;
	} cache[OUTLINE_CACHE];
	const char *src = lang->tags;
	size_t i;

	for (i = 0; i < OUTLINE_CACHE && cache[i].lang; i++)
		if (cache[i].lang == lang)
			return cache[i].q;
	for (i = 0; !*src && i < sizeof fallbacks / sizeof fallbacks[0]; i++)
		if (!strcmp(fallbacks[i].lang, lang->name))
			src = fallbacks[i].query;
	for (i = 0; i < OUTLINE_CACHE && cache[i].lang; i++)
		;
	if (i == OUTLINE_CACHE)
		i = 0; /* full: reuse a slot (never happens with the built-in table) */
	cache[i].lang = lang;
	cache[i].q = *src ? code_skeleton_defs_query(lang, src) : NULL;
	return cache[i].q;
}

/* Whether type is one of the wrapper node types. */
static int
is_wrapper(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
		if (!strcmp(type, wrappers[i]))
			return 1;
	return 0;
}

/*
 * The parent of n, a node inside scope (not scope itself), found by walking
 * down from scope: ts_node_parent walks down from the tree's root, through
 * every top-level node before n.  ts_node_parent's answer when the walk
 * loses n (zero-width nodes).
 */
static TSNode
parent_below(TSNode scope, TSNode n)
{
	TSTreeCursor c = ts_tree_cursor_new(scope);
	TSNode parent = scope;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	int more = ts_tree_cursor_goto_first_child(&c), found = 0;

	while (more && !found) {
		TSNode cur = ts_tree_cursor_current_node(&c);
		if (ts_node_eq(cur, n))
			found = 1;
		else if (ts_node_start_byte(cur) <= s && e <= ts_node_end_byte(cur)) {
			parent = cur;
			more = ts_tree_cursor_goto_first_child(&c);
		} else
			more = ts_tree_cursor_goto_next_sibling(&c);
	}
	ts_tree_cursor_delete(&c);
	return found ? parent : ts_node_parent(n);
}

/* Widen a definition node (inside scope, the node the query ran on) through its wrapper parents. */
static TSNode
widen(TSNode scope, TSNode n)
{
	TSNode p, root = ts_tree_root_node(n.tree);

	while (!ts_node_eq(n, scope)) {
		p = parent_below(scope, n);
		if (ts_node_is_null(p) || ts_node_eq(p, root) || !is_wrapper(ts_node_type(p)))
			break;
		n = p;
	}
	return n;
}

/* Add or merge one symbol (dedup on the name's position). */
static void
add_sym(struct sym **v, size_t *n, TSNode scope, TSNode def, TSNode name, const char *kind)
{
	uint32_t at = ts_node_start_byte(name);
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].name_at == at) {
			if (!strcmp(kind, "method"))
				(*v)[i].kind = kind;
			return;
		}
	def = widen(scope, def);
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[*n].name_at = at;
	(*v)[*n].start = ts_node_start_point(def).row;
	(*v)[*n].end = ts_node_end_point(def).row;
	(*v)[*n].sig_row = ts_node_start_point(name).row;
	(*v)[*n].kind = kind;
	(*v)[(*n)++].depth = 0;
}

/* The matches of q under root (within [from, to)) into v. */
static void
collect_range(TSQueryCursor *c, TSQuery *q, TSNode root, uint32_t from, uint32_t to,
	      struct sym **v, size_t *n)
{
	TSQueryMatch m;
	uint16_t i;

	ts_query_cursor_set_byte_range(c, from, to);
	ts_query_cursor_exec(c, q, root);
	while (ts_query_cursor_next_match(c, &m)) {
		TSNode def = { { 0 }, 0, 0 }, name = def;
		const char *kind = NULL;
		for (i = 0; i < m.capture_count; i++) {
			uint32_t len;
			const char *cap = ts_query_capture_name_for_id(q, m.captures[i].index, &len);
			const char *k = kind_of(cap, len);
			if (k)
				def = m.captures[i].node, kind = k;
			else if (len == 4 && !strncmp(cap, "name", 4))
				name = m.captures[i].node;
		}
		if (kind && !ts_node_is_null(def) && !ts_node_is_null(name))
			add_sym(v, n, root, def, name, kind);
	}
}

/*
 * Run the query and collect the symbols.  Where bodies are skipped it runs
 * once per top-level node: over a function definition up to its body,
 * over anything else whole.
 */
static size_t
collect(const struct code_lang *lang, TSQuery *q, TSNode root, struct sym **v)
{
	TSQueryCursor *c = ts_query_cursor_new();
	size_t n = 0;
	uint32_t from, to;
	TSTreeCursor tc;

	if (!code_bodies_any(lang->name, CODE_BODIES_OUTLINE)) {
		collect_range(c, q, root, 0, UINT32_MAX, v, &n);
		ts_query_cursor_delete(c);
		return n;
	}
	tc = ts_tree_cursor_new(root);
	if (ts_tree_cursor_goto_first_child(&tc)) {
		do {
			TSNode top = ts_tree_cursor_current_node(&tc);
			if (ts_node_child_count(top) == 0)
				continue; /* a comment: nothing to match */
			if (code_bodies_find(lang->name, top, CODE_BODIES_OUTLINE, &from, &to))
				collect_range(c, q, top, ts_node_start_byte(top), from, v, &n);
			else
				collect_range(c, q, top, 0, UINT32_MAX, v, &n);
		} while (ts_tree_cursor_goto_next_sibling(&tc));
	}
	ts_tree_cursor_delete(&tc);
	ts_query_cursor_delete(c);
	return n;
}

/* Order symbols by start row, then by name position. */
static int
cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name_at < y->name_at ? -1 : x->name_at > y->name_at;
}

/* Depth: how many earlier symbols' ranges strictly contain this one. */
static void
nest(struct sym *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (v[j].start <= v[i].start && v[j].end >= v[i].end &&
			    (v[j].start != v[i].start || v[j].end != v[i].end))
				v[i].depth++;
}

/* Offsets of the start of each line, plus one past the end; returns the line count. */
static size_t
line_starts(const char *s, size_t n, size_t **out)
{
	size_t i, c = 1, cap = 256;
	size_t *v = xmalloc(cap * sizeof *v);

	v[0] = 0;
	for (i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		if (c + 1 >= cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[c++] = i + 1;
	}
	if (n && s[n - 1] == '\n')
		c--; /* no line after the last newline */
	v[c] = n + 1;
	*out = v;
	return c;
}

/* Append one line: "  12-40 fn parse_args(int argc, char **argv)". */
static void
put_sym(struct buf *out, const struct sym *s, const char *text, const size_t *starts,
	size_t nlines)
{
	size_t row = s->sig_row < nlines ? s->sig_row : nlines - 1, n;
	size_t from = starts[row], to = starts[row + 1] - 1;
	struct str l = str_trim(str_make(text + from, to > from ? to - from : 0));

	n = l.len > OUTLINE_SIG_MAX ? OUTLINE_SIG_MAX : l.len;
	while (n < l.len && n > 0 && ((unsigned char)l.p[n] & 0xC0) == 0x80)
		n--;
	buf_addf(out, "%*s%u-%u %s ", 2 + s->depth * 2, "", s->start + 1, s->end + 1, s->kind);
	fs_add_utf8(out, l.p, n);
	buf_adds(out, n < l.len ? " ...\n" : "\n");
}

/* Parse, query, print; 1: a keepable answer, 0: a note, -1: failed (the job is done). */
static int
outline_text(struct tool_job *job, const char *rel, const struct code_lang *lang,
	     const struct buf *text)
{
	TSQuery *q = query_for(lang);
	struct code_tree *t = NULL;
	struct err e = ERR_INIT;
	struct sym *v = NULL;
	size_t n, i, nlines, *starts;

	if (!q) {
		buf_addf(&job->out, "no outline for %s: hearth has no symbol query for %s files; "
			 "use read or grep", rel, lang->name);
		return 0;
	}
	if (code_skeleton_parse(lang, CODE_BODIES_OUTLINE, text->data, text->len, &t, NULL, &e) < 0) {
		tool_job_fail(job, "outline of %s: %s", rel, e.msg);
		return -1;
	}
	n = collect(lang, q, ts_tree_root_node(code_tree_ts(t)), &v);
	if (n)
		qsort(v, n, sizeof *v, cmp_sym);
	nest(v, n);
	nlines = line_starts(text->data, text->len, &starts);
	buf_addf(&job->out, "%s (%s, %zu lines, %zu symbols)\n", rel, lang->name,
		 text->len ? nlines : 0, n);
	for (i = 0; i < n && i < OUTLINE_MAX_SYMS; i++)
		put_sym(&job->out, &v[i], text->data, starts, nlines);
	if (n > OUTLINE_MAX_SYMS)
		buf_addf(&job->out, "... %zu more symbols; use grep to find one\n",
			 n - OUTLINE_MAX_SYMS);
	if (!n)
		buf_adds(&job->out, "no symbols found\n");
	free(v);
	free(starts);
	code_release(t);
	return 1;
}

/* The kept answer for abs as it is now (st), or NULL. */
static const char *
kept_find(const char *abs, const char *rel, const struct stat *st)
{
	size_t i;

	for (i = 0; i < OUTLINE_RESULTS; i++)
		if (kept[i].abs && !strcmp(kept[i].abs, abs) && !strcmp(kept[i].rel, rel) &&
		    kept[i].dev == st->st_dev &&
		    kept[i].ino == st->st_ino && kept[i].size == st->st_size &&
		    kept[i].mtime.tv_sec == st->st_mtim.tv_sec &&
		    kept[i].mtime.tv_nsec == st->st_mtim.tv_nsec)
			return kept[i].out;
	return NULL;
}

/* Keep an answer, replacing the oldest. */
static void
kept_add(const char *abs, const char *rel, const struct stat *st, const struct buf *out)
{
	struct kept *k = &kept[kept_next++ % OUTLINE_RESULTS];

	free(k->abs);
	free(k->rel);
	free(k->out);
	k->abs = xstrdup(abs);
	k->rel = xstrdup(rel);
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
	k->out = xstrdup(out->data);
}

/* Outline the text read from abs (stat st), keeping the answer. */
static void
outline_read(struct tool_job *job, const char *abs, const char *rel,
	     const struct buf *text, const struct stat *st)
{
	struct stat now;
	int rc = outline_text(job, rel, code_lang_for_file(abs, text->data, text->len), text);

	if (rc < 0)
		return;
	/* keep it only if the file did not change while it was read */
	if (rc == 1 && stat(abs, &now) == 0 && now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == st->st_mtim.tv_nsec && now.st_size == st->st_size)
		kept_add(abs, rel, st, &job->out);
	tool_job_done(job);
}


/* Check the file, read it, outline it. */
static void
outline_file(struct tool_job *job, const char *abs)
{
	const char *rel = workspace_rel(job->env->root, abs);
	const struct code_lang *lang = code_lang_for_path(abs);
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	const char *done;

	if (stat(abs, &st) < 0)
		tool_job_fail(job, "%s does not exist; use find to locate the file", rel);
	else if (S_ISREG(st.st_mode) && (done = kept_find(abs, rel, &st)) != NULL) {
		buf_adds(&job->out, done);
		tool_job_done(job);
	}
	else if (!S_ISREG(st.st_mode))
		tool_job_fail(job, "%s is not a regular file; outline takes a file (use ls for "
			      "directories)", rel);
	else if (!lang) {
		buf_addf(&job->out, "no outline for %s: hearth has no grammar for this file type; "
			 "use read or grep", rel);
		tool_job_done(job);
	} else if ((size_t)st.st_size > CODE_MAX_BYTES) {
		buf_addf(&job->out, "no outline for %s: %jd bytes is over the %zu MB limit; use "
			 "grep to find symbols", rel, (intmax_t)st.st_size, CODE_MAX_BYTES >> 20);
		tool_job_done(job);
	} else if (fs_read_beneath(job->env->root, abs, &text, CODE_MAX_BYTES, &e) < 0)
		tool_job_fail(job, "%s", e.msg);
	else if (fs_is_binary(text.data, text.len)) {
		buf_addf(&job->out, "no outline for %s: it is a binary file", rel);
		tool_job_done(job);
	} else
		outline_read(job, abs, rel, &text, &st);
	buf_release(&text);
}

/* Entry point. */
static void
outline_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;

	if (!cJSON_IsString(path) || !*path->valuestring)
		tool_job_fail(job, "outline needs \"path\" (a file)");
	else if (workspace_resolve(job->env->root, job->env->allow_outside, path->valuestring, &abs,
			    &e) < 0)
		tool_job_fail(job, "%s", e.msg);
	else
		outline_file(job, abs.data);
	buf_release(&abs);
}

const struct tool tool_outline = {
	.name = "outline",
	.description =
		"List the symbols of a source file (functions, types, classes, methods) with "
		"their line ranges and signatures. Much cheaper than reading the whole file: "
		"use it first, then read only the lines you need.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{"
		"\"path\":{\"type\":\"string\",\"description\":\"File path, relative to the "
		"workspace root or absolute\"}},"
		"\"required\":[\"path\"],\"additionalProperties\":false}",
	.flags = TOOL_READ_ONLY | TOOL_SHOWS_FILE,
	.start = outline_start,
	.cancel = NULL,
	.paths = tool_path_arg,
};

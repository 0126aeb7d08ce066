/*
 * code/code: language registry and parse wrapper over tree-sitter.
 *
 * Data: `langs`, a static table with one row per grammar compiled into
 * build/grammars/libgrammars.a (mk/grammars.mk; the two lists must agree,
 * or the link fails naming the missing tree_sitter_X / code_q_X_* symbol).
 * The query texts are arrays generated at build time from the packages'
 * queries/NAME.scm files.  `exts` and `names` map file names to rows.
 *
 * A struct code_tree owns one TSTree and points at its (static) language
 * row.  Highlighting compiles each language's highlights query once
 * (`hl_queries`, kept for the life of the process, so the capture names
 * spans point at stay valid) and paints a capture id per byte
 * (`paint`: 0 plain, id + 1 otherwise), which is then cut into spans.
 *
 * Each thread keeps one parser between parses (`parser_keep`, base/keep.h): making one
 * (ts_parser_new and its first stack and tree-pool allocations) cost a
 * fifth of the parse of a small file's skeleton, which repomap does for
 * thousands of files.  A parse takes it and gives it back (a nested parse
 * makes its own); a parse that gave up is reset before it is kept, and
 * ranges and timeout are set on every parse.  The parser goes with its
 * thread (the key's destructor); the main thread's is still reachable at
 * exit (not a leak: valgrind's and LSan's roots include a thread's keys).
 */
#include "code/code.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <tree_sitter/api.h>

#include "code/cpp.h"
#include "code/predicate.h"
#include "base/keep.h"
#include "base/xmalloc.h"

struct code_tree {
	TSTree *ts;
	const struct code_lang *lang;
};

/* Declarations of one compiled-in grammar and its embedded queries. */
#define CODE_GRAMMAR(id)                                \
	const TSLanguage *tree_sitter_##id(void);      \
	extern const char code_q_##id##_highlights[];   \
	extern const char code_q_##id##_tags[]

CODE_GRAMMAR(c);
CODE_GRAMMAR(cpp);
CODE_GRAMMAR(python);
CODE_GRAMMAR(javascript);
CODE_GRAMMAR(typescript);
CODE_GRAMMAR(tsx);
CODE_GRAMMAR(go);
CODE_GRAMMAR(rust);
CODE_GRAMMAR(bash);
CODE_GRAMMAR(json);
CODE_GRAMMAR(java);
CODE_GRAMMAR(ruby);
CODE_GRAMMAR(html);
CODE_GRAMMAR(css);
CODE_GRAMMAR(yaml);
CODE_GRAMMAR(markdown);
CODE_GRAMMAR(markdown_inline);

#define LANG(id, fl) { #id, tree_sitter_##id, code_q_##id##_highlights, code_q_##id##_tags, fl }

/* The public order of code_langs(): most used first. */
static const struct code_lang langs[] = {
	LANG(c, 0),
	LANG(cpp, 0),
	LANG(python, 0),
	LANG(javascript, 0),
	LANG(typescript, 0),
	LANG(tsx, 0),
	LANG(go, 0),
	LANG(rust, 0),
	LANG(bash, 0),
	LANG(json, 0),
	LANG(java, 0),
	LANG(ruby, 0),
	LANG(html, 0),
	LANG(css, 0),
	LANG(yaml, 0),
	LANG(markdown, 0),
	LANG(markdown_inline, 0),
};

#define NLANGS (sizeof langs / sizeof langs[0])

struct code_map {
	const char *key;  /* extension without the dot, or a whole file name */
	const char *lang; /* a name in langs */
};

static const struct code_map exts[] = {
	{ "c", "c" }, { "h", "c" },
	{ "cc", "cpp" }, { "cpp", "cpp" }, { "cxx", "cpp" }, { "c++", "cpp" },
	{ "hh", "cpp" }, { "hpp", "cpp" }, { "hxx", "cpp" }, { "h++", "cpp" }, { "ipp", "cpp" },
	{ "py", "python" }, { "pyi", "python" }, { "pyw", "python" },
	{ "js", "javascript" }, { "mjs", "javascript" }, { "cjs", "javascript" },
	{ "jsx", "javascript" },
	{ "ts", "typescript" }, { "mts", "typescript" }, { "cts", "typescript" },
	{ "tsx", "tsx" },
	{ "go", "go" },
	{ "rs", "rust" },
	{ "sh", "bash" }, { "bash", "bash" },
	{ "json", "json" }, { "jsonc", "json" },
	{ "java", "java" },
	{ "rb", "ruby" }, { "rake", "ruby" }, { "gemspec", "ruby" },
	{ "html", "html" }, { "htm", "html" }, { "xhtml", "html" },
	{ "css", "css" },
	{ "yaml", "yaml" }, { "yml", "yaml" },
	{ "md", "markdown" }, { "markdown", "markdown" },
};

static const struct code_map names[] = {
	{ ".bashrc", "bash" }, { ".bash_profile", "bash" }, { ".bash_aliases", "bash" },
	{ ".bash_logout", "bash" }, { ".profile", "bash" }, { "PKGBUILD", "bash" },
	{ "Gemfile", "ruby" }, { "Rakefile", "ruby" }, { "Vagrantfile", "ruby" },
	{ ".clang-format", "yaml" }, { ".clang-tidy", "yaml" },
};

/* The table, for callers that list or iterate languages. */
const struct code_lang *
code_langs(size_t *n)
{
	*n = NLANGS;
	return langs;
}

/* Registry lookup by the grammar's short name. */
const struct code_lang *
code_lang_by_name(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < NLANGS; i++)
		if (strcmp(langs[i].name, name) == 0)
			return &langs[i];
	return NULL;
}

/* Look key up in a map (case-insensitively when icase) and resolve its language. */
static const struct code_lang *
map_find(const struct code_map *map, size_t n, const char *key, int icase)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int cmp = icase ? strcasecmp(map[i].key, key) : strcmp(map[i].key, key);
		if (cmp == 0)
			return code_lang_by_name(map[i].lang);
	}
	return NULL;
}

/* File name first (so ".bashrc" is not read as extension "bashrc"), then extension. */
const struct code_lang *
code_lang_for_path(const char *path)
{
	const char *base, *dot;
	const struct code_lang *l;

	if (!path)
		return NULL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!*base)
		return NULL;
	l = map_find(names, sizeof names / sizeof names[0], base, 0);
	if (l)
		return l;
	dot = strrchr(base, '.');
	if (!dot || dot == base || !dot[1])
		return NULL;
	return map_find(exts, sizeof exts / sizeof exts[0], dot + 1, 1);
}

/* A file's language by its name, and for a ".h" header by its text (see code/code.h). */
const struct code_lang *
code_lang_for_file(const char *path, const char *text, size_t n)
{
	const struct code_lang *lang = code_lang_for_path(path);
	size_t len = path ? strlen(path) : 0;

	if (!lang || strcmp(lang->name, "c") || len < 2 || strcasecmp(path + len - 2, ".h") ||
	    !text || !code_cpp_is_cpp(text, n))
		return lang;
	return code_lang_by_name("cpp");
}

/* ts_parser_delete for base/keep. */
static void
parser_drop(void *p)
{
	ts_parser_delete(p);
}

static struct keep parser_keep = KEEP_INIT(parser_drop);

/* Run one bounded parse (over ranges when nranges > 0); NULL + e on failure. */
static TSTree *
parse_text(const struct code_lang *lang, const char *text, size_t n, const TSRange *ranges,
	   uint32_t nranges, struct err *e)
{
	TSParser *p = keep_take(&parser_keep);
	const TSLanguage *tl = lang->language();
	TSTree *t = NULL;
	int gave_up = 0;

	if (!p)
		p = ts_parser_new();
	if (!ts_parser_set_language(p, tl))
		err_set(e, "load %s grammar: its ABI version %u is not supported by this "
			"libtree-sitter", lang->name, (unsigned)ts_language_version(tl));
	else if (!ts_parser_set_included_ranges(p, nranges ? ranges : NULL, nranges))
		err_set(e, "parse %s text: the parts to parse are out of order", lang->name);
	else {
		ts_parser_set_timeout_micros(p, (uint64_t)CODE_PARSE_TIMEOUT_MS * 1000);
		t = ts_parser_parse_string(p, NULL, text, (uint32_t)n);
		if (!t) {
			gave_up = 1;
			err_set(e, "parse %s text: gave up after %d ms; syntax check skipped",
				lang->name, CODE_PARSE_TIMEOUT_MS);
		}
	}
	if (gave_up)
		ts_parser_reset(p); /* else its next parse would resume this one */
	keep_give(&parser_keep, p);
	return t;
}

/* Check the arguments every parse takes; 0 or -1 + e. */
static int
parse_args_ok(const struct code_lang *lang, const char *text, size_t n, struct err *e)
{
	if (!lang)
		return err_set(e, "parse: no language given");
	if (n > CODE_MAX_BYTES)
		return err_set(e, "parse %s text: %zu bytes is over the %zu MB limit; "
			"syntax check skipped", lang->name, n, CODE_MAX_BYTES / (1024 * 1024));
	if (!text && n > 0)
		return err_set(e, "parse %s text: no text", lang->name);
	return 0;
}

/* Wrap a new tree-sitter tree; 0, or -1 when there is none. */
static int
wrap_tree(const struct code_lang *lang, TSTree *t, struct code_tree **out)
{
	if (!t)
		return -1;
	*out = xmalloc(sizeof **out);
	(*out)->ts = t;
	(*out)->lang = lang;
	return 0;
}

/* Parse text into a new tree owned by the caller. */
int
code_parse(const struct code_lang *lang, const char *text, size_t n, struct code_tree **out,
	struct err *e)
{
	*out = NULL;
	if (parse_args_ok(lang, text, n, e) < 0)
		return -1;
	return wrap_tree(lang, parse_text(lang, text ? text : "", n, NULL, 0, e), out);
}

/* The point of byte `to`, counting rows from *at (row *row, line start *bol) onwards. */
static TSPoint
point_at(const char *text, uint32_t to, uint32_t *at, uint32_t *row, uint32_t *bol)
{
	const char *nl;
	TSPoint p;

	while ((nl = memchr(text + *at, '\n', to - *at)) != NULL) {
		*at = (uint32_t)(nl - text) + 1;
		*bol = *at;
		(*row)++;
	}
	*at = to;
	p.row = *row;
	p.column = to - *bol;
	return p;
}

/* Parse text without the holes (ascending byte ranges). */
int
code_parse_holes(const struct code_lang *lang, const char *text, size_t n, const uint32_t *holes,
		size_t nholes, struct code_tree **out, struct err *e)
{
	TSRange *r;
	uint32_t at = 0, row = 0, bol = 0, nr = 0;
	size_t k;
	int rc;

	*out = NULL;
	if (parse_args_ok(lang, text, n, e) < 0)
		return -1;
	r = xmalloc((nholes + 1) * sizeof *r);
	r[0].start_byte = 0;
	r[0].start_point.row = r[0].start_point.column = 0;
	for (k = 0; k < nholes; k++) {
		if (holes[2 * k] < at || holes[2 * k + 1] < holes[2 * k] || holes[2 * k + 1] > n) {
			free(r);
			return err_set(e, "parse %s text: the parts to leave out are out of order",
				       lang->name);
		}
		r[nr].end_byte = holes[2 * k];
		r[nr++].end_point = point_at(text, holes[2 * k], &at, &row, &bol);
		r[nr].start_byte = holes[2 * k + 1];
		r[nr].start_point = point_at(text, holes[2 * k + 1], &at, &row, &bol);
	}
	if (r[nr].start_byte < n || nr == 0) {
		r[nr].end_byte = UINT32_MAX;
		r[nr].end_point.row = r[nr].end_point.column = UINT32_MAX;
		nr++;
	}
	rc = wrap_tree(lang, parse_text(lang, text ? text : "", n, r, nr, e), out);
	free(r);
	return rc;
}

/* Whether node is an ERROR node (tree-sitter's builtin error symbol). */
static int
is_error_node(TSNode node)
{
	return ts_node_symbol(node) == (TSSymbol)-1;
}

/* Record one problem node in out[*n] when there is room; always counts it. */
static void
note_error(TSNode node, int missing, struct code_error *out, size_t max, size_t *n)
{
	if (*n < max) {
		TSPoint pt = ts_node_start_point(node);
		out[*n].line = pt.row;
		out[*n].col = pt.column;
		out[*n].missing = missing;
		out[*n].what = missing ? ts_node_type(node) : "ERROR";
	}
	(*n)++;
}

/*
 * Walk the tree with a cursor (no recursion: trees can be deep), entering
 * only subtrees that contain an error and not the inside of ERROR nodes, so
 * one unparsable region counts once.
 */
size_t
code_errors(const struct code_tree *t, struct code_error *out, size_t max)
{
	TSNode root;
	TSTreeCursor c;
	size_t n = 0;

	if (!t)
		return 0;
	root = ts_tree_root_node(t->ts);
	if (!ts_node_has_error(root))
		return 0;
	c = ts_tree_cursor_new(root);
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		int enter = ts_node_has_error(node);

		if (ts_node_is_missing(node))
			note_error(node, 1, out, max, &n);
		else if (is_error_node(node)) {
			note_error(node, 0, out, max, &n);
			enter = 0;
		}
		if (enter && ts_tree_cursor_goto_first_child(&c))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&c))
			if (!ts_tree_cursor_goto_parent(&c))
				goto done;
	}
done:
	ts_tree_cursor_delete(&c);
	return n;
}

/* The language row a tree was parsed with. */
const struct code_lang *
code_tree_lang(const struct code_tree *t)
{
	return t ? t->lang : NULL;
}

/* Borrow the tree-sitter tree for queries. */
const struct TSTree *
code_tree_ts(const struct code_tree *t)
{
	return t ? t->ts : NULL;
}

/* Free the tree and its wrapper. */
void
code_release(struct code_tree *t)
{
	if (!t)
		return;
	ts_tree_delete(t->ts);
	free(t);
}

/* Capture first components that are not kind names themselves. */
static const struct {
	const char *name;
	enum code_kind kind;
} cap_alias[] = {
	{ "boolean", CODE_CONSTANT }, { "character", CODE_STRING }, { "escape", CODE_CONSTANT },
	{ "property", CODE_VARIABLE }, { "field", CODE_VARIABLE }, { "parameter", CODE_VARIABLE },
	{ "label", CODE_CONSTANT }, { "attribute", CODE_TYPE }, { "constructor", CODE_TYPE },
	{ "module", CODE_TYPE }, { "namespace", CODE_TYPE }, { "tag", CODE_KEYWORD },
	{ "float", CODE_NUMBER }, { "method", CODE_FUNCTION }, { "conditional", CODE_KEYWORD },
	{ "repeat", CODE_KEYWORD }, { "include", CODE_KEYWORD }, { "exception", CODE_KEYWORD },
	{ "storageclass", CODE_KEYWORD }, { "delimiter", CODE_PUNCTUATION },
	{ "text", CODE_PLAIN }, { "embedded", CODE_PLAIN }, { "markup", CODE_PLAIN },
	{ "none", CODE_PLAIN }, { "spell", CODE_PLAIN },
};

static const char *const kind_names[CODE_KIND_COUNT] = {
	"plain", "keyword", "string", "comment", "number", "function", "type", "variable",
	"constant", "operator", "punctuation"
};

/* Fence info aliases that are neither a language name nor an extension. */
static const struct code_map fence_alias[] = {
	{ "shell", "bash" }, { "zsh", "bash" }, { "console", "bash" }, { "shellsession", "bash" },
	{ "golang", "go" }, { "python3", "python" }, { "node", "javascript" },
	{ "ecmascript", "javascript" }, { "c++", "cpp" }, { "objc", "c" },
};

/* Name of a kind. */
const char *
code_kind_name(enum code_kind k)
{
	return (int)k > 0 && k < CODE_KIND_COUNT ? kind_names[k] : "plain";
}

/* Kind of a capture: its first component by name, then the alias table. */
enum code_kind
code_kind_of_capture(const char *capture)
{
	size_t n = capture ? strcspn(capture, ".") : 0, i;

	for (i = 1; i < CODE_KIND_COUNT; i++)
		if (strlen(kind_names[i]) == n && !strncmp(kind_names[i], capture, n))
			return (enum code_kind)i;
	for (i = 0; i < sizeof cap_alias / sizeof cap_alias[0]; i++)
		if (strlen(cap_alias[i].name) == n && !strncmp(cap_alias[i].name, capture, n))
			return cap_alias[i].kind;
	return CODE_PLAIN;
}

/* Language of a fence info string (see code/code.h). */
const struct code_lang *
code_lang_for_fence(const char *info)
{
	char w[40], path[48];
	size_t n = 0;
	const struct code_lang *l;

	if (!info)
		return NULL;
	while (*info == ' ' || *info == '{' || *info == '.')
		info++;
	while (info[n] && !strchr(" \t,{}", info[n]) && n + 1 < sizeof w) {
		w[n] = (char)tolower((unsigned char)info[n]);
		n++;
	}
	w[n] = '\0';
	if (!n)
		return NULL;
	if ((l = code_lang_by_name(w)) != NULL)
		return l;
	if ((l = map_find(fence_alias, sizeof fence_alias / sizeof fence_alias[0], w, 1)) != NULL)
		return l;
	if ((l = code_lang_for_path(info)) != NULL && strchr(w, '.'))
		return l;
	snprintf(path, sizeof path, "x.%s", w);
	return code_lang_for_path(path);
}

/* The compiled highlights query of lang (once per process), NULL when none. */
static TSQuery *
hl_query(const struct code_lang *lang)
{
	static TSQuery *hl_queries[NLANGS];
	static unsigned char tried[NLANGS];
	size_t i = (size_t)(lang - langs);
	uint32_t off;
	TSQueryError qe;

	if (i >= NLANGS || (lang->flags & CODE_NO_HIGHLIGHTS) || !*lang->highlights)
		return NULL;
	if (!tried[i]) {
		tried[i] = 1;
		hl_queries[i] = ts_query_new(lang->language(), lang->highlights,
			(uint32_t)strlen(lang->highlights), &off, &qe);
	}
	return hl_queries[i];
}

/* Milliseconds on the monotonic clock. */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run the query, painting capture ids into paint[]; 0, or -1 when time ran out. */
static int
hl_paint(TSQuery *q, TSTree *t, const char *text, size_t n, uint16_t *paint,
	long long deadline)
{
	TSQueryCursor *c = ts_query_cursor_new();
	TSQueryMatch m;
	uint32_t ci;
	unsigned long k = 0;
	int rc = 0;

	ts_query_cursor_set_match_limit(c, 256);
	ts_query_cursor_exec(c, q, ts_tree_root_node(t));
	while (ts_query_cursor_next_capture(c, &m, &ci)) {
		TSNode node = m.captures[ci].node;
		uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node), x;

		if (++k % 256 == 0 && now_ms() > deadline) {
			rc = -1;
			break;
		}
		if (!code_predicate_ok(q, &m, text, n)) {
			ts_query_cursor_remove_match(c, m.id);
			continue;
		}
		if (b > n || a >= b)
			continue;
		for (x = a; x < b; x++)
			paint[x] = (uint16_t)(m.captures[ci].index + 1);
	}
	ts_query_cursor_delete(c);
	return rc;
}

/* Cut the painted bytes into spans of one capture each (plain bytes skipped). */
static void
hl_spans(TSQuery *q, const uint16_t *paint, size_t n, struct code_hl *out)
{
	size_t i = 0, j, cap = 0;
	uint32_t len;

	while (i < n) {
		const char *name;
		enum code_kind k;

		for (j = i + 1; j < n && paint[j] == paint[i]; j++)
			;
		if (paint[i]) {
			name = ts_query_capture_name_for_id(q, paint[i] - 1u, &len);
			k = code_kind_of_capture(name);
			if (k != CODE_PLAIN) {
				if (out->n == cap) {
					cap = cap ? cap * 2 : 64;
					out->spans = xrealloc(out->spans, cap * sizeof *out->spans);
				}
				out->spans[out->n++] = (struct code_span){ i, j, k, name };
			}
		}
		i = j;
	}
}

static int hl_timeout_ms = CODE_HL_TIMEOUT_MS;

/* See code/code.h. */
void
code_highlight_set_timeout(int ms)
{
	hl_timeout_ms = ms > 0 ? ms : CODE_HL_TIMEOUT_MS;
}

/* Highlight text as lang (see code/code.h). */
int
code_highlight(const struct code_lang *lang, const char *text, size_t n, struct code_hl *out,
	struct err *e)
{
	TSQuery *q;
	TSParser *p;
	TSTree *t = NULL;
	uint16_t *paint;
	long long deadline = now_ms() + hl_timeout_ms;

	memset(out, 0, sizeof *out);
	if (!lang)
		return err_set(e, "highlight: no language given");
	if (!(q = hl_query(lang)))
		return err_set(e, "highlight %s text: no usable highlights query", lang->name);
	if (!text)
		n = 0;
	if (n > CODE_HL_MAX_BYTES) {
		out->cut = 1;
		for (n = CODE_HL_MAX_BYTES; n > 0 && text[n - 1] != '\n'; n--)
			;
	}
	p = ts_parser_new();
	if (ts_parser_set_language(p, lang->language())) {
		ts_parser_set_timeout_micros(p, (uint64_t)hl_timeout_ms * 1000);
		t = ts_parser_parse_string(p, NULL, text ? text : "", (uint32_t)n);
	}
	ts_parser_delete(p);
	if (!t) {
		out->cut = 1;
		return 0;
	}
	paint = xcalloc(n ? n : 1, sizeof *paint);
	if (hl_paint(q, t, text, n, paint, deadline) < 0)
		out->cut = 1;
	ts_tree_delete(t);
	hl_spans(q, paint, n, out);
	out->done = n;
	free(paint);
	return 0;
}

/* Free the spans. */
void
code_hl_release(struct code_hl *h)
{
	if (!h)
		return;
	free(h->spans);
	memset(h, 0, sizeof *h);
}

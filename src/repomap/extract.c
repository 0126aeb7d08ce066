/*
 * repomap/extract: definitions and used names of one file (see repomap/extract.h).
 *
 * Data structures:
 *  - `queries`: per language its compiled tags query (reference-only
 *    patterns disabled: uses come from the lexical scan) and stamp; filled on
 *    first use under `queries_mu`, at most 64; an entry never changes once
 *    filled, and `nqueries` (read under the lock) says how many are.
 *  - struct nameset: the distinct identifier slices of one file, an
 *    open-addressing table of (start, length) into the text, at most half
 *    full, so each used name is copied once, not once per occurrence.
 *  - `at`: the sorted start bytes of the file's definition names, which are
 *    not uses (the lexical scan steps through it in order).
 *  - `cursor_keep`: each thread's query cursor, kept between files (as
 *    code/code.c keeps its parser) and deleted with its thread.
 */
#include "repomap/extract.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "base/keep.h"
#include "base/str.h"
#include "code/bodies.h"
#include "code/skeleton.h"
#include "base/xmalloc.h"

#define SIG_MAX 100   /* bytes of a signature */
#define NAME_MAX_LEN 80
#define NQUERIES 64
#define REPOMAP_EXTRACT_VERSION 3u /* of what this file extracts: bump it when that changes */

static struct {
	const struct code_lang *lang;
	TSQuery *q;          /* compiled when a file of the language is first parsed */
	int tried;           /* q compiled (or failed to) */
	uint64_t stamp;
} queries[NQUERIES];
static pthread_mutex_t queries_mu = PTHREAD_MUTEX_INITIALIZER;

struct nameset {
	uint32_t *start, *len;  /* len 0 = empty slot */
	size_t cap, n;
};

/* FNV-1a over len bytes, continuing h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	while (len--)
		h = (h ^ *s++) * UINT64_C(0x100000001b3);
	return h;
}

/* The entry of lang in `queries` (compiled on first use; the lock held), or -1. */
static int
query_slot_locked(const struct code_lang *lang)
{
	uint32_t abi;
	int i;

	for (i = 0; i < NQUERIES && queries[i].lang; i++)
		if (queries[i].lang == lang)
			return i;
	if (i == NQUERIES || !*lang->tags)
		return -1;
	queries[i].lang = lang;
	abi = ts_language_version(lang->language()) * 1000u + REPOMAP_EXTRACT_VERSION;
	queries[i].stamp = fnv(fnv(fnv(UINT64_C(0xcbf29ce484222325), lang->name,
				       strlen(lang->name)), &abi, sizeof abi),
			       lang->tags, strlen(lang->tags));
	if (!strcmp(lang->name, "c")) { /* a .h file may be read as C++ (code_lang_for_file) */
		const struct code_lang *cpp = code_lang_by_name("cpp");
		abi = ts_language_version(cpp->language());
		queries[i].stamp = fnv(fnv(queries[i].stamp, &abi, sizeof abi), cpp->tags,
				       strlen(cpp->tags));
	}
	return i;
}

/* The entry of lang in `queries` (its query compiled when `compile`), or -1; any thread. */
static int
query_slot(const struct code_lang *lang, int compile)
{
	int i;

	pthread_mutex_lock(&queries_mu);
	i = query_slot_locked(lang);
	if (i >= 0 && compile && !queries[i].tried) {
		queries[i].q = code_skeleton_defs_query(lang, lang->tags);
		queries[i].tried = 1;
	}
	pthread_mutex_unlock(&queries_mu);
	return i;
}

/* See repomap/extract.h. */
int
repomap_extract_supported(const struct code_lang *lang, uint64_t *stamp)
{
	int i = query_slot(lang, 0);

	if (i < 0) /* a tags query that does not compile shows when a file is parsed */
		return 0;
	*stamp = queries[i].stamp;
	return 1;
}

/* The trimmed source line around start_byte, cut at SIG_MAX bytes on a UTF-8 boundary, to d. */
static void
line_of(const char *text, size_t len, uint32_t start_byte, struct repomap_extract_def *d)
{
	size_t from = start_byte, to = start_byte, n;
	struct str l;

	while (from > 0 && text[from - 1] != '\n')
		from--;
	while (to < len && text[to] != '\n')
		to++;
	l = str_trim(str_make(text + from, to - from));
	n = l.len > SIG_MAX ? SIG_MAX : l.len;
	while (n < l.len && n > 0 && ((unsigned char)l.p[n] & 0xC0) == 0x80)
		n--;
	d->sig_off = (uint32_t)(l.p - text);
	d->sig_len = (uint8_t)n;
}

/* Order uint32 values (definition name positions). */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Add the definition of one match; its name position goes to *at. */
static void
add_match_def(struct repomap_extract *f, TSQuery *q, const TSQueryMatch *m, const char *text,
	      size_t len, uint32_t **at, size_t *nat)
{
	TSNode name = { { 0 }, 0, 0 };
	int def = 0;
	uint32_t s, e, clen;
	uint16_t i;

	for (i = 0; i < m->capture_count; i++) {
		const char *cap = ts_query_capture_name_for_id(q, m->captures[i].index, &clen);
		if (clen > 11 && !strncmp(cap, "definition.", 11))
			def = 1;
		else if (clen == 4 && !strncmp(cap, "name", 4))
			name = m->captures[i].node;
	}
	if (!def || ts_node_is_null(name))
		return;
	s = ts_node_start_byte(name), e = ts_node_end_byte(name);
	if (e <= s || e - s > NAME_MAX_LEN || e > len)
		return;
	for (i = 0; i < *nat; i++)
		if ((*at)[i] == s)
			return; /* the same name matched by two patterns */
	*at = xrealloc(*at, (*nat + 1) * sizeof **at);
	(*at)[(*nat)++] = s;
	f->defs = xrealloc(f->defs, (f->ndefs + 1) * sizeof *f->defs);
	f->defs[f->ndefs].name_off = s;
	f->defs[f->ndefs].name_len = (uint8_t)(e - s);
	f->defs[f->ndefs].line = ts_node_start_point(name).row + 1;
	line_of(text, len, s, &f->defs[f->ndefs++]);
}

/* Order definitions by line. */
static int
cmp_def(const void *a, const void *b)
{
	const struct repomap_extract_def *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* Whether byte c can be part of an identifier (UTF-8 bytes count as letters). */
static int
is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

/* Add the slice text[s..s+n) to the set unless it is there. */
static void
nameset_add(struct nameset *ns, const char *text, uint32_t s, uint32_t n)
{
	size_t i, j, oldcap = ns->cap;
	uint32_t *os = ns->start, *ol = ns->len;

	if ((ns->n + 1) * 2 > ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 256;
		ns->start = xcalloc(ns->cap, sizeof *ns->start);
		ns->len = xcalloc(ns->cap, sizeof *ns->len);
		ns->n = 0;
		for (j = 0; j < oldcap; j++)
			if (ol[j])
				nameset_add(ns, text, os[j], ol[j]);
		free(os), free(ol);
	}
	for (i = fnv(UINT64_C(0xcbf29ce484222325), text + s, n) & (ns->cap - 1); ns->len[i];
	     i = (i + 1) & (ns->cap - 1))
		if (ns->len[i] == n && !memcmp(text + ns->start[i], text + s, n))
			return;
	ns->start[i] = s, ns->len[i] = n;
	ns->n++;
}

/*
 * Scan the text for identifiers (a run of word bytes not starting with a
 * digit) other than the definition names at `at` (sorted); keep each once.
 */
static void
collect_refs(struct repomap_extract *f, const char *text, size_t len, const uint32_t *at,
	     size_t nat)
{
	struct nameset ns = { NULL, NULL, 0, 0 };
	size_t i = 0, s, k = 0;

	while (i < len) {
		if (!is_word((unsigned char)text[i])) {
			i++;
			continue;
		}
		for (s = i; i < len && is_word((unsigned char)text[i]); i++)
			;
		if (text[s] >= '0' && text[s] <= '9')
			continue;
		while (k < nat && at[k] < s)
			k++;
		if ((k < nat && at[k] == s) || i - s > NAME_MAX_LEN)
			continue;
		nameset_add(&ns, text, (uint32_t)s, (uint32_t)(i - s));
	}
	f->ref_off = xmalloc((ns.n ? ns.n : 1) * sizeof *f->ref_off);
	f->ref_len = xmalloc(ns.n ? ns.n : 1);
	for (i = 0; i < ns.cap; i++)
		if (ns.len[i]) {
			f->ref_off[f->nrefs] = ns.start[i];
			f->ref_len[f->nrefs++] = (uint8_t)ns.len[i];
		}
	free(ns.start), free(ns.len);
}

/* ts_query_cursor_delete for base/keep. */
static void
cursor_drop(void *c)
{
	ts_query_cursor_delete(c);
}

static struct keep cursor_keep = KEEP_INIT(cursor_drop);

/* The definitions of the matches of q under node within [from, to). */
static void
defs_in(struct repomap_extract *r, TSQueryCursor *c, TSQuery *q, TSNode node, uint32_t from,
	uint32_t to, const char *text, size_t len, uint32_t **at, size_t *nat)
{
	TSQueryMatch m;

	ts_query_cursor_set_byte_range(c, from, to);
	ts_query_cursor_exec(c, q, node);
	while (ts_query_cursor_next_match(c, &m))
		add_match_def(r, q, &m, text, len, at, nat);
}

/* Run the query per top-level node, over a skipped-body function only up to its body. */
static void
collect_defs(struct repomap_extract *r, const struct code_lang *lang, TSQuery *q, TSNode root,
	     const char *text, size_t len, uint32_t **at, size_t *nat)
{
	TSQueryCursor *c = keep_take(&cursor_keep);
	TSTreeCursor tc = ts_tree_cursor_new(root);
	uint32_t from, to;

	if (!c)
		c = ts_query_cursor_new();
	if (ts_tree_cursor_goto_first_child(&tc)) {
		do {
			TSNode top = ts_tree_cursor_current_node(&tc);
			if (code_bodies_find(lang->name, top, CODE_BODIES_MAP, &from, &to))
				defs_in(r, c, q, top, ts_node_start_byte(top), from, text, len, at, nat);
			else
				defs_in(r, c, q, top, 0, UINT32_MAX, text, len, at, nat);
		} while (ts_tree_cursor_goto_next_sibling(&tc));
	}
	ts_tree_cursor_delete(&tc);
	keep_give(&cursor_keep, c);
}

/* See repomap/extract.h. */
void
repomap_extract_file(const struct code_lang *lang, const char *text, size_t len,
	       struct repomap_extract *r)
{
	struct code_tree *t = NULL;
	TSNode root;
	uint32_t *at = NULL;
	size_t nat = 0;
	int slot = lang ? query_slot(lang, 1) : -1;

	if (slot < 0 || !queries[slot].q || code_skeleton_parse(lang, CODE_BODIES_MAP, text, len, &t, NULL, NULL) < 0) {
		r->skipped = 1;
		return;
	}
	root = ts_tree_root_node(code_tree_ts(t));
	collect_defs(r, lang, queries[slot].q, root, text, len, &at, &nat);
	if (r->ndefs)
		qsort(r->defs, r->ndefs, sizeof *r->defs, cmp_def);
	if (nat)
		qsort(at, nat, sizeof *at, cmp_u32);
	collect_refs(r, text, len, at, nat);
	free(at);
	code_release(t);
}

/* See repomap/extract.h. */
void
repomap_extract_release(struct repomap_extract *r)
{
	free(r->defs), free(r->ref_off), free(r->ref_len);
	memset(r, 0, sizeof *r);
}

/* See repomap/extract.h. */
void
repomap_extract_free(void)
{
	int i;

	for (i = 0; i < NQUERIES; i++)
		if (queries[i].q)
			ts_query_delete(queries[i].q);
	memset(queries, 0, sizeof queries);
}

/*
 * synhl: highlight spans from the embedded highlights queries (see
 * synhl.h).  The compiled queries sit in a small table, one per language
 * (never freed, like the grammars); a language whose query does not
 * compile is remembered as such and not tried again.
 */
#include "synhl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "xmalloc.h"

#define SYNHL_LANGS 32

/* The compiled highlights query of lang (cached), or NULL when it has none. */
static TSQuery *
hl_query(const struct syn_lang *lang)
{
	static struct {
		const struct syn_lang *lang;
		TSQuery *q;
	} cache[SYNHL_LANGS];
	uint32_t off;
	TSQueryError qe;
	size_t i;

	for (i = 0; i < SYNHL_LANGS && cache[i].lang; i++)
		if (cache[i].lang == lang)
			return cache[i].q;
	if (i == SYNHL_LANGS)
		return NULL; /* more languages than slots: never with the built-in table */
	cache[i].lang = lang;
	cache[i].q = NULL;
	if (*lang->highlights && !(lang->flags & SYN_NO_HIGHLIGHTS))
		cache[i].q = ts_query_new(lang->language(), lang->highlights,
					  (uint32_t)strlen(lang->highlights), &off, &qe);
	return cache[i].q;
}

/* Highlight a text (see synhl.h). */
int
syn_highlight(const struct syn_lang *lang, const char *text, size_t n,
	      struct syn_span **out, size_t *nout, struct err *e)
{
	TSQuery *q = lang ? hl_query(lang) : NULL;
	struct syn_tree *t = NULL;
	TSQueryCursor *c;
	TSQueryMatch m;
	uint32_t ci, len;
	size_t covered = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (!q)
		return err_set(e, "highlight: no highlights query for %s", lang ? lang->name : "?");
	if (syn_parse(lang, text, n, &t, e) < 0)
		return -1;
	c = ts_query_cursor_new();
	ts_query_cursor_exec(c, q, ts_tree_root_node(syn_tree_ts(t)));
	while (ts_query_cursor_next_capture(c, &m, &ci)) {
		TSNode node = m.captures[ci].node;
		size_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
		if (a < covered || b <= a || b > n)
			continue;
		if (*nout == cap)
			*out = xrealloc(*out, (cap = cap ? cap * 2 : 64) * sizeof **out);
		(*out)[*nout].start = a;
		(*out)[*nout].end = b;
		(*out)[(*nout)++].capture = ts_query_capture_name_for_id(q, m.captures[ci].index, &len);
		covered = b;
	}
	ts_query_cursor_delete(c);
	syn_release(t);
	return 0;
}

/*
 * synhl: syntax highlighting with tree-sitter — one API for every view
 * that colours code (the full screen's code blocks, diffs later).
 *
 * syn_highlight parses a text with its language's embedded highlights
 * query (compiled once per language and kept for the program's life) and
 * returns spans: byte ranges with the query's capture name ("keyword",
 * "string.special", "function.method", ...).  Spans are sorted, never
 * overlap, and where captures nest or repeat the first one wins (the
 * outer node, then the earlier pattern, as tree-sitter-highlight does).
 * Front ends map capture names to their roles (theme_capture_role).
 * Text outside every span is plain.
 */
#ifndef HEARTH_SYNHL_H
#define HEARTH_SYNHL_H

#include <stddef.h>

#include "err.h"
#include "syn.h"

struct syn_span {
	size_t start, end;   /* bytes of the text, start < end */
	const char *capture; /* owned by the cached query (program lifetime) */
};

/*
 * Spans of text[0..n) in lang into *out (xmalloc'd; free() it), their
 * count in *nout.  -1 + e, *out NULL, when lang has no usable highlights
 * query (or SYN_NO_HIGHLIGHTS), the text is over SYN_MAX_BYTES, or the
 * parse fails.
 */
int syn_highlight(const struct syn_lang *lang, const char *text, size_t n,
		  struct syn_span **out, size_t *nout, struct err *e);

#endif

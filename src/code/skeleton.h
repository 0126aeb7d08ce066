/*
 * code/skeleton: parse a file for its definitions only, leaving the interiors of
 * function bodies out of the parse.
 *
 * The outline tool and the repository map never look inside a function
 * body (code/bodies.h), yet a full tree-sitter parse spends most of its time
 * there: on the 5,000-line C file of make bench, 2/3 of the bytes and
 * 2/3 of the parse.
 * A lexical prescan per language family finds the bodies (brace languages
 * in code/braces.c, Python by indentation here) and the parse is given the
 * rest of the text as tree-sitter included ranges, so the lexer jumps from
 * a body's "{" straight to its "}" (in Python: from the body's first
 * statement to the line after the body).  Byte offsets and rows in the
 * tree stay those of the whole text.
 *
 * The prescan is a guess and is checked: after the parse every hole must
 * sit exactly inside a body node of the grammar (brace languages), or the
 * tree must have no error (Python).  Holes that do not fit are dropped and
 * the rest parsed once more (when they still leave out a quarter of the
 * text); otherwise the text is parsed whole.  Trouble in the prescan (a
 * brace that closes nothing, a string running to the end of the text, a
 * top-level body with a line starting with "}" inside it) ends it: the
 * holes found before stand, the rest is parsed as it is.  So the result
 * is always a correct tree; only the body interiors may be absent.
 *
 * Used only where code_bodies_any(lang, use) is true: the tree is good for
 * definitions queries that skip bodies, not for highlighting or the
 * syntax check.
 */
#ifndef HEARTH_CODE_SKELETON_H
#define HEARTH_CODE_SKELETON_H

#include <stddef.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/err.h"
#include "code/code.h"
#include "code/bodies.h"

/* Byte ranges left out of a parse: [at[2k], at[2k + 1]), ascending, disjoint. */
struct code_skeleton_holes {
	uint32_t *at;
	size_t n;   /* holes (at holds 2n values) */
	size_t cap; /* holes allocated */
};

/* Append the hole [from, to) (empty ones are dropped). */
void code_skeleton_hole(struct code_skeleton_holes *h, uint32_t from, uint32_t to);
/* Free the array and empty h. */
void code_skeleton_holes_release(struct code_skeleton_holes *h);

/*
 * The holes the prescan of lang (its name) finds in text: 0 with h filled
 * (maybe with none), -1 when the prescan gave up (h is then empty).
 */
int code_skeleton_find(const char *lang, const char *text, size_t n, struct code_skeleton_holes *h);

/*
 * Parse text as lang for definitions (see the top): as code_parse, except
 * that where code_bodies_any(lang->name, use) holds the bodies may be left
 * out.  *skipped (may be NULL) receives the bytes left out (0 when the
 * text was parsed whole).
 */
int code_skeleton_parse(const struct code_lang *lang, enum code_bodies_use use, const char *text, size_t n,
		  struct code_tree **out, size_t *skipped, struct err *e);

/*
 * Compile the tags query src for lang with only its definition patterns
 * (those with an @definition.* capture) enabled: definitions-only callers
 * match nothing else, and each disabled pattern is work saved on every
 * node.  NULL when src does not compile; the caller frees the query.
 */
TSQuery *code_skeleton_defs_query(const struct code_lang *lang, const char *src);

#endif

/*
 * code/code: the tree-sitter language registry and a thin parsing wrapper.
 *
 * Every grammar hearth knows is compiled in (mk/grammars.mk builds them from
 * pinned npm packages) together with its highlights and tags queries, so
 * nothing is read from disk at run time.  The registry is a static table:
 * a `const struct code_lang *` is valid for the whole program and is never
 * freed.  Callers that need tree-sitter itself (highlighting, outlines)
 * include <tree_sitter/api.h> and use `language()` and code_tree_ts(); other
 * modules see only the opaque types below.
 *
 * Parsing is synchronous and bounded: input over CODE_MAX_BYTES is refused
 * with an error saying so (the caller shows it as a note and skips the
 * check), and a parse that runs over CODE_PARSE_TIMEOUT_MS is abandoned.
 */
#ifndef HEARTH_CODE_CODE_H
#define HEARTH_CODE_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct TSLanguage; /* tree-sitter's, opaque here */
struct TSTree;     /* tree-sitter's, opaque here */

#define CODE_MAX_BYTES ((size_t)5 * 1024 * 1024)
#define CODE_PARSE_TIMEOUT_MS 2000

/* Flags of a language. */
enum {
	/* The embedded highlights query does not compile with the system
	 * libtree-sitter (0.20.7); highlighting is skipped for the language. */
	CODE_NO_HIGHLIGHTS = 1 << 0,
};

struct code_lang {
	const char *name;                          /* "c", "cpp", "tsx", ... */
	const struct TSLanguage *(*language)(void); /* the grammar */
	const char *highlights; /* query text, NUL-terminated, never NULL ("" = none) */
	const char *tags;       /* query text, NUL-terminated, never NULL ("" = none) */
	unsigned flags;         /* CODE_* */
};

/* One syntax problem: an ERROR node (unparsable text) or a MISSING node
 * (a token the parser had to invent, e.g. a missing ";" or ")"). */
struct code_error {
	size_t line;      /* 0-based row of the node's start */
	size_t col;       /* 0-based byte column of the node's start */
	int missing;      /* 1 for MISSING, 0 for ERROR */
	const char *what; /* MISSING: the node type expected (static); ERROR: "ERROR" */
};

struct code_tree; /* a parsed text; owned by the caller, freed with code_release */

/* All languages, in a stable order; *n receives the count. */
const struct code_lang *code_langs(size_t *n);
/* The language called `name` ("c", "python", ...) or NULL. */
const struct code_lang *code_lang_by_name(const char *name);
/*
 * The language of a file by its name: extension (case-insensitive) or a few
 * well-known file names.  NULL when hearth has no grammar for it (Makefile,
 * README, ...); the path need not exist.
 */
const struct code_lang *code_lang_for_path(const char *path);

/*
 * As code_lang_for_path, and a ".h" header whose text has C++-only
 * constructs (namespace, template, std::, access labels, ...; code/cpp.h)
 * is C++, as the headers of C++ projects are.
 */
const struct code_lang *code_lang_for_file(const char *path, const char *text, size_t n);
/*
 * Parse n bytes of text (need not be NUL-terminated; UTF-8).  On success
 * *out owns a new tree (free it with code_release) and 0 is returned.  -1 + e
 * when the text is over CODE_MAX_BYTES, the parse timed out, or the grammar
 * could not be loaded; *out is then NULL.
 */
int code_parse(const struct code_lang *lang, const char *text, size_t n, struct code_tree **out,
	struct err *e);
/*
 * As code_parse, leaving out the holes: nholes byte ranges [holes[2k],
 * holes[2k + 1]), ascending and disjoint.  The tree keeps the whole text's
 * offsets and rows; what was in a hole is simply not in it.  For
 * definitions-only parses (code/skeleton.h); -1 + e also when the holes are out
 * of order.
 */
int code_parse_holes(const struct code_lang *lang, const char *text, size_t n,
	const uint32_t *holes, size_t nholes, struct code_tree **out, struct err *e);
/*
 * Count ERROR and MISSING nodes in t, storing the first `max` of them (in
 * document order) in out (which may be NULL when max is 0).  0 means the
 * text parsed cleanly.
 */
size_t code_errors(const struct code_tree *t, struct code_error *out, size_t max);
/* The language t was parsed with. */
const struct code_lang *code_tree_lang(const struct code_tree *t);
/* The underlying tree-sitter tree, owned by t (for highlighting, outlines). */
const struct TSTree *code_tree_ts(const struct code_tree *t);
/* Free a tree; NULL is fine. */
void code_release(struct code_tree *t);

/*
 * Highlighting (the TUI's code blocks and diffs).  code_highlight parses the
 * text and runs the language's embedded highlights query, evaluating the
 * text predicates (#eq? #match? #any-of? and their not- forms; others
 * pass).  The result is a list of spans, sorted and non-overlapping, each
 * with a kind and the capture name that produced it; bytes outside every
 * span are plain.  Captures are applied in the order the query cursor
 * gives them (by start, then pattern), each painting over the ones before:
 * an inner node wins over its parent, and for the same node the last
 * pattern wins, as the grammars' own queries expect (they list the generic
 * `(identifier) @variable` first).
 *
 * Bounds: only the first CODE_HL_MAX_BYTES (cut back to a line end) are
 * highlighted, and the parse plus the query run stop after
 * CODE_HL_TIMEOUT_MS; in both cases `cut` is set and `done` says how many
 * bytes the spans cover (the rest is plain).  Any bytes are safe input
 * (invalid UTF-8, NULs, binary): tree-sitter never fails on text.
 */
#define CODE_HL_MAX_BYTES ((size_t)256 * 1024)
#define CODE_HL_TIMEOUT_MS 150

enum code_kind {
	CODE_PLAIN = 0, CODE_KEYWORD, CODE_STRING, CODE_COMMENT, CODE_NUMBER, CODE_FUNCTION,
	CODE_TYPE, CODE_VARIABLE, CODE_CONSTANT, CODE_OPERATOR, CODE_PUNCTUATION, CODE_KIND_COUNT
};

struct code_span {
	size_t start, end;   /* byte range [start, end) of the text */
	enum code_kind kind;  /* never CODE_PLAIN */
	const char *capture; /* "function.method": static, valid for the program's life */
};

struct code_hl {
	struct code_span *spans; /* owned; free with code_hl_release */
	size_t n;
	size_t done; /* bytes the spans cover (== the text's length unless cut) */
	int cut;     /* the text was cut (size) or the time ran out */
};

/*
 * The language of a Markdown fence's info string ("c", "py", "shell",
 * "{.python}", "rust ignore", "src/x.go"): a language name, a common alias,
 * an extension or a file name.  NULL when unknown or empty.
 */
const struct code_lang *code_lang_for_fence(const char *info);
/*
 * Highlight n bytes of text as lang.  0 on success with *out filled (maybe
 * with no spans); -1 + e when lang is NULL or has no usable highlights
 * query (*out is then empty: plain text).  out is always safe to release.
 */
int code_highlight(const struct code_lang *lang, const char *text, size_t n, struct code_hl *out,
	struct err *e);
/* Free out's spans and empty it (safe on an empty or zeroed struct). */
void code_hl_release(struct code_hl *h);
/*
 * The time bound of code_highlight in ms (<= 0: CODE_HL_TIMEOUT_MS again).
 * For tests that compare colourings: on a loaded machine the bound can cut
 * one colouring and not another.  Not thread-safe; set before highlighting.
 */
void code_highlight_set_timeout(int ms);
/* Kind of a capture name by its first component ("function.method" → CODE_FUNCTION). */
enum code_kind code_kind_of_capture(const char *capture);
/* Name of a kind ("keyword"); "plain" for CODE_PLAIN and out-of-range values. */
const char *code_kind_name(enum code_kind k);

#endif

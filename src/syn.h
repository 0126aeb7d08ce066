/*
 * syn: the tree-sitter language registry and a thin parsing wrapper.
 *
 * Every grammar hearth knows is compiled in (mk/grammars.mk builds them from
 * pinned npm packages) together with its highlights and tags queries, so
 * nothing is read from disk at run time.  The registry is a static table:
 * a `const struct syn_lang *` is valid for the whole program and is never
 * freed.  Callers that need tree-sitter itself (highlighting, outlines)
 * include <tree_sitter/api.h> and use `language()` and syn_tree_ts(); other
 * modules see only the opaque types below.
 *
 * Parsing is synchronous and bounded: input over SYN_MAX_BYTES is refused
 * with an error saying so (the caller shows it as a note and skips the
 * check), and a parse that runs over SYN_PARSE_TIMEOUT_MS is abandoned.
 */
#ifndef HEARTH_SYN_H
#define HEARTH_SYN_H

#include <stddef.h>

#include "err.h"

struct TSLanguage; /* tree-sitter's, opaque here */
struct TSTree;     /* tree-sitter's, opaque here */

#define SYN_MAX_BYTES ((size_t)5 * 1024 * 1024)
#define SYN_PARSE_TIMEOUT_MS 2000

/* Flags of a language. */
enum {
	/* The embedded highlights query does not compile with the system
	 * libtree-sitter (0.20.7); highlighting is skipped for the language. */
	SYN_NO_HIGHLIGHTS = 1 << 0,
};

struct syn_lang {
	const char *name;                          /* "c", "cpp", "tsx", ... */
	const struct TSLanguage *(*language)(void); /* the grammar */
	const char *highlights; /* query text, NUL-terminated, never NULL ("" = none) */
	const char *tags;       /* query text, NUL-terminated, never NULL ("" = none) */
	unsigned flags;         /* SYN_* */
};

/* One syntax problem: an ERROR node (unparsable text) or a MISSING node
 * (a token the parser had to invent, e.g. a missing ";" or ")"). */
struct syn_error {
	size_t line;      /* 0-based row of the node's start */
	size_t col;       /* 0-based byte column of the node's start */
	int missing;      /* 1 for MISSING, 0 for ERROR */
	const char *what; /* MISSING: the node type expected (static); ERROR: "ERROR" */
};

struct syn_tree; /* a parsed text; owned by the caller, freed with syn_release */

/* All languages, in a stable order; *n receives the count. */
const struct syn_lang *syn_langs(size_t *n);
/* The language called `name` ("c", "python", ...) or NULL. */
const struct syn_lang *syn_lang_by_name(const char *name);
/*
 * The language of a file by its name: extension (case-insensitive) or a few
 * well-known file names.  NULL when hearth has no grammar for it (Makefile,
 * README, ...); the path need not exist.
 */
const struct syn_lang *syn_lang_for_path(const char *path);

/*
 * Parse n bytes of text (need not be NUL-terminated; UTF-8).  On success
 * *out owns a new tree (free it with syn_release) and 0 is returned.  -1 + e
 * when the text is over SYN_MAX_BYTES, the parse timed out, or the grammar
 * could not be loaded; *out is then NULL.
 */
int syn_parse(const struct syn_lang *lang, const char *text, size_t n, struct syn_tree **out,
	struct err *e);
/*
 * Count ERROR and MISSING nodes in t, storing the first `max` of them (in
 * document order) in out (which may be NULL when max is 0).  0 means the
 * text parsed cleanly.
 */
size_t syn_errors(const struct syn_tree *t, struct syn_error *out, size_t max);
/* The language t was parsed with. */
const struct syn_lang *syn_tree_lang(const struct syn_tree *t);
/* The underlying tree-sitter tree, owned by t (for highlighting, outlines). */
const struct TSTree *syn_tree_ts(const struct syn_tree *t);
/* Free a tree; NULL is fine. */
void syn_release(struct syn_tree *t);

#endif

/*
 * code/predicate: the text predicates of tree-sitter queries, which the library
 * leaves to its caller (#eq? #not-eq? #match? #not-match? #any-of?
 * #not-any-of?; any other predicate, such as #set! or #is-not?, passes).
 *
 * #match? patterns are written in Rust regex syntax; they are translated
 * to POSIX extended expressions (\d \w \s and their negations, inside and
 * outside brackets) and compiled once into a small process-wide cache.  A
 * pattern that does not compile makes its predicate fail (the match is
 * dropped: the text stays plain rather than being coloured wrongly).
 *
 * Nothing here allocates per call except the cache, which lives until
 * the process ends (never freed: still reachable).
 */
#ifndef HEARTH_CODE_PREDICATE_H
#define HEARTH_CODE_PREDICATE_H

#include <stddef.h>

#include <tree_sitter/api.h>

/*
 * Whether match m of query q satisfies its pattern's text predicates, the
 * captured nodes' text being taken from text[0..n).
 */
int code_predicate_ok(const TSQuery *q, const TSQueryMatch *m, const char *text, size_t n);

#endif

/*
 * code/braces: the function bodies of a brace language, found by a lexical
 * prescan (for code_skeleton; see code/skeleton.h for why and how they are checked).
 *
 * Families: C, C++, Java, Go, Rust, and JavaScript/TypeScript/TSX.  The
 * scan skips comments, strings (raw, text-block and template forms too),
 * character literals, regular expressions (JavaScript, by the token before
 * the slash) and C preprocessor lines, and keeps a stack of brace levels:
 * a "{" opens a function body (its interior becomes a hole and is skipped
 * to the matching "}"), a container whose members may be functions
 * (namespace, class, impl, ...), or anything else, inside which nothing
 * is a hole.  Which "{" is a body is decided from the tokens since the
 * last ";", "{" or "}" (the head):
 *  - C, C++, Java: the head ends with ")" and qualifiers (const, override,
 *    noexcept, throws ..., -> type) and has no "=" outside parentheses;
 *  - Go: the head's first word is "func" (and the brace is not a struct or
 *    interface type);
 *  - Rust: the head has the word "fn";
 *  - JavaScript/TypeScript: the head has "function" or ends with "=>", or
 *    it ends with ")" (and a type) inside a class body.
 * Trouble (a brace that closes nothing, a construct running to the end,
 * a top-level body with a line starting with "}" inside it) ends the scan
 * rather than letting it guess: the holes found before stand.
 */
#ifndef HEARTH_CODE_BRACES_H
#define HEARTH_CODE_BRACES_H

#include <stddef.h>

#include "code/skeleton.h"

/* Whether lang (a name) is a brace language code_braces knows. */
int code_braces_knows(const char *lang);
/* The body interiors of text as lang into h: 0, or -1 when lang is not a brace language. */
int code_braces_holes(const char *lang, const char *text, size_t n, struct code_skeleton_holes *h);

#endif

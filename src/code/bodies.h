/*
 * code/bodies: which function bodies a definitions query may skip.
 *
 * The outline tool and the repository map both run their tags query per
 * top-level node and, over a function definition, only up to its body:
 * the bodies are most of the tree and hold few definitions worth listing.
 * One table (language, definition node, body node) serves both; entries
 * marked for the map only (Python, JavaScript, TypeScript) are not
 * skipped by the outline, which lists nested functions there.
 *
 * Where code_bodies_any holds for a use, the parse itself leaves the bodies
 * out too (code/skeleton.h), at any depth (methods, callbacks): then the bodies
 * are empty and the per-top-level-node query costs nothing extra.
 */
#ifndef HEARTH_CODE_BODIES_H
#define HEARTH_CODE_BODIES_H

#include <stdint.h>

#include <tree_sitter/api.h>

enum code_bodies_use { CODE_BODIES_OUTLINE, CODE_BODIES_MAP };

/* Whether lang has any body to skip for use. */
int code_bodies_any(const char *lang, enum code_bodies_use use);
/*
 * Whether top (a top-level node of lang) is a function whose body is
 * skipped for use; then [*from, *to) is the body's byte range.  For
 * CODE_BODIES_MAP a wrapper (export statement, decorated definition) is looked
 * through to the definition it holds.
 */
int code_bodies_find(const char *lang, TSNode top, enum code_bodies_use use, uint32_t *from, uint32_t *to);

#endif

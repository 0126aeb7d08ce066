/*
 * synbody: which function bodies a definitions query may skip.
 *
 * The outline tool and the repository map both run their tags query per
 * top-level node and, over a function definition, only up to its body:
 * the bodies are most of the tree and hold few definitions worth listing.
 * One table (language, definition node, body node) serves both; entries
 * marked for the map only (Python, JavaScript, TypeScript) are not
 * skipped by the outline, which lists nested functions there.
 *
 * Where synbody_any holds for a use, the parse itself leaves the bodies
 * out too (synskel.h), at any depth (methods, callbacks): then the bodies
 * are empty and the per-top-level-node query costs nothing extra.
 */
#ifndef HEARTH_SYNBODY_H
#define HEARTH_SYNBODY_H

#include <stdint.h>

#include <tree_sitter/api.h>

enum synbody_use { SYNBODY_OUTLINE, SYNBODY_MAP };

/* Whether lang has any body to skip for use. */
int synbody_any(const char *lang, enum synbody_use use);
/*
 * Whether top (a top-level node of lang) is a function whose body is
 * skipped for use; then [*from, *to) is the body's byte range.  For
 * SYNBODY_MAP a wrapper (export statement, decorated definition) is looked
 * through to the definition it holds.
 */
int synbody_find(const char *lang, TSNode top, enum synbody_use use, uint32_t *from, uint32_t *to);

#endif

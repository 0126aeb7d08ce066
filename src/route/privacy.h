/*
 * route/redact: what Claude may see of a conversation (routing.privacy,
 * docs/routing.md).
 *
 * route_redact_conv copies a conv and replaces, in the copy, every piece of a
 * privacy-listed file's contents by a one-line notice (route_redact):
 *   - the results of read, outline, write and edit calls on such a path;
 *   - the content / old_text / new_text arguments of write and edit
 *     calls on such a path (the call stays valid JSON);
 *   - grep result lines of such files (dropped, one notice at the end);
 *   - the output of a bash command that names such a file (any word of
 *     the command that the privacy globs match);
 *   - the contents of such a file attached to a user message with @path
 *     ("<file path=\"REL\">\n...\n</file>", front_attach), when the turn
 *     started locally and Claude takes over.
 * A result is tied to its call by the call id.  The copy is a pure
 * function of the conv and the policy, so requests stay byte-stable
 * (prompt cache).
 *
 * Ownership: out must be an initialised empty conv; the caller releases
 * it.  The policy and in are borrowed.
 */
#ifndef HEARTH_ROUTE_REDACT_H
#define HEARTH_ROUTE_REDACT_H

#include <stddef.h>

#include "llm/conv.h"
#include "route/route.h"

/* Copy in into out with private contents replaced; returns how many blocks were changed. */
size_t route_redact_conv(const struct route_policy *p, const struct conv *in, struct conv *out);

/* Whether a shell command names a privacy-listed file (one of its words matches). */
int route_redact_command_private(const struct route_policy *p, const char *cmd);

#endif

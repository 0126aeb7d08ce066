/*
 * route/privacy: what Claude may see (routing.privacy, docs/routing.md) —
 * the privacy globs of the policy, and the filter over a conversation.
 *
 * route_privacy_conv copies a conv and replaces, in the copy, every piece of a
 * privacy-listed file's contents by a one-line notice (route_privacy_redact):
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
#ifndef HEARTH_ROUTE_PRIVACY_H
#define HEARTH_ROUTE_PRIVACY_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "route/route.h"

/*
 * Whether path (relative to the workspace, '/'-separated) is covered by
 * the privacy globs.  Patterns without '/' match the basename; patterns
 * with '/' match the path or any tail of it starting after a '/', so
 * the default secrets glob also covers "a/b/secrets/x".
 */
int route_privacy_match(const struct route_policy *p, const char *path);

/*
 * What Claude sees of a file: when path is private, a one-line notice
 * replaces content (returns 1); otherwise content is appended as is
 * (returns 0).  Appends to out.
 */
int route_privacy_redact(const struct route_policy *p, const char *path, const char *content,
			 size_t len, struct buf *out);

/* Copy in into out with private contents replaced; returns how many blocks were changed. */
size_t route_privacy_conv(const struct route_policy *p, const struct conv *in, struct conv *out);

/* Whether a shell command names a privacy-listed file (one of its words matches). */
int route_privacy_command(const struct route_policy *p, const char *cmd);

#endif

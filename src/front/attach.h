/*
 * front/attach: `@path` file references in a user's message — completion of the
 * path while typing, and attaching the files' contents when it is sent.
 * Shared by the full screen (ui/app/complete for Tab), the line session and
 * print mode (`hearth -p "explain @src/x.c"`).
 *
 * A reference is '@' at the start of the message or after a blank or '(',
 * followed by a path up to the next blank; trailing punctuation
 * (.,;:!?)'") is not part of it unless the path with it exists.  Paths
 * are relative to the workspace root (or "~/", or absolute) and go
 * through workspace_resolve, so a path outside the workspace is refused unless
 * allow_outside (the allow_outside_workspace setting) is set.
 *
 * What is attached: a regular, non-binary file of at most FRONT_ATTACH_FILE_MAX
 * bytes, while the attachments stay under FRONT_ATTACH_TOTAL_MAX in all; each
 * file once however often it is named.  Everything else gets a notice
 * line saying why it was not attached and what to do; a word that names
 * no file and has no '/' or '.' in it ("@claude", "@alice") is left as
 * text without a notice.
 */
#ifndef HEARTH_FRONT_ATTACH_H
#define HEARTH_FRONT_ATTACH_H

#include <stddef.h>

#include "base/buf.h"
#include "route/route.h"

#define FRONT_ATTACH_FILE_MAX ((size_t)256 * 1024)
#define FRONT_ATTACH_TOTAL_MAX ((size_t)1024 * 1024)
#define FRONT_ATTACH_COMPLETE_MAX 500

/*
 * The message to send for msg: msg itself, then for each attached file a
 * block "<file path=\"REL\">\nCONTENT\n</file>" after a blank line.  When
 * redact is given (the turn goes to Claude), private files (the routing
 * privacy globs) are replaced by route_privacy_redact's notice.  notices gets one
 * line per file attached ("attached src/x.c (1.2 KB)") or refused.
 * Returns the number of files attached.
 */
int front_attach_expand(const char *root, int allow_outside, const char *msg,
    const struct route_policy *redact, struct buf *out, struct buf *notices);

/*
 * Completion of "@prefix": the workspace paths that start with prefix
 * (prefix up to its last '/' names a directory; the rest matches entry
 * names), one per line, sorted, directories ending in '/'.  Skipped: .git
 * and heavy generated directories (node_modules, __pycache__, .venv, ...),
 * hidden entries unless the typed name starts with '.', and anything
 * outside the workspace.  At most FRONT_ATTACH_COMPLETE_MAX lines; returns the
 * count.
 */
size_t front_attach_complete(const char *root, const char *prefix, struct buf *out);

#endif

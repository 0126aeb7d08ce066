/*
 * session/export: a session as a document for people (hearth --export, /export).
 *
 * Markdown: a title, the meta (directory, model, created) when known, then
 * one "## User" / "## Assistant" / "## Tool results" section per message
 * (a user-role message of tool results only is the tools'); reasoning, tool
 * calls and tool results are fenced with a fence longer than any backtick
 * run inside, images are named, not embedded.
 *
 * HTML: one self-contained page to share (inline CSS with a dark variant, no
 * script, no external resource; a Content-Security-Policy forbids both).
 * The assistant's text is rendered as Markdown by md4c (GitHub dialect, raw
 * HTML shown as text, links only to http/https/mailto or relative, images
 * only data:image/); the user's text is shown as typed; reasoning, tool
 * calls and tool results fold (<details>, the call's arguments and the
 * result's line count in the summary); unified diffs, in results or in
 * ```diff blocks, are coloured line by line.  Every text passes
 * sanitize_term first (ESC and other controls visible as ^[, invalid UTF-8
 * replaced by U+FFFD) and is escaped.
 */
#ifndef HEARTH_SESSION_EXPORT_H
#define HEARTH_SESSION_EXPORT_H

#include "base/buf.h"
#include "base/err.h"
#include "session/session.h"

/* Append the Markdown of a loaded session to out. */
void session_export_md(const struct session_loaded *l, const char *title, struct buf *out);
/*
 * Load src_path (warnings as for session_load; may be NULL) and write its
 * export to out_path atomically, titled "hearth session ID": HTML when
 * out_path ends in ".html" or ".htm", Markdown otherwise.  0 / -1 + e.
 */
int session_export_file(const char *src_path, const char *out_path, struct buf *warnings,
		    struct err *e);

#endif

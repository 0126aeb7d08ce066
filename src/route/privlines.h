/*
 * route/privlines: privacy by content (issue 13 item 6).  The lines of
 * the privacy-listed files (routing.privacy) as a set of hashes, and the
 * filter that redacts every line of a tool result containing one of them
 * before a request goes to Claude -- whatever call produced it (bash
 * `cat .e*`, `grep -r secret .`), not only calls that name the file
 * (route/privacy.h does those).
 *
 * Which lines: each line of a privacy-listed file, trimmed of blanks at
 * both ends, with at least ROUTE_PRIVLINES_MIN non-blank bytes (shorter
 * lines -- "}", "[db]", "" -- are in every file and say nothing).  The set
 * holds 64-bit FNV-1a hashes, sorted, looked up by binary search.
 *
 * Which result lines are redacted: a line that, trimmed, is a private
 * line, or whose tail after one of its first 16 ':' or TAB characters is
 * (grep's "path:" and "path:N:" prefixes, cat -n's "N\t").  Such a line
 * becomes ROUTE_PRIVLINES_NOTE.  Not caught: part of a line (grep -o, cut),
 * a line with other text after it or before it without a separator,
 * anything encoded (base64, hex dumps).
 *
 * Building reads files: route_privlines_build walks the workspace (not
 * following symlinks, skipping .git; at most ROUTE_PRIVLINES_MAX_ENTRIES
 * entries, files up to 1 MiB) and is meant for the io/work thread
 * (route/escalate.c runs it there); it touches nothing shared.  Lookups
 * are pure and fast, for the loop thread at request build time.
 *
 * Ownership: a set is immutable once built; route_privlines_free frees it.
 */
#ifndef HEARTH_ROUTE_PRIVLINES_H
#define HEARTH_ROUTE_PRIVLINES_H

#include <stddef.h>

#include "base/buf.h"
#include "llm/conv.h"

#define ROUTE_PRIVLINES_MIN 8
#define ROUTE_PRIVLINES_MAX_ENTRIES 200000
#define ROUTE_PRIVLINES_NOTE "[hearth: a line of a privacy-listed file, not shown to Claude (routing.privacy)]"

struct route_privlines;

/*
 * Walk root and hash the lines of every file whose workspace-relative path
 * the globs cover (route_privacy_match's rules).  Never NULL; nfiles (may
 * be NULL) gets the number of files read.
 */
struct route_privlines *route_privlines_build(const char *root, const char *const *globs, size_t nglobs,
					      size_t *nfiles);
/* Free s; NULL is ignored. */
void route_privlines_free(struct route_privlines *s);
/* How many distinct lines the set holds. */
size_t route_privlines_count(const struct route_privlines *s);
/* Whether text[0..len), trimmed, is a private line. */
int route_privlines_has(const struct route_privlines *s, const char *text, size_t len);
/* Append text to out with its private lines redacted; returns how many lines were. */
size_t route_privlines_redact(const struct route_privlines *s, const char *text, struct buf *out);
/* Redact the tool results of c in place (s may be NULL: nothing); returns how many blocks changed. */
size_t route_privlines_conv(const struct route_privlines *s, struct conv *c);

#endif

/*
 * code/check: the syntax check run after an edit or write.  A change is judged
 * against the file before it: text that was already broken does not make
 * the check complain, only errors the change adds do.
 */
#ifndef HEARTH_CODE_CHECK_H
#define HEARTH_CODE_CHECK_H

#include <stddef.h>

#include "base/buf.h"

#define CODE_CHECK_LIST_MAX 5 /* errors named in a note */

/*
 * Parse old (NULL/0 for a new file) and new text of `path` (used for the
 * language and in the note) and compare their ERROR/MISSING node counts.
 * Returns 1 and appends one line to note when the new text has more:
 * 'syntax check: 2 new errors in src/a.c: line 14: missing ";"; line 20:
 * cannot parse "foo bar("'.  Returns 0 when there is nothing to say; also
 * 0, with a one-line note, when the check was skipped for a supported
 * language (over 5 MB, parse timeout).  Unknown languages: 0, no note.
 */
int code_check_check(const char *path, const char *old, size_t old_len, const char *new_text,
		 size_t new_len, struct buf *note);

#endif

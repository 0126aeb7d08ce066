/*
 * prompt/memory: what hearth remembers between sessions (issue 6).
 *
 * Four kinds, one Markdown file each, one entry a line ("- text"):
 *   user       who the user is, how they like to work   user's config dir
 *   feedback   corrections and guidance for the agent   user's config dir
 *   project    facts about this project                 <root>/.hearth/memory
 *   reference  where things are (files, URLs)           <root>/.hearth/memory
 * The user's dir is $XDG_CONFIG_HOME/hearth/memory (~/.config/... when
 * unset).  Files the user writes by hand in either dir are read too.
 *
 * prompt_memory_load puts every entry into the system prompt at session start;
 * the prompt is then frozen (prefix stability) until /reload, so an entry
 * written by prompt_memory_add shows up in the next session or after /reload.
 *
 * prompt_memory_add checks before it writes: the kind is one of the four, the
 * text is one non-empty line of at most PROMPT_MEMORY_MAX_TEXT bytes, a path
 * given must exist (URLs are taken as they are), the same entry (case
 * and spacing ignored) is not there yet, and the file stays under
 * PROMPT_MEMORY_MAX_FILE.  The file is replaced atomically (fs).
 */
#ifndef HEARTH_PROMPT_MEMORY_H
#define HEARTH_PROMPT_MEMORY_H

#include "base/buf.h"
#include "base/err.h"

#define PROMPT_MEMORY_MAX_TEXT 500
#define PROMPT_MEMORY_MAX_FILE (16 * 1024)

/*
 * Append the memory section of the system prompt (nothing when there is
 * no entry).  Unreadable files become lines in warnings.
 */
void prompt_memory_load(const char *root, struct buf *out, struct buf *warnings);
/*
 * Remember text (and a path, may be NULL) as kind.  0 with a one-line
 * confirmation in out; -1 with e saying what to change.
 */
int prompt_memory_add(const char *root, const char *kind, const char *text, const char *path,
	       struct buf *out, struct err *e);

#endif

/*
 * prompt/prompt: the system prompt.  Built once per session and never changed
 * afterwards (the first bytes of every request; a change forces the
 * server to re-prefill everything): no clock time, at most the date;
 * tools are described by their schemas, not here.
 */
#ifndef HEARTH_PROMPT_PROMPT_H
#define HEARTH_PROMPT_PROMPT_H

#include "base/buf.h"
#include "base/err.h"

struct tool;

/*
 * The session's prompt: prompt_build plus the context files (AGENTS.md /
 * CLAUDE.md from the config dir and the repository down to root).
 * Warnings about unreadable context files are appended to warnings.
 */
void prompt_session(struct buf *out, const char *root, const char *date,
		    const struct tool *const *tools, size_t ntools, struct buf *warnings);
/* Load a replacement prompt from a file (--system-prompt-file). */
int prompt_load_file(struct buf *out, const char *path, struct err *e);

#endif

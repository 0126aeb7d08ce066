/*
 * prompt/context: context files and prompt templates (issue 7).
 *
 * Context files.  In each directory of a list, AGENTS.md is read, or
 * CLAUDE.md when that directory has no AGENTS.md, then CLAUDE.local.md
 * (Claude Code's private notes).  The list is: the user config dir
 * ($XDG_CONFIG_HOME/hearth, else ~/.config/hearth), ~/.claude/CLAUDE.md
 * (Claude Code's user memory), then the repository root (the nearest ancestor of cwd holding a .git directory or
 * file; the workspace root when there is none or cwd is not below it) and
 * every directory below it down to cwd.  A file already included (same
 * real path) is not included twice.  The files are joined, each preceded
 * by a header line "# Context from PATH" and a blank line, in that order
 * (general first, most specific last).  Invalid UTF-8 becomes U+FFFD.
 * The total is capped at PROMPT_CONTEXT_MAX bytes: the text is cut on a UTF-8
 * boundary and a note says which file was cut and that the rest was left
 * out.  An unreadable file, or one that is not a regular file (a FIFO, a
 * directory), is a warning, never an error, and is never read.
 *
 * Prompt templates.  Every "NAME.md" in a command directory becomes the
 * command /NAME (NAME: letters, digits, '-', '_', '.'; others are skipped
 * with a warning).  The directories load in this order, a later one
 * replacing a template of the same name: the user's ~/.claude/commands,
 * $XDG_CONFIG_HOME/opencode/command, ~/.pi/agent/prompts, CONFIG/prompts;
 * then, in the repository root and each directory below it down to the
 * workspace root, .claude/commands, .opencode/command, .pi/prompts,
 * .hearth/prompts (subdirectories are not read).  The description (for /help) is
 * taken from the first line when it is "description: TEXT", or from a
 * "description:" key of a front-matter block ("---" line ... "---" line)
 * at the top; that line or block is not part of the body.
 *
 * Expansion: arguments are split on blanks, '...' and "..." group words
 * (quotes removed, no escapes).  $1..$N is the N-th argument, $@ all of
 * them joined by single spaces, $ARGUMENTS the argument string as typed
 * (trimmed: Claude Code's and opencode's), $$ a literal '$'; a missing argument is
 * empty; any other '$' is kept as is.
 */
#ifndef HEARTH_PROMPT_CONTEXT_H
#define HEARTH_PROMPT_CONTEXT_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

/* Cap on the joined context files, in bytes. */
#define PROMPT_CONTEXT_MAX (64 * 1024)

/* Append the user config dir (no trailing '/').  0 / -1 + e when neither XDG nor HOME is set. */
int prompt_context_config_dir(struct buf *out, struct err *e);

/* Append the repository root for cwd (see above); root is the workspace root. */
void prompt_context_repo_root(const char *root, const char *cwd, struct buf *out);

/*
 * Append the joined context files for workspace `root` and directory `cwd`
 * (absolute paths) to out.  Problems go to warnings (one line each; may be
 * NULL).  Returns the number of files included.
 */
size_t prompt_context_load(const char *root, const char *cwd, struct buf *out, struct buf *warnings);

struct prompt_context_template {
	char *name;        /* without the '/' */
	char *description; /* "" when none */
	char *body;
	char *path;        /* the file it came from */
};

struct prompt_context_templates {
	struct prompt_context_template *v; /* sorted by name, names unique */
	size_t n;
};

/* Load the user then the project templates of root (warnings may be NULL); out is reset. */
void prompt_context_templates_load(const char *root, struct prompt_context_templates *out,
			     struct buf *warnings);
void prompt_context_templates_release(struct prompt_context_templates *t);
/* The template called name (no '/'), or NULL. */
const struct prompt_context_template *prompt_context_template_find(const struct prompt_context_templates *t,
						       const char *name);
/* Append body with $1 $2 ... $@ $$ replaced from the argument string args (may be NULL). */
void prompt_context_expand(const char *body, const char *args, struct buf *out);

#endif

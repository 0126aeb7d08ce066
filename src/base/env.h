/*
 * base/env: the environment hearth's children get (issue 13 item 3,
 * docs/permissions.md "What children see").  One policy for every child,
 * so no caller can forget it: io/proc builds every child's environment
 * here, and ui/app/external (the editor) too.
 *
 * Two bases:
 *   ENV_CLEAN  (bash, hooks, MCP servers: what the model can steer)
 *              only the allowlist -- HOME LOGNAME USER PATH SHELL TERM LANG
 *              LANGUAGE LC_* TMPDIR TZ COLORTERM NO_COLOR -- plus the names
 *              the `env_passthrough` setting lists (names or fnmatch globs);
 *   ENV_USER   (programs the user runs themself or hearth's own managed
 *              llama-server) hearth's whole environment.
 * In both, a secret-named variable (env_name_is_secret: *_API_KEY, *TOKEN*,
 * *SECRET*, *PASSWORD*, ANTHROPIC_*, AWS_*, ...) is never passed on, even
 * when env_passthrough names it, by glob or by exact name.  What the
 * caller adds explicitly (`add`: "NAME=value", or "NAME" alone to unset)
 * is applied last and is not filtered: a hook's HEARTH_* variables, an
 * MCP server's own "env" from its config.
 *
 * State: the passthrough list is process-wide, set once at start
 * (env_set_passthrough) and read-only afterwards; env_build is safe to call
 * from any thread once it is set.
 */
#ifndef HEARTH_BASE_ENV_H
#define HEARTH_BASE_ENV_H

#include <stddef.h>

#include "base/buf.h"

enum env_base { ENV_CLEAN, ENV_USER };

/*
 * Whether a variable of this name holds a secret (the deny patterns,
 * compared ignoring ASCII case).  name may end at '=' ("NAME=value").
 */
int env_name_is_secret(const char *name);

/*
 * Replace the passthrough list (copied; n may be 0).  An entry that can
 * only name secrets (a secret-named exact name) gets a warning line in
 * warnings (may be NULL): it will never pass.
 */
void env_set_passthrough(const char *const *names, size_t n, struct buf *warnings);
/* Free the list (end of the program; leak checkers). */
void env_clear_passthrough(void);

/* Whether a variable of this name ("NAME" or "NAME=value") reaches a child of this base. */
int env_name_passes(const char *name, enum env_base base);

/*
 * The environment for a child: the entries of from (NULL: environ) that
 * pass for base, then add applied (NULL: nothing).  A NULL-terminated
 * malloc'd array whose strings are borrowed from from and add (free the
 * array only; from and add must outlive it).
 */
char **env_build(const char *const *from, const char *const *add, enum env_base base);

/*
 * Remove the secret-named variables from our own environment, their
 * values overwritten with NUL bytes first: the block the kernel shows as
 * /proc/PID/environ is the original one, so a child reading
 * /proc/$PPID/environ would otherwise still find them.  Call it once
 * everything that reads them (the Anthropic key, .mcp.json's ${VAR}) has
 * copied what it needs; getenv returns NULL for them afterwards.
 * Returns how many were removed.  Not thread-safe (setenv's rules).
 */
size_t env_scrub_secrets(void);

#endif

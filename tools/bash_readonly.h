/*
 * tools/bash_readonly: may a shell command run without asking because it
 * only reads inside the workspace?  The bash tool's answer to
 * tool_is_read_only, and so the whole of bash's safety when there is no
 * sandbox (docs/permissions.md, "Read-only bash commands").
 *
 * A strict allowlist, not a list of bad words.  A command line is read-only
 * when the shell parse below succeeds and every simple command in it is
 * allowed:
 *  - shell: only words, quotes, `;` `&&` `||` `|` and newlines.  Any `$`
 *    expansion (variables, $( ), $(( ))), backquotes, ( ), { } groups, a
 *    lone `&`, `|&`, here-documents and here-strings, `<>`, process
 *    substitution, brace expansion ({a,b} {1..3}), an unquoted `~` prefix
 *    and a leading NAME=value (environment assignment) make the line not
 *    read-only.  Output redirections only to /dev/null (`>/dev/null`,
 *    `2>/dev/null`, `>>/dev/null`) or between descriptors (`2>&1`); input
 *    redirections read a path, checked like an operand.
 *  - commands: the first word is a literal name from a table; each
 *    command lists its options (short ones, bundled or not, with attached
 *    or separate values; long ones exactly, never abbreviated) and what its
 *    operands are (paths read, strings, or none); an unlisted option, too
 *    many operands or a path that fails the check makes it not read-only.
 *    sed and awk programs are parsed (sed: p = l d q s/// y/// with
 *    addresses, no w/W/e/r/R, no s///e or s///w; awk: none of system,
 *    getline, ENVIRON, ARGV, `|`, `>`, `@`), find's expression is checked
 *    primary by primary (no -exec, -ok, -delete, -fprint*, -fls, -L);
 *    printf takes no option (printf -v assigns a variable, PATH too) and
 *    date only +FORMAT operands (any other sets the clock); diff no
 *    directory (it follows the symlinks in one) and no glob.
 *  - paths read (operands, option values, `<` targets, each match of a
 *    glob): resolved under the workspace root like the read tool does
 *    (base/workspace: symlinks followed), and refused when outside it;
 *    /dev/null and "-" are allowed; /proc and /sys never are.
 *  - git: only read subcommands with listed options, never the global
 *    options that change what git runs or where (-c, -C, --exec-path,
 *    --git-dir, --work-tree, --config-env, -p), and only when the
 *    repository cannot make git run a program (tools/bash_gitrepo.h: only
 *    inert config keys, no hooks that read commands trigger, no
 *    submodules).
 *  - the environment: a PATH with a relative entry (".", "") makes
 *    nothing read-only, since a file in the workspace could then stand in
 *    for "ls".
 *
 * env, printenv, set, export, declare and their kind print the
 * environment (secrets) and are not listed; nor are programs that run
 * programs (xargs, less, man, vim, perl, python, sh, timeout, nice, env).
 *
 * Relative paths are resolved against root (the directory the command runs
 * in: bash runs in the workspace root, which is hearth's working directory).
 */
#ifndef HEARTH_TOOLS_BASH_READONLY_H
#define HEARTH_TOOLS_BASH_READONLY_H

#include "base/buf.h"

/* 1 when command is read-only run in hearth's working directory; NULL is not. */
int tool_bash_readonly_is_read_only(const char *command);

/*
 * The same question for a command run in directory root (absolute).
 * Returns 1 when read-only; else 0 and, when why is non-NULL, one line
 * saying what made it not read-only (appended).
 */
int tool_bash_readonly_check(const char *command, const char *root, struct buf *why);

#endif

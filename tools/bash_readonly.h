/*
 * tools/bash_readonly: is a shell command known not to change files?  Used to skip
 * the checkpoint before a bash call that only looks (ls, grep, git
 * status…).  Conservative: anything not recognised, any output
 * redirection, command substitution or unknown git subcommand counts as
 * changing files.
 */
#ifndef HEARTH_TOOLS_BASH_READONLY_H
#define HEARTH_TOOLS_BASH_READONLY_H

/* 1 when every command of the pipeline/list is a known read-only one. */
int tool_bash_readonly_is_read_only(const char *command);

#endif

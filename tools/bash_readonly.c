/* tools/bash_readonly: read-only shell command recognition (see tools/bash_readonly.h). */
#include "tools/bash_readonly.h"

#include <string.h>

static const char *const tool_bash_readonly_cmds[] = {
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "find", "fd",
	"pwd", "echo", "printf", "which", "type", "file", "stat", "du", "df", "tree", "cut",
	"sort", "uniq", "tr", "diff", "cmp", "env", "date", "uname", "true", "false", "test",
	"nl", "less", "more", "basename", "dirname", "realpath", "readlink", "md5sum",
	"sha256sum", "xxd", "od", "hexdump", "strings", "whoami", "id", "hostname",
};

static const char *const tool_bash_readonly_git[] = {
	"status", "diff", "log", "show", "blame", "grep", "ls-files", "rev-parse", "describe",
	"shortlog", "ls-tree", "cat-file",
};

/* Whether word (n bytes) is in the list. */
static int
tool_bash_readonly_in(const char *word, size_t n, const char *const *list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (strlen(list[i]) == n && memcmp(list[i], word, n) == 0)
			return 1;
	return 0;
}

/* Skip blanks. */
static const char *
tool_bash_readonly_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

/* One simple command [p, end): its first word (and git's subcommand) must be known. */
static int
tool_bash_readonly_simple(const char *p, const char *end)
{
	const char *w;
	size_t n;

	p = tool_bash_readonly_blank(p);
	if (p >= end)
		return 1; /* empty (e.g. trailing ';') */
	w = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	n = (size_t)(p - w);
	if (n == 3 && memcmp(w, "git", 3) == 0) {
		p = tool_bash_readonly_blank(p);
		w = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		return tool_bash_readonly_in(w, (size_t)(p - w), tool_bash_readonly_git,
				  sizeof tool_bash_readonly_git / sizeof tool_bash_readonly_git[0]);
	}
	return tool_bash_readonly_in(w, n, tool_bash_readonly_cmds, sizeof tool_bash_readonly_cmds / sizeof tool_bash_readonly_cmds[0]);
}

/* Split on ; | & and newlines; refuse redirections and substitutions outright. */
int
tool_bash_readonly_is_read_only(const char *command)
{
	const char *p = command, *start = command;

	static const char *const writes[] = { "-delete", "-exec", "-ok", "-fprint", "--output", "sort -o" };
	size_t i;

	if (!command || strpbrk(command, ">`$(") != NULL)
		return 0;
	for (i = 0; i < sizeof writes / sizeof writes[0]; i++)
		if (strstr(command, writes[i]))
			return 0; /* find -delete / -exec, sort -o: read-only commands that write */
	for (;; p++) {
		if (*p == ';' || *p == '|' || *p == '&' || *p == '\n' || *p == '\0') {
			if (!tool_bash_readonly_simple(start, p))
				return 0;
			if (*p == '\0')
				return 1;
			start = p + 1;
		}
	}
}

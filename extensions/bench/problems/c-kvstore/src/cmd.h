/*
 * cmd: a command line split into words.  Words are separated by spaces; a
 * word may be double-quoted ("two words"), and inside quotes \" is a quote
 * and \\ a backslash.  An empty quoted word "" is a word.
 */
#ifndef CMD_H
#define CMD_H
#include <stddef.h>

#define CMD_MAX_WORDS 8

struct cmd {
	char *words[CMD_MAX_WORDS];
	size_t n;
};

/* 0, or -1 for an unterminated quote or too many words (nothing to free then). */
int cmd_split(const char *line, struct cmd *c);
void cmd_free(struct cmd *c);
#endif

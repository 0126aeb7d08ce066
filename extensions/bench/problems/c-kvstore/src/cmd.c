#include "cmd.h"

#include <stdlib.h>
#include <string.h>

void
cmd_free(struct cmd *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->words[i]);
	c->n = 0;
}

int
cmd_split(const char *s, struct cmd *c)
{
	size_t len = strlen(s);

	c->n = 0;
	while (*s) {
		char *w, *o;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (c->n == CMD_MAX_WORDS || !(w = malloc(len + 1))) {
			cmd_free(c);
			return -1;
		}
		o = w;
		if (*s == '"') {
			s++;
			while (*s && *s != '"') {
				*o++ = *s++;
			}
			if (*s != '"') {
				free(w);
				cmd_free(c);
				return -1;
			}
			s++;
		} else {
			while (*s && *s != ' ')
				*o++ = *s++;
		}
		*o = 0;
		c->words[c->n++] = w;
	}
	return 0;
}

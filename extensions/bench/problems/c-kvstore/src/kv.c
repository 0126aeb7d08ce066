#include "kv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"

static char *
reply(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (!p)
		abort();
	return memcpy(p, s, n);
}

/* Parse a whole number; 0 or -1. */
static int
parse_int(const char *s, long long *out)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end || s[0] == '+' || s[0] == ' ' ? -1 : 0;
}

char *
kv_exec(struct map *m, const char *line)
{
	struct cmd c;
	char buf[64], *r;
	const char *v;

	if (cmd_split(line, &c) < 0)
		return reply("ERR syntax");
	if (c.n == 0)
		r = reply("ERR unknown command");
	else if (!strcasecmp(c.words[0], "SET"))
		r = c.n != 3 ? reply("ERR wrong arguments") : (map_set(m, c.words[1], c.words[2]), reply("OK"));
	else if (!strcasecmp(c.words[0], "GET"))
		r = c.n != 2 ? reply("ERR wrong arguments") : reply((v = map_get(m, c.words[1])) ? v : "(nil)");
	else if (!strcasecmp(c.words[0], "DEL"))
		r = c.n != 2 ? reply("ERR wrong arguments") : reply(map_del(m, c.words[1]) ? "1" : "0");
	else if (!strcasecmp(c.words[0], "COUNT")) {
		snprintf(buf, sizeof buf, "%zu", m->len);
		r = c.n != 1 ? reply("ERR wrong arguments") : reply(buf);
	} else if (!strcasecmp(c.words[0], "INCR")) {
		long long x = 0;

		if (c.n != 2)
			r = reply("ERR wrong arguments");
		else {
			if ((v = map_get(m, c.words[1])))
				x = atoll(v);
			snprintf(buf, sizeof buf, "%lld", x + 1);
			map_set(m, c.words[1], buf);
			r = reply(buf);
		}
	} else
		r = reply("ERR unknown command");
	cmd_free(&c);
	return r;
}

/* front/cmd: slash-command registry (see front/cmd.h).  A sorted array; a handful of entries. */
#include "front/cmd.h"

#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

/* Empty registry. */
void
front_cmd_init(struct front_cmd *r)
{
	memset(r, 0, sizeof *r);
}

static const struct cmd *front_cmd_find(const struct front_cmd *r, const char *name, size_t len);

/* Free the array (the strings are borrowed). */
void
front_cmd_release(struct front_cmd *r)
{
	free(r->v);
	front_cmd_init(r);
}

/* Insert keeping the array sorted by name. */
int
front_cmd_add(struct front_cmd *r, const struct cmd *c)
{
	size_t i;

	if (front_cmd_find(r, c->name, strlen(c->name)))
		return -1;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 16;
		r->v = xrealloc(r->v, r->alloc * sizeof *r->v);
	}
	for (i = r->n; i > 0 && strcmp(r->v[i - 1].name, c->name) > 0; i--)
		r->v[i] = r->v[i - 1];
	r->v[i] = *c;
	r->n++;
	return 0;
}

/* Exact lookup by a (name, len) view. */
static const struct cmd *
front_cmd_find(const struct front_cmd *r, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strlen(r->v[i].name) == len && memcmp(r->v[i].name, name, len) == 0)
			return &r->v[i];
	return NULL;
}

/* "/name rest" → name view and args pointer. */
int
front_cmd_parse(const char *line, struct str *name, const char **args)
{
	const char *p;

	if (!line || line[0] != '/' || line[1] == '/' || line[1] == '\0' || line[1] == ' ')
		return 0;
	p = line + 1;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*name = str_make(line + 1, (size_t)(p - line - 1));
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	*args = p;
	return 1;
}

/* Command i: the registry's own, then the provider's. */
int
front_cmd_get(const struct front_cmd *r, size_t i, struct cmd *c, struct buf *scratch)
{
	if (i < r->n) {
		*c = r->v[i];
		return 0;
	}
	if (!r->more)
		return -1;
	buf_reset(scratch);
	return r->more(r->more_arg, i - r->n, c, scratch) < 0 ? -1 : 0;
}

/* Names sharing the longest prefix with `name`, for "did you mean" (the provider's too). */
static void
front_cmd_suggest(const struct front_cmd *r, struct str name, struct buf *out)
{
	struct buf scratch = BUF_INIT;
	struct cmd c;
	size_t i, best = 0, k, shown = 0;

	for (i = 0; front_cmd_get(r, i, &c, &scratch) == 0; i++) {
		for (k = 0; k < name.len && c.name[k] == name.p[k]; k++)
			;
		if (k > best)
			best = k;
	}
	for (i = 0; best && shown < 8 && front_cmd_get(r, i, &c, &scratch) == 0; i++)
		if (strncmp(c.name, name.p, best) == 0)
			buf_addf(out, "%s/%s", shown++ ? ", " : "; did you mean ", c.name);
	if (!shown)
		buf_adds(out, "; /help lists the commands");
	buf_release(&scratch);
}

/* Dispatch one line. */
enum cmd_result
front_cmd_run(const struct front_cmd *r, void *ctx, const char *line, struct buf *out)
{
	struct str name;
	const char *args;
	const struct cmd *c;
	struct cmd dyn;
	struct buf scratch = BUF_INIT;
	enum cmd_result rc;
	size_t i;

	if (!front_cmd_parse(line, &name, &args)) {
		buf_adds(out, "not a command (commands start with /)");
		return CMD_ERROR;
	}
	c = front_cmd_find(r, name.p, name.len);
	for (i = r->n; !c && front_cmd_get(r, i, &dyn, &scratch) == 0; i++)
		if (strlen(dyn.name) == name.len && !memcmp(dyn.name, name.p, name.len))
			c = &dyn;
	if (!c) {
		buf_addf(out, "unknown command /%.*s", (int)name.len, name.p);
		if (r->more_hint)
			r->more_hint(r->more_arg, name.p, name.len, out);
		front_cmd_suggest(r, name, out);
		buf_release(&scratch);
		return CMD_ERROR;
	}
	rc = c->run(ctx, c, args, out);
	buf_release(&scratch);
	return rc;
}

/* Completion candidates. */
void
front_cmd_complete(const struct front_cmd *r, const char *prefix, struct buf *out)
{
	struct buf scratch = BUF_INIT;
	struct cmd c;
	size_t i, n = strlen(prefix);

	for (i = 0; front_cmd_get(r, i, &c, &scratch) == 0; i++)
		if (strncmp(c.name, prefix, n) == 0)
			buf_addf(out, "%s\n", c.name);
	buf_release(&scratch);
}

/* The width of "name args". */
static size_t
front_cmd_width(const struct cmd *c)
{
	return strlen(c->name) + (c->args[0] ? strlen(c->args) + 1 : 0);
}

/* Help lines, aligned. */
void
front_cmd_help(const struct front_cmd *r, struct buf *out)
{
	struct buf scratch = BUF_INIT;
	struct cmd c;
	size_t i, w = 0, l;

	for (i = 0; front_cmd_get(r, i, &c, &scratch) == 0; i++)
		if ((l = front_cmd_width(&c)) > w && l <= 40) /* a longer one (an MCP prompt's) sticks out */
			w = l;
	for (i = 0; front_cmd_get(r, i, &c, &scratch) == 0; i++) {
		if ((l = front_cmd_width(&c)) > w)
			l = w;
		buf_addf(out, "/%s%s%s%*s  %s\n", c.name, c.args[0] ? " " : "", c.args, (int)(w - l), "", c.help);
	}
	buf_release(&scratch);
}

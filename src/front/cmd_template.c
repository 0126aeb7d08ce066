/* cmdtpl: prompt templates registered as slash commands (see cmdtpl.h). */
#include "cmdtpl.h"

/* Expand the template with the command's arguments and submit it. */
static enum cmd_result
cmdtpl_run(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	const struct ctxfiles_template *t = self->data;

	(void)ctx;
	ctxfiles_expand(t->body, args, out);
	return CMD_SUBMIT;
}

/* One command per template. */
void
cmdtpl_add(struct cmdreg *r, const struct ctxfiles_templates *t, struct buf *warnings)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct cmd c = { 0 };

		c.name = t->v[i].name;
		c.args = "[args]";
		c.help = t->v[i].description[0] ? t->v[i].description : "prompt template";
		c.run = cmdtpl_run;
		c.data = &t->v[i];
		if (cmdreg_add(r, &c) < 0)
			buf_addf(warnings, "prompt template %s: /%s is a built-in command; template ignored\n",
				 t->v[i].path, t->v[i].name);
	}
}

/* front/cmd_template: prompt templates registered as slash commands (see front/cmd_template.h). */
#include "front/cmd_template.h"

/* Expand the template with the command's arguments and submit it. */
static enum cmd_result
front_cmd_template_run(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	const struct prompt_context_template *t = self->data;

	(void)ctx;
	prompt_context_expand(t->body, args, out);
	return CMD_SUBMIT;
}

/* One command per template. */
void
front_cmd_template_add(struct front_cmd *r, const struct prompt_context_templates *t, struct buf *warnings)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct cmd c = { 0 };

		c.name = t->v[i].name;
		c.args = "[args]";
		c.help = t->v[i].description[0] ? t->v[i].description : "prompt template";
		c.run = front_cmd_template_run;
		c.data = &t->v[i];
		if (front_cmd_add(r, &c) < 0)
			buf_addf(warnings, "prompt template %s: /%s is a built-in command; template ignored\n",
				 t->v[i].path, t->v[i].name);
	}
}

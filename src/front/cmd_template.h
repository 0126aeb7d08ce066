/*
 * front/cmd_template: prompt templates as slash commands.  Each template
 * (prompt_context_templates_load: *.md in the config dir's prompts/ and
 * .hearth/prompts/) becomes `/name args`, which expands $1 $2 $@ and
 * submits the result as the user's message.  A template whose name a
 * built-in already has is skipped with a warning (built-ins win).
 */
#ifndef HEARTH_FRONT_CMD_TEMPLATE_H
#define HEARTH_FRONT_CMD_TEMPLATE_H

#include "base/buf.h"
#include "front/cmd.h"
#include "prompt/context.h"

/* Register every template of t into r (t must outlive r); warnings appended. */
void front_cmd_template_add(struct front_cmd *r, const struct prompt_context_templates *t, struct buf *warnings);

#endif

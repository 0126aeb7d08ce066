/*
 * cmdtpl: prompt templates as slash commands.  Each template
 * (ctxfiles_templates_load: *.md in the config dir's prompts/ and
 * .hearth/prompts/) becomes `/name args`, which expands $1 $2 $@ and
 * submits the result as the user's message.  A template whose name a
 * built-in already has is skipped with a warning (built-ins win).
 */
#ifndef HEARTH_CMDTPL_H
#define HEARTH_CMDTPL_H

#include "buf.h"
#include "cmd.h"
#include "ctxfiles.h"

/* Register every template of t into r (t must outlive r); warnings appended. */
void cmdtpl_add(struct cmdreg *r, const struct ctxfiles_templates *t, struct buf *warnings);

#endif

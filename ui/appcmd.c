/*
 * appcmd: the full screen's command registry (see appcmd.h).  Handlers get
 * the struct app as their context.
 */
#include "appcmd.h"

#include "transcript.h"

/* /slots: show or hide the server panel. */
static enum cmd_result
appcmd_slots(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;

	(void)self;
	(void)args;
	a->panel_on = !a->panel_on;
	buf_addf(out, "server panel %s", a->panel_on ? "on (when the width allows)" : "off");
	return CMD_DONE;
}

/* /clear and /new: the transcript view starts over too. */
static void
appcmd_on_clear(void *arg)
{
	struct app *a = arg;

	transcript_release(&a->tv);
	transcript_init(&a->tv);
}

/* The shared session commands, plus /slots. */
void
appcmd_init(struct app *a)
{
	static const struct cmd slots = { "slots", "", "show or hide the server panel", appcmd_slots, NULL };
	struct buf warnings = BUF_INIT;

	sesscmd_init(&a->cmds, a->agent, a->d,
		     "Enter sends · Alt-Enter newline · Esc stops a turn · Ctrl-C twice or Ctrl-D quits · "
		     "PgUp/PgDn scroll, End follows · Ctrl-O expands the last tool call · Tab completes commands",
		     &warnings);
	a->cmds.on_clear = appcmd_on_clear;
	a->cmds.arg = a;
	cmdreg_add(&a->cmds.reg, &slots);
	if (warnings.len) {
		buf_rtrim(&warnings);
		appstate_notice(a, THEME_WARNING, warnings.data);
	}
	buf_release(&warnings);
}

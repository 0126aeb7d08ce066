/*
 * appcmd: the full screen's command registry (see appcmd.h).  Handlers get
 * the struct app as their context.
 */
#include "appcmd.h"

#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "repo.h"
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

/* /diff: the session's changes in the diff viewer. */
static enum cmd_result
appcmd_diff(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;
	struct repo_result res = REPO_RESULT_INIT;

	(void)self;
	(void)args;
	if (!a->d->checkpoint || checkpoint_changes(a->d->checkpoint, &res) < 0)
		buf_adds(out, "no changes in this session yet");
	else if (diffview_open(&a->dv, "session", res.diff.data ? res.diff.data : "", res.diff.len) < 0)
		buf_adds(out, res.nfiles ? "the session changed only binary or large files (no text diff)"
		    : "no changes in this session");
	repo_result_release(&res);
	return CMD_DONE;
}

/* Route the registry's /diff (checkpoint.c prints it) to the viewer. */
static void
appcmd_take_diff(struct app *a)
{
	size_t i;

	for (i = 0; i < a->cmds.reg.n; i++)
		if (!strcmp(a->cmds.reg.v[i].name, "diff"))
			a->cmds.reg.v[i].run = appcmd_diff;
}

/* Ctrl-T: the diff viewer on the selected edit. */
void
appcmd_tool_diff(struct app *a)
{
	struct view_transcript head = a->tv;
	struct grid_rect r = a->lay.transcript;
	long total = transcript_rows(&a->tv, r.w), maxtop = total > r.h ? total - r.h : 0;
	long top = a->tv.follow || a->tv.scroll > maxtop ? maxtop : a->tv.scroll;
	const struct view_item *it;
	char title[160];
	size_t i;

	for (i = a->tv.n; i > 0; i--) {
		it = &a->tv.items[i - 1];
		if (it->kind != VIEW_TOOL || !it->diff.len)
			continue;
		head.n = i - 1;
		if (transcript_rows(&head, r.w) >= top + r.h)
			continue;
		snprintf(title, sizeof title, "%s %s", it->name, it->args ? it->args : "");
		if (diffview_open(&a->dv, title, it->diff.data, it->diff.len) == 0)
			return;
	}
	appstate_notice(a, THEME_DIM, "no edit with a diff on the screen (Ctrl-T opens the last one shown)");
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
		     "PgUp/PgDn scroll, End follows · Ctrl-O expands the last tool call · "
		     "Ctrl-T shows the edit on screen in the diff viewer (n/p hunks, q closes) · "
		     "Ctrl-F (or / when scrolled back) searches the transcript (n/N, Esc leaves) · "
		     "Tab completes commands",
		     &warnings);
	a->cmds.on_clear = appcmd_on_clear;
	a->cmds.arg = a;
	cmdreg_add(&a->cmds.reg, &slots);
	appcmd_take_diff(a);
	if (warnings.len) {
		buf_rtrim(&warnings);
		appstate_notice(a, THEME_WARNING, warnings.data);
	}
	buf_release(&warnings);
}

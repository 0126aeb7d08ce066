/*
 * appcmd: the full screen's command registry (see appcmd.h).  Handlers get
 * the struct app as their context.
 */
#include "appcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "checkpoint.h"
#include "extedit.h"
#include "repo.h"
#include "themesel.h"
#include "transcript.h"
#include "tvconv.h"

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

/* /theme [NAME]: list the themes or switch to one. */
static enum cmd_result
appcmd_theme(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;

	(void)self;
	a->dirty = 1;
	return themesel_cmd(&a->th, a->term, a->grid, args, out);
}

/* /open FILE[:LINE]: the file in the user's editor (or a tmux pane). */
static enum cmd_result
appcmd_open(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;
	enum cmd_result rc;

	(void)self;
	if (a->busy && !(a->d->cfg->open_in && !strcmp(a->d->cfg->open_in, "tmux-pane") &&
	    getenv("TMUX"))) {
		buf_adds(out, "/open: not while a turn runs (Esc stops it; open_in: tmux-pane "
		    "opens files beside a running turn)");
		return CMD_ERROR;
	}
	rc = extedit_open_cmd(a->term, a->d->env->root, a->d->cfg->open_in, args, out);
	grid_touch(a->grid);
	a->dirty = 1;
	return rc;
}

/* e in the diff viewer: /open on the file and line at the top of the viewer. */
void
appcmd_open_diff_place(struct app *a)
{
	struct buf args = BUF_INIT, out = BUF_INIT;
	const char *path;
	long line;

	if (diffview_target(&a->dv, &path, &line) < 0)
		return;
	buf_addf(&args, "%s:%ld", path, line);
	if (appcmd_open(a, NULL, args.data, &out) == CMD_ERROR || out.len)
		appstate_notice(a, THEME_DIM, out.data ? out.data : "");
	buf_release(&args);
	buf_release(&out);
}

/* Ctrl-G: the prompt in the user's editor. */
void
appcmd_edit_prompt(struct app *a)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;

	if (a->busy) {
		appstate_notice(a, THEME_WARNING, "Ctrl-G: not while a turn runs (Esc stops it)");
		return;
	}
	editor_text(&a->ed, &text);
	if (extedit_text(a->term, text.data ? text.data : "", text.len, &out, &e) < 0) {
		appstate_notice(a, THEME_ERROR, e.msg);
	} else {
		editor_clear(&a->ed);
		editor_insert(&a->ed, out.data ? out.data : "", out.len);
	}
	grid_touch(a->grid);
	buf_release(&text);
	buf_release(&out);
}

/* /clear and /new: the transcript view starts over too. */
static void
appcmd_on_clear(void *arg)
{
	struct app *a = arg;

	transcript_release(&a->tv);
	transcript_init(&a->tv);
}

/* A pending command moved on: its text, its question (a text to edit goes in the editor). */
static void
appcmd_changed(void *arg)
{
	struct app *a = arg;
	struct buf text = BUF_INIT;
	int error = cmdui_take(&a->cmds.ui, &text);

	buf_rtrim(&text);
	if (text.len)
		appstate_notice(a, error ? THEME_ERROR : THEME_TEXT, text.data);
	if (a->cmds.ui.state == CMDUI_ASK) {
		appstate_notice(a, THEME_ACCENT, a->cmds.ui.question.data);
		if (a->cmds.ui.text) {
			editor_clear(&a->ed);
			editor_insert(&a->ed, a->cmds.ui.prefill.data, a->cmds.ui.prefill.len);
		}
	}
	buf_release(&text);
	a->dirty = 1;
}

/* Enter while a command waits: the answer to its question. */
int
appcmd_answer(struct app *a, const char *text)
{
	if (a->cmds.ui.state == CMDUI_IDLE)
		return 0;
	if (a->cmds.ui.state == CMDUI_ASK)
		cmdui_answer(&a->cmds.ui, text);
	else
		appstate_notice(a, THEME_DIM, "a command is running; Esc stops it");
	return 1;
}

/* /fork: the kept messages are drawn, the message forked from goes back into the editor. */
static void
appcmd_on_fork(void *arg, const char *text)
{
	struct app *a = arg;

	tvconv_load(&a->tv, agent_conv(a->agent));
	editor_clear(&a->ed);
	editor_insert(&a->ed, text, strlen(text));
}

/* The shared session commands, plus /slots, /theme and /open. */
void
appcmd_init(struct app *a)
{
	static const struct cmd slots = { "slots", "", "show or hide the server panel", appcmd_slots, NULL };
	static const struct cmd theme = { "theme", "[NAME]", "list the colour themes or switch to one",
		appcmd_theme, NULL };
	static const struct cmd open_cmd = { "open", "FILE[:LINE]",
		"open a file in $EDITOR (a tmux pane with open_in: tmux-pane)", appcmd_open, NULL };
	struct buf warnings = BUF_INIT;

	sesscmd_init(&a->cmds, a->agent, a->d,
		     "Enter sends · Alt-Enter newline · Esc stops a turn · Ctrl-C twice or Ctrl-D quits · "
		     "PgUp/PgDn scroll, End follows · Ctrl-O expands the last tool call · "
		     "Ctrl-T shows the edit on screen in the diff viewer (n/p hunks, q closes) · "
		     "Ctrl-F (or / when scrolled back) searches the transcript (n/N, Esc leaves) · "
		     "Tab completes commands and @file references · Ctrl-G edits the prompt in $EDITOR",
		     &warnings);
	a->cmds.on_clear = appcmd_on_clear;
	a->cmds.on_fork = appcmd_on_fork;
	a->cmds.arg = a;
	a->cmds.ui.changed = appcmd_changed;
	a->cmds.ui.arg = a;
	a->cmds.ui.whole_text = 1;
	cmdreg_add(&a->cmds.reg, &slots);
	cmdreg_add(&a->cmds.reg, &theme);
	cmdreg_add(&a->cmds.reg, &open_cmd);
	appcmd_take_diff(a);
	if (warnings.len) {
		buf_rtrim(&warnings);
		appstate_notice(a, THEME_WARNING, warnings.data);
	}
	buf_release(&warnings);
}

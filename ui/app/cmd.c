/*
 * ui/app/cmd: the full screen's command registry (see ui/app/cmd.h).  Handlers get
 * the struct app as their context.
 */
#include "ui/app/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "front/checkpoint.h"
#include "ui/app/external.h"
#include "repo/repo.h"
#include "ui/app/themes.h"
#include "ui/app/turn.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_conv.h"

/* /slots: show or hide the server panel. */
static enum cmd_result
app_cmd_slots(void *ctx, const struct cmd *self, const char *args, struct buf *out)
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
app_cmd_diff(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;
	struct repo_result res = REPO_RESULT_INIT;

	(void)self;
	(void)args;
	if (!a->d->checkpoint || front_checkpoint_changes(a->d->checkpoint, &res) < 0)
		buf_adds(out, "no changes in this session yet");
	else if (diff_view_open(&a->dv, "session", res.diff.data ? res.diff.data : "", res.diff.len) < 0)
		buf_adds(out, res.nfiles ? "the session changed only binary or large files (no text diff)"
		    : "no changes in this session");
	repo_result_release(&res);
	return CMD_DONE;
}

/* Route the registry's /diff (front/checkpoint.c prints it) to the viewer. */
static void
app_cmd_take_diff(struct app *a)
{
	size_t i;

	for (i = 0; i < a->cmds.reg.n; i++)
		if (!strcmp(a->cmds.reg.v[i].name, "diff"))
			a->cmds.reg.v[i].run = app_cmd_diff;
}

/* Ctrl-T: the diff viewer on the selected edit. */
void
app_cmd_tool_diff(struct app *a)
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
		if (diff_view_open(&a->dv, title, it->diff.data, it->diff.len) == 0)
			return;
	}
	app_state_notice(a, THEME_DIM, "no edit with a diff on the screen (Ctrl-T opens the last one shown)");
}

/* /theme [NAME]: list the themes or switch to one. */
static enum cmd_result
app_cmd_theme(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct app *a = ctx;

	(void)self;
	a->dirty = 1;
	return app_themes_cmd(&a->th, a->term, a->grid, args, out);
}

/* /open FILE[:LINE]: the file in the user's editor (or a tmux pane). */
static enum cmd_result
app_cmd_open(void *ctx, const struct cmd *self, const char *args, struct buf *out)
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
	rc = app_external_open_cmd(a->term, a->d->env->root, a->d->cfg->open_in, args, out);
	grid_touch(a->grid);
	a->dirty = 1;
	return rc;
}

/* e in the diff viewer: /open on the file and line at the top of the viewer. */
void
app_cmd_open_diff_place(struct app *a)
{
	struct buf args = BUF_INIT, out = BUF_INIT;
	const char *path;
	long line;

	if (diff_view_target(&a->dv, &path, &line) < 0)
		return;
	buf_addf(&args, "%s:%ld", path, line);
	if (app_cmd_open(a, NULL, args.data, &out) == CMD_ERROR || out.len)
		app_state_notice(a, THEME_DIM, out.data ? out.data : "");
	buf_release(&args);
	buf_release(&out);
}

/* Ctrl-G: the prompt in the user's editor. */
void
app_cmd_edit_prompt(struct app *a)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;

	if (a->busy) {
		app_state_notice(a, THEME_WARNING, "Ctrl-G: not while a turn runs (Esc stops it)");
		return;
	}
	editor_text(&a->ed, &text);
	if (app_external_text(a->term, text.data ? text.data : "", text.len, &out, &e) < 0) {
		app_state_notice(a, THEME_ERROR, e.msg);
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
app_cmd_on_clear(void *arg)
{
	struct app *a = arg;

	transcript_release(&a->tv);
	transcript_init(&a->tv);
}

/* A pending command moved on: its text, its question (a text to edit goes in the editor). */
static void
app_cmd_changed(void *arg)
{
	struct app *a = arg;
	struct buf text = BUF_INIT;
	int error = front_cmd_ui_take(&a->cmds.ui, &text);

	buf_rtrim(&text);
	if (text.len)
		app_state_notice(a, error ? THEME_ERROR : THEME_TEXT, text.data);
	if (a->cmds.ui.state == FRONT_CMD_UI_ASK) {
		app_state_notice(a, THEME_ACCENT, a->cmds.ui.question.data);
		if (a->cmds.ui.text) {
			editor_clear(&a->ed);
			editor_insert(&a->ed, a->cmds.ui.prefill.data, a->cmds.ui.prefill.len);
		}
	}
	buf_reset(&text);
	if (front_cmd_ui_take_submit(&a->cmds.ui, &text)) /* an MCP prompt's text: the user's turn */
		app_turn_send(a, text.data);
	buf_release(&text);
	a->dirty = 1;
}

/* Enter while a command waits: the answer to its question. */
int
app_cmd_answer(struct app *a, const char *text)
{
	if (a->cmds.ui.state == FRONT_CMD_UI_IDLE)
		return 0;
	if (a->cmds.ui.state == FRONT_CMD_UI_ASK)
		front_cmd_ui_answer(&a->cmds.ui, text);
	else
		app_state_notice(a, THEME_DIM, "a command is running; Esc stops it");
	return 1;
}

/* /fork: the kept messages are drawn, the message forked from goes back into the editor. */
static void
app_cmd_on_fork(void *arg, const char *text)
{
	struct app *a = arg;

	transcript_conv_load(&a->tv, agent_conv(a->turn.agent));
	editor_clear(&a->ed);
	editor_insert(&a->ed, text, strlen(text));
}

/* The shared session commands, plus /slots, /theme and /open. */
void
app_cmd_init(struct app *a)
{
	static const struct cmd slots = { "slots", "", "show or hide the server panel", app_cmd_slots, NULL };
	static const struct cmd theme = { "theme", "[NAME]", "list the colour themes or switch to one",
		app_cmd_theme, NULL };
	static const struct cmd open_cmd = { "open", "FILE[:LINE]",
		"open a file in $EDITOR (a tmux pane with open_in: tmux-pane)", app_cmd_open, NULL };
	struct buf warnings = BUF_INIT;

	front_commands_init(&a->cmds, a->turn.agent, a->d,
		     "keys\n"
		     "  Enter               send (queued while a turn runs or the server is away)\n"
		     "  Alt-Enter           a new line in the message\n"
		     "  Esc                 stop the turn; drop what is queued\n"
		     "  Ctrl-C ×2, Ctrl-D   quit\n"
		     "  PgUp PgDn, wheel    scroll the transcript; End follows again\n"
		     "  Ctrl-O              open/close the tool call in view\n"
		     "  Ctrl-P              focus a call: ↑↓ move, Enter opens, a all, Esc leaves\n"
		     "  Ctrl-T              the edit on screen in the diff viewer (n/p hunks, q closes)\n"
		     "  Ctrl-F              search the transcript (also / when scrolled back; n/N, Esc)\n"
		     "  Tab                 complete /commands and @files (a list above the input)\n"
		     "  Ctrl-G              edit the message in $EDITOR\n"
		     "\ncommands",
		     &warnings);
	a->cmds.on_clear = app_cmd_on_clear;
	a->cmds.on_fork = app_cmd_on_fork;
	a->cmds.arg = a;
	a->cmds.ui.changed = app_cmd_changed;
	a->cmds.ui.arg = a;
	a->cmds.ui.whole_text = 1;
	front_cmd_add(&a->cmds.reg, &slots);
	front_cmd_add(&a->cmds.reg, &theme);
	front_cmd_add(&a->cmds.reg, &open_cmd);
	app_cmd_take_diff(a);
	if (warnings.len) {
		buf_rtrim(&warnings);
		app_state_notice(a, THEME_WARNING, warnings.data);
	}
	buf_release(&warnings);
}

/* cmdui: pending commands between a command and its front end (see cmdui.h). */
#include "cmdui.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

/* Idle and empty. */
void
cmdui_init(struct cmdui *ui)
{
	memset(ui, 0, sizeof *ui);
	buf_init(&ui->question, 0);
	buf_init(&ui->prefill, 0);
	buf_init(&ui->out, 0);
	buf_init(&ui->lines, 0);
}

/* Free the buffers. */
void
cmdui_release(struct cmdui *ui)
{
	buf_release(&ui->question);
	buf_release(&ui->prefill);
	buf_release(&ui->out);
	buf_release(&ui->lines);
}

/* Append text to show. */
void
cmdui_show(struct cmdui *ui, int error, const char *fmt, ...)
{
	va_list ap;

	if (ui->out.len && ui->out.data[ui->out.len - 1] != '\n')
		buf_addch(&ui->out, '\n');
	va_start(ap, fmt);
	buf_vaddf(&ui->out, fmt, ap);
	va_end(ap);
	ui->out_error |= error;
}

/* Enter a state and tell the front end. */
static void
set_state(struct cmdui *ui, enum cmdui_state st, cmdui_answer_fn fn, cmdui_cancel_fn cancel,
	  void *cmd)
{
	ui->state = st;
	ui->on_answer = fn;
	ui->on_cancel = cancel;
	ui->cmd = cmd;
	if (st != CMDUI_ASK) {
		buf_reset(&ui->question);
		buf_reset(&ui->prefill);
		ui->text = 0;
	}
	if (ui->changed)
		ui->changed(ui->arg);
}

/* A one-line question. */
void
cmdui_ask(struct cmdui *ui, const char *question, cmdui_answer_fn fn, cmdui_cancel_fn cancel,
	  void *cmd)
{
	buf_reset(&ui->question);
	buf_adds(&ui->question, question);
	buf_reset(&ui->prefill);
	ui->text = 0;
	set_state(ui, CMDUI_ASK, fn, cancel, cmd);
}

/* A text question. */
void
cmdui_ask_text(struct cmdui *ui, const char *question, const char *prefill, cmdui_answer_fn fn,
	       cmdui_cancel_fn cancel, void *cmd)
{
	buf_reset(&ui->question);
	buf_adds(&ui->question, question);
	buf_reset(&ui->prefill);
	buf_adds(&ui->prefill, prefill);
	buf_reset(&ui->lines);
	ui->text = 1;
	set_state(ui, CMDUI_ASK, fn, cancel, cmd);
}

/* Background work. */
void
cmdui_busy(struct cmdui *ui, cmdui_cancel_fn cancel, void *cmd)
{
	set_state(ui, CMDUI_BUSY, NULL, cancel, cmd);
}

/* Over. */
void
cmdui_done(struct cmdui *ui)
{
	set_state(ui, CMDUI_IDLE, NULL, NULL, NULL);
}

/* Take the text to show. */
int
cmdui_take(struct cmdui *ui, struct buf *out)
{
	int error = ui->out_error;

	buf_add(out, ui->out.data, ui->out.len);
	buf_reset(&ui->out);
	ui->out_error = 0;
	return error;
}

/* An answer: whole, or one line of a text (collected until "."). */
void
cmdui_answer(struct cmdui *ui, const char *line)
{
	cmdui_answer_fn fn = ui->on_answer;
	void *cmd = ui->cmd;

	if (ui->state != CMDUI_ASK || !fn)
		return;
	if (ui->text && !ui->whole_text) {
		if (strcmp(line, ".") != 0) {
			buf_addf(&ui->lines, "%s\n", line);
			return;
		}
		ui->state = CMDUI_BUSY;
		fn(cmd, ui->lines.data);
		return;
	}
	ui->state = CMDUI_BUSY; /* the command sets the next state */
	fn(cmd, line);
}

/* Stop the pending command. */
void
cmdui_cancel(struct cmdui *ui)
{
	cmdui_cancel_fn cancel = ui->on_cancel;
	void *cmd = ui->cmd;

	if (ui->state == CMDUI_IDLE)
		return;
	ui->on_cancel = NULL;
	if (cancel)
		cancel(cmd);
	if (ui->state != CMDUI_IDLE)
		cmdui_done(ui);
}

/* Parse a yes/no answer. */
int
cmdui_yes(const char *answer)
{
	while (*answer == ' ')
		answer++;
	if (!strcasecmp(answer, "y") || !strcasecmp(answer, "yes"))
		return 1;
	if (!*answer || !strcasecmp(answer, "n") || !strcasecmp(answer, "no"))
		return 0;
	return -1;
}

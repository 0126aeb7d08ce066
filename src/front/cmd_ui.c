/* front/cmd_ui: pending commands between a command and its front end (see front/cmd_ui.h). */
#include "front/cmd_ui.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

/* Idle and empty. */
void
front_cmd_ui_init(struct front_cmd_ui *ui)
{
	memset(ui, 0, sizeof *ui);
	buf_init(&ui->question, 0);
	buf_init(&ui->prefill, 0);
	buf_init(&ui->out, 0);
	buf_init(&ui->lines, 0);
	buf_init(&ui->submit, 0);
}

/* Free the buffers. */
void
front_cmd_ui_release(struct front_cmd_ui *ui)
{
	buf_release(&ui->question);
	buf_release(&ui->prefill);
	buf_release(&ui->out);
	buf_release(&ui->lines);
	buf_release(&ui->submit);
}

/* Append text to show. */
void
front_cmd_ui_show(struct front_cmd_ui *ui, int error, const char *fmt, ...)
{
	va_list ap;

	buf_end_line(&ui->out);
	va_start(ap, fmt);
	buf_vaddf(&ui->out, fmt, ap);
	va_end(ap);
	ui->out_error |= error;
}

/* Enter a state and tell the front end. */
static void
set_state(struct front_cmd_ui *ui, enum front_cmd_ui_state st, front_cmd_ui_answer_fn fn, front_cmd_ui_cancel_fn cancel,
	  void *cmd)
{
	ui->state = st;
	ui->on_answer = fn;
	ui->on_cancel = cancel;
	ui->cmd = cmd;
	if (st != FRONT_CMD_UI_ASK) {
		buf_reset(&ui->question);
		buf_reset(&ui->prefill);
		ui->text = 0;
	}
	if (ui->changed)
		ui->changed(ui->arg);
}

/* A one-line question. */
void
front_cmd_ui_ask(struct front_cmd_ui *ui, const char *question, front_cmd_ui_answer_fn fn, front_cmd_ui_cancel_fn cancel,
	  void *cmd)
{
	buf_reset(&ui->question);
	buf_adds(&ui->question, question);
	buf_reset(&ui->prefill);
	ui->text = 0;
	set_state(ui, FRONT_CMD_UI_ASK, fn, cancel, cmd);
}

/* A text question. */
void
front_cmd_ui_ask_text(struct front_cmd_ui *ui, const char *question, const char *prefill, front_cmd_ui_answer_fn fn,
	       front_cmd_ui_cancel_fn cancel, void *cmd)
{
	buf_reset(&ui->question);
	buf_adds(&ui->question, question);
	buf_reset(&ui->prefill);
	buf_adds(&ui->prefill, prefill);
	buf_reset(&ui->lines);
	ui->text = 1;
	set_state(ui, FRONT_CMD_UI_ASK, fn, cancel, cmd);
}

/* Background work. */
void
front_cmd_ui_busy(struct front_cmd_ui *ui, front_cmd_ui_cancel_fn cancel, void *cmd)
{
	set_state(ui, FRONT_CMD_UI_BUSY, NULL, cancel, cmd);
}

/* Over. */
void
front_cmd_ui_done(struct front_cmd_ui *ui)
{
	set_state(ui, FRONT_CMD_UI_IDLE, NULL, NULL, NULL);
}

/* Over, with a message for the model. */
void
front_cmd_ui_submit(struct front_cmd_ui *ui, const char *text)
{
	buf_reset(&ui->submit);
	buf_adds(&ui->submit, text);
	ui->has_submit = 1;
	set_state(ui, FRONT_CMD_UI_IDLE, NULL, NULL, NULL);
}

/* Take the message to send. */
int
front_cmd_ui_take_submit(struct front_cmd_ui *ui, struct buf *out)
{
	if (!ui->has_submit)
		return 0;
	ui->has_submit = 0;
	buf_add(out, ui->submit.data, ui->submit.len);
	buf_reset(&ui->submit);
	return 1;
}

/* Take the text to show. */
int
front_cmd_ui_take(struct front_cmd_ui *ui, struct buf *out)
{
	int error = ui->out_error;

	buf_add(out, ui->out.data, ui->out.len);
	buf_reset(&ui->out);
	ui->out_error = 0;
	return error;
}

/* An answer: whole, or one line of a text (collected until "."). */
void
front_cmd_ui_answer(struct front_cmd_ui *ui, const char *line)
{
	front_cmd_ui_answer_fn fn = ui->on_answer;
	void *cmd = ui->cmd;

	if (ui->state != FRONT_CMD_UI_ASK || !fn)
		return;
	if (ui->text && !ui->whole_text) {
		if (strcmp(line, ".") != 0) {
			buf_addf(&ui->lines, "%s\n", line);
			return;
		}
		ui->state = FRONT_CMD_UI_BUSY;
		fn(cmd, ui->lines.data);
		return;
	}
	ui->state = FRONT_CMD_UI_BUSY; /* the command sets the next state */
	fn(cmd, line);
}

/* Stop the pending command. */
void
front_cmd_ui_cancel(struct front_cmd_ui *ui)
{
	front_cmd_ui_cancel_fn cancel = ui->on_cancel;
	void *cmd = ui->cmd;

	if (ui->state == FRONT_CMD_UI_IDLE)
		return;
	ui->on_cancel = NULL;
	if (cancel)
		cancel(cmd);
	if (ui->state != FRONT_CMD_UI_IDLE)
		front_cmd_ui_done(ui);
}

/* Parse a yes/no answer. */
int
front_cmd_ui_yes(const char *answer)
{
	while (*answer == ' ')
		answer++;
	if (!strcasecmp(answer, "y") || !strcasecmp(answer, "yes"))
		return 1;
	if (!*answer || !strcasecmp(answer, "n") || !strcasecmp(answer, "no"))
		return 0;
	return -1;
}

/*
 * front/cmd_ui: how a slash command that does not finish at once (it asks the
 * user something, or waits on the model) talks to the front end.
 *
 * A handler that goes on after it returns answers CMD_PENDING (front/cmd.h)
 * and from then on speaks only through its front_cmd_ui: it shows text
 * (front_cmd_ui_show), then either asks a question (front_cmd_ui_ask / front_cmd_ui_ask_text),
 * works in the background (front_cmd_ui_busy) or ends (front_cmd_ui_done).  Each of
 * those three calls `changed`, where the front end takes the text to show
 * (front_cmd_ui_take) and looks at `state`: FRONT_CMD_UI_ASK — show `question` and hand
 * the next thing the user enters to front_cmd_ui_answer; FRONT_CMD_UI_BUSY — wait
 * (Ctrl-C / Esc call front_cmd_ui_cancel); FRONT_CMD_UI_IDLE — back to its prompt,
 * unless the command ended with a message for the model (front_cmd_ui_submit:
 * an MCP prompt's text, fetched on the loop): front_cmd_ui_take_submit gives
 * it once and the front end sends it as the user's turn, as it does CMD_SUBMIT.
 * `changed` may be called from inside front_cmd_run, front_cmd_ui_answer or
 * front_cmd_ui_cancel, or later from a loop callback.
 *
 * A text question (front_cmd_ui_ask_text) offers `prefill` for editing.  A front
 * end with an editor sets whole_text and answers once with the edited
 * text; a line front end answers line by line and front_cmd_ui collects the
 * lines until one holding only "." (the text then goes to the command).
 *
 * Print mode has no questions: interactive is 0 and commands decide by
 * their flags (--yes).  Ownership: the front end owns the front_cmd_ui; the
 * command's pointer `cmd` is borrowed until it is IDLE again.
 */
#ifndef HEARTH_FRONT_CMD_UI_H
#define HEARTH_FRONT_CMD_UI_H

#include "base/buf.h"
#include "base/err.h"

enum front_cmd_ui_state { FRONT_CMD_UI_IDLE, FRONT_CMD_UI_BUSY, FRONT_CMD_UI_ASK };

typedef void (*front_cmd_ui_answer_fn)(void *cmd, const char *answer);
typedef void (*front_cmd_ui_cancel_fn)(void *cmd);

struct front_cmd_ui {
	/* set by the front end */
	int interactive;             /* questions may be asked */
	int whole_text;              /* text answers arrive whole (an editor) */
	void (*changed)(void *arg);  /* see the top */
	void *arg;
	/* read by the front end */
	enum front_cmd_ui_state state;
	struct buf question;         /* FRONT_CMD_UI_ASK: what to answer */
	struct buf prefill;          /* a text question: the text to edit ("" otherwise) */
	int text;                    /* the question wants a text */
	/* private */
	struct buf out;
	int out_error;
	struct buf lines;
	struct buf submit;           /* front_cmd_ui_submit's message */
	int has_submit;
	front_cmd_ui_answer_fn on_answer;
	front_cmd_ui_cancel_fn on_cancel;
	void *cmd;
};

void front_cmd_ui_init(struct front_cmd_ui *ui);
void front_cmd_ui_release(struct front_cmd_ui *ui);

/* Command side: add text to show (error: shown as an error). */
void front_cmd_ui_show(struct front_cmd_ui *ui, int error, const char *fmt, ...) ERR_PRINTF(3, 4);
/* Ask a one-line question; fn gets the answer, cancel (may be NULL) a cancellation. */
void front_cmd_ui_ask(struct front_cmd_ui *ui, const char *question, front_cmd_ui_answer_fn fn,
	       front_cmd_ui_cancel_fn cancel, void *cmd);
/* Ask for a text (prefill is offered for editing). */
void front_cmd_ui_ask_text(struct front_cmd_ui *ui, const char *question, const char *prefill,
		    front_cmd_ui_answer_fn fn, front_cmd_ui_cancel_fn cancel, void *cmd);
/* Work goes on in the background; cancel (may be NULL) stops it. */
void front_cmd_ui_busy(struct front_cmd_ui *ui, front_cmd_ui_cancel_fn cancel, void *cmd);
/* The command is over. */
void front_cmd_ui_done(struct front_cmd_ui *ui);
/* The command is over and text goes to the model as the user's message (front_cmd_ui_take_submit). */
void front_cmd_ui_submit(struct front_cmd_ui *ui, const char *text);

/* Front end side: the text to show into out (appended); returns 1 when it is an error. */
int front_cmd_ui_take(struct front_cmd_ui *ui, struct buf *out);
/* After `changed`: 1 with the message to send appended to out (once), 0 when there is none. */
int front_cmd_ui_take_submit(struct front_cmd_ui *ui, struct buf *out);
/* The user entered line (state must be FRONT_CMD_UI_ASK; otherwise ignored). */
void front_cmd_ui_answer(struct front_cmd_ui *ui, const char *line);
/* Ctrl-C / Esc: the command stops (it shows why) and the state is IDLE. */
void front_cmd_ui_cancel(struct front_cmd_ui *ui);

/* A yes/no answer: 1 yes ("y", "yes"), 0 no ("n", "no", ""), -1 anything else. */
int front_cmd_ui_yes(const char *answer);

#endif

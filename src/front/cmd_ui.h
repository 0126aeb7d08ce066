/*
 * cmdui: how a slash command that does not finish at once (it asks the
 * user something, or waits on the model) talks to the front end.
 *
 * A handler that goes on after it returns answers CMD_PENDING (cmd.h)
 * and from then on speaks only through its cmdui: it shows text
 * (cmdui_show), then either asks a question (cmdui_ask / cmdui_ask_text),
 * works in the background (cmdui_busy) or ends (cmdui_done).  Each of
 * those three calls `changed`, where the front end takes the text to show
 * (cmdui_take) and looks at `state`: CMDUI_ASK — show `question` and hand
 * the next thing the user enters to cmdui_answer; CMDUI_BUSY — wait
 * (Ctrl-C / Esc call cmdui_cancel); CMDUI_IDLE — back to its prompt.
 * `changed` may be called from inside cmdreg_run, cmdui_answer or
 * cmdui_cancel, or later from a loop callback.
 *
 * A text question (cmdui_ask_text) offers `prefill` for editing.  A front
 * end with an editor sets whole_text and answers once with the edited
 * text; a line front end answers line by line and cmdui collects the
 * lines until one holding only "." (the text then goes to the command).
 *
 * Print mode has no questions: interactive is 0 and commands decide by
 * their flags (--yes).  Ownership: the front end owns the cmdui; the
 * command's pointer `cmd` is borrowed until it is IDLE again.
 */
#ifndef HEARTH_CMDUI_H
#define HEARTH_CMDUI_H

#include "buf.h"
#include "err.h"

enum cmdui_state { CMDUI_IDLE, CMDUI_BUSY, CMDUI_ASK };

typedef void (*cmdui_answer_fn)(void *cmd, const char *answer);
typedef void (*cmdui_cancel_fn)(void *cmd);

struct cmdui {
	/* set by the front end */
	int interactive;             /* questions may be asked */
	int whole_text;              /* text answers arrive whole (an editor) */
	void (*changed)(void *arg);  /* see the top */
	void *arg;
	/* read by the front end */
	enum cmdui_state state;
	struct buf question;         /* CMDUI_ASK: what to answer */
	struct buf prefill;          /* a text question: the text to edit ("" otherwise) */
	int text;                    /* the question wants a text */
	/* private */
	struct buf out;
	int out_error;
	struct buf lines;
	cmdui_answer_fn on_answer;
	cmdui_cancel_fn on_cancel;
	void *cmd;
};

void cmdui_init(struct cmdui *ui);
void cmdui_release(struct cmdui *ui);

/* Command side: add text to show (error: shown as an error). */
void cmdui_show(struct cmdui *ui, int error, const char *fmt, ...) ERR_PRINTF(3, 4);
/* Ask a one-line question; fn gets the answer, cancel (may be NULL) a cancellation. */
void cmdui_ask(struct cmdui *ui, const char *question, cmdui_answer_fn fn,
	       cmdui_cancel_fn cancel, void *cmd);
/* Ask for a text (prefill is offered for editing). */
void cmdui_ask_text(struct cmdui *ui, const char *question, const char *prefill,
		    cmdui_answer_fn fn, cmdui_cancel_fn cancel, void *cmd);
/* Work goes on in the background; cancel (may be NULL) stops it. */
void cmdui_busy(struct cmdui *ui, cmdui_cancel_fn cancel, void *cmd);
/* The command is over. */
void cmdui_done(struct cmdui *ui);

/* Front end side: the text to show into out (appended); returns 1 when it is an error. */
int cmdui_take(struct cmdui *ui, struct buf *out);
/* The user entered line (state must be CMDUI_ASK; otherwise ignored). */
void cmdui_answer(struct cmdui *ui, const char *line);
/* Ctrl-C / Esc: the command stops (it shows why) and the state is IDLE. */
void cmdui_cancel(struct cmdui *ui);

/* A yes/no answer: 1 yes ("y", "yes"), 0 no ("n", "no", ""), -1 anything else. */
int cmdui_yes(const char *answer);

#endif

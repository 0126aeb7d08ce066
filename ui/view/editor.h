/*
 * ui/view/editor: the input editor of the full-screen UI — a multi-line buffer
 * with a cursor, emacs keys, history and bracketed paste.  Pure: it reads no fd and no clock; tests drive it with key
 * events and read back the text and the drawn cells.
 *
 * The buffer is always valid UTF-8 (invalid input bytes are stored as
 * U+FFFD).  A paste of more than EDITOR_PASTE_FOLD lines is kept whole in
 * a side table and stands in the buffer as one code point of the Private
 * Use Area (U+E000 + index), drawn as "[paste: N lines]": the cursor moves
 * over it as over one character, Backspace deletes it whole, and
 * editor_text()/editor_take() expand it to the pasted bytes.  Typed or
 * pasted code points of that range are stored as U+FFFD so no input can
 * forge a marker.  Control bytes other than LF and TAB are kept and shown
 * in caret notation (^[); the submitted text is what was typed.
 *
 * Keys (editor_key): printable characters insert; Backspace, Delete,
 * Left, Right, Home/Ctrl-A, End/Ctrl-E (of the current line), Ctrl-K
 * (kill to the end of the line, or the newline at its end), Ctrl-U (kill
 * to the start of the line), Ctrl-W (kill the word before the cursor),
 * Ctrl-Y (yank the one-entry kill ring), Alt-Enter (newline), Enter
 * (submit), Up/Down (previous line / history when on the first / last
 * line).  Every other key is left to the caller (EDITOR_IGNORED) — Tab
 * too: completion needs the workspace and the command registry, which the
 * caller has (ui/app/complete.h); it edits through editor_insert/editor_set.
 *
 * Lifetime: editor_init()/editor_release(); allocation failure is fatal.
 */
#ifndef HEARTH_UI_VIEW_EDITOR_H
#define HEARTH_UI_VIEW_EDITOR_H

#include <stddef.h>

#include "base/buf.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"

#define EDITOR_PASTE_FOLD 10
#define EDITOR_HISTORY_MAX 500
#define EDITOR_PASTES_MAX 256

struct editor_paste {
	char *text;
	size_t len;
	long lines;
};

struct editor {
	struct buf text;   /* UTF-8, paste markers as U+E000 + index */
	size_t cur;        /* byte offset in text, on a character boundary */
	struct buf kill;   /* the kill ring's one entry (markers expanded) */
	struct editor_paste *pastes;
	size_t npastes;
	char **hist;       /* oldest first */
	size_t nhist;
	long hidx;         /* entry shown, -1: the draft */
	struct buf draft;  /* what was being typed before walking the history */
};

enum editor_result {
	EDITOR_IGNORED = 0, /* not an editing key: the caller handles it */
	EDITOR_DONE,        /* handled (the buffer or cursor may have changed) */
	EDITOR_SUBMIT,      /* Enter: take the text with editor_take */
	EDITOR_NOTICE       /* handled; notice holds a line to show (the caller's completion) */
};

void editor_init(struct editor *ed);
void editor_release(struct editor *ed);
/* Apply one key. */
enum editor_result editor_key(struct editor *ed, const struct keys_event *ev);
/* Insert n bytes of typed text at the cursor. */
void editor_insert(struct editor *ed, const char *s, size_t n);
/* Insert a paste: folded into a marker above EDITOR_PASTE_FOLD lines. */
void editor_paste(struct editor *ed, const char *s, size_t n);
/* Append the whole text (pastes expanded) to out. */
void editor_text(const struct editor *ed, struct buf *out);
/* Append the text as shown (markers as "[paste: N lines]") to out. */
void editor_display(const struct editor *ed, struct buf *out);
/* editor_text into out, then add it to the history and empty the editor. */
void editor_take(struct editor *ed, struct buf *out);
/* Replace the whole text with s (inserted like typed text; pastes dropped), cursor at the end. */
void editor_set(struct editor *ed, const char *s);
/* Empty the buffer (the kill ring and history stay). */
void editor_clear(struct editor *ed);
int editor_empty(const struct editor *ed);
/* Add a line to the history (consecutive duplicates and "" are skipped). */
void editor_history_add(struct editor *ed, const char *s);
/* Rows the text needs at width w (the prompt included), >= 1. */
int editor_rows(const struct editor *ed, int w);
/*
 * Draw into r ("› " then the text, wrapped by character; scrolled so the
 * cursor row shows) and store the cursor cell in *cx, *cy.
 */
void editor_draw(const struct editor *ed, struct grid *g, struct grid_rect r, int *cx, int *cy);

#endif

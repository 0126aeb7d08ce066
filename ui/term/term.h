/*
 * ui/term/term: the interface between the grid and a terminal (design.md §7).
 *
 * Two backends implement it: ui/term/curses.c (the real terminal through
 * ncursesw; the only file that includes curses) and ui/term/text.c (a
 * headless screen for snapshot tests).  Views never see a backend: they
 * draw into a struct grid; the UI loop calls term_present() once per pass
 * (from the loop's before-sleep hook), which blits the dirty rows and
 * clears their dirty bits.
 *
 * Input: term_input_fd() is watched for LOOP_READ on the event loop;
 * when it is readable, term_read_keys() does one read(2) and feeds the
 * bytes to a keys decoder (ui/term/keys.h), which the caller then drains with
 * keys_next() (and the Esc timer rule described there).  A return of -1
 * means the terminal is gone (EOF/EIO): the caller shuts down.
 *
 * Resize: the caller gets SIGWINCH through loop_signal() (registered
 * BEFORE term_curses_new, so curses does not install its own handler),
 * then calls term_resized(), term_size(), grid_resize() and redraws.
 *
 * Restoring the terminal: term_free() restores it (leaves the alternate
 * screen, disables bracketed paste and mouse reporting, restores the tty
 * modes).  The curses backend also registers itself with err_on_fatal(), so
 * fatal() restores first, and restores on SIGSEGV/SIGBUS/SIGFPE/SIGILL/
 * SIGABRT before the default action (when no other handler was set).
 * SIGTERM/SIGHUP: the caller's loop handler calls term_free() and exits.
 *
 * The interface is a struct of function pointers; the inline term_*
 * wrappers below are what callers use.  Names avoid curses' own
 * (refresh, clear, move, timeout, scroll…).
 */
#ifndef HEARTH_UI_TERM_TERM_H
#define HEARTH_UI_TERM_TERM_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/term/theme.h"

struct term;

struct term_ops {
	const char *name;
	void (*free)(struct term *t);
	void (*size)(struct term *t, int *w, int *h);
	void (*resized)(struct term *t);
	int (*present)(struct term *t, struct grid *g);
	void (*cursor)(struct term *t, int x, int y);
	void (*bell)(struct term *t);
	int (*input_fd)(struct term *t);
	int (*read_keys)(struct term *t, struct keys *k, struct err *e);
	void (*set_theme)(struct term *t, const struct theme *th);
	int (*suspend)(struct term *t, struct err *e);
	int (*resume)(struct term *t, struct err *e);
};

struct term {
	const struct term_ops *ops;
};

/* Options of the real terminal. */
struct term_curses_opts {
	int mouse;            /* report the wheel (1000 + 1006); costs click-select */
	int bracketed_paste;  /* ESC[?2004h */
};

/*
 * Take over the terminal on stdin/stdout: alternate screen, raw mode,
 * keypad, colours for every role of th.  NULL + e when stdin/stdout is not
 * a terminal or the terminal type is unknown.  One at a time.
 */
struct term *term_curses_new(const struct theme *th, const struct term_curses_opts *o,
    struct err *e);

/*
 * The headless backend: a w×h screen in memory, an input pipe, counters.
 * Never fails (allocation failure is fatal).
 */
struct term *term_text_new(int w, int h);
/*
 * Append the screen as text to out: one line per row ending in '\n',
 * trailing spaces trimmed.  With `styles`, each row is followed by a line
 * of one character per cell naming its style: '.' for 0 (text), 'a'–'z'
 * for 1–26, 'A'–'Z' for 27–52, '?' above.
 */
void term_text_dump(struct term *t, struct buf *out, int styles);
/* Queue input bytes, as if typed (readable on term_input_fd). */
void term_text_type(struct term *t, const char *s, size_t n);
/* Change the size reported by term_size (the caller then resizes its grid). */
void term_text_set_size(struct term *t, int w, int h);
/* Rows blitted by all presents so far, and bells rung (for tests). */
long term_text_rows_blitted(const struct term *t);
int term_text_bells(const struct term *t);
/* Cursor position set for the last present (x < 0: hidden). */
void term_text_cursor_at(const struct term *t, int *x, int *y);

/* Restore the terminal and free t (NULL ok). */
static inline void
term_free(struct term *t)
{
	if (t)
		t->ops->free(t);
}

/* Current size in cells. */
static inline void
term_size(struct term *t, int *w, int *h)
{
	t->ops->size(t, w, h);
}

/* After SIGWINCH: re-read the size from the tty. */
static inline void
term_resized(struct term *t)
{
	t->ops->resized(t);
}

/*
 * Blit g's dirty rows (cells outside the terminal are skipped), place the
 * cursor, show the frame, clear the dirty bits.  0, or -1 when output
 * failed (the terminal is gone).
 */
static inline int
term_present(struct term *t, struct grid *g)
{
	return t->ops->present(t, g);
}

/* Where the cursor shows after the next present; x < 0 hides it. */
static inline void
term_cursor(struct term *t, int x, int y)
{
	t->ops->cursor(t, x, y);
}

/* Ring the bell (BEL; tmux turns it into a window alert). */
static inline void
term_bell(struct term *t)
{
	t->ops->bell(t);
}

/* The fd to watch for input. */
static inline int
term_input_fd(struct term *t)
{
	return t->ops->input_fd(t);
}

/*
 * Read what is available (one read) into k.  0 (possibly nothing read:
 * EAGAIN/EINTR), -1 + e when the terminal is gone.
 */
static inline int
term_read_keys(struct term *t, struct keys *k, struct err *e)
{
	return t->ops->read_keys(t, k, e);
}

/* Use th's styles from the next present on (repaint: grid_touch). */
static inline void
term_set_theme(struct term *t, const struct theme *th)
{
	t->ops->set_theme(t, th);
}

/* Give the terminal back (to run $EDITOR); term_resume takes it again. */
static inline int
term_suspend(struct term *t, struct err *e)
{
	return t->ops->suspend(t, e);
}

/* Take the terminal back after term_suspend; the caller calls grid_touch. */
static inline int
term_resume(struct term *t, struct err *e)
{
	return t->ops->resume(t, e);
}

#endif

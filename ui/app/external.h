/*
 * ui/app/external: the user's own editor — Ctrl-G (edit the prompt) and /open
 * (a file at a line), run in the foreground with the terminal, or in a
 * new tmux pane beside hearth.
 *
 * The editor is $VISUAL, else $EDITOR, else "vi"; it may carry arguments
 * ("emacs -nw", "code -w") and is run through /bin/sh as `EDITOR "$@"`
 * with the arguments passed as positional parameters (never spliced into
 * the command), `+LINE` first when a line is given (vi, emacs, nano, kak,
 * micro, helix all take it).
 *
 * Foreground runs: the full screen is given back (term_suspend: the
 * shell's tty modes, main screen), the child runs in hearth's process
 * group so it owns the terminal, hearth blocks in waitpid with SIGINT and
 * SIGQUIT ignored (as system(3) does; the editor gets them), then the
 * screen is taken back (term_resume) and the caller repaints.  The event
 * loop does not run meanwhile: the person is in the editor.  With t NULL
 * (tests) nothing is suspended.
 *
 * Errors are one line: the editor could not be started or was not found
 * (exit 127 from the shell), or exited non-zero, or the file could not be
 * written/read; the prompt is then left as it was.
 */
#ifndef HEARTH_UI_APP_EXTERNAL_H
#define HEARTH_UI_APP_EXTERNAL_H

#include <stddef.h>

#include "base/buf.h"
#include "front/cmd.h"
#include "base/err.h"
#include "ui/term/term.h"

#define APP_EXTERNAL_MAX_BYTES ((size_t)16 * 1024 * 1024)

/* The editor command ($VISUAL, $EDITOR, "vi"); never NULL. */
const char *app_external_editor(void);
/*
 * Edit text[0..n) in the editor through a new 0600 temporary file (in
 * $TMPDIR or /tmp, removed afterwards).  0 with the edited text in out
 * (reset first; one trailing newline, which editors add, removed), or -1
 * + e with out untouched.
 */
int app_external_text(struct term *t, const char *text, size_t n, struct buf *out, struct err *e);
/*
 * Open path at line in the editor in a new tmux pane (`tmux split-window
 * -h -c dir`), without waiting for the editor; 0 or -1 + e (tmux failed,
 * or $TMUX unset).
 */
int app_external_tmux(const char *dir, const char *path, long line, struct err *e);

/*
 * Split "FILE[:LINE]" (args of /open; blanks around are ignored) into the
 * file name (into path, reset first) and the line (0 when none).  A
 * trailing ":N" is a line only when N is all digits, so "a:b.c" is a
 * file.  -1 + e when no file is given.
 */
int app_external_target(const char *args, struct buf *path, long *line, struct err *e);
/*
 * The /open command: resolve FILE against root (relative names; "~/"
 * and absolute names as given), refuse a missing file or a directory, and
 * open it per open_in: NULL or "editor" in the foreground editor through
 * t; "tmux-pane" in a new tmux pane when $TMUX is set (the foreground
 * editor otherwise).  out gets the one line to show.
 */
enum cmd_result app_external_open_cmd(struct term *t, const char *root, const char *open_in,
    const char *args, struct buf *out);

#endif

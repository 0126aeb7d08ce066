/*
 * ui/term/keys: a pure decoder from terminal input bytes to key events.
 *
 * Bytes are fed as they arrive (keys_feed), split anywhere: a sequence cut
 * between two reads is held until the rest arrives.  keys_next() returns
 * one event at a time.  Nothing here reads a fd or looks at a clock.
 *
 * The Esc rule.  A lone ESC byte cannot be told from the start of an
 * Alt-key or an escape sequence until more bytes come or time passes.
 * When keys_next() returns 0 and keys_waiting() is true, the caller arms
 * a short timer (25–50 ms is usual); if no byte arrives before it fires it
 * calls keys_flush(), which turns the held bytes into what they are on
 * their own (ESC alone → KEYS_ESC; ESC '[' → KEYS_ESC then '['...).  A
 * byte that arrives in time completes the sequence as usual.
 *
 * Bracketed paste.  Everything between ESC[200~ and ESC[201~ is one
 * KEYS_PASTE event, however many reads it took, with CR LF and lone CR
 * turned into LF (terminals send pasted newlines as CR).  Inside a paste
 * no byte is interpreted (an ESC in pasted text does not end it).  The
 * pasted bytes are raw: the editor sanitises them like any other input.
 *
 * Mouse.  SGR reports (ESC[<b;x;yM/m, mode 1006) give KEYS_WHEEL_UP /
 * KEYS_WHEEL_DOWN, or KEYS_MOUSE for other buttons; legacy X10 reports are
 * consumed and returned as KEYS_MOUSE.  Window resizes are not input: the
 * caller gets them from SIGWINCH.
 *
 * Anything unrecognised (function keys, focus reports, over-long or
 * malformed sequences) is consumed whole and returned as KEYS_UNKNOWN so
 * no stray byte of a sequence is ever typed into the editor.
 *
 * Lifetime: keys_init()/keys_release().  A KEYS_PASTE event's bytes
 * belong to the decoder and stay valid until the next keys_* call.
 */
#ifndef HEARTH_UI_TERM_KEYS_H
#define HEARTH_UI_TERM_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

enum keys_kind {
	KEYS_NONE = 0,
	KEYS_CHAR,      /* cp: a printable character, or a letter with KEYS_MOD_CTRL */
	KEYS_ENTER,     /* CR; with KEYS_MOD_ALT: Alt-Enter (ESC CR) */
	KEYS_TAB,       /* with KEYS_MOD_SHIFT: Shift-Tab (ESC[Z) */
	KEYS_BACKSPACE, /* DEL or ^H */
	KEYS_ESC,
	KEYS_UP,
	KEYS_DOWN,
	KEYS_LEFT,
	KEYS_RIGHT,
	KEYS_HOME,
	KEYS_END,
	KEYS_PGUP,
	KEYS_PGDN,
	KEYS_INSERT,
	KEYS_DELETE,
	KEYS_PASTE,      /* paste, paste_len: the pasted text */
	KEYS_WHEEL_UP,   /* x, y: 1-based cell of the pointer */
	KEYS_WHEEL_DOWN,
	KEYS_MOUSE,      /* another mouse report (ignored by the views) */
	KEYS_UNKNOWN     /* a consumed sequence hearth does not use */
};

enum {
	KEYS_MOD_SHIFT = 1,
	KEYS_MOD_ALT = 2,
	KEYS_MOD_CTRL = 4
};

struct keys_event {
	enum keys_kind kind;
	unsigned mods;
	uint32_t cp;     /* KEYS_CHAR: the code point ('a'..'z' with CTRL) */
	char utf8[5];    /* KEYS_CHAR: cp as UTF-8, NUL-terminated */
	const char *paste;
	size_t paste_len;
	int x, y;        /* mouse events */
};

struct keys {
	struct buf in;    /* bytes not yet decoded */
	size_t pos;       /* decoded up to here */
	struct buf paste; /* the paste being collected / last delivered */
	int in_paste;
};

void keys_init(struct keys *k);
void keys_release(struct keys *k);
/* Append n input bytes. */
void keys_feed(struct keys *k, const char *s, size_t n);
/*
 * Decode the next event into *ev: 1 when one was decoded, 0 when the
 * bytes held so far do not make a whole event (feed more, or see
 * keys_waiting).
 */
int keys_next(struct keys *k, struct keys_event *ev);
/* Whether held bytes start with ESC and wait for the Esc timer (not inside a paste). */
int keys_waiting(const struct keys *k);
/*
 * The Esc timer fired: decode the held bytes as standalone keys.  Returns
 * 1 with the first resulting event (call keys_next for the rest), 0 if
 * nothing was held.
 */
int keys_flush(struct keys *k, struct keys_event *ev);
/*
 * A short name for ev ("a", "C-a", "M-x", "M-Enter", "S-Tab", "Up",
 * "C-Up", "PgDn", "paste(12)", "WheelUp") written into out (always
 * NUL-terminated).  For logs, tests and key-binding tables.
 */
void keys_name(const struct keys_event *ev, char *out, size_t size);

#endif

/*
 * ui/term/keys: terminal input bytes → key events (see ui/term/keys.h).
 *
 * State: `in` holds fed bytes, `pos` the first one not yet decoded.  Each
 * decode step looks at in[pos..] and either consumes a whole event, or
 * reports NEED (the bytes are a proper prefix of a longer sequence) and
 * consumes nothing — so a sequence split anywhere decodes exactly as if it
 * had arrived whole.  In flush mode NEED is never answered: the first held
 * byte is taken on its own.  During a paste the bytes go to `paste` as
 * they come (only a possible partial end marker stays in `in`), so memory
 * is one copy of the paste.
 */
#include "ui/term/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/grid.h"

#define ESC 0x1b
#define CSI_MAX 64
#define PASTE_END "\x1b[201~"
#define PASTE_END_LEN 6

enum { NEED = -1 };

/* Set up an empty decoder. */
void
keys_init(struct keys *k)
{
	buf_init(&k->in, 0);
	buf_init(&k->paste, 0);
	k->pos = 0;
	k->in_paste = 0;
}

/* Free the buffers. */
void
keys_release(struct keys *k)
{
	buf_release(&k->in);
	buf_release(&k->paste);
	k->pos = 0;
	k->in_paste = 0;
}

/* Append input, dropping what was decoded already. */
void
keys_feed(struct keys *k, const char *s, size_t n)
{
	if (k->pos > 0) {
		buf_remove(&k->in, 0, k->pos);
		k->pos = 0;
	}
	buf_add(&k->in, s, n);
}

/* A plain event of `kind`. */
static void
ev_set(struct keys_event *ev, enum keys_kind kind, unsigned mods)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->mods = mods;
}

/* A character event for code point cp (encoded as UTF-8 in utf8). */
static void
ev_char(struct keys_event *ev, uint32_t cp, unsigned mods)
{
	ev_set(ev, KEYS_CHAR, mods);
	ev->cp = cp;
	if (cp < 0x80) {
		ev->utf8[0] = (char)cp;
	} else if (cp < 0x800) {
		ev->utf8[0] = (char)(0xc0 | cp >> 6);
		ev->utf8[1] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		ev->utf8[0] = (char)(0xe0 | cp >> 12);
		ev->utf8[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		ev->utf8[2] = (char)(0x80 | (cp & 0x3f));
	} else {
		ev->utf8[0] = (char)(0xf0 | cp >> 18);
		ev->utf8[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		ev->utf8[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		ev->utf8[3] = (char)(0x80 | (cp & 0x3f));
	}
}

/* Whether the n bytes at s could still grow into valid UTF-8. */
static int
utf8_prefix(const unsigned char *s, size_t n)
{
	size_t need, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n < need;
}

/* Decode one key that does not start with ESC: bytes used, or NEED. */
static int
decode_plain(const unsigned char *s, size_t n, int final, unsigned mods,
    struct keys_event *ev)
{
	static const char ctl[] = "\\]^_";
	uint32_t cp;
	size_t k;

	if (s[0] == '\r')
		ev_set(ev, KEYS_ENTER, mods);
	else if (s[0] == '\t')
		ev_set(ev, KEYS_TAB, mods);
	else if (s[0] == 0x7f || s[0] == 0x08)
		ev_set(ev, KEYS_BACKSPACE, mods);
	else if (s[0] == 0)
		ev_char(ev, ' ', mods | KEYS_MOD_CTRL);
	else if (s[0] < 0x1b)
		ev_char(ev, 'a' + s[0] - 1, mods | KEYS_MOD_CTRL);
	else if (s[0] < 0x20)
		ev_char(ev, (unsigned char)ctl[s[0] - 0x1c], mods | KEYS_MOD_CTRL);
	else if (s[0] < 0x80)
		ev_char(ev, s[0], mods);
	else {
		k = grid_utf8_decode((const char *)s, n, &cp);
		if (!k && !final && utf8_prefix(s, n))
			return NEED;
		if (!k) {
			cp = 0xfffd;
			k = 1;
		}
		if (cp >= 0x80 && cp < 0xa0)
			ev_set(ev, KEYS_UNKNOWN, mods);
		else
			ev_char(ev, cp, mods);
		return (int)k;
	}
	return 1;
}

/* Parse up to 4 numeric parameters "a;b;c"; missing ones are 0. */
static void
csi_params(const unsigned char *p, size_t n, long out[4])
{
	size_t i;
	int j = 0;

	memset(out, 0, 4 * sizeof out[0]);
	for (i = 0; i < n && j < 4; i++) {
		if (p[i] == ';')
			j++;
		else if (p[i] >= '0' && p[i] <= '9' && out[j] < 100000)
			out[j] = out[j] * 10 + (p[i] - '0');
	}
}

/* Modifier bits from an xterm modifier parameter (1 + bits). */
static unsigned
csi_mods(long m)
{
	return m > 1 ? (unsigned)(m - 1) & (KEYS_MOD_SHIFT | KEYS_MOD_ALT | KEYS_MOD_CTRL) : 0;
}

/* SGR mouse report "<b;x;y" with final M (press) or m (release). */
static void
csi_mouse(const unsigned char *p, size_t n, unsigned char fin, struct keys_event *ev)
{
	long v[4];
	long b;

	csi_params(p + 1, n - 1, v);
	b = v[0] & ~(long)(4 | 8 | 16);
	if (fin == 'M' && b == 64)
		ev_set(ev, KEYS_WHEEL_UP, csi_mods(1 + (v[0] >> 2 & 7)));
	else if (fin == 'M' && b == 65)
		ev_set(ev, KEYS_WHEEL_DOWN, csi_mods(1 + (v[0] >> 2 & 7)));
	else
		ev_set(ev, KEYS_MOUSE, 0);
	ev->x = (int)v[1];
	ev->y = (int)v[2];
}

/* "ESC [ n ~" keys. */
static enum keys_kind
tilde_key(long n)
{
	switch (n) {
	case 1: case 7: return KEYS_HOME;
	case 4: case 8: return KEYS_END;
	case 2: return KEYS_INSERT;
	case 3: return KEYS_DELETE;
	case 5: return KEYS_PGUP;
	case 6: return KEYS_PGDN;
	default: return KEYS_UNKNOWN;
	}
}

/* Kitty/xterm "ESC [ cp ; mods u" keys. */
static void
csi_u(long cp, unsigned mods, struct keys_event *ev)
{
	if (cp == 13)
		ev_set(ev, KEYS_ENTER, mods);
	else if (cp == 9)
		ev_set(ev, KEYS_TAB, mods);
	else if (cp == 127 || cp == 8)
		ev_set(ev, KEYS_BACKSPACE, mods);
	else if (cp == 27)
		ev_set(ev, KEYS_ESC, mods);
	else if (cp >= 0x20 && cp <= 0x10ffff && !(cp >= 0x7f && cp < 0xa0) &&
	    !(cp >= 0xd800 && cp < 0xe000))
		ev_char(ev, (uint32_t)cp, mods);
	else
		ev_set(ev, KEYS_UNKNOWN, mods);
}

/* Interpret a complete CSI: params p[0..n), final byte fin. */
static void
csi_key(const unsigned char *p, size_t n, unsigned char fin, struct keys_event *ev)
{
	static const char arrows[] = "ABCDHFZ";
	static const enum keys_kind kinds[] = { KEYS_UP, KEYS_DOWN, KEYS_RIGHT, KEYS_LEFT,
		KEYS_HOME, KEYS_END, KEYS_TAB };
	const char *a;
	long v[4];

	if (n > 0 && p[0] == '<' && (fin == 'M' || fin == 'm')) {
		csi_mouse(p, n, fin, ev);
		return;
	}
	csi_params(p, n, v);
	if (n > 0 && (p[0] < '0' || p[0] > ';')) /* private prefixes < = > ? */
		ev_set(ev, KEYS_UNKNOWN, 0);
	else if (fin == '~')
		ev_set(ev, tilde_key(v[0]), csi_mods(v[1]));
	else if (fin == 'u')
		csi_u(v[0], csi_mods(v[1]), ev);
	else if ((a = strchr(arrows, fin)) != NULL)
		ev_set(ev, kinds[a - arrows], fin == 'Z' ? KEYS_MOD_SHIFT : csi_mods(v[1]));
	else
		ev_set(ev, KEYS_UNKNOWN, 0);
}

/* Decode "ESC [ ..." at s (n bytes, n >= 2): bytes used or NEED. */
static int
decode_csi(const unsigned char *s, size_t n, int final, struct keys_event *ev)
{
	size_t i = 2;

	while (i < n && i < CSI_MAX && s[i] >= 0x20 && s[i] <= 0x3f)
		i++;
	if (i >= CSI_MAX) {
		ev_set(ev, KEYS_UNKNOWN, 0);
		return (int)i;
	}
	if (i == n)
		return final ? 1 : NEED;
	if (s[i] < 0x40 || s[i] > 0x7e) { /* malformed: drop the introducer only */
		ev_set(ev, KEYS_UNKNOWN, 0);
		return (int)i;
	}
	if (i == 2 && s[i] == 'M') { /* X10 mouse: three raw bytes follow */
		if (n < 6)
			return final ? 1 : NEED;
		ev_set(ev, KEYS_MOUSE, 0);
		return 6;
	}
	csi_key(s + 2, i - 2, s[i], ev);
	return (int)i + 1;
}

/* Decode "ESC O x" (application cursor keys). */
static int
decode_ss3(const unsigned char *s, size_t n, int final, struct keys_event *ev)
{
	static const char keys[] = "ABCDHF";
	static const enum keys_kind kinds[] = { KEYS_UP, KEYS_DOWN, KEYS_RIGHT, KEYS_LEFT,
		KEYS_HOME, KEYS_END };
	const char *a;

	if (n < 3)
		return final ? 1 : NEED;
	if ((a = strchr(keys, s[2])) != NULL && s[2])
		ev_set(ev, kinds[a - keys], 0);
	else if (s[2] == 'M')
		ev_set(ev, KEYS_ENTER, 0); /* keypad Enter */
	else
		ev_set(ev, KEYS_UNKNOWN, 0);
	return 3;
}

/* Decode a sequence starting with ESC; a return of 1 with NEED avoided is a lone ESC. */
static int
decode_esc(const unsigned char *s, size_t n, int final, struct keys_event *ev)
{
	int r;

	if (n == 1) {
		if (!final)
			return NEED;
		ev_set(ev, KEYS_ESC, 0);
		return 1;
	}
	if (s[1] == '[')
		r = decode_csi(s, n, final, ev);
	else if (s[1] == 'O')
		r = decode_ss3(s, n, final, ev);
	else if (s[1] == ESC)
		r = 1;
	else if ((r = decode_plain(s + 1, n - 1, final, KEYS_MOD_ALT, ev)) > 0)
		r++;
	if (r == 1) /* ESC on its own (flush, or ESC ESC) */
		ev_set(ev, KEYS_ESC, 0);
	return r;
}

/* Turn CR LF and lone CR into LF, in place. */
static void
paste_newlines(struct buf *b)
{
	size_t i, j = 0;

	for (i = 0; i < b->len; i++) {
		if (b->data[i] == '\r') {
			b->data[j++] = '\n';
			if (i + 1 < b->len && b->data[i + 1] == '\n')
				i++;
		} else {
			b->data[j++] = b->data[i];
		}
	}
	buf_setlen(b, j);
}

/* Move pasted bytes out of `in`; 1 with a PASTE event when the end marker came. */
static int
paste_step(struct keys *k, struct keys_event *ev)
{
	const char *s = k->in.data + k->pos;
	size_t n = k->in.len - k->pos, i, keep;

	for (i = 0; i + PASTE_END_LEN <= n; i++)
		if (s[i] == ESC && memcmp(s + i, PASTE_END, PASTE_END_LEN) == 0)
			break;
	if (i + PASTE_END_LEN <= n) {
		buf_add(&k->paste, s, i);
		k->pos += i + PASTE_END_LEN;
		k->in_paste = 0;
		paste_newlines(&k->paste);
		ev_set(ev, KEYS_PASTE, 0);
		ev->paste = k->paste.data;
		ev->paste_len = k->paste.len;
		return 1;
	}
	for (keep = n < PASTE_END_LEN - 1 ? n : PASTE_END_LEN - 1; keep > 0; keep--)
		if (memcmp(s + n - keep, PASTE_END, keep) == 0)
			break;
	buf_add(&k->paste, s, n - keep);
	k->pos += n - keep;
	return 0;
}

/* One decode step shared by keys_next and keys_flush. */
static int
decode(struct keys *k, struct keys_event *ev, int final)
{
	const unsigned char *s;
	size_t n;
	int r;

	for (;;) {
		if (k->in_paste)
			return paste_step(k, ev);
		s = (const unsigned char *)k->in.data + k->pos;
		n = k->in.len - k->pos;
		if (n == 0)
			return 0;
		r = s[0] == ESC ? decode_esc(s, n, final, ev) : decode_plain(s, n, final, 0, ev);
		if (r == NEED)
			return 0;
		k->pos += (size_t)r;
		if (ev->kind == KEYS_UNKNOWN && r >= 6 && memcmp(s, "\x1b[200~", 6) == 0) {
			k->in_paste = 1;
			buf_reset(&k->paste);
			continue;
		}
		return 1;
	}
}

/* Next event from the bytes held. */
int
keys_next(struct keys *k, struct keys_event *ev)
{
	ev_set(ev, KEYS_NONE, 0);
	return decode(k, ev, 0);
}

/* Held bytes that wait for more input or the Esc timer. */
int
keys_waiting(const struct keys *k)
{
	return !k->in_paste && k->pos < k->in.len;
}

/* Esc timer: take the first held bytes on their own. */
int
keys_flush(struct keys *k, struct keys_event *ev)
{
	ev_set(ev, KEYS_NONE, 0);
	if (k->in_paste)
		return 0;
	return decode(k, ev, 1);
}

/* Printable name of a key kind. */
static const char *
kind_name(enum keys_kind kind)
{
	static const char *const names[] = { "None", "Char", "Enter", "Tab", "Backspace",
		"Esc", "Up", "Down", "Left", "Right", "Home", "End", "PgUp", "PgDn", "Insert",
		"Delete", "Paste", "WheelUp", "WheelDown", "Mouse", "Unknown" };

	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* Short name like "C-a" or "M-Enter". */
void
keys_name(const struct keys_event *ev, char *out, size_t size)
{
	char mods[8];

	snprintf(mods, sizeof mods, "%s%s%s", ev->mods & KEYS_MOD_CTRL ? "C-" : "",
	    ev->mods & KEYS_MOD_ALT ? "M-" : "", ev->mods & KEYS_MOD_SHIFT ? "S-" : "");
	if (ev->kind == KEYS_CHAR)
		snprintf(out, size, "%s%s", mods, ev->utf8);
	else if (ev->kind == KEYS_PASTE)
		snprintf(out, size, "paste(%zu)", ev->paste_len);
	else
		snprintf(out, size, "%s%s", mods, kind_name(ev->kind));
}

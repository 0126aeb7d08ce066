/*
 * ui/view/highlight: syntax colours for the views — fenced code blocks and the rows
 * of a diff — on top of code_highlight (code/code.h).
 *
 * Roles: a span's capture maps to a theme role through the theme set with
 * highlight_set_theme (its "captures" table, ui/term/theme.h), or through syn's own
 * kind table when none is set.  A diff row combines them with its +/-
 * background through THEME_MIX (ui/term/theme.h).
 *
 * Views are redrawn from their state every frame, so highlighting results
 * are cached: the last HIGHLIGHT_CACHE texts (keyed by language and the bytes
 * themselves) keep their per-byte roles.  A text that cannot be
 * highlighted (unknown language, empty query, over CODE_HL_MAX_BYTES) is
 * drawn plain; a text cut by code_highlight's time bound is coloured up to
 * the cut.
 *
 * Lifetime: the cache lives until highlight_reset() (the UI calls it when it
 * ends; tests call it to start clean).  Pointers returned by highlight_roles
 * are valid until the next highlight_* call.
 */
#ifndef HEARTH_UI_VIEW_HIGHLIGHT_H
#define HEARTH_UI_VIEW_HIGHLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/diff.h"
#include "ui/term/grid.h"
#include "code/code.h"
#include "ui/term/theme.h"

#define HIGHLIGHT_CACHE 16

/* Use th's captures map from now on (NULL: syn's kinds); th is borrowed. */
void highlight_set_theme(const struct theme *th);
/* Free the cache. */
void highlight_reset(void);

/*
 * One role per byte of text[0..n) as lang (THEME_TEXT where plain), or
 * NULL when the whole text is plain (lang NULL or not highlightable).
 */
const uint16_t *highlight_roles(const struct code_lang *lang, const char *text, size_t n);
/*
 * The same for a code block still streaming (its closing fence not come):
 * each call's text extends the last one's, and a whole colouring per frame
 * would cost the block's length (tree-sitter parses a growing text again in
 * time linear in its length, even incrementally).  So the text is coloured
 * in chunks of about HIGHLIGHT_CHUNK bytes, cut at line starts: a full
 * chunk once, the tail after the last one each call.  Each chunk is parsed
 * without the ones before it (a construct open across a chunk's start is
 * coloured as its own text would be); once the block is whole, the caller
 * asks highlight_roles, which colours it in one piece.  Same lifetime.
 */
#define HIGHLIGHT_CHUNK 4096
const uint16_t *highlight_roles_growing(const struct code_lang *lang, const char *text, size_t n);

/*
 * Draw one line of code at (x, y) in at most w columns ("…" when cut):
 * tabs expanded to 8-column stops, byte i in roles[i] (roles NULL: all in
 * base; a THEME_TEXT entry also takes base).  Returns the columns drawn.
 */
int highlight_line(struct grid *g, int x, int y, int w, const char *s, size_t n,
    const uint16_t *roles, uint16_t base);

/* Syntax roles of the two sides of a unified diff (old: '-' and context, new: '+' and context). */
struct highlight_diff {
	size_t *off;       /* per diff line: offset of its text in its side (SIZE_MAX: none) */
	uint16_t *side[2]; /* per byte of each side (NULL: plain); 0 old, 1 new */
	size_t nlines;
};

/*
 * Highlight the sides of the diff whose lines are ls[k] (ln[k] bytes,
 * with their +/-/space sign) in the language of its "+++ " file name.
 * Never fails: an unknown language leaves both sides plain.
 */
void highlight_diff_init(struct highlight_diff *d, const char *const *ls, const size_t *ln, size_t nl);
/* Roles of line k's text (after the sign), or NULL when plain. */
const uint16_t *highlight_diff_line(const struct highlight_diff *d, const char *const *ls,
    const size_t *ln, size_t k);
void highlight_diff_release(struct highlight_diff *d);

/* Syntax roles of the lines of a parsed diff (base/diff.h), for the diff viewer. */
struct highlight_lines {
	const uint16_t **line; /* per d->lines[k]: roles of its text, or NULL (plain) */
	uint16_t *side[2];     /* owned: old and new side */
	size_t n;
};

/*
 * Highlight both sides of d (old: context and removed lines; new: context
 * and added lines) in the language of path, once (not through the cache:
 * the viewer keeps the result while it is open).  Never fails.
 */
void highlight_lines_init(struct highlight_lines *h, const struct diff *d, const char *path);
void highlight_lines_release(struct highlight_lines *h);

/*
 * Draw a diff line's text s[0..n) at (x, y) in at most w columns: tabs to
 * 4-column stops, bytes [0, pre) and [n - suf, n) in role, the changed
 * span between in wrole, with syntax roles syn (NULL: none) mixed over
 * them (THEME_MIX; plain on THEME_TEXT lines).  Returns the columns drawn.
 */
int highlight_diff_text(struct grid *g, int x, int y, int w, const char *s, size_t n,
    const uint16_t *syn, size_t pre, size_t suf, uint16_t role, uint16_t wrole);

#endif

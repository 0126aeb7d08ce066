/*
 * ui/term/grid: the in-memory screen every view draws into (design.md §7).
 *
 * A grid is w×h cells in row-major order.  A cell holds one grapheme as
 * NUL-terminated UTF-8 (a base character plus the combining marks that
 * follow it, at most GRID_CELL_BYTES bytes; marks beyond that are
 * dropped), its display width and a style id (a theme role, ui/term/theme.h).
 *
 * Invariants, kept by every function here whatever the caller passes:
 * - a cell of width 2 at x is followed by a padding cell at x+1 (width 0,
 *   empty text, same style); a padding cell is never at x == 0 and never
 *   without its lead; a wide character never straddles the right edge;
 * - no cell holds a C0/C1 control byte, DEL, a bidi override/isolate or
 *   invalid UTF-8 (anything unprintable is stored as U+FFFD; such marks
 *   are dropped), so a backend can copy cells out verbatim;
 * - grid_dirty(y) is true when row y differs from what it held at its
 *   last grid_clean(y) (what the backend last showed), or after a resize or
 *   grid_touch().  A view may clear and redraw a whole frame every pass:
 *   only rows whose final content changed are blitted.
 *
 * Widths come from wcwidth(3): the caller must have called
 * setlocale(LC_CTYPE, "") (or a UTF-8 locale) first.  Grapheme clusters
 * are approximated as "a character plus its zero-width followers"; emoji
 * ZWJ sequences are shown as their parts.
 *
 * Lifetime: grid_new()/grid_free(); allocation failure is fatal.
 */
#ifndef HEARTH_UI_TERM_GRID_H
#define HEARTH_UI_TERM_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define GRID_CELL_BYTES 15

struct grid_cell {
	char text[GRID_CELL_BYTES + 1]; /* "" for a padding cell */
	uint8_t width;                  /* 1 or 2; 0 for a padding cell */
	uint16_t style;                 /* theme role id */
};

struct grid {
	int w, h;
	struct grid_cell *cells; /* w*h, row-major */
	struct grid_cell *front; /* w*h: rows as of their last grid_clean */
	unsigned char *dirty;    /* h entries: 0 clean, 1 written, 2 forced */
};

/* A rectangle of cells; views receive one and draw inside it. */
struct grid_rect {
	int x, y, w, h;
};

/* New grid of blank cells (style 0), every row dirty.  w, h < 0 count as 0. */
struct grid *grid_new(int w, int h);
/* Free g (NULL ok). */
void grid_free(struct grid *g);
/*
 * Change the size keeping the cells that still fit (top-left anchored);
 * a wide character cut by the new right edge becomes a space.  New cells
 * are blank with style 0.  Every row is marked dirty.
 */
void grid_resize(struct grid *g, int w, int h);
/* Blank every cell with `style` (rows that change are marked dirty). */
void grid_clear(struct grid *g, uint16_t style);
/* Blank the cells of r (clipped to the grid) with `style`. */
void grid_clear_rect(struct grid *g, struct grid_rect r, uint16_t style);

/* The cell at (x, y), or NULL outside the grid.  Read-only access. */
const struct grid_cell *grid_at(const struct grid *g, int x, int y);
/*
 * Put one printable character (n bytes of UTF-8, optionally followed by
 * combining marks) of display width `width` (1 or 2) at (x, y).  A
 * character that is not printable is stored as U+FFFD.  A wide character
 * at the last column is replaced by a space.  Overwriting half of a wide
 * character blanks its other half.  Returns the columns used (0 when
 * (x, y) is outside the grid).
 */
int grid_put_char(struct grid *g, int x, int y, const char *s, size_t n,
    int width, uint16_t style);
/*
 * Append a zero-width mark (UTF-8) to the grapheme at (x, y) — or at its
 * lead when (x, y) is a padding cell.  Dropped when the cell is blank
 * padding, outside the grid, or full.
 */
void grid_attach(struct grid *g, int x, int y, const char *s, size_t n);
/*
 * Put n bytes of UTF-8 at (x, y) on one row, clipping at the right edge
 * and at x + maxw (maxw < 0: no limit).  Widths come from wcwidth;
 * combining marks attach to the previous cell; control bytes and invalid
 * UTF-8 become U+FFFD (use ui/term/draw.h for text from the model: it shows
 * escapes visibly instead).  Returns the column after the last cell
 * written.
 */
int grid_put(struct grid *g, int x, int y, int maxw, const char *s, size_t n,
    uint16_t style);

/* Whether row y changed since its last grid_clean (0 outside the grid). */
int grid_dirty(const struct grid *g, int y);
/* Mark every row dirty (after a backend lost its screen, e.g. resume). */
void grid_touch(struct grid *g);
/* Record row y as shown (y < 0: all rows); backends call it after blitting. */
void grid_clean(struct grid *g, int y);

/*
 * Decode one UTF-8 character at s (n > 0 bytes): stores the code point
 * and returns its length (1–4), or 0 when the bytes are invalid or
 * truncated.  Shared by draw and keys.
 */
size_t grid_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Display width of code point cp: wcwidth(3), -1 when unprintable. */
int grid_cp_width(uint32_t cp);

/* Append row y's text with trailing spaces trimmed (snapshots, the text backend). */
void grid_row_text(const struct grid *g, int y, struct buf *out);

#endif

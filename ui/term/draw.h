/*
 * ui/term/draw: text into the grid — sanitising, wrapping, truncating, boxes.
 *
 * Every function here takes raw bytes (model output, tool output, file
 * names) and sanitises them on entry (design.md §7), so nothing from the
 * model can reach the terminal raw:
 *   ESC and other C0 bytes  → ^[ ^A … (caret notation, two cells), DEL → ^?
 *   C1 code points U+0080–U+009F and bidi overrides/isolates
 *                           → <U+009B>  (as sanitize_term does)
 *   invalid UTF-8 (per maximal bad byte) and unprintable code points → U+FFFD
 *   '\t'                    → spaces to the next multiple of 8 columns
 *                             (counted from the start of the row)
 *   '\n'                    → a line break in draw_wrap/draw_measure;
 *                             ^J in the one-row functions
 * An escape sequence is therefore shown as text ("^[[2J"), never acted on.
 *
 * Widths are wcwidth(3) columns (setlocale is the caller's job, ui/term/grid.h).
 * All drawing is clipped to the grid; nothing here fails or allocates
 * beyond a small per-call scratch.
 */
#ifndef HEARTH_UI_TERM_DRAW_H
#define HEARTH_UI_TERM_DRAW_H

#include <stddef.h>
#include <stdint.h>

#include "ui/term/grid.h"

/*
 * Word-wrap n bytes of s to r.w columns and draw the rows numbered
 * skip .. skip+r.h-1 of the result at r (so a view can show the middle of
 * a long paragraph).  Lines break at spaces; a word longer than the width
 * is broken between characters; a wide character never straddles a break;
 * spaces at a break are dropped.  Returns the total number of rows the
 * text needs at this width (>= 1, also for empty text), drawn or not.
 */
int draw_wrap(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n,
    uint16_t style);
/* Rows draw_wrap would use at `width` columns, without drawing. */
int draw_measure(int width, const char *s, size_t n);

/*
 * One row: draw at (x, y), at most maxw columns (clipped, no ellipsis).
 * Returns the columns drawn.
 */
int draw_text(struct grid *g, int x, int y, int maxw, const char *s, size_t n,
    uint16_t style);
/*
 * One row cut to w columns: when the sanitised text is wider than w it is
 * cut and ends with "…" (the result is exactly w columns or less).
 * Returns the columns drawn.
 */
int draw_trunc(struct grid *g, int x, int y, int w, const char *s, size_t n,
    uint16_t style);
/* Display width of s on one row after sanitising (tabs from column 0). */
int draw_width(const char *s, size_t n);

/* Fill r with copies of the one-column character ch (UTF-8, e.g. " " or "░"). */
void draw_fill(struct grid *g, struct grid_rect r, const char *ch, uint16_t style);
/* A horizontal rule of w cells "─" from (x, y). */
void draw_hline(struct grid *g, int x, int y, int w, uint16_t style);
/* A vertical rule of h cells "│" from (x, y). */
void draw_vline(struct grid *g, int x, int y, int h, uint16_t style);
/* A single-line box on the border of r (r.w, r.h >= 2; inside untouched). */
void draw_box(struct grid *g, struct grid_rect r, uint16_t style);
/*
 * Line-drawing characters: UTF-8 box drawing by default; ASCII (- | +)
 * when the locale cannot show them (the caller decides, once).
 */
void draw_set_ascii(int ascii);

#endif

/*
 * ui/view/markdown: the basics of an assistant answer, line by line, into the grid.
 *
 * Also the diff rows shown under an edit (markdown_diff), as a ```diff
 * fence would be.
 *
 * Block level (markdown_line): ATX headings, "- " / "* " / "1. " list
 * items, ``` fences and the code lines between them, everything else a
 * paragraph line; pipe tables (markdown_table) are found by the caller.  Inline level (markdown_wrap): **bold**, *italic* and
 * `code` spans are drawn in their own roles with the markers removed; an
 * unclosed marker is shown as written.  Text is sanitised by ui/term/draw.h.
 *
 * The theme has no markdown roles yet, so spans borrow existing ones
 * (MARKDOWN_* below).  Fenced code is coloured by syntax (ui/view/highlight.h) in the
 * language of the fence's info string, the whole block highlighted at
 * once so multi-line comments and strings come out right; unknown
 * languages are drawn in MARKDOWN_CODE_BLOCK.  Diff rows get the syntax
 * colours of their file's language over their +/- backgrounds.
 */
#ifndef HEARTH_UI_VIEW_MARKDOWN_H
#define HEARTH_UI_VIEW_MARKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "ui/term/grid.h"
#include "ui/term/theme.h"

#define MARKDOWN_BOLD THEME_ACCENT
#define MARKDOWN_ITALIC THEME_REASONING
#define MARKDOWN_CODE THEME_STRING
#define MARKDOWN_HEADING THEME_ACCENT
#define MARKDOWN_CODE_BLOCK THEME_TEXT

enum markdown_kind {
	MARKDOWN_PARA, MARKDOWN_HEADING_LINE, MARKDOWN_ITEM, MARKDOWN_FENCE,
	MARKDOWN_CODE_LINE, MARKDOWN_BLANK
};

struct markdown_line {
	enum markdown_kind kind;
	size_t off;       /* where the content starts in the line */
	int level;        /* heading level, or list nesting (leading spaces / 2) */
	char bullet[8];   /* ITEM: "•" or "1." */
};

/* Fence state carried from line to line of one message. */
struct markdown_state {
	int in_fence;
	char lang[24];
};

/* Classify one line (no '\n'), updating the fence state. */
void markdown_line(struct markdown_state *st, const char *s, size_t n,
    struct markdown_line *out);

/*
 * Word-wrap one line of inline markdown to r.w columns and draw the rows
 * skip .. skip+r.h-1 at r (g NULL: measure only).  Returns the rows the
 * line needs (>= 1).  base is the role of unmarked text.
 */
int markdown_wrap(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n,
    uint16_t base);
/*
 * Measure s as markdown_wrap at w columns (returns the rows) and report
 * where a layout may resume: the first row at or after row `every` that
 * starts with a word wrapped there, then the first at least `every` rows
 * after that one, and so on: mark(arg, off, row) with the source offset of
 * that word.  markdown_wrap of s[off..n) from column 0 then lays out exactly
 * rows row.. of s, now and after any text appended to s: only rows whose
 * word is whole (more text follows it), starts outside a styled span, and
 * comes before any '*' or '`' that later text could still turn into a
 * span are reported.  A long paragraph streamed without a line break is
 * laid out from the last such point instead of its start.
 */
int markdown_wrap_marks(int w, const char *s, size_t n, uint16_t base, int every,
    void (*mark)(void *arg, size_t off, int row), void *arg);

/*
 * Draw a unified diff into r, rows skip .. skip+r.h-1 (g NULL: measure
 * only); returns the rows it needs.  File headers are dropped; each line
 * is one row "  41 - text" (cut at the width): the number in
 * THEME_LINE_NO (old numbers for '-', new for '+' and context), the line
 * in THEME_DIFF_DEL / THEME_DIFF_ADD, and for the i-th '-' and i-th '+'
 * of a change block the changed span (after the common prefix and suffix,
 * widened to whole tokens) in THEME_DIFF_DEL_WORD / THEME_DIFF_ADD_WORD.
 * A later hunk starts with a "⋯" row.  fold > 0 shows at most fold rows
 * and then "… N more lines (ctrl-o)".
 */
int markdown_diff(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n,
    int fold);
/*
 * The changed span of line a against its partner b (both without the
 * +/- sign), as markdown_diff highlights it: a[*pre .. an - *suf) differs,
 * the common prefix and suffix widened to whole tokens.
 */
void markdown_diff_span(const char *a, size_t an, const char *b, size_t bn, size_t *pre,
    size_t *suf);
/* Count the '+' and '-' lines of a unified diff (headers excluded). */
void markdown_diff_counts(const char *s, size_t n, long *add, long *del);

/*
 * Pipe tables (GFM): markdown_table_len is the bytes of the table at the
 * start of s — a row with '|', a delimiter row ("|---|:-:|") of as many
 * cells, and the rows with '|' after it — or 0 when s does not start one
 * (a streamed table becomes one when its delimiter row arrives).
 * markdown_table draws it into r from row skip (g NULL: measure only) and
 * returns its rows: one per table row plus the rule under the header;
 * cells without their ** __ ` markers, aligned as the delimiter says, the
 * header in MARKDOWN_HEADING, " │ " between cells; a table wider than r
 * narrows its widest columns (to 3) and cuts their cells with "…".
 */
size_t markdown_table_len(const char *s, size_t n);
int markdown_table(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n);

/*
 * Bytes of a fenced block's body starting at s (the line after the opening
 * fence): up to the start of the closing fence line, or n when the fence
 * is not closed yet (a streaming answer).
 */
size_t markdown_fence_body(const char *s, size_t n);
/*
 * Draw code line line[0..ln) at (x, y) in w columns ("…" when cut),
 * coloured as lang (a fence info string) in the context of its block
 * (block[0..bn), which must contain the line; NULL: the line alone).
 * growing: the block is still streaming (highlight_roles_growing).
 */
void markdown_code_line(struct grid *g, int x, int y, int w, const char *lang,
    const char *block, size_t bn, int growing, const char *line, size_t ln);

#endif

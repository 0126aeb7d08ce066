/*
 * ui/term/theme: semantic roles → colours and attributes (docs/themes.md).
 *
 * Views never name colours: a cell's style id is a role (enum
 * theme_role), and the theme says how each role looks on this terminal.
 * A theme is resolved for one colour depth when it is loaded: each style's
 * fg/bg is then either THEME_DEFAULT (the terminal's own colour), a
 * palette index valid for that depth (0–7 at THEME_DEPTH_8, 0–255 at
 * THEME_DEPTH_256), or, at THEME_DEPTH_TRUE only, THEME_RGB | 0xRRGGBB for a
 * colour the file gave as "#rrggbb" (the backend may still map it down with
 * theme_rgb_to_256 when the terminal cannot take direct colours).  At
 * THEME_DEPTH_NONE (NO_COLOR, or a terminal without colours) every fg/bg
 * is THEME_DEFAULT and only attributes remain, plus reverse video for
 * `selection` and the status-bar roles so they stay visible.
 *
 * A role missing from a file falls back as docs/themes.md says
 * (diff_add_word → diff_add, ctx_* → status_fg → status_bg, slot_* and
 * progress_* → dim, everything else → text).  The built-in theme is
 * compiled in (the same values as themes/default.json, which a test
 * checks), so a missing or broken file never stops hearth.
 *
 * Lifetime: a struct theme is a plain value (no allocation); copy freely.
 */
#ifndef HEARTH_UI_TERM_THEME_H
#define HEARTH_UI_TERM_THEME_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum theme_role {
	THEME_TEXT = 0, THEME_DIM, THEME_ACCENT, THEME_BORDER, THEME_SELECTION,
	THEME_ERROR, THEME_WARNING,
	THEME_USER, THEME_ASSISTANT, THEME_REASONING, THEME_TOOL_HEADER, THEME_TOOL_OK,
	THEME_TOOL_ERR,
	THEME_DIFF_ADD, THEME_DIFF_DEL, THEME_DIFF_ADD_WORD, THEME_DIFF_DEL_WORD,
	THEME_DIFF_HUNK, THEME_LINE_NO,
	THEME_STATUS_BG, THEME_STATUS_FG, THEME_CTX_OK, THEME_CTX_WARN, THEME_CTX_CRIT,
	THEME_PROGRESS_CACHED, THEME_PROGRESS_NEW, THEME_PROGRESS_EMPTY,
	THEME_SLOT_IDLE, THEME_SLOT_PREFILL, THEME_SLOT_DECODE,
	THEME_KEYWORD, THEME_STRING, THEME_COMMENT, THEME_NUMBER, THEME_FUNCTION,
	THEME_TYPE, THEME_VARIABLE, THEME_CONSTANT, THEME_OPERATOR, THEME_PUNCTUATION,
	THEME_ROLE_COUNT
};

enum theme_depth {
	THEME_DEPTH_NONE = 0, /* attributes only */
	THEME_DEPTH_8 = 8,
	THEME_DEPTH_256 = 256,
	THEME_DEPTH_TRUE = 16777216
};

#define THEME_DEFAULT (-1)
#define THEME_RGB 0x1000000

enum {
	THEME_BOLD = 1,
	THEME_DIM_ATTR = 2,
	THEME_ITALIC = 4,
	THEME_UNDERLINE = 8,
	THEME_REVERSE = 16
};

struct theme_style {
	int32_t fg, bg;  /* THEME_DEFAULT, a palette index, or THEME_RGB|rgb */
	unsigned attrs;  /* THEME_BOLD | ... */
};

#define THEME_NAME_MAX 64
#define THEME_CAPTURES_MAX 32

struct theme {
	char name[THEME_NAME_MAX];
	enum theme_depth depth;
	struct theme_style roles[THEME_ROLE_COUNT];
	/* "captures": first component of a tree-sitter capture → role */
	struct {
		char name[24];
		uint16_t role;
	} captures[THEME_CAPTURES_MAX];
	int ncaptures;
};

/*
 * A mixed style id (grid cells carry uint16 style ids): role fg's
 * foreground and attributes over role bg's background, for syntax colours
 * on a diff line.  Plain role ids are below THEME_ROLE_COUNT; a mix is
 * (bg + 1) << 8 | fg.  theme_style_of resolves either kind.
 */
#define THEME_MIX(fg, bg) ((uint16_t)(((unsigned)(bg) + 1u) << 8 | (unsigned)(fg)))
#define THEME_MIX_FG(style) ((int)((style) & 0xffu))
#define THEME_MIX_BG(style) ((int)((style) >> 8) - 1)

/*
 * The look of a style id: a role's style, or for a THEME_MIX the fg
 * role's foreground (the bg role's when the fg role has none or it would
 * equal the background, as at 8 colours) and attributes over the bg
 * role's background and attributes.  Out-of-range ids look like text.
 */
void theme_style_of(const struct theme *t, unsigned style, struct theme_style *out);

/* The built-in theme resolved for `depth`. */
void theme_default(struct theme *t, enum theme_depth depth);
/*
 * Load a theme file for `depth`.  On success 0.  On any failure (missing
 * file, invalid JSON, a value of the wrong type) -1, *t holds the built-in
 * theme, and e has one line starting "path:line:column: " for a syntax
 * error or "path: " otherwise, ending with "; using the built-in theme".
 * Unknown role names are logged (base/log.h) and ignored.
 */
int theme_load(struct theme *t, const char *path, enum theme_depth depth, struct err *e);
/* Parse a theme from n bytes of JSON; `path` is only used in messages. */
int theme_parse(struct theme *t, const char *path, const char *json, size_t n,
    enum theme_depth depth, struct err *e);

/*
 * Colour depth from the environment values given (any may be NULL):
 * NO_COLOR set and non-empty → NONE; COLORTERM truecolor/24bit → TRUE;
 * TERM containing "256color" or "direct" → 256 (TRUE for "direct");
 * TERM "dumb" or unset → NONE; other TERMs → 8.
 */
enum theme_depth theme_depth_detect(const char *term, const char *colorterm,
    const char *no_color);
/* theme_depth_detect on getenv("TERM"), getenv("COLORTERM"), getenv("NO_COLOR"). */
enum theme_depth theme_depth_env(void);

/* Role id for a name ("diff_add"), or -1 if unknown. */
int theme_role_by_name(const char *name);
/* Name of a role id ("text" for out-of-range ids). */
const char *theme_role_name(int role);
/*
 * Role for a tree-sitter capture name ("function.method" → THEME_FUNCTION,
 * "property" → the captures map, otherwise THEME_TEXT).
 */
int theme_capture_role(const struct theme *t, const char *capture);

/* Nearest xterm-256 index for 0xRRGGBB (cube or grey ramp, 16–255; a coloured shade never a grey). */
int theme_rgb_to_256(uint32_t rgb);
/* A palette index as #rrggbb (xterm's 256 colours; 0 outside 0..255). */
uint32_t theme_256_to_rgb(int idx);
/* Nearest of the 8 basic colours for a 256-colour index. */
int theme_256_to_8(int idx);

#endif

/*
 * fuzz_theme: libFuzzer harness for the theme loader (ui/term/theme.c,
 * theme_parse: the text of a theme file).  At every colour depth the
 * result, whether the text parsed or the built-in theme stood in, must be
 * usable as is: each role's colours fit the depth (THEME_DEFAULT; 0-7;
 * 0-255; or 0-255 / THEME_RGB|rgb in true colour), attributes are known
 * bits, the name and capture names are NUL-terminated, every capture maps
 * to a role, and a failure carries a message.
 *
 * dict: "\"name\""
 * dict: "\"extends\""
 * dict: "\"roles\""
 * dict: "\"captures\""
 * dict: "\"fg\""
 * dict: "\"bg\""
 * dict: "\"attrs\""
 * dict: "\"bold\""
 * dict: "\"reverse\""
 * dict: "\"#ff8800\""
 * dict: "\"default\""
 * dict: "\"keyword\""
 * dict: "\"diff_add_word\""
 * dict: "\"status_bg\""
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/theme.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether colour c is one a terminal of this depth can show. */
static int
color_ok(int32_t c, enum theme_depth depth)
{
	if (c == THEME_DEFAULT)
		return 1;
	switch (depth) {
	case THEME_DEPTH_NONE:
		return 0;
	case THEME_DEPTH_8:
		return c >= 0 && c < 8;
	case THEME_DEPTH_256:
		return c >= 0 && c < 256;
	case THEME_DEPTH_TRUE:
		return (c >= 0 && c < 256) || (c & ~0xffffff) == THEME_RGB;
	}
	return 0;
}

static void
check(const struct theme *t, enum theme_depth depth)
{
	unsigned all = THEME_BOLD | THEME_DIM_ATTR | THEME_ITALIC | THEME_UNDERLINE | THEME_REVERSE;
	struct theme_style st;
	int r, i;

	FUZZ_CHECK(t->depth == depth);
	FUZZ_CHECK(memchr(t->name, 0, sizeof t->name) != NULL);
	for (r = 0; r < THEME_ROLE_COUNT; r++) {
		FUZZ_CHECK(color_ok(t->roles[r].fg, depth));
		FUZZ_CHECK(color_ok(t->roles[r].bg, depth));
		FUZZ_CHECK((t->roles[r].attrs & ~all) == 0);
	}
	FUZZ_CHECK(t->ncaptures >= 0 && t->ncaptures <= THEME_CAPTURES_MAX);
	for (i = 0; i < t->ncaptures; i++) {
		FUZZ_CHECK(memchr(t->captures[i].name, 0, sizeof t->captures[i].name) != NULL);
		FUZZ_CHECK(t->captures[i].role < THEME_ROLE_COUNT);
		r = theme_capture_role(t, t->captures[i].name);
		FUZZ_CHECK(r >= 0 && r < THEME_ROLE_COUNT);
	}
	theme_style_of(t, THEME_MIX(THEME_KEYWORD, THEME_DIFF_ADD), &st);
	FUZZ_CHECK(color_ok(st.fg, depth) && color_ok(st.bg, depth));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum theme_depth depths[] = { THEME_DEPTH_NONE, THEME_DEPTH_8, THEME_DEPTH_256,
						   THEME_DEPTH_TRUE };
	struct theme t;
	size_t i;

	for (i = 0; i < sizeof depths / sizeof depths[0]; i++) {
		struct err e = ERR_INIT;

		if (theme_parse(&t, "fuzz.json", (const char *)data, size, depths[i], &e) < 0)
			FUZZ_CHECK(e.msg[0] != '\0');
		check(&t, depths[i]);
	}
	return 0;
}

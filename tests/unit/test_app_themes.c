/*
 * test_themesel: theme choice by name — the compiled-in shipped themes
 * match the files in themes/, user files override and extend the list, paths,
 * unknown names (a one-line error and the built-in theme), and /theme.
 * Run from the repository root (as make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sys/stat.h>

#include "ui/view/highlight.h"
#include "ui/app/themes.h"

static char tmp[64];

static int
setup(void **state)
{
	char d[128];

	(void)state;
	snprintf(tmp, sizeof tmp, "/tmp/hearth-themesel-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(d, sizeof d, "%s/hearth", tmp);
	mkdir(d, 0700);
	snprintf(d, sizeof d, "%s/hearth/themes", tmp);
	mkdir(d, 0700);
	setenv("XDG_CONFIG_HOME", tmp, 1);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write text to the user theme dir as NAME.json. */
static void
user_theme(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof p, "%s/hearth/themes/%s.json", tmp, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Each shipped theme gives the same styles compiled in as from its file. */
static void
test_shipped_match_files(void **state)
{
	static const char *const names[] = { "dark", "light", "high-contrast" };
	struct theme a, b;
	struct err e = ERR_INIT;
	char path[64];
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "themes/%s.json", names[i]);
		assert_int_equal(app_themes_load(&a, names[i], THEME_DEPTH_TRUE, &e), 0);
		assert_int_equal(theme_load(&b, path, THEME_DEPTH_TRUE, &e), 0);
		assert_string_equal(a.name, names[i]);
		assert_memory_equal(a.roles, b.roles, sizeof a.roles);
		assert_int_equal(a.ncaptures, b.ncaptures);
		assert_true(a.roles[THEME_KEYWORD].fg != a.roles[THEME_TEXT].fg);
		assert_true(a.roles[THEME_STRING].fg != THEME_DEFAULT);
		assert_true(a.roles[THEME_COMMENT].fg != THEME_DEFAULT);
	}
	assert_null(app_themes_shipped("nope"));
}

/* 256- and 8-colour depths map every syntax colour into range. */
static void
test_depths(void **state)
{
	static const char *const names[] = { "default", "dark", "light", "high-contrast" };
	struct theme t;
	struct err e = ERR_INIT;
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_int_equal(app_themes_load(&t, names[i], THEME_DEPTH_8, &e), 0);
		for (r = THEME_KEYWORD; r < THEME_ROLE_COUNT; r++)
			assert_true(t.roles[r].fg >= THEME_DEFAULT && t.roles[r].fg < 8);
		assert_int_equal(app_themes_load(&t, names[i], THEME_DEPTH_256, &e), 0);
		for (r = THEME_KEYWORD; r < THEME_ROLE_COUNT; r++)
			assert_true(t.roles[r].fg >= THEME_DEFAULT && t.roles[r].fg < 256);
	}
}

static void
test_unknown_and_user(void **state)
{
	struct theme t;
	struct err e = ERR_INIT;
	struct buf l = BUF_INIT;

	(void)state;
	assert_int_equal(app_themes_load(&t, "solarized", THEME_DEPTH_256, &e), -1);
	assert_non_null(strstr(e.msg, "unknown theme 'solarized'"));
	assert_non_null(strstr(e.msg, "high-contrast"));
	assert_string_equal(t.name, "default");
	user_theme("solarized", "{\"name\":\"solarized\",\"roles\":{\"keyword\":{\"fg\":33}}}");
	user_theme("dark", "{\"name\":\"my-dark\",\"roles\":{}}");
	user_theme("broken", "{\"roles\":");
	assert_int_equal(app_themes_load(&t, "solarized", THEME_DEPTH_256, &e), 0);
	assert_int_equal(t.roles[THEME_KEYWORD].fg, 33);
	assert_int_equal(app_themes_load(&t, "dark", THEME_DEPTH_256, &e), 0);
	assert_string_equal(t.name, "my-dark");
	assert_int_equal(app_themes_load(&t, "broken", THEME_DEPTH_256, &e), -1);
	assert_non_null(strstr(e.msg, "broken.json"));
	assert_string_equal(t.name, "default");
	assert_int_equal(app_themes_load(&t, "themes/light.json", THEME_DEPTH_256, &e), 0);
	assert_string_equal(t.name, "light");
	assert_int_equal(app_themes_load(&t, "/nonexistent/x.json", THEME_DEPTH_256, &e), -1);
	assert_int_equal(app_themes_load(&t, NULL, THEME_DEPTH_256, &e), 0);
	assert_string_equal(t.name, "default");
	app_themes_list(&l);
	assert_non_null(strstr(l.data, "default, dark, light, high-contrast"));
	assert_non_null(strstr(l.data, "solarized"));
	assert_null(strstr(l.data, "dark, dark"));
	buf_release(&l);
}

/* /theme lists, switches (the terminal gets the new styles), and refuses unknown names. */
static void
test_cmd(void **state)
{
	struct theme th;
	struct term *t = term_text_new(20, 3);
	struct grid *g = grid_new(20, 3);
	struct buf out = BUF_INIT;

	(void)state;
	theme_default(&th, THEME_DEPTH_256);
	assert_int_equal(app_themes_cmd(&th, t, g, "", &out), CMD_DONE);
	assert_non_null(strstr(out.data, "theme: default (available: default, dark"));
	buf_reset(&out);
	grid_clean(g, -1);
	assert_int_equal(app_themes_cmd(&th, t, g, " light", &out), CMD_DONE);
	assert_string_equal(out.data, "theme: light");
	assert_string_equal(th.name, "light");
	assert_int_equal(th.depth, THEME_DEPTH_256);
	assert_true(grid_dirty(g, 0));
	buf_reset(&out);
	assert_int_equal(app_themes_cmd(&th, t, g, "nope", &out), CMD_ERROR);
	assert_non_null(strstr(out.data, "unknown theme 'nope'"));
	assert_string_equal(th.name, "light");
	buf_release(&out);
	grid_free(g);
	term_free(t);
	highlight_reset();
}


/*
 * Issue 15 item 10: in every shipped theme and at every colour depth, an
 * added line and a deleted line look different (their backgrounds, or
 * their foregrounds when a theme leaves the background alone), and so do
 * the changed words.
 */
static void
test_diff_distinct(void **state)
{
	static const char *const names[] = { "default", "dark", "light", "high-contrast" };
	static const enum theme_depth depths[] = { THEME_DEPTH_8, THEME_DEPTH_256, THEME_DEPTH_TRUE };
	struct theme t;
	struct err e = ERR_INIT;
	const struct theme_style *add, *del;
	size_t i, d;

	(void)state;
	for (i = 0; i < 4; i++)
		for (d = 0; d < 3; d++) {
			assert_int_equal(app_themes_load(&t, names[i], depths[d], &e), 0);
			add = &t.roles[THEME_DIFF_ADD];
			del = &t.roles[THEME_DIFF_DEL];
			assert_true(add->bg != del->bg || add->fg != del->fg);
			if (depths[d] != THEME_DEPTH_8 && (add->bg != THEME_DEFAULT || del->bg != THEME_DEFAULT))
				assert_true(add->bg != del->bg); /* 8 colours: pale tints are white, the text tells */
			assert_true(add->fg != add->bg && del->fg != del->bg);
			add = &t.roles[THEME_DIFF_ADD_WORD];
			del = &t.roles[THEME_DIFF_DEL_WORD];
			assert_true(add->bg != del->bg || add->fg != del->fg);
		}
	/* tmux's client features: 24-bit colour when RGB is listed */
	assert_true(app_themes_has_rgb("256,RGB,bpaste,clipboard,title\n"));
	assert_true(app_themes_has_rgb("RGB"));
	assert_false(app_themes_has_rgb("256,bpaste,RGBX,title\n"));
	assert_false(app_themes_has_rgb(""));
	/* the dark theme's tints stay green and red at 256 colours, not one grey */
	assert_int_equal(theme_rgb_to_256(0x1e3a1e), 22);
	assert_int_equal(theme_rgb_to_256(0x3a1e1e), 52);
	assert_int_equal(theme_rgb_to_256(0x303030), 236); /* a grey stays a grey */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_match_files),
		cmocka_unit_test(test_depths),
		cmocka_unit_test(test_diff_distinct),
		cmocka_unit_test(test_unknown_and_user),
		cmocka_unit_test(test_cmd),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_theme: shipped themes, the built-in, errors, fallbacks, colour depths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/json.h"
#include "testutil.h"
#include "ui/term/theme.h"

static const enum theme_depth depths[] = { THEME_DEPTH_NONE, THEME_DEPTH_8, THEME_DEPTH_256,
	THEME_DEPTH_TRUE };

/* Whether two resolved themes style every role the same. */
static int
same_roles(const struct theme *a, const struct theme *b)
{
	return memcmp(a->roles, b->roles, sizeof a->roles) == 0;
}

/* Every role of a shipped file is present and known; styles are in range. */
static void
check_complete(const char *path, const struct theme *t)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	const cJSON *roles, *v;
	cJSON *doc;
	int r, n = 0;

	assert_int_equal(buf_read_file(&b, path, 0, &e), 0);
	doc = json_parse(b.data, b.len, &e);
	assert_non_null(doc);
	roles = json_obj(doc, "roles");
	assert_non_null(roles);
	cJSON_ArrayForEach(v, roles) {
		assert_true(theme_role_by_name(v->string) >= 0);
		n++;
	}
	assert_int_equal(n, THEME_ROLE_COUNT);
	for (r = 0; r < THEME_ROLE_COUNT; r++) {
		assert_true(t->roles[r].fg >= THEME_DEFAULT && t->roles[r].fg < 256);
		assert_true(t->roles[r].bg >= THEME_DEFAULT && t->roles[r].bg < 256);
	}
	cJSON_Delete(doc);
	buf_release(&b);
}

static void
test_shipped(void **state)
{
	struct theme t;
	struct err e = ERR_INIT;
	struct dirent *d;
	char path[512];
	DIR *dir = opendir("themes");
	int n = 0;
	size_t len;

	(void)state;
	assert_non_null(dir); /* tests run from the repository root */
	while ((d = readdir(dir)) != NULL) {
		len = strlen(d->d_name);
		if (len < 6 || strcmp(d->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof path, "themes/%s", d->d_name);
		if (theme_load(&t, path, THEME_DEPTH_256, &e) != 0)
			fail_msg("%s", e.msg);
		assert_int_equal(strncmp(t.name, d->d_name, len - 5), 0);
		check_complete(path, &t);
		assert_int_equal(theme_load(&t, path, THEME_DEPTH_TRUE, &e), 0);
		n++;
	}
	closedir(dir);
	assert_true(n >= 4); /* default, dark, light, high-contrast */
}

static void
test_builtin_matches_file(void **state)
{
	struct theme a, b;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		theme_default(&a, depths[i]);
		assert_int_equal(theme_load(&b, "themes/default.json", depths[i], &e), 0);
		assert_true(same_roles(&a, &b));
		assert_int_equal(a.ncaptures, b.ncaptures);
		assert_string_equal(a.name, "default");
	}
	theme_default(&a, THEME_DEPTH_256);
	assert_int_equal(a.roles[THEME_DIFF_ADD].fg, 114);
	assert_int_equal(a.roles[THEME_DIFF_ADD].bg, 22);
	assert_int_equal(a.roles[THEME_TEXT].fg, THEME_DEFAULT);
	assert_int_equal(a.roles[THEME_ACCENT].attrs, THEME_BOLD);
}

/* Write json into a temp dir, load it; returns the rc, message in e. */
static int
load_text(const char *json, enum theme_depth depth, struct theme *t, struct err *e,
    char *path, size_t pathsz)
{
	char *dir = tu_tmpdir();
	int rc;

	tu_write(dir, "t.json", json);
	snprintf(path, pathsz, "%s/t.json", dir);
	rc = theme_load(t, path, depth, e);
	tu_rmrf(dir);
	free(dir);
	return rc;
}

static void
test_broken(void **state)
{
	struct theme t, def;
	struct err e = ERR_INIT;
	char path[512], want[600];

	(void)state;
	theme_default(&def, THEME_DEPTH_256);
	assert_int_equal(load_text("{\n  \"roles\": {\n    \"text\": { \"fg\": 1,, }\n", THEME_DEPTH_256,
	    &t, &e, path, sizeof path), -1);
	snprintf(want, sizeof want, "%s:3:", path);
	assert_int_equal(strncmp(e.msg, want, strlen(want)), 0);
	assert_non_null(strstr(e.msg, "invalid JSON"));
	assert_non_null(strstr(e.msg, "; using the built-in theme"));
	assert_null(strchr(e.msg, '\n'));
	assert_true(same_roles(&t, &def));

	assert_int_equal(load_text("{\"roles\":{\"text\":{\"fg\":true}}}", THEME_DEPTH_256, &t, &e,
	    path, sizeof path), -1);
	snprintf(want, sizeof want, "%s: roles.text.fg: expected a colour", path);
	assert_int_equal(strncmp(e.msg, want, strlen(want)), 0);
	assert_true(same_roles(&t, &def));

	assert_int_equal(load_text("{\"roles\":{\"dim\":{\"fg\":256}}}", THEME_DEPTH_256, &t, &e,
	    path, sizeof path), -1);
	assert_int_equal(load_text("{\"roles\":{\"dim\":{\"fg\":\"#12345\"}}}", THEME_DEPTH_256, &t,
	    &e, path, sizeof path), -1);
	assert_int_equal(load_text("{\"roles\":{\"dim\":{\"attrs\":\"bold\"}}}", THEME_DEPTH_256, &t,
	    &e, path, sizeof path), -1);
	assert_int_equal(load_text("{\"roles\":[]}", THEME_DEPTH_256, &t, &e, path, sizeof path), -1);
	assert_int_equal(load_text("[1]", THEME_DEPTH_256, &t, &e, path, sizeof path), -1);
	assert_int_equal(load_text("", THEME_DEPTH_256, &t, &e, path, sizeof path), -1);
	assert_non_null(strstr(e.msg, ":1:1: invalid JSON"));
	assert_true(same_roles(&t, &def));

	assert_int_equal(theme_load(&t, "/nonexistent/x.json", THEME_DEPTH_256, &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/x.json"));
	assert_true(same_roles(&t, &def));
}

static void
test_fallbacks(void **state)
{
	struct theme t;
	struct err e = ERR_INIT;
	char path[512];
	const char *json = "{\"name\":\"mini\",\"roles\":{"
	    "\"text\":{\"fg\":\"bright_red\"},\"dim\":{\"fg\":240,\"attrs\":[\"dim\",\"sparkle\"]},"
	    "\"diff_add\":{\"fg\":2,\"bg\":\"#005f00\"},\"status_bg\":{\"bg\":236,"
	    "\"attrs\":[\"reverse\",\"underline\",\"italic\",\"bold\"]},\"from_the_future\":{}},"
	    "\"captures\":{\"property\":\"constant\",\"bad\":\"nope\"}}";

	(void)state;
	assert_int_equal(load_text(json, THEME_DEPTH_256, &t, &e, path, sizeof path), 0);
	assert_string_equal(t.name, "mini");
	assert_int_equal(t.roles[THEME_TEXT].fg, 9);
	assert_int_equal(t.roles[THEME_DIM].attrs, THEME_DIM_ATTR);
	assert_int_equal(t.roles[THEME_DIFF_ADD].bg, 22); /* #005f00 */
	assert_memory_equal(&t.roles[THEME_DIFF_ADD_WORD], &t.roles[THEME_DIFF_ADD],
	    sizeof t.roles[0]);
	assert_memory_equal(&t.roles[THEME_CTX_CRIT], &t.roles[THEME_STATUS_BG], sizeof t.roles[0]);
	assert_memory_equal(&t.roles[THEME_SLOT_IDLE], &t.roles[THEME_DIM], sizeof t.roles[0]);
	assert_memory_equal(&t.roles[THEME_PROGRESS_NEW], &t.roles[THEME_DIM], sizeof t.roles[0]);
	assert_memory_equal(&t.roles[THEME_KEYWORD], &t.roles[THEME_TEXT], sizeof t.roles[0]);
	assert_memory_equal(&t.roles[THEME_ERROR], &t.roles[THEME_TEXT], sizeof t.roles[0]);
	assert_int_equal(t.roles[THEME_STATUS_BG].attrs,
	    THEME_REVERSE | THEME_UNDERLINE | THEME_ITALIC | THEME_BOLD);
	assert_int_equal(t.roles[THEME_STATUS_BG].fg, THEME_DEFAULT);
	/* captures */
	assert_int_equal(theme_capture_role(&t, "function.method"), THEME_FUNCTION);
	assert_int_equal(theme_capture_role(&t, "string.special.url"), THEME_STRING);
	assert_int_equal(theme_capture_role(&t, "property"), THEME_CONSTANT);
	assert_int_equal(theme_capture_role(&t, "bad"), THEME_TEXT);
	assert_int_equal(theme_capture_role(&t, "dim"), THEME_TEXT); /* not a syntax role */
	assert_int_equal(theme_capture_role(&t, "a.very.long.capture.name.beyond.the.buffer"),
	    THEME_TEXT);
	theme_default(&t, THEME_DEPTH_256);
	assert_int_equal(theme_capture_role(&t, "property.definition"), THEME_VARIABLE);
}

static void
test_names(void **state)
{
	int r;

	(void)state;
	for (r = 0; r < THEME_ROLE_COUNT; r++)
		assert_int_equal(theme_role_by_name(theme_role_name(r)), r);
	assert_int_equal(theme_role_by_name("diff_add_word"), THEME_DIFF_ADD_WORD);
	assert_int_equal(theme_role_by_name("nope"), -1);
	assert_int_equal(theme_role_by_name(NULL), -1);
	assert_string_equal(theme_role_name(999), "text");
}

static void
test_depth_detect(void **state)
{
	(void)state;
	assert_int_equal(theme_depth_detect("xterm-256color", NULL, NULL), THEME_DEPTH_256);
	assert_int_equal(theme_depth_detect("tmux-256color", "truecolor", NULL), THEME_DEPTH_TRUE);
	assert_int_equal(theme_depth_detect("xterm", "24bit", ""), THEME_DEPTH_TRUE);
	assert_int_equal(theme_depth_detect("xterm", NULL, NULL), THEME_DEPTH_8);
	assert_int_equal(theme_depth_detect("screen", "yes", NULL), THEME_DEPTH_8);
	assert_int_equal(theme_depth_detect("xterm-direct", NULL, NULL), THEME_DEPTH_TRUE);
	assert_int_equal(theme_depth_detect("dumb", "truecolor", NULL), THEME_DEPTH_NONE);
	assert_int_equal(theme_depth_detect(NULL, NULL, NULL), THEME_DEPTH_NONE);
	assert_int_equal(theme_depth_detect("xterm-256color", "truecolor", "1"), THEME_DEPTH_NONE);
}

static void
test_no_color(void **state)
{
	struct theme t;
	int r;

	(void)state;
	theme_default(&t, THEME_DEPTH_NONE);
	for (r = 0; r < THEME_ROLE_COUNT; r++) {
		assert_int_equal(t.roles[r].fg, THEME_DEFAULT);
		assert_int_equal(t.roles[r].bg, THEME_DEFAULT);
	}
	assert_int_equal(t.roles[THEME_ACCENT].attrs, THEME_BOLD);
	assert_int_equal(t.roles[THEME_REASONING].attrs, THEME_ITALIC);
	assert_true(t.roles[THEME_SELECTION].attrs & THEME_REVERSE);
	assert_true(t.roles[THEME_STATUS_BG].attrs & THEME_REVERSE);
	assert_true(t.roles[THEME_CTX_WARN].attrs & THEME_REVERSE);
	assert_false(t.roles[THEME_TEXT].attrs & THEME_REVERSE);
}

static void
test_downmap(void **state)
{
	struct theme t;
	struct err e = ERR_INIT;
	char path[512];
	const char *json = "{\"roles\":{\"text\":{\"fg\":\"#ff0000\",\"bg\":\"#0000ff\"},"
	    "\"dim\":{\"fg\":244,\"bg\":\"bright_green\"},\"error\":{\"fg\":\"#808080\"}}}";

	(void)state;
	assert_int_equal(theme_rgb_to_256(0xff0000), 196);
	assert_int_equal(theme_rgb_to_256(0x000000), 16);
	assert_int_equal(theme_rgb_to_256(0xffffff), 231);
	assert_int_equal(theme_rgb_to_256(0x808080), 244);
	assert_int_equal(theme_rgb_to_256(0x5f87af), 67);
	assert_int_equal(theme_256_to_8(196), 1);
	assert_int_equal(theme_256_to_8(21), 4);
	assert_int_equal(theme_256_to_8(46), 2);
	assert_int_equal(theme_256_to_8(226), 3);
	assert_int_equal(theme_256_to_8(244), 7);
	assert_int_equal(theme_256_to_8(236), 0);
	assert_int_equal(theme_256_to_8(9), 1);
	assert_int_equal(theme_256_to_8(3), 3);
	assert_int_equal(theme_256_to_8(300), THEME_DEFAULT);

	assert_int_equal(load_text(json, THEME_DEPTH_TRUE, &t, &e, path, sizeof path), 0);
	assert_int_equal(t.roles[THEME_TEXT].fg, THEME_RGB | 0xff0000);
	assert_int_equal(t.roles[THEME_DIM].fg, 244);
	assert_int_equal(load_text(json, THEME_DEPTH_256, &t, &e, path, sizeof path), 0);
	assert_int_equal(t.roles[THEME_TEXT].fg, 196);
	assert_int_equal(t.roles[THEME_TEXT].bg, 21);
	assert_int_equal(t.roles[THEME_ERROR].fg, 244);
	assert_int_equal(t.roles[THEME_DIM].bg, 10);
	assert_int_equal(load_text(json, THEME_DEPTH_8, &t, &e, path, sizeof path), 0);
	assert_int_equal(t.roles[THEME_TEXT].fg, 1);
	assert_int_equal(t.roles[THEME_TEXT].bg, 4);
	assert_int_equal(t.roles[THEME_DIM].fg, 7);
	assert_int_equal(t.roles[THEME_DIM].bg, 2);
	assert_int_equal(t.roles[THEME_ERROR].fg, 7);
	/* every role of every depth of the built-in is in range */
	theme_default(&t, THEME_DEPTH_8);
	for (int r = 0; r < THEME_ROLE_COUNT; r++)
		assert_true(t.roles[r].fg < 8 && t.roles[r].bg < 8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_builtin_matches_file),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_depth_detect),
		cmocka_unit_test(test_no_color),
		cmocka_unit_test(test_downmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_picker: the full-screen -r picker headless — rows newest first
 * with prompt, size and age, type-to-search, moving, Enter and Esc; the
 * picker run on the text terminal with typed keys; a tiny window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/app/picker.h"
#include "ui/term/term.h"

#define NOW 1000000000

static char id_a[] = "20261122-010000-000-aaaaaaaa", id_b[] = "20261121-010000-000-bbbbbbbb";
static char id_c[] = "20261120-010000-000-cccccccc", path[] = "/p/x";
static char pr_a[] = "Fix the parser crash", pr_b[] = "Write docs for MCP", pr_c[] = "";
static struct session_list_info rows[] = {
	{ id_a, path, pr_a, NOW - 30, 4 },
	{ id_b, path, pr_b, NOW - 7200, 12 },
	{ id_c, path, pr_c, NOW - 3 * 86400, 1 },
};

/* A key event. */
static struct keys_event
key(enum keys_kind kind, const char *ch)
{
	struct keys_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	if (ch) {
		ev.cp = (unsigned char)ch[0];
		snprintf(ev.utf8, sizeof ev.utf8, "%s", ch);
	}
	return ev;
}

/* Type a string as characters. */
static void
type(struct app_picker *p, const char *s)
{
	char c[2] = { 0, 0 };
	struct keys_event ev;

	for (; *s; s++) {
		c[0] = *s;
		ev = key(KEYS_CHAR, c);
		assert_int_equal(app_picker_key(p, &ev), APP_PICKER_NONE);
	}
}

/* The grid as text. */
static void
screen(struct grid *g, struct buf *out)
{
	int y;

	buf_reset(out);
	for (y = 0; y < g->h; y++) {
		grid_row_text(g, y, out);
		buf_addch(out, '\n');
	}
}

static void
test_view_and_keys(void **state)
{
	struct app_picker p;
	struct grid *g = grid_new(70, 10);
	struct buf s = BUF_INIT;
	struct keys_event ev;
	int cx, cy;

	(void)state;
	setlocale(LC_CTYPE, "C.UTF-8");
	app_picker_init(&p, rows, 3, "/p");
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "Resume a session · /p · 3 of 3"));
	assert_non_null(strstr(s.data, "› Fix the parser crash"));
	assert_non_null(strstr(s.data, "4 msgs · just now"));
	assert_non_null(strstr(s.data, "12 msgs · 2h ago"));
	assert_non_null(strstr(s.data, "(no prompt)"));
	assert_non_null(strstr(s.data, "1 msg · 3d ago"));
	assert_true(strstr(s.data, "Fix the") < strstr(s.data, "Write docs"));
	assert_int_equal(cy, 1);
	ev = key(KEYS_DOWN, NULL);
	app_picker_key(&p, &ev);
	app_picker_key(&p, &ev);
	app_picker_key(&p, &ev); /* clamped at the last row */
	assert_string_equal(app_picker_selected(&p)->id, rows[2].id);
	ev = key(KEYS_UP, NULL);
	app_picker_key(&p, &ev);
	assert_string_equal(app_picker_selected(&p)->id, rows[1].id);
	/* search: words, case folded, prompt or id */
	type(&p, "PARSER crash");
	assert_int_equal(p.nshown, 1);
	assert_string_equal(app_picker_selected(&p)->id, rows[0].id);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "search: PARSER crash"));
	assert_non_null(strstr(s.data, "1 of 3"));
	assert_int_equal(cx, 20);
	type(&p, "x");
	assert_int_equal(p.nshown, 0);
	assert_null(app_picker_selected(&p));
	ev = key(KEYS_ENTER, NULL);
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_NONE); /* nothing to resume */
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "no session matches"));
	ev = key(KEYS_CHAR, "u");
	ev.mods = KEYS_MOD_CTRL;
	app_picker_key(&p, &ev);
	type(&p, "cccc");
	assert_string_equal(app_picker_selected(&p)->id, rows[2].id);
	ev = key(KEYS_BACKSPACE, NULL);
	app_picker_key(&p, &ev);
	assert_int_equal(p.nshown, 1);
	ev = key(KEYS_ENTER, NULL);
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_CHOSEN);
	ev = key(KEYS_ESC, NULL);
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_CANCEL);
	/* a window too small says so instead of drawing garbage */
	grid_resize(g, 8, 3);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "window"));
	app_picker_release(&p);
	grid_free(g);
	buf_release(&s);
}

/* Delete asks; y deletes (the caller does it, then app_picker_deleted), any other key keeps it. */
static void
test_delete(void **state)
{
	struct grid *g = grid_new(120, 10);
	struct buf s = BUF_INIT;
	struct keys_event ev;
	struct app_picker p;
	int cx, cy;

	(void)state;
	app_picker_init(&p, rows, 3, "/p");
	ev = key(KEYS_DOWN, NULL);
	app_picker_key(&p, &ev);
	ev = key(KEYS_DELETE, NULL);
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_NONE);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "delete session 20261121-010000-000-bbbbbbbb (Write docs for MCP) and its slot files? y deletes"));
	ev = key(KEYS_CHAR, "n"); /* kept; the key is not typed into the search */
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_NONE);
	assert_int_equal(p.query.len, 0);
	assert_int_equal(p.nshown, 3);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "not deleted"));
	ev = key(KEYS_DELETE, NULL);
	app_picker_key(&p, &ev);
	ev = key(KEYS_CHAR, "y");
	assert_int_equal(app_picker_key(&p, &ev), APP_PICKER_DELETE);
	assert_string_equal(app_picker_selected(&p)->id, rows[1].id);
	app_picker_deleted(&p, "deleted session bbbb");
	assert_int_equal(p.nshown, 2);
	assert_string_equal(app_picker_selected(&p)->id, rows[2].id); /* the next one */
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "2 of 2"));
	assert_null(strstr(s.data, "Write docs for MCP"));
	assert_non_null(strstr(s.data, "deleted session bbbb"));
	type(&p, "docs"); /* a deleted row is not found again */
	assert_int_equal(p.nshown, 0);
	/* the last row deleted: the selection moves up; with nothing left, Delete does nothing */
	ev = key(KEYS_CHAR, "u");
	ev.mods = KEYS_MOD_CTRL;
	app_picker_key(&p, &ev);
	ev = key(KEYS_END, NULL);
	app_picker_key(&p, &ev);
	app_picker_deleted(&p, "");
	assert_string_equal(app_picker_selected(&p)->id, rows[0].id);
	app_picker_deleted(&p, "");
	assert_int_equal(p.nshown, 0);
	ev = key(KEYS_DELETE, NULL);
	app_picker_key(&p, &ev);
	assert_int_equal(p.confirm, 0);
	app_picker_release(&p);
	grid_free(g);
	buf_release(&s);
}

/* Many rows: the selection stays on screen while scrolling. */
static void
test_scroll(void **state)
{
	struct session_list_info many[40];
	char ids[40][32], prompts[40][32];
	struct grid *g = grid_new(60, 8);
	struct buf s = BUF_INIT;
	struct keys_event ev = key(KEYS_PGDN, NULL);
	struct app_picker p;
	int i, cx, cy;

	(void)state;
	for (i = 0; i < 40; i++) {
		snprintf(ids[i], sizeof ids[i], "id%02d", i);
		snprintf(prompts[i], sizeof prompts[i], "prompt number %02d", i);
		many[i] = (struct session_list_info){ ids[i], ids[i], prompts[i], NOW, 2 };
	}
	app_picker_init(&p, many, 40, "/p");
	app_picker_key(&p, &ev);
	app_picker_key(&p, &ev);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "› prompt number 20"));
	ev = key(KEYS_END, NULL);
	app_picker_key(&p, &ev);
	app_picker_draw(&p, g, NOW, &cx, &cy);
	screen(g, &s);
	assert_non_null(strstr(s.data, "› prompt number 39"));
	assert_null(strstr(s.data, "prompt number 20"));
	app_picker_release(&p);
	grid_free(g);
	buf_release(&s);
}

/* The picker on the text terminal: type to search, Enter; and Esc. */
static void
test_run(void **state)
{
	struct term *t = term_text_new(80, 12);
	struct err e = ERR_INIT;
	char chosen[64] = "";
	struct buf s = BUF_INIT;

	(void)state;
	term_text_type(t, "docs\x1b[B\r", 8);
	assert_int_equal(app_picker_run(t, rows, 3, "/p", chosen, sizeof chosen, &e), 1);
	assert_string_equal(chosen, rows[1].id);
	term_text_dump(t, &s, 0);
	assert_non_null(strstr(s.data, "Resume a session")); /* it drew before the keys came */
	term_free(t);
	t = term_text_new(80, 12);
	chosen[0] = '\0';
	term_text_type(t, "\x1b", 1);
	assert_int_equal(app_picker_run(t, rows, 3, "/p", chosen, sizeof chosen, &e), 0);
	assert_string_equal(chosen, "");
	term_free(t);
	buf_release(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_and_keys),
		cmocka_unit_test(test_scroll),
		cmocka_unit_test(test_delete),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

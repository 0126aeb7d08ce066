/* test_editor: the input editor — every editing key, history, kill/yank, pastes, widths; Tab (ui/app/complete). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "front/cmd.h"
#include "ui/view/editor.h"
#include "ui/app/complete.h"
#include "ui/term/grid.h"
#include "ui/term/keys.h"
#include "ui/term/theme.h"
#include "testutil.h"

/* One key event. */
static enum editor_result
key(struct editor *ed, enum keys_kind kind, unsigned mods, uint32_t cp)
{
	struct keys_event ev;

	memset(&ev, 0, sizeof ev);
	ev.kind = kind;
	ev.mods = mods;
	ev.cp = cp;
	if (kind == KEYS_CHAR && cp < 0x80)
		ev.utf8[0] = (char)cp;
	return editor_key(ed, &ev);
}

/* Ctrl-letter. */
static enum editor_result
ctrl(struct editor *ed, char c)
{
	return key(ed, KEYS_CHAR, KEYS_MOD_CTRL, (uint32_t)c);
}

/*
 * Feed raw terminal bytes through the real key decoder into the editor,
 * Tab (without Shift) to the completion as the full screen does (ui/app/keys.c).
 */
static enum editor_result
feed(struct editor *ed, const char *bytes, const struct front_cmd *cmds, struct buf *note)
{
	struct keys k;
	struct keys_event ev;
	enum editor_result last = EDITOR_IGNORED;

	keys_init(&k);
	keys_feed(&k, bytes, strlen(bytes));
	while (keys_next(&k, &ev) || (keys_waiting(&k) && keys_flush(&k, &ev)))
		last = ev.kind == KEYS_TAB && !(ev.mods & KEYS_MOD_SHIFT) ?
		    app_complete_tab(ed, NULL, cmds, note) : editor_key(ed, &ev);
	keys_release(&k);
	return last;
}

/* The text (pastes expanded), in a static buffer. */
static const char *
text(const struct editor *ed)
{
	static char s[8192];
	struct buf b = BUF_INIT;

	editor_text(ed, &b);
	snprintf(s, sizeof s, "%s", b.data);
	buf_release(&b);
	return s;
}

/* The text as displayed, in a static buffer. */
static const char *
shown(const struct editor *ed)
{
	static char s[8192];
	struct buf b = BUF_INIT;

	editor_display(ed, &b);
	snprintf(s, sizeof s, "%s", b.data);
	buf_release(&b);
	return s;
}

/* Draw into a w×h grid; return the cursor cell. */
static void
cursor(const struct editor *ed, int w, int h, int *x, int *y)
{
	struct grid *g = grid_new(w, h);

	editor_draw(ed, g, (struct grid_rect){ 0, 0, w, h }, x, y);
	grid_free(g);
}

static void
test_insert_submit(void **state)
{
	struct editor ed;
	struct buf out = BUF_INIT;

	(void)state;
	editor_init(&ed);
	assert_true(editor_empty(&ed));
	feed(&ed, "h\xc3\xa9llo", NULL, NULL);
	assert_string_equal(text(&ed), "h\xc3\xa9llo");
	assert_int_equal(key(&ed, KEYS_ENTER, 0, 0), EDITOR_SUBMIT);
	editor_take(&ed, &out);
	assert_string_equal(out.data, "h\xc3\xa9llo");
	assert_true(editor_empty(&ed));
	assert_int_equal(ed.nhist, 1);
	assert_int_equal(key(&ed, KEYS_PGUP, 0, 0), EDITOR_IGNORED);
	assert_int_equal(key(&ed, KEYS_CHAR, KEYS_MOD_CTRL, 'c'), EDITOR_IGNORED);
	buf_release(&out);
	editor_release(&ed);
}

static void
test_motion_delete(void **state)
{
	struct editor ed;

	(void)state;
	editor_init(&ed);
	feed(&ed, "abc", NULL, NULL);
	key(&ed, KEYS_LEFT, 0, 0);
	key(&ed, KEYS_BACKSPACE, 0, 0);
	assert_string_equal(text(&ed), "ac");
	key(&ed, KEYS_HOME, 0, 0);
	key(&ed, KEYS_DELETE, 0, 0);
	assert_string_equal(text(&ed), "c");
	key(&ed, KEYS_END, 0, 0);
	feed(&ed, "d", NULL, NULL);
	assert_string_equal(text(&ed), "cd");
	ctrl(&ed, 'a');
	feed(&ed, "<", NULL, NULL);
	ctrl(&ed, 'e');
	feed(&ed, ">", NULL, NULL);
	assert_string_equal(text(&ed), "<cd>");
	key(&ed, KEYS_RIGHT, 0, 0); /* at the end: no-op */
	key(&ed, KEYS_DELETE, 0, 0);
	key(&ed, KEYS_HOME, 0, 0);
	key(&ed, KEYS_LEFT, 0, 0); /* at the start: no-op */
	key(&ed, KEYS_BACKSPACE, 0, 0);
	assert_string_equal(text(&ed), "<cd>");
	editor_release(&ed);
}

static void
test_multiline(void **state)
{
	struct editor ed;

	(void)state;
	editor_init(&ed);
	feed(&ed, "ab", NULL, NULL);
	assert_int_equal(key(&ed, KEYS_ENTER, KEYS_MOD_ALT, 0), EDITOR_DONE);
	feed(&ed, "cd\x1b\rxyz", NULL, NULL); /* ESC CR is Alt-Enter from a terminal */
	assert_string_equal(text(&ed), "ab\ncd\nxyz");
	key(&ed, KEYS_HOME, 0, 0);
	feed(&ed, "-", NULL, NULL);
	assert_string_equal(text(&ed), "ab\ncd\n-xyz");
	key(&ed, KEYS_UP, 0, 0); /* column 1 of "cd" */
	feed(&ed, "+", NULL, NULL);
	assert_string_equal(text(&ed), "ab\nc+d\n-xyz");
	key(&ed, KEYS_DOWN, 0, 0);
	ctrl(&ed, 'e');
	feed(&ed, "!", NULL, NULL);
	assert_string_equal(text(&ed), "ab\nc+d\n-xyz!");
	assert_int_equal(editor_rows(&ed, 40), 3);
	editor_release(&ed);
}

static void
test_kill_yank(void **state)
{
	struct editor ed;

	(void)state;
	editor_init(&ed);
	feed(&ed, "one two  three", NULL, NULL);
	ctrl(&ed, 'w');
	assert_string_equal(text(&ed), "one two  ");
	ctrl(&ed, 'w');
	assert_string_equal(text(&ed), "one ");
	assert_string_equal(ed.kill.data, "two  ");
	ctrl(&ed, 'y');
	ctrl(&ed, 'y');
	assert_string_equal(text(&ed), "one two  two  ");
	ctrl(&ed, 'a');
	key(&ed, KEYS_RIGHT, 0, 0);
	ctrl(&ed, 'k');
	assert_string_equal(text(&ed), "o");
	assert_string_equal(ed.kill.data, "ne two  two  ");
	ctrl(&ed, 'u');
	assert_string_equal(text(&ed), "");
	assert_string_equal(ed.kill.data, "o");
	ctrl(&ed, 'y');
	assert_string_equal(text(&ed), "o");
	/* Ctrl-K at the end of a line takes the newline; Ctrl-U stops at the line start */
	editor_clear(&ed);
	feed(&ed, "ab\x1b\rcd", NULL, NULL);
	key(&ed, KEYS_UP, 0, 0);
	ctrl(&ed, 'e');
	ctrl(&ed, 'k');
	assert_string_equal(text(&ed), "abcd");
	editor_clear(&ed);
	feed(&ed, "ab\x1b\rcd", NULL, NULL);
	ctrl(&ed, 'u');
	assert_string_equal(text(&ed), "ab\n");
	editor_release(&ed);
}

static void
test_history(void **state)
{
	struct editor ed;
	struct buf out = BUF_INIT;

	(void)state;
	editor_init(&ed);
	key(&ed, KEYS_UP, 0, 0); /* no history: nothing happens */
	assert_string_equal(text(&ed), "");
	feed(&ed, "first", NULL, NULL);
	editor_take(&ed, &out);
	feed(&ed, "second", NULL, NULL);
	editor_take(&ed, &out);
	feed(&ed, "second", NULL, NULL);
	editor_take(&ed, &out); /* a duplicate in a row is kept once */
	assert_int_equal(ed.nhist, 2);
	feed(&ed, "draft", NULL, NULL);
	key(&ed, KEYS_UP, 0, 0);
	assert_string_equal(text(&ed), "second");
	key(&ed, KEYS_UP, 0, 0);
	assert_string_equal(text(&ed), "first");
	key(&ed, KEYS_UP, 0, 0);
	assert_string_equal(text(&ed), "first");
	key(&ed, KEYS_DOWN, 0, 0);
	assert_string_equal(text(&ed), "second");
	key(&ed, KEYS_DOWN, 0, 0);
	assert_string_equal(text(&ed), "draft");
	key(&ed, KEYS_DOWN, 0, 0);
	assert_string_equal(text(&ed), "draft");
	buf_release(&out);
	editor_release(&ed);
}

static void
test_history_cap(void **state)
{
	struct editor ed;
	char line[32];
	int i;

	(void)state;
	editor_init(&ed);
	for (i = 0; i < EDITOR_HISTORY_MAX + 20; i++) {
		snprintf(line, sizeof line, "task %d", i);
		editor_history_add(&ed, line);
	}
	editor_history_add(&ed, "");
	assert_int_equal(ed.nhist, EDITOR_HISTORY_MAX);
	assert_string_equal(ed.hist[0], "task 20");
	editor_release(&ed);
}

static void
test_paste_small(void **state)
{
	struct editor ed;

	(void)state;
	editor_init(&ed);
	feed(&ed, "x\x1b[200~a\r\nb\rc\x1b[201~y", NULL, NULL);
	assert_string_equal(text(&ed), "xa\nb\ncy");
	assert_string_equal(shown(&ed), "xa\nb\ncy");
	editor_release(&ed);
}

static void
test_paste_marker(void **state)
{
	struct editor ed;
	struct buf big = BUF_INIT, out = BUF_INIT, expect = BUF_INIT;
	int i, x, y;

	(void)state;
	editor_init(&ed);
	for (i = 0; i < 12; i++)
		buf_addf(&big, "line %d\n", i);
	feed(&ed, "x", NULL, NULL);
	editor_paste(&ed, big.data, big.len);
	feed(&ed, "y", NULL, NULL);
	assert_string_equal(shown(&ed), "x[paste: 12 lines]y");
	buf_addf(&expect, "x%sy", big.data);
	assert_string_equal(text(&ed), expect.data);
	cursor(&ed, 40, 3, &x, &y);
	assert_int_equal(x, 2 + 1 + 17 + 1); /* "[paste: 12 lines]" is 17 columns */
	/* the marker is one character for the cursor and for Backspace */
	key(&ed, KEYS_LEFT, 0, 0);
	key(&ed, KEYS_LEFT, 0, 0);
	cursor(&ed, 40, 3, &x, &y);
	assert_int_equal(x, 3);
	key(&ed, KEYS_RIGHT, 0, 0);
	key(&ed, KEYS_BACKSPACE, 0, 0);
	assert_string_equal(text(&ed), "xy");
	ctrl(&ed, 'z'); /* an unbound key changes nothing */
	/* killed and yanked back, it is folded again */
	editor_paste(&ed, big.data, big.len);
	ctrl(&ed, 'u');
	assert_string_equal(text(&ed), "y");
	ctrl(&ed, 'y'); /* "x" + the paste come back as one fold of 12 lines */
	assert_string_equal(shown(&ed), "[paste: 12 lines]y");
	assert_string_equal(text(&ed), expect.data);
	editor_take(&ed, &out);
	assert_string_equal(out.data, expect.data);
	assert_int_equal(ed.npastes, 0);
	buf_release(&big);
	buf_release(&out);
	buf_release(&expect);
	editor_release(&ed);
}

static void
test_bad_input(void **state)
{
	struct editor ed;

	(void)state;
	editor_init(&ed);
	/* a forged marker code point and invalid UTF-8 are stored as U+FFFD */
	editor_insert(&ed, "\xee\x80\x80|\xff|", 6);
	assert_string_equal(text(&ed), "\xef\xbf\xbd|\xef\xbf\xbd|");
	editor_clear(&ed);
	/* control bytes are kept in the text and shown in caret notation */
	editor_paste(&ed, "a\x1b[2Jb\x7f\xc2\x9b", 9);
	assert_string_equal(text(&ed), "a\x1b[2Jb\x7f\xc2\x9b");
	assert_string_equal(shown(&ed), "a^[[2Jb^?<U+009B>");
	editor_clear(&ed);
	editor_paste(&ed, "", 0);
	editor_insert(&ed, "\xe2\x82", 2); /* a truncated sequence */
	assert_string_equal(text(&ed), "\xef\xbf\xbd\xef\xbf\xbd");
	editor_release(&ed);
}

static void
test_wide_cursor(void **state)
{
	struct editor ed;
	struct grid *g;
	int x, y;

	(void)state;
	editor_init(&ed);
	feed(&ed, "\xe6\x97\xa5\xe6\x9c\xac", NULL, NULL); /* 日本 */
	cursor(&ed, 20, 3, &x, &y);
	assert_int_equal(x, 6);
	assert_int_equal(y, 0);
	key(&ed, KEYS_LEFT, 0, 0);
	cursor(&ed, 20, 3, &x, &y);
	assert_int_equal(x, 4);
	/* a combining mark moves with its base */
	editor_clear(&ed);
	feed(&ed, "e\xcc\x81", NULL, NULL);
	cursor(&ed, 20, 3, &x, &y);
	assert_int_equal(x, 3);
	key(&ed, KEYS_LEFT, 0, 0);
	cursor(&ed, 20, 3, &x, &y);
	assert_int_equal(x, 2);
	key(&ed, KEYS_DELETE, 0, 0);
	assert_string_equal(text(&ed), "");
	/* a wide character that does not fit the row wraps whole */
	feed(&ed, "abc\xe6\x97\xa5", NULL, NULL);
	assert_int_equal(editor_rows(&ed, 6), 2);
	g = grid_new(6, 3);
	editor_draw(&ed, g, (struct grid_rect){ 0, 0, 6, 3 }, &x, &y);
	assert_string_equal(grid_at(g, 0, 0)->text, "\xe2\x80\xba");
	assert_string_equal(grid_at(g, 2, 1)->text, "\xe6\x97\xa5");
	assert_int_equal(x, 4);
	assert_int_equal(y, 1);
	grid_free(g);
	editor_release(&ed);
}

static void
test_wrap_scroll(void **state)
{
	struct editor ed;
	int x, y, i;

	(void)state;
	editor_init(&ed);
	for (i = 0; i < 8; i++)
		feed(&ed, "a", NULL, NULL);
	cursor(&ed, 10, 3, &x, &y); /* 8 text columns full: the cursor goes to the next row */
	assert_int_equal(x, 2);
	assert_int_equal(y, 1);
	assert_int_equal(editor_rows(&ed, 10), 2);
	for (i = 0; i < 30; i++)
		feed(&ed, "b", NULL, NULL);
	cursor(&ed, 10, 2, &x, &y); /* scrolled: the cursor row is the last one shown */
	assert_int_equal(y, 1);
	editor_release(&ed);
}

static enum cmd_result
run_nothing(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)ctx;
	(void)self;
	(void)args;
	(void)out;
	return CMD_DONE;
}

static void
test_complete(void **state)
{
	static const struct cmd cmds[] = {
		{ "help", "", "h", run_nothing, NULL },
		{ "history", "", "h", run_nothing, NULL },
		{ "quit", "", "q", run_nothing, NULL },
		{ "undo", "", "u", run_nothing, NULL },
		{ "undo-all", "", "u", run_nothing, NULL },
	};
	struct front_cmd r;
	struct editor ed;
	struct buf note = BUF_INIT;
	size_t i;

	(void)state;
	front_cmd_init(&r);
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		front_cmd_add(&r, &cmds[i]);
	editor_init(&ed);
	assert_int_equal(feed(&ed, "/q\t", &r, &note), EDITOR_DONE);
	assert_string_equal(text(&ed), "/quit ");
	editor_clear(&ed);
	assert_int_equal(feed(&ed, "/h\t", &r, &note), EDITOR_NOTICE);
	assert_string_equal(note.data, "/help\n/history");
	assert_string_equal(text(&ed), "/h");
	buf_setlen(&note, 0);
	editor_clear(&ed);
	assert_int_equal(feed(&ed, "/u\t", &r, &note), EDITOR_NOTICE);
	assert_string_equal(text(&ed), "/undo"); /* the common prefix */
	buf_setlen(&note, 0);
	editor_clear(&ed);
	assert_int_equal(feed(&ed, "/zz\t", &r, &note), EDITOR_DONE);
	assert_string_equal(text(&ed), "/zz");
	editor_clear(&ed);
	feed(&ed, "say /q", &r, &note);
	assert_int_equal(feed(&ed, "\t", &r, &note), EDITOR_DONE);
	assert_string_equal(text(&ed), "say /q");
	assert_int_equal(feed(&ed, "\x1b[Z", &r, &note), EDITOR_IGNORED); /* Shift-Tab */
	editor_set(&ed, "/q");
	assert_int_equal(key(&ed, KEYS_TAB, 0, 0), EDITOR_IGNORED); /* the editor leaves Tab to its caller */
	assert_string_equal(text(&ed), "/q");
	editor_release(&ed);
	front_cmd_release(&r);
	buf_release(&note);
}


/* The popup (issue 15 item 11): "/" lists the commands with their help, Up/Down select, Tab takes; drawn above the input. */
static void
test_complete_popup(void **state)
{
	static const struct cmd cmds[] = {
		{ "help", "", "list the commands", run_nothing, NULL },
		{ "undo", "[N]", "restore the files", run_nothing, NULL },
		{ "undo-all", "", "restore everything", run_nothing, NULL },
	};
	struct front_cmd r;
	struct editor ed;
	struct app_complete c;
	struct keys_event down = { 0 }, tab = { 0 };
	struct grid *g = grid_new(40, 5);
	size_t i;

	(void)state;
	front_cmd_init(&r);
	for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		front_cmd_add(&r, &cmds[i]);
	editor_init(&ed);
	memset(&c, 0, sizeof c);
	app_complete_close(&c);
	editor_insert(&ed, "/", 1);
	app_complete_update(&c, &ed, &r);
	assert_int_equal(c.n, 3);
	editor_insert(&ed, "u", 1);
	app_complete_update(&c, &ed, &r);
	assert_int_equal(c.n, 2);
	grid_clear(g, THEME_TEXT);
	app_complete_draw(&c, g, 0, 4, 40);
	tu_grid_expect(g, "\n\n /undo [N]  restore the files\n /undo-all  restore everything\n\n");
	down.kind = KEYS_DOWN;
	tab.kind = KEYS_TAB;
	assert_int_equal(app_complete_key(&c, &down, &ed), 1);
	assert_int_equal(app_complete_key(&c, &down, &ed), 1);
	assert_int_equal(c.sel, 1);
	assert_int_equal(app_complete_key(&c, &tab, &ed), 1);
	assert_string_equal(text(&ed), "/undo-all ");
	assert_int_equal(c.n, 0);
	app_complete_update(&c, &ed, &r); /* a blank after the name: no list */
	assert_int_equal(c.n, 0);
	editor_clear(&ed);
	editor_insert(&ed, "//x", 3);
	app_complete_update(&c, &ed, &r);
	assert_int_equal(c.n, 0);
	app_complete_release(&c);
	grid_free(g);
	editor_release(&ed);
	front_cmd_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_submit),
		cmocka_unit_test(test_motion_delete),
		cmocka_unit_test(test_multiline),
		cmocka_unit_test(test_kill_yank),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_history_cap),
		cmocka_unit_test(test_paste_small),
		cmocka_unit_test(test_paste_marker),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_wide_cursor),
		cmocka_unit_test(test_wrap_scroll),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_complete_popup),
	};

	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

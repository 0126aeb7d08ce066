/* test_transcript: the conversation view from scripted events, as screen text and roles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "ui/view/markdown.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"
#include "testutil.h"

/* Draw tv into a fresh w×h grid and compare with want. */
static void
check(const struct view_transcript *tv, int w, int h, const char *want)
{
	struct grid *g = grid_new(w, h);
	struct grid_rect r = { 0, 0, w, h };

	transcript_draw(g, r, tv);
	tu_grid_expect(g, want);
	grid_free(g);
}

/* Feed one event of kind k with text t. */
static void
feed(struct view_transcript *tv, enum llm_kind k, const char *t)
{
	struct llm_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = k;
	ev.text.p = t;
	ev.text.len = strlen(t);
	transcript_on_event(tv, &ev);
}

/* A streamed answer, split mid-word and mid-marker. */
static void
script_answer(struct view_transcript *tv)
{
	static const char *const parts[] = {
		"# Fix\nThe loop read **one el", "ement** past the end of the array; I changed ",
		"the bound to `i < n`.\n\n- first *item*\n- second item\n```c\n",
		"for (i = 0; i < n; i++)\n```\nTests: 24/24."
	};
	size_t i;

	transcript_init(tv);
	transcript_add_user(tv, "fix the off-by-one", strlen("fix the off-by-one"));
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		feed(tv, LLM_TEXT, parts[i]);
	feed(tv, LLM_DONE, "");
}

static void
test_stream_60(void **state)
{
	struct view_transcript tv;

	(void)state;
	script_answer(&tv);
	check(&tv, 60, 14,
	    "› fix the off-by-one\n"
	    "\n"
	    "Fix\n"
	    "The loop read one element past the end of the array; I\n"
	    "changed the bound to i < n.\n"
	    "\n"
	    " • first item\n"
	    " • second item\n"
	    "  for (i = 0; i < n; i++)\n"
	    "Tests: 24/24.\n"
	    "\n"
	    "\n"
	    "\n"
	    "\n");
	transcript_release(&tv);
}

static void
test_stream_100_160(void **state)
{
	struct view_transcript tv;
	const char *want =
	    "› fix the off-by-one\n"
	    "\n"
	    "Fix\n"
	    "The loop read one element past the end of the array; I changed the bound to i < n.\n"
	    "\n"
	    " • first item\n"
	    " • second item\n"
	    "  for (i = 0; i < n; i++)\n"
	    "Tests: 24/24.\n"
	    "\n";

	(void)state;
	script_answer(&tv);
	check(&tv, 100, 10, want);
	check(&tv, 160, 10, want);
	transcript_release(&tv);
}

/* Inline markdown roles: bold, code, italic, the heading. */
static void
test_markdown_roles(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(60, 14);
	struct grid_rect r = { 0, 0, 60, 14 };

	(void)state;
	script_answer(&tv);
	transcript_draw(g, r, &tv);
	assert_int_equal(grid_at(g, 0, 2)->style, MARKDOWN_HEADING);
	assert_int_equal(grid_at(g, 0, 3)->style, THEME_ASSISTANT);
	assert_string_equal(grid_at(g, 14, 3)->text, "o");
	assert_int_equal(grid_at(g, 14, 3)->style, MARKDOWN_BOLD);
	assert_string_equal(grid_at(g, 24, 3)->text, "t");
	assert_int_equal(grid_at(g, 24, 3)->style, MARKDOWN_BOLD);
	assert_int_equal(grid_at(g, 25, 3)->style, THEME_ASSISTANT);
	assert_int_equal(grid_at(g, 21, 4)->style, MARKDOWN_CODE);
	assert_int_equal(grid_at(g, 25, 4)->style, MARKDOWN_CODE);
	assert_int_equal(grid_at(g, 26, 4)->style, THEME_ASSISTANT);
	assert_int_equal(grid_at(g, 10, 6)->style, MARKDOWN_ITALIC);
	assert_int_equal(grid_at(g, 1, 6)->style, THEME_ACCENT);
	grid_free(g);
	transcript_release(&tv);
}

/* A fake finished call. */
/* The role under a cell's style: its own, or a mix's background role. */
static int
bg_role(unsigned style)
{
	return style < THEME_ROLE_COUNT ? (int)style : THEME_MIX_BG(style);
}

static void
call_init(struct agent_call *c, const char *id, const char *name, const char *args)
{
	memset(c, 0, sizeof(*c));
	c->id = (char *)(uintptr_t)id;
	c->name = (char *)(uintptr_t)name;
	buf_init(&c->args, 0);
	buf_adds(&c->args, args);
	buf_init(&c->job.out, 0);
	c->t_start_ms = 1000;
	c->t_end_ms = 1250;
}

static const char diff1[] =
    "--- a/src/cart.c\n+++ b/src/cart.c\n@@ -40,3 +40,3 @@\n int i;\n"
    "-\tfor (i = 0; i <= n; i++)\n+\tfor (i = 0; i < n; i++)\n \t\tsum += p[i];\n";

/* A read and an edit with its diff; the diff's roles. */
static void
test_tool_diff(void **state)
{
	struct view_transcript tv;
	struct agent_call c;
	struct grid *g = grid_new(60, 8);
	struct grid_rect r = { 0, 0, 60, 8 };
	int x;

	(void)state;
	transcript_init(&tv);
	call_init(&c, "c1", "read", "{\"path\":\"src/cart.c\",\"offset\":1}");
	transcript_tool_start(&tv, &c);
	buf_adds(&c.job.out, "int cart_total(void)\n{\n}\n");
	transcript_tool_done(&tv, &c);
	c.id = (char *)(uintptr_t)"c2";
	c.name = (char *)(uintptr_t)"edit";
	c.job.diff = (char *)(uintptr_t)diff1;
	transcript_tool_start(&tv, &c);
	transcript_tool_done(&tv, &c);
	transcript_draw(g, r, &tv);
	tu_grid_expect(g,
	    "● read src/cart.c                                     0.2s ✓\n"
	    "● edit src/cart.c                              +1 −1  0.2s ✓\n"
	    "   40   int i;\n"
	    "   41 -     for (i = 0; i <= n; i++)\n"
	    "   41 +     for (i = 0; i < n; i++)\n"
	    "   42           sum += p[i];\n"
	    "\n"
	    "\n");
	assert_int_equal(grid_at(g, 0, 0)->style, THEME_TOOL_OK);
	assert_int_equal(grid_at(g, 0, 2)->style, THEME_LINE_NO);
	assert_int_equal(grid_at(g, 6, 3)->style, THEME_DIFF_DEL);
	assert_int_equal(grid_at(g, 6, 4)->style, THEME_DIFF_ADD);
	assert_string_equal(grid_at(g, 26, 3)->text, "<");
	assert_string_equal(grid_at(g, 27, 3)->text, "=");
	assert_string_equal(grid_at(g, 26, 4)->text, "<");
	/* the +/- background roles stay under the syntax colours (THEME_MIX) */
	for (x = 8; x < 36; x++)
		assert_int_equal(bg_role(grid_at(g, x, 3)->style),
		    x == 26 || x == 27 ? THEME_DIFF_DEL_WORD : THEME_DIFF_DEL);
	for (x = 8; x < 35; x++)
		assert_int_equal(bg_role(grid_at(g, x, 4)->style),
		    x == 26 ? THEME_DIFF_ADD_WORD : THEME_DIFF_ADD);
	assert_string_equal(grid_at(g, 12, 4)->text, "f");
	assert_int_equal(grid_at(g, 12, 4)->style, THEME_MIX(THEME_KEYWORD, THEME_DIFF_ADD));
	assert_string_equal(grid_at(g, 21, 4)->text, "0");
	assert_int_equal(grid_at(g, 21, 4)->style, THEME_MIX(THEME_NUMBER, THEME_DIFF_ADD));
	assert_int_equal(grid_at(g, 10, 5)->style, THEME_TEXT);
	assert_string_equal(grid_at(g, 16, 5)->text, "s");
	assert_int_equal(grid_at(g, 16, 5)->style, THEME_VARIABLE);
	/* expanded: the output under the header */
	tv.items[0].expanded = 1;
	check(&tv, 60, 10,
	    "● read src/cart.c                                     0.2s ✓\n"
	    "  │ int cart_total(void)\n"
	    "  │ {\n"
	    "  │ }\n"
	    "● edit src/cart.c                              +1 −1  0.2s ✓\n"
	    "   40   int i;\n"
	    "   41 -     for (i = 0; i <= n; i++)\n"
	    "   41 +     for (i = 0; i < n; i++)\n"
	    "   42           sum += p[i];\n"
	    "\n");
	buf_release(&c.args);
	buf_release(&c.job.out);
	grid_free(g);
	transcript_release(&tv);
}

/* A long diff folds to TRANSCRIPT_DIFF_FOLDED rows until expanded. */
static void
test_diff_fold(void **state)
{
	struct view_transcript tv;
	struct agent_call c;
	struct buf d = BUF_INIT;
	int i;

	(void)state;
	transcript_init(&tv);
	buf_adds(&d, "--- a/x\n+++ b/x\n@@ -1,0 +1,30 @@\n");
	for (i = 0; i < 30; i++)
		buf_addf(&d, "+line %d\n", i);
	call_init(&c, "w", "write", "{\"path\":\"x\"}");
	c.job.diff = d.data;
	transcript_tool_done(&tv, &c);
	assert_int_equal(transcript_rows(&tv, 60), 1 + TRANSCRIPT_DIFF_FOLDED + 1);
	check(&tv, 40, 3, "   11 + line 10\n   12 + line 11\n      … 18 more lines (ctrl-o)\n");
	transcript_toggle_last(&tv);
	assert_int_equal(transcript_rows(&tv, 60), 31);
	buf_release(&d);
	buf_release(&c.args);
	buf_release(&c.job.out);
	transcript_release(&tv);
}

/* Malformed diffs draw what they can and never crash. */
static void
test_bad_diff(void **state)
{
	static const char *const diffs[] = {
		"@@ junk\n-\n+\n\\ No newline at end of file\n+++\n---\n",
		"-only deleted\n-another\n",
		"+\x1b[2Jadded\n\n@@ -99999999999999999999 +1 @@\n x\n",
		"",
		"-a\xff\xfe" "b\n+a\xff" "b\n",
	};
	struct view_transcript tv;
	struct agent_call c;
	struct grid *g = grid_new(30, 12);
	struct grid_rect r = { 0, 0, 30, 12 };
	size_t i;

	(void)state;
	transcript_init(&tv);
	for (i = 0; i < sizeof(diffs) / sizeof(diffs[0]); i++) {
		call_init(&c, NULL, "edit", "[1,2]");
		c.job.diff = (char *)(uintptr_t)diffs[i];
		transcript_tool_done(&tv, &c);
		tv.items[tv.n - 1].expanded = 1;
		transcript_draw(g, r, &tv);
		buf_release(&c.args);
		buf_release(&c.job.out);
	}
	check(&tv, 30, 3, "● edit [1,2]     +1 −1  0.2s ✓\n"
	    "    0 - a��b\n"
	    "    0 + a�b\n");
	assert_int_equal(grid_at(g, 8, 1)->style, THEME_DIFF_DEL);
	grid_free(g);
	transcript_release(&tv);
}

/* A running tool shows its elapsed time; a failed one ✗ in the error role. */
static void
test_tool_running_and_error(void **state)
{
	struct view_transcript tv;
	struct agent_call c;

	(void)state;
	transcript_init(&tv);
	call_init(&c, "b", "bash", "{\"command\":\"make test\"}");
	transcript_tool_start(&tv, &c);
	tv.now_ms = 4200;
	/* not begun yet (its approval question is up): no timer counting the wait */
	check(&tv, 40, 1, "● bash make test          waiting to run\n");
	transcript_tool_output(&tv, &c);
	check(&tv, 40, 1, "● bash make test            running 3.2s\n");
	c.job.is_error = 1;
	transcript_tool_done(&tv, &c);
	check(&tv, 40, 1, "● bash make test                  0.2s ✗\n");
	assert_int_equal(tv.n, 1);
	/* an unknown id appends; arguments that are not JSON are shown cut short */
	buf_release(&c.args);
	call_init(&c, NULL, "grep", "{not json \x1b[2J");
	transcript_tool_done(&tv, &c);
	assert_int_equal(tv.n, 2);
	check(&tv, 40, 2,
	    "● bash make test                  0.2s ✗\n"
	    "● grep {not json ^[[2J            0.2s ✓\n");
	buf_release(&c.args);
	buf_release(&c.job.out);
	transcript_release(&tv);
}

/* A running call shows the tail of its output, timed from when it began to run. */
static void
test_tool_live(void **state)
{
	struct view_transcript tv;
	struct agent_call c;

	(void)state;
	transcript_init(&tv);
	call_init(&c, "b", "bash", "{\"command\":\"make\"}");
	transcript_tool_start(&tv, &c);
	buf_init(&c.job.live, 0);
	buf_adds(&c.job.live, "one\ntwo\nthree\nfour\nfive\nsix\n50%\r100%\x1b[2J\n");
	c.t_start_ms = 3000; /* approved at 3 s */
	transcript_tool_output(&tv, &c);
	tv.now_ms = 4200;
	check(&tv, 40, 7,
	    "● bash make                 running 1.2s\n"
	    "  │ three\n"
	    "  │ four\n"
	    "  │ five\n"
	    "  │ six\n"
	    "  │ 100%^[[2J\n"
	    "\n");
	c.t_end_ms = 4500;
	buf_adds(&c.job.out, "all done\n");
	transcript_tool_done(&tv, &c);
	check(&tv, 40, 2, "● bash make                       1.5s ✓\n\n");
	buf_release(&c.job.live);
	buf_release(&c.args);
	buf_release(&c.job.out);
	transcript_release(&tv);
}

/* A notice that comes while an answer streams waits for the answer's end. */
static void
test_notice_held(void **state)
{
	struct view_transcript tv;

	(void)state;
	transcript_init(&tv);
	feed(&tv, LLM_TEXT, "alpha br");
	transcript_add_notice(&tv, THEME_DIM, "queued: later", 13);
	feed(&tv, LLM_TEXT, "avo charlie");
	check(&tv, 40, 2, "alpha bravo charlie\n\n");
	feed(&tv, LLM_DONE, "");
	check(&tv, 40, 3, "alpha bravo charlie\n\n→ queued: later\n");
	assert_int_equal(tv.n, 2);
	/* an interrupted answer is marked, and held notices still follow it */
	feed(&tv, LLM_TEXT, "half an ans");
	transcript_add_notice(&tv, THEME_DIM, "held", 4);
	transcript_interrupted(&tv);
	check(&tv, 40, 4, "half an ans\n[interrupted]\n\n→ held\n");
	/* stopped with no answer streaming: a notice marks the cut */
	transcript_interrupted(&tv);
	assert_int_equal(tv.items[tv.n - 1].kind, VIEW_NOTICE);
	/* a cache break held while an answer streams stays one row, and the answer keeps its form */
	{
		struct llm_event ev;

		feed(&tv, LLM_TEXT, "next");
		memset(&ev, 0, sizeof ev);
		ev.kind = LLM_CACHE;
		ev.cache.is_break = 1;
		ev.cache.reuse = 0.2;
		ev.cache.expected = 0.9;
		ev.cache.cause = "AGENTS.md was reloaded";
		transcript_on_event(&tv, &ev);
		feed(&tv, LLM_DONE, "");
		assert_int_equal(tv.items[tv.n - 1].kind, VIEW_NOTICE);
		assert_true(tv.items[tv.n - 1].one_line);
		assert_false(tv.items[tv.n - 2].one_line);
		check(&tv, 30, 3, "next\n\n→ cache break: AGENTS.md was …\n");
	}
	transcript_release(&tv);
}

/* Focus: move between calls, open the one in focus; Ctrl-O scrolled back acts on the one in view. */
static void
test_focus(void **state)
{
	struct view_transcript tv;
	struct agent_call c;
	const char *ids[] = { "a", "b", "c" };
	size_t i;

	(void)state;
	transcript_init(&tv);
	for (i = 0; i < 3; i++) {
		call_init(&c, ids[i], "bash", "{\"command\":\"x\"}");
		buf_addf(&c.job.out, "out-%s\n", ids[i]);
		transcript_tool_done(&tv, &c);
		buf_release(&c.args);
		buf_release(&c.job.out);
		transcript_add_notice(&tv, THEME_DIM, "n1\nn2\nn3", 8);
	}
	/* 12 rows in a 40x4 view */
	assert_int_equal(transcript_focus_start(&tv, 40, 4), 0);
	assert_int_equal(tv.focus, 4);
	transcript_focus_move(&tv, -1, 40, 4);
	assert_int_equal(tv.focus, 2);
	transcript_focus_move(&tv, 1, 40, 4);
	assert_int_equal(tv.focus, 4);
	transcript_focus_move(&tv, -1, 40, 4);
	transcript_toggle_here(&tv, 40, 4);
	assert_true(tv.items[2].expanded);
	assert_false(tv.items[4].expanded);
	check(&tv, 40, 4, "▸ bash x                          0.2s ✓\n  │ out-b\n→ n1\n  n2\n");
	transcript_toggle_all(&tv);
	assert_true(tv.items[0].expanded && tv.items[2].expanded && tv.items[4].expanded);
	transcript_toggle_all(&tv);
	assert_false(tv.items[0].expanded || tv.items[2].expanded || tv.items[4].expanded);
	transcript_focus_end(&tv);
	/* no focus, scrolled to the top: Ctrl-O opens the first call, the one in view */
	tv.follow = 0;
	tv.scroll = 0;
	transcript_toggle_here(&tv, 40, 4);
	assert_true(tv.items[0].expanded);
	assert_false(tv.items[4].expanded);
	/* following: the last */
	transcript_follow(&tv);
	transcript_toggle_here(&tv, 40, 4);
	assert_true(tv.items[4].expanded);
	transcript_release(&tv);
}

/* Reasoning is one dimmed row until expanded. */
static void
test_reasoning(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(40, 4);
	struct grid_rect r = { 0, 0, 40, 4 };

	(void)state;
	transcript_init(&tv);
	feed(&tv, LLM_REASONING, "check the loop\nbound is n");
	feed(&tv, LLM_REASONING, "\nso <= is wrong");
	feed(&tv, LLM_TEXT, "Fixed.");
	assert_int_equal(tv.n, 2);
	check(&tv, 40, 3, "∴ check the loop … (3 lines)\nFixed.\n\n");
	transcript_toggle_last(&tv);
	check(&tv, 40, 5, "∴ check the loop\n  bound is n\n  so <= is wrong\nFixed.\n\n");
	transcript_draw(g, r, &tv);
	assert_int_equal(grid_at(g, 2, 1)->style, THEME_REASONING);
	grid_free(g);
	transcript_release(&tv);
}

/* Cache breaks, notices, errors and an abort. */
static void
test_notices(void **state)
{
	struct view_transcript tv;
	struct llm_event ev;
	struct grid *g = grid_new(50, 8);
	struct grid_rect r = { 0, 0, 50, 8 };

	(void)state;
	transcript_init(&tv);
	memset(&ev, 0, sizeof(ev));
	ev.kind = LLM_CACHE;
	ev.cache.reuse = 0.12;
	ev.cache.expected = 0.98;
	ev.cache.cause = "";
	transcript_on_event(&tv, &ev);
	assert_int_equal(tv.n, 0);
	ev.cache.is_break = 1;
	ev.cache.cause = "system prompt changed at message 1";
	transcript_on_event(&tv, &ev);
	feed(&tv, LLM_NOTICE, "slot 1 busy, using slot 0");
	feed(&tv, LLM_TEXT, "partial");
	memset(&ev, 0, sizeof(ev));
	ev.kind = LLM_ERROR;
	ev.error.kind = LLM_ERR_ABORTED;
	transcript_on_event(&tv, &ev);
	ev.error.kind = LLM_ERR_CONNECT;
	ev.text.p = "cannot connect";
	ev.text.len = strlen(ev.text.p);
	transcript_on_event(&tv, &ev);
	transcript_add_notice(&tv, THEME_ACCENT, "claude: 3 failed tool calls", 27);
	transcript_draw(g, r, &tv);
	tu_grid_expect(g,
	    "→ cache break: system prompt changed at message 1…\n"
	    "→ slot 1 busy, using slot 0\n"
	    "partial\n"
	    "[interrupted]\n"
	    "\n"
	    "→ error: cannot connect\n"
	    "→ claude: 3 failed tool calls\n"
	    "\n");
	assert_int_equal(grid_at(g, 2, 0)->style, THEME_WARNING);
	assert_int_equal(grid_at(g, 2, 5)->style, THEME_ERROR);
	assert_int_equal(grid_at(g, 2, 6)->style, THEME_ACCENT);
	grid_free(g);
	transcript_release(&tv);
}

/* Whether any cell holds ESC, another C0 byte or a C1 code point. */
static int
has_controls(const struct grid *g)
{
	const unsigned char *t;
	int x, y;

	for (y = 0; y < g->h; y++)
		for (x = 0; x < g->w; x++)
			for (t = (const unsigned char *)grid_at(g, x, y)->text; *t; t++)
				if (*t < 0x20 || *t == 0x7f || (t[0] == 0xc2 && t[1] >= 0x80 &&
				    t[1] <= 0x9f))
					return 1;
	return 0;
}

/* Escape sequences and C1 bytes from the model are shown, not executed. */
static void
test_injection(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(60, 6);
	struct grid_rect r = { 0, 0, 60, 6 };

	(void)state;
	transcript_init(&tv);
	feed(&tv, LLM_TEXT, "copy \x1b]52;c;aGk=\x07 clear \x1b[2J c1 \xc2\x9b" "31m raw \x9b end");
	feed(&tv, LLM_REASONING, "think \x1b[H");
	transcript_add_user(&tv, "\x1b[31mred", 8);
	transcript_draw(g, r, &tv);
	tu_grid_expect(g,
	    "copy ^[]52;c;aGk=^G clear ^[[2J c1 <U+009B>31m raw � end\n"
	    "\n"
	    "∴ think ^[[H\n"
	    "› ^[[31mred\n"
	    "\n"
	    "\n");
	assert_false(has_controls(g));
	tv.items[1].expanded = 1;
	transcript_draw(g, r, &tv);
	assert_false(has_controls(g));
	grid_free(g);
	transcript_release(&tv);
}

/* Wide characters wrap whole, never straddling the edge. */
static void
test_wide(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(9, 4);
	struct grid_rect r = { 0, 0, 9, 4 };
	int y;

	(void)state;
	transcript_init(&tv);
	feed(&tv, LLM_TEXT, "漢字漢字漢字漢字 **太字**");
	transcript_draw(g, r, &tv);
	tu_grid_expect(g, "漢字漢字\n漢字漢字\n太字\n\n");
	for (y = 0; y < 4; y++)
		assert_int_not_equal(grid_at(g, 8, y)->width, 2);
	assert_int_equal(grid_at(g, 0, 2)->style, MARKDOWN_BOLD);
	assert_int_equal(grid_at(g, 1, 2)->width, 0);
	grid_free(g);
	transcript_release(&tv);
}

/* Redrawing into a resized grid gives the same screen as a fresh grid. */
static void
test_resize(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(100, 10), *fresh = grid_new(60, 14);
	struct grid_rect r = { 0, 0, 100, 10 }, r2 = { 0, 0, 60, 14 };

	(void)state;
	script_answer(&tv);
	transcript_draw(g, r, &tv);
	grid_resize(g, 60, 14);
	transcript_draw(g, r2, &tv);
	transcript_draw(fresh, r2, &tv);
	tu_grid_same(g, fresh);
	grid_free(g);
	grid_free(fresh);
	transcript_release(&tv);
}

/* Scrolling leaves follow mode; new text does not move the view; End follows. */
static void
test_scroll_follow(void **state)
{
	struct view_transcript tv;
	char line[32];
	int i;

	(void)state;
	transcript_init(&tv);
	for (i = 0; i < 20; i++) {
		snprintf(line, sizeof(line), "message %d", i);
		transcript_add_user(&tv, line, strlen(line));
	}
	assert_int_equal(transcript_rows(&tv, 30), 40);
	check(&tv, 30, 3, "\n› message 19\n\n");
	transcript_scroll(&tv, -5, 30, 3);
	assert_false(tv.follow);
	check(&tv, 30, 3, "› message 16\n\n› message 17\n");
	feed(&tv, LLM_TEXT, "more");
	check(&tv, 30, 3, "› message 16\n\n› message 17\n");
	transcript_scroll(&tv, -1000, 30, 3);
	check(&tv, 30, 2, "› message 0\n\n");
	transcript_scroll(&tv, 1000, 30, 3);
	assert_true(tv.follow);
	transcript_scroll(&tv, -2, 30, 3);
	transcript_follow(&tv);
	check(&tv, 30, 2, "more\n\n");
	/* search */
	assert_int_equal(transcript_find(&tv, 0, "message 1"), 1);
	assert_int_equal(transcript_find(&tv, 2, "message 1"), 10);
	assert_int_equal(transcript_find(&tv, 0, "mor"), 20);
	assert_int_equal(transcript_find(&tv, 0, "absent"), -1);
	assert_int_equal(transcript_find(&tv, 0, ""), -1);
	transcript_show_item(&tv, 10, 30);
	check(&tv, 30, 2, "› message 10\n\n");
	transcript_release(&tv);
}

/* Tiny and empty rects draw nothing and do not crash. */
static void
test_degenerate(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(3, 3);
	struct grid_rect r0 = { 0, 0, 0, 3 }, r1 = { 0, 0, 1, 3 }, off = { 2, 2, 5, 5 };

	(void)state;
	script_answer(&tv);
	transcript_draw(g, r0, &tv);
	transcript_draw(g, r1, &tv);
	transcript_draw(g, off, &tv);
	assert_true(transcript_rows(&tv, 1) > 20);
	grid_free(g);
	transcript_release(&tv);
	transcript_release(&tv);
}


/* Item 12/13 of issue 15: one arrow, a planned cache break not told twice, a /help-style table hung under its column. */
static void
test_notice_forms(void **state)
{
	struct view_transcript tv;
	struct llm_event ev;
	struct grid *g = grid_new(40, 9);
	struct grid_rect r = { 0, 0, 40, 9 };

	(void)state;
	transcript_init(&tv);
	transcript_add_notice(&tv, THEME_ACCENT, "→ claude (auto): big task", strlen("→ claude (auto): big task"));
	memset(&ev, 0, sizeof(ev));
	ev.kind = LLM_CACHE;
	ev.cache.is_break = 1;
	ev.cache.planned = 1;
	ev.cache.reuse = 0.1;
	ev.cache.expected = 0.9;
	ev.cache.cause = "expected: MicroCompact";
	transcript_on_event(&tv, &ev);
	assert_int_equal(tv.n, 1);
	transcript_add_notice(&tv, THEME_TEXT, "keys\n  Esc    stop the turn and drop the queue\n"
	    "/undo [N] [--force]  restore files", strlen("keys\n  Esc    stop the turn and drop the queue\n"
	    "/undo [N] [--force]  restore files"));
	transcript_draw(g, r, &tv);
	tu_grid_expect(g,
	    "→ claude (auto): big task\n"
	    "→ keys\n"
	    "    Esc    stop the turn and drop the\n"
	    "           queue\n"
	    "  /undo [N] [--force]\n"
	    "      restore files\n"
	    "\n\n\n");
	grid_free(g);
	transcript_release(&tv);
}

/* A queued message shows at once, marked; unqueue clears the mark, drop removes it. */
static void
test_queued(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(30, 4);
	struct grid_rect r = { 0, 0, 30, 4 };

	(void)state;
	transcript_init(&tv);
	transcript_add_queued(&tv, "fix it", 6);
	transcript_draw(g, r, &tv);
	tu_grid_expect(g, "› fix it\n  ⋯ queued\n\n\n");
	assert_int_equal(transcript_unqueue(&tv), 1);
	transcript_draw(g, r, &tv);
	tu_grid_expect(g, "› fix it\n\n\n\n");
	assert_int_equal(transcript_unqueue(&tv), 0);
	transcript_add_queued(&tv, "more", 4);
	transcript_add_notice(&tv, THEME_DIM, "note", 4);
	assert_int_equal(transcript_drop_queued(&tv), 1);
	assert_int_equal(tv.n, 2);
	assert_string_equal(tv.items[1].text.data, "note");
	grid_free(g);
	transcript_release(&tv);
}


/* Pipe tables (issue 15 item 13): found once the delimiter row is there, aligned, narrowed with "…". */
static void
test_md_table(void **state)
{
	static const char t[] = "| file | lines | note |\n|:--|--:|:-:|\n| `cart.c` | 120 | **hot** |\n"
	    "| u.c | 8 | ok |\nafter\n";
	struct grid *g = grid_new(30, 4);
	struct grid_rect r = { 0, 0, 30, 4 };
	size_t n;

	(void)state;
	assert_int_equal(markdown_table_len("| a | b |\n", 10), 0); /* no delimiter row yet */
	assert_int_equal(markdown_table_len("| a | b |\n|---|\n", 16), 0); /* cells differ */
	assert_int_equal(markdown_table_len("plain text\n|---|\n", 17), 0);
	n = markdown_table_len(t, strlen(t));
	assert_int_equal(n, strlen(t) - strlen("after\n"));
	assert_int_equal(markdown_table(NULL, r, 0, t, n), 4);
	assert_int_equal(markdown_table(g, r, 0, t, n), 4);
	tu_grid_expect(g,
	    "file   │ lines │ note\n"
	    "───────┼───────┼─────\n"
	    "cart.c │   120 │ hot\n"
	    "u.c    │     8 │  ok\n");
	assert_int_equal(grid_at(g, 0, 0)->style, MARKDOWN_HEADING);
	grid_free(g);
	g = grid_new(16, 4);
	r.w = 16;
	markdown_table(g, r, 0, t, n);
	tu_grid_expect(g,
	    "fi… │ li… │ note\n"
	    "────┼─────┼─────\n"
	    "ca… │ 120 │ hot\n"
	    "u.c │   8 │  ok\n");
	grid_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_60),
		cmocka_unit_test(test_stream_100_160),
		cmocka_unit_test(test_markdown_roles),
		cmocka_unit_test(test_tool_diff),
		cmocka_unit_test(test_diff_fold),
		cmocka_unit_test(test_bad_diff),
		cmocka_unit_test(test_tool_running_and_error),
		cmocka_unit_test(test_tool_live),
		cmocka_unit_test(test_notice_held),
		cmocka_unit_test(test_focus),
		cmocka_unit_test(test_reasoning),
		cmocka_unit_test(test_notices),
		cmocka_unit_test(test_injection),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_scroll_follow),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_notice_forms),
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_md_table),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

/*
 * test_codehl: syntax colours in the views — a fenced code block drawn
 * through the transcript and the headless terminal (cell styles checked
 * as a snapshot), block context (a comment opened on an earlier line),
 * unknown languages, truncation, and mixed styles (THEME_MIX).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "ui/view/highlight.h"
#include "ui/view/markdown.h"
#include "ui/term/term.h"
#include "testutil.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"

static int
teardown(void **state)
{
	(void)state;
	highlight_reset();
	return 0;
}

/* An assistant message with text t in a fresh transcript. */
static void
answer(struct view_transcript *tv, const char *t)
{
	struct llm_event ev;

	transcript_init(tv);
	memset(&ev, 0, sizeof ev);
	ev.kind = LLM_TEXT;
	ev.text.p = t;
	ev.text.len = strlen(t);
	transcript_on_event(tv, &ev);
}

/* The style letter term_text_dump uses for a role. */
static char
letter(int role)
{
	return role == 0 ? '.' : role <= 26 ? (char)('a' + role - 1) : (char)('A' + role - 27);
}

/* Append a style row: the letters of `roles` (one per cell), padded with '.' to w. */
static void
style_row(struct buf *b, const int *roles, size_t n, int w)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_addch(b, letter(roles[i]));
	for (; (int)i < w; i++)
		buf_addch(b, '.');
	buf_addch(b, '\n');
}

/* A python block drawn through the text backend: the style row of each code line. */
static void
test_code_block_snapshot(void **state)
{
	static const char msg[] = "Try:\n```python\ndef f(x):\n    return x + 1  # inc\n```\n";
	enum { T = THEME_TEXT, K = THEME_KEYWORD, F = THEME_FUNCTION, V = THEME_VARIABLE,
		N = THEME_NUMBER, C = THEME_COMMENT, O = THEME_OPERATOR, A = THEME_ASSISTANT };
	static const int r0[] = { A, A, A, A };
	static const int r1[] = { T, T, K, K, K, T, F, T, V, T };
	static const int r2[] = { T, T, T, T, T, T, K, K, K, K, K, K, T, V, T, O, T, N, T, T,
		C, C, C, C, C };
	struct view_transcript tv;
	struct term *t = term_text_new(40, 6);
	struct grid *g = grid_new(40, 6);
	struct grid_rect r = { 0, 0, 40, 6 };
	struct buf out = BUF_INIT, want = BUF_INIT;

	(void)state;
	answer(&tv, msg);
	transcript_draw(g, r, &tv);
	assert_int_equal(term_present(t, g), 0);
	term_text_dump(t, &out, 1);
	buf_adds(&want, "Try:\n");
	style_row(&want, r0, 4, 40);
	buf_adds(&want, "  def f(x):\n");
	style_row(&want, r1, 10, 40);
	buf_adds(&want, "      return x + 1  # inc\n");
	style_row(&want, r2, 25, 40);
	assert_true(out.len > want.len);
	out.data[want.len] = '\0';
	assert_string_equal(out.data, want.data);
	buf_release(&out);
	buf_release(&want);
	term_free(t);
	grid_free(g);
	transcript_release(&tv);
}

/* A comment opened on an earlier line of the block colours the later line too. */
static void
test_block_context(void **state)
{
	static const char msg[] = "```c\n/* one\n   two */ int x;\n```\nafter\n";
	struct view_transcript tv;
	struct grid *g = grid_new(30, 4);
	struct grid_rect r = { 0, 0, 30, 4 };

	(void)state;
	answer(&tv, msg);
	transcript_draw(g, r, &tv);
	assert_string_equal(grid_at(g, 5, 1)->text, "t");
	assert_int_equal(grid_at(g, 5, 1)->style, THEME_COMMENT);
	assert_string_equal(grid_at(g, 12, 1)->text, "i");
	assert_int_equal(grid_at(g, 12, 1)->style, THEME_TYPE);
	assert_string_equal(grid_at(g, 0, 2)->text, "a");
	assert_int_not_equal(grid_at(g, 0, 2)->style, THEME_COMMENT);
	grid_free(g);
	transcript_release(&tv);
}

/* Unknown languages and streaming (unclosed) fences are safe; unknown stays plain. */
static void
test_unknown_and_open(void **state)
{
	struct view_transcript tv;
	struct grid *g = grid_new(30, 4);
	struct grid_rect r = { 0, 0, 30, 4 };
	int x;

	(void)state;
	answer(&tv, "```klingon\nint x = 1;\n```\n");
	transcript_draw(g, r, &tv);
	for (x = 0; x < 30; x++)
		assert_int_equal(grid_at(g, x, 0)->style, MARKDOWN_CODE_BLOCK);
	transcript_release(&tv);
	answer(&tv, "```c\nint x = 1;\nreturn");
	transcript_draw(g, r, &tv);
	assert_int_equal(grid_at(g, 2, 0)->style, THEME_TYPE);
	assert_int_equal(grid_at(g, 2, 1)->style, THEME_KEYWORD);
	grid_free(g);
	transcript_release(&tv);
}

/*
 * A growing block (highlight_roles_growing): up to a chunk it is coloured
 * as a whole; past that its first chunk keeps the colours of that chunk
 * alone whatever follows, and the result at each length does not depend on
 * the lengths asked before (grown step by step = asked once).  The whole
 * block asked with highlight_roles is coloured in one piece: a comment
 * opened in the first chunk and closed in the second colours the second's
 * first line as comment there, not in the growing colours.
 */
static void
test_growing(void **state)
{
	const struct code_lang *c = code_lang_for_fence("c");
	struct buf t = BUF_INIT;
	uint16_t *step = NULL, *once = NULL;
	const uint16_t *r;
	size_t n, b = 0, i, small;
	int k;

	(void)state;
	code_highlight_set_timeout(60000); /* colourings compared: none may be cut by the clock */
	highlight_reset();
	buf_adds(&t, "int f(int *v) {\n\tint s = 0;\n");
	small = t.len;
	r = highlight_roles_growing(c, t.data, t.len);
	assert_non_null(r);
	step = xmalloc(small * sizeof *step);
	memcpy(step, r, small * sizeof *step);
	highlight_reset();
	assert_memory_equal(step, highlight_roles(c, t.data, t.len), small * sizeof *step);
	for (k = 0; t.len < HIGHLIGHT_CHUNK - 40; k++)
		buf_addf(&t, "\ts += v[%d] * 2; /* c */\n", k);
	buf_adds(&t, "\t/* a comment\n"); /* opened in the first chunk... */
	for (i = t.len; i > HIGHLIGHT_CHUNK / 2; i--)
		if (t.data[i - 1] == '\n' && i <= HIGHLIGHT_CHUNK) {
			b = i;
			break;
		}
	buf_adds(&t, "\t   that ends here */ return s;\n"); /* ...closed in the second */
	for (k = 0; k < 300; k++)
		buf_addf(&t, "\ts -= \"str%d\"[0];\n", k);
	highlight_reset();
	for (n = 97; n < t.len + 97; n += 97) { /* grown step by step */
		size_t m = n < t.len ? n : t.len;

		r = highlight_roles_growing(c, t.data, m);
		assert_non_null(r);
		step = xrealloc(step, m * sizeof *step);
		memcpy(step, r, m * sizeof *step);
		if (m % 5 == 1 || m == t.len) { /* asked once, in a fresh cache */
			highlight_reset();
			r = highlight_roles_growing(c, t.data, m);
			once = xrealloc(once, m * sizeof *once);
			memcpy(once, r, m * sizeof *once);
			assert_memory_equal(step, once, m * sizeof *step);
			highlight_reset();
			(void)highlight_roles_growing(c, t.data, m); /* the growth goes on from here */
		}
	}
	assert_true(b > 0);
	r = highlight_roles(c, t.data, b);
	assert_memory_equal(step, r, b * sizeof *step);
	/* the line after the chunk's end: comment in one piece, not in the chunk alone */
	r = highlight_roles(c, t.data, t.len);
	assert_int_equal(r[b + 2], THEME_COMMENT);
	assert_int_not_equal(step[b + 2], THEME_COMMENT);
	/* chunks end at line starts: a keyword across byte HIGHLIGHT_CHUNK stays one keyword */
	buf_reset(&t);
	for (k = 0; t.len < HIGHLIGHT_CHUNK - 100; k++)
		buf_addf(&t, "\ts += v[%d] * 2;\n", k);
	buf_addf(&t, "\t/* %*s */\n", (int)(HIGHLIGHT_CHUNK - 4 - t.len - 8), "");
	assert_int_equal(t.len, HIGHLIGHT_CHUNK - 4);
	buf_adds(&t, "\treturn s;\n"); /* "return" is bytes 4093..4098 */
	for (k = 0; k < 200; k++)
		buf_addf(&t, "\ts -= %d;\n", k);
	highlight_reset();
	r = highlight_roles_growing(c, t.data, t.len);
	assert_int_equal(r[HIGHLIGHT_CHUNK - 3], THEME_KEYWORD);
	assert_int_equal(r[HIGHLIGHT_CHUNK + 2], THEME_KEYWORD);
	free(step);
	free(once);
	buf_release(&t);
	code_highlight_set_timeout(0);
}

/* highlight_line cuts with an ellipsis and keeps the roles of what it shows. */
static void
test_line_cut(void **state)
{
	static const char s[] = "\treturn 12345;";
	struct grid *g = grid_new(12, 1);
	const uint16_t *roles = highlight_roles(code_lang_by_name("c"), s, strlen(s));
	int w;

	(void)state;
	assert_non_null(roles);
	assert_ptr_equal(highlight_roles(code_lang_by_name("c"), s, strlen(s)), roles); /* cached */
	w = highlight_line(g, 0, 0, 12, s, strlen(s), roles, THEME_TEXT);
	assert_int_equal(w, 12);
	assert_int_equal(grid_at(g, 8, 0)->style, THEME_KEYWORD);
	assert_string_equal(grid_at(g, 11, 0)->text, "…");
	assert_null(highlight_roles(NULL, s, strlen(s)));
	assert_null(highlight_roles(code_lang_by_name("c"), s, 0));
	{
		size_t big = CODE_HL_MAX_BYTES + 1;
		char *t = malloc(big);
		memset(t, ' ', big);
		memcpy(t, "int x;", 6);
		assert_null(highlight_roles(code_lang_by_name("c"), t, big));
		free(t);
	}
	grid_free(g);
}

/* A mix draws the syntax colour over the diff background; equal colours fall back. */
static void
test_mix_style(void **state)
{
	struct theme th;
	struct theme_style st;

	(void)state;
	theme_default(&th, THEME_DEPTH_256);
	theme_style_of(&th, THEME_MIX(THEME_KEYWORD, THEME_DIFF_ADD_WORD), &st);
	assert_int_equal(st.fg, th.roles[THEME_KEYWORD].fg);
	assert_int_equal(st.bg, th.roles[THEME_DIFF_ADD_WORD].bg);
	assert_true(st.attrs & THEME_BOLD);
	theme_style_of(&th, THEME_DIFF_DEL, &st);
	assert_int_equal(st.bg, th.roles[THEME_DIFF_DEL].bg);
	th.roles[THEME_STRING].fg = th.roles[THEME_DIFF_ADD].bg;
	theme_style_of(&th, THEME_MIX(THEME_STRING, THEME_DIFF_ADD), &st);
	assert_int_equal(st.fg, th.roles[THEME_DIFF_ADD].fg);
	theme_style_of(&th, 0xffff, &st);
	assert_int_equal(st.fg, th.roles[THEME_TEXT].fg);
	theme_default(&th, THEME_DEPTH_NONE);
	theme_style_of(&th, THEME_MIX(THEME_COMMENT, THEME_DIFF_DEL), &st);
	assert_int_equal(st.fg, THEME_DEFAULT);
	assert_int_equal(st.bg, THEME_DEFAULT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_code_block_snapshot, teardown),
		cmocka_unit_test_teardown(test_block_context, teardown),
		cmocka_unit_test_teardown(test_unknown_and_open, teardown),
		cmocka_unit_test_teardown(test_line_cut, teardown),
		cmocka_unit_test_teardown(test_growing, teardown),
		cmocka_unit_test(test_mix_style),
	};

	return cmocka_run_group_tests(tests, tu_utf8_locale, NULL);
}

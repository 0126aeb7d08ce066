/*
 * test_sessexport: Markdown and HTML exports.  Headings and fences sized
 * to their content, every text escaped in HTML with no script or external
 * resource, the format chosen by the output name, and an unwritable
 * output.  HOME and XDG_STATE_HOME point at a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/sanitize.h"
#include "llm/conv.h"
#include "session/session.h"
#include "session/export.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "sess_fixture.h"









static void
test_export(void **state)
{
	struct session_loaded l;
	struct buf md = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	struct conv c;
	char *path, *html;

	(void)state;
	sample_conv(&c);
	path = write_conv(&c, ROOT);
	conv_release(&c);
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	session_export_md(&l, "t", &md);
	assert_non_null(strstr(md.data, "# t\n"));
	assert_non_null(strstr(md.data, "## User\n\nfix the \"bug\""));
	assert_non_null(strstr(md.data, "**Tool call** `read`:\n\n```json\n{\"path\":\"main.c\"}\n```\n"));
	/* the result holds ``` so its fence is longer */
	assert_non_null(strstr(md.data, "**Tool result** `read` (error):\n\n````\nno such file ```x```\n````\n"));
	assert_non_null(strstr(md.data, "## Assistant (interrupted)"));
	assert_non_null(strstr(md.data, "## Tool results\n\n**Tool result** `read`")); /* not "## User" */
	assert_non_null(strstr(md.data, "*Thinking:*"));
	session_loaded_release(&l);
	/* HTML via session_export_file: escaped, no external resources */
	buf_addf(&out, "%s/out.html", tmp);
	assert_int_equal(session_export_file(path, out.data, NULL, &e), 0);
	html = slurp(out.data);
	assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(html, "<style>"));
	assert_non_null(strstr(html, "partial &lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "think &lt;/pre&gt; &amp; &lt;b&gt;"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "href="));
	assert_non_null(strstr(html, "<div class=\"role\">Tool results</div>"));
	assert_null(strstr(html, "@import"));
	assert_non_null(strstr(html, "</html>"));
	free(html);
	buf_reset(&out);
	buf_addf(&out, "%s/out.md", tmp);
	assert_int_equal(session_export_file(path, out.data, NULL, &e), 0);
	html = slurp(out.data);
	assert_non_null(strstr(html, "## Assistant"));
	free(html);
	buf_reset(&out);
	buf_addf(&out, "%s/no/dir/out.md", tmp);
	assert_int_equal(session_export_file(path, out.data, NULL, &e), -1);
	free(path);
	buf_release(&md);
	buf_release(&out);
}

/* Whether s is valid UTF-8 throughout. */
static int
valid_utf8(const char *s)
{
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		if (!(k = sanitize_utf8_len((const unsigned char *)s + i, n - i)))
			return 0;
		i += k;
	}
	return 1;
}

/* The <section> around the first occurrence of needle (malloc'd). */
static char *
section_of(const char *html, const char *needle)
{
	const char *at = strstr(html, needle), *p = html, *start = NULL;

	assert_non_null(at);
	while ((p = strstr(p, "<section")) != NULL && p < at)
		start = p++;
	assert_non_null(start);
	return strndup(start, (size_t)(strchr(start, '>') - start + 1));
}

/*
 * Item 6: a hostile transcript exports as a page a user would share: Markdown
 * rendered, diffs coloured, tool calls folded, tool results labelled as the
 * tools', and nothing from the session able to run, load or corrupt anything.
 */
static void
test_export_html_page(void **state)
{
	struct conv c;
	struct conv_msg *m;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	char *path, *html, *sec;

	(void)state;
	conv_init(&c);
	conv_add_user_text(&c, "please *fix* <script>alert('u')</script> \x1b[2J\x1b]0;pwned\x07 bad \xff\xfe utf");
	m = conv_add_msg(&c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TEXT, "Here is **the plan**:\n\n| step | what |\n|---|---|\n| 1 | edit |\n\n"
		       "[click](javascript:alert(1)) [ent](&#x6a;avascript:alert(2)) [ok](https://example.org/a?b=1&c=2) "
		       "![px](http://tracker.example/p.png) <img src=x onerror=alert(3)> <script>alert(4)</script>\n\n"
		       "```diff\n-old line\n+new <line>\n```\n\nEnd \x1b[31mred\x1b[0m \xc3\x28.", NULL, NULL);
	conv_add_block(m, CONV_TOOL_CALL, "{\"path\":\"a.c\",\"old\":\"x\",\"new\":\"</pre><script>y</script>\"}",
		       "c1", "edit");
	m = conv_add_msg(&c, CONV_USER);
	conv_add_block(m, CONV_TOOL_RESULT, "--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n ctx\n-x\n+</pre><script>y</script>\n",
		       "c1", "edit");
	/* an empty result (its line count once read before the text: fuzz_session) and a one-line one */
	conv_add_block(m, CONV_TOOL_RESULT, "", "c2", "bash");
	conv_add_block(m, CONV_TOOL_RESULT, "one\n", "c3", "grep");
	path = write_conv(&c, ROOT);
	conv_release(&c);
	buf_addf(&out, "%s/page.html", tmp);
	assert_int_equal(session_export_file(path, out.data, NULL, &e), 0);
	html = slurp(out.data);
	/* Markdown rendered */
	assert_non_null(strstr(html, "<strong>the plan</strong>"));
	assert_non_null(strstr(html, "<table>"));
	assert_non_null(strstr(html, "<a href=\"https://example.org/a?b=1&amp;c=2\">ok</a>"));
	/* the user's text as typed (no Markdown), escaped */
	assert_non_null(strstr(html, "please *fix* &lt;script&gt;alert(&#39;u&#39;)&lt;/script&gt;"));
	/* diffs coloured: the tool's result and the ```diff block */
	assert_non_null(strstr(html, "<span class=\"dd\">-x</span>"));
	assert_non_null(strstr(html, "<span class=\"da\">+&lt;/pre&gt;&lt;script&gt;y&lt;/script&gt;</span>"));
	assert_non_null(strstr(html, "<span class=\"dh\">@@ -1,2 +1,2 @@</span>"));
	assert_non_null(strstr(html, "<span class=\"dd\">-old line</span>"));
	assert_non_null(strstr(html, "<span class=\"da\">+new &lt;line&gt;</span>"));
	/* tool calls and results fold; the result is the tools', not the user's */
	assert_non_null(strstr(html, "<details class=\"call\"><summary><span class=\"tool\">edit</span> <code>"));
	assert_non_null(strstr(html, "<details class=\"result\"><summary><span class=\"tool\">edit</span> result"));
	sec = section_of(html, "<details class=\"result\">");
	assert_string_equal(sec, "<section class=\"msg tool\">");
	free(sec);
	assert_non_null(strstr(html, "<div class=\"role\">Tool results</div>"));
	assert_non_null(strstr(html, "edit</span> result &middot; 6 lines</summary>"));
	assert_non_null(strstr(html, "bash</span> result &middot; 0 lines</summary>"));
	assert_non_null(strstr(html, "grep</span> result &middot; 1 line</summary>"));
	sec = section_of(html, "please *fix*");
	assert_string_equal(sec, "<section class=\"msg user\">");
	free(sec);
	/* nothing runs, loads or corrupts */
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "javascript:"));
	assert_null(strstr(html, "tracker.example/p.png\""));
	assert_non_null(strstr(html, "href=\"#blocked\">click"));
	assert_non_null(strstr(html, "href=\"#blocked\">ent"));
	assert_null(strchr(html, '\x1b'));
	assert_null(strchr(html, '\x07'));
	assert_non_null(strstr(html, "^[[2J"));
	assert_non_null(strstr(html, "^[[31mred"));
	assert_true(valid_utf8(html));
	assert_non_null(strstr(html, "bad \xef\xbf\xbd\xef\xbf\xbd utf"));
	assert_non_null(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'"));
	free(html);
	free(path);
	buf_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_export, setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_html_page, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

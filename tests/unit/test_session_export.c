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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_export, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

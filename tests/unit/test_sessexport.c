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

#include "buf.h"
#include "conv.h"
#include "session.h"
#include "sessexport.h"
#include "testutil.h"
#include "xmalloc.h"

#define ROOT "/work/some project/app"

static char *tmp;

/* Fresh HOME and XDG_STATE_HOME under a temp dir. */
static int
setup(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	tmp = tu_tmpdir();
	setenv("HOME", tmp, 1);
	buf_addf(&b, "%s/state", tmp);
	setenv("XDG_STATE_HOME", b.data, 1);
	buf_release(&b);
	return 0;
}

static int
teardown(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_addf(&b, "chmod -R u+rwx '%s' 2>/dev/null", tmp);
	(void)!system(b.data);
	buf_release(&b);
	tu_rmrf(tmp);
	free(tmp);
	return 0;
}

/* Whole file as a malloc'd string. */
static char *
slurp(const char *path)
{
	struct buf b = BUF_INIT;

	assert_int_equal(buf_read_file(&b, path, 0, NULL), 0);
	return buf_detach(&b, NULL);
}

/* Block with every field set (NULL fields allowed). */
static void
add_full(struct conv_msg *m, enum conv_kind k, const char *text, const char *id,
	 const char *name, int is_error, const char *prov, const char *sig)
{
	struct conv_block *b = conv_add_block(m, k, text, id, name);

	b->is_error = is_error;
	b->provider = xstrdup(prov);
	b->signature = xstrdup(sig);
}

/* A conv using every kind and field, odd characters included. */
static void
sample_conv(struct conv *c)
{
	struct conv_msg *m;

	conv_init(c);
	conv_add_user_text(c, "fix the \"bug\"\tin\nmain.c \\ ünïcödé 🙂 \x01");
	m = conv_add_msg(c, CONV_ASSISTANT);
	add_full(m, CONV_REASONING, "think </pre> & <b>", NULL, NULL, 0, "llama", "sig==");
	add_full(m, CONV_TEXT, "", NULL, NULL, 0, NULL, NULL);
	add_full(m, CONV_TOOL_CALL, "{\"path\":\"main.c\"}", "call_1", "read", 0, NULL, NULL);
	m = conv_add_msg(c, CONV_USER);
	add_full(m, CONV_TOOL_RESULT, "no such file ```x```", "call_1", "read", 1, NULL, NULL);
	add_full(m, CONV_IMAGE, "aGVsbG8=", NULL, "image/png", 0, NULL, NULL);
	m = conv_add_msg(c, CONV_ASSISTANT);
	m->aborted = 1;
	add_full(m, CONV_TEXT, "partial <script>alert(1)</script>", NULL, NULL, 0, NULL, NULL);
}

/* Write every message of c into a new session; returns its path (malloc'd). */
static char *
write_conv(const struct conv *c, const char *root)
{
	char cwd[] = "/cwd", model[] = "qwen3", server[] = "http://127.0.0.1:8080";
	struct session_meta meta = { cwd, model, server, NULL, NULL };
	struct err e = ERR_INIT;
	struct session *s = session_create(root, &meta, &e);
	char *path;
	size_t i;

	assert_non_null(s);
	for (i = 0; i < c->nmsgs; i++)
		assert_int_equal(session_append_msg(s, &c->msgs[i], &e), 0);
	path = xstrdup(session_path(s));
	session_close(s);
	return path;
}

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
	sessexport_md(&l, "t", &md);
	assert_non_null(strstr(md.data, "# t\n"));
	assert_non_null(strstr(md.data, "## User\n\nfix the \"bug\""));
	assert_non_null(strstr(md.data, "**Tool call** `read`:\n\n```json\n{\"path\":\"main.c\"}\n```\n"));
	/* the result holds ``` so its fence is longer */
	assert_non_null(strstr(md.data, "**Tool result** `read` (error):\n\n````\nno such file ```x```\n````\n"));
	assert_non_null(strstr(md.data, "## Assistant (interrupted)"));
	assert_non_null(strstr(md.data, "*Thinking:*"));
	session_loaded_release(&l);
	/* HTML via sessexport_file: escaped, no external resources */
	buf_addf(&out, "%s/out.html", tmp);
	assert_int_equal(sessexport_file(path, out.data, NULL, &e), 0);
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
	assert_int_equal(sessexport_file(path, out.data, NULL, &e), 0);
	html = slurp(out.data);
	assert_non_null(strstr(html, "## Assistant"));
	free(html);
	buf_reset(&out);
	buf_addf(&out, "%s/no/dir/out.md", tmp);
	assert_int_equal(sessexport_file(path, out.data, NULL, &e), -1);
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

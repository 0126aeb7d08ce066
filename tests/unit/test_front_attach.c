/*
 * test_atref: @path references — attaching files to a message (once
 * each, size cap, binary, outside the workspace, missing files, trailing
 * punctuation, privacy redaction for Claude) and completing paths
 * (directories, skipped heavy and hidden entries, confinement), also
 * through the editor's Tab key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/app/complete.h"
#include "front/attach.h"
#include "ui/view/editor.h"
#include "route/config.h"

static char root[4096], outside[4200];

/* Write n bytes of c (or text when given) to root/rel. */
static void
put(const char *rel, const char *text, size_t n, char c)
{
	char p[4400];
	FILE *f;
	size_t i;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	if (text)
		fputs(text, f);
	for (i = 0; !text && i < n; i++)
		fputc(c, f);
	fclose(f);
}

/* mkdir root/rel. */
static void
dir(const char *rel)
{
	char p[4400];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0700), 0);
}

static int
setup(void **state)
{
	char real[64];

	(void)state;
	snprintf(real, sizeof real, "/tmp/hearth-atref-XXXXXX");
	if (!mkdtemp(real) || !realpath(real, root))
		return -1;
	snprintf(outside, sizeof outside, "%s-outside.txt", root);
	dir("src");
	dir("src/sub");
	dir("node_modules");
	dir(".git");
	put("src/main.c", "int main(void) { return 0; }\n", 0, 0);
	put("src/main.h", "int f(void);", 0, 0);
	put("src/sub/deep.py", "x = 1\n", 0, 0);
	put(".env", "SECRET=1\n", 0, 0);
	put("big.log", NULL, FRONT_ATTACH_FILE_MAX + 1, 'x');
	{
		char p[4400];
		FILE *f;
		snprintf(p, sizeof p, "%s/blob.bin", root);
		f = fopen(p, "w");
		fwrite("\x7f" "ELF\0\0\0\x01\x02\0\0", 1, 11, f);
		fclose(f);
	}
	put("secrets.txt", "pw=hunter2\n", 0, 0);
	{
		FILE *f = fopen(outside, "w");
		fputs("outside\n", f);
		fclose(f);
	}
	return 0;
}

static int
teardown(void **state)
{
	char cmd[8400];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
	return system(cmd);
}

static void
test_attach(void **state)
{
	struct buf out = BUF_INIT, notes = BUF_INIT;

	(void)state;
	assert_int_equal(front_attach_expand(root, 0, "explain @src/main.c and (@src/main.h), "
	    "again @src/main.c.", NULL, &out, &notes), 2);
	assert_non_null(strstr(out.data, "explain @src/main.c and (@src/main.h), again "
	    "@src/main.c.\n\n<file path=\"src/main.c\">\nint main(void) { return 0; }\n</file>"));
	assert_non_null(strstr(out.data, "<file path=\"src/main.h\">\nint f(void);\n</file>"));
	assert_null(strstr(strstr(out.data, "</file>") + 1, "path=\"src/main.c\""));
	assert_non_null(strstr(notes.data, "attached src/main.c (29 B)"));
	buf_release(&out);
	buf_release(&notes);
}

static void
test_refusals(void **state)
{
	struct buf out = BUF_INIT, notes = BUF_INIT, msg = BUF_INIT;

	(void)state;
	buf_addf(&msg, "@claude look at @big.log @blob.bin @src @nope/x.c @%s @../x a@b.c", outside);
	assert_int_equal(front_attach_expand(root, 0, msg.data, NULL, &out, &notes), 0);
	assert_string_equal(out.data, msg.data);
	assert_non_null(strstr(notes.data, "@big.log: 256.0 KB is over the 256 KB attachment limit"));
	assert_non_null(strstr(notes.data, "@blob.bin: a binary file"));
	assert_non_null(strstr(notes.data, "@src: not a regular file"));
	assert_non_null(strstr(notes.data, "@nope/x.c: no such file in the workspace"));
	assert_non_null(strstr(notes.data, "refused: it is outside the workspace"));
	assert_null(strstr(notes.data, "claude"));
	assert_null(strstr(notes.data, "b.c"));
	buf_reset(&out);
	buf_reset(&notes);
	/* allowed outside by the setting */
	assert_int_equal(front_attach_expand(root, 1, msg.data, NULL, &out, &notes), 1);
	assert_non_null(strstr(out.data, "outside\n</file>"));
	buf_release(&out);
	buf_release(&notes);
	buf_release(&msg);
}

/* To Claude, a private file's content is replaced by the redaction notice. */
static void
test_redact(void **state)
{
	struct route_policy p;
	struct buf out = BUF_INIT, notes = BUF_INIT;
	struct buf w = BUF_INIT;
	static const char cfg[] = "{\"routing\": {\"privacy\": [\"secrets.txt\"]}}";

	(void)state;
	route_config_defaults(&p);
	route_config_apply_text(&p, cfg, strlen(cfg), "test", &w, NULL);
	front_attach_expand(root, 0, "@secrets.txt", &p, &out, &notes);
	assert_null(strstr(out.data, "hunter2"));
	assert_non_null(strstr(out.data, "not shown to Claude"));
	buf_reset(&out);
	front_attach_expand(root, 0, "@secrets.txt", NULL, &out, &notes);
	assert_non_null(strstr(out.data, "hunter2"));
	route_config_release(&p);
	buf_release(&out);
	buf_release(&notes);
	buf_release(&w);
}

static void
test_complete(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(front_attach_complete(root, "", &out), 4);
	assert_string_equal(out.data, "big.log\nblob.bin\nsecrets.txt\nsrc/\n");
	buf_reset(&out);
	assert_int_equal(front_attach_complete(root, "src/ma", &out), 2);
	assert_string_equal(out.data, "src/main.c\nsrc/main.h\n");
	buf_reset(&out);
	assert_int_equal(front_attach_complete(root, ".", &out), 1);
	assert_string_equal(out.data, ".env\n");
	buf_reset(&out);
	assert_int_equal(front_attach_complete(root, "node", &out), 0);
	assert_int_equal(front_attach_complete(root, "../", &out), 0);
	assert_int_equal(front_attach_complete(root, "nope/", &out), 0);
	buf_release(&out);
}

/* Tab in the editor: common prefix, a space after one file, a list for several. */
static void
test_editor_tab(void **state)
{
	struct editor ed;
	struct buf note = BUF_INIT, text = BUF_INIT;

	(void)state;
	editor_init(&ed);
	editor_insert(&ed, "see @sr", 7);
	assert_int_equal(app_complete_tab(&ed, root, NULL, &note), EDITOR_DONE);
	editor_text(&ed, &text);
	assert_string_equal(text.data, "see @src/");
	editor_insert(&ed, "s", 1);
	assert_int_equal(app_complete_tab(&ed, root, NULL, &note), EDITOR_DONE);
	assert_int_equal(app_complete_tab(&ed, root, NULL, &note), EDITOR_DONE);
	buf_reset(&text);
	editor_text(&ed, &text);
	assert_string_equal(text.data, "see @src/sub/deep.py ");
	editor_clear(&ed);
	editor_insert(&ed, "@src/m", 6);
	assert_int_equal(app_complete_tab(&ed, root, NULL, &note), EDITOR_NOTICE);
	assert_string_equal(note.data, "@src/main.c\n@src/main.h");
	buf_reset(&text);
	editor_text(&ed, &text);
	assert_string_equal(text.data, "@src/main.");
	editor_clear(&ed);
	editor_insert(&ed, "no at", 5);
	assert_int_equal(app_complete_tab(&ed, root, NULL, NULL), EDITOR_DONE);
	editor_insert(&ed, " @sr", 4);
	assert_int_equal(app_complete_tab(&ed, NULL, NULL, NULL), EDITOR_DONE);
	buf_reset(&text);
	editor_text(&ed, &text);
	assert_string_equal(text.data, "no at @sr");
	editor_release(&ed);
	buf_release(&note);
	buf_release(&text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_editor_tab),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

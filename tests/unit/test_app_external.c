/*
 * test_extedit: the external editor without a terminal — a script as
 * $EDITOR rewrites the temporary file; a missing editor and a failing one
 * give one-line errors and leave the text alone; /open's FILE[:LINE]
 * parsing, +LINE passing, and its refusals (missing file, directory,
 * unknown open_in).
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

#include "ui/app/external.h"

static char dir[64], script[128], edlog[128];

/* Write the fake editor: logs "$*", then runs body. */
static void
editor_script(const char *body)
{
	FILE *f = fopen(script, "w");

	assert_non_null(f);
	unlink(edlog);
	fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$*\" >>'%s'\n%s\n", edlog, body);
	fclose(f);
	chmod(script, 0700);
	setenv("EDITOR", script, 1);
	unsetenv("VISUAL");
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hearth-extedit-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(script, sizeof script, "%s/ed.sh", dir);
	snprintf(edlog, sizeof edlog, "%s/log", dir);
	setenv("TMPDIR", dir, 1);
	unsetenv("TMUX");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static void
test_text_rewritten(void **state)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	editor_script("f=$1; stat -c %a \"$f\" >>'/dev/null'; "
	    "[ \"$(stat -c %a \"$f\")\" = 600 ] || exit 9; "
	    "printf 'new text\\nline 2\\n' >\"$f\"");
	buf_adds(&out, "unchanged");
	assert_int_equal(app_external_text(NULL, "old text", 8, &out, &e), 0);
	assert_string_equal(out.data, "new text\nline 2");
	buf_release(&out);
}

static void
test_text_errors(void **state)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	buf_adds(&out, "keep");
	editor_script("exit 4");
	assert_int_equal(app_external_text(NULL, "x", 1, &out, &e), -1);
	assert_non_null(strstr(e.msg, "exited with status 4"));
	assert_string_equal(out.data, "keep");
	setenv("EDITOR", "/nonexistent/editor-xyz", 1);
	assert_int_equal(app_external_text(NULL, "x", 1, &out, &e), -1);
	assert_non_null(strstr(e.msg, "not found; set $VISUAL or $EDITOR"));
	assert_string_equal(out.data, "keep");
	setenv("VISUAL", "true", 1);
	assert_string_equal(app_external_editor(), "true");
	unsetenv("VISUAL");
	unsetenv("EDITOR");
	assert_string_equal(app_external_editor(), "vi");
	buf_release(&out);
}

static void
test_target(void **state)
{
	struct buf p = BUF_INIT;
	struct err e = ERR_INIT;
	long line;

	(void)state;
	assert_int_equal(app_external_target(" src/x.c:42 ", &p, &line, &e), 0);
	assert_string_equal(p.data, "src/x.c");
	assert_int_equal(line, 42);
	assert_int_equal(app_external_target("a:b.c", &p, &line, &e), 0);
	assert_string_equal(p.data, "a:b.c");
	assert_int_equal(line, 0);
	assert_int_equal(app_external_target("x.c:", &p, &line, &e), 0);
	assert_string_equal(p.data, "x.c:");
	assert_int_equal(app_external_target("   ", &p, &line, &e), -1);
	assert_non_null(strstr(e.msg, "give a file"));
	buf_release(&p);
}

static void
test_open_cmd(void **state)
{
	struct buf out = BUF_INIT, log = BUF_INIT;
	struct err e = ERR_INIT;
	char file[160], want[200];
	FILE *f;

	(void)state;
	snprintf(file, sizeof file, "%s/f.c", dir);
	f = fopen(file, "w");
	fputs("int x;\n", f);
	fclose(f);
	editor_script(":");
	assert_int_equal(app_external_open_cmd(NULL, dir, NULL, "f.c:7", &out), CMD_DONE);
	assert_non_null(strstr(out.data, "opened f.c:7"));
	assert_int_equal(buf_read_file(&log, edlog, 4096, &e), 0);
	snprintf(want, sizeof want, "+7 %s\n", file);
	assert_string_equal(log.data, want);
	buf_reset(&out);
	assert_int_equal(app_external_open_cmd(NULL, dir, "editor", "missing.c", &out), CMD_ERROR);
	assert_non_null(strstr(out.data, "missing.c"));
	buf_reset(&out);
	assert_int_equal(app_external_open_cmd(NULL, dir, NULL, ".", &out), CMD_ERROR);
	assert_non_null(strstr(out.data, "is a directory"));
	buf_reset(&out);
	assert_int_equal(app_external_open_cmd(NULL, dir, "window", "f.c", &out), CMD_ERROR);
	assert_non_null(strstr(out.data, "open_in: unknown value"));
	buf_reset(&out);
	/* tmux-pane outside tmux: the foreground editor instead */
	assert_int_equal(app_external_open_cmd(NULL, dir, "tmux-pane", "f.c", &out), CMD_DONE);
	assert_int_equal(app_external_tmux(dir, file, 1, &e), -1);
	assert_non_null(strstr(e.msg, "not running inside tmux"));
	buf_release(&out);
	buf_release(&log);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_rewritten),
		cmocka_unit_test(test_text_errors),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_open_cmd),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_memory: the memory files — where each kind goes, loading into the
 * prompt, and every check remember makes before it writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "prompt/memory.h"
#include "testutil.h"

struct fx {
	char *dir;
	struct buf root, cfg;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);

	f->dir = tu_tmpdir();
	buf_init(&f->root, 0);
	buf_init(&f->cfg, 0);
	buf_addf(&f->root, "%s/proj", f->dir);
	buf_addf(&f->cfg, "%s/cfg", f->dir);
	mkdir(f->root.data, 0755);
	tu_write(f->root.data, "main.c", "int main(void) { return 0; }\n");
	setenv("XDG_CONFIG_HOME", f->cfg.data, 1);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	buf_release(&f->root);
	buf_release(&f->cfg);
	free(f);
	unsetenv("XDG_CONFIG_HOME");
	return 0;
}

/* prompt_memory_add that must succeed. */
static void
add_ok(struct fx *f, const char *kind, const char *text, const char *path)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	if (prompt_memory_add(f->root.data, kind, text, path, &out, &e) < 0)
		fail_msg("memory_add %s: %s", kind, e.msg);
	assert_non_null(strstr(out.data, "remembered"));
	buf_release(&out);
}

/* prompt_memory_add that must fail with why in the message, leaving files as they were. */
static void
add_fails(struct fx *f, const char *kind, const char *text, const char *path, const char *why)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(prompt_memory_add(f->root.data, kind, text, path, &out, &e), -1);
	if (!strstr(e.msg, why))
		fail_msg("want \"%s\" in \"%s\"", why, e.msg);
	assert_int_equal(out.len, 0);
	buf_release(&out);
}

static void
test_kinds_go_to_their_dirs_and_load(void **state)
{
	struct fx *f = *state;
	struct buf p = BUF_INIT, w = BUF_INIT, path = BUF_INIT;
	char *t;

	add_ok(f, "user", "Prefers short answers", NULL);
	add_ok(f, "feedback", "Run make lint before committing", NULL);
	add_ok(f, "project", "Tests live in tests/unit", NULL);
	add_ok(f, "reference", "Entry point", "main.c");
	buf_addf(&path, "%s/hearth/memory", f->cfg.data);
	t = tu_read(path.data, "user.md");
	assert_string_equal(t, "- Prefers short answers\n");
	free(t);
	t = tu_read(path.data, "feedback.md");
	assert_non_null(t);
	free(t);
	buf_reset(&path);
	buf_addf(&path, "%s/.hearth/memory", f->root.data);
	t = tu_read(path.data, "reference.md");
	assert_string_equal(t, "- Entry point (path: main.c)\n");
	free(t);
	prompt_memory_load(f->root.data, &p, &w);
	assert_int_equal(w.len, 0);
	assert_non_null(strstr(p.data, "### user\n- Prefers short answers\n"));
	assert_non_null(strstr(p.data, "### project\n- Tests live in tests/unit\n"));
	assert_true(strstr(p.data, "### user") < strstr(p.data, "### feedback"));
	assert_true(strstr(p.data, "### project") < strstr(p.data, "### reference"));
	buf_release(&p);
	buf_release(&w);
	buf_release(&path);
}

static void
test_nothing_remembered_adds_nothing(void **state)
{
	struct fx *f = *state;
	struct buf p = BUF_INIT, w = BUF_INIT;

	prompt_memory_load(f->root.data, &p, &w);
	assert_int_equal(p.len, 0);
	assert_int_equal(w.len, 0);
	buf_release(&p);
	buf_release(&w);
}

static void
test_checks_before_writing(void **state)
{
	struct fx *f = *state;
	char big[PROMPT_MEMORY_MAX_TEXT + 10];

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	add_fails(f, "secrets", "x", NULL, "not one of user, feedback, project, reference");
	add_fails(f, NULL, "x", NULL, "not one of");
	add_fails(f, "project", "   \n ", NULL, "empty");
	add_fails(f, "project", NULL, NULL, "empty");
	add_fails(f, "project", big, NULL, "under 500 bytes");
	add_fails(f, "project", "bell\a", NULL, "control characters");
	add_fails(f, "reference", "Old parser", "src/nowhere.c", "does not exist");
	add_ok(f, "reference", "Docs", "https://example.org/docs");
	add_ok(f, "project", "Uses  C11\nand POSIX", NULL);
	add_fails(f, "project", "uses c11 and   POSIX ", NULL, "already remembered");
}

static void
test_hand_written_file_kept(void **state)
{
	struct fx *f = *state;
	struct buf dir = BUF_INIT, p = BUF_INIT, w = BUF_INIT;
	char *t;

	buf_addf(&dir, "%s/.hearth", f->root.data);
	mkdir(dir.data, 0755);
	buf_adds(&dir, "/memory");
	mkdir(dir.data, 0755);
	tu_write(f->root.data, ".hearth/memory/project.md", "# notes\n- Builds with make");
	add_fails(f, "project", "builds with MAKE", NULL, "already remembered");
	add_ok(f, "project", "Lint with make lint", NULL);
	t = tu_read(dir.data, "project.md");
	assert_string_equal(t, "# notes\n- Builds with make\n- Lint with make lint\n");
	free(t);
	prompt_memory_load(f->root.data, &p, &w);
	assert_non_null(strstr(p.data, "# notes\n- Builds with make\n- Lint with make lint\n"));
	buf_release(&dir);
	buf_release(&p);
	buf_release(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kinds_go_to_their_dirs_and_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_remembered_adds_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checks_before_writing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hand_written_file_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

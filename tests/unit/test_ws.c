/*
 * test_ws: workspace path resolution — relative, absolute, "..", missing
 * components, "~", symlinks that escape, allow_outside, and display paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_fixture.h"
#include "base/workspace.h"
#include "testutil.h"

/* Resolve and return 0/-1; the result or message lands in *res. */
static int
resolve(struct fixture *f, int outside, const char *path, char *res, size_t n)
{
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	int rc = workspace_resolve(f->root, outside, path, &out, &e);

	snprintf(res, n, "%s", rc == 0 ? out.data : e.msg);
	buf_release(&out);
	return rc;
}

/* Expect path to resolve to ROOT + "/" + rel (or ROOT when rel is ""). */
static void
expect_inside(struct fixture *f, const char *path, const char *rel)
{
	char res[PATH_MAX * 2], want[PATH_MAX * 2];

	assert_int_equal(resolve(f, 0, path, res, sizeof res), 0);
	snprintf(want, sizeof want, "%s%s%s", f->root, *rel ? "/" : "", rel);
	assert_string_equal(res, want);
}

static int
setup(void **state)
{
	struct fixture *f = fixture_new();

	fixture_mkdir(f, "src");
	fixture_puts(f, "src/a.c", "int a;\n");
	*state = f;
	return 0;
}

static void
test_relative_and_lexical(void **state)
{
	struct fixture *f = *state;

	expect_inside(f, "src/a.c", "src/a.c");
	expect_inside(f, "./src//a.c", "src/a.c");
	expect_inside(f, "src/../src/a.c", "src/a.c");
	expect_inside(f, "new/dir/f.txt", "new/dir/f.txt");
	expect_inside(f, "new/../x", "x");
	expect_inside(f, "src/new/./../b.c", "src/b.c");
	expect_inside(f, "", "");
	expect_inside(f, ".", "");
	expect_inside(f, "src/a.c/", "src/a.c");
	expect_inside(f, NULL, "");
	/* two-character names that are not ".." stay names */
	expect_inside(f, "new/a./x", "new/a./x");
	expect_inside(f, "new/.g/x", "new/.g/x");
	expect_inside(f, "src/.g/../a.", "src/a.");
}

/* The output buffer is reset first: a second resolve into it holds only its own answer. */
static void
test_out_reset(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;
	struct err e = ERR_INIT;
	char want[PATH_MAX * 2];

	buf_adds(&out, "stale");
	assert_int_equal(workspace_resolve(f->root, 0, "src", &out, &e), 0);
	assert_int_equal(workspace_resolve(f->root, 0, "src/a.c", &out, &e), 0);
	snprintf(want, sizeof want, "%s/src/a.c", f->root);
	assert_string_equal(out.data, want);
	buf_release(&out);
}

static void
test_absolute(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX * 2];

	snprintf(path, sizeof path, "%s/src/a.c", f->root);
	expect_inside(f, path, "src/a.c");
	snprintf(path, sizeof path, "%s/src/../missing", f->root);
	expect_inside(f, path, "missing");
}

static void
test_escapes_refused(void **state)
{
	struct fixture *f = *state;
	char res[PATH_MAX * 2], want[PATH_MAX * 2];

	assert_int_equal(resolve(f, 0, "../x", res, sizeof res), -1);
	snprintf(want, sizeof want,
		 "path \"../x\" is outside the workspace %s; use a path inside it", f->root);
	assert_string_equal(res, want);
	assert_int_equal(resolve(f, 0, "/etc/passwd", res, sizeof res), -1);
	assert_non_null(strstr(res, "outside the workspace"));
	assert_int_equal(resolve(f, 0, "new/../../x", res, sizeof res), -1);
	assert_int_equal(resolve(f, 0, "src/../../../../../../..", res, sizeof res), -1);
	/* a sibling sharing the root as a string prefix is still outside */
	snprintf(want, sizeof want, "%sx/y", f->root);
	assert_int_equal(resolve(f, 0, want, res, sizeof res), -1);
}

static void
test_allow_outside(void **state)
{
	struct fixture *f = *state;
	char res[PATH_MAX * 2];

	assert_int_equal(resolve(f, 1, "/etc/../etc/passwd", res, sizeof res), 0);
	assert_string_equal(res, "/etc/passwd");
	assert_int_equal(resolve(f, 1, "/no/such/../file", res, sizeof res), 0);
	assert_string_equal(res, "/no/file");
	assert_int_equal(resolve(f, 1, "/../..", res, sizeof res), 0);
	assert_string_equal(res, "/");
	/* ".." after a missing top-level directory comes back to "/", not to "" */
	assert_int_equal(resolve(f, 1, "/no-such-hearth-top/..", res, sizeof res), 0);
	assert_string_equal(res, "/");
	assert_int_equal(resolve(f, 1, "/no-such-hearth-top/../etc", res, sizeof res), 0);
	assert_string_equal(res, "/etc");
}

static void
test_symlinks(void **state)
{
	struct fixture *f = *state;
	char res[PATH_MAX * 2], other[PATH_MAX * 2];
	struct fixture *out = fixture_new();

	fixture_puts(out, "secret", "s\n");
	snprintf(other, sizeof other, "%s", out->root);
	assert_int_equal(symlink(other, fixture_path(f, "link")), 0);
	snprintf(other, sizeof other, "%s/secret", out->root);
	assert_int_equal(symlink(other, fixture_path(f, "flink")), 0);
	assert_int_equal(symlink("src", fixture_path(f, "inner")), 0);
	assert_int_equal(resolve(f, 0, "link/secret", res, sizeof res), -1);
	assert_non_null(strstr(res, "outside the workspace"));
	assert_int_equal(resolve(f, 0, "link", res, sizeof res), -1);
	assert_int_equal(resolve(f, 0, "link/new-file", res, sizeof res), -1);
	assert_int_equal(resolve(f, 0, "flink", res, sizeof res), -1);
	expect_inside(f, "inner/a.c", "src/a.c");
	expect_inside(f, "inner/new.c", "src/new.c");
	/* a path on through a link to a file: the link is resolved, inside or out */
	assert_int_equal(symlink("src/a.c", fixture_path(f, "ilink")), 0);
	expect_inside(f, "ilink/x", "src/a.c/x");
	expect_inside(f, "ilink/x/", "src/a.c/x");
	/* Issue 20: a trailing slash names a directory: a link to a file is not followed then */
	expect_inside(f, "ilink/", "ilink");
	expect_inside(f, "ilink//", "ilink");
	expect_inside(f, "src/a.c/x/y", "src/a.c/x/y");
	assert_int_equal(resolve(f, 0, "flink/x", res, sizeof res), -1);
	assert_non_null(strstr(res, "outside the workspace"));
	assert_int_equal(resolve(f, 0, "flink//x/", res, sizeof res), -1);
	assert_int_equal(resolve(f, 1, "link/secret", res, sizeof res), 0);
	assert_string_equal(res, other);
	fixture_free(out);
}

static void
test_home(void **state)
{
	struct fixture *f = *state;
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char res[PATH_MAX * 2];

	setenv("HOME", f->root, 1);
	expect_inside(f, "~/src/a.c", "src/a.c");
	setenv("HOME", "/", 1);
	assert_int_equal(resolve(f, 0, "~/x", res, sizeof res), -1);
	/* "~name" is an ordinary file name */
	expect_inside(f, "~x", "~x");
	/* "~" alone is HOME itself */
	setenv("HOME", f->root, 1);
	expect_inside(f, "~", "");
	expect_inside(f, "~/", "");
	/* a relative HOME is not searched from the working directory, and does not hang */
	setenv("HOME", "no-such-hearth-home", 1);
	assert_int_equal(resolve(f, 0, "~/x", res, sizeof res), -1);
	assert_non_null(strstr(res, "outside the workspace"));
	/* without HOME, "~" and "~/x" are ordinary names in the workspace */
	unsetenv("HOME");
	expect_inside(f, "~", "~");
	expect_inside(f, "~/x", "~/x");
	if (old)
		setenv("HOME", old, 1);
	free(old);
}

static void
test_rel_and_inside(void **state)
{
	(void)state;
	assert_string_equal(workspace_rel("/w/r", "/w/r"), ".");
	assert_string_equal(workspace_rel("/w/r", "/w/r/a/b"), "a/b");
	assert_string_equal(workspace_rel("/w/r/", "/w/r/a"), "a");
	assert_string_equal(workspace_rel("/w/r", "/w/rx/a"), "/w/rx/a");
	assert_string_equal(workspace_rel("/w/r", "/etc"), "/etc");
	assert_string_equal(workspace_rel("/", "/etc/x"), "etc/x");
	assert_string_equal(workspace_rel("/", "/"), ".");
	assert_true(workspace_inside("/w/r", "/w/r"));
	assert_true(workspace_inside("/w/r", "/w/r/x"));
	assert_false(workspace_inside("/w/r", "/w/rx"));
	assert_false(workspace_inside("/w/r", "/w"));
	assert_true(workspace_inside("/", "/anything"));
	assert_true(workspace_inside("/", "/"));
	assert_false(workspace_inside("/", ""));
	assert_false(workspace_inside("/", "rel"));
	assert_true(workspace_inside("/w/r//", "/w/r/x"));
	assert_false(workspace_inside("/w/r//", "/w/rx"));
}

/* Project discovery: the nearest .git upwards, project files up to it and not above. */
static void
test_project(void **state)
{
	struct fixture *f = *state;
	struct buf out = BUF_INIT;
	char proj[PATH_MAX + 8], deep[PATH_MAX + 16], want[PATH_MAX * 2], lone[] = "/dev/shm/hearth-lone-XXXXXX";

	fixture_mkdir(f, "proj");
	fixture_mkdir(f, "proj/.git");
	fixture_mkdir(f, "proj/a");
	fixture_mkdir(f, "proj/a/b");
	fixture_puts(f, "proj/.mcp.json", "{}\n");
	fixture_puts(f, "proj/a/.hearth.json", "{}\n");
	fixture_puts(f, "above.json", "{}\n"); /* above the repository: never found */
	snprintf(proj, sizeof proj, "%s/proj", f->root);
	snprintf(deep, sizeof deep, "%s/proj/a/b", f->root);
	buf_adds(&out, "X:"); /* appended to */
	workspace_project_top(deep, &out);
	snprintf(want, sizeof want, "X:%s", proj);
	assert_string_equal(out.data, want);
	buf_reset(&out);
	workspace_project_top(proj, &out);
	assert_string_equal(out.data, proj);
	buf_reset(&out);
	workspace_project_file(deep, ".mcp.json", &out);
	snprintf(want, sizeof want, "%s/.mcp.json", proj);
	assert_string_equal(out.data, want);
	buf_reset(&out);
	workspace_project_file(deep, ".hearth.json", &out);
	snprintf(want, sizeof want, "%s/a/.hearth.json", proj);
	assert_string_equal(out.data, want);
	buf_reset(&out);
	workspace_project_file(deep, "above.json", &out);
	snprintf(want, sizeof want, "%s/above.json", deep);
	assert_string_equal(out.data, want);
	buf_reset(&out);
	/* a .git file (a worktree) marks the top too */
	fixture_puts(f, "proj/a/.git", "gitdir: x\n");
	workspace_project_top(deep, &out);
	snprintf(want, sizeof want, "%s/a", proj);
	assert_string_equal(out.data, want);
	buf_reset(&out);
	/* no repository up to "/": cwd itself, its files only there */
	if (access("/.git", F_OK) == 0) {
		buf_release(&out);
		return;
	}
	if (mkdtemp(lone)) {
		workspace_project_top(lone, &out);
		assert_string_equal(out.data, lone);
		buf_reset(&out);
		workspace_project_file(lone, "x.json", &out);
		snprintf(want, sizeof want, "%s/x.json", lone);
		assert_string_equal(out.data, want);
		buf_reset(&out);
		rmdir(lone);
	}
	workspace_project_top("/", &out);
	assert_string_equal(out.data, "/");
	buf_reset(&out);
	workspace_project_file("/", "etc", &out);
	assert_string_equal(out.data, "/etc");
	buf_reset(&out);
	workspace_project_file("/", "no-such-hearth.json", &out);
	assert_string_equal(out.data, "/no-such-hearth.json");
	buf_release(&out);
}

/*
 * Issue 20: a repository at "/" itself (a container's or a chroot's) is the
 * project top of "/a": the climb from "/a" goes up to "/" and looks there.
 * A child in its own user and mount namespace chroots into a tree with
 * .git at its root (tu_in_chroot).
 */
/* The child of test_project_at_slash, in the chroot: 0, or the check that failed. */
static int
project_at_slash(void *arg)
{
	struct buf out = BUF_INIT;
	int rc = 0;

	(void)arg;
	workspace_project_top("/a/b", &out);
	if (strcmp(out.data, "/"))
		rc = 10;
	buf_reset(&out);
	workspace_project_top("/a", &out);
	if (!rc && strcmp(out.data, "/"))
		rc = 11;
	buf_reset(&out);
	workspace_project_top("/", &out);
	if (!rc && strcmp(out.data, "/"))
		rc = 12;
	buf_release(&out);
	return rc;
}

static void
test_project_at_slash(void **state)
{
	struct fixture *f = *state;

	fixture_mkdir(f, ".git");
	fixture_mkdir(f, "a");
	fixture_mkdir(f, "a/b");
	tu_in_chroot(f->root, 0, project_at_slash, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_relative_and_lexical, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_absolute, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_out_reset, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_escapes_refused, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_allow_outside, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_home, setup, fixture_teardown),
		cmocka_unit_test(test_rel_and_inside),
		cmocka_unit_test_setup_teardown(test_project, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_project_at_slash, setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

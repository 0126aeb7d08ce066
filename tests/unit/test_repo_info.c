/*
 * test_gitinfo: the git summary on temporary repositories built with the
 * git CLI — no repository, a clean branch with its upstream ahead/behind,
 * a dirty tree (modified/added/deleted/untracked, untracked directory as
 * one entry, the 10-path cap), detached HEAD, no commits yet, a bare
 * repository, a linked worktree, a locked index, a root below the top;
 * and that the index file's bytes never change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "repo/info.h"
#include "tool_fixture.h"

/* Run a shell command in dir (quiet); assert it succeeded. */
static void
sh(const char *dir, const char *cmd)
{
	struct buf line = BUF_INIT;

	buf_addf(&line, "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
	assert_int_equal(system(line.data), 0);
	buf_release(&line);
}

/* Output of a command in dir, first line, into out. */
static void
sh_out(const char *dir, const char *cmd, char *out, size_t n)
{
	struct buf line = BUF_INIT;
	FILE *p;

	buf_addf(&line, "cd '%s' && %s 2>/dev/null", dir, cmd);
	p = popen(line.data, "r");
	buf_release(&line);
	assert_non_null(p);
	if (!fgets(out, (int)n, p))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	pclose(p);
}

/* Both renderings of the repository at dir (static buffers). */
static void
render(const char *dir, char *prompt, char *status, size_t n)
{
	struct repo_info gi = REPO_INFO_INIT;
	struct err e = ERR_INIT;
	struct buf p = BUF_INIT, s = BUF_INIT;

	assert_int_equal(repo_info_read(dir, &gi, &e), 0);
	repo_info_prompt(&gi, &p);
	repo_info_status(&gi, &s);
	snprintf(prompt, n, "%s", p.len ? p.data : "");
	snprintf(status, n, "%s", s.len ? s.data : "");
	buf_release(&p);
	buf_release(&s);
	repo_info_release(&gi);
}

/* A repo "w" with one commit (a.c, c.c), in f's root; returns its path. */
static const char *
make_repo(struct fixture *f, const char *name)
{
	static char dir[PATH_MAX * 2];

	snprintf(dir, sizeof dir, "%s/%s", f->root, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	sh(dir, "git init -q -b main . && echo a > a.c && echo c > c.c && git add . && "
	   "git commit -q -m one");
	return dir;
}

static void
test_no_repo(void **state)
{
	struct fixture *f = fixture_new();
	char p[4096], s[4096];

	(void)state;
	render(f->root, p, s, sizeof p);
	assert_string_equal(p, "");
	assert_string_equal(s, "");
	fixture_free(f);
}

static void
test_upstream(void **state)
{
	struct fixture *f = fixture_new();
	char p[4096], s[4096], dir[PATH_MAX * 2];
	const char *origin = make_repo(f, "origin");

	(void)state;
	sh(f->root, "git clone -q origin w");
	snprintf(dir, sizeof dir, "%s/w", f->root);
	render(dir, p, s, sizeof p);
	assert_string_equal(p, "Git: on branch main, up to date with origin/main; working tree "
			    "clean.\n");
	assert_string_equal(s, "main");
	sh(dir, "echo 2 > a.c && git commit -qam two && echo 3 > a.c && git commit -qam three");
	sh(origin, "echo o > o.c && git add o.c && git commit -qm other");
	render(dir, p, s, sizeof p);
	assert_string_equal(p, "Git: on branch main, 2 ahead of origin/main; working tree clean.\n");
	assert_string_equal(s, "main \xE2\x86\x91" "2");
	sh(dir, "git fetch -q");
	render(dir, p, s, sizeof p);
	assert_string_equal(p, "Git: on branch main, 2 ahead and 1 behind origin/main; working "
			    "tree clean.\n");
	assert_string_equal(s, "main \xE2\x86\x91" "2 \xE2\x86\x93" "1");
	fixture_free(f);
}

/* Bytes of dir/.git/index (malloc'd). */
static char *
index_bytes(const char *dir, size_t *n)
{
	char path[PATH_MAX * 3];
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	snprintf(path, sizeof path, "%s/.git/index", dir);
	assert_int_equal(buf_read_file(&b, path, 0, &e), 0);
	return buf_detach(&b, n);
}

static void
test_dirty_and_index_untouched(void **state)
{
	struct fixture *f = fixture_new();
	char p[4096], s[4096];
	const char *dir = make_repo(f, "w");
	char *before, *after;
	size_t nb, na;

	(void)state;
	sh(dir, "echo z > z.c && git add z.c && git commit -qm z");
	sh(dir, "echo changed > a.c && echo b > b.c && git add b.c && rm c.c && "
	   "echo n > notes.txt && mkdir u && echo 1 > u/1 && echo 2 > u/2 && "
	   "touch -d '2001-01-01' z.c");
	before = index_bytes(dir, &nb);
	render(dir, p, s, sizeof p);
	after = index_bytes(dir, &na);
	assert_int_equal(nb, na);
	assert_memory_equal(before, after, nb);
	assert_string_equal(p, "Git: on branch main; 3 files changed (M a.c, A b.c, D c.c), "
			    "2 untracked (notes.txt, u/).\n");
	assert_string_equal(s, "main \xE2\x9C\x9A" "3 ?2");
	free(before);
	free(after);
	fixture_free(f);
}

static void
test_many_paths(void **state)
{
	struct fixture *f = fixture_new();
	struct repo_info gi = REPO_INFO_INIT;
	struct err e = ERR_INIT;
	struct buf p = BUF_INIT;
	const char *dir = make_repo(f, "w");

	(void)state;
	sh(dir, "for i in 01 02 03 04 05 06 07 08 09 10 11 12; do echo $i > m$i; done; "
	   "git add m*; git commit -qm m; for i in 01 02 03 04 05 06 07 08 09 10 11 12; do "
	   "echo x >> m$i; done; echo u > 'new\nline'");
	assert_int_equal(repo_info_read(dir, &gi, &e), 0);
	assert_int_equal(gi.modified, 12);
	assert_int_equal(gi.untracked, 1);
	assert_int_equal(gi.npaths, REPO_INFO_MAX_PATHS);
	repo_info_prompt(&gi, &p);
	assert_non_null(strstr(p.data, "12 files changed (M m01, M m02,"));
	assert_non_null(strstr(p.data, "M m10, ...), 1 untracked."));
	assert_null(strchr(p.data, '\n') + 1 < p.data + p.len ? strchr(p.data, '\n') + 1 : NULL);
	buf_release(&p);
	repo_info_release(&gi);
	fixture_free(f);
}

static void
test_detached_unborn_bare(void **state)
{
	struct fixture *f = fixture_new();
	char p[4096], s[4096], sha[64], want[256], dir[PATH_MAX * 2];
	const char *w = make_repo(f, "w");

	(void)state;
	sh(w, "git checkout -q --detach");
	sh_out(w, "git rev-parse --short=7 HEAD", sha, sizeof sha);
	render(w, p, s, sizeof p);
	snprintf(want, sizeof want, "Git: HEAD detached at %s; working tree clean.\n", sha);
	assert_string_equal(p, want);
	snprintf(want, sizeof want, "@%s", sha);
	assert_string_equal(s, want);

	snprintf(dir, sizeof dir, "%s/new", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	sh(dir, "git init -q -b main . && echo x > x.txt && echo y > 'n\nl'");
	render(dir, p, s, sizeof p);
	/* a control byte in a name cannot break the prompt */
	assert_string_equal(p, "Git: on branch main, no commits yet; 2 untracked (n?l, x.txt).\n");
	assert_string_equal(s, "main \xE2\x88\x85 ?2");

	snprintf(dir, sizeof dir, "%s/bare.git", f->root);
	sh(f->root, "git init -q --bare -b main bare.git");
	render(dir, p, s, sizeof p);
	assert_string_equal(p, "Git: bare repository (no work tree), HEAD on branch main.\n");
	assert_string_equal(s, "bare");
	fixture_free(f);
}

static void
test_worktree_locked_subdir(void **state)
{
	struct fixture *f = fixture_new();
	char p[4096], s[4096], dir[PATH_MAX * 2], lock[PATH_MAX * 3];
	const char *w = make_repo(f, "w");
	char *before, *after;
	size_t nb, na;
	struct stat st;

	(void)state;
	sh(w, "git worktree add -q -b feature ../wt");
	snprintf(dir, sizeof dir, "%s/wt", f->root);
	render(dir, p, s, sizeof p);
	assert_string_equal(p, "Git: on branch feature (a linked worktree); working tree clean.\n");
	assert_string_equal(s, "feature");

	w = make_repo(f, "locked");
	sh(w, "mkdir src && echo 1 > src/s.c && git add src && git commit -qm s && "
	   "echo 2 > src/s.c && : > .git/index.lock");
	before = index_bytes(w, &nb);
	snprintf(dir, sizeof dir, "%s/src", w);
	render(dir, p, s, sizeof p);
	after = index_bytes(w, &na);
	assert_string_equal(p, "Git: on branch main; 1 file changed (M src/s.c).\n");
	assert_int_equal(nb, na);
	assert_memory_equal(before, after, nb);
	snprintf(lock, sizeof lock, "%s/.git/index.lock", w);
	assert_int_equal(stat(lock, &st), 0);
	assert_int_equal(st.st_size, 0);
	free(before);
	free(after);
	fixture_free(f);
}

/* A HEAD file that names no ref: an error or a summary, never a crash. */
static void
test_broken_head(void **state)
{
	struct fixture *f = fixture_new();
	struct repo_info gi = REPO_INFO_INIT;
	struct err e = ERR_INIT;
	struct buf p = BUF_INIT;
	const char *w = make_repo(f, "w");
	int rc;

	(void)state;
	sh(w, "echo 0123456789012345678901234567890123456789 > .git/HEAD");
	rc = repo_info_read(w, &gi, &e);
	if (rc < 0)
		assert_non_null(strstr(e.msg, "git: "));
	repo_info_prompt(&gi, &p);
	repo_info_status(&gi, &p);
	buf_release(&p);
	repo_info_release(&gi);
	fixture_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_repo),
		cmocka_unit_test(test_upstream),
		cmocka_unit_test(test_dirty_and_index_untouched),
		cmocka_unit_test(test_many_paths),
		cmocka_unit_test(test_detached_unborn_bare),
		cmocka_unit_test(test_worktree_locked_subdir),
		cmocka_unit_test(test_broken_head),
	};

	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "t", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@example.com", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

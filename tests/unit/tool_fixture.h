/*
 * tool_fixture: helpers shared by the tool tests (test_ws, test_fsutil,
 * test_tools, test_edit, test_grep): a canonical temporary workspace that
 * is removed afterwards, small file helpers, and running a synchronous tool
 * on JSON arguments, with fixture_setup / fixture_teardown for cmocka.
 * Header-only (static inline) so each test links alone.
 */
#ifndef HEARTH_TOOL_FIXTURE_H
#define HEARTH_TOOL_FIXTURE_H

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llm/tool.h"

struct fixture {
	char root[PATH_MAX];
	struct tool_env env;
};

/* nftw callback removing one entry. */
static inline int
fixture_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* rm -rf dir (no symlink following). */
static inline void
fixture_rmrf(const char *dir)
{
	nftw(dir, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Make a canonical temp workspace; env points at it. */
static inline struct fixture *
fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof *f);
	char tmpl[] = "/tmp/hearth-test-XXXXXX";

	assert_non_null(f);
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, f->root));
	f->env.root = f->root;
	f->env.bash_timeout_s = 5;
	return f;
}

/* Remove the workspace and free. */
static inline void
fixture_free(struct fixture *f)
{
	if (!f)
		return;
	fixture_rmrf(f->root);
	free(f);
}

/* cmocka setup: a bare workspace as *state. */
static inline int
fixture_setup(void **state)
{
	*state = fixture_new();
	return 0;
}

/* cmocka teardown: fixture_free(*state). */
static inline int
fixture_teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

/* Absolute path of rel inside the workspace (static buffer, one at a time). */
static inline const char *
fixture_path(const struct fixture *f, const char *rel)
{
	static char p[PATH_MAX * 2];

	snprintf(p, sizeof p, "%s/%s", f->root, rel);
	return p;
}

/* Write n bytes to rel (parents must exist). */
static inline void
fixture_write(const struct fixture *f, const char *rel, const char *data, size_t n)
{
	int fd = open(fixture_path(f, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

/* Write a C string to rel. */
static inline void
fixture_puts(const struct fixture *f, const char *rel, const char *s)
{
	fixture_write(f, rel, s, strlen(s));
}

/* mkdir rel. */
static inline void
fixture_mkdir(const struct fixture *f, const char *rel)
{
	assert_int_equal(mkdir(fixture_path(f, rel), 0755), 0);
}

/* Content of rel (malloc'd, NUL-terminated); NULL when missing. */
static inline char *
fixture_slurp(const struct fixture *f, const char *rel, size_t *len)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (buf_read_file(&b, fixture_path(f, rel), 0, &e) < 0)
		return NULL;
	return buf_detach(&b, len);
}

/* Run tool t synchronously on JSON args; job must be released by the caller. */
static inline void
fixture_run(struct fixture *f, const struct tool *t, const char *json, struct tool_job *job)
{
	cJSON *args = cJSON_Parse(json);

	assert_non_null(args);
	tool_job_init(job, t, &f->env, NULL, NULL);
	t->start(job, args);
	assert_true(job->finished);
	cJSON_Delete(args);
}

/* Run and return the output (malloc'd); *is_error gets the flag. */
static inline char *
fixture_out(struct fixture *f, const struct tool *t, const char *json, int *is_error)
{
	struct tool_job job;
	char *out;

	fixture_run(f, t, json, &job);
	if (is_error)
		*is_error = job.is_error;
	out = buf_detach(&job.out, NULL);
	tool_job_release(&job);
	return out;
}

#endif

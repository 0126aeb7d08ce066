/*
 * sess_fixture: what the session-store tests share — a temp HOME and
 * XDG_STATE_HOME per test (setup/teardown), file helpers, a sample
 * conversation holding every block kind, and conv comparison.  Test-only;
 * helpers are static inline so a test that uses only some of them
 * compiles warning-free.
 */
#ifndef HEARTH_SESS_FIXTURE_H
#define HEARTH_SESS_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "session/session.h"
#include "session/export.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "base/fs.h"
#include "session/line.h"
#include "session/list.h"
#include "session/read.h"

/* the workspace root the sessions are keyed by (need not exist) */
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
static inline char *
slurp(const char *path)
{
	struct buf b = BUF_INIT;

	assert_int_equal(buf_read_file(&b, path, 0, NULL), 0);
	return buf_detach(&b, NULL);
}

/* Append raw bytes to a file. */
static inline void
append_raw(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

/* Block with every field set (NULL fields allowed). */
static inline void
add_full(struct conv_msg *m, enum conv_kind k, const char *text, const char *id,
	 const char *name, int is_error, const char *prov, const char *sig)
{
	struct conv_block *b = conv_add_block(m, k, text, id, name);

	b->is_error = is_error;
	b->provider = xstrdup(prov);
	b->signature = xstrdup(sig);
}

/* A conv using every kind and field, odd characters included. */
static inline void
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

/* NULL-aware string equality. */
static inline void
assert_str_same(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* Two convs have the same messages, block for block, field for field. */
static inline void
assert_conv_same(const struct conv *a, const struct conv *b)
{
	size_t i, j;

	assert_int_equal(a->nmsgs, b->nmsgs);
	for (i = 0; i < a->nmsgs; i++) {
		const struct conv_msg *x = &a->msgs[i], *y = &b->msgs[i];
		assert_int_equal(x->role, y->role);
		assert_int_equal(x->aborted, y->aborted);
		assert_int_equal(x->nblocks, y->nblocks);
		for (j = 0; j < x->nblocks; j++) {
			const struct conv_block *p = &x->blocks[j], *q = &y->blocks[j];
			assert_int_equal(p->kind, q->kind);
			assert_int_equal(p->is_error, q->is_error);
			assert_str_same(p->text, q->text);
			assert_str_same(p->id, q->id);
			assert_str_same(p->name, q->name);
			assert_str_same(p->provider, q->provider);
			assert_str_same(p->signature, q->signature);
		}
	}
}

/* Write every message of c into a new session; returns its path (malloc'd). */
static inline char *
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

/* A session with n user messages "m0".."m{n-1}". */
static inline char *
numbered(size_t n)
{
	struct conv c;
	struct buf t = BUF_INIT;
	char *path;
	size_t i;

	conv_init(&c);
	for (i = 0; i < n; i++) {
		buf_reset(&t);
		buf_addf(&t, "m%zu", i);
		conv_add_user_text(&c, t.data);
	}
	path = write_conv(&c, ROOT);
	conv_release(&c);
	buf_release(&t);
	return path;
}

/* Message i of l is "m<want>". */
static inline void
assert_msg(const struct session_loaded *l, size_t i, size_t want)
{
	char s[32];

	snprintf(s, sizeof s, "m%zu", want);
	assert_true(i < l->conv.nmsgs);
	assert_string_equal(l->conv.msgs[i].blocks[0].text, s);
}

/* A file in the sessions dir of ROOT holding `text`; returns its path. */
static inline char *
raw_session(const char *text)
{
	struct buf d = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s = session_create(ROOT, NULL, &e);
	char *path;

	assert_non_null(s);
	path = xstrdup(session_path(s));
	session_close(s);
	assert_int_equal(fs_write_atomic(path, text, strlen(text), &e), 0);
	buf_release(&d);
	return path;
}

#endif

/*
 * test_session: where sessions live and the writer/loader.  Paths and
 * permissions (0700 directories, 0600 files), the conv round trip block
 * for block, resume after a torn last line, a writer killed with SIGKILL
 * mid-loop, the parent chain across resume, the bare file and verbatim
 * line used by fork, missing and non-regular files, and a read-only state
 * directory.  HOME and XDG_STATE_HOME point at a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
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

#include "base/buf.h"
#include "llm/conv.h"
#include "session/session.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "sess_fixture.h"














/* In a child: try to create a session under an unwritable state dir. */
static int
ro_child(void)
{
	struct err e = ERR_INIT;
	struct session *s = session_create(ROOT, NULL, &e);

	if (s)
		return 1;
	if (!strstr(e.msg, "create session directory") || !strstr(e.msg, "ermission denied") ||
	    !strstr(e.msg, "XDG_STATE_HOME"))
		return 2;
	return 0;
}

/* Child: append messages "m<i>" (10 KB each) forever. */
static void
writer_loop(const char *path)
{
	struct session_loaded l;
	struct session *s = session_resume(path, &l, NULL, NULL);
	struct buf t = BUF_INIT;
	size_t i;

	if (!s)
		_exit(1);
	for (i = 0;; i++) {
		struct conv_msg *m = conv_add_msg(&l.conv, CONV_USER);
		buf_reset(&t);
		buf_addf(&t, "m%zu", i);
		conv_add_block(m, CONV_TEXT, t.data, NULL, NULL);
		buf_reset(&t);
		while (t.len < 10000)
			buf_adds(&t, "0123456789");
		conv_add_block(m, CONV_TEXT, t.data, NULL, NULL);
		if (session_append_msg(s, m, NULL) < 0)
			_exit(2);
		conv_pop(&l.conv);
	}
}

/* Count of '\n' in s. */
static size_t
count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Load path: every complete line but the meta is a message m0..; a torn end warns. */
static void
check_complete_lines(const char *path)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	char *text = slurp(path);
	size_t i, lines = count_lines(text), n = strlen(text);

	assert_true(lines > 5);
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(l.conv.nmsgs, lines - 1);
	for (i = 0; i < l.conv.nmsgs; i++)
		assert_msg(&l, i, i);
	if (text[n - 1] != '\n') {
		assert_non_null(strstr(w.data, "incomplete last line"));
		assert_int_equal(l.skipped, 1);
	} else
		assert_int_equal(l.skipped, 0);
	session_loaded_release(&l);
	buf_release(&w);
	free(text);
}

static void
test_paths_and_modes(void **state)
{
	struct buf d1 = BUF_INIT, d2 = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	struct stat st;
	const char *id;

	(void)state;
	umask(0);
	s = session_create(ROOT, NULL, &e);
	umask(022);
	assert_non_null(s);
	assert_int_equal(session_dir(ROOT, &d1, &e), 0);
	buf_addf(&p, "%s/state/hearth/sessions/work-some-project-app-", tmp);
	assert_memory_equal(d1.data, p.data, p.len);
	assert_int_equal(d1.len, p.len + 8);
	id = session_id(s);
	assert_int_equal(strlen(id), 28); /* YYYYMMDD-HHMMSS-mmm-rrrrrrrr */
	assert_true(id[8] == '-' && id[15] == '-' && id[19] == '-');
	buf_reset(&p);
	buf_addf(&p, "%s/%s.jsonl", d1.data, id);
	assert_string_equal(session_path(s), p.data);
	assert_int_equal(stat(p.data, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(d1.data, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	buf_reset(&p);
	buf_addf(&p, "%s/state/hearth", tmp);
	assert_int_equal(stat(p.data, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	session_close(s);
	/* "/a/b-c" and "/a-b/c" read the same but must not collide */
	assert_int_equal(session_dir("/a/b-c", &d2, &e), 0);
	buf_reset(&d1);
	assert_int_equal(session_dir("/a-b/c", &d1, &e), 0);
	assert_string_not_equal(d1.data, d2.data);
	/* without XDG_STATE_HOME (or with a relative one): ~/.local/state */
	setenv("XDG_STATE_HOME", "relative", 1);
	buf_reset(&d1);
	buf_reset(&p);
	assert_int_equal(session_dir("/x", &d1, &e), 0);
	buf_addf(&p, "%s/.local/state/hearth/sessions/", tmp);
	assert_memory_equal(d1.data, p.data, p.len);
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(session_dir("/x", &d1, &e), -1);
	assert_non_null(strstr(e.msg, "HOME"));
	buf_release(&d1);
	buf_release(&d2);
	buf_release(&p);
}

static void
test_round_trip(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	struct conv c;
	char *path;

	(void)state;
	sample_conv(&c);
	path = write_conv(&c, ROOT);
	assert_int_equal(session_load(path, &l, &w, NULL), 0);
	assert_int_equal(w.len, 0);
	assert_int_equal(l.skipped, 0);
	assert_conv_same(&c, &l.conv);
	assert_string_equal(l.meta.model, "qwen3");
	assert_string_equal(l.meta.cwd, "/cwd");
	assert_string_equal(l.meta.server, "http://127.0.0.1:8080");
	assert_non_null(l.meta.created);
	/* when the session began, UTC to the millisecond: 2026-11-25T17:04:12.345Z */
	assert_int_equal(strlen(l.meta.created), 24);
	assert_true(l.meta.created[4] == '-' && l.meta.created[10] == 'T' && l.meta.created[23] == 'Z');
	assert_null(l.meta.forked_from);
	assert_non_null(l.ids[3]);
	assert_string_not_equal(l.ids[2], l.ids[3]);
	session_loaded_release(&l);
	conv_release(&c);
	free(path);
	buf_release(&w);
}

static void
test_torn_last_line_and_resume(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT, line = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	struct stat st1, st2;
	char *path = numbered(3), *before;

	(void)state;
	append_raw(path, "{\"id\":\"abc\",\"parent\":\"x\",\"type\":\"message\",\"mess");
	before = slurp(path);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(l.conv.nmsgs, 3);
	assert_int_equal(l.skipped, 1);
	buf_addf(&line, "%s:5: incomplete last line", path);
	assert_non_null(strstr(w.data, line.data));
	session_loaded_release(&l);
	/* resume appends after the torn bytes without touching them */
	assert_int_equal(stat(path, &st1), 0);
	buf_reset(&w);
	s = session_resume(path, &l, &w, &e);
	assert_non_null(s);
	assert_int_equal(l.conv.nmsgs, 3);
	conv_add_user_text(&l.conv, "m3");
	assert_int_equal(session_append_msg(s, conv_last(&l.conv), &e), 0);
	session_close(s);
	session_loaded_release(&l);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	{
		char *after = slurp(path);
		assert_memory_equal(after, before, strlen(before));
		free(after);
	}
	buf_reset(&w);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(l.conv.nmsgs, 4);
	assert_msg(&l, 3, 3);
	assert_msg(&l, 2, 2);
	assert_non_null(strstr(w.data, ":5: invalid JSON"));
	session_loaded_release(&l);
	free(before);
	free(path);
	buf_release(&w);
	buf_release(&line);
}

static void
test_read_only_dir(void **state)
{
	struct buf ro = BUF_INIT;
	int status;
	pid_t pid;

	(void)state;
	buf_addf(&ro, "%s/ro", tmp);
	assert_int_equal(mkdir(ro.data, 0555), 0);
	assert_int_equal(chmod(ro.data, 0555), 0);
	assert_int_equal(chmod(tmp, 0755), 0);
	setenv("XDG_STATE_HOME", ro.data, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* root ignores permissions: drop to nobody first */
		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		_exit(ro_child());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	buf_release(&ro);
}

static void
test_sigkill_mid_write(void **state)
{
	struct stat st;
	char *path = numbered(0), *text;
	int status, k;
	off_t cut;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		writer_loop(path);
	for (k = 0; k < 1000; k++) { /* at most ~10 s */
		usleep(10000);
		if (stat(path, &st) == 0 && st.st_size > 300000)
			break;
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	check_complete_lines(path);
	/* the kill may have landed between two writes: tear the end for sure */
	text = slurp(path);
	cut = (off_t)strlen(text) - 7;
	if (text[cut - 1] == '\n')
		cut--;
	free(text);
	assert_int_equal(truncate(path, cut), 0);
	check_complete_lines(path);
	free(path);
}

static void
test_chain_continues_after_resume(void **state)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct session *s;
	char *path = numbered(2), *text, *last;
	struct buf want = BUF_INIT;

	(void)state;
	s = session_resume(path, &l, NULL, &e);
	assert_non_null(s);
	buf_addf(&want, "\"parent\":\"%s\"", l.leaf);
	assert_int_equal(session_append_notice(s, "model changed", &e), 0);
	assert_int_equal(session_append_meta(s, &l.meta, &e), 0);
	session_close(s);
	session_loaded_release(&l);
	text = slurp(path);
	last = strstr(text, "\"type\":\"notice\"");
	assert_non_null(last);
	while (last > text && last[-1] != '\n')
		last--;
	assert_memory_equal(strstr(last, "\"parent\""), want.data, want.len);
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.conv.nmsgs, 2);
	assert_string_equal(l.meta.model, "qwen3");
	session_loaded_release(&l);
	free(text);
	free(path);
	buf_release(&want);
}

/* Issue 15: a turn's tokens are saved as "usage" entries and a resume sums those of its branch;
 * a file without them (older) resumes at 0, a bad count reads as 0 and keeps the chain. */
static void
test_usage_entries(void **state)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct session *s;
	char *path = numbered(2);
	FILE *f;

	(void)state;
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.tokens_in, 0); /* an older file: no usage entries */
	assert_int_equal(l.tokens_out, 0);
	session_loaded_release(&l);
	s = session_resume(path, &l, NULL, &e);
	assert_non_null(s);
	session_loaded_release(&l);
	assert_int_equal(session_append_usage(s, 1200, 80, &e), 0);
	assert_int_equal(session_append_usage(s, 3400, 20, &e), 0);
	session_close(s);
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.tokens_in, 4600);
	assert_int_equal(l.tokens_out, 100);
	assert_int_equal(l.conv.nmsgs, 2);
	session_loaded_release(&l);
	/* hand-edited: a negative and a string count read as 0; the next entry still chains */
	f = fopen(path, "a");
	assert_non_null(f);
	fprintf(f, "{\"id\":\"u1\",\"parent\":null,\"type\":\"usage\",\"ts\":\"x\",\"usage\":{\"in\":-5,\"out\":\"7\"}}\n");
	fclose(f);
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	assert_int_equal(l.tokens_in, 0); /* the branch is now the lone u1 */
	assert_int_equal(l.tokens_out, 0);
	session_loaded_release(&l);
	free(path);
}

static void
test_missing_and_odd_files(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	buf_addf(&p, "%s/nope.jsonl", tmp);
	assert_int_equal(session_load(p.data, &l, &w, &e), -1);
	assert_non_null(strstr(e.msg, "nope.jsonl"));
	assert_int_equal(session_resume(p.data, &l, &w, &e), NULL);
	assert_int_equal(session_load("/dev/zero", &l, &w, &e), -1); /* would never end */
	assert_non_null(strstr(e.msg, "not a regular file"));
	assert_int_equal(mkfifo(p.data, 0600), 0); /* would block */
	assert_int_equal(session_load(p.data, &l, &w, &e), -1);
	assert_int_equal(session_resume(p.data, &l, &w, &e), NULL);
	buf_release(&w);
	buf_release(&p);
}

static void
test_bare_and_append_line(void **state)
{
	const char line[] = "{\"id\":\"x1\",\"parent\":null,\"type\":\"notice\",\"text\":\"n\"}";
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct session *s;
	struct buf want = BUF_INIT;
	char *path, *text;

	(void)state;
	s = session_create_bare(ROOT, &e);
	assert_non_null(s);
	assert_null(session_leaf(s));
	path = xstrdup(session_path(s));
	text = slurp(path);
	assert_string_equal(text, ""); /* no meta entry */
	free(text);
	assert_int_equal(session_append_line(s, line, strlen(line), "x1", &e), 0);
	assert_string_equal(session_leaf(s), "x1");
	assert_int_equal(session_append_notice(s, "after", &e), 0);
	session_close(s);
	text = slurp(path);
	buf_addf(&want, "%s\n", line);
	assert_memory_equal(text, want.data, want.len); /* verbatim */
	assert_non_null(strstr(text + want.len, "\"parent\":\"x1\""));
	assert_int_equal(session_load(path, &l, NULL, &e), 0);
	assert_string_not_equal(l.leaf, "x1");
	session_loaded_release(&l);
	free(text);
	free(path);
	buf_release(&want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paths_and_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_last_line_and_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_mid_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_continues_after_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_odd_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_and_append_line, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_sesslist: the sessions of a workspace.  The picker list (order,
 * first prompt, message counts, only this workspace's regular *.jsonl
 * files), latest, resolving ids and paths, and fork (exclusive and
 * inclusive, ids kept, meta carried over, source untouched, an entry off
 * the branch refused).  HOME and XDG_STATE_HOME point at a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "base/fs.h"
#include "session/session.h"
#include "session/list.h"
#include "testutil.h"
#include "base/xmalloc.h"
#include "sess_fixture.h"









/* Set a file's mtime to t. */
static void
set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void
test_fork(void **state)
{
	struct session_loaded l, f;
	struct err e = ERR_INIT;
	struct session *s;
	char *path = numbered(6), *before = slurp(path), *after, *fpath;

	(void)state;
	assert_int_equal(session_load(path, &l, NULL, NULL), 0);
	s = session_list_fork(path, l.ids[2], 0, ROOT, &e); /* before m2 */
	assert_non_null(s);
	fpath = xstrdup(session_path(s));
	assert_string_not_equal(fpath, path);
	/* the fork is a session that can be written to */
	conv_add_user_text(&l.conv, "edited m2");
	assert_int_equal(session_append_msg(s, conv_last(&l.conv), &e), 0);
	session_close(s);
	assert_int_equal(session_load(fpath, &f, NULL, NULL), 0);
	assert_int_equal(f.conv.nmsgs, 3);
	assert_msg(&f, 0, 0);
	assert_msg(&f, 1, 1);
	assert_string_equal(f.conv.msgs[2].blocks[0].text, "edited m2");
	assert_string_equal(f.ids[0], l.ids[0]); /* entries copied with their ids */
	assert_string_equal(f.meta.model, "qwen3");
	assert_non_null(f.meta.forked_from);
	assert_non_null(strstr(f.meta.forked_from, l.ids[2]));
	session_loaded_release(&f);
	free(fpath);
	/* inclusive */
	s = session_list_fork(path, l.ids[2], 1, ROOT, &e);
	assert_non_null(s);
	assert_int_equal(session_load(session_path(s), &f, NULL, NULL), 0);
	session_close(s);
	assert_int_equal(f.conv.nmsgs, 3);
	assert_msg(&f, 2, 2);
	session_loaded_release(&f);
	/* not on the branch */
	assert_null(session_list_fork(path, "nope", 0, ROOT, &e));
	assert_non_null(strstr(e.msg, "not on the active branch"));
	after = slurp(path);
	assert_string_equal(before, after); /* the source is untouched */
	session_loaded_release(&l);
	free(before);
	free(after);
	free(path);
}

static void
test_list_latest_resolve(void **state)
{
	struct session_list_info *v;
	struct buf p = BUF_INIT, longp = BUF_INIT;
	struct err e = ERR_INIT;
	struct conv c;
	char *a, *b, *d;
	size_t n, i;
	time_t now = time(NULL);

	(void)state;
	conv_init(&c);
	for (i = 0; i < 30; i++)
		buf_adds(&longp, "long\tprompt é ");
	conv_add_user_text(&c, longp.data);
	conv_add_user_text(&c, "second");
	a = write_conv(&c, ROOT);
	conv_release(&c);
	b = numbered(1);
	d = numbered(4);

	set_mtime(a, now - 100);
	set_mtime(b, now - 10);
	set_mtime(d, now - 50);
	free(write_conv(&c, "/another/project")); /* not listed */
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].path, b);
	assert_string_equal(v[1].path, d);
	assert_string_equal(v[2].path, a);
	assert_int_equal(v[0].nmsgs, 1);
	assert_int_equal(v[1].nmsgs, 4);
	assert_int_equal(v[2].nmsgs, 2);
	assert_string_equal(v[1].first_prompt, "m0");
	assert_int_equal(v[0].mtime, now - 10);
	assert_true(strlen(v[2].first_prompt) <= 83);
	assert_memory_equal(v[2].first_prompt, "long prompt é long", 19);
	assert_non_null(strstr(v[2].first_prompt, "\xe2\x80\xa6"));
	assert_null(strchr(v[2].first_prompt, '\t'));
	/* latest, then resolve by prefix */
	assert_int_equal(session_list_latest(ROOT, &p, &e), 0);
	assert_string_equal(p.data, b);
	buf_reset(&p);
	assert_int_equal(session_list_resolve(ROOT, v[1].id, &p, &e), 0);
	assert_string_equal(p.data, d);
	buf_reset(&p);
	{
		char pre[64];
		size_t k = strlen(v[1].id) - 3;
		memcpy(pre, v[1].id, k);
		pre[k] = '\0';
		/* 5 random hex digits from the end still single out one session */
		assert_int_equal(session_list_resolve(ROOT, pre, &p, &e), 0);
		assert_string_equal(p.data, d);
	}
	buf_reset(&p);
	assert_int_equal(session_list_resolve(ROOT, "2", &p, &e), -1);
	assert_non_null(strstr(e.msg, "ambiguous (3 sessions)"));
	assert_int_equal(session_list_resolve(ROOT, "zzz", &p, &e), -1);
	assert_non_null(strstr(e.msg, "no session \"zzz\""));
	assert_int_equal(session_list_resolve(ROOT, a, &p, &e), 0); /* a path */
	assert_string_equal(p.data, a);
	session_list_free(v, n);
	free(a), free(b), free(d);
	buf_release(&p);
	buf_release(&longp);
}

static void
test_empty_and_odd_entries(void **state)
{
	struct session_list_info *v;
	struct buf p = BUF_INIT, d = BUF_INIT;
	struct err e = ERR_INIT;
	size_t n = 9;
	char *path;

	(void)state;
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0); /* no directory yet */
	assert_int_equal(n, 0);
	session_list_free(v, n);
	assert_int_equal(session_list_latest(ROOT, &p, &e), -1);
	assert_non_null(strstr(e.msg, "no session"));
	assert_int_equal(session_list_resolve(ROOT, "/dev/null/x", &p, &e), -1);
	/* only regular, visible *.jsonl files are listed */
	path = numbered(1);
	assert_int_equal(session_dir(ROOT, &d, &e), 0);
	buf_addf(&p, "%s/.hidden.jsonl", d.data);
	assert_int_equal(fs_write_atomic(p.data, "", 0, &e), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/notes.txt", d.data);
	assert_int_equal(fs_write_atomic(p.data, "", 0, &e), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/dir.jsonl", d.data);
	assert_int_equal(mkdir(p.data, 0700), 0);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, path);
	session_list_free(v, n);
	free(path);
	buf_release(&p);
	buf_release(&d);
}

/*
 * The listing cache: a second listing takes an unchanged file's row from
 * DIR/.list-cache (a row edited by hand shows, so the file was not read),
 * a file changed since (a message appended) is loaded again, and -c picks
 * the newest file without parsing it.
 */
static void
test_list_cache(void **state)
{
	struct session_list_info *v;
	struct session_loaded l;
	struct session *s;
	struct buf d = BUF_INIT, cache = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	char *a = numbered(2), *b = numbered(5), *text, *row;
	size_t n, i;

	(void)state;
	set_mtime(a, 1000);
	set_mtime(b, 2000);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1].nmsgs, 2);
	session_list_free(v, n);
	assert_int_equal(session_dir(ROOT, &d, &e), 0);
	buf_addf(&cache, "%s/.list-cache", d.data);
	text = slurp(cache.data);
	/* a's row says 2 messages: make it 42 and the prompt "cached" */
	row = strstr(text, strrchr(a, '/') + 1);
	assert_non_null(row);
	for (i = 0; i < 5; i++)
		row = strchr(row, '\t') + 1;
	assert_int_equal(row[0], '2');
	buf_add(&p, text, (size_t)(row - text));
	buf_adds(&p, "42\tcached");
	buf_adds(&p, strchr(row, '\n'));
	assert_int_equal(fs_write_atomic(cache.data, p.data, p.len, &e), 0);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(v[1].nmsgs, 42);
	assert_string_equal(v[1].first_prompt, "cached");
	assert_int_equal(v[0].nmsgs, 5);
	session_list_free(v, n);
	/* a changes: loaded again */
	s = session_resume(a, &l, NULL, &e);
	assert_non_null(s);
	conv_add_user_text(&l.conv, "more");
	assert_int_equal(session_append_msg(s, conv_last(&l.conv), &e), 0);
	session_close(s);
	session_loaded_release(&l);
	set_mtime(a, 3000);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_string_equal(v[0].path, a);
	assert_int_equal(v[0].nmsgs, 3);
	assert_string_equal(v[0].first_prompt, "m0");
	session_list_free(v, n);
	buf_reset(&p);
	assert_int_equal(session_list_latest(ROOT, &p, &e), 0);
	assert_string_equal(p.data, a);
	free(text), free(a), free(b);
	buf_release(&d), buf_release(&cache), buf_release(&p);
}

/*
 * More files to load than LIST_THREADED (8): loaded on several threads,
 * each row gets its own file's count and prompt, beside rows the cache
 * answers; a second listing with three files changed loads only those.
 */
static void
test_list_many(void **state)
{
	struct session_list_info *v;
	struct err e = ERR_INIT;
	struct session_loaded l;
	struct session *s;
	char *path[20];
	size_t n, i, k;

	(void)state;
	for (i = 0; i < 20; i++) {
		path[i] = numbered(i + 1);
		set_mtime(path[i], 1000 + (time_t)i);
	}
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 20);
	for (k = 0; k < n; k++) { /* newest first: path[19] .. path[0] */
		assert_string_equal(v[k].path, path[19 - k]);
		assert_int_equal(v[k].nmsgs, 20 - k);
		assert_string_equal(v[k].first_prompt, "m0");
	}
	session_list_free(v, n);
	for (i = 0; i < 20; i += 7) { /* 0, 7, 14: one more message each */
		s = session_resume(path[i], &l, NULL, &e);
		assert_non_null(s);
		conv_add_user_text(&l.conv, "more");
		assert_int_equal(session_append_msg(s, conv_last(&l.conv), &e), 0);
		session_close(s);
		session_loaded_release(&l);
		set_mtime(path[i], 1000 + (time_t)i);
	}
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 20);
	for (k = 0; k < n; k++) {
		i = 19 - k;
		assert_string_equal(v[k].path, path[i]);
		assert_int_equal(v[k].nmsgs, i + 1 + (i % 7 == 0));
		assert_string_equal(v[k].first_prompt, "m0");
	}
	session_list_free(v, n);
	for (i = 0; i < 20; i++)
		free(path[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_latest_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_odd_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_many, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

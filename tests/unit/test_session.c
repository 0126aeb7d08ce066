/*
 * test_session: where sessions live and the writer/loader.  Paths and
 * permissions (0700 directories, 0600 files), the conv round trip block
 * for block, resume after a torn last line, a writer killed with SIGKILL
 * mid-loop, the parent chain across resume, the bare file and verbatim
 * line used by fork, missing and non-regular files, and a read-only state
 * directory; the project key (FNV-1a's vectors, the kept bytes, the last 80)
 * and where the state root comes from, modes under any umask, directory
 * errors and their advice, times and ids, writes that fail (RLIMIT_FSIZE),
 * descriptors closed, and a resumed file's id.  HOME and XDG_STATE_HOME
 * point at a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
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
	pid_t pid, parent;

	(void)state;
	parent = getpid();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* it writes until killed: dead with the test too (a test killed at its
		 * timeout, as make mutate does, left it writing for hours) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(3);
		writer_loop(path);
	}
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

/* Milliseconds since the epoch, now. */
static long long
now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* s in the shape pat ('d' a digit, anything else itself), nothing after. */
static int
shaped(const char *s, const char *pat)
{
	for (; *pat; s++, pat++)
		if (*pat == 'd' ? !(*s >= '0' && *s <= '9') : *s != *pat)
			return 0;
	return *s == '\0';
}

/* A time written as "YYYY-MM-DDTHH:MM:SS.mmmZ" (or "YYYYMMDD-HHMMSS-mmm" when compact)
 * in ms since the epoch; -1 when s has another shape. */
static long long
time_ms(const char *s, int compact)
{
	struct tm tm = { 0 };
	int ms;

	if (!shaped(s, compact ? "dddddddd-dddddd-ddd" : "dddd-dd-ddTdd:dd:dd.dddZ"))
		return -1;
	sscanf(s, compact ? "%4d%2d%2d-%2d%2d%2d-%3d" : "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year,
	       &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm) * 1000 + ms;
}

/* s is n lowercase hex digits. */
static int
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == '\0';
}

/* session_add_now, entry ts and meta created are now in UTC to the millisecond
 * (ISO 8601); the session id starts with the same time in its compact form and
 * ends with 8 random hex digits; entry ids are 12 hex digits, each its own. */
static void
test_times_and_ids(void **state)
{
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	struct session *s;
	long long before, after, t;
	char *text, *line, *next, *seen[3];
	const char *id;
	size_t i, n = 0;

	(void)state;
	/* samples spread over ~0.3 s, so the milliseconds take many values */
	for (i = 0; i < 200; i++) {
		buf_reset(&b);
		before = now_ms();
		session_add_now(&b);
		after = now_ms();
		t = time_ms(b.data, 0);
		assert_true(before <= t && t <= after);
		usleep(1500);
	}
	before = now_ms();
	s = session_create(ROOT, NULL, &e);
	assert_non_null(s);
	assert_int_equal(session_append_usage(s, 1, 2, &e), 0);
	assert_int_equal(session_append_notice(s, "n", &e), 0);
	after = now_ms();
	id = session_id(s);
	assert_int_equal(strlen(id), 28); /* YYYYMMDD-HHMMSS-mmm-rrrrrrrr */
	buf_reset(&b);
	buf_add(&b, id, 19);
	t = time_ms(b.data, 1);
	assert_true(before <= t && t <= after);
	assert_int_equal(id[19], '-');
	assert_true(is_hex(id + 20, 8));
	text = slurp(session_path(s));
	session_close(s);
	for (line = text; *line; line = next + 1) {
		cJSON *j, *x;
		next = strchr(line, '\n');
		assert_non_null(next);
		*next = '\0';
		j = cJSON_Parse(line);
		assert_non_null(j);
		x = cJSON_GetObjectItem(j, "id");
		assert_true(cJSON_IsString(x) && is_hex(x->valuestring, 12));
		for (i = 0; i < n; i++)
			assert_string_not_equal(seen[i], x->valuestring);
		assert_true(n < 3);
		seen[n++] = xstrdup(x->valuestring);
		x = cJSON_GetObjectItem(j, "ts");
		assert_true(cJSON_IsString(x));
		t = time_ms(x->valuestring, 0);
		assert_true(before <= t && t <= after);
		if ((x = cJSON_GetObjectItem(j, "meta"))) {
			t = time_ms(cJSON_GetObjectItem(x, "created")->valuestring, 0);
			assert_true(before <= t && t <= after);
		}
		cJSON_Delete(j);
	}
	assert_int_equal(n, 3); /* meta, usage, notice */
	while (n)
		free(seen[--n]);
	free(text);
	buf_release(&b);
}

/* session_dir(root) is $XDG_STATE_HOME/hearth/sessions/ + key(root) + "-" + hash; NULL
 * hash: any 8 hex digits. */
static void
assert_key(const char *root, const char *key, const char *hash)
{
	struct buf d = BUF_INIT, w = BUF_INIT;
	struct err e = ERR_INIT;

	assert_int_equal(session_dir(root, &d, &e), 0);
	buf_addf(&w, "%s/state/hearth/sessions/%s-", tmp, key);
	assert_true(d.len == w.len + 8);
	assert_memory_equal(d.data, w.data, w.len);
	if (hash)
		assert_string_equal(d.data + w.len, hash);
	else
		assert_true(is_hex(d.data + w.len, 8));
	buf_release(&d);
	buf_release(&w);
}

/* The project key: the root's bytes outside [A-Za-z0-9._] as '-', the last 80 at most,
 * leading '/'s dropped, then the root's 32-bit FNV-1a hash. */
static void
test_project_key(void **state)
{
	struct buf r = BUF_INIT, k = BUF_INIT;
	int i;

	(void)state;
	/* FNV-1a's published test vectors (a relative root keeps its first byte) */
	assert_key("a", "a", "e40c292c");
	assert_key("foobar", "foobar", "bf9cf968");
	/* the kept classes at their ends, and the bytes just outside them */
	assert_key("/az.AZ_09 -`{@[:~/\xc3\xbc\x7f", "az.AZ_09------------", NULL);
	assert_key("///x", "x", NULL);
	/* 101 bytes: the last 80 */
	buf_adds(&r, "/");
	for (i = 0; i < 10; i++)
		buf_adds(&r, "0123456789");
	assert_key(r.data, r.data + 21, NULL);
	/* 81 bytes, relative: the first byte goes */
	buf_reset(&r);
	buf_adds(&r, "r");
	for (i = 0; i < 8; i++)
		buf_adds(&r, "0123456789");
	assert_key(r.data, r.data + 1, NULL);
	/* 80 bytes, absolute: all but the '/' */
	r.data[0] = '/';
	r.data[80] = '\0';
	r.len = 80;
	buf_add(&k, r.data + 1, 79);
	assert_key(r.data, k.data, NULL);
	buf_release(&r);
	buf_release(&k);
}

/* Where the state root comes from: XDG_STATE_HOME when absolute, else $HOME/.local/state
 * (HOME "/" included); neither: an error naming both. */
static void
test_state_root(void **state)
{
	struct buf d = BUF_INIT, w = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	setenv("XDG_STATE_HOME", "", 1);
	assert_int_equal(session_dir("/x", &d, &e), 0);
	buf_addf(&w, "%s/.local/state/hearth/sessions/x-", tmp);
	assert_memory_equal(d.data, w.data, w.len);
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/", 1);
	buf_reset(&d);
	assert_int_equal(session_dir("/x", &d, &e), 0);
	assert_memory_equal(d.data, "//.local/state/hearth/sessions/x-", 33);
	setenv("HOME", "", 1);
	buf_reset(&d);
	assert_int_equal(session_dir("/x", &d, &e), -1);
	assert_non_null(strstr(e.msg, "XDG_STATE_HOME"));
	assert_non_null(strstr(e.msg, "HOME is set"));
	buf_release(&d);
	buf_release(&w);
}

/* st_mode's permission bits of path. */
static int
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Directories created 0700 and the file 0600 whatever the umask, even one that takes
 * the owner's own bits. */
static void
test_modes_whatever_umask(void **state)
{
	static const mode_t masks[] = { 0277, 0777 };
	struct buf x = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		buf_reset(&x);
		buf_addf(&x, "%s/state%zu", tmp, i);
		setenv("XDG_STATE_HOME", x.data, 1);
		umask(masks[i]);
		s = session_create(ROOT, NULL, &e);
		umask(022);
		assert_non_null(s);
		assert_int_equal(mode_of(session_path(s)), 0600);
		assert_int_equal(mode_of(x.data), 0700);
		buf_reset(&p);
		buf_addf(&p, "%s/hearth", x.data);
		assert_int_equal(mode_of(p.data), 0700);
		buf_adds(&p, "/sessions");
		assert_int_equal(mode_of(p.data), 0700);
		buf_reset(&p);
		assert_int_equal(session_dir(ROOT, &p, &e), 0);
		assert_int_equal(mode_of(p.data), 0700);
		session_close(s);
	}
	buf_release(&x);
	buf_release(&p);
}

/* A state directory hearth cannot create: a file in the way is named (the advice to
 * set XDG_STATE_HOME is for directories hearth may not write in: permissions, a
 * read-only or special file system such as /sys); e may be NULL. */
static void
test_dir_errors(void **state)
{
	struct buf x = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	struct statfs sf;

	(void)state;
	buf_addf(&x, "%s/file", tmp);
	assert_int_equal(fs_write_atomic(x.data, "", 0, &e), 0);
	setenv("XDG_STATE_HOME", x.data, 1);
	assert_null(session_create(ROOT, NULL, &e));
	buf_addf(&p, "create session directory %s/hearth: ", x.data);
	assert_non_null(strstr(e.msg, p.data));
	assert_int_equal(e.code, ENOTDIR);
	assert_null(strstr(e.msg, "XDG_STATE_HOME"));
	assert_null(session_create(ROOT, NULL, NULL)); /* no err: just NULL */
	buf_reset(&x);
	buf_addf(&x, "%s/state", tmp);
	setenv("XDG_STATE_HOME", x.data, 1);
	s = session_create(ROOT, NULL, NULL);
	assert_non_null(s);
	session_close(s);
	/* sysfs creates no directories (EPERM for root, EACCES for others, EROFS where it is
	 * mounted read-only) */
	if (statfs("/sys", &sf) == 0 && sf.f_type == 0x62656572 /* SYSFS_MAGIC */) {
		setenv("XDG_STATE_HOME", "/sys/hearth-test-state", 1);
		err_clear(&e);
		assert_null(session_create(ROOT, NULL, &e));
		assert_true(e.code == EPERM || e.code == EACCES || e.code == EROFS);
		assert_non_null(strstr(e.msg, "create session directory /sys/hearth-test-state: "));
		assert_non_null(strstr(e.msg, "; set XDG_STATE_HOME to a writable directory"));
	}
	buf_release(&x);
	buf_release(&p);
}

/* Descriptors open in this process; 0 when /proc/self/fd cannot be read. */
static size_t
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* In a child whose files may not grow (RLIMIT_FSIZE): a session whose first meta
 * cannot be written is NULL + e and holds nothing open; appends fail with -1 + e
 * and leave the leaf alone; once they may, the next entry's parent is that leaf.
 * 0, or which check failed. */
static int
full_child(void)
{
	const char line[] = "{\"id\":\"x1\",\"parent\":null,\"type\":\"notice\",\"text\":\"n\"}";
	struct err e = ERR_INIT;
	struct session *s;
	struct buf text = BUF_INIT, want = BUF_INIT;
	struct session_loaded l;
	struct rlimit rl, low;
	struct stat st;
	size_t fds = count_fds();
	char *leaf;

	if (!fds || getrlimit(RLIMIT_FSIZE, &rl) < 0)
		return 1;
	signal(SIGXFSZ, SIG_IGN);
	low = rl;
	low.rlim_cur = 0;
	if (setrlimit(RLIMIT_FSIZE, &low) < 0)
		return 1;
	if (session_create(ROOT, NULL, &e))
		return 9;
	if (!strstr(e.msg, "write session ") || count_fds() != fds)
		return 10;
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return 1;
	err_clear(&e);
	s = session_create(ROOT, NULL, &e);
	if (!s || !session_leaf(s) || stat(session_path(s), &st) < 0)
		return 1;
	leaf = xstrdup(session_leaf(s));
	low.rlim_cur = (rlim_t)st.st_size;
	if (setrlimit(RLIMIT_FSIZE, &low) < 0)
		return 1;
	if (session_append_notice(s, "lost", &e) != -1)
		return 2;
	buf_addf(&want, "write session %s: ", session_path(s));
	if (!strstr(e.msg, want.data))
		return 3;
	if (strcmp(session_leaf(s), leaf))
		return 4;
	if (session_append_line(s, line, strlen(line), "x1", &e) != -1)
		return 5;
	if (strcmp(session_leaf(s), leaf))
		return 6;
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return 1;
	if (session_append_notice(s, "kept", &e) != 0)
		return 7;
	buf_reset(&want);
	buf_addf(&want, "\"parent\":\"%s\"", leaf);
	if (buf_read_file(&text, session_path(s), 0, NULL) < 0 || strstr(text.data, "lost") ||
	    !strstr(text.data, want.data) || !strstr(text.data, "kept"))
		return 8;
	session_close(s);
	/* a torn last line that cannot be ended: no writer, nothing held, out empty */
	if (!(s = session_create(ROOT, NULL, &e)))
		return 1;
	buf_reset(&want);
	buf_adds(&want, session_path(s));
	session_close(s);
	append_raw(want.data, "{\"id\":\"t");
	if (stat(want.data, &st) < 0)
		return 1;
	low.rlim_cur = (rlim_t)st.st_size;
	if (setrlimit(RLIMIT_FSIZE, &low) < 0)
		return 1;
	err_clear(&e);
	if (session_resume(want.data, &l, NULL, &e))
		return 11;
	if (!strstr(e.msg, "write session ") || count_fds() != fds || l.conv.nmsgs || l.ids || l.leaf)
		return 12;
	session_loaded_release(&l);
	free(leaf);
	buf_release(&text);
	buf_release(&want);
	return 0;
}

static void
test_write_failure(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(full_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Descriptors open in this process. */
static size_t
open_fds(void)
{
	size_t n = count_fds();

	assert_true(n > 0);
	return n;
}

/* A writer holds one descriptor, which session_close closes. */
static void
test_close_releases_fd(void **state)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct session *s;
	size_t n = open_fds();
	char *path;

	(void)state;
	s = session_create(ROOT, NULL, &e);
	assert_non_null(s);
	assert_int_equal(open_fds(), n + 1);
	path = xstrdup(session_path(s));
	session_close(s);
	assert_int_equal(open_fds(), n);
	s = session_resume(path, &l, NULL, &e);
	assert_non_null(s);
	assert_int_equal(open_fds(), n + 1);
	session_close(s);
	session_loaded_release(&l);
	assert_int_equal(open_fds(), n);
	session_close(NULL);
	free(path);
}

/*
 * A writer syncs on a thread of its own (the loop does not wait for the
 * disk): the thread comes with the writer and goes with session_close;
 * session_flush returns once every line written is synced, at once when
 * none is waiting; every line is in the file after the close.
 */
static void
test_syncer(void **state)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct session *s;
	struct conv c;
	int n = tu_threads();
	size_t i;
	char *path;

	(void)state;
	s = session_create(ROOT, NULL, &e);
	assert_non_null(s);
	assert_int_equal(tu_threads(), n + 1);
	assert_int_equal(session_flush(s, &e), 0); /* nothing written yet */
	conv_init(&c);
	for (i = 0; i < 50; i++) {
		conv_add_user_text(&c, "line");
		assert_int_equal(session_append_msg(s, conv_last(&c), &e), 0);
		if (i == 24)
			assert_int_equal(session_flush(s, &e), 0);
	}
	assert_int_equal(session_flush(s, &e), 0);
	assert_int_equal(session_flush(s, &e), 0);
	path = xstrdup(session_path(s));
	session_close(s);
	assert_int_equal(tu_threads(), n);
	assert_int_equal(session_load(path, &l, NULL, &e), 0);
	assert_int_equal(l.conv.nmsgs, 50);
	session_loaded_release(&l);
	conv_release(&c);
	free(path);
}

/* A slow disk, and a failing one, for session_sync_fn: what it saw. */
static struct {
	pthread_t caller;    /* the thread that called it last */
	int calls, fail;     /* calls so far; fail: the next call fails with EIO */
	useconds_t delay;
} fake;

static int
fake_sync(int fd)
{
	fake.caller = pthread_self();
	__atomic_add_fetch(&fake.calls, 1, __ATOMIC_SEQ_CST);
	if (fake.delay)
		usleep(fake.delay);
	if (__atomic_load_n(&fake.fail, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&fake.fail, 0, __ATOMIC_SEQ_CST);
		errno = EIO;
		return -1;
	}
	return fdatasync(fd);
}

/*
 * With a disk that takes 300 ms a sync, an append returns without waiting
 * for it (the sync runs on the syncer, not the appending thread), and
 * session_flush and session_close wait for it; lines written during a
 * sync share the next one.  A failed sync is reported once, by the next
 * append or session_flush ("sync session"), and the line stays written.
 * With session_sync_thread 0 the appending thread syncs, and reports a
 * failure itself.
 */
static void
test_syncer_slow_and_failing(void **state)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	uint64_t t0;
	struct session *s;
	struct conv c;
	char *path;
	int i;

	(void)state;
	conv_init(&c);
	conv_add_user_text(&c, "line");
	memset(&fake, 0, sizeof fake);
	session_sync_fn = fake_sync;
	fake.delay = 300000;
	s = session_create(ROOT, NULL, &e); /* its meta line: a sync */
	assert_non_null(s);
	t0 = tu_now_ms();
	for (i = 0; i < 5; i++)
		assert_int_equal(session_append_msg(s, conv_last(&c), &e), 0);
	assert_true(tu_now_ms() - t0 < 250); /* five appends, not five 300 ms syncs */
	assert_int_equal(session_flush(s, &e), 0);
	assert_true(tu_now_ms() - t0 >= 300);
	assert_false(pthread_equal(fake.caller, pthread_self()));
	if (fake.calls < 1 || fake.calls > 4) /* the meta and five appends shared one to three syncs */
		fail_msg("%d syncs", fake.calls);
	/* a failing sync that takes 100 ms: the append returns first, the next one reports it */
	fake.delay = 100000;
	fake.fail = 1;
	assert_int_equal(session_append_msg(s, conv_last(&c), &e), 0);
	for (i = 0; i < 5000 && __atomic_load_n(&fake.fail, __ATOMIC_SEQ_CST); i++)
		usleep(1000); /* the syncer is in the failing sync */
	usleep(200000);
	assert_int_equal(session_append_msg(s, conv_last(&c), &e), -1);
	assert_non_null(strstr(e.msg, "sync session"));
	assert_int_equal(e.code, EIO);
	assert_int_equal(session_flush(s, &e), 0); /* reported once */
	/* ...or session_flush, when no append comes first */
	fake.fail = 1;
	assert_int_equal(session_append_msg(s, conv_last(&c), &e), 0);
	assert_int_equal(session_flush(s, &e), -1);
	assert_non_null(strstr(e.msg, "sync session"));
	assert_int_equal(session_flush(s, &e), 0);
	fake.delay = 0;
	path = xstrdup(session_path(s));
	session_close(s);
	assert_int_equal(session_load(path, &l, NULL, &e), 0);
	assert_int_equal(l.conv.nmsgs, 8); /* every line written, the failed syncs' too */
	session_loaded_release(&l);
	free(path);
	/* no syncer: the appending thread syncs and sees its failure at once */
	session_sync_thread = 0;
	fake.calls = 0;
	s = session_create(ROOT, NULL, &e);
	assert_non_null(s);
	assert_int_equal(fake.calls, 1);
	assert_true(pthread_equal(fake.caller, pthread_self()));
	fake.fail = 1;
	memset(&e, 0, sizeof e);
	assert_int_equal(session_append_msg(s, conv_last(&c), &e), -1);
	assert_non_null(strstr(e.msg, "sync session"));
	assert_int_equal(session_append_msg(s, conv_last(&c), &e), 0);
	assert_int_equal(session_flush(s, &e), 0);
	assert_int_equal(fake.calls, 3);
	session_close(s);
	session_sync_thread = 1;
	session_sync_fn = fdatasync;
	conv_release(&c);
}

/* session_meta_release leaves every field NULL: releasing again is a no-op. */
static void
test_meta_release(void **state)
{
	struct session_meta m = { xstrdup("/cwd"), xstrdup("qwen3"), xstrdup("http://x"),
				  xstrdup("2026-11-26T10:00:00.000Z"), xstrdup("s e") };

	(void)state;
	session_meta_release(&m);
	assert_null(m.cwd);
	assert_null(m.model);
	assert_null(m.server);
	assert_null(m.created);
	assert_null(m.forked_from);
	session_meta_release(&m);
}

/* A resumed session's id is its file's name less a ".jsonl" ending (none: the whole
 * name; a name that is only ".jsonl" keeps it, as an empty id names nothing). */
static void
test_id_from_file_name(void **state)
{
	static const char *const names[][2] = {
		{ "a.jsonl", "a" },
		{ "20261126-101500-123-0badcafe.jsonl", "20261126-101500-123-0badcafe" },
		{ "session.txt", "session.txt" },
		{ "x", "x" },
		{ ".jsonl", ".jsonl" },
	};
	struct session_loaded l;
	struct buf p = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", tmp, names[i][0]);
		assert_int_equal(fs_write_atomic(p.data, "", 0, &e), 0);
		s = session_resume(p.data, &l, NULL, &e);
		assert_non_null(s);
		assert_string_equal(session_id(s), names[i][1]);
		assert_string_equal(session_path(s), p.data);
		session_close(s);
		session_loaded_release(&l);
	}
	buf_release(&p);
}

/* A session file reached through a symlink is read but not resumed (hearth does not
 * write through a symlink: "open session ...: too many levels of symbolic links"),
 * and out is left empty, so the caller's release of it does nothing. */
static void
test_resume_symlink(void **state)
{
	struct session_loaded l;
	struct buf link = BUF_INIT;
	struct err e = ERR_INIT;
	char *path = numbered(2);

	(void)state;
	buf_addf(&link, "%s/link.jsonl", tmp);
	assert_int_equal(symlink(path, link.data), 0);
	assert_int_equal(session_load(link.data, &l, NULL, &e), 0);
	assert_int_equal(l.conv.nmsgs, 2);
	session_loaded_release(&l);
	assert_null(session_resume(link.data, &l, NULL, &e));
	assert_non_null(strstr(e.msg, "open session "));
	assert_int_equal(e.code, ELOOP);
	assert_int_equal(l.conv.nmsgs, 0);
	assert_null(l.ids);
	assert_null(l.leaf);
	assert_null(l.meta.model);
	session_loaded_release(&l);
	buf_release(&link);
	free(path);
}

/* A torn last line of a single byte (a crash in the first write) is ended with '\n'
 * on resume too: the next entry is a line of its own. */
static void
test_resume_one_torn_byte(void **state)
{
	struct session_loaded l;
	struct buf w = BUF_INIT;
	struct err e = ERR_INIT;
	struct session *s;
	char *path, *text;

	(void)state;
	s = session_create_bare(ROOT, &e);
	assert_non_null(s);
	path = xstrdup(session_path(s));
	session_close(s);
	append_raw(path, "{");
	s = session_resume(path, &l, &w, &e);
	assert_non_null(s);
	assert_int_equal(l.skipped, 1);
	session_loaded_release(&l);
	assert_int_equal(session_append_notice(s, "after the crash", &e), 0);
	session_close(s);
	text = slurp(path);
	assert_memory_equal(text, "{\n{\"id\":", 8);
	free(text);
	buf_reset(&w);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(l.skipped, 1);
	assert_non_null(strstr(w.data, ":1: invalid JSON"));
	assert_non_null(l.leaf);
	session_loaded_release(&l);
	free(path);
	buf_release(&w);
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
		cmocka_unit_test_setup_teardown(test_times_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_project_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modes_whatever_umask, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_releases_fd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syncer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syncer_slow_and_failing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_meta_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_id_from_file_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_one_torn_byte, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_hostile: hostile session and settings files (issue 7, Tests):
 * every field of an entry with the wrong JSON type, binary garbage and
 * NUL bytes, a 50 MB line, 100 000 entries, deep nesting, a FIFO or a
 * directory where a file should be, and the same for settings.  Nothing
 * may crash, hang or lose the good entries; each problem is one warning.
 */
#include "sess_fixture.h"

#include "base/cfg.h"
#include "mcp/config.h"
#include "session/list.h"

/* Elapsed wall-clock milliseconds since t0. */
static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* Every field wrong-typed, one per line, between two good messages. */
static void
test_wrong_types(void **state)
{
	static const char *const bad[] = {
		"{\"id\":7,\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"text\",\"text\":\"x\"}]}}",
		"{\"id\":\"b1\",\"parent\":[1],\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"text\",\"text\":\"y\"}]}}",
		"{\"id\":\"b2\",\"parent\":\"a\",\"type\":7,\"message\":{}}",
		"{\"id\":\"b3\",\"parent\":\"a\",\"type\":\"message\",\"message\":\"text\"}",
		"{\"id\":\"b4\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":5,\"blocks\":[]}}",
		"{\"id\":\"b5\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":{}}}",
		"{\"id\":\"b6\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[7,null,{\"kind\":3},{\"kind\":\"text\",\"text\":[1]}]}}",
		"{\"id\":\"b7\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"user\",\"aborted\":\"yes\",\"blocks\":[{\"kind\":\"tool_result\",\"is_error\":\"no\",\"id\":{},\"name\":1}]}}",
		"{\"id\":\"b8\",\"parent\":\"a\",\"type\":\"meta\",\"meta\":[]}",
		"{\"id\":\"b9\",\"parent\":\"a\",\"type\":\"meta\",\"meta\":{\"cwd\":1,\"model\":{},\"forked_from\":[]}}",
		"{\"id\":\"b10\",\"parent\":\"a\",\"type\":\"notice\",\"text\":{}}",
		"[]", "null", "\"str\"", "12", "{}", "{\"id\":\"\"}",
	};
	struct buf text = BUF_INIT, w = BUF_INIT;
	struct session_loaded l;
	struct err e = ERR_INIT;
	char *path;
	size_t i;

	(void)state;
	buf_adds(&text, "{\"id\":\"a\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"text\",\"text\":\"first\"}]}}\n");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		buf_addf(&text, "%s\n", bad[i]);
	buf_adds(&text, "{\"id\":\"z\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"blocks\":[{\"kind\":\"text\",\"text\":\"last\"}]}}\n");
	path = raw_session(text.data);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_true(l.conv.nmsgs >= 2);
	assert_string_equal(l.conv.msgs[0].blocks[0].text, "first");
	assert_string_equal(l.conv.msgs[l.conv.nmsgs - 1].blocks[0].text, "last");
	assert_true(w.len > 0);
	session_loaded_release(&l);
	free(path);
	buf_release(&text);
	buf_release(&w);
}

/* NUL bytes, binary garbage and invalid UTF-8: skipped lines, good ones kept. */
static void
test_binary(void **state)
{
	static const char good[] = "{\"id\":\"a\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"text\",\"text\":\"ok\"}]}}\n";
	struct buf text = BUF_INIT, w = BUF_INIT;
	struct session_loaded l;
	struct err e = ERR_INIT;
	char *path = raw_session("");
	int fd;
	size_t i;

	(void)state;
	buf_adds(&text, good);
	buf_add(&text, "{\"id\":\"b\"\0\0\0}\n", 14);
	for (i = 0; i < 4096; i++)
		buf_addch(&text, (char)((i * 131 + 7) & 0xff) == '\n' ? 'x' : (char)((i * 131 + 7) & 0xff));
	buf_adds(&text, "\n\xff\xfe{\"id\":\"c\"}\n");
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text.data, text.len), (ssize_t)text.len);
	close(fd);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	assert_int_equal(l.conv.nmsgs, 1);
	assert_string_equal(l.conv.msgs[0].blocks[0].text, "ok");
	assert_int_equal(l.skipped, 3);
	session_loaded_release(&l);
	free(path);
	buf_release(&text);
	buf_release(&w);
}

/* A 50 MB message line loads whole; a message after it is kept. */
static void
test_50mb_line(void **state)
{
	struct buf text = BUF_INIT, w = BUF_INIT;
	struct session_loaded l;
	struct err e = ERR_INIT;
	struct timespec t0;
	char *path;

	(void)state;
	buf_grow(&text, (50u << 20) + 512);
	buf_adds(&text, "{\"id\":\"a\",\"parent\":null,\"type\":\"message\",\"message\":{\"role\":\"user\",\"blocks\":[{\"kind\":\"text\",\"text\":\"");
	memset(text.data + text.len, 'x', 50u << 20);
	text.len += 50u << 20;
	text.data[text.len] = '\0';
	buf_adds(&text, "\"}]}}\n{\"id\":\"b\",\"parent\":\"a\",\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"blocks\":[{\"kind\":\"text\",\"text\":\"after\"}]}}\n");
	path = raw_session(text.data);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	print_message("50 MB line loaded in %ld ms (%s)\n", ms_since(&t0), w.data);
	assert_int_equal(l.conv.nmsgs, 2);
	assert_int_equal(strlen(l.conv.msgs[0].blocks[0].text), 50u << 20);
	assert_string_equal(l.conv.msgs[1].blocks[0].text, "after");
	session_loaded_release(&l);
	free(path);
	buf_release(&text);
	buf_release(&w);
}

/* 100 000 entries load, list and fork in bounded time. */
static void
test_100k_entries(void **state)
{
	struct buf text = BUF_INIT, w = BUF_INIT, latest = BUF_INIT;
	struct session_loaded l;
	struct session_list_info *v = NULL;
	struct err e = ERR_INIT;
	struct timespec t0;
	struct session *f;
	size_t i, n = 0;
	long fork_ms, load_ms;
	char *path;

	(void)state;
	for (i = 0; i < 100000; i++) {
		char parent[32];

		snprintf(parent, sizeof parent, i ? "\"e%zu\"" : "null", i - 1);
		buf_addf(&text, "{\"id\":\"e%zu\",\"parent\":%s,\"type\":\"message\",\"message\":{\"role\":\"%s\",\"blocks\":[{\"kind\":\"text\",\"text\":\"t%zu\"}]}}\n",
			 i, parent, i % 2 ? "assistant" : "user", i);
	}
	path = raw_session(text.data);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(session_load(path, &l, &w, &e), 0);
	load_ms = ms_since(&t0);
	print_message("100k entries loaded in %ld ms\n", load_ms);
	assert_int_equal(l.conv.nmsgs, 100000);
	assert_string_equal(l.conv.msgs[99999].blocks[0].text, "t99999");
	if (w.len)
		fail_msg("%s", w.data);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	print_message("list %ld ms\n", ms_since(&t0));
	assert_int_equal(n, 1);
	assert_string_equal(v[0].first_prompt, "t0");
	session_list_free(v, n);
	assert_int_equal(session_list_latest(ROOT, &latest, &e), 0);
	print_message("latest %ld ms\n", ms_since(&t0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	f = session_list_fork(path, l.ids[50000], 0, ROOT, &e);
	assert_non_null(f);
	fork_ms = ms_since(&t0);
	print_message("fork at 50k in %ld ms\n", fork_ms);
	/* a fork is a load plus one write: one fdatasync per entry took 60-150 loads here */
	assert_true(fork_ms < 5 * load_ms + 2000);
	session_loaded_release(&l);
	memset(&l, 0, sizeof l);
	assert_int_equal(session_load(session_path(f), &l, &w, &e), 0);
	assert_int_equal(l.conv.nmsgs, 50000);
	assert_string_equal(l.conv.msgs[49999].blocks[0].text, "t49999");
	session_close(f);
	session_loaded_release(&l);
	free(path);
	buf_release(&text);
	buf_release(&w);
	buf_release(&latest);
}

/* A FIFO or a directory named like a session never blocks or crashes -c. */
static void
test_fifo_and_dir(void **state)
{
	struct buf dir = BUF_INIT, p = BUF_INIT, latest = BUF_INIT;
	struct session_list_info *v = NULL;
	struct err e = ERR_INIT;
	char *good = numbered(2);
	size_t n = 0;

	(void)state;
	assert_int_equal(session_dir(ROOT, &dir, &e), 0);
	buf_addf(&p, "%s/zzzz-fifo.jsonl", dir.data);
	assert_int_equal(mkfifo(p.data, 0600), 0);
	buf_reset(&p);
	buf_addf(&p, "%s/zzzz-dir.jsonl", dir.data);
	assert_int_equal(mkdir(p.data, 0700), 0);
	assert_int_equal(session_list_list(ROOT, &v, &n, &e), 0);
	assert_int_equal(n, 1);
	session_list_free(v, n);
	assert_int_equal(session_list_latest(ROOT, &latest, &e), 0);
	assert_string_equal(latest.data, good);
	free(good);
	buf_release(&dir);
	buf_release(&p);
	buf_release(&latest);
}

/* Settings: wrong types for every key, out-of-range numbers, a FIFO, a huge file, deep nesting. */
static void
test_settings(void **state)
{
	struct buf w = BUF_INIT, p = BUF_INIT, big = BUF_INIT;
	struct err e = ERR_INIT;
	struct cfg c;
	size_t i, n;

	(void)state;
	buf_addf(&p, "%s/s.json", tmp);
	cfg_defaults(&c);
	tu_write(tmp, "s.json", "{\"server\":1,\"model\":[],\"temperature\":\"hot\",\"top_p\":null,"
		 "\"top_k\":1.5,\"max_tokens\":1e300,\"thinking\":\"yes\",\"max_steps\":-1e20,"
		 "\"allow_outside_workspace\":1,\"bash_timeout\":{},\"id_slot\":true,"
		 "\"request_timeout\":\"1\",\"stream_idle_timeout\":9999999999,"
		 "\"syntax_check\":\"maybe\",\"slot_wait\":[1],\"mcp_timeout\":\"x\"}");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), 0);
	assert_string_equal(c.server_url, "http://127.0.0.1:8080");
	assert_int_equal(c.max_tokens, -1);
	assert_int_equal(c.max_steps, 40);
	assert_int_equal(c.stream_idle_timeout_s, 120);
	assert_int_equal(c.mcp_timeout_s, 60);
	for (i = 0, n = 0; i < w.len; i++) /* one warning per key */
		n += w.data[i] == '\n';
	assert_int_equal(n, 16);
	assert_non_null(strstr(w.data, "\"max_tokens\" must be an integer"));
	assert_non_null(strstr(w.data, "\"stream_idle_timeout\" must be an integer"));
	buf_reset(&w);
	/* a FIFO is refused at once instead of blocking the start */
	unlink(p.data);
	assert_int_equal(mkfifo(p.data, 0600), 0);
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
	unlink(p.data);
	/* a directory */
	assert_int_equal(mkdir(p.data, 0700), 0);
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	rmdir(p.data);
	/* 2 MB: over the limit, one line */
	buf_adds(&big, "{\"model\":\"");
	for (i = 0; i < (2u << 20); i++)
		buf_addch(&big, 'm');
	buf_adds(&big, "\"}");
	tu_write(tmp, "s.json", big.data);
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "limit"));
	/* 100 000 nested arrays: an error, not a stack overflow */
	buf_reset(&big);
	buf_adds(&big, "{\"x\":");
	for (i = 0; i < 100000; i++)
		buf_addch(&big, '[');
	tu_write(tmp, "s.json", big.data);
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "invalid JSON"));
	/* truncated */
	tu_write(tmp, "s.json", "{\"server\": \"http://x");
	assert_int_equal(cfg_load_file(&c, p.data, &w, &e), -1);
	assert_string_equal(c.server_url, "http://127.0.0.1:8080");
	cfg_release(&c);
	buf_release(&w);
	buf_release(&p);
	buf_release(&big);
}

/* .mcp.json: a FIFO and deep nesting are refused without blocking. */
static void
test_mcp_json(void **state)
{
	struct buf w = BUF_INIT, p = BUF_INIT;
	struct err e = ERR_INIT;
	struct mcp_config c = { 0 };

	(void)state;
	buf_addf(&p, "%s/.mcp.json", tmp);
	assert_int_equal(mkfifo(p.data, 0600), 0);
	assert_int_equal(mcp_config_load_file(&c, p.data, &w, &e), -1);
	assert_non_null(strstr(e.msg, "not a regular file"));
	unlink(p.data);
	tu_write(tmp, ".mcp.json", "{\"mcpServers\":{\"a\":{\"command\":\"x\",\"args\":[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}}}");
	assert_int_equal(mcp_config_load_file(&c, p.data, &w, &e), 0);
	assert_int_equal(c.n, 0);
	assert_non_null(strstr(w.data, "array of strings"));
	mcp_config_release(&c);
	buf_release(&w);
	buf_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_50mb_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_100k_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_and_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mcp_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_perm_trust: trust on first use (perm/trust.h).  The hash is git's
 * blob SHA-1; the trust file is created 0600 in a 0700 directory,
 * remembers a root with its hash, answers no for another hash (what was
 * trusted changed) or another root, forgets; a corrupt file is a one-line
 * error and trusts nothing, and recording replaces it.  What a project's
 * settings ask trust for: a wider approval, allow rules, hooks,
 * allow_outside_workspace, serve.binary; not deny/ask rules or a
 * stricter approval.  An untrusted gate keeps only what narrows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/json.h"
#include "io/loop.h"
#include "perm/gate.h"
#include "perm/trust.h"

static char dir[4096];

static int
setup(void **state)
{
	char t[] = "/tmp/hearth-trust.XXXXXX", p[4200];

	(void)state;
	if (!mkdtemp(t) || !realpath(t, dir))
		return -1;
	setenv("HOME", dir, 1);
	snprintf(p, sizeof p, "%s/config", dir);
	setenv("XDG_CONFIG_HOME", p, 1);
	snprintf(p, sizeof p, "%s/proj", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/proj/.hearth", dir);
	return mkdir(p, 0700);
}

static int
teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static void
put(const char *rel, const char *text)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_hash(void **state)
{
	char h[PERM_TRUST_HEX + 1], h2[PERM_TRUST_HEX + 1];

	(void)state;
	perm_trust_hash("hello\n", 6, h);
	assert_string_equal(h, "ce013625030ba8dba906f756967f9e9ca394464a"); /* git hash-object */
	perm_trust_hash("hello!", 6, h2);
	assert_string_not_equal(h, h2);
}

static void
test_store(void **state)
{
	struct buf file = BUF_INIT, state_dir = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	const char *a = "0123456789012345678901234567890123456789";
	const char *b = "9876543210987654321098765432109876543210";

	(void)state;
	buf_addf(&state_dir, "%s/state/hearth", dir);
	perm_trust_file(state_dir.data, &file);
	assert_int_equal(perm_trust_check(file.data, "/p", a, &e), 0); /* no file yet */
	umask(022);
	assert_int_equal(perm_trust_record(file.data, "/p", a, &e), 0);
	assert_int_equal(stat(file.data, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(state_dir.data, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(perm_trust_check(file.data, "/p", a, &e), 1);
	assert_int_equal(perm_trust_check(file.data, "/p", b, &e), 0);  /* content changed */
	assert_int_equal(perm_trust_check(file.data, "/q", a, &e), 0);  /* another project */
	assert_int_equal(perm_trust_record(file.data, "/q", b, &e), 0);
	assert_int_equal(perm_trust_check(file.data, "/p", a, &e), 1);  /* both kept */
	assert_int_equal(perm_trust_check(file.data, "/q", b, &e), 1);
	assert_int_equal(perm_trust_record(file.data, "/p", b, &e), 0); /* re-trusted after a change */
	assert_int_equal(perm_trust_check(file.data, "/p", a, &e), 0);
	assert_int_equal(perm_trust_check(file.data, "/p", b, &e), 1);
	assert_int_equal(perm_trust_record(file.data, "/p", NULL, &e), 0); /* forget */
	assert_int_equal(perm_trust_check(file.data, "/p", b, &e), 0);
	assert_int_equal(perm_trust_check(file.data, "/q", b, &e), 1);
	assert_int_equal(stat(file.data, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* corrupt: one line, nothing trusted; recording replaces it */
	put("state/hearth/trust.json", "{\"projects\": {\"/q\": \"9876");
	assert_int_equal(perm_trust_check(file.data, "/q", b, &e), -1);
	assert_null(strchr(e.msg, '\n'));
	assert_non_null(strstr(e.msg, file.data));
	assert_non_null(strstr(e.msg, "hearth trust"));
	err_clear(&e);
	put("state/hearth/trust.json", "[1, 2]");
	assert_int_equal(perm_trust_check(file.data, "/q", b, &e), -1);
	err_clear(&e);
	assert_int_equal(perm_trust_record(file.data, "/q", b, &e), 0);
	assert_int_equal(perm_trust_check(file.data, "/q", b, &e), 1);
	/* a short or odd hash in the file trusts nothing */
	put("state/hearth/trust.json", "{\"version\": 1, \"projects\": {\"/q\": \"\"}}");
	assert_int_equal(perm_trust_check(file.data, "/q", "", &e), 0);
	buf_release(&file);
	buf_release(&state_dir);
}

/* perm_trust_settings of the project; returns the count, show and canon in the bufs. */
static size_t
settings(const char *json, struct buf *show, struct buf *canon)
{
	char root[4200];

	put("proj/.hearth/settings.json", json);
	snprintf(root, sizeof root, "%s/proj", dir);
	buf_reset(show);
	buf_reset(canon);
	return perm_trust_settings(root, show, canon);
}

static void
test_settings(void **state)
{
	struct buf show = BUF_INIT, canon = BUF_INIT, canon2 = BUF_INIT;

	(void)state;
	assert_int_equal(settings("{\"theme\": \"dark\", \"permissions\": {\"deny\": [\"bash\"], \"ask\": [\"edit\"]}}",
				  &show, &canon), 0);
	assert_int_equal(settings("{\"approval\": \"ask\"}", &show, &canon), 0);
	assert_int_equal(settings("{\"approval\": \"auto-edit\"}", &show, &canon), 0);
	assert_int_equal(settings("{\"approval\": \"yolo\", \"hooks\": {\"session_start\": [{\"command\": \"touch pwned\"}]},"
				  " \"permissions\": {\"allow\": [\"bash(make*)\"], \"deny\": [\"bash(rm*)\"]}}", &show, &canon), 3);
	assert_non_null(strstr(show.data, "approval mode \"yolo\""));
	assert_non_null(strstr(show.data, "session_start hook: touch pwned"));
	assert_non_null(strstr(show.data, "allow rule: bash(make*)"));
	assert_null(strstr(show.data, "rm*"));
	buf_adds(&canon2, canon.data);
	assert_int_equal(settings("{\"approval\": \"yolo\", \"hooks\": {\"session_start\": [{\"command\": \"touch pwned2\"}]},"
				  " \"permissions\": {\"allow\": [\"bash(make*)\"], \"deny\": [\"bash(rm*)\"]}}", &show, &canon), 3);
	assert_string_not_equal(canon.data, canon2.data);
	/* a deny rule or theme change does not change what needs trust */
	buf_reset(&canon2);
	buf_adds(&canon2, canon.data);
	assert_int_equal(settings("{\"theme\": \"x\", \"approval\": \"yolo\", \"hooks\": {\"session_start\": [{\"command\": \"touch pwned2\"}]},"
				  " \"permissions\": {\"allow\": [\"bash(make*)\"], \"deny\": [\"bash(rm -rf*)\"]}}", &show, &canon), 3);
	assert_string_equal(canon.data, canon2.data);
	assert_int_equal(settings("{\"allow_outside_workspace\": true, \"serve\": {\"binary\": \"./evil\"}}", &show, &canon), 2);
	assert_non_null(strstr(show.data, "./evil"));
	/* yolo is not wider when the user's own settings say yolo */
	{
		char p[4200];

		snprintf(p, sizeof p, "%s/config", dir);
		assert_int_equal(mkdir(p, 0700), 0);
		snprintf(p, sizeof p, "%s/config/hearth", dir);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	put("config/hearth/settings.json", "{\"approval\": \"yolo\"}");
	assert_int_equal(settings("{\"approval\": \"yolo\"}", &show, &canon), 0);
	buf_release(&show);
	buf_release(&canon);
	buf_release(&canon2);
}

/* An untrusted gate keeps deny/ask rules and a stricter mode, drops the rest. */
static void
test_gate_untrusted(void **state)
{
	struct err e = ERR_INIT;
	struct loop *l = loop_new(&e);
	struct tool_env env = { 0 };
	struct buf w = BUF_INIT;
	struct perm_gate *g;
	struct perm *p;
	char root[4200], pwned[4300];

	(void)state;
	assert_non_null(l);
	snprintf(root, sizeof root, "%s/proj", dir);
	env.loop = l;
	env.root = root;
	put("proj/.hearth/settings.json", "{\"approval\": \"yolo\", \"hooks\": {\"session_start\": [\"touch pwned\"]},"
	    " \"permissions\": {\"allow\": [\"bash\"], \"deny\": [\"bash(rm*)\"], \"ask\": [\"edit\"]}}");
	g = perm_gate_new(l, &env, 0, &w);
	p = perm_gate_perm(g);
	assert_int_equal(p->mode, PERM_AUTO_EDIT);
	assert_int_equal(p->lists[PERM_LIST_ALLOW].n, 0);
	assert_int_equal(p->lists[PERM_LIST_DENY].n, 1);
	assert_int_equal(p->lists[PERM_LIST_ASK].n, 1);
	perm_gate_session_start(g, "print", 0);
	perm_gate_drain(g);
	snprintf(pwned, sizeof pwned, "%s/pwned", root);
	assert_int_not_equal(access(pwned, F_OK), 0);
	perm_gate_free(g);
	/* a stricter approval applies untrusted */
	put("proj/.hearth/settings.json", "{\"approval\": \"ask\"}");
	g = perm_gate_new(l, &env, 0, &w);
	assert_int_equal(perm_gate_perm(g)->mode, PERM_ASK);
	perm_gate_free(g);
	/* trusted: all of it (the hook runs: the check above can see it) */
	put("proj/.hearth/settings.json", "{\"approval\": \"yolo\", \"hooks\": {\"session_start\": [\"touch pwned\"]},"
	    " \"permissions\": {\"allow\": [\"bash\"]}}");
	g = perm_gate_new(l, &env, 1, &w);
	assert_int_equal(perm_gate_perm(g)->mode, PERM_YOLO);
	assert_int_equal(perm_gate_perm(g)->lists[PERM_LIST_ALLOW].n, 1);
	perm_gate_session_start(g, "print", 0);
	perm_gate_drain(g);
	assert_int_equal(access(pwned, F_OK), 0);
	perm_gate_free(g);
	loop_free(l);
	buf_release(&w);
}

/* An untrusted project's "permissions" that is not an object is warned about, as a trusted one is. */
static void
test_gate_untrusted_bad_permissions(void **state)
{
	struct err e = ERR_INIT;
	struct loop *l = loop_new(&e);
	struct tool_env env = { 0 };
	struct buf w = BUF_INIT, want = BUF_INIT;
	struct perm_gate *g;
	int trusted;
	char root[4200];

	(void)state;
	assert_non_null(l);
	snprintf(root, sizeof root, "%s/proj", dir);
	env.loop = l;
	env.root = root;
	put("proj/.hearth/settings.json", "{\"permissions\": [\"bash\"]}");
	buf_addf(&want, "%s/.hearth/settings.json: \"permissions\" must be an object like {\"deny\": [\"bash(git push*)\"]}; ignored\n",
		 root);
	for (trusted = 0; trusted < 2; trusted++) {
		buf_reset(&w);
		g = perm_gate_new(l, &env, trusted, &w);
		assert_string_equal(w.data, want.data);
		assert_int_equal(perm_gate_perm(g)->lists[PERM_LIST_DENY].n, 0);
		assert_int_equal(perm_gate_perm(g)->lists[PERM_LIST_ALLOW].n, 0);
		perm_gate_free(g);
	}
	/* no "permissions": nothing to say */
	put("proj/.hearth/settings.json", "{\"approval\": \"ask\"}");
	buf_reset(&w);
	g = perm_gate_new(l, &env, 0, &w);
	assert_int_equal(w.len, 0);
	perm_gate_free(g);
	loop_free(l);
	buf_release(&w);
	buf_release(&want);
}

/* The project's settings padded with spaces to n bytes, holding one deny rule; the gate's deny count. */
static size_t
deny_rules_of_size(size_t n)
{
	struct err e = ERR_INIT;
	struct loop *l = loop_new(&e);
	struct tool_env env = { 0 };
	struct buf w = BUF_INIT, text = BUF_INIT;
	struct perm_gate *g;
	char root[4200];
	size_t got;

	assert_non_null(l);
	snprintf(root, sizeof root, "%s/proj", dir);
	env.loop = l;
	env.root = root;
	buf_adds(&text, "{\"permissions\": {\"deny\": [\"bash(rm*)\"]}}");
	while (text.len < n)
		buf_addch(&text, ' ');
	put("proj/.hearth/settings.json", text.data);
	g = perm_gate_new(l, &env, 1, &w);
	got = perm_gate_perm(g)->lists[PERM_LIST_DENY].n;
	perm_gate_free(g);
	loop_free(l);
	buf_release(&w);
	buf_release(&text);
	return got;
}

/* A settings file of 1 MiB is read; one byte more is not (cfg reports it; the gate takes nothing of it). */
static void
test_gate_settings_size_limit(void **state)
{
	(void)state;
	assert_int_equal(deny_rules_of_size(1u << 20), 1);
	assert_int_equal(deny_rules_of_size((1u << 20) + 1), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash),
		cmocka_unit_test_setup_teardown(test_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_untrusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_untrusted_bad_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_settings_size_limit, setup, teardown),
	};

	json_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

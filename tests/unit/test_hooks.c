/*
 * test_hooks: hook commands on a real loop — a pre_tool hook that exits 2
 * blocks with its stderr as the reason (later hooks do not run), other
 * exits are problems that do not block, the JSON event arrives on stdin
 * with HEARTH_* in the environment and the workspace as cwd, a hook that
 * hangs is killed at its timeout with its whole process group, a flood on
 * stdout or stderr is cut and the hook killed, matchers, cancelling, and
 * settings with bad entries.  Each wait pumps the loop under a wall-clock
 * cap, so a hang fails instead of stalling.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "perm/hooks.h"
#include "base/json.h"
#include "io/loop.h"
#include "testutil.h"

static char dir[64];
static struct loop *L;

struct got {
	int calls;
	int blocked;
	struct buf reason, problems, output;
};

static int
setup(void **state)
{
	struct err e = ERR_INIT;

	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hearth-hooks.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	L = loop_new(&e);
	return L ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	loop_free(L);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static void
on_done(void *arg, const struct perm_hooks_result *r)
{
	struct got *g = arg;

	g->calls++;
	g->blocked = r->blocked;
	buf_add(&g->reason, r->reason.data, r->reason.len);
	buf_add(&g->problems, r->problems.data, r->problems.len);
	buf_add(&g->output, r->output.data, r->output.len);
}

static void
got_init(struct got *g)
{
	memset(g, 0, sizeof *g);
	buf_init(&g->reason, 0);
	buf_init(&g->problems, 0);
	buf_init(&g->output, 0);
}

static void
got_release(struct got *g)
{
	buf_release(&g->reason);
	buf_release(&g->problems);
	buf_release(&g->output);
}

/* Hooks from a settings JSON text (no warnings expected). */
static struct perm_hooks *
hooks_from(const char *json)
{
	struct perm_hooks *h = perm_hooks_new(L, dir);
	struct buf w = BUF_INIT;
	cJSON *o = json_parse(json, strlen(json), NULL);

	assert_non_null(o);
	perm_hooks_load_json(h, o, "test", &w);
	if (w.len)
		fail_msg("warnings: %s", w.data);
	cJSON_Delete(o);
	buf_release(&w);
	return h;
}

/* Run event ev for tool and pump until done (cap ms); returns the elapsed ms. */
static uint64_t
run(struct perm_hooks *h, enum perm_hooks_event ev, const char *tool, const char *json, struct got *g,
    uint64_t cap)
{
	struct perm_hooks_call c = { ev, tool, "sess-1", json };
	uint64_t t0 = tu_now_ms();

	perm_hooks_run(h, &c, on_done, g);
	while (!g->calls && tu_now_ms() - t0 < cap)
		loop_run_once(L, 50, NULL);
	assert_int_equal(g->calls, 1);
	assert_false(perm_hooks_busy(h));
	return tu_now_ms() - t0;
}

/* Read a small file into a static buffer ("" when missing). */
static const char *
slurp(const char *name)
{
	static char text[8192];
	char path[256];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	text[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(text, 1, sizeof text - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

static void
test_block(void **state)
{
	struct perm_hooks *h = hooks_from(
		"{\"pre_tool\": [\"echo fine; echo 'no pushing here' >&2; exit 2\","
		" \"touch second-ran\"]}");
	struct got g;

	(void)state;
	got_init(&g);
	run(h, PERM_HOOKS_PRE_TOOL, "bash", "{}", &g, 5000);
	assert_int_equal(g.blocked, 1);
	assert_string_equal(g.reason.data, "no pushing here");
	assert_string_equal(g.output.data, "fine\n");
	assert_int_equal(g.problems.len, 0);
	assert_string_equal(slurp("second-ran"), "");
	assert_int_equal(perm_hooks_count(h, PERM_HOOKS_PRE_TOOL, "x"), 2);
	got_release(&g);
	perm_hooks_free(h);
}

static void
test_failures_do_not_block(void **state)
{
	struct perm_hooks *h = hooks_from(
		"{\"pre_tool\": [\"echo 'first line' >&2; echo more >&2; exit 1\", \"exit 2\","
		" \"no-such-command-hearth\"], \"post_tool\": [\"exit 2\"]}");
	struct got g;

	(void)state;
	got_init(&g);
	run(h, PERM_HOOKS_POST_TOOL, "bash", "{}", &g, 5000);
	assert_int_equal(g.blocked, 0); /* exit 2 blocks only pre_tool */
	assert_non_null(strstr(g.problems.data, "hook \"exit 2\" (post_tool) exited with status 2"));
	got_release(&g);
	got_init(&g);
	run(h, PERM_HOOKS_PRE_TOOL, "bash", "{}", &g, 5000);
	assert_int_equal(g.blocked, 1);
	assert_string_equal(g.reason.data, "blocked by the hook \"exit 2\"");
	assert_non_null(strstr(g.problems.data, "exited with status 1: first line"));
	assert_string_equal(g.problems.data + g.problems.len - strlen("status 1: first line"),
			    "status 1: first line"); /* the first line of stderr only */
	got_release(&g);
	perm_hooks_free(h);
	h = hooks_from("{\"turn_end\": [\"no-such-command-hearth\"]}");
	got_init(&g);
	run(h, PERM_HOOKS_TURN_END, NULL, "{}", &g, 5000);
	assert_non_null(strstr(g.problems.data, "exited with status 127"));
	got_release(&g);
	perm_hooks_free(h);
}

static void
test_event_env_cwd(void **state)
{
	struct perm_hooks *h = hooks_from(
		"{\"post_tool\": [{\"command\": \"cat >event.json; pwd >cwd.txt;"
		" echo \\\"$HEARTH_EVENT|$HEARTH_TOOL|$HEARTH_SESSION_ID|$HEARTH_PROJECT_DIR\\\" >env.txt\","
		" \"matcher\": \"ba*\"}]}");
	struct got g;
	char want[4200], real[4096];

	(void)state;
	got_init(&g);
	run(h, PERM_HOOKS_POST_TOOL, "bash", "{\"event\":\"post_tool\",\"x\":\"\\u00e9\"}", &g, 5000);
	assert_string_equal(slurp("event.json"), "{\"event\":\"post_tool\",\"x\":\"\\u00e9\"}");
	assert_non_null(realpath(dir, real));
	snprintf(want, sizeof want, "%s\n", real);
	assert_string_equal(slurp("cwd.txt"), want);
	snprintf(want, sizeof want, "post_tool|bash|sess-1|%s\n", dir);
	assert_string_equal(slurp("env.txt"), want);
	got_release(&g);
	/* the matcher: not for another tool (done at once, nothing runs) */
	got_init(&g);
	assert_int_equal(perm_hooks_count(h, PERM_HOOKS_POST_TOOL, "edit"), 0);
	assert_int_equal(perm_hooks_count(h, PERM_HOOKS_POST_TOOL, "Bash"), 1);
	{
		struct perm_hooks_call c = { PERM_HOOKS_POST_TOOL, "edit", NULL, "{}" };

		assert_null(perm_hooks_run(h, &c, on_done, &g));
		assert_int_equal(g.calls, 1);
	}
	got_release(&g);
	perm_hooks_free(h);
}

/* Whether pid is gone (or a zombie, which we then reap). */
static int
gone(pid_t pid)
{
	char path[64], st[512];
	FILE *f;
	size_t n;
	char *rp;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return kill(pid, 0) < 0 && errno == ESRCH;
	n = fread(st, 1, sizeof st - 1, f);
	fclose(f);
	st[n] = '\0';
	rp = strrchr(st, ')');
	if (rp && rp[1] == ' ' && rp[2] == 'Z') {
		(void)waitpid(pid, NULL, WNOHANG);
		return 1;
	}
	return 0;
}

static void
test_hang_killed(void **state)
{
	struct perm_hooks *h = hooks_from(
		"{\"pre_tool\": [{\"command\": \"sleep 100 & echo $! >bg.pid; trap '' TERM; wait\","
		" \"timeout\": 1}]}");
	struct got g;
	uint64_t ms;
	pid_t bg;
	int i;

	(void)state;
	got_init(&g);
	ms = run(h, PERM_HOOKS_PRE_TOOL, "bash", "{}", &g, 10000);
	assert_true(ms >= 900 && ms < 6000); /* 1 s timeout + at most the 2 s kill grace */
	assert_int_equal(g.blocked, 0);
	assert_non_null(strstr(g.problems.data, "timed out after 1 s and was killed"));
	bg = (pid_t)atoi(slurp("bg.pid"));
	assert_true(bg > 0);
	for (i = 0; i < 40 && !gone(bg); i++)
		usleep(50000);
	assert_true(gone(bg));
	got_release(&g);
	perm_hooks_free(h);
}

static void
test_flood_cut(void **state)
{
	const char *const cmds[] = {
		"{\"pre_tool\": [\"yes flood-out\"]}",
		"{\"pre_tool\": [\"yes flood-err >&2\"]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct perm_hooks *h = hooks_from(cmds[i]);
		struct got g;
		uint64_t ms;

		got_init(&g);
		ms = run(h, PERM_HOOKS_PRE_TOOL, "bash", "{}", &g, 10000);
		assert_true(ms < 5000); /* not the 30 s timeout */
		assert_int_equal(g.blocked, 0);
		assert_non_null(strstr(g.problems.data, "wrote more than 1048576 bytes and was killed"));
		assert_true(g.output.len <= PERM_HOOKS_KEEP);
		got_release(&g);
		perm_hooks_free(h);
	}
}

static void
test_cancel_and_free(void **state)
{
	struct perm_hooks *h = hooks_from("{\"pre_tool\": [\"echo $$ >sh.pid; exec sleep 100\"],"
				     " \"turn_end\": [\"exec sleep 100\"]}");
	struct perm_hooks_call c = { PERM_HOOKS_PRE_TOOL, "bash", NULL, "{}" };
	struct perm_hooks_call t = { PERM_HOOKS_TURN_END, NULL, NULL, "{}" };
	struct perm_hooks_run *r;
	struct got g;
	uint64_t t0 = tu_now_ms();
	pid_t pid = 0;
	int i;

	(void)state;
	got_init(&g);
	r = perm_hooks_run(h, &c, on_done, &g);
	assert_non_null(r);
	assert_non_null(perm_hooks_run(h, &t, NULL, NULL));
	while (!(pid = (pid_t)atoi(slurp("sh.pid"))) && tu_now_ms() - t0 < 5000)
		loop_run_once(L, 50, NULL);
	assert_true(pid > 0);
	perm_hooks_cancel(r);
	assert_true(perm_hooks_busy(h)); /* the turn_end one still runs */
	for (i = 0; i < 40 && !gone(pid); i++) {
		loop_run_once(L, 50, NULL);
	}
	assert_true(gone(pid));
	assert_int_equal(g.calls, 0);
	perm_hooks_free(h); /* kills the turn_end hook */
	got_release(&g);
}

static void
test_settings(void **state)
{
	static const char text[] =
		"{\"pre_tool\": [{\"matcher\": \"bash\"}, {\"command\": \"x\", \"timeout\": 0},"
		" {\"command\": \"ok\", \"timeout\": 5}, 7],"
		" \"on_save\": [], \"turn_end\": \"echo\"}";
	struct perm_hooks *h = perm_hooks_new(L, dir);
	struct buf w = BUF_INIT;
	cJSON *o = json_parse(text, strlen(text), NULL);

	(void)state;
	perm_hooks_load_json(h, o, "s.json", &w);
	assert_int_equal(perm_hooks_count(h, PERM_HOOKS_PRE_TOOL, "bash"), 1);
	assert_int_equal(perm_hooks_count(h, PERM_HOOKS_TURN_END, NULL), 0);
	assert_non_null(strstr(w.data, "s.json: hooks.pre_tool: each hook needs a \"command\" string"));
	assert_non_null(strstr(w.data, "\"timeout\" 1-3600 seconds"));
	assert_non_null(strstr(w.data, "unknown hook event \"on_save\""));
	assert_non_null(strstr(w.data, "hooks.turn_end must be an array"));
	cJSON_Delete(o);
	buf_reset(&w);
	o = json_parse("[1]", 3, NULL);
	perm_hooks_load_json(h, o, "s.json", &w);
	assert_non_null(strstr(w.data, "\"hooks\" must be an object"));
	cJSON_Delete(o);
	buf_release(&w);
	perm_hooks_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_do_not_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_env_cwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hang_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_and_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
	};

	tu_subreaper();
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_mcp: the MCP client against the shipped demo server
 * (extensions/mcp-demo, built as MCP_DEMO): start-up, paged tools/list,
 * calls, list_changed, cancellation; and the failures a session must
 * survive: a server that dies mid-call, answers garbage, hangs, cannot
 * start, or answers initialize with something that is not JSON.  Each
 * test runs the loop with a wall-clock cap.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/json.h"
#include "io/loop.h"
#include "mcp/mcp.h"
#include "mcp/config.h"
#include "testutil.h"
#include "llm/tool.h"
#include "llm/toolset.h"

#ifndef MCP_DEMO
#define MCP_DEMO "build/mcp-demo"
#endif

struct fx {
	struct loop *loop;
	struct mcp *mcp;
	char *dir;
	char log[600];
	struct buf reports;
	int nreports;
	struct tool_env env;
};

struct call {
	struct tool_job job;
	int done;
};

/* Collect report lines. */
static void
on_report(void *arg, const char *line)
{
	struct fx *f = arg;

	buf_addf(&f->reports, "%s\n", line);
	f->nreports++;
}

/* Start one server "demo" running the demo with extra args; timeout in seconds. */
static void
fx_start(struct fx *f, const char *argv0, const char *a1, const char *a2, int timeout_s)
{
	struct mcp_config c = { 0 };
	char **argv = calloc(5, sizeof *argv);
	int n = 0;

	memset(f, 0, sizeof *f);
	signal(SIGPIPE, SIG_IGN);
	json_init();
	f->loop = loop_new(NULL);
	f->dir = tu_tmpdir();
	snprintf(f->log, sizeof f->log, "--log=%s/log", f->dir);
	buf_init(&f->reports, 0);
	f->env.loop = f->loop;
	f->env.root = f->dir;
	argv[n++] = strdup(argv0);
	argv[n++] = strdup(f->log);
	if (a1)
		argv[n++] = strdup(a1);
	if (a2)
		argv[n++] = strdup(a2);
	c.v[0].name = strdup("demo");
	c.v[0].argv = argv;
	c.n = 1;
	f->mcp = mcp_new(f->loop, f->dir, timeout_s);
	mcp_set_report(f->mcp, on_report, f);
	mcp_start(f->mcp, &c);
	mcp_config_release(&c);
}

/* Run until no server is starting (10 s cap). */
static void
fx_wait_ready(struct fx *f)
{
	int i;

	for (i = 0; i < 500 && mcp_starting(f->mcp); i++)
		loop_run_once(f->loop, 20, NULL);
	assert_int_equal(mcp_starting(f->mcp), 0);
}

/* Free everything and check that no tool stays registered. */
static void
fx_stop(struct fx *f)
{
	size_t n;

	mcp_free(f->mcp);
	(void)tool_extra(&n);
	assert_int_equal(n, 0);
	loop_free(f->loop);
	tu_rmrf(f->dir);
	free(f->dir);
	buf_release(&f->reports);
}

/* The job finished. */
static void
on_done(struct tool_job *job, void *arg)
{
	(void)job;
	((struct call *)arg)->done = 1;
}

/* Start a call of tool name with JSON args; the caller waits and releases. */
static void
call_start(struct fx *f, struct call *c, const char *name, const char *args)
{
	const struct tool *t = tool_find(name);
	struct err e = ERR_INIT;
	cJSON *a = json_parse(args, strlen(args), &e);
	struct buf problem = BUF_INIT;

	assert_non_null(t);
	memset(c, 0, sizeof *c);
	if (strcmp(args, "{\"a\":1}") && tool_validate(t, a, &problem) < 0) /* {"a":1}: server-side error */
		fail_msg("%s: %s (schema %s)", name, problem.data, t->schema_json);
	buf_release(&problem);
	tool_job_init(&c->job, t, &f->env, on_done, c);
	t->start(&c->job, a);
	cJSON_Delete(a);
}

/* Call and wait (cap ms); returns the output (valid until release). */
static const char *
call(struct fx *f, struct call *c, const char *name, const char *args, int cap_ms)
{
	call_start(f, c, name, args);
	assert_true(tu_run_until(f->loop, &c->done, cap_ms));
	return c->job.out.data;
}

/* The demo starts, its tools (five, over three pages) join the registry and answer. */
static void
test_demo_tools(void **state)
{
	struct fx f;
	struct call c;
	size_t n;

	(void)state;
	fx_start(&f, MCP_DEMO, "--page-size=2", NULL, 10);
	assert_int_equal(mcp_starting(f.mcp), 1);
	fx_wait_ready(&f);
	(void)tool_extra(&n);
	assert_int_equal(n, 5);
	assert_non_null(tool_find("mcp__demo__file_stat"));
	assert_string_equal(call(&f, &c, "mcp__demo__echo", "{\"text\":\"héllo\\nthere\"}", 5000),
			    "héllo\nthere");
	assert_int_equal(c.job.is_error, 0);
	tool_job_release(&c.job);
	assert_string_equal(call(&f, &c, "mcp__demo__add", "{\"a\":2,\"b\":40.5}", 5000), "42.5");
	tool_job_release(&c.job);
	assert_non_null(strstr(call(&f, &c, "mcp__demo__file_stat", "{\"path\":\"/nonexistent\"}", 5000),
			       "No such file"));
	assert_int_equal(c.job.is_error, 1);
	tool_job_release(&c.job);
	assert_non_null(strstr(call(&f, &c, "mcp__demo__add", "{\"a\":1}", 5000), "error -32602"));
	tool_job_release(&c.job);
	assert_int_equal(f.nreports, 0);
	fx_stop(&f);
}

/* toggle makes the server send list_changed; the new tool appears. */
static void
test_list_changed(void **state)
{
	struct fx f;
	struct call c;
	int i;

	(void)state;
	fx_start(&f, MCP_DEMO, NULL, NULL, 10);
	fx_wait_ready(&f);
	assert_null(tool_find("mcp__demo__extra"));
	assert_string_equal(call(&f, &c, "mcp__demo__toggle", "{}", 5000), "extra added");
	tool_job_release(&c.job);
	for (i = 0; i < 250 && !tool_find("mcp__demo__extra"); i++)
		loop_run_once(f.loop, 20, NULL);
	assert_string_equal(call(&f, &c, "mcp__demo__extra", "{}", 5000), "extra here");
	tool_job_release(&c.job);
	fx_stop(&f);
}

/* Aborting a call sends notifications/cancelled; the server lives on. */
static void
test_cancel(void **state)
{
	struct fx f;
	struct call c;
	char *log;
	int i;

	(void)state;
	fx_start(&f, MCP_DEMO, NULL, NULL, 10);
	fx_wait_ready(&f);
	call_start(&f, &c, "mcp__demo__sleep", "{\"seconds\":30}");
	for (i = 0; i < 5; i++)
		loop_run_once(f.loop, 20, NULL);
	assert_int_equal(c.done, 0);
	c.job.tool->cancel(&c.job);
	assert_int_equal(c.done, 1);
	assert_int_equal(c.job.is_error, 1);
	assert_non_null(strstr(c.job.out.data, "cancelled"));
	tool_job_release(&c.job);
	assert_string_equal(call(&f, &c, "mcp__demo__echo", "{\"text\":\"still here\"}", 5000),
			    "still here");
	tool_job_release(&c.job);
	log = tu_read(f.dir, "log");
	assert_non_null(strstr(log, "\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3"));
	free(log);
	assert_int_equal(f.nreports, 0);
	fx_stop(&f);
}

/* Shared check: the call failed with why, one report said it, the tools are gone. */
static void
check_failed(struct fx *f, struct call *c, const char *why)
{
	size_t n;

	assert_int_equal(c->job.is_error, 1);
	assert_non_null(strstr(c->job.out.data, why));
	assert_int_equal(f->nreports, 1);
	assert_non_null(strstr(f->reports.data, "mcp server demo: "));
	assert_non_null(strstr(f->reports.data, why));
	assert_non_null(strstr(f->reports.data, "its tools are removed"));
	(void)tool_extra(&n);
	assert_int_equal(n, 0);
	assert_null(tool_find("mcp__demo__echo"));
}

/* A server that dies in the middle of a call. */
static void
test_dies_mid_call(void **state)
{
	struct fx f;
	struct call c;
	const struct tool *t;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=crash", NULL, 10);
	fx_wait_ready(&f);
	t = tool_find("mcp__demo__echo");
	call(&f, &c, "mcp__demo__echo", "{\"text\":\"x\"}", 5000);
	check_failed(&f, &c, "exited with status 3");
	assert_non_null(strstr(f.reports.data, "stderr: mcp-demo: crashing on purpose"));
	tool_job_release(&c.job);
	/* an agent still holding the tool in this turn gets an error, not a crash */
	memset(&c, 0, sizeof c);
	tool_job_init(&c.job, t, &f.env, on_done, &c);
	t->start(&c.job, NULL);
	assert_int_equal(c.done, 1);
	assert_non_null(strstr(c.job.out.data, "not running"));
	tool_job_release(&c.job);
	fx_stop(&f);
}

/* A server that answers a call with a line that is not JSON. */
static void
test_garbage(void **state)
{
	struct fx f;
	struct call c;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=garbage", NULL, 10);
	fx_wait_ready(&f);
	call(&f, &c, "mcp__demo__echo", "{\"text\":\"x\"}", 5000);
	check_failed(&f, &c, "invalid JSON at line 1");
	tool_job_release(&c.job);
	fx_stop(&f);
}

/* A server that never answers a call: that call times out and is cancelled; the server stays. */
static void
test_hang(void **state)
{
	struct fx f;
	struct call c;
	char *log;
	size_t n;
	int i, seen = 0;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=hang", NULL, 1);
	fx_wait_ready(&f);
	call(&f, &c, "mcp__demo__echo", "{\"text\":\"x\"}", 5000);
	assert_int_equal(c.job.is_error, 1);
	if (!strstr(c.job.out.data, "did not answer tools/call echo within 1 s (setting mcp_timeout): "
				    "the call was cancelled, the server keeps running"))
		fail_msg("%s", c.job.out.data);
	tool_job_release(&c.job);
	assert_int_equal(f.nreports, 0); /* the server is not given up on */
	(void)tool_extra(&n);
	assert_int_equal(n, 5);
	for (i = 0; i < 100; i++) {
		log = tu_read(f.dir, "log");
		seen = log && strstr(log, "\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3");
		free(log);
		if (seen)
			break;
		loop_run_once(f.loop, 20, NULL);
	}
	assert_true(seen);
	fx_stop(&f);
}

/*
 * A call longer than mcp_timeout: without progress it alone is cancelled
 * and the next call works; with progress notifications (the call carries
 * a progressToken) the wait is extended and it answers.
 */
static void
test_timeout_progress(void **state)
{
	struct fx f;
	struct call c;
	char *log;
	uint64_t t0;

	(void)state;
	fx_start(&f, MCP_DEMO, NULL, NULL, 1);
	fx_wait_ready(&f);
	t0 = loop_now_ms(f.loop);
	call(&f, &c, "mcp__demo__sleep", "{\"seconds\":2.5,\"progress_ms\":300}", 8000);
	if (c.job.is_error || strcmp(c.job.out.data, "slept"))
		fail_msg("with progress: %s", c.job.out.data);
	assert_true(loop_now_ms(f.loop) - t0 >= 2400);
	tool_job_release(&c.job);
	log = tu_read(f.dir, "log");
	assert_non_null(strstr(log, "\"_meta\":{\"progressToken\":3}"));
	free(log);
	t0 = loop_now_ms(f.loop);
	call(&f, &c, "mcp__demo__sleep", "{\"seconds\":30}", 8000);
	assert_int_equal(c.job.is_error, 1);
	if (!strstr(c.job.out.data, "did not answer tools/call sleep within 1 s"))
		fail_msg("%s", c.job.out.data);
	assert_true(loop_now_ms(f.loop) - t0 < 3000);
	tool_job_release(&c.job);
	assert_string_equal(call(&f, &c, "mcp__demo__echo", "{\"text\":\"alive\"}", 5000), "alive");
	tool_job_release(&c.job);
	assert_int_equal(f.nreports, 0);
	fx_stop(&f);
}

/* A crashed server shows as failed with why in /mcp; reconnect brings it and its tools back. */
static void
test_reconnect(void **state)
{
	struct fx f;
	struct call c;
	struct buf st = BUF_INIT;
	size_t n;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=crash", NULL, 10);
	fx_wait_ready(&f);
	mcp_status(f.mcp, &st);
	assert_non_null(strstr(st.data, "demo: ready, 5 tools; stdio: "));
	assert_non_null(strstr(st.data, "\n  mcp__demo__echo: Return the text unchanged.\n"));
	buf_reset(&st);
	call(&f, &c, "mcp__demo__echo", "{\"text\":\"x\"}", 5000); /* it dies */
	tool_job_release(&c.job);
	mcp_status(f.mcp, &st);
	assert_non_null(strstr(st.data, "demo: failed, 0 tools"));
	assert_non_null(strstr(st.data, "failed: exited with status 3 (stderr: mcp-demo: crashing on purpose)"));
	assert_non_null(strstr(st.data, "/mcp reconnect demo"));
	buf_reset(&st);
	assert_int_equal(mcp_reconnect(f.mcp, "nope", &st), -1);
	assert_non_null(strstr(st.data, "no mcp server named \"nope\""));
	buf_reset(&st);
	assert_int_equal(mcp_reconnect(f.mcp, "demo", &st), 0);
	assert_string_equal(st.data, "mcp server demo: starting again\n");
	fx_wait_ready(&f);
	(void)tool_extra(&n);
	assert_int_equal(n, 5);
	buf_reset(&st);
	mcp_status(f.mcp, &st);
	assert_non_null(strstr(st.data, "demo: ready, 5 tools; stdio: "));
	assert_non_null(strstr(st.data, "reconnected 1 time"));
	/* a running server can be reconnected too */
	buf_reset(&st);
	assert_int_equal(mcp_reconnect(f.mcp, "demo", &st), 0);
	fx_wait_ready(&f);
	(void)tool_extra(&n);
	assert_int_equal(n, 5);
	buf_release(&st);
	fx_stop(&f);
}

/*
 * 105 tools, deferral off: what fits is offered, the rest wait behind
 * tool_search (offered too), counted in overflow, and tool_search finds
 * the last one.  Nothing is lost.
 */
static void
test_many_tools(void **state)
{
	struct fx f;
	struct toolset ts;
	struct buf out = BUF_INIT;
	size_t nb, nx, off, def, i;
	const struct tool *const *b = tool_all(&nb), *const *x;
	int search = 0;

	(void)state;
	fx_start(&f, MCP_DEMO, "--many=100", "--page-size=30", 10);
	fx_wait_ready(&f);
	x = tool_extra(&nx);
	assert_int_equal(nx, 105);
	toolset_init(&ts, b, nb, 0, &tool_search);
	toolset_sync(&ts, x, nx);
	for (i = 0; i < ts.noffered; i++)
		search |= ts.offered[i] == &tool_search;
	assert_true(search);
	assert_int_equal(ts.noffered, TOOLSET_MAX - TOOLSET_LOAD_ROOM);
	toolset_extension_counts(&ts, &off, &def);
	assert_int_equal(off + def, 105);
	assert_int_equal(ts.overflow, def);
	assert_int_equal(ts.dropped, 0);
	assert_int_equal(toolset_search(&ts, "mcp__demo__gen_99", &out), 1);
	assert_non_null(strstr(out.data, "loaded mcp__demo__gen_99: Generated read-only tool number 99."));
	assert_int_equal(ts.offered[ts.noffered - 1]->flags & (TOOL_EXTERNAL | TOOL_READ_ONLY),
			 TOOL_EXTERNAL | TOOL_READ_ONLY);
	/* the room fills up: what does not fit is still named, with its schema, to call by name */
	buf_reset(&out);
	assert_int_equal(toolset_search(&ts, "*", &out), TOOLSET_LOAD_ROOM - 1);
	assert_int_equal(ts.noffered, TOOLSET_MAX);
	assert_non_null(strstr(out.data, "the tool list is full (48 tools)"));
	assert_non_null(strstr(out.data, "  schema: {\"type\":\"object\""));
	toolset_sync(&ts, x, nx); /* idempotent */
	toolset_extension_counts(&ts, &off, &def);
	assert_int_equal(off + def, 105);
	buf_release(&out);
	fx_stop(&f);
}

/* Start-up failures: garbage for initialize, an exit, a missing program. */
static void
test_startup_failures(void **state)
{
	struct fx f;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=init", NULL, 10);
	fx_wait_ready(&f);
	assert_int_equal(f.nreports, 1);
	assert_non_null(strstr(f.reports.data, "invalid JSON"));
	fx_stop(&f);
	fx_start(&f, MCP_DEMO, "--fail=exit", NULL, 10);
	fx_wait_ready(&f);
	assert_int_equal(f.nreports, 1);
	if (!strstr(f.reports.data, "exited with status 1 (stderr"))
		fail_msg("%s", f.reports.data);
	assert_non_null(strstr(f.reports.data, "exited with status 1 (stderr: mcp-demo: exiting at start on purpose)"));
	fx_stop(&f);
	fx_start(&f, "/nonexistent/mcp-server", NULL, NULL, 10);
	assert_int_equal(mcp_starting(f.mcp), 0);
	assert_int_equal(f.nreports, 1);
	assert_non_null(strstr(f.reports.data, "No such file or directory"));
	fx_stop(&f);
}

/* The toolset follows the registry: MCP tools deferred behind tool_search, gone when the server is. */
static void
test_toolset_sync(void **state)
{
	struct fx f;
	struct call c;
	struct toolset ts, plain;
	size_t nb, nx, nd;
	const struct tool *const *b = tool_all(&nb), *const *x;

	(void)state;
	fx_start(&f, MCP_DEMO, "--fail=crash", NULL, 10);
	fx_wait_ready(&f);
	toolset_init(&ts, b, nb, 1, &tool_search);
	toolset_init(&plain, b, nb, 0, &tool_search);
	x = tool_extra(&nx);
	toolset_sync(&ts, x, nx);
	toolset_sync(&plain, x, nx);
	assert_int_equal(nx, 5);
	assert_string_equal(ts.deferred[ts.ndeferred - 1]->name, "mcp__demo__toggle");
	assert_string_equal(plain.offered[plain.noffered - 1]->name, "mcp__demo__toggle");
	nd = ts.ndeferred;
	toolset_sync(&ts, x, nx); /* idempotent */
	assert_int_equal(ts.ndeferred, nd);
	call(&f, &c, "mcp__demo__echo", "{\"text\":\"x\"}", 5000); /* the server dies */
	tool_job_release(&c.job);
	x = tool_extra(&nx);
	assert_int_equal(nx, 0);
	toolset_sync(&ts, x, nx);
	toolset_sync(&plain, x, nx);
	assert_int_equal(strncmp(ts.deferred[ts.ndeferred - 1]->name, "mcp__", 5) != 0, 1);
	assert_int_equal(plain.noffered, nb);
	fx_stop(&f);
}

/* Reports made before a sink exists are kept and delivered when it is set. */
static void
test_reports_queued(void **state)
{
	struct fx f;
	struct buf st = BUF_INIT;

	(void)state;
	fx_start(&f, "/nonexistent/mcp-server", NULL, NULL, 10);
	mcp_status(f.mcp, &st);
	assert_non_null(strstr(st.data, "demo: failed, 0 tools; stdio: /nonexistent/mcp-server --log="));
	assert_non_null(strstr(st.data, "\n  failed: "));
	buf_release(&st);
	buf_reset(&f.reports);
	f.nreports = 0;
	mcp_set_report(f.mcp, NULL, NULL);
	mcp_set_report(f.mcp, on_report, &f); /* nothing new kept */
	assert_int_equal(f.nreports, 0);
	fx_stop(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_tools),
		cmocka_unit_test(test_list_changed),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_dies_mid_call),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_hang),
		cmocka_unit_test(test_timeout_progress),
		cmocka_unit_test(test_reconnect),
		cmocka_unit_test(test_many_tools),
		cmocka_unit_test(test_startup_failures),
		cmocka_unit_test(test_reports_queued),
		cmocka_unit_test(test_toolset_sync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

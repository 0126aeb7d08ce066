/*
 * test_toolset: deferred tools (the split, tool_search appending in
 * order, replay on resume) and the explore→produce cutoff's counting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "llm/conv.h"
#include "agent/cutoff.h"
#include "llm/tool.h"
#include "llm/toolset.h"

/* Names of the offered tools, comma-separated. */
static void
names(const struct toolset *ts, struct buf *out)
{
	size_t i;

	buf_reset(out);
	for (i = 0; i < ts->noffered; i++)
		buf_addf(out, "%s%s", i ? "," : "", ts->offered[i]->name);
}

static void
test_split_core_and_deferred(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	struct toolset ts;
	struct buf b = BUF_INIT;

	(void)state;
	toolset_init(&ts, all, n, 1, &tool_search);
	names(&ts, &b);
	assert_string_equal(b.data, "read,write,edit,bash,grep,tool_search");
	assert_int_equal(ts.ndeferred, n - 5);
	assert_true(ts.saved_tokens > 0);
	toolset_init(&ts, all, n, 0, &tool_search);
	assert_int_equal(ts.noffered, n);
	assert_int_equal(ts.ndeferred, 0);
	assert_int_equal(ts.saved_tokens, 0);
	buf_release(&b);
}

static void
test_nothing_to_defer_means_no_search(void **state)
{
	const struct tool *core[] = { tool_find("read"), tool_find("edit") };
	struct toolset ts;

	(void)state;
	toolset_init(&ts, core, 2, 1, &tool_search);
	assert_int_equal(ts.noffered, 2);
	assert_int_equal(ts.saved_tokens, 0);
}

static void
test_search_appends_in_order(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	struct toolset ts;
	struct buf b = BUF_INIT, out = BUF_INIT;
	long before;

	(void)state;
	toolset_init(&ts, all, n, 1, &tool_search);
	before = ts.saved_tokens;
	assert_int_equal(toolset_search(&ts, "zzqqxxyy", &out), 0);
	assert_non_null(strstr(out.data, "outline"));   /* says what can be loaded */
	buf_reset(&out);
	assert_int_equal(toolset_search(&ts, "repo_map", &out), 1); /* by name: only it */
	names(&ts, &b);
	assert_string_equal(b.data, "read,write,edit,bash,grep,tool_search,repo_map");
	assert_true(ts.saved_tokens < before);
	buf_reset(&out);
	assert_int_equal(toolset_search(&ts, "repo_map", &out), 0);
	assert_non_null(strstr(out.data, "already available"));
	buf_reset(&out);
	assert_int_equal(toolset_search(&ts, "symbols", &out), 1); /* by description */
	names(&ts, &b);
	assert_string_equal(b.data, "read,write,edit,bash,grep,tool_search,repo_map,outline");
	assert_int_equal(ts.added, 2);
	buf_release(&b);
	buf_release(&out);
}

static void
test_replay_on_resume(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	struct toolset ts;
	struct conv c;
	struct conv_msg *m;
	struct buf b = BUF_INIT;

	(void)state;
	conv_init(&c);
	conv_add_user_text(&c, "go");
	m = conv_add_msg(&c, CONV_ASSISTANT);
	conv_add_block(m, CONV_TOOL_CALL, "{\"query\":\"outline\"}", "c1", "tool_search");
	conv_add_block(m, CONV_TOOL_CALL, "not json", "c2", "tool_search");
	toolset_init(&ts, all, n, 1, &tool_search);
	toolset_replay(&ts, &c);
	names(&ts, &b);
	assert_string_equal(b.data, "read,write,edit,bash,grep,tool_search,outline");
	conv_release(&c);
	buf_release(&b);
}

static void
test_auto_defers_only_large_tool_sets(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	const struct tool *core[] = { tool_find("read"), tool_find("edit") };
	long tok = toolset_deferrable_tokens(all, n, &tool_search);

	(void)state;
	/* the built-in deferrable tools (outline, repo_map) are small: well under the default */
	assert_true(tok > 0 && tok < 2000);
	assert_int_equal(toolset_want_defer(all, n, -1, 2000, &tool_search), 0);
	assert_int_equal(toolset_want_defer(all, n, -1, tok, &tool_search), 1);
	assert_int_equal(toolset_want_defer(all, n, -1, tok + 1, &tool_search), 0);
	/* explicit settings win */
	assert_int_equal(toolset_want_defer(all, n, 1, 1000000, &tool_search), 1);
	assert_int_equal(toolset_want_defer(all, n, 0, 0, &tool_search), 0);
	/* only core tools: nothing to save */
	assert_int_equal(toolset_deferrable_tokens(core, 2, &tool_search), 0);
	assert_int_equal(toolset_want_defer(core, 2, -1, 1, &tool_search), 0);
}

static void
test_take_loaded_plans_one_break(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	struct toolset ts;
	struct buf why = BUF_INIT, out = BUF_INIT;

	(void)state;
	toolset_init(&ts, all, n, 1, &tool_search);
	assert_int_equal(toolset_take_loaded(&ts, &why), 0); /* first request: the baseline */
	assert_int_equal(why.len, 0);
	assert_int_equal(toolset_take_loaded(&ts, &why), 0); /* nothing loaded */
	assert_int_equal(toolset_search(&ts, "outline", &out), 1);
	assert_int_equal(toolset_take_loaded(&ts, &why), 1);
	assert_non_null(strstr(why.data, "tools loaded (outline)"));
	buf_reset(&why);
	assert_int_equal(toolset_take_loaded(&ts, &why), 0); /* reported once */
	assert_int_equal(why.len, 0);
	buf_adds(&why, "MicroCompact: 3 results digested");
	assert_int_equal(toolset_search(&ts, "*", &out), 4); /* find, ls, repo_map, remember */
	assert_int_equal(toolset_take_loaded(&ts, &why), 1);
	assert_non_null(strstr(why.data, "digested; tools loaded (find, ls, repo_map, remember)"));
	buf_release(&why);
	buf_release(&out);
}

static void
test_auto_switches_when_extensions_arrive(void **state)
{
	size_t n;
	const struct tool *const *all = tool_all(&n);
	const struct tool big = { .name = "mcp__x__big", .description = "a large extension tool",
				  .schema_json = "{\"type\":\"object\",\"description\":\""
						 "0123456789012345678901234567890123456789012345678901234567890123456789"
						 "0123456789012345678901234567890123456789012345678901234567890123456789"
						 "\"}" };
	const struct tool *extra[] = { &big };
	long builtin = toolset_deferrable_tokens(all, n, &tool_search);
	struct toolset ts;
	struct buf b = BUF_INIT, why = BUF_INIT;

	(void)state;
	/* auto, threshold above the built-ins: not deferred at first */
	toolset_init(&ts, all, n, 0, &tool_search);
	toolset_auto(&ts, builtin + 20, &tool_search);
	toolset_sync(&ts, NULL, 0);
	assert_int_equal(ts.ndeferred, 0);
	/* an extension tool pushes it over before the first request: defer after all */
	toolset_sync(&ts, extra, 1);
	names(&ts, &b);
	assert_string_equal(b.data, "read,write,edit,bash,grep,tool_search");
	assert_int_equal(ts.ndeferred, n - 5 + 1);
	assert_true(ts.saved_tokens >= builtin + 20);
	/* once a request went out the decision is frozen */
	toolset_init(&ts, all, n, 0, &tool_search);
	toolset_auto(&ts, builtin + 20, &tool_search);
	assert_int_equal(toolset_take_loaded(&ts, &why), 0);
	toolset_sync(&ts, extra, 1);
	assert_int_equal(ts.ndeferred, 0);
	assert_string_equal(ts.offered[ts.noffered - 1]->name, "mcp__x__big");
	buf_release(&b);
	buf_release(&why);
}

/* A finished call of tool name with args. */
static void
call(struct agent_call *c, const char *name, const char *args)
{
	memset(c, 0, sizeof *c);
	c->tool = tool_find(name);
	buf_init(&c->args, 0);
	buf_adds(&c->args, args);
}

static void
test_cutoff_counts_look_only_steps(void **state)
{
	struct agent_cutoff cut = { 3, 0, 0, 0 };
	struct agent_call c[2];
	struct buf note = BUF_INIT, why = BUF_INIT;

	(void)state;
	call(&c[0], "read", "{\"path\":\"a\"}");
	call(&c[1], "bash", "{\"command\":\"cat a | grep x\"}");
	assert_int_equal(agent_cutoff_after_step(&cut, c, 2, &note), 0);
	assert_int_equal(agent_cutoff_after_step(&cut, c, 1, &note), 0);
	assert_false(agent_cutoff_refuses(&cut, tool_find("read"), &why));
	assert_int_equal(agent_cutoff_after_step(&cut, c, 2, &note), 1);
	assert_non_null(strstr(note.data, "edit, write and bash"));
	assert_true(agent_cutoff_refuses(&cut, tool_find("grep"), &why));
	assert_non_null(strstr(why.data, "grep is not available"));
	assert_false(agent_cutoff_refuses(&cut, tool_find("edit"), &why));
	assert_false(agent_cutoff_refuses(&cut, tool_find("bash"), &why));
	buf_reset(&note);
	assert_int_equal(agent_cutoff_after_step(&cut, c, 1, &note), 0); /* engages once */
	assert_int_equal(note.len, 0);
	assert_int_equal(cut.engaged, 1);
	buf_release(&c[1].args);
	call(&c[1], "bash", "{\"command\":\"make\"}"); /* may change files: produces */
	assert_int_equal(agent_cutoff_after_step(&cut, &c[1], 1, &note), 0);
	assert_int_equal(cut.streak, 0);
	assert_false(cut.active);
	buf_release(&c[0].args);
	buf_release(&c[1].args);
	buf_release(&note);
	buf_release(&why);
}

static void
test_cutoff_off_and_reset(void **state)
{
	struct agent_cutoff cut = { 0, 0, 0, 0 };
	struct agent_call c;
	struct buf note = BUF_INIT;
	int i;

	(void)state;
	call(&c, "read", "{}");
	for (i = 0; i < 20; i++)
		assert_int_equal(agent_cutoff_after_step(&cut, &c, 1, &note), 0);
	cut.limit = 2;
	agent_cutoff_after_step(&cut, &c, 1, &note);
	assert_int_equal(agent_cutoff_after_step(&cut, &c, 1, &note), 1);
	agent_cutoff_reset(&cut);
	assert_false(cut.active);
	assert_int_equal(cut.streak, 0);
	buf_release(&c.args);
	buf_release(&note);
}

/* Read-only MCP calls (TOOL_EXTERNAL + TOOL_READ_ONLY) neither count nor are refused. */
static void
test_cutoff_skips_readonly_mcp(void **state)
{
	const struct tool ro = { .name = "mcp__db__query", .description = "query", .schema_json = "{}",
				 .flags = TOOL_EXTERNAL | TOOL_READ_ONLY };
	const struct tool rw = { .name = "mcp__db__insert", .description = "insert", .schema_json = "{}",
				 .flags = TOOL_EXTERNAL | TOOL_MUTATES | TOOL_NEEDS_APPROVAL };
	struct agent_cutoff cut = { 2, 0, 0, 0 };
	struct agent_call c[2];
	struct buf note = BUF_INIT, why = BUF_INIT;
	int i;

	(void)state;
	memset(c, 0, sizeof c);
	c[0].tool = &ro;
	buf_init(&c[0].args, 0);
	buf_adds(&c[0].args, "{}");
	for (i = 0; i < 10; i++) /* ten MCP look-ups in a row: no cutoff */
		assert_int_equal(agent_cutoff_after_step(&cut, c, 1, &note), 0);
	assert_int_equal(cut.streak, 0);
	call(&c[1], "read", "{\"path\":\"a\"}");
	assert_int_equal(agent_cutoff_after_step(&cut, &c[1], 1, &note), 0);
	assert_int_equal(agent_cutoff_after_step(&cut, c, 2, &note), 1); /* a read beside it counts */
	assert_true(agent_cutoff_refuses(&cut, tool_find("read"), &why));
	assert_false(agent_cutoff_refuses(&cut, &ro, &why)); /* still allowed once engaged */
	assert_false(agent_cutoff_refuses(&cut, &rw, &why));
	c[0].tool = &rw; /* a call that may change something produces */
	assert_int_equal(agent_cutoff_after_step(&cut, c, 1, &note), 0);
	assert_false(cut.active);
	buf_release(&c[0].args);
	buf_release(&c[1].args);
	buf_release(&note);
	buf_release(&why);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_core_and_deferred),
		cmocka_unit_test(test_nothing_to_defer_means_no_search),
		cmocka_unit_test(test_search_appends_in_order),
		cmocka_unit_test(test_replay_on_resume),
		cmocka_unit_test(test_auto_defers_only_large_tool_sets),
		cmocka_unit_test(test_take_loaded_plans_one_break),
		cmocka_unit_test(test_auto_switches_when_extensions_arrive),
		cmocka_unit_test(test_cutoff_counts_look_only_steps),
		cmocka_unit_test(test_cutoff_off_and_reset),
		cmocka_unit_test(test_cutoff_skips_readonly_mcp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

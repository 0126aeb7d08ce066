/*
 * test_perm_protect: which paths are protected (perm/protect.h) and what
 * the rules make of a change to one (perm/perm.h): tricky spellings
 * ("./.git/../.git/config", ".GIT/config", trailing slashes, "//"), a
 * submodule's .git, symlinks inside the workspace into .git (existing and
 * dangling targets), .mcp.json at any depth, the user's config and state
 * dirs; then write/edit asking in auto-edit, a broad allow rule not
 * covering them, a rule naming the path covering it, yolo, deny, the
 * "always" rule, and an MCP-like tool whose file argument has another name.
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
#include "base/workspace.h"
#include "perm/perm.h"
#include "perm/protect.h"
#include "llm/tool.h"

static char root[4096], home[4096];

static void
mk(const char *rel, int dir)
{
	char p[8300];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0700), 0);
		return;
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
}

static void
ln(const char *target, const char *rel)
{
	char p[8300];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* A workspace with .git/, a submodule, symlinks; HOME and XDG dirs elsewhere. */
static int
setup(void **state)
{
	char t1[] = "/tmp/hearth-prot.XXXXXX", t2[] = "/tmp/hearth-home.XXXXXX";

	(void)state;
	if (!mkdtemp(t1) || !realpath(t1, root) || !mkdtemp(t2) || !realpath(t2, home))
		return -1;
	mk(".git", 1);
	mk(".git/config", 0);
	mk(".git/hooks", 1);
	mk("src", 1);
	mk("src/a.c", 0);
	mk("vendor", 1);
	mk("vendor/lib", 1);
	mk("vendor/lib/.git", 0); /* a submodule's gitdir pointer file */
	ln(".git", "gitlink");                /* a directory symlink into .git */
	ln(".git/config", "cfglink");          /* a file symlink into .git */
	ln(".git/hooks/pre-commit", "dangle"); /* dangling: a write creates the hook */
	ln("dangle", "dangle2");               /* two hops */
	ln("src/a.c", "harmless");
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_CACHE_HOME");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[9000];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, home);
	return system(cmd);
}

static enum perm_protect_kind
kind(const char *path)
{
	struct buf abs = BUF_INIT;
	enum perm_protect_kind k = perm_protect_path(root, path, &abs);

	buf_release(&abs);
	return k;
}

static void
test_classify(void **state)
{
	char p[8300];

	(void)state;
	assert_int_equal(kind(".git/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind("./.git/../.git/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind("src/../.git/hooks/post-checkout"), PERM_PROTECT_GIT);
	assert_int_equal(kind("nothere/../.git/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind(".GIT/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind(".Git/HOOKS/pre-push"), PERM_PROTECT_GIT);
	assert_int_equal(kind(".git/"), PERM_PROTECT_GIT);
	assert_int_equal(kind(".git"), PERM_PROTECT_GIT);
	assert_int_equal(kind(".git//config/"), PERM_PROTECT_GIT);
	assert_int_equal(kind("vendor/lib/.git"), PERM_PROTECT_GIT);
	assert_int_equal(kind("vendor/lib/.git/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind("gitlink/config"), PERM_PROTECT_GIT);
	assert_int_equal(kind("gitlink/hooks/new"), PERM_PROTECT_GIT);
	assert_int_equal(kind("cfglink"), PERM_PROTECT_GIT);
	assert_int_equal(kind("dangle"), PERM_PROTECT_GIT);
	assert_int_equal(kind("dangle2"), PERM_PROTECT_GIT);
	snprintf(p, sizeof p, "%s/.git/config", root);
	assert_int_equal(kind(p), PERM_PROTECT_GIT);
	assert_int_equal(kind(".hearth/settings.json"), PERM_PROTECT_HEARTH);
	assert_int_equal(kind(".HEARTH/Settings.json"), PERM_PROTECT_HEARTH);
	assert_int_equal(kind("sub/.hearth/hooks.sh"), PERM_PROTECT_HEARTH);
	assert_int_equal(kind(".mcp.json"), PERM_PROTECT_MCP);
	assert_int_equal(kind("./.MCP.json"), PERM_PROTECT_MCP);
	assert_int_equal(kind("pkg/.mcp.json"), PERM_PROTECT_MCP);
	/* not protected: look-alikes */
	assert_int_equal(kind("src/a.c"), PERM_PROTECT_NONE);
	assert_int_equal(kind("harmless"), PERM_PROTECT_NONE);
	assert_int_equal(kind(".gitignore"), PERM_PROTECT_NONE);
	assert_int_equal(kind(".github/workflows/ci.yml"), PERM_PROTECT_NONE);
	assert_int_equal(kind("docs/git/x"), PERM_PROTECT_NONE);
	assert_int_equal(kind("a.git/x"), PERM_PROTECT_NONE);
	assert_int_equal(kind(".mcp.json.bak"), PERM_PROTECT_NONE);
	assert_int_equal(kind(".mcp.json/x"), PERM_PROTECT_NONE);
	assert_int_equal(kind("hearth/settings.json"), PERM_PROTECT_NONE);
	assert_int_equal(kind(""), PERM_PROTECT_NONE);
	assert_int_equal(kind("/tmp/elsewhere/.git/config"), PERM_PROTECT_NONE);
}

static void
test_user_dirs(void **state)
{
	char p[8400], x[8300];

	(void)state;
	snprintf(p, sizeof p, "%s/.config/hearth/settings.json", home);
	assert_int_equal(kind(p), PERM_PROTECT_CONFIG);
	assert_int_equal(kind("~/.config/hearth/settings.json"), PERM_PROTECT_CONFIG);
	assert_int_equal(kind("~/.config/HEARTH/mcp.json"), PERM_PROTECT_CONFIG);
	assert_int_equal(kind("~/.config/hearth"), PERM_PROTECT_CONFIG);
	assert_int_equal(kind("~/.config/hearthx/a"), PERM_PROTECT_NONE);
	assert_int_equal(kind("~/.config/other/a"), PERM_PROTECT_NONE);
	assert_int_equal(kind("~/.local/state/hearth/trust.json"), PERM_PROTECT_STATE);
	assert_int_equal(kind("~/.cache/hearth/repomap/0.bin"), PERM_PROTECT_STATE);
	assert_int_equal(kind("~/.cache/other/a"), PERM_PROTECT_NONE);
	snprintf(x, 4200, "%s/xdg", home);
	setenv("XDG_CONFIG_HOME", x, 1);
	snprintf(p, sizeof p, "%s/hearth/hooks.sh", x);
	assert_int_equal(kind(p), PERM_PROTECT_CONFIG);
	assert_int_equal(kind("~/.config/hearth/settings.json"), PERM_PROTECT_CONFIG); /* both */
	setenv("XDG_STATE_HOME", x, 1);
	snprintf(p, sizeof p, "%s/hearth/trust.json", x);
	assert_int_equal(kind(p), PERM_PROTECT_CONFIG); /* same dir for both here: config wins */
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(kind(p), PERM_PROTECT_STATE);
	unsetenv("XDG_STATE_HOME");
	setenv("XDG_CACHE_HOME", x, 1);
	snprintf(p, sizeof p, "%s/hearth/repomap/1.bin", x);
	assert_int_equal(kind(p), PERM_PROTECT_STATE);
	unsetenv("XDG_CACHE_HOME");
	/* a symlinked config dir is recognised under its real name too */
	snprintf(p, sizeof p, "%s/dotfiles", home);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.config", home);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.config/hearth", home);
	assert_int_equal(symlink("../dotfiles", p), 0);
	snprintf(p, sizeof p, "%s/dotfiles/settings.json", home);
	assert_int_equal(kind(p), PERM_PROTECT_CONFIG);
}

static enum perm_verdict
decide_t(const struct perm *p, const struct tool *t, const char *args_json, struct buf *why)
{
	cJSON *args = json_parse(args_json, strlen(args_json), NULL);
	enum perm_verdict v;

	assert_non_null(args);
	buf_reset(why);
	v = perm_check(p, t, args, root, why);
	cJSON_Delete(args);
	return v;
}

static enum perm_verdict
decide(const struct perm *p, const char *name, const char *args_json, struct buf *why)
{
	assert_non_null(tool_find(name));
	return decide_t(p, tool_find(name), args_json, why);
}

static void
add(struct perm *p, enum perm_list l, const char *rule)
{
	struct err e = ERR_INIT;

	assert_int_equal(perm_add_rule(p, l, rule, &e), 0);
}

static void
test_rules(void **state)
{
	struct perm p;
	struct buf why = BUF_INIT, out = BUF_INIT;
	cJSON *args;

	(void)state;
	perm_init(&p);
	/* auto-edit: an ordinary write runs, a protected one asks and says why */
	assert_int_equal(decide(&p, "write", "{\"path\":\"src/b.c\",\"content\":\"x\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/settings.json\",\"content\":\"{}\"}", &why),
			 PERM_QUESTION);
	assert_non_null(strstr(why.data, ".hearth/settings.json"));
	assert_non_null(strstr(why.data, "protected"));
	assert_int_equal(decide(&p, "edit", "{\"path\":\"./.GIT/config\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_QUESTION);
	assert_int_equal(decide(&p, "edit", "{\"path\":\"cfglink\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_QUESTION);
	assert_int_equal(decide(&p, "write", "{\"path\":\"dangle\",\"content\":\"#!/bin/sh\"}", &why), PERM_QUESTION);
	assert_int_equal(decide(&p, "write", "{\"path\":\"~/.config/hearth/settings.json\",\"content\":\"{}\"}", &why),
			 PERM_QUESTION);
	/* reading is not changing */
	assert_int_equal(decide(&p, "read", "{\"path\":\".git/config\"}", &why), PERM_ALLOW);
	/* the always rule names exactly the path */
	{
		const char *j = "{\"path\":\"./.hearth/x/../settings.json\",\"content\":\"{}\"}";

		args = json_parse(j, strlen(j), NULL);
	}
	assert_non_null(args);
	perm_always_rules(&p, tool_find("write"), args, root, &out);
	assert_string_equal(out.data, "write(.hearth/settings.json)");
	cJSON_Delete(args);
	/* broad allow rules do not cover protected paths */
	add(&p, PERM_LIST_ALLOW, "write");
	add(&p, PERM_LIST_ALLOW, "edit(*)");
	add(&p, PERM_LIST_SESSION, "write(*)");
	add(&p, PERM_LIST_ALLOW, "write(.hearth/hooks/*)");
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/settings.json\",\"content\":\"{}\"}", &why),
			 PERM_QUESTION);
	assert_int_equal(decide(&p, "edit", "{\"path\":\".git/config\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_QUESTION);
	/* a rule naming the path covers it (relative or absolute), only for its tool */
	add(&p, PERM_LIST_ALLOW, "write(.hearth/settings.json)");
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/settings.json\",\"content\":\"{}\"}", &why),
			 PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/hooks/a.sh\",\"content\":\"\"}", &why), PERM_ALLOW);
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/other.json\",\"content\":\"{}\"}", &why),
			 PERM_QUESTION);
	add(&p, PERM_LIST_ALLOW, "edit(*/.git/info/*)");
	assert_int_equal(decide(&p, "edit", "{\"path\":\".git/info/exclude\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_ALLOW);
	/* ask and deny rules still apply */
	add(&p, PERM_LIST_DENY, "write(*/.mcp.json)");
	assert_int_equal(decide(&p, "write", "{\"path\":\".mcp.json\",\"content\":\"{}\"}", &why), PERM_DENY);
	/* yolo: nothing asks */
	p.mode = PERM_YOLO;
	assert_int_equal(decide(&p, "edit", "{\"path\":\".git/config\",\"old_text\":\"a\",\"new_text\":\"b\"}", &why),
			 PERM_ALLOW);
	p.mode = PERM_ASK;
	assert_int_equal(decide(&p, "write", "{\"path\":\".git/hooks/x\",\"content\":\"\"}", &why), PERM_QUESTION);
	assert_non_null(strstr(why.data, "protected"));
	/* Issue 20: a file tool's other arguments are text, not paths */
	p.mode = PERM_AUTO_EDIT;
	assert_int_equal(decide(&p, "edit", "{\"path\":\"src/a.c\",\"old_text\":\"a\",\"new_text\":\".git/config\"}", &why),
			 PERM_ALLOW);
	/* the first rule of a list counts too */
	perm_release(&p);
	perm_init(&p);
	add(&p, PERM_LIST_SESSION, "write(.hearth/settings.json)");
	assert_int_equal(decide(&p, "write", "{\"path\":\".hearth/settings.json\",\"content\":\"{}\"}", &why),
			 PERM_ALLOW);
	perm_release(&p);
	buf_release(&why);
	buf_release(&out);
}

static void
noop_start(struct tool_job *job, const cJSON *args)
{
	(void)args;
	tool_job_done(job);
}

/* An MCP-like tool (changes files hearth does not see): any string argument counts. */
static void
test_mcp_like(void **state)
{
	static const struct tool mv = { "mcp__fs__move_file", "move", "{\"type\":\"object\"}",
					 TOOL_MUTATES | TOOL_NEEDS_APPROVAL, noop_start, NULL, NULL,
					 tool_path_arg, NULL, NULL, NULL, NULL };
	static const struct tool ro = { "mcp__fs__read", "read", "{\"type\":\"object\"}", TOOL_READ_ONLY,
					 noop_start, NULL, NULL, tool_path_arg, NULL, NULL, NULL, NULL };
	struct perm p;
	struct buf why = BUF_INIT;
	char x[4200], l[4300];

	(void)state;
	perm_init(&p);
	assert_int_equal(decide_t(&p, &mv, "{\"source\":\"src/a.c\",\"destination\":\"src/b.c\"}", &why), PERM_ALLOW);
	assert_int_equal(decide_t(&p, &mv, "{\"source\":\"evil\",\"destination\":\".git/hooks/pre-commit\"}", &why),
			 PERM_QUESTION);
	assert_int_equal(decide_t(&p, &mv, "{\"edits\":[\"a\",\".hearth/settings.json\"]}", &why), PERM_QUESTION);
	assert_int_equal(decide_t(&p, &ro, "{\"path\":\".git/config\"}", &why), PERM_ALLOW);
	add(&p, PERM_LIST_ALLOW, "mcp__fs");
	assert_int_equal(decide_t(&p, &mv, "{\"path\":\".mcp.json\"}", &why), PERM_QUESTION);
	/* Issue 20: a protected argument first and a plain one after: still protected */
	assert_int_equal(decide_t(&p, &mv, "{\"source\":\".git/hooks/pre-commit\",\"destination\":\"src/b.c\"}", &why),
			 PERM_QUESTION);
	/* an empty string names no path (not the workspace root), even where the
	 * workspace is hearth's config dir and every path in it is protected */
	snprintf(x, sizeof x, "%s/xdg", home);
	assert_int_equal(mkdir(x, 0700), 0);
	snprintf(l, sizeof l, "%s/xdg/hearth", home);
	assert_int_equal(symlink(root, l), 0);
	setenv("XDG_CONFIG_HOME", x, 1);
	assert_int_equal(kind("src/a.c"), PERM_PROTECT_CONFIG);
	assert_int_equal(decide_t(&p, &mv, "{\"note\":\"\"}", &why), PERM_ALLOW);
	unsetenv("XDG_CONFIG_HOME");
	perm_release(&p);
	buf_release(&why);
}

/*
 * hearth run in a subdirectory of the repository (issue 18, item 2): the
 * project's files it finds above the workspace are protected as inside
 * it, nothing else above it is, and nothing above the repository root.
 */
static void
test_above_workspace(void **state)
{
	char sub[8300], p[8400];
	struct buf f = BUF_INIT, abs = BUF_INIT;

	(void)state;
	mk("pkg", 1);
	mk("pkg/deep", 1);
	mk(".hearth", 1);
	mk(".hearth/settings.json", 0);
	mk(".mcp.json", 0);
	snprintf(sub, sizeof sub, "%s/pkg/deep", root);
	/* discovery: the nearest from the workspace up to the repository root */
	workspace_project_top(sub, &f);
	assert_string_equal(f.data, root);
	buf_reset(&f);
	workspace_project_file(sub, ".hearth/settings.json", &f);
	snprintf(p, sizeof p, "%s/.hearth/settings.json", root);
	assert_string_equal(f.data, p);
	mk("pkg/.mcp.json", 0);
	buf_reset(&f);
	workspace_project_file(sub, ".mcp.json", &f);
	snprintf(p, sizeof p, "%s/pkg/.mcp.json", root);
	assert_string_equal(f.data, p);
	buf_reset(&f);
	workspace_project_file(sub, "nothing.json", &f);
	snprintf(p, sizeof p, "%s/nothing.json", sub);
	assert_string_equal(f.data, p);
	/* protection: absolute and relative spellings of the files above */
	snprintf(p, sizeof p, "%s/.hearth/settings.json", root);
	assert_int_equal(perm_protect_path(sub, p, &abs), PERM_PROTECT_HEARTH);
	assert_int_equal(perm_protect_path(sub, "../../.hearth/settings.json", &abs), PERM_PROTECT_HEARTH);
	assert_int_equal(perm_protect_path(sub, "../../.mcp.json", &abs), PERM_PROTECT_MCP);
	assert_int_equal(perm_protect_path(sub, "../.mcp.json", &abs), PERM_PROTECT_MCP);
	assert_int_equal(perm_protect_path(sub, "../../.git/config", &abs), PERM_PROTECT_GIT);
	assert_int_equal(perm_protect_path(sub, "../../src/a.c", &abs), PERM_PROTECT_NONE);
	assert_int_equal(perm_protect_path(sub, "../../../.mcp.json", &abs), PERM_PROTECT_NONE); /* above the repository */
	/* a workspace outside any repository: nothing above it */
	assert_int_equal(perm_protect_path(home, "../.mcp.json", &abs), PERM_PROTECT_NONE);
	buf_release(&f);
	buf_release(&abs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_classify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mcp_like, setup, teardown),
		cmocka_unit_test_setup_teardown(test_above_workspace, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

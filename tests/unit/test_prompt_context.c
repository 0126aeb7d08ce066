/*
 * test_ctxfiles: context files (config dir, repository root down to cwd,
 * AGENTS.md before CLAUDE.md, one header per file, duplicates once, the
 * 64 KB cap cut on a UTF-8 boundary with a note, unreadable files and
 * invalid UTF-8) and prompt templates (user and project directories,
 * project wins, descriptions from a first line or front matter, bad
 * names, $1 $2 $@ $$ expansion).  HOME and XDG_CONFIG_HOME point at a
 * temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "prompt/context.h"
#include "base/fs.h"
#include "testutil.h"

static char *tmp;

/* tmp/rel as a path (static buffer, one at a time). */
static const char *
at(const char *rel)
{
	static char p[4096];

	snprintf(p, sizeof p, "%s/%s", tmp, rel);
	return p;
}

/* mkdir -p tmp/rel. */
static void
mk(const char *rel)
{
	struct err e = ERR_INIT;

	assert_int_equal(fs_mkdirs(at(rel), &e), 0);
}

/* Write tmp/rel. */
static void
put(const char *rel, const char *text)
{
	tu_write(tmp, rel, text);
}

static int
setup(void **state)
{
	char *t = tu_tmpdir();
	char real[4096];

	(void)state;
	assert_non_null(realpath(t, real));
	free(t);
	tmp = strdup(real);
	setenv("HOME", tmp, 1);
	setenv("XDG_CONFIG_HOME", at("cfg"), 1);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_rmrf(tmp);
	free(tmp);
	return 0;
}

static void
test_config_dir(void **state)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(prompt_context_config_dir(&b, &e), 0);
	assert_string_equal(b.data, at("cfg/hearth"));
	unsetenv("XDG_CONFIG_HOME");
	buf_reset(&b);
	assert_int_equal(prompt_context_config_dir(&b, &e), 0);
	assert_string_equal(b.data, at(".config/hearth"));
	unsetenv("HOME");
	buf_reset(&b);
	assert_int_equal(prompt_context_config_dir(&b, &e), -1);
	assert_non_null(strstr(e.msg, "HOME"));
	buf_release(&b);
}

static void
test_repo_root(void **state)
{
	struct buf b = BUF_INIT, ws = BUF_INIT;

	(void)state;
	mk("ws/a/b");
	buf_adds(&ws, at("ws"));
	/* no .git anywhere: the workspace root, or cwd when outside it */
	prompt_context_repo_root(ws.data, at("ws/a/b"), &b);
	assert_string_equal(b.data, ws.data);
	buf_reset(&b);
	prompt_context_repo_root(ws.data, at("elsewhere"), &b);
	assert_string_equal(b.data, at("elsewhere"));
	/* .git as a directory, then as a file (worktrees, submodules) */
	mk("ws/a/.git");
	buf_reset(&b);
	prompt_context_repo_root(ws.data, at("ws/a/b"), &b);
	assert_string_equal(b.data, at("ws/a"));
	put("ws/a/b/.git", "gitdir: /x\n");
	buf_reset(&b);
	prompt_context_repo_root(ws.data, at("ws/a/b"), &b);
	assert_string_equal(b.data, at("ws/a/b"));
	buf_release(&b);
	buf_release(&ws);
}

static void
test_load_order_and_choice(void **state)
{
	struct buf out = BUF_INIT, w = BUF_INIT, want = BUF_INIT, ws = BUF_INIT;
	size_t n;

	(void)state;
	mk("cfg/hearth");
	mk("ws/.git");
	mk("ws/a/b/c");
	put("cfg/hearth/AGENTS.md", "user rules\n");
	put("ws/CLAUDE.md", "root claude\n\n\n");
	put("ws/a/AGENTS.md", "a agents");
	put("ws/a/CLAUDE.md", "a claude (not used)");
	put("ws/a/b/c/AGENTS.md", "c \xff bad utf8");
	buf_adds(&ws, at("ws"));
	n = prompt_context_load(ws.data, at("ws/a/b/c"), &out, &w);
	assert_int_equal(n, 4);
	assert_int_equal(w.len, 0);
	buf_addf(&want, "# Context from %s\n\nuser rules\n", at("cfg/hearth/AGENTS.md"));
	buf_addf(&want, "\n# Context from %s\n\nroot claude\n", at("ws/CLAUDE.md"));
	buf_addf(&want, "\n# Context from %s\n\na agents\n", at("ws/a/AGENTS.md"));
	buf_addf(&want, "\n# Context from %s\n\nc \xef\xbf\xbd bad utf8\n",
		 at("ws/a/b/c/AGENTS.md"));
	assert_string_equal(out.data, want.data);
	/* cwd is the repository root itself; nothing anywhere */
	buf_reset(&out);
	assert_int_equal(prompt_context_load(ws.data, ws.data, &out, &w), 2);
	assert_null(strstr(out.data, "a agents"));
	buf_release(&out);
	buf_release(&w);
	buf_release(&want);
	buf_release(&ws);
}

static void
test_duplicates_and_unreadable(void **state)
{
	struct buf out = BUF_INIT, w = BUF_INIT, ws = BUF_INIT;

	(void)state;
	mk("ws/.git");
	mk("ws/sub/AGENTS.md"); /* a directory named AGENTS.md */
	mk("ws/sub/f");
	assert_int_equal(mkfifo(at("ws/sub/f/AGENTS.md"), 0600), 0); /* would block */
	mk("cfg");
	put("ws/AGENTS.md", "once\n");
	/* the config dir is the repository root (through a symlink) */
	{
		char target[4096];
		snprintf(target, sizeof target, "%s", at("ws"));
		assert_int_equal(symlink(target, at("cfg/hearth")), 0);
	}
	buf_adds(&ws, at("ws"));
	assert_int_equal(prompt_context_load(ws.data, at("ws/sub"), &out, &w), 1);
	assert_non_null(strstr(out.data, "once"));
	assert_null(strstr(strstr(out.data, "once") + 1, "once"));
	assert_non_null(strstr(w.data, "context file: read"));
	assert_non_null(strstr(w.data, "sub/AGENTS.md: not a regular file"));
	buf_reset(&w);
	buf_reset(&out);
	assert_int_equal(prompt_context_load(ws.data, at("ws/sub/f"), &out, &w), 1);
	assert_non_null(strstr(w.data, "sub/f/AGENTS.md: not a regular file"));
	/* no config dir at all (no HOME): still the project files */
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	buf_reset(&out);
	assert_int_equal(prompt_context_load(ws.data, ws.data, &out, NULL), 1);
	buf_release(&out);
	buf_release(&w);
	buf_release(&ws);
}

static void
test_cap(void **state)
{
	struct buf out = BUF_INIT, big = BUF_INIT, ws = BUF_INIT;
	const char *note;
	size_t i, k;

	(void)state;
	mk("ws/.git");
	mk("ws/a");
	buf_adds(&big, "x");
	while (big.len < 100000)
		buf_adds(&big, "\xc3\xa9"); /* é: a cut must not split it */
	put("ws/AGENTS.md", big.data);
	put("ws/a/AGENTS.md", "LATER-CONTENT");
	buf_adds(&ws, at("ws"));
	assert_int_equal(prompt_context_load(ws.data, at("ws/a"), &out, NULL), 1);
	note = strstr(out.data, "\n[context files cut at 65536 bytes: the rest of ");
	assert_non_null(note);
	assert_non_null(strstr(note, at("ws/AGENTS.md")));
	assert_true((size_t)(note - out.data) <= PROMPT_CONTEXT_MAX);
	assert_true((size_t)(note - out.data) > PROMPT_CONTEXT_MAX - 4);
	assert_null(strstr(out.data, "LATER-CONTENT"));
	for (i = 0; i < out.len; i += k) {
		k = fs_utf8_len(out.data + i, out.len - i);
		assert_true(k > 0);
	}
	/* exactly at the limit is not cut */
	buf_reset(&out);
	buf_setlen(&big, 1000);
	put("ws/AGENTS.md", big.data);
	assert_int_equal(prompt_context_load(ws.data, ws.data, &out, NULL), 1);
	assert_null(strstr(out.data, "[context files cut"));
	buf_release(&out);
	buf_release(&big);
	buf_release(&ws);
}

static void
test_templates(void **state)
{
	struct prompt_context_templates t;
	const struct prompt_context_template *x;
	struct buf w = BUF_INIT, ws = BUF_INIT;

	(void)state;
	mk("cfg/hearth/prompts");
	mk("ws/.hearth/prompts");
	put("cfg/hearth/prompts/review.md", "description: user review\nuser body\n");
	put("cfg/hearth/prompts/explain.md", "description:   Explain a file  \r\nExplain $1\n");
	put("cfg/hearth/prompts/notes.txt", "ignored");
	put("ws/.hearth/prompts/review.md", "---\ntitle: x\ndescription: project review\n---\n"
	    "Review $@\n");
	put("ws/.hearth/prompts/plain.md", "no description here\n");
	put("ws/.hearth/prompts/bad name.md", "x");
	put("ws/.hearth/prompts/open.md", "---\nnot closed\n");
	put("ws/.hearth/prompts/.hidden.md", "x");
	assert_int_equal(mkfifo(at("ws/.hearth/prompts/fifo.md"), 0600), 0); /* would block */
	mk("ws/.hearth/prompts/dir.md");
	buf_adds(&ws, at("ws"));
	prompt_context_templates_load(ws.data, &t, &w);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.v[0].name, "explain");
	assert_string_equal(t.v[1].name, "open");
	assert_string_equal(t.v[2].name, "plain");
	assert_string_equal(t.v[3].name, "review");
	assert_string_equal(t.v[0].description, "Explain a file");
	assert_string_equal(t.v[0].body, "Explain $1\n");
	assert_string_equal(t.v[1].description, "");
	assert_string_equal(t.v[1].body, "---\nnot closed\n");
	assert_string_equal(t.v[2].description, "");
	assert_string_equal(t.v[2].body, "no description here\n");
	x = prompt_context_template_find(&t, "review");
	assert_non_null(x);
	assert_string_equal(x->description, "project review");
	assert_string_equal(x->body, "Review $@\n");
	assert_string_equal(x->path, at("ws/.hearth/prompts/review.md"));
	assert_null(prompt_context_template_find(&t, "notes"));
	assert_null(prompt_context_template_find(&t, "bad name"));
	assert_non_null(strstr(w.data, "bad name.md: the name is not a usable command"));
	assert_non_null(strstr(w.data, "fifo.md: not a regular file"));
	assert_non_null(strstr(w.data, "dir.md: not a regular file"));
	prompt_context_templates_release(&t);
	/* no directories at all */
	unsetenv("XDG_CONFIG_HOME");
	buf_reset(&w);
	prompt_context_templates_load(at("nowhere"), &t, &w);
	assert_int_equal(t.n, 0);
	assert_int_equal(w.len, 0);
	prompt_context_templates_release(&t);
	buf_release(&w);
	buf_release(&ws);
}

/* Expansion of body with args. */
static void
check_expand(const char *body, const char *args, const char *want)
{
	struct buf b = BUF_INIT;

	prompt_context_expand(body, args, &b);
	assert_string_equal(b.data, want);
	buf_release(&b);
}

static void
test_expand(void **state)
{
	(void)state;
	check_expand("[$1] [$2] [$@] [$3]", "a \"b c\" 'd'", "[a] [b c] [a b c d] [d]");
	check_expand("[$1][$4][$10]", "x y", "[x][][]");
	check_expand("cost $$5, $0, $x, end $", "a", "cost $5, $0, $x, end $");
	check_expand("$1$1 $@", NULL, " ");
	check_expand("$@", "  spaced\t\targs  ", "spaced args");
	check_expand("$2", "'unterminated quote", "");
	check_expand("$1", "'unterminated quote", "unterminated quote");
	check_expand("$99999999999999999999", "a", "");
	check_expand("no vars", "a b", "no vars");
	/* Claude Code's and opencode's $ARGUMENTS: the string as typed, trimmed */
	check_expand("Fix: $ARGUMENTS!", "  issue 12 'x y' ", "Fix: issue 12 'x y'!");
	check_expand("[$ARGUMENTS] [$ARGUMENT]", NULL, "[] [$ARGUMENT]");
	check_expand("$ARGUMENTS$1", "a b", "a ba");
}

/* Other tools' command directories and context files (issue 18, item 5). */
static void
test_other_tools(void **state)
{
	struct prompt_context_templates t;
	const struct prompt_context_template *x;
	struct buf w = BUF_INIT, ctx = BUF_INIT;
	char sub[4096];

	(void)state;
	mk(".claude/commands");
	mk("cfg/opencode/command");
	mk(".pi/agent/prompts");
	mk("cfg/hearth/prompts");
	put(".claude/commands/cc-user.md", "---\ndescription: from claude\nargument-hint: [file]\n---\nLook at $ARGUMENTS\n");
	put("cfg/opencode/command/oc-user.md", "opencode user\n");
	put(".pi/agent/prompts/pi-user.md", "pi user\n");
	put(".claude/commands/shared.md", "claude's shared\n");
	put("cfg/hearth/prompts/shared.md", "hearth's shared\n");
	mk("repo/.git");
	mk("repo/.claude/commands");
	mk("repo/.hearth/prompts");
	mk("repo/sub/.opencode/command");
	mk("repo/sub/.hearth/prompts");
	put("repo/.claude/commands/proj.md", "repo claude command\n");
	put("repo/.claude/commands/cc-proj.md", "repo claude only\n");
	put("repo/.hearth/prompts/shared.md", "repo hearth shared\n");
	put("repo/sub/.opencode/command/oc-proj.md", "sub opencode\n");
	put("repo/sub/.hearth/prompts/proj.md", "sub hearth proj\n");
	snprintf(sub, sizeof sub, "%s", at("repo/sub"));
	prompt_context_templates_load(sub, &t, &w);
	assert_int_equal(w.len, 0);
	assert_int_equal(t.n, 7);
	assert_non_null(prompt_context_template_find(&t, "cc-proj"));
	x = prompt_context_template_find(&t, "cc-user");
	assert_non_null(x);
	assert_string_equal(x->description, "from claude");
	assert_string_equal(x->body, "Look at $ARGUMENTS\n");
	assert_non_null(prompt_context_template_find(&t, "oc-user"));
	assert_non_null(prompt_context_template_find(&t, "pi-user"));
	assert_string_equal(prompt_context_template_find(&t, "oc-proj")->body, "sub opencode\n");
	/* the project wins over the user, a nearer directory over the repository root */
	assert_string_equal(prompt_context_template_find(&t, "shared")->body, "repo hearth shared\n");
	assert_string_equal(prompt_context_template_find(&t, "proj")->body, "sub hearth proj\n");
	prompt_context_templates_release(&t);

	/* ~/.claude/CLAUDE.md and CLAUDE.local.md beside AGENTS.md */
	put(".claude/CLAUDE.md", "USER_CLAUDE_MEMORY\n");
	put("repo/AGENTS.md", "REPO_AGENTS\n");
	put("repo/CLAUDE.local.md", "REPO_LOCAL_NOTES\n");
	put("repo/sub/CLAUDE.local.md", "SUB_LOCAL_NOTES\n");
	assert_int_equal(prompt_context_load(sub, sub, &ctx, &w), 4);
	assert_non_null(strstr(ctx.data, "USER_CLAUDE_MEMORY"));
	assert_true(strstr(ctx.data, "USER_CLAUDE_MEMORY") < strstr(ctx.data, "REPO_AGENTS"));
	assert_true(strstr(ctx.data, "REPO_AGENTS") < strstr(ctx.data, "REPO_LOCAL_NOTES"));
	assert_true(strstr(ctx.data, "REPO_LOCAL_NOTES") < strstr(ctx.data, "SUB_LOCAL_NOTES"));
	buf_release(&ctx);
	buf_release(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repo_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_order_and_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates_and_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_templates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_tools, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

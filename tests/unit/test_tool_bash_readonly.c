/*
 * test_tool_bash_readonly: the strict allowlist of read-only bash commands,
 * both ways: what an agent runs every day stays read-only, what an attacker
 * steering the model tries (issue 13's probes and more) is not.  Runs in a
 * temporary workspace with a git repository, a symlink out of it, and
 * repositories whose config or hooks would make git run a program.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "tools/bash_gitrepo.h"
#include "tools/bash_readonly.h"
#include "testutil.h"

static char ws[256];

static void
put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", ws, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof path, "%s/%s", ws, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int
setup(void **state)
{
	char path[512];

	(void)state;
	snprintf(ws, sizeof ws, "%s/hearth-ro-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(ws));
	dir("src");
	put("src/a.c", "int main(void) { return 0; }\n");
	put("a.txt", "one\ntwo\n");
	put("-rf", "");               /* a file whose name is an option */
	dir("globs");
	put("globs/x.txt", "x\n");
	dir(".git");
	put(".git/HEAD", "ref: refs/heads/main\n");
	put(".git/config", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
			   "\tbare = false\n\tlogallrefupdates = true\n"
			   "[remote \"origin\"]\n\turl = https://example.com/r.git\n"
			   "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
			   "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
			   "[user]\n\tname = \"A ; B\" # comment\n");
	dir(".git/hooks");
	put(".git/hooks/pre-commit.sample", "#!/bin/sh\n");
	snprintf(path, sizeof path, "%s/outside", ws);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof path, "%s/env", ws);
	assert_int_equal(symlink("/proc/self/environ", path), 0);
	snprintf(path, sizeof path, "%s/globs/bad", ws);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
	return system(cmd) == 0 ? 0 : -1;
}

/* Check one command; on a wrong verdict print it and the reason. */
static int
verdict(const char *root, const char *cmd, int want)
{
	struct buf why = BUF_INIT;
	int got = tool_bash_readonly_check(cmd, root, &why), rc;

	if (got != want)
		print_error("%s: expected %s, got %s (%s)\n", cmd, want ? "read-only" : "asks",
			    got ? "read-only" : "asks", why.data);
	if (!got && !why.len)
		print_error("%s: no reason given\n", cmd);
	rc = got == want && (got || why.len) ? 0 : 1;
	buf_release(&why);
	return rc;
}

static void
test_read_only(void **state)
{
	static const char *const ok[] = {
		"ls -la", "ls -la src", "ls", "ls -1 src/", "ls --color=never -lh src",
		"grep -rn foo src", "grep -rn \"/api/\" src", "grep -n -e x -e y a.txt",
		"grep -rn --include='*.c' main .", "grep -c one a.txt", "grep -3 one a.txt",
		"egrep 'a|b' a.txt", "git log --oneline -5", "git log --oneline -n 5",
		"git status", "git status --short", "git status -sb", "git diff", "git diff --stat HEAD~1",
		"git diff --cached -- src/a.c", "git show HEAD:src/a.c", "git show --stat HEAD",
		"git blame -L 1,5 src/a.c", "git branch", "git branch -a", "git branch --list 'f*'",
		"git rev-parse --show-toplevel", "git rev-parse --abbrev-ref HEAD", "git ls-files",
		"git ls-files -m", "git grep -n foo", "git grep -n foo -- src", "git log -p -3 -- src/a.c",
		"git log --format='%h %s' main..HEAD", "git tag", "git tag -l 'v*'", "git remote -v",
		"git stash list", "git describe --tags --always", "git --no-pager log -1",
		"cat a | head", "cat a.txt | head -20", "cat a.txt", "head -n 5 a.txt", "tail -20 a.txt",
		"find . -name '*.c'", "find src -type f -name \\*.c -print",
		"find . -maxdepth 2 \\( -name a -o -name b \\) -print", "wc -l", "wc -l src/a.c",
		"wc -l src/*.c", "rg foo", "rg -n foo src", "rg --files", "rg -t c main",
		"rg -e x -e y src", "sort a.txt", "sort -u a.txt | uniq -c", "uniq a.txt",
		"cut -d: -f1 a.txt", "tr a-z A-Z", "echo hi", "echo $", "printf '%s\\n' x", "pwd",
		"diff -u a.txt src/a.c", "cmp a.txt a.txt", "xxd a.txt", "xxd -l 16 a.txt",
		"od -c a.txt", "sed -n '1,20p' a.txt", "sed -n '/one/,/two/p' a.txt",
		"sed 's/one/ONE/g' a.txt", "sed -n '/^[a-z]/p' a.txt", "sed -e 's/a/b/' -e '2q' a.txt",
		"awk '{print $1}' a.txt", "awk -F: '{ n++ } END { print n }' a.txt",
		"stat a.txt", "file src/a.c", "du -sh src", "tree -L 2", "which git",
		"md5sum a.txt", "basename src/a.c", "realpath src", "date", "uname -a",
		"ls 2>/dev/null", "ls >/dev/null 2>&1", "grep x a.txt 2>&1 | head -5",
		"ls; pwd", "ls && git status", "ls || true", "ls # just looking",
		"wc -l < a.txt", "head -5 -- a.txt", "cat /dev/null", "test -f a.txt",
		"[ -f a.txt ]", "cat \"$\"", "git log --oneline | head -3", "",
		/* issue 20: sh is a prefix of sha256sum, not a match for it */
		"sha256sum a.txt", "sha256sum -b a.txt src/a.c", "sort -u a.txt", "sort -ur a.txt",
		/* issue 20's mutants: entries of the table that no test used */
		"dirname src/a.c", "dirname src/a.c a.txt", "git count-objects -vH",
		"git status --no-ahead-behind --null", "sed -n -e 1p -- a.txt",
	};
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
		bad += verdict(ws, ok[i], 1);
	assert_int_equal(bad, 0);
}

static void
test_asks(void **state)
{
	static const char *const no[] = {
		/* issue 13: programs */
		"rg --pre=./x foo", "rg --pre sh foo a.txt", "rg --pre-glob '*' --pre sh foo",
		"git grep -O'touch /tmp/x' foo", "git grep --open-files-in-pager=vi foo",
		"sort --compress-program=./x a.txt", "sort --compress-prog=./x a.txt",
		"GIT_EXTERNAL_DIFF=./x git diff", "FOO=1 ls", "LD_PRELOAD=/tmp/x.so ls",
		"PATH=.:$PATH ls", "BASH_ENV=./x ls", "env ls", "env", "printenv", "set", "export",
		"declare -p", "ls; env", "ls && printenv HOME",
		/* issue 13: writes */
		"uniq /dev/null ../f", "xxd /dev/null ../f", "uniq a.txt out.txt", "xxd a.txt F",
		"sort -r -o F a.txt", "sort -o F", "sort --output=F a.txt", "find . -fls F",
		"find . -fprint F", "find . -fprintf F '%p'", "find . -exec rm {} +",
		"find . -execdir sh -c x \\;", "find . -delete", "find . -ok rm {} \\;",
		"find -L . -name x", "find . -follow", "xxd -r a.txt", "tree -o out.txt",
		/* issue 13: secrets */
		"cat /proc/self/environ", "cat /proc/1/environ", "cat env", "cat /proc/self/mem",
		"head -c 100 /proc/self/environ", "cat /pro?/self/environ", "cat /etc/passwd",
		"cat outside", "cat ../x", "cat ~/.ssh/id_rsa", "cat ~root/.bashrc",
		"grep -r x /home", "cat globs/*", "grep /us? a.txt", "grep -e /us? a.txt", "echo $ANTHROPIC_API_KEY", "echo \"$HOME\"",
		"echo ${HOME}", "cat src/../../x", "ls ..", "ls /", "wc -l /etc/shadow",
		/* shell */
		"echo `id`", "echo $(id)", "echo \"$(id)\"", "cat <(id)", "ls > out.txt",
		"ls >> out.txt", "ls >| out.txt", "ls &> out.txt", "ls 2> err.txt", "ls >&out.txt",
		"cat <<EOF\nx\nEOF", "cat <<< x", "ls &", "(ls)", "{ ls; }", "ls |& cat",
		"ls <> f", "echo {a,b}", "cat {a.txt,/etc/passwd}", "echo {1..3}", "l\\s; rm x",
		"'ls'", "*", "./ls", "/bin/ls", "ls; rm -rf x", "cat a.txt | sh", "cat a | tee b",
		"cat a.txt | xargs rm", "ls\nrm x", "echo $'\\x41'", "alias ls=rm", "unterminated '",
		/* options that run programs */
		"tar --to-command=sh -xf a.tar", "tar -I ./x -cf a.tar .", "less a.txt", "more a.txt",
		"man ls", "awk 'BEGIN{system(\"id\")}'", "awk '{print > \"out\"}' a.txt",
		"awk '{print | \"sh\"}' a.txt", "awk 'BEGIN{while ((\"id\" | getline l) > 0) print l}'",
		"awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "awk -f prog.awk a.txt",
		"awk 'BEGIN{ARGV[1]=\"/etc/passwd\";ARGC=2}{print}'", "sed -i 's/a/b/' a.txt",
		"sed 'w out' a.txt", "sed -n 's/a/b/w out' a.txt", "sed 's/a/id/e' a.txt", "sed e a.txt",
		"sed '1e id' a.txt", "sed 'r /etc/passwd' a.txt", "sed -f s.sed a.txt",
		"sed -n 's/[/]w x/p' a.txt", "xargs rm", "vim a.txt", "ed a.txt", "perl -e 1",
		"python3 -c 1", "sh -c ls", "bash -c ls", "timeout 5 ls", "nice ls", "command ls",
		"exec ls", "eval ls", ". ./x", "source x", "git -c core.pager=sh log",
		"git -c core.fsmonitor=./x status", "git --exec-path=. status", "git -C /tmp status",
		"git --git-dir=/tmp/x status", "git --work-tree=/ status", "git --config-env=a=b log",
		"git -p log", "git --paginate log", "git diff --ext-diff", "git diff --textconv",
		"git diff --output=/tmp/x", "git log --output=x", "git diff --no-index /etc/passwd a.txt",
		"git diff /etc/passwd a.txt", "git show --show-signature", "git commit -m x",
		"git checkout .", "git branch newbranch", "git tag v1", "git stash", "git stash drop",
		"git reflog expire --all", "git config core.pager sh", "git config --list",
		"git help log", "git difftool", "git submodule status", "git fetch", "git push",
		"git log --ou=x", "git grep --no-index foo /etc", "rg -L foo", "rg -z foo",
		"rg --follow foo", "rg --hostname-bin=./x foo", "grep -R foo .",
		"grep --dereference-recursive foo .", "grep -3f /etc/passwd a.txt",
		"ls -L outside", "du -L .", "diff -r src /tmp", "file -C -m x", "date -f /etc/passwd",
		"date -s 2020-01-01", "hostname x", "sha256sum -c list", "tail -f a.txt",
		"rg foo *", "grep foo *", "cat -- *", "cat ./*",
		"ls -w 80 *", "head -n *",
		/* issue 20: output files behind bundled or positional options */
		"sort -uo F a.txt", "sort -ruo F a.txt", "sort -uoF a.txt", "sort -u -oF a.txt",
		"uniq a.txt b.txt", "uniq -c a.txt out", "tree -o F", "tree -L 2 -o F .",
		"xxd a.txt out", "xxd -l 16 a.txt out", "git diff --output=F", "git diff --output F",
		"find . -fprint F", "find . -name x -ok rm {} \\;", "find src -fprint0 F",
		/* issue 20: a prefix of an allowed program is not that program */
		"sh -c 'ls'", "sh a.txt", "sha a.txt", "sha256 a.txt", "sha256sumx a.txt",
		/* issue 20: env runs its operand, which may change anything */
		"env rm -rf src", "ls && rm -rf src", "ls; env rm -rf src", "ls | env rm -rf src",
		/* a redirection whose target is not a plain word */
		"cat < $(id)", "cat < `id`", "cat <'a.txt", "ls 2>$(id)", "git count-objects x",
	};
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof no / sizeof no[0]; i++)
		bad += verdict(ws, no[i], 0);
	assert_int_equal(bad, 0);
}

/* A repository at sub/ with config text cfg (NULL: none) and extra files; git status there. */
static int
git_verdict(const char *name, const char *cfg, const char *extra, const char *extra_text,
	    int want)
{
	char root[512], rel[256];
	int rc;

	snprintf(rel, sizeof rel, "%s", name);
	dir(rel);
	snprintf(rel, sizeof rel, "%s/.git", name);
	dir(rel);
	snprintf(rel, sizeof rel, "%s/.git/HEAD", name);
	put(rel, "ref: refs/heads/main\n");
	if (cfg) {
		snprintf(rel, sizeof rel, "%s/.git/config", name);
		put(rel, cfg);
	}
	if (extra) {
		snprintf(rel, sizeof rel, "%s/%s", name, extra);
		if (extra_text)
			put(rel, extra_text);
		else
			dir(rel);
	}
	snprintf(root, sizeof root, "%s/%s", ws, name);
	rc = verdict(root, "git status", want);
	rc += verdict(root, "git log --oneline -3", want);
	rc += verdict(root, "ls", 1); /* only git is affected */
	return rc;
}

static void
test_git_config(void **state)
{
	int bad = 0;

	(void)state;
	bad += git_verdict("r1", "[core]\n\tbare = false\n", NULL, NULL, 1);
	bad += git_verdict("r2", "[core]\n\tfsmonitor = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r3", "[core] fsmonitor = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r4", "[Core]\n\tFsMonitor = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r5", "[core]\n\tpager = sh\n", NULL, NULL, 0);
	bad += git_verdict("r6", "[diff]\n\texternal = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r7", "[diff \"x\"]\n\ttextconv = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r8", "[filter \"x\"]\n\tclean = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r9", "[alias]\n\tst = !./x\n", NULL, NULL, 0);
	bad += git_verdict("r10", "[include]\n\tpath = ../evil\n", NULL, NULL, 0);
	bad += git_verdict("r11", "[core]\n\thooksPath = .\n", NULL, NULL, 0);
	bad += git_verdict("r12", "[core]\n\tbare = false \\\n\n fsmonitor = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r13", "[core.x]\n\tfoo = 1\n", NULL, NULL, 0);
	bad += git_verdict("r14", "[gpg]\n\tprogram = ./x\n", NULL, NULL, 0);
	bad += git_verdict("r15", "[user]\n\tname = a \" \n", NULL, NULL, 0);
	bad += git_verdict("r16", "[core]\n\tbare = false\n", ".git/hooks", NULL, 1);
	bad += git_verdict("r17", "[core]\n\tbare = false\n", ".gitmodules", "", 0);
	bad += git_verdict("r18", "[core]\n\tbare = false\n", ".git/config.worktree",
			   "[core]\n\tfsmonitor = ./x\n", 0);
	bad += git_verdict("r19", "[trace2]\n\teventTarget = /tmp/x\n", NULL, NULL, 0);
	bad += git_verdict("r20", "[core]\n\tbare = false\n", ".git/modules", NULL, 0);
	/* a config that starts with a BOM is read past it (git does): inert
	 * stays inert, and a dangerous key behind the BOM is still seen */
	bad += git_verdict("r21", "\xef\xbb\xbf[core]\n\tbare = false\n", NULL, NULL, 1);
	bad += git_verdict("r22", "\xef\xbb\xbf[core]\n\tpager = sh\n", NULL, NULL, 0);
	assert_int_equal(bad, 0);
}

static void
test_git_layouts(void **state)
{
	char root[512], path[512];
	int bad = 0;

	(void)state;
	/* a post-index-change hook runs on git status */
	bad += git_verdict("h1", "[core]\n\tbare = false\n", ".git/hooks", NULL, 1);
	put("h1/.git/hooks/post-index-change", "#!/bin/sh\n");
	snprintf(root, sizeof root, "%s/h1", ws);
	bad += verdict(root, "git status", 0);
	/* .git as a file pointing to a git directory with a bad config */
	dir("g1");
	dir("g1/real");
	put("g1/real/HEAD", "ref: refs/heads/main\n");
	put("g1/real/config", "[core]\n\tfsmonitor = ./x\n");
	dir("g1/wt");
	put("g1/wt/.git", "gitdir: ../real\n");
	snprintf(root, sizeof root, "%s/g1/wt", ws);
	bad += verdict(root, "git status", 0);
	/* no .git, but the workspace looks like a bare repository with a config */
	dir("b1");
	put("b1/HEAD", "ref: refs/heads/main\n");
	put("b1/config", "[core]\n\tfsmonitor = ./x\n");
	snprintf(root, sizeof root, "%s/b1", ws);
	bad += verdict(root, "git status", 0);
	/* .git a symlink: not followed, asks */
	dir("s1");
	snprintf(path, sizeof path, "%s/s1/.git", ws);
	assert_int_equal(symlink("/tmp", path), 0);
	snprintf(root, sizeof root, "%s/s1", ws);
	bad += verdict(root, "git status", 0);
	assert_int_equal(bad, 0);
}

/*
 * The repository check's edges (tools/bash_gitrepo.c): what git parses
 * the same way must stay inert, what git reads elsewhere must be found.
 */
static void
test_git_repo_edges(void **state)
{
	char root[512], path[512], cfg[96];
	struct buf big = BUF_INIT;
	const char *old;
	int bad = 0;
	FILE *f;

	(void)state;
	/* full-line comments, CRLF line ends, a key with no value before CRLF */
	bad += git_verdict("e1", "# made by hand\n; and edited\n[core]\n\tbare = false\n", NULL, NULL, 1);
	bad += git_verdict("e2", "[core]\r\n\tbare = false\r\n\tfilemode\r\n", NULL, NULL, 1);
	bad += git_verdict("e3", "# [core] fsmonitor = ./x\n[core]\n\tfsmonitor = ./x\n", NULL, NULL, 0);
	/* escapes in a value: the ones git knows are inert, any other is a file git rejects */
	bad += git_verdict("e4", "[user]\n\tname = \"a\\tb\\\\c\\\"d\"\n", NULL, NULL, 1);
	bad += git_verdict("e5", "[user]\n\tname = a\\qb\n", NULL, NULL, 0);
	/* a section name longer than the parser keeps is not guessed about (ASan: no overrun) */
	memset(cfg, 'a', sizeof cfg);
	memcpy(cfg, "[core", 5);
	snprintf(cfg + 80, sizeof cfg - 80, "]\n\tbare=0\n");
	bad += git_verdict("e6", cfg, NULL, NULL, 0);
	/* a config over 1 MB (inert comments) cannot be checked: asks */
	buf_adds(&big, "[core]\n\tbare = false\n");
	while (big.len <= (1u << 20) + 4096)
		buf_adds(&big, "# padding padding padding padding padding padding padding padding\n");
	bad += git_verdict("e7", big.data, NULL, NULL, 0);
	buf_release(&big);
	/* a linked worktree: its own config.worktree, and the common directory
	 * named by an absolute or a relative commondir */
	dir("w1");
	dir("w1/main");
	dir("w1/main/.git");
	put("w1/main/.git/HEAD", "ref: refs/heads/main\n");
	put("w1/main/.git/config", "[core]\n\tbare = false\n");
	dir("w1/main/.git/worktrees");
	dir("w1/main/.git/worktrees/x");
	put("w1/main/.git/worktrees/x/HEAD", "ref: refs/heads/x\n");
	put("w1/main/.git/worktrees/x/commondir", "../..\n");
	put("w1/main/.git/worktrees/x/config.worktree", "[core]\n\tfsmonitor = ./x\n");
	dir("w1/x");
	put("w1/x/.git", "gitdir: ../main/.git/worktrees/x\n");
	snprintf(root, sizeof root, "%s/w1/x", ws);
	bad += verdict(root, "git status", 0);
	snprintf(path, sizeof path, "%s/w1/main/.git/worktrees/x/config.worktree", ws);
	assert_int_equal(unlink(path), 0);
	bad += verdict(root, "git status", 1);
	put("w1/main/.git/config", "[core]\n\tpager = sh\n");
	bad += verdict(root, "git status", 0);
	snprintf(path, sizeof path, "%s/w1/main/.git/worktrees/x/commondir", ws);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s/w1/main/.git\n", ws);
	fclose(f);
	bad += verdict(root, "git status", 0);
	put("w1/main/.git/config", "[core]\n\tbare = false\n");
	bad += verdict(root, "git status", 1);
	/* run from a subdirectory: the repository above is the one checked */
	dir("u1");
	dir("u1/.git");
	put("u1/.git/HEAD", "ref: refs/heads/main\n");
	put("u1/.git/config", "[core]\n\tfsmonitor = ./x\n");
	dir("u1/a");
	dir("u1/a/b");
	snprintf(root, sizeof root, "%s/u1/a/b", ws);
	bad += verdict(root, "git status", 0);
	/* $GIT_DIR names the repository: its config decides, wherever git runs */
	old = getenv("GIT_DIR");
	old = old ? strdup(old) : NULL;
	snprintf(path, sizeof path, "%s/w1/main/.git", ws);
	setenv("GIT_DIR", path, 1);
	bad += verdict(root, "git status", 1);
	snprintf(path, sizeof path, "%s/u1/.git", ws);
	setenv("GIT_DIR", path, 1);
	snprintf(root, sizeof root, "%s/w1/main", ws);
	bad += verdict(root, "git status", 0);
	if (old)
		setenv("GIT_DIR", old, 1);
	else
		unsetenv("GIT_DIR");
	free((char *)old);
	assert_int_equal(bad, 0);
}

/*
 * tool_bash_gitrepo_inert of ws/rel must answer want; when it is 0 its
 * reason must hold why_has and not why_not (each may be NULL).  0 when
 * so, 1 (printed) when not.
 */
static int
dir_why(const char *rel, int want, const char *why_has, const char *why_not)
{
	char root[512];
	struct buf why = BUF_INIT;
	int got, rc;

	snprintf(root, sizeof root, "%s/%s", ws, rel);
	got = tool_bash_gitrepo_inert(root, &why);
	rc = got != want || (!got && ((why_has && !strstr(why.data, why_has)) ||
				      (why_not && strstr(why.data, why_not))));
	if (rc)
		print_error("%s: expected %d (%s), got %d (%s)\n", rel, want, why_has ? why_has : "",
			    got, why.data);
	buf_release(&why);
	return rc;
}

/* A repository name/.git with config cfg, then dir_why(name, want, why_has, NULL). */
static int
cfg_why(const char *name, const char *cfg, int want, const char *why_has)
{
	char rel[256];

	dir(name);
	snprintf(rel, sizeof rel, "%s/.git", name);
	dir(rel);
	snprintf(rel, sizeof rel, "%s/.git/HEAD", name);
	put(rel, "ref: refs/heads/main\n");
	snprintf(rel, sizeof rel, "%s/.git/config", name);
	put(rel, cfg);
	return dir_why(name, want, why_has, NULL);
}

/*
 * How the config parse follows git's: colour and advice sections, the
 * old [section.sub] form, quoted subsections with escapes, every blank
 * isspace knows, keys and sections at the parser's length limits, a
 * line git cannot parse, and a config that is a symlink (git follows it:
 * never guessed about).
 */
static void
test_git_parse_edges(void **state)
{
	char cfg[320], name[64], path[512];
	int bad = 0;

	(void)state;
	bad += cfg_why("p1", "[color \"diff\"]\n\tmeta = yellow\n[advice]\n\tdetachedHead = false\n", 1, NULL);
	bad += cfg_why("p2", "[remote.origin]\n\turl = https://example.org/x.git\n", 1, NULL);
	bad += cfg_why("p3", "[remote.a \"b\"]\n\turl = x\n", 0, "unparsable");
	bad += cfg_why("p4", "[remote \"o\\\"x\"]\n\turl = y\n", 1, NULL);   /* [remote "o\"x"] */
	bad += cfg_why("p5", "[remote \"a\\\"\"]\n\turl = y\n", 1, NULL);   /* [remote "a\""] */
	bad += cfg_why("p6", "[remote \"abc\"]\n\turl = y\n", 1, NULL);
	bad += cfg_why("p7", "[remote \"a\\\n\"]\n\turl = x\n", 0, "unparsable"); /* no quote across lines */
	bad += cfg_why("p8", "[core]\n\v\f\tbare = false\n", 1, NULL);
	bad += cfg_why("p9", "[core]\n\t1bare = false\n", 0, "unparsable");
	bad += cfg_why("p10", "[remote \"a\\", 0, "unparsable");      /* ends inside the name */
	bad += cfg_why("p16", "[core]\n\tbare x\n", 0, "unparsable");   /* neither '=' nor the line's end */
	bad += cfg_why("p17", "[user]\n\tname = x ; a \"\n\temail = y # b \"\n", 1, NULL); /* quotes in comments */
	bad += cfg_why("p18", "[user]\n\tname = a \\\r\n b\r\n", 1, NULL);   /* a CRLF line continued */
	bad += cfg_why("p19", "[user]\n\tname = a\\", 0, "unparsable");      /* a backslash ends the text */
	/* the checks stop at the first reason: a bad config and submodules give one */
	bad += cfg_why("p20", "[core]\n\tpager = sh\n", 0, "core.pager");
	put("p20/.gitmodules", "");
	bad += dir_why("p20", 0, "core.pager", "submodules");
	/* .git a file: garbage is no gitdir; an absolute gitdir is followed */
	dir("p21");
	put("p21/.git", "garbage\n");
	bad += dir_why("p21", 0, "neither a directory nor a gitdir file", NULL);
	dir("p21/real");
	put("p21/real/HEAD", "ref: refs/heads/main\n");
	put("p21/real/config", "[core]\n\tfsmonitor = ./x\n");
	dir("p21/wt");
	snprintf(cfg, sizeof cfg, "gitdir: %s/p21/real\n", ws);
	put("p21/wt/.git", cfg);
	bad += dir_why("p21/wt", 0, "core.fsmonitor", NULL);
	/* a key of 63 bytes is read whole (and is no inert key); 64 is past the parser's room */
	memset(name, 'k', 63);
	name[63] = '\0';
	snprintf(cfg, sizeof cfg, "[core]\n\t%s = 1\n", name);
	bad += cfg_why("p11", cfg, 0, name);
	snprintf(cfg, sizeof cfg, "[core]\n\t%sk = 1\n", name);
	bad += cfg_why("p12", cfg, 0, "unparsable");
	/* a section of 63 bytes likewise; 64 is not read whole */
	memset(name, 's', 63);
	snprintf(cfg, sizeof cfg, "[%s]\n\tbare = 1\n", name);
	bad += cfg_why("p13", cfg, 0, name);
	snprintf(cfg, sizeof cfg, "[%ss]\n\tbare = 1\n", name);
	bad += cfg_why("p14", cfg, 0, "unparsable");
	/* .git/config a symlink to a config with fsmonitor: git reads it; so must the check */
	bad += cfg_why("p15", "[core]\n\tbare = false\n", 1, NULL);
	put("p15/evil.cfg", "[core]\n\tfsmonitor = ./x\n");
	snprintf(path, sizeof path, "%s/p15/.git/config", ws);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("../evil.cfg", path), 0);
	bad += dir_why("p15", 0, "cannot be checked", NULL);
	assert_int_equal(bad, 0);
}

static void
test_path_env(void **state)
{
	const char *old = getenv("PATH");
	char *save = old ? strdup(old) : NULL;

	(void)state;
	setenv("PATH", ".:/usr/bin:/bin", 1);
	assert_int_equal(verdict(ws, "ls", 0), 0);
	setenv("PATH", "/usr/bin::/bin", 1);
	assert_int_equal(verdict(ws, "ls", 0), 0);
	setenv("PATH", "/usr/bin:/bin", 1);
	assert_int_equal(verdict(ws, "ls", 1), 0);
	if (save)
		setenv("PATH", save, 1);
	free(save);
	save = NULL;
	assert_false(tool_bash_readonly_is_read_only(NULL));
	assert_false(tool_bash_readonly_check("ls", "relative", NULL));
}

/* ---- issue 20, tools/bash_readonly.c lines 1-560 (paths, options, sed) ---- */

/* Each of cmds[0..n) run in root must get verdict want; the count that do not. */
static int
verdicts(const char *root, const char *const *cmds, size_t n, int want)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad += verdict(root, cmds[i], want);
	return bad;
}

/* cmd in root asks and its reason holds text; 0 when so, 1 (printed) when not. */
static int
asks_because(const char *root, const char *cmd, const char *text)
{
	struct buf why = BUF_INIT;
	int got = tool_bash_readonly_check(cmd, root, &why), rc;

	rc = got || !why.len || !strstr(why.data, text);
	if (rc)
		print_error("%s: expected to ask because \"%s\", got %s (%s)\n", cmd, text,
			    got ? "read-only" : "asks", why.data);
	buf_release(&why);
	return rc;
}

/*
 * Issue 20: a command that passes and is followed by one that writes must
 * still ask: every check that fails says why and ends the whole line, and
 * one that passes does not stop the scan of what comes after it.
 */
static void
test_ro_line_goes_on(void **state)
{
	static const char *const no[] = {
		"cat /dev/null; rm -rf src", "cat -; rm -rf src", "cat ''; rm -rf src",
		"cat src/*.c; rm -rf src", "cat nomatch*.q; rm -rf src", "echo nomatch*; rm -rf src",
		"grep -rn --include=*.c main src; rm -rf src", "ls --all=x", "ls --all=x; rm -rf src",
		"head --lines=5 a.txt; rm -rf src", "head --lines 5 a.txt; rm -rf src",
		"head -n5 a.txt; rm -rf src", "od -w a.txt; rm -rf src", "od -w8 a.txt; rm -rf src",
		"git diff -M; rm -rf src",
	};

	(void)state;
	assert_int_equal(verdicts(ws, no, sizeof no / sizeof no[0], 0), 0);
	/* the reason names the redirection's file */
	assert_int_equal(asks_because(ws, "echo hi > out.txt", "output goes to the file out.txt"), 0);
}

/*
 * Issue 20: where paths are checked: a root that is /proc or /sys, a
 * quoted ~ (a directory named "~"), a root whose name holds glob
 * characters, a glob match that is an option, a glob under a missing
 * directory, and a command name that is also a link out.
 */
static void
test_ro_paths_checked(void **state)
{
	char root[512], path[512];
	int bad = 0;

	(void)state;
	bad += verdict("/proc", "cat self/environ", 0);
	bad += verdict("/proc", "cat x", 0);
	bad += verdict("/sys", "cat x", 0);
	bad += verdict(ws, "cat '~/a.txt'", 1);
	bad += verdict(ws, "cat \\~", 1);
	/* a root named st*r: its own name would be a pattern to glob(3) */
	dir("st*r");
	put("st*r/a.txt", "a\n");
	snprintf(root, sizeof root, "%s/st*r", ws);
	bad += verdict(root, "cat *.txt", 0);
	bad += verdict(root, "cat a.txt", 1);
	bad += verdict(root, "grep -fa.txt x", 1);      /* an attached value is text, not a glob */
	/* a glob matching the file -rf: the program would see an option */
	bad += verdict(ws, "cat ?rf", 0);
	bad += verdict(ws, "wc -l ?rf", 0);
	bad += verdict(ws, "cat -- -rf", 1);            /* after --, -rf is a file to read */
	/* a glob under a directory that does not exist stays literal, as in bash */
	bad += verdict(ws, "cat nodir/*.c", 1);
	bad += verdict(ws, "echo nodir/*", 1);
	/* a link named cat in the root: the command name is no path read */
	dir("cl");
	put("cl/a.txt", "a\n");
	snprintf(path, sizeof path, "%s/cl/cat", ws);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(root, sizeof root, "%s/cl", ws);
	bad += verdict(root, "cat a.txt", 1);
	bad += verdict(root, "cat a.txt a.txt", 1);
	assert_int_equal(bad, 0);
}

/*
 * Issue 20: option values by kind (number, text, path read, optional),
 * long options with and without '=', bundles, whole-word options (xxd),
 * which option names the pattern, and a missing value.
 */
static void
test_ro_option_values(void **state)
{
	static const char *const ok[] = {
		"tail -n +2 a.txt", "head -n -1 a.txt", "head -c 1K a.txt", "head -c 10k a.txt",
		"grep -e /etc/passwd a.txt", "grep --count /etc/passwd a.txt",
		"grep --color x a.txt", "head --lines=5 a.txt", "head -n5 a.txt", "head --lines 5 a.txt",
		"cut -d / -f1 a.txt", "xxd -p a.txt", "xxd -c 8 a.txt", "uniq - ", "od -w8 a.txt",
		"od -w a.txt", "grep -f a.txt x", "git diff -M",
	};
	static const char *const no[] = {
		"head -n x a.txt", "grep -f /etc/passwd a.txt", "grep -f/etc/passwd a.txt",
		"grep -f globs/* a.txt", "grep --file=/etc/passwd x a.txt",
		"grep --regexp=x /etc/passwd", "grep -e x /etc/passwd",
		"grep --exclude-from /etc/passwd x a.txt", "grep --color x /etc/passwd",
		"grep --count=5 x a.txt", "ls '-- '", "xxd -revert a.txt", "xxd -pp a.txt",
		"uniq - a.txt", "xxd - a.txt", "head -n", "grep -e", "head --lines",
	};
	int bad = 0;

	(void)state;
	bad += verdicts(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdicts(ws, no, sizeof no / sizeof no[0], 0);
	/* the reason names the option, and what is wrong with the operand */
	bad += asks_because(ws, "ls -j", "option -j is not known to be read-only");
	bad += asks_because(ws, "ls -lj", "option -j is not known to be read-only");
	bad += asks_because(ws, "pwd x", "pwd: an operand beyond the ones it reads");
	assert_int_equal(bad, 0);
}

/*
 * Issue 20: sed scripts: addresses (N, first~step, +N, ~N, /re/I, \cREc),
 * separators, comments, escapes and bracket expressions, and where the
 * scan must refuse because sed would end a regex or a part elsewhere.
 */
static void
test_ro_sed_scripts(void **state)
{
	static const char *const ok[] = {
		"sed -n '1~2p' a.txt", "sed -n '0~3p' a.txt", "sed -n '1,+2p' a.txt",
		"sed -n '1,~4p' a.txt", "sed -n '/one/Ip' a.txt", "sed -n '/one/Mp' a.txt",
		"sed -n '\\%one%p' a.txt", "sed -n '\\%\\%%p' a.txt", "sed -n '1p; 2p' a.txt",
		"sed -n '1p;2p' a.txt", "sed -n '1p\n2p' a.txt", "sed -n '1p;\t2p' a.txt",
		"sed -n '#n\n1p' a.txt", "sed -n '/a\\.b/p' a.txt", "sed 's/a\\./x/' a.txt",
		"sed -n '/[a]/p' a.txt", "sed -n '/[^a]/p' a.txt", "sed -n '/[]a]/p' a.txt",
		"sed -n '/[^]a]/p' a.txt",
	};
	static const char *const no[] = {
		/* sed goes on after a comment's newline: this writes the file out */
		"sed -n '#x\nw out' a.txt",
		/* a backslash-newline, an unclosed bracket or part: the scan cannot
		 * know where sed ends the regex; read again as commands, they must
		 * not pass */
		"sed 's/a\\\nb/c/' a.txt", "sed -n '/p;#\\\n/x/p' a.txt", "sed -n '/p;#[/]\n/x/p' a.txt",
		"sed -n '/p;#[' a.txt", "sed -n '/p;#' a.txt", "sed -n '\\' a.txt",
		"sed -n '/[/]/p' a.txt", "sed -n '/[[]/p' a.txt", "sed -n '/[\\n]/p' a.txt",
		"sed -n '/a[\\]/p' a.txt", "sed -n '/[a\n]/p' a.txt",
		/* ']' as the delimiter: sed ends the replacement at the first ']',
		 * so a bracket there hides a w flag (this wrote the file "y]") */
		"sed 's]x]a[b]w y]' a.txt", "sed 's]x]a[b]]' a.txt", "sed -n '\\]a[b]]p' a.txt",
		"sed -n '\\]p;#[\n/x/p' a.txt",
		/* addresses sed refuses or reads as text */
		"sed -n '+1p' a.txt", "sed -n '1,p' a.txt", "sed 'a/x/p' a.txt",
		"sed -n '\\\nx\np' a.txt", "sed -n '\\\\x\\p' a.txt",
	};
	int bad = 0;

	(void)state;
	bad += verdicts(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdicts(ws, no, sizeof no / sizeof no[0], 0);
	assert_int_equal(bad, 0);
}

/* ---- issue 20, tools/bash_readonly.c from ro_sed to the end (sed, awk, find, git, the
 * command table, the shell parse, PATH) ------------------------------------------------ */

/*
 * verdict() for each of n commands run in root; how many were wrong.  A
 * read-only one followed by "; rm -rf src" must ask: the check of a
 * command that stopped early without a reason must not pass the line.
 */
static int
verdict_each(const char *root, const char *const *cmds, size_t n, int want)
{
	char line[512];
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		bad += verdict(root, cmds[i], want);
		if (want) {
			snprintf(line, sizeof line, "%s; rm -rf src", cmds[i]);
			bad += verdict(root, line, 0);
		}
	}
	return bad;
}

/*
 * sed: with -e or --expression (anywhere, in any of their spellings) every
 * operand is a file; without, the first operand is the script.  Each
 * option it knows is read-only, "--" ends them, "-" is stdin.
 */
static void
test_sed_words(void **state)
{
	static const char *const ok[] = {
		"sed a.txt -e p", "sed a.txt -ne p", "sed a.txt --expression=p",
		"sed a.txt --expression p", "sed -ne 1p a.txt", "sed --expression 1p a.txt",
		"sed --expression=1p a.txt", "sed -n p -- -rf", "sed -n p -", "sed s/o*/0/ a.txt",
		"sed -E -n p a.txt", "sed -r -n p a.txt", "sed -s -n p a.txt", "sed -z -n p a.txt",
		"sed -u -n p a.txt", "sed --quiet p a.txt", "sed --silent p a.txt",
		"sed --regexp-extended -n p a.txt", "sed --separate -n p a.txt",
		"sed --null-data -n p a.txt", "sed --posix -n p a.txt", "sed --sandbox -n p a.txt",
		"sed --debug -n p a.txt", "sed -nE p a.txt", "sed -En p a.txt", "sed -nr p a.txt",
		"sed -rn p a.txt",
	};
	static const char *const no[] = {
		/* sed --expression=wp writes the file p */
		"sed --expression=wp a.txt", "sed -n -e", "sed -e", "sed -n", "sed",
		"sed -- -e p", "sed 'w out' -- -e p",
	};
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	assert_int_equal(bad, 0);
}

/*
 * awk: options only before the program (-F, -v, attached or not, "--"),
 * then var=value operands (not files) and files.
 */
static void
test_awk_words(void **state)
{
	static const char *const ok[] = {
		"awk -- -1 a.txt", "awk '{print}' -rf", "awk - a.txt", "awk -F , '{print $1}' a.txt",
		"awk -F x* '{print $1}' a.txt", "awk -vx=1 '{print x}' a.txt",
		"awk -v x=1 '{print x}' a.txt", "awk -Fx* '{print}' a.txt", "awk NR*2 a.txt",
		"awk '{print}' x=/../../z a.txt", "awk '{print}' _x=/../../z a.txt",
	};
	static const char *const no[] = {
		"awk -F: 'BEGIN{system(\"id\")}'", "awk -F , 'BEGIN{system(\"id\")}'",
		"awk -v x=1 'BEGIN{system(\"id\")}'", "awk -F", "awk -v", "awk -F a* '{print}' a.txt",
		"awk a* a.txt", "awk '{print}' /etc/passwd",
		"awk '{print}' outside", "awk '{print}' /x=y", "awk", "awk -F:",
	};
	char root[512], path[512];
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	/* after the program "--" is a file (mawk and gawk read it): here one out of the workspace */
	dir("awkdd");
	snprintf(path, sizeof path, "%s/awkdd/--", ws);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(root, sizeof root, "%s/awkdd", ws);
	bad += verdict(root, "awk '{print}' --", 0);
	bad += verdict(root, "awk -- '{print}' a.txt", 1);
	assert_int_equal(bad, 0);
}

/*
 * find: starting points end at the first word that begins the expression
 * ("-x", "(", "!", ","); -newer and its kind read a path; a value that
 * is an unquoted glob must match nothing.
 */
static void
test_find_words(void **state)
{
	static const char *const ok[] = {
		"find . -newer a.txt", "find . -anewer a.txt", "find . -cnewer a.txt",
		"find . -samefile a.txt", "find . -name x*", "find . \\( -name a \\)", "find src", "find",
		"find . ! -name a", "find src , -name a",
	};
	static const char *const no[] = {
		"find . \\( a \\)", "find . ! a", "find . , a", "find . -nam*", "find . -r*",
		"find . -newer /etc/passwd", "find . -anewer /etc/passwd", "find . -cnewer /etc/passwd",
		"find . -samefile /etc/passwd", "find . -newer outside", "find . -name",
		"find . -name a*", "find . -type f -name",
		"find . -aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	assert_int_equal(bad, 0);
}

/*
 * git: the global options before the subcommand, git --version and git
 * version alone, the listing forms of branch, tag, stash, reflog and
 * worktree, operand counts, and git grep's pattern (a string, not a path).
 */
static void
test_git_words(void **state)
{
	static const char *const ok[] = {
		"git -P log -1", "git --version", "git version", "git branch -l 'f*'",
		"git branch -a x", "git branch -r x", "git tag --list 'v*'", "git stash show",
		"git stash show -p", "git reflog", "git reflog show HEAD", "git worktree list",
		"git cat-file -p HEAD", "git cat-file blob HEAD:a.txt", "git grep -n /etc src",
		"git grep fo* src", "git grep -e x -- src", "git log -- src/*.c",
	};
	static const char *const no[] = {
		"git --no-pager commit -m x", "git --no-pager", "git", "git -P", "git --version commit",
		"git version x", "git 'log' -1", "git worktree add x", "git worktree",
		"git worktree list x", "git reflog delete HEAD", "git cat-file -p HEAD a.txt src",
		"git grep foo /etc/passwd", "git grep -e x /etc/passwd", "git grep a* src",
		"git remote add x y", "git branch x y", "git tag x y", "git worktree prune",
	};
	char root[512], path[512];
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	/* the word git is the command, not a path read: a file named git (here a
	 * symlink out of the workspace) in the directory changes nothing */
	dir("gitlink");
	snprintf(path, sizeof path, "%s/gitlink/git", ws);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(root, sizeof root, "%s/gitlink", ws);
	bad += verdict(root, "git log", 1);
	bad += verdict(root, "git status", 1);
	assert_int_equal(bad, 0);
}

/*
 * The shell parse: quotes and escapes (what the word is, whether it was
 * quoted), words that vanish or appear, ~ after = or :, globs, comments,
 * separators, and every kind of redirection.
 */
static void
test_shell_words(void **state)
{
	static const char *const ok[] = {
		"echo 'x; rm -rf src'", "echo \"x; rm -rf src\"", "cat 'globs/*'*",
		"cat \"globs/*\"*", "cat \"\\\\/etc/passwd\"", "cat \"\\/etc/passwd\"",
		"echo \"\\$HOME\"", "echo \"a\\\"b\"",
		"echo \"a\\\nb\"", "echo \\;rm x", "echo $ x", "echo a~", "cut -d, -f1 a.txt",
		"echo a#b", "ls &&pwd", "ls ||pwd", "ls|cat", "uniq a.txt 2>/dev/null",
		"uniq a.txt 2>>/dev/null", "wc -l < a.txt", "wc -l <\ta.txt", "ls >&-", "ls >&2",
		"ls 2>&1|cat", "ls 2>&1 ; pwd", "cat < '-rf'", "ls >> /dev/null", "echo a=b",
		"ls x=1",
	};
	static const char *const no[] = {
		"uniq a.txt \\o", "uniq a.txt ''", "uniq a.txt \"\"", "uniq a.txt $",
		"uniq a.txt '2'>/dev/null", "echo 'x';rm -rf src", "echo \"x\";rm -rf src",
		"echo \"abc", "echo \"`id`\"", "echo \"$ x\"", "echo \"$ x\" \"",
		"cat \"/etc/passwd\"", "ls \\",
		"echo \\x;rm -rf src", "\\ls", "head -n \"1\\$\" a.txt", "echo a=~", "echo a:~",
		"cat globs/ba[d]", "cat globs/ba?", "ls # x\nrm -rf src", "ls ;; ls",
		"cat a.txt /etc/passwd>/dev/null", "cat <&0", "ls >|/dev/null", "ls >(cat)",
		"ls >&2x", "cat <", "ls >", "ls 2>", "ls > /dev/null2", "cat < /etc/passwd",
		"cat < outside", "cat < globs/*", "ls 2>&1x", "; rm -rf src", "\nrm -rf src",
		"# c\nrm -rf src", "ls | ; rm -rf src", "echo \"a\\", "ls >|cat", "ls >| pwd",
		"ls |&&pwd",
	};
	char path[512];
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	bad += verdict(ws, "ls # ; rm -rf src", 1); /* a comment to the line's end */
	/* "\\"* is a backslash then a glob: it matches \x, here a symlink out */
	dir("bsl");
	snprintf(path, sizeof path, "%s/bsl/\\x", ws);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof path, "%s/bsl", ws);
	bad += verdict(path, "cat \"\\\\\"*", 0);
	bad += verdict(path, "cat '\\'*", 0);
	bad += verdict(path, "cat \\\\*", 0);
	assert_int_equal(bad, 0);
}

/*
 * The entry points: no PATH (bash then uses its own absolute default),
 * an empty last PATH entry (the working directory), the reasons for no
 * command and no workspace, and tool_bash_readonly_is_read_only, which
 * asks about the working directory (and says no when it has none).
 */
static void
test_entry_points(void **state)
{
	const char *old = getenv("PATH");
	char *save = old ? strdup(old) : NULL, cwd[512], gone[600];
	struct buf why = BUF_INIT;
	int bad = 0;

	(void)state;
	unsetenv("PATH");
	bad += verdict(ws, "ls", 1);
	setenv("PATH", "/usr/bin:/bin:", 1);
	bad += verdict(ws, "ls", 0);
	if (save)
		setenv("PATH", save, 1);
	else
		unsetenv("PATH");
	free(save);
	assert_int_equal(bad, 0);
	assert_int_equal(tool_bash_readonly_check(NULL, ws, &why), 0);
	assert_true(why.len > 0);
	buf_reset(&why);
	assert_int_equal(tool_bash_readonly_check("ls", "relative", &why), 0);
	assert_true(why.len > 0);
	buf_release(&why);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(ws), 0);
	assert_true(tool_bash_readonly_is_read_only("cat a.txt"));
	assert_false(tool_bash_readonly_is_read_only("cat ../x"));
	snprintf(gone, sizeof gone, "%s/gone", ws);
	assert_int_equal(mkdir(gone, 0755), 0);
	assert_int_equal(chdir(gone), 0);
	assert_int_equal(rmdir(gone), 0);
	assert_false(tool_bash_readonly_is_read_only("ls")); /* getcwd fails */
	assert_int_equal(chdir(cwd), 0);
}

/*
 * The command table row by row: each listed command with an operand, and
 * with -5, which only head, tail, grep and the like take as an option
 * (an unlisted option asks).
 */
static void
test_table_rows(void **state)
{
	static const char *const ok[] = {
		"ls src", "cat a.txt", "tac a.txt", "head a.txt", "tail a.txt", "wc a.txt",
		"grep one a.txt", "egrep one a.txt", "fgrep one a.txt", "rg one a.txt", "echo x",
		"printf x", "true x", "false x", "which ls", "type ls", "basename a.txt",
		"dirname a.txt", "realpath a.txt", "readlink -f a.txt", "file a.txt", "stat a.txt",
		"du src", "df .", "tree src", "cut -c1 a.txt", "sort a.txt", "uniq a.txt", "tr a b",
		"nl a.txt", "diff a.txt a.txt", "cmp a.txt a.txt", "comm a.txt a.txt", "md5sum a.txt",
		"sha1sum a.txt", "sha256sum a.txt", "sha512sum a.txt", "xxd a.txt", "od a.txt",
		"hexdump -C a.txt", "strings a.txt", "id root", "date +%s", "test -n x", "[ -n x ]",
		"head -5 a.txt", "tail -5 a.txt", "grep -5 one a.txt",
		"git status src", "git log src", "git whatchanged src", "git show HEAD",
		"git diff HEAD", "git blame a.txt", "git shortlog HEAD", "git rev-parse HEAD",
		"git rev-list HEAD", "git ls-files src", "git ls-tree HEAD", "git cat-file -p HEAD",
		"git grep one a.txt", "git describe HEAD", "git merge-base HEAD HEAD",
		"git show-ref main", "git for-each-ref refs/heads", "git name-rev HEAD",
		"git check-ignore a.txt", "git branch --list x", "git tag -l x", "git stash list",
		"git reflog show", "git worktree list", "git log -5", "git show -5", "git rev-list -5 HEAD",
		"git reflog -5", "git whatchanged -5",
	};
	static const char *const no[] = {
		"ls -5", "cat -5 a.txt", "tac -5 a.txt", "wc -5 a.txt", "rg -5 one a.txt", "pwd -5",
		"echo -5", "which -5 ls", "type -5 ls", "basename -5 a", "dirname -5 a",
		"realpath -5 a", "readlink -5 a", "file -5 a.txt", "stat -5 a.txt", "du -5 src",
		"df -5 .", "tree -5 src", "cut -5 a.txt", "sort -5 a.txt", "uniq -5 a.txt",
		"tr -5 a b", "nl -5 a.txt", "diff -5 a.txt a.txt", "cmp -5 a.txt a.txt",
		"comm -5 a.txt a.txt", "md5sum -5 a.txt", "sha1sum -5 a.txt", "sha256sum -5 a.txt",
		"sha512sum -5 a.txt", "xxd -5 a.txt", "od -5 a.txt", "hexdump -5 a.txt",
		"strings -5 a.txt", "whoami -5", "id -5", "uname -5", "nproc -5", "date -5",
		"git status -5", "git diff -5", "git blame -5 a.txt", "git shortlog -5",
		"git rev-parse -5", "git ls-files -5", "git ls-tree -5 HEAD", "git cat-file -5 HEAD",
		"git describe -5", "git merge-base -5 HEAD", "git show-ref -5", "git for-each-ref -5",
		"git name-rev -5 HEAD", "git check-ignore -5 a.txt", "git count-objects -5",
		"git branch -5", "git tag -5", "git remote -5", "git stash -5 list",
		"git worktree -5 list", "tr a b c", "diff a.txt a.txt a.txt", "cmp a.txt a.txt 1",
		"comm a.txt a.txt a.txt", "uniq a.txt a.txt", "nl a.txt a.txt", "xxd a.txt a.txt",
		"id root root", "date +%s +%s",
	};
	int bad;

	(void)state;
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	assert_int_equal(bad, 0);
}

/*
 * Issue 20's defects found in the table: printf -v assigns a shell
 * variable (printf -v PATH . ; ls runs a workspace ./ls), date with an
 * operand that is not +FORMAT sets the system clock, and diff of a
 * directory reads what the symlinks in it point to.
 */
static void
test_printf_date(void **state)
{
	static const char *const ok[] = {
		"printf x", "printf '%s\\n' x y", "date", "date +%s", "date -u +%Y-%m-%d",
		"date -d yesterday +%F", "date --date=@0 +%F", "diff a.txt d2/x", "diff - a.txt",
		"diff a.txt /dev/null", "printf",
	};
	static const char *const no[] = {
		"printf -v PATH . ; ls", "printf -v x y", "printf -- x", "date 010100002020",
		"date -u 0101", "date -- 0101", "date 'x'", "date -d yesterday 0101",
		"diff d1 d2", "diff -u d1 d2/x", "diff src globs", "diff a.txt src", "diff a.txt glob*",
		"diff -- a.txt d1", "diff a.txt /etc/passwd", "diff a.txt outside",
	};
	char path[512];
	int bad;

	(void)state;
	dir("d1");
	dir("d2");
	put("d2/x", "foo\n");
	snprintf(path, sizeof path, "%s/d1/x", ws);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	bad = verdict_each(ws, ok, sizeof ok / sizeof ok[0], 1);
	bad += verdict_each(ws, no, sizeof no / sizeof no[0], 0);
	/* only the operands are looked at: a directory named diff is no operand */
	dir("d3");
	dir("d3/diff");
	put("d3/a", "a\n");
	snprintf(path, sizeof path, "%s/d3", ws);
	bad += verdict(path, "diff a a", 1);
	assert_int_equal(bad, 0);
}

/*
 * Issue 20: sed scripts the checker reads command by command (each checked
 * with GNU sed): negation, l q Q with counts, blocks, separators; e runs
 * each line as a shell command, and extra text after a command is refused.
 */
static void
test_sed_script_commands(void **state)
{
	static const char *const ro[] = {
		"sed -n '/x/!p' a.txt", "sed -n '/x/ ! p' a.txt", "sed -n l a.txt", "sed 5q a.txt",
		"sed 2Q a.txt", "sed -n 'p ;p' a.txt", "sed -n 'p\t;p' a.txt", "sed -n '/o/{p}' a.txt",
		"sed -n '/o/{p;p}' a.txt", "sed -n 'l 3' a.txt", "sed -n 'p # note' a.txt",
	};
	static const char *const asks[] = {
		"sed e a.txt", "sed 1e a.txt", "sed -n 'p;e' a.txt", "sed 'e date' a.txt", "sed -n 'p p' a.txt",
		"sed s a.txt", "sed 's\\a\\b\\' a.txt", "sed -n 'q e' a.txt", "sed -n 'l e' a.txt",
	};

	(void)state;
	assert_int_equal(verdicts(ws, ro, sizeof ro / sizeof ro[0], 1), 0);
	assert_int_equal(verdicts(ws, asks, sizeof asks / sizeof asks[0], 0), 0);
}

/*
 * Issue 20: a workspace at "/" (a container's).  An absolute glob's
 * matches are absolute paths, never options: cat of the glob of every
 * entry of / is read-only though / holds a file "-x"; cat of the relative
 * glob of every entry expands to -x there, an option.
 * A child in its own user and mount namespace chroots into a directory
 * holding "-x" and "a" (tu_in_chroot: skipped without user namespaces).
 */
/* The child of test_workspace_at_slash, in the chroot: 0 when every verdict held. */
static int
workspace_at_slash(void *arg)
{
	(void)arg;
	return verdict("/", "cat /*", 1) | verdict("/", "cat /a /-x", 1) << 1 | verdict("/", "cat *", 0) << 2;
}

static void
test_workspace_at_slash(void **state)
{
	char top[600], path[700];
	FILE *fp;

	(void)state;
	snprintf(top, sizeof top, "%s/slash", ws);
	assert_int_equal(mkdir(top, 0755), 0);
	snprintf(path, sizeof path, "%s/-x", top);
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
	snprintf(path, sizeof path, "%s/a", top);
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
	tu_in_chroot(top, 0, workspace_at_slash, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_asks),
		cmocka_unit_test(test_git_config),
		cmocka_unit_test(test_git_layouts),
		cmocka_unit_test(test_git_repo_edges),
		cmocka_unit_test(test_git_parse_edges),
		cmocka_unit_test(test_path_env),
		cmocka_unit_test(test_ro_line_goes_on),
		cmocka_unit_test(test_ro_paths_checked),
		cmocka_unit_test(test_ro_option_values),
		cmocka_unit_test(test_ro_sed_scripts),
		cmocka_unit_test(test_sed_words),
		cmocka_unit_test(test_awk_words),
		cmocka_unit_test(test_find_words),
		cmocka_unit_test(test_git_words),
		cmocka_unit_test(test_shell_words),
		cmocka_unit_test(test_entry_points),
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_printf_date),
		cmocka_unit_test(test_sed_script_commands),
		cmocka_unit_test(test_workspace_at_slash),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

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
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

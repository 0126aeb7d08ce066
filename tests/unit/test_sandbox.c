/*
 * test_sandbox: io/sandbox's policy — the bwrap command line built from a
 * spec (what is bound read-only, writable, hidden, pinned; the network
 * flag), what happens after a command (placeholders and created protected
 * files removed), the hint given once, and perm's use of it: in auto-edit a
 * confining sandbox lets a writing bash command run, deny and ask rules
 * still win, mode ask still asks, no mechanism asks.  The perm part needs
 * a working bwrap: where it cannot run the test fails unless
 * HEARTH_TEST_NO_BWRAP=1.  The landlock path (bwrap left out) runs for real
 * in a forked child: it needs a kernel with landlock, else the test fails
 * unless HEARTH_TEST_NO_LANDLOCK=1.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "io/sandbox.h"
#include "llm/tool.h"
#include "perm/perm.h"

static char base[64];

static void
mk(const char *rel, int dir)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", base, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
		return;
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(base, sizeof base, "/tmp/test_sandbox.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	mk("ws", 1);
	mk("home", 1);
	mk("home/.ssh", 1);
	mk("home/.netrc", 0);
	mk("sb", 1);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* Index of the first place where the words w... follow each other in v, or -1. */
static long
seq(const struct sandbox_strv *v, const char *a, const char *b, const char *c)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], a) && (!b || (i + 1 < v->n && !strcmp(v->v[i + 1], b))) &&
		    (!c || (i + 2 < v->n && !strcmp(v->v[i + 2], c))))
			return (long)i;
	return -1;
}

static int
has(const struct sandbox_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

static char *
P(const char *rel)
{
	static char bufs[8][256];
	static int k;

	k = (k + 1) % 8;
	snprintf(bufs[k], sizeof bufs[k], "%s/%s", base, rel);
	return bufs[k];
}

/* A repository workspace: .git pinned, config and hooks read-only, .hearth a placeholder, .mcp.json watched. */
static void
test_bwrap_argv_repo(void **state)
{
	const char *cmd[] = { "/bin/sh", "-c", "x", NULL };
	const char *hide[] = { P("home/.ssh"), P("home/.netrc"), P("home/.aws"), base, P("home/.kube"), NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_strv argv = { 0 }, made = { 0 }, absent = { 0 };
	const char *protect[] = { ".git/config", ".git/hooks/", ".hearth/", ".mcp.json", NULL };
	const char *pin[] = { ".git", NULL };
	char ws[256], sb[256], cfg[300], hooks[300], hearth[300], mcp[300], gitd[300], empty[300], emptyd[300];
	long i_root, i_ws, i_pin, i_cfg;

	(void)state;
	mk("ws/.git", 1);
	mk("ws/.git/config", 0);
	mk("ws/.git/hooks", 1);
	assert_int_equal(symlink(P("home/.ssh"), P("home/.kube")), 0); /* a link to a directory */
	snprintf(ws, sizeof ws, "%s/ws", base);
	snprintf(sb, sizeof sb, "%s/sb", base);
	snprintf(cfg, sizeof cfg, "%s/.git/config", ws);
	snprintf(hooks, sizeof hooks, "%s/.git/hooks", ws);
	snprintf(hearth, sizeof hearth, "%s/.hearth", ws);
	snprintf(mcp, sizeof mcp, "%s/.mcp.json", ws);
	snprintf(gitd, sizeof gitd, "%s/.git", ws);
	snprintf(empty, sizeof empty, "%s/empty", sb);
	snprintf(emptyd, sizeof emptyd, "%s/emptydir", sb);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = ws;
	spec.hide = hide;
	spec.protect = protect;
	spec.pin = pin;
	sandbox_bwrap_argv(&spec, sb, cmd, &argv, &made, &absent);

	assert_string_equal(argv.v[0], "bwrap");
	assert_null(argv.v[argv.n]);
	assert_true(seq(&argv, "--die-with-parent", NULL, NULL) >= 0);
	assert_true(seq(&argv, "--new-session", NULL, NULL) >= 0);
	assert_true(seq(&argv, "--unshare-all", NULL, NULL) >= 0);
	assert_true(seq(&argv, "--share-net", NULL, NULL) < 0);
	assert_true(seq(&argv, "--cap-drop", "ALL", NULL) >= 0);
	assert_true(seq(&argv, "--dev", "/dev", NULL) >= 0);
	assert_true(seq(&argv, "--proc", "/proc", NULL) >= 0);
	i_root = seq(&argv, "--ro-bind", "/", "/");
	i_ws = seq(&argv, "--bind", ws, ws);
	i_pin = seq(&argv, "--bind", gitd, gitd);
	i_cfg = seq(&argv, "--ro-bind", cfg, cfg);
	assert_true(i_root >= 0 && i_ws > i_root && i_pin > i_ws && i_cfg > i_pin);
	assert_true(seq(&argv, "--ro-bind", hooks, hooks) > i_pin);
	assert_true(seq(&argv, "--ro-bind", emptyd, hearth) > i_ws);
	assert_true(seq(&argv, "--tmpfs", P("home/.ssh"), NULL) > i_root);
	assert_true(seq(&argv, "--remount-ro", P("home/.ssh"), NULL) > i_root);
	assert_true(seq(&argv, "--ro-bind", empty, P("home/.netrc")) > i_root);
	assert_false(has(&argv, P("home/.aws")));             /* missing: nothing to hide */
	assert_true(seq(&argv, "--tmpfs", P("home/.kube"), NULL) > i_root); /* covered as what it points to */
	assert_true(seq(&argv, "--tmpfs", base, NULL) < 0);    /* an ancestor of the workspace is never hidden */
	{
		char tmpsrc[300];

		snprintf(tmpsrc, sizeof tmpsrc, "%s/tmp", sb);
		assert_true(seq(&argv, "--bind", tmpsrc, "/tmp") > i_root);
	}
	assert_true(seq(&argv, "--", "/bin/sh", "-c") == (long)argv.n - 4);
	assert_int_equal(made.n, 1);
	assert_string_equal(made.v[0], hearth);
	assert_int_equal(absent.n, 1);
	assert_string_equal(absent.v[0], mcp);
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);

	/* network on; read-only: the workspace bound read-only, nothing else to protect */
	spec.network = 1;
	spec.mode = SANDBOX_READ_ONLY;
	sandbox_bwrap_argv(&spec, sb, cmd, &argv, &made, &absent);
	assert_true(seq(&argv, "--share-net", NULL, NULL) >= 0);
	assert_true(seq(&argv, "--ro-bind", ws, ws) >= 0);
	assert_true(seq(&argv, "--bind", ws, ws) < 0);
	assert_true(seq(&argv, "--ro-bind", emptyd, hearth) < 0);
	assert_int_equal(made.n + absent.n, 0);
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);
}

/*
 * More writable dirs (sandbox.writable) are bound writable in
 * workspace-write mode, every one of them, and only directories that
 * exist; read-only mode binds none of them.
 */
static void
test_bwrap_argv_writable(void **state)
{
	const char *cmd[] = { "/bin/sh", "-c", "x", NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_strv argv = { 0 }, made = { 0 }, absent = { 0 };
	const char *w[5];
	char ws[256], sb[256], d1[300], d2[300], f[300], gone[300];

	(void)state;
	mk("w1", 1);
	mk("w2", 1);
	mk("wf", 0);
	snprintf(ws, sizeof ws, "%s/ws", base);
	snprintf(sb, sizeof sb, "%s/sb", base);
	snprintf(d1, sizeof d1, "%s/w1", base);
	snprintf(d2, sizeof d2, "%s/w2", base);
	snprintf(f, sizeof f, "%s/wf", base);
	snprintf(gone, sizeof gone, "%s/nowhere", base);
	w[0] = d1;
	w[1] = f;
	w[2] = gone;
	w[3] = d2;
	w[4] = NULL;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = ws;
	spec.writable = w;
	sandbox_bwrap_argv(&spec, sb, cmd, &argv, &made, &absent);
	assert_true(seq(&argv, "--bind", d1, d1) >= 0);
	assert_true(seq(&argv, "--bind", d2, d2) >= 0);
	assert_false(has(&argv, f));                     /* a file is not a dir */
	assert_false(has(&argv, gone));                  /* nor is a missing path */
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);
	spec.mode = SANDBOX_READ_ONLY;
	sandbox_bwrap_argv(&spec, sb, cmd, &argv, &made, &absent);
	assert_false(has(&argv, d1));
	assert_false(has(&argv, d2));
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);
}

/* No repository: a .git the command makes is removed after it; nothing is created under a missing .git. */
static void
test_bwrap_argv_no_repo(void **state)
{
	const char *cmd[] = { "true", NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_strv argv = { 0 }, made = { 0 }, absent = { 0 };
	char ws[256];
	size_t i;

	(void)state;
	snprintf(ws, sizeof ws, "%s/ws", base);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = ws;
	{
		struct sandbox *sb = sandbox_new(&spec); /* the defaults */
		(void)sb;
		sandbox_free(sb);
	}
	{
		static const char *const protect[] = { ".git/config", ".git/hooks/", ".hearth/", ".mcp.json", NULL };
		static const char *const pin[] = { ".git", NULL };
		static const char *const none[] = { NULL };

		spec.protect = protect;
		spec.pin = pin;
		spec.hide = none;
	}
	sandbox_bwrap_argv(&spec, "/nonexistent-sb", cmd, &argv, &made, &absent);
	for (i = 0; i < argv.n; i++)
		assert_null(strstr(argv.v[i], "/.git/"));
	assert_int_equal(absent.n, 2);
	assert_true(has(&absent, P("ws/.git")));
	assert_true(has(&absent, P("ws/.mcp.json")));
	assert_int_equal(made.n, 1);
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);
}

static void
test_modes(void **state)
{
	enum sandbox_mode m;

	(void)state;
	assert_int_equal(sandbox_mode_parse("workspace-write", &m), 0);
	assert_int_equal(m, SANDBOX_WORKSPACE_WRITE);
	assert_int_equal(sandbox_mode_parse("read-only", &m), 0);
	assert_int_equal(m, SANDBOX_READ_ONLY);
	assert_int_equal(sandbox_mode_parse("off", &m), 0);
	assert_int_equal(m, SANDBOX_OFF);
	assert_int_equal(sandbox_mode_parse("on", &m), -1);
	assert_int_equal(sandbox_mode_parse(NULL, &m), -1);
	assert_string_equal(sandbox_mode_name(SANDBOX_READ_ONLY), "read-only");
}

/* Whether bwrap is expected to work; a failure to run it fails the test unless declared. */
static int
bwrap_expected(void)
{
	const char *no = getenv("HEARTH_TEST_NO_BWRAP");

	return !(no && !strcmp(no, "1"));
}

/* perm_check of a bash command; why (NULL: not wanted) gets the reason. */
static enum perm_verdict
check_cmd_why(struct perm *p, const char *cmd, struct buf *why)
{
	cJSON *args = cJSON_CreateObject();
	struct buf w = BUF_INIT;
	enum perm_verdict v;

	cJSON_AddStringToObject(args, "command", cmd);
	v = perm_check(p, tool_find("bash"), args, P("ws"), why ? why : &w);
	buf_release(&w);
	cJSON_Delete(args);
	return v;
}

static enum perm_verdict
check_cmd(struct perm *p, const char *cmd)
{
	return check_cmd_why(p, cmd, NULL);
}

/* perm: auto-edit runs a writing command in a confining sandbox; rules and mode ask still apply. */
static void
test_perm_with_sandbox(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct perm p;
	struct err e = ERR_INIT;
	struct buf d = BUF_INIT;

	(void)state;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	sb = sandbox_new(&spec);
	sandbox_probe_start(sb);
	perm_init(&p);
	p.sandbox = sb;
	if (sandbox_kind(sb) != SANDBOX_BWRAP) {
		if (bwrap_expected())
			fail_msg("bwrap does not work here (%s); set HEARTH_TEST_NO_BWRAP=1 on a machine that cannot run it",
				 sandbox_why_none(sb));
		sandbox_free(sb);
		perm_release(&p);
		return;
	}
	assert_true(sandbox_confines(sb));
	sandbox_describe(sb, &d);
	assert_string_equal(d.data, "workspace-write (bwrap)");
	assert_int_equal(check_cmd(&p, "touch made.txt && rm -rf build"), PERM_ALLOW);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_DENY, "bash(rm -rf*)", &e), 0);
	assert_int_equal(perm_add_rule(&p, PERM_LIST_ASK, "bash(git push*)", &e), 0);
	assert_int_equal(check_cmd(&p, "touch made.txt && rm -rf build"), PERM_DENY);
	assert_int_equal(check_cmd(&p, "git push origin"), PERM_QUESTION);
	p.mode = PERM_ASK;
	assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_QUESTION);
	p.mode = PERM_YOLO;
	assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_ALLOW);
	p.mode = PERM_AUTO_EDIT;
	p.sandbox = NULL;
	assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_QUESTION);
	perm_release(&p);
	sandbox_free(sb);
	buf_release(&d);
}

/* No mechanism (both left out): asks, says why; mode off: describes "off" and does not confine. */
static void
test_perm_without_sandbox(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct perm p;
	struct buf d = BUF_INIT;

	(void)state;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.no_bwrap = spec.no_landlock = 1;
	sb = sandbox_new(&spec);
	perm_init(&p);
	p.sandbox = sb;
	assert_int_equal(sandbox_kind(sb), SANDBOX_NONE);
	assert_false(sandbox_confines(sb));
	assert_true(strlen(sandbox_why_none(sb)) > 0);
	sandbox_describe(sb, &d);
	assert_string_equal(d.data, "none: asking");
	assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_QUESTION);
	assert_int_equal(check_cmd(&p, "ls -la"), PERM_ALLOW);
	/* Issue 20: the question says the sandbox does not confine it in auto-edit
	 * only (in mode ask a sandbox would not let it run either) */
	buf_reset(&d);
	assert_int_equal(check_cmd_why(&p, "touch made.txt", &d), PERM_QUESTION);
	assert_string_equal(d.data, "a bash command not known to be read-only, and the sandbox (none) does not confine it");
	p.mode = PERM_ASK;
	buf_reset(&d);
	assert_int_equal(check_cmd_why(&p, "touch made.txt", &d), PERM_QUESTION);
	assert_string_equal(d.data, "a bash command not known to be read-only");
	p.mode = PERM_AUTO_EDIT;
	sandbox_free(sb);

	spec.mode = SANDBOX_OFF;
	spec.no_bwrap = spec.no_landlock = 0;
	sb = sandbox_new(&spec);
	p.sandbox = sb;
	buf_reset(&d);
	sandbox_describe(sb, &d);
	assert_string_equal(d.data, "off");
	assert_string_equal(sandbox_why_none(sb), "");
	buf_reset(&d);
	assert_int_equal(check_cmd_why(&p, "touch made.txt", &d), PERM_QUESTION);
	assert_string_equal(d.data, "a bash command not known to be read-only"); /* off: no sandbox to name */
	sandbox_free(sb);

	/* landlock confines only in read-only mode: the protected paths are writable under it */
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.no_bwrap = 1;
	sb = sandbox_new(&spec);
	p.sandbox = sb;
	if (sandbox_kind(sb) == SANDBOX_LANDLOCK) {
		assert_false(sandbox_confines(sb));
		assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_QUESTION);
	}
	sandbox_free(sb);
	spec.mode = SANDBOX_READ_ONLY;
	sb = sandbox_new(&spec);
	p.sandbox = sb;
	if (sandbox_kind(sb) == SANDBOX_LANDLOCK)
		assert_int_equal(check_cmd(&p, "touch made.txt"), PERM_ALLOW);
	sandbox_free(sb);
	perm_release(&p);
	buf_release(&d);
}

/* After a command: a placeholder dir goes, a protected file the command made goes (and is reported). */
static void
test_after(void **state)
{
	struct sandbox_cmd c;
	struct buf notes = BUF_INIT;
	struct stat st;

	(void)state;
	memset(&c, 0, sizeof c);
	c.ruleset_fd = -1;
	mk("ws/.hearth", 1);
	mk("ws/.mcp.json", 0);
	sandbox_strv_add(&c.made, P("ws/.hearth"));
	sandbox_strv_add(&c.absent, P("ws/.mcp.json"));
	sandbox_strv_add(&c.absent, P("ws/.never"));
	sandbox_after(NULL, &c, &notes);
	assert_int_equal(lstat(P("ws/.hearth"), &st), -1);
	assert_int_equal(lstat(P("ws/.mcp.json"), &st), -1);
	assert_non_null(strstr(notes.data, ".mcp.json"));
	assert_null(strstr(notes.data, ".never"));
	/* a placeholder that is not empty any more (it never is: it was a read-only mount) stays */
	mk("ws/.hearth", 1);
	mk("ws/.hearth/keep", 0);
	sandbox_after(NULL, &c, &notes);
	assert_int_equal(lstat(P("ws/.hearth/keep"), &st), 0);
	sandbox_cmd_release(&c);
	buf_release(&notes);
}

/* The hint: once, only when the output shows a refused write. */
static void
test_hint_once(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct buf out = BUF_INIT;
	const char *ro = "sh: 1: cannot create .git/config: Read-only file system\n";

	(void)state;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) != SANDBOX_BWRAP) {
		if (bwrap_expected())
			fail_msg("bwrap does not work here (%s)", sandbox_why_none(sb));
		sandbox_free(sb);
		return;
	}
	assert_int_equal(sandbox_hint(sb, "all fine\n", 9, &out), 0);
	assert_int_equal(sandbox_hint(sb, ro, strlen(ro), &out), 1);
	assert_non_null(strstr(out.data, "only the workspace"));
	assert_non_null(strstr(out.data, "\"sandbox\" setting"));
	assert_int_equal(sandbox_hint(sb, ro, strlen(ro), &out), 0);
	sandbox_free(sb);
	buf_release(&out);
}

/* Issue 20: what the sandbox says of itself (/permissions shows it). */
static void
test_network_and_probed(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;

	(void)state;
	assert_int_equal(sandbox_network(NULL), 0);
	assert_int_equal(sandbox_probed(NULL), 1);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_network(sb), 0);         /* no network unless the settings say so */
	sandbox_kind(sb);
	assert_int_equal(sandbox_probed(sb), 1);
	sandbox_free(sb);
	spec.network = 1;
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_network(sb), 1);
	sandbox_free(sb);
	spec.mode = SANDBOX_OFF;
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_probed(sb), 1);          /* nothing to probe */
	assert_int_equal(sandbox_kind(sb), SANDBOX_NONE);
	sandbox_free(sb);
}

/* The network for one approved command: the grant goes into that wrap only. */
static void
test_grant_network(void **state)
{
	const char *cmd[] = { "true", NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_cmd c;
	struct sandbox *sb;
	struct err e = ERR_INIT;
	size_t i;
	int net;

	(void)state;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) != SANDBOX_BWRAP) {
		if (bwrap_expected())
			fail_msg("bwrap does not work here (%s)", sandbox_why_none(sb));
		sandbox_free(sb);
		return;
	}
	sandbox_grant_network(sb, 1);
	assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), 0);
	/* inside bwrap the private temp dir is bound at /tmp */
	assert_int_equal(c.env.n, 1);
	assert_string_equal(c.env.v[0], "TMPDIR=/tmp");
	for (i = 0, net = 0; i < c.argv.n; i++)
		net |= !strcmp(c.argv.v[i], "--share-net");
	assert_true(net);
	sandbox_cmd_release(&c);
	assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), 0);
	for (i = 0, net = 0; i < c.argv.n; i++)
		net |= !strcmp(c.argv.v[i], "--share-net");
	assert_false(net);
	sandbox_cmd_release(&c);
	sandbox_grant_network(sb, 1);
	sandbox_grant_network(sb, 0); /* withdrawn (the gate does this at every call) */
	assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), 0);
	for (i = 0, net = 0; i < c.argv.n; i++)
		net |= !strcmp(c.argv.v[i], "--share-net");
	assert_false(net);
	sandbox_cmd_release(&c);
	sandbox_free(sb);
}

/* Allowed by a rule, not by being read-only: what earns an approved command its network. */
static void
test_allowed_by_rule(void **state)
{
	struct perm p;
	struct err e = ERR_INIT;
	cJSON *args = cJSON_CreateObject();

	(void)state;
	perm_init(&p);
	cJSON_AddStringToObject(args, "command", "npm install && ls");
	assert_false(perm_allowed_by_rule(&p, tool_find("bash"), args, P("ws")));
	assert_int_equal(perm_add_rule(&p, PERM_LIST_ALLOW, "bash(npm install:*)", &e), 0);
	assert_false(perm_allowed_by_rule(&p, tool_find("bash"), args, P("ws"))); /* ls: read-only, not a rule */
	assert_int_equal(perm_add_rule(&p, PERM_LIST_SESSION, "bash(ls)", &e), 0);
	assert_true(perm_allowed_by_rule(&p, tool_find("bash"), args, P("ws")));
	/* one simple command covered by a rule is allowed by it (issue 20: not only two) */
	cJSON_ReplaceItemInObject(args, "command", cJSON_CreateString("npm install left-pad"));
	assert_true(perm_allowed_by_rule(&p, tool_find("bash"), args, P("ws")));
	cJSON_Delete(args);
	perm_release(&p);
}

/* ---- landlock, forced (no bwrap): what a wrapped command may really do ---- */

enum ll_op { LL_CREATE, LL_TRUNCATE, LL_RENAME, LL_TCP, LL_UNIX, LL_SIGNAL };

/*
 * Enter c's ruleset in a child (as proc does between fork and exec) and
 * try one thing there: 0 when it works, 1 when landlock refuses it (EACCES,
 * EPERM), 2 on any other error, 3 when the ruleset cannot be entered.
 */
static int
ll_try(struct sandbox_cmd *c, enum ll_op op, const char *path, int port)
{
	pid_t pid = fork();
	int st, fd, rc = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (c->pre_exec && c->pre_exec(c->pre_exec_arg) < 0)
			_exit(3);
		if (op == LL_CREATE) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			rc = fd < 0 ? -1 : 0;
		} else if (op == LL_TRUNCATE) {
			rc = truncate(path, 0);
		} else if (op == LL_RENAME) { /* into a subdirectory "d" of path's directory */
			char to[512];
			const char *slash = strrchr(path, '/');

			snprintf(to, sizeof to, "%.*s/d%s", (int)(slash - path), path, slash);
			rc = rename(path, to);
		} else if (op == LL_TCP) {
			struct sockaddr_in a;

			memset(&a, 0, sizeof a);
			a.sin_family = AF_INET;
			a.sin_port = htons((uint16_t)port);
			a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			fd = socket(AF_INET, SOCK_STREAM, 0);
			rc = connect(fd, (struct sockaddr *)&a, sizeof a);
		} else if (op == LL_UNIX) {
			struct sockaddr_un a;

			memset(&a, 0, sizeof a);
			a.sun_family = AF_UNIX;
			memcpy(a.sun_path + 1, path, strlen(path));
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			rc = connect(fd, (struct sockaddr *)&a,
				     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path)));
		} else {
			rc = kill(getppid(), 0);
		}
		_exit(rc == 0 ? 0 : errno == EACCES || errno == EPERM ? 1 : 2);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * Fill the stack below the caller with ones, so that a struct the callee
 * forgets to clear is garbage, not the zeroes of a fresh stack.
 */
static void __attribute__((noinline))
dirty_stack(void)
{
	volatile unsigned char junk[32768];
	size_t i;

	for (i = 0; i < sizeof junk; i++)
		junk[i] = 0xff;
}

/*
 * Wrap "sh -c x" under landlock.  A kernel without landlock (the syscall
 * says ENOSYS or EOPNOTSUPP) returns -1 and the caller skips the test,
 * reported as skipped; one that has it must give it to hearth
 * (HEARTH_TEST_NO_LANDLOCK=1 returns -1 too, for a machine where it is
 * there but refused).
 */
static int
ll_wrap(struct sandbox *sb, struct sandbox_cmd *c)
{
	const char *cmd[] = { "/bin/sh", "-c", "x", NULL };
	const char *no = getenv("HEARTH_TEST_NO_LANDLOCK");
	struct err e = ERR_INIT;

	if (sandbox_kind(sb) != SANDBOX_LANDLOCK) {
		if (no && !strcmp(no, "1"))
			return -1;
#ifdef SYS_landlock_create_ruleset
		errno = 0;
		if (syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */) < 0 &&
		    (errno == ENOSYS || errno == EOPNOTSUPP)) {
			print_message("landlock is not in this kernel (%s): skipped\n", strerror(errno));
			return -1; /* the caller frees what it holds and skips */
		}
#endif
		fail_msg("landlock does not work here (%s); set HEARTH_TEST_NO_LANDLOCK=1 on a kernel without it",
			 sandbox_why_none(sb));
	}
	dirty_stack();
	if (sandbox_wrap(sb, cmd, c, &e) < 0)
		fail_msg("sandbox_wrap: %s", e.msg);
	/* the command itself, as given: landlock confines it from inside, no wrapper */
	assert_int_equal(c->argv.n, 3);
	assert_string_equal(c->argv.v[0], "/bin/sh");
	assert_string_equal(c->argv.v[2], "x");
	assert_null(c->argv.v[3]);
	assert_true(c->ruleset_fd >= 0);
	assert_true(fcntl(c->ruleset_fd, F_GETFD) & FD_CLOEXEC); /* not inherited by the command */
	assert_non_null(c->pre_exec);
	return 0;
}

/* The private temp dir of a wrapped command (its TMPDIR=...), appended with name. */
static const char *
ll_tmp(const struct sandbox_cmd *c, const char *name)
{
	static char p[512];

	assert_int_equal(c->env.n, 1);
	assert_memory_equal(c->env.v[0], "TMPDIR=/", 8);
	snprintf(p, sizeof p, "%s/%s", c->env.v[0] + 7, name);
	return p;
}

/*
 * Issue 20: the landlock path, run for real (bwrap left out): workspace-write
 * lets a command write in the workspace, the extra writable dirs (a missing
 * one is no error), its temp dir and /dev/null, and nowhere else; read-only
 * only in its temp dir and /dev/null; no TCP and no abstract unix socket
 * without network (the setting, or a grant for one command); no signal to
 * hearth ever.
 */
static void
test_landlock_confines(void **state)
{
	char ws[256], extra[256], gone[256], netrc[256];
	const char *writable[] = { extra, gone, netrc, NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_cmd c, none = { 0 };
	struct sandbox *sb;
	struct sockaddr_in a;
	struct sockaddr_un u;
	socklen_t alen = sizeof a;
	char uname[64];
	int lfd, ufd, port;

	(void)state;
	snprintf(ws, sizeof ws, "%s/ws", base);
	snprintf(extra, sizeof extra, "%s/extra", base);
	snprintf(gone, sizeof gone, "%s/gone", base);
	snprintf(netrc, sizeof netrc, "%s/home/.netrc", base);
	mk("extra", 1);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &alen), 0);
	port = ntohs(a.sin_port);
	snprintf(uname, sizeof uname, "hearth-test-sandbox-%ld", (long)getpid());
	ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&u, 0, sizeof u);
	u.sun_family = AF_UNIX;
	memcpy(u.sun_path + 1, uname, strlen(uname));
	assert_int_equal(bind(ufd, (struct sockaddr *)&u,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(uname))), 0);
	assert_int_equal(listen(ufd, 8), 0);

	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = ws;
	spec.writable = writable;
	spec.no_bwrap = 1;
	sb = sandbox_new(&spec);
	if (ll_wrap(sb, &c) < 0) {
		sandbox_free(sb);
		close(lfd);
		close(ufd);
		skip();
	}
	/* without the ruleset everything below works: what fails under it, it refused */
	assert_int_equal(ll_try(&none, LL_CREATE, P("home/made"), 0), 0);
	assert_int_equal(ll_try(&none, LL_TCP, NULL, port), 0);
	assert_int_equal(ll_try(&none, LL_UNIX, uname, 0), 0);
	assert_int_equal(ll_try(&none, LL_SIGNAL, NULL, 0), 0);

	assert_int_equal(ll_try(&c, LL_CREATE, P("ws/new.c"), 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, P("extra/new"), 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, ll_tmp(&c, "t"), 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, "/dev/null", 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, P("home/.netrc"), 0), 0); /* a writable file: written */
	assert_int_equal(ll_try(&c, LL_CREATE, P("home/other"), 0), 1);
	assert_int_equal(ll_try(&c, LL_CREATE, P("made"), 0), 1);
	/* moving a file into another directory of the workspace (landlock's "refer" right) */
	mk("ws/d", 1);
	mk("ws/mv", 0);
	assert_int_equal(ll_try(&c, LL_RENAME, P("ws/mv"), 0), 0);
	/* truncating: in the workspace yes, outside no */
	mk("home/keep", 0);
	assert_int_equal(ll_try(&none, LL_CREATE, P("home/keep"), 0), 0);
	assert_int_equal(ll_try(&c, LL_TRUNCATE, P("ws/d/mv"), 0), 0);
	assert_int_equal(ll_try(&c, LL_TRUNCATE, P("home/keep"), 0), 1);
	assert_int_equal(ll_try(&c, LL_TCP, NULL, port), 1);
	assert_int_equal(ll_try(&c, LL_UNIX, uname, 0), 1);
	assert_int_equal(ll_try(&c, LL_SIGNAL, NULL, 0), 1);
	sandbox_cmd_release(&c);
	assert_int_equal(c.ruleset_fd, -1);

	/* a grant: the network for the next command only; signals stay refused */
	sandbox_grant_network(sb, 1);
	assert_int_equal(ll_wrap(sb, &c), 0);
	assert_int_equal(ll_try(&c, LL_TCP, NULL, port), 0);
	assert_int_equal(ll_try(&c, LL_UNIX, uname, 0), 0);
	assert_int_equal(ll_try(&c, LL_SIGNAL, NULL, 0), 1);
	assert_int_equal(ll_try(&c, LL_CREATE, P("home/other"), 0), 1);
	sandbox_cmd_release(&c);
	assert_int_equal(ll_wrap(sb, &c), 0);
	assert_int_equal(ll_try(&c, LL_TCP, NULL, port), 1);
	sandbox_cmd_release(&c);
	sandbox_free(sb);

	/* the network setting: on for every command */
	spec.network = 1;
	sb = sandbox_new(&spec);
	assert_int_equal(ll_wrap(sb, &c), 0);
	assert_int_equal(ll_try(&c, LL_TCP, NULL, port), 0);
	assert_int_equal(ll_try(&c, LL_UNIX, uname, 0), 0);
	assert_int_equal(ll_try(&c, LL_SIGNAL, NULL, 0), 1);
	assert_int_equal(ll_try(&c, LL_CREATE, P("home/other"), 0), 1);
	sandbox_cmd_release(&c);
	sandbox_free(sb);

	/* read-only: the temp dir and /dev/null, not the workspace nor the extra dirs */
	spec.network = 0;
	spec.mode = SANDBOX_READ_ONLY;
	sb = sandbox_new(&spec);
	assert_int_equal(ll_wrap(sb, &c), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, ll_tmp(&c, "t"), 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, "/dev/null", 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, P("ws/new.c"), 0), 1);
	assert_int_equal(ll_try(&c, LL_CREATE, P("extra/new2"), 0), 1);
	assert_int_equal(ll_try(&c, LL_TCP, NULL, port), 1);
	sandbox_cmd_release(&c);
	sandbox_free(sb);

	/*
	 * a writable dir that cannot be opened (not missing: a file on its way)
	 * or that landlock cannot take (nsfs) fails the wrap with a message
	 */
	{
		char in[256];
		const char *bad[] = { in, NULL };
		const char *cmd[] = { "true", NULL };
		struct err e = ERR_INIT;

		spec.mode = SANDBOX_WORKSPACE_WRITE;
		spec.writable = bad;
		snprintf(in, sizeof in, "%s/home/.netrc/in", base);
		sb = sandbox_new(&spec);
		assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), -1);
		assert_non_null(strstr(e.msg, "landlock rule"));
		assert_int_equal(c.ruleset_fd, -1);
		sandbox_free(sb);
		err_clear(&e);
		snprintf(in, sizeof in, "/proc/self/ns/net");
		sb = sandbox_new(&spec);
		assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), -1);
		assert_non_null(strstr(e.msg, "landlock rule"));
		assert_int_equal(c.ruleset_fd, -1);
		sandbox_free(sb);
		err_clear(&e);
	}
	close(lfd);
	close(ufd);
}

/*
 * Issue 20: wrapping with no mechanism copies the command and releasing it
 * closes nothing of the caller's (stdin stays open); a private directory
 * that cannot be made (TMPDIR names a missing directory) fails the wrap
 * with a message instead of running the command unconfined.
 */
static void
test_wrap_none_and_no_dir(void **state)
{
	const char *cmd[] = { "true", NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_cmd c;
	struct sandbox *sb;
	struct err e = ERR_INIT;
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL, missing[128];

	(void)state;
	if (fcntl(0, F_GETFD) < 0)
		assert_int_equal(open("/dev/null", O_RDONLY), 0);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.no_bwrap = spec.no_landlock = 1;
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), 0);
	assert_int_equal(c.argv.n, 1);
	assert_string_equal(c.argv.v[0], "true");
	assert_int_equal(c.ruleset_fd, -1);
	assert_null(c.pre_exec);
	sandbox_cmd_release(&c);
	assert_true(fcntl(0, F_GETFD) >= 0);
	sandbox_free(sb);

	snprintf(missing, sizeof missing, "%s/missing", base);
	setenv("TMPDIR", missing, 1);
	spec.no_bwrap = 0;
	spec.no_landlock = 0;
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) != SANDBOX_NONE) {
		assert_int_equal(sandbox_wrap(sb, cmd, &c, &e), -1);
		assert_non_null(strstr(e.msg, "create a private directory"));
		err_clear(&e);
	}
	sandbox_free(sb);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bwrap_argv_repo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bwrap_argv_writable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bwrap_argv_no_repo, setup, teardown),
		cmocka_unit_test(test_modes),
		cmocka_unit_test_setup_teardown(test_perm_with_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perm_without_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grant_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allowed_by_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_network_and_probed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_landlock_confines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrap_none_and_no_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

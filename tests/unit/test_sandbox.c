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
 * unless HEARTH_TEST_NO_LANDLOCK=1.  The probe and what a wrap makes
 * (hidden defaults, the private directory, hints) run against fake bwrap
 * scripts (spec.bwrap) that fail, hang or succeed as a test needs.
 */
#define _GNU_SOURCE /* pthread_setattr_default_np, unshare */
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
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "io/sandbox.h"
#include "llm/tool.h"
#include "perm/perm.h"
#include "testutil.h"

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
	/* Issue 20: the names the status line shows */
	assert_string_equal(sandbox_kind_name(SANDBOX_BWRAP), "bwrap");
	assert_string_equal(sandbox_kind_name(SANDBOX_LANDLOCK), "landlock");
	assert_string_equal(sandbox_kind_name(SANDBOX_NONE), "none");
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
	int lfd, ufd, port, fd;

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
	fd = c.ruleset_fd;
	sandbox_cmd_release(&c);
	assert_int_equal(c.ruleset_fd, -1);
	assert_int_equal(fcntl(fd, F_GETFD), -1); /* the ruleset closed */

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

	/* no more writable dirs (the setting's default) */
	spec.network = 0;
	spec.writable = NULL;
	sb = sandbox_new(&spec);
	assert_int_equal(ll_wrap(sb, &c), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, P("ws/new2.c"), 0), 0);
	assert_int_equal(ll_try(&c, LL_CREATE, P("extra/new3"), 0), 1);
	sandbox_cmd_release(&c);
	sandbox_free(sb);
	spec.writable = writable;

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

/* ---- Issue 20: the probe, the defaults and the private directory, with a fake bwrap ---- */

/* Write base/name, an executable shell script with body; its path. */
static const char *
fake_bwrap(const char *name, const char *body)
{
	static char path[300];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", base, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* The lowest free file descriptor (what the next open() gets). */
static int
lowest_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Probe with bwrap = prog (landlock left out, so a failed probe says why
 * in full); the kind, and why into why[n].  No descriptor is left open.
 */
static enum sandbox_kind
probe_with(const char *prog, int probe_ms, char *why, size_t n)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	enum sandbox_kind k;
	int fd0 = lowest_fd();

	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.bwrap = prog;
	spec.no_landlock = 1;
	spec.probe_ms = probe_ms;
	sb = sandbox_new(&spec);
	k = sandbox_kind(sb);
	snprintf(why, n, "%s", sandbox_why_none(sb));
	sandbox_free(sb);
	assert_int_equal(lowest_fd(), fd0);
	return k;
}

/*
 * Issue 20: a bwrap that fails says why (its first line of output, from
 * stdout or stderr; or that it failed; or that it is missing), a bwrap
 * killed by a signal failed, one that hangs is killed at the limit and
 * reaped, and a bwrap whose status cannot be had (SIGCHLD ignored) does
 * not count as working.  The probe's bwrap reads /dev/null, not hearth's
 * stdin.
 */
static void
test_probe_failures(void **state)
{
	char why[300], nope[300];
	int pfd[2], in;
	double t0;

	(void)state;
	/* the delays let the probe see bwrap running before it ends, as a real one is */
	assert_int_equal(probe_with(fake_bwrap("bw1", "echo 'bwrap: setting up uid map: Permission denied' >&2\n"
							"echo more; sleep 0.1; exit 1"), 0, why, sizeof why),
			 SANDBOX_NONE);
	assert_string_equal(why, "bwrap cannot run here (bwrap: setting up uid map: Permission denied); "
				 "landlock: not used");
	assert_int_equal(probe_with(fake_bwrap("bw2", "printf x; sleep 0.1; exit 1"), 0, why, sizeof why), SANDBOX_NONE);
	assert_string_equal(why, "bwrap cannot run here (x); landlock: not used");
	assert_int_equal(probe_with(fake_bwrap("bw3", "sleep 0.1; exit 3"), 0, why, sizeof why), SANDBOX_NONE);
	assert_string_equal(why, "bwrap cannot run here (it failed); landlock: not used");
	assert_int_equal(probe_with(fake_bwrap("bw4", "sleep 0.1; kill -KILL $$"), 0, why, sizeof why), SANDBOX_NONE);
	assert_string_equal(why, "bwrap cannot run here (it failed); landlock: not used");
	snprintf(nope, sizeof nope, "%s/no-such-bwrap", base);
	assert_int_equal(probe_with(nope, 0, why, sizeof why), SANDBOX_NONE);
	assert_string_equal(why, "bwrap: No such file or directory (install the bubblewrap package); landlock: not used");

	/* a hanging bwrap: killed at the limit (not at its end), reaped, its pipe closed; tried twice */
	t0 = now_s();
	assert_int_equal(probe_with(fake_bwrap("bw5", "exec sleep 30"), 1, why, sizeof why), SANDBOX_NONE);
	assert_true(now_s() - t0 < 4);
	assert_string_equal(why, "bwrap did not finish within 1 ms, nor within 3 ms on a second try; "
				 "landlock: not used");
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	/*
	 * hangs the first time, then takes 0.75 s (a loaded machine): the
	 * second try, 3x as long as the 0.5 s limit, finds bwrap
	 */
	snprintf(nope, sizeof nope, "mkdir '%s/bw8.ran' 2>/dev/null && exec sleep 30; sleep 0.75; exit 0", base);
	assert_int_equal(probe_with(fake_bwrap("bw8", nope), 500, why, sizeof why), SANDBOX_BWRAP);
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);

	/* SIGCHLD ignored: the failed bwrap is reaped unseen; no status is no success */
	signal(SIGCHLD, SIG_IGN);
	assert_int_equal(probe_with(fake_bwrap("bw6", "sleep 0.1; exit 1"), 2000, why, sizeof why), SANDBOX_NONE);
	signal(SIGCHLD, SIG_DFL);
	assert_string_equal(why, "bwrap: wait: No child processes; landlock: not used");

	/* stdin: /dev/null for the probe even when hearth's is a pipe */
	assert_int_equal(pipe(pfd), 0);
	in = dup(0);
	assert_int_equal(dup2(pfd[0], 0), 0);
	assert_int_equal(probe_with(fake_bwrap("bw7", "[ \"$(readlink /proc/self/fd/0)\" = /dev/null ] || "
							"{ echo \"stdin: $(readlink /proc/self/fd/0)\"; exit 1; }"),
				    0, why, sizeof why),
			 SANDBOX_BWRAP);
	assert_int_equal(dup2(in, 0), 0);
	close(in);
	close(pfd[0]);
	close(pfd[1]);
}

/* Run fn in a child process; its exit status (0: all its checks held). */
static int
in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* No descriptor left (the limit at the lowest free one): the probe and the private directory fail and say why. */
static int
child_no_fds(void)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb, *sb2;
	struct sandbox_cmd c;
	struct err e = ERR_INIT;
	const char *cmd[] = { "true", NULL };
	struct rlimit rl;
	char tdir[300];

	snprintf(tdir, sizeof tdir, "%s/tdir", base);
	if (mkdir(tdir, 0700) < 0 || setenv("TMPDIR", tdir, 1) < 0)
		return 10;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.bwrap = P("bw-ok");
	spec.no_landlock = 1;
	sb = sandbox_new(&spec);
	sb2 = sandbox_new(&spec);
	if (sandbox_kind(sb2) != SANDBOX_BWRAP)
		return 11;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 12;
	rl.rlim_cur = (rlim_t)lowest_fd();
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 12;
	if (sandbox_kind(sb) != SANDBOX_NONE || strncmp(sandbox_why_none(sb), "bwrap: pipe: ", 13))
		return 13;
	if (sandbox_wrap(sb2, cmd, &c, &e) != -1 || !strstr(e.msg, "sandbox: create ") || !strstr(e.msg, "/empty"))
		return 14;
	return 0; /* (the half-made directory stays: removing it needs descriptors too; base/tdir goes with base) */
}

static void
test_probe_no_fds(void **state)
{
	(void)state;
	fake_bwrap("bw-ok", "exit 0");
	assert_int_equal(in_child(child_no_fds), 0);
}

/* Wait (10 s at most) until this process is back to n threads: the probe thread has ended. */
static void
wait_threads(int n)
{
	struct timespec ts = { 0, 1000 * 1000 };
	double t0 = now_s();

	while (tu_threads() != n) {
		assert_true(now_s() - t0 < 10);
		nanosleep(&ts, NULL);
	}
}

/* Lines in base/runs: how many times the counting fake bwrap ran. */
static int
runs(void)
{
	FILE *f = fopen(P("runs"), "r");
	int n = 0, ch;

	if (!f)
		return 0;
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/*
 * Issue 20: sandbox_probed never waits: 0 while the probe runs (or before
 * it started), 1 once its thread has ended, whichever way it ended.
 */
static void
test_probed_when_ended(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	char fifo[300], body[400];
	int n = tu_threads(), fd, i;

	(void)state;
	snprintf(fifo, sizeof fifo, "%s/fifo", base);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(body, sizeof body, "read x < '%s'; exit 0", fifo);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.bwrap = fake_bwrap("bw-fifo", body);
	spec.no_landlock = 1;
	spec.probe_ms = 10000;
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_probed(sb), 0); /* not started: not probed, and not started by asking */
	sandbox_probe_start(sb);
	assert_int_equal(sandbox_probed(sb), 0); /* bwrap waits for the fifo */
	fd = open(fifo, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	wait_threads(n);
	assert_int_equal(sandbox_probed(sb), 1);
	assert_int_equal(sandbox_kind(sb), SANDBOX_BWRAP);
	sandbox_free(sb);

	/* bwrap left out: landlock (where the kernel has it) or nothing; ended either way */
	for (i = 0; i < 2; i++) {
		spec.no_bwrap = 1;
		spec.no_landlock = i;
		sb = sandbox_new(&spec);
		sandbox_probe_start(sb);
		wait_threads(n);
		assert_int_equal(sandbox_probed(sb), 1);
		sandbox_free(sb);
	}
}

/*
 * Issue 20: the probe runs once: starting it again (while it runs, or
 * after) does nothing, mode off never runs it, NULL is no sandbox; and it
 * runs once when no thread can be made (then in the caller).  What the
 * sandbox says of itself under each mechanism.
 */
static int
child_no_thread(void)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	pthread_attr_t a;

	if (pthread_attr_init(&a) || pthread_attr_setstacksize(&a, (size_t)1 << 62) || pthread_setattr_default_np(&a))
		return 10;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.bwrap = P("bw-count");
	sb = sandbox_new(&spec);
	sandbox_probe_start(sb); /* no thread: probes here and now */
	if (runs() != 1)
		return 13;
	if (sandbox_kind(sb) != SANDBOX_BWRAP || sandbox_kind(sb) != SANDBOX_BWRAP)
		return 11;
	sandbox_free(sb);
	return runs() == 1 ? 0 : 12;
}

static void
test_probe_once(void **state)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct buf d = BUF_INIT;
	char body[400];

	(void)state;
	sandbox_probe_start(NULL);
	sandbox_free(NULL);
	snprintf(body, sizeof body, "echo run >> '%s'; exit 0", P("runs"));
	spec.root = P("ws");
	spec.bwrap = fake_bwrap("bw-count", body);
	spec.mode = SANDBOX_OFF;
	sb = sandbox_new(&spec);
	sandbox_probe_start(sb);
	sandbox_free(sb);
	assert_int_equal(runs(), 0);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	sb = sandbox_new(&spec);
	sandbox_probe_start(sb);
	sandbox_probe_start(sb);
	assert_int_equal(sandbox_kind(sb), SANDBOX_BWRAP);
	sandbox_probe_start(sb);
	assert_string_equal(sandbox_why_none(sb), "");
	sandbox_free(sb);
	assert_int_equal(runs(), 1);
	sb = sandbox_new(&spec);
	sandbox_probe_start(sb);
	sandbox_free(sb); /* waits for the probe */
	assert_int_equal(runs(), 2);
	assert_int_equal(unlink(P("runs")), 0);
	assert_int_equal(in_child(child_no_thread), 0);

	/* both left out: why says so */
	spec.no_bwrap = spec.no_landlock = 1;
	sb = sandbox_new(&spec);
	assert_string_equal(sandbox_why_none(sb), "bwrap not used; landlock: not used");
	sandbox_free(sb);
	/* landlock: nothing to explain, and it shows */
	spec.no_landlock = 0;
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) == SANDBOX_LANDLOCK) {
		assert_string_equal(sandbox_why_none(sb), "");
		sandbox_describe(sb, &d);
		assert_string_equal(d.data, "workspace-write (landlock)");
	}
	sandbox_free(sb);
	buf_release(&d);
}

/*
 * A kernel without landlock (its syscall says ENOSYS, by a seccomp
 * filter): bwrap left out, there is no mechanism, and why says so.
 * 77: no seccomp here.
 */
static int
child_no_landlock(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	int rc;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return 77;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.no_bwrap = 1;
	sb = sandbox_new(&spec);
	rc = sandbox_kind(sb) != SANDBOX_NONE ? 10
	     : strcmp(sandbox_why_none(sb), "bwrap not used; landlock: not in this kernel") ? 11 : 0;
	sandbox_free(sb);
	return rc;
}

static void
test_no_landlock_kernel(void **state)
{
	int rc;

	(void)state;
	rc = in_child(child_no_landlock);
	if (rc == 77) {
		print_message("no seccomp here: skipped\n");
		skip();
	}
	assert_int_equal(rc, 0);
}

/*
 * Issue 20: a kernel whose landlock is ABI 1 (5.13 to 5.18) has landlock.
 * This kernel's is newer, so a seccomp listener answers the version query
 * with 1: a thread started before the filter (so not under it) receives
 * each landlock_create_ruleset call and returns 1 for it.
 */
static void *
abi1_answer(void *arg)
{
	int *pfd = arg, fd;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	if (read(pfd[0], &fd, sizeof fd) != (ssize_t)sizeof fd)
		return NULL;
	for (;;) {
		memset(&req, 0, sizeof req);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.val = 1;
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

static int
child_landlock_abi1(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_landlock_create_ruleset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct buf d = BUF_INIT;
	pthread_t th;
	int pfd[2], fd, rc;

	if (pipe(pfd) < 0 || pthread_create(&th, NULL, abi1_answer, pfd) != 0)
		return 12;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    (fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
		return 77;
	if (write(pfd[1], &fd, sizeof fd) != (ssize_t)sizeof fd)
		return 13;
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.no_bwrap = 1;
	sb = sandbox_new(&spec);
	rc = sandbox_kind(sb) != SANDBOX_LANDLOCK ? 10 : 0;
	sandbox_describe(sb, &d);
	if (!rc && strcmp(d.data, "workspace-write (landlock)"))
		rc = 11;
	sandbox_free(sb);
	buf_release(&d);
	return rc;
}

static void
test_landlock_abi1_kernel(void **state)
{
	int rc;

	(void)state;
	rc = in_child(child_landlock_abi1);
	if (rc == 77) {
		print_message("no seccomp listener here: skipped\n");
		skip();
	}
	assert_int_equal(rc, 0);
}

/* c's argv: the source bound at /tmp (the sandbox's tmp/), into out[n]. */
static void
bound_tmp(const struct sandbox_cmd *c, char *out, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < c->argv.n; i++)
		if (!strcmp(c->argv.v[i], "--bind") && !strcmp(c->argv.v[i + 2], "/tmp")) {
			snprintf(out, n, "%s", c->argv.v[i + 1]);
			return;
		}
	fail_msg("no --bind ... /tmp");
}

/* A sandbox whose probe says bwrap (the fake that exits 0), hiding hide (NULL: the defaults). */
static struct sandbox *
sb_fake(enum sandbox_mode mode, const char *const *hide, const char *state_dir)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;

	spec.mode = mode;
	spec.root = P("ws");
	spec.bwrap = fake_bwrap("bw-ok", "exit 0");
	spec.hide = hide;
	spec.state_dir = state_dir;
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_kind(sb), SANDBOX_BWRAP);
	return sb;
}

static void
wrap_ok(struct sandbox *sb, struct sandbox_cmd *c)
{
	const char *cmd[] = { "true", NULL };
	struct err e = ERR_INIT;

	if (sandbox_wrap(sb, cmd, c, &e) < 0)
		fail_msg("sandbox_wrap: %s", e.msg);
}

static void
setenv_or_unset(const char *name, const char *v)
{
	if (v)
		setenv(name, v, 1);
	else
		unsetenv(name);
}

/*
 * Issue 20: the default hidden paths: the secrets under $HOME, hearth's
 * XDG dirs, the state dir; none under an unset or empty $HOME; a list
 * given replaces the defaults.
 */
static void
test_hide_defaults(void **state)
{
	const char *names[] = { "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME" };
	char *saved[5];
	char g[300];
	const char *given[] = { g, NULL };
	struct sandbox *sb;
	struct sandbox_cmd c;
	char empty[300];
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++)
		saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
	mk("xc", 1);
	mk("xc/hearth", 1);
	mk("xd", 1);
	mk("xd/hearth", 1);
	mk("state", 1);
	mk("given", 1);
	snprintf(g, sizeof g, "%s/given", base);
	setenv("HOME", P("home"), 1);
	setenv("XDG_CONFIG_HOME", P("xc"), 1);
	setenv("XDG_STATE_HOME", "", 1);
	unsetenv("XDG_DATA_HOME");
	setenv("XDG_CACHE_HOME", P("xd"), 1);
	sb = sb_fake(SANDBOX_WORKSPACE_WRITE, NULL, P("state"));
	wrap_ok(sb, &c);
	bound_tmp(&c, empty, sizeof empty);
	snprintf(empty + strlen(empty) - 3, 8, "empty");
	assert_true(seq(&c.argv, "--tmpfs", P("home/.ssh"), NULL) >= 0);
	assert_true(seq(&c.argv, "--ro-bind", empty, P("home/.netrc")) >= 0);
	assert_true(seq(&c.argv, "--tmpfs", P("xc/hearth"), NULL) >= 0);
	assert_true(seq(&c.argv, "--tmpfs", P("xd/hearth"), NULL) >= 0);
	assert_true(seq(&c.argv, "--tmpfs", P("state"), NULL) >= 0);
	assert_false(has(&c.argv, P("given")));
	sandbox_cmd_release(&c);
	sandbox_free(sb);

	sb = sb_fake(SANDBOX_WORKSPACE_WRITE, given, NULL);
	wrap_ok(sb, &c);
	assert_true(seq(&c.argv, "--tmpfs", P("given"), NULL) >= 0);
	assert_false(has(&c.argv, P("home/.ssh")));
	sandbox_cmd_release(&c);
	sandbox_free(sb);

	for (i = 0; i < 2; i++) {
		setenv_or_unset("HOME", i ? "" : NULL);
		sb = sb_fake(SANDBOX_WORKSPACE_WRITE, NULL, NULL);
		wrap_ok(sb, &c);
		assert_false(has(&c.argv, P("home/.ssh")));
		assert_true(seq(&c.argv, "--tmpfs", P("xc/hearth"), NULL) >= 0);
		sandbox_cmd_release(&c);
		sandbox_free(sb);
	}
	for (i = 0; i < 5; i++) {
		setenv_or_unset(names[i], saved[i]);
		free(saved[i]);
	}
}

/*
 * In a mount namespace of its own with a fresh /run: the daemons' sockets
 * and the session's /run/user/UID are hidden.  77: no namespace here.
 */
static int
child_run_hidden(void)
{
	struct sandbox *sb;
	struct sandbox_cmd c;
	const char *cmd[] = { "true", NULL };
	struct err e = ERR_INIT;
	char user[64], empty[300];
	FILE *f;
	int rc = 0;

	if (unshare(CLONE_NEWNS) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return 77;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 || mount("tmpfs", "/run", "tmpfs", 0, NULL) < 0)
		return 77;
	snprintf(user, sizeof user, "/run/user/%u", (unsigned)getuid());
	if (mkdir("/run/user", 0755) < 0 || mkdir(user, 0700) < 0 || !(f = fopen("/run/docker.sock", "w")))
		return 10;
	fclose(f);
	{
		struct sandbox_spec spec = { 0 };

		spec.mode = SANDBOX_WORKSPACE_WRITE;
		spec.root = P("ws");
		spec.bwrap = P("bw-ok");
		sb = sandbox_new(&spec);
	}
	if (sandbox_kind(sb) != SANDBOX_BWRAP || sandbox_wrap(sb, cmd, &c, &e) < 0)
		return 11;
	snprintf(empty, sizeof empty, "%s", c.argv.v[seq(&c.argv, "--bind", NULL, "/tmp") + 1]);
	snprintf(empty + strlen(empty) - 3, 8, "empty");
	if (seq(&c.argv, "--ro-bind", empty, "/run/docker.sock") < 0)
		rc = 12;
	else if (seq(&c.argv, "--tmpfs", user, NULL) < 0)
		rc = 13;
	sandbox_cmd_release(&c);
	sandbox_free(sb);
	return rc;
}

static void
test_hide_run(void **state)
{
	int rc;

	(void)state;
	fake_bwrap("bw-ok", "exit 0");
	rc = in_child(child_run_hidden);
	if (rc == 77) {
		print_message("no mount namespace here: skipped\n");
		skip();
	}
	assert_int_equal(rc, 0);
}

/*
 * Issue 20: what is never hidden (the workspace, an ancestor of it, also
 * written with a trailing slash, and /), while a sibling whose name starts
 * like the workspace's is; a .git file (a worktree) is bound read-only
 * and nothing is protected or created under it; more pinned directories;
 * a pin under a missing directory is not watched.
 */
static void
test_bwrap_argv_edges(void **state)
{
	const char *cmd[] = { "true", NULL };
	char slash[300];
	const char *hide[] = { P("ws"), P("w"), slash, "/", NULL };
	const char *pin[] = { ".git", "src", "nodir/x", NULL };
	const char *protect[] = { ".git/config", ".git/hooks/", ".hearth/", ".mcp.json", NULL };
	struct sandbox_spec spec = { 0 };
	struct sandbox_strv argv = { 0 }, made = { 0 }, absent = { 0 };
	size_t i;

	(void)state;
	snprintf(slash, sizeof slash, "%s/", base);
	mk("w", 1);
	mk("ws/.git", 0);
	mk("ws/src", 1);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.hide = hide;
	spec.pin = pin;
	spec.protect = protect;
	sandbox_bwrap_argv(&spec, P("sb"), cmd, &argv, &made, &absent);
	assert_true(seq(&argv, "--tmpfs", P("w"), NULL) >= 0);
	assert_true(seq(&argv, "--tmpfs", P("ws"), NULL) < 0);
	assert_false(has(&argv, slash));
	assert_true(seq(&argv, "--tmpfs", "/", NULL) < 0);
	assert_true(seq(&argv, "--ro-bind", P("ws/.git"), P("ws/.git")) >= 0);
	assert_true(seq(&argv, "--bind", P("ws/src"), P("ws/src")) >= 0);
	for (i = 0; i < argv.n; i++)
		assert_null(strstr(argv.v[i], "/.git/"));
	assert_int_equal(made.n, 1);
	assert_string_equal(made.v[0], P("ws/.hearth"));
	assert_int_equal(absent.n, 1);
	assert_string_equal(absent.v[0], P("ws/.mcp.json"));
	sandbox_strv_release(&argv);
	sandbox_strv_release(&made);
	sandbox_strv_release(&absent);
	/* without the lists to fill */
	sandbox_bwrap_argv(&spec, P("sb"), cmd, &argv, NULL, NULL);
	assert_string_equal(argv.v[argv.n - 1], "true");
	sandbox_strv_release(&argv);
}

/* The mode of path (permission bits). */
static unsigned
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return (unsigned)(st.st_mode & 07777);
}

/*
 * Issue 20: the private directory: never in the workspace ($TMPDIR there,
 * or relative, means /tmp), tmp/ private (0700), the placeholders
 * read-only; sandbox_free removes all of it, whatever the commands left
 * there, without touching what a hard link in it points to.
 */
static void
test_private_dir(void **state)
{
	const char *tmps[] = { "ws/t", "rel" };
	char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	struct sandbox *sb;
	struct sandbox_cmd c;
	char t[300], dir[300], p[400];
	mode_t um = umask(022);
	size_t i;

	(void)state;
	umask(um);
	mk("ws/t", 1);
	mk("keep", 0);
	assert_int_equal(chmod(P("keep"), 0644), 0);
	for (i = 0; i < 2; i++) {
		setenv("TMPDIR", i ? tmps[i] : P(tmps[i]), 1);
		sb = sb_fake(SANDBOX_WORKSPACE_WRITE, NULL, NULL);
		wrap_ok(sb, &c);
		bound_tmp(&c, t, sizeof t);
		assert_memory_equal(t, "/tmp/hearth-sandbox-", 20);
		snprintf(dir, sizeof dir, "%.*s", (int)strlen(t) - 4, t);
		assert_int_equal(mode_of(t), 0700);
		snprintf(p, sizeof p, "%s/emptydir", dir);
		assert_int_equal(mode_of(p), 0555 & ~um);
		snprintf(p, sizeof p, "%s/empty", dir);
		assert_int_equal(mode_of(p), 0444 & ~um);
		/* what commands leave: a tree, a read-only dir, a hard link to a file outside */
		snprintf(p, sizeof p, "%s/a", t);
		assert_int_equal(mkdir(p, 0755), 0);
		snprintf(p, sizeof p, "%s/a/f", t);
		assert_int_equal(link(P("keep"), p), 0);
		snprintf(p, sizeof p, "%s/a/b", t);
		assert_int_equal(mkdir(p, 0555), 0);
		sandbox_cmd_release(&c);
		sandbox_free(sb);
		assert_int_equal(access(dir, F_OK), -1);
		assert_int_equal(mode_of(P("keep")), 0644);
	}
	setenv_or_unset("TMPDIR", saved);
	free(saved);
}

/*
 * As a user the file permissions apply to (nobody, when the tests run as
 * root): read-only directories the command left in the private directory
 * or made where a protected path was are still removed.
 */
static int
child_readonly_dirs(void)
{
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct sandbox_cmd c, after;
	const char *cmd[] = { "true", NULL };
	struct err e = ERR_INIT;
	struct buf notes = BUF_INIT;
	char t[300], dir[300], p[400];
	size_t i;
	FILE *f;

	if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 10;
	setenv("TMPDIR", P("nob"), 1);
	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.bwrap = P("bw-ok");
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) != SANDBOX_BWRAP || sandbox_wrap(sb, cmd, &c, &e) < 0)
		return 11;
	for (i = 0; i + 2 < c.argv.n && strcmp(c.argv.v[i + 2], "/tmp"); i++)
		;
	snprintf(t, sizeof t, "%s", c.argv.v[i + 1]);
	snprintf(dir, sizeof dir, "%.*s", (int)strlen(t) - 4, t);
	snprintf(p, sizeof p, "%s/a", t);
	if (mkdir(p, 0755) < 0)
		return 12;
	snprintf(p, sizeof p, "%s/a/f", t);
	if (!(f = fopen(p, "w")))
		return 13;
	fclose(f);
	snprintf(p, sizeof p, "%s/a", t);
	(void)chmod(p, 0555);
	sandbox_cmd_release(&c);
	sandbox_free(sb);
	if (access(dir, F_OK) == 0)
		return 14;
	/* a protected path the command made as a read-only directory with a file in it */
	if (mkdir(P("nob/made"), 0755) < 0 || !(f = fopen(P("nob/made/f"), "w")))
		return 15;
	fclose(f);
	if (chmod(P("nob/made"), 0555) < 0)
		return 15;
	memset(&after, 0, sizeof after);
	after.ruleset_fd = -1;
	sandbox_strv_add(&after.absent, P("nob/made"));
	sandbox_after(NULL, &after, &notes);
	sandbox_cmd_release(&after);
	return access(P("nob/made"), F_OK) == 0 ? 16 : 0;
}

static void
test_readonly_dirs_removed(void **state)
{
	(void)state;
	fake_bwrap("bw-ok", "exit 0");
	mk("nob", 1);
	assert_int_equal(chmod(base, 0755), 0);
	assert_int_equal(chmod(P("nob"), 0777), 0);
	assert_int_equal(in_child(child_readonly_dirs), 0);
}

/* Issue 20: after a command with only placeholders, or only watched files. */
static void
test_after_one_list(void **state)
{
	struct sandbox_cmd c;
	struct buf notes = BUF_INIT;

	(void)state;
	memset(&c, 0, sizeof c);
	c.ruleset_fd = -1;
	mk("ws/.hearth", 1);
	sandbox_strv_add(&c.made, P("ws/.hearth"));
	sandbox_after(NULL, &c, &notes);
	assert_int_equal(access(P("ws/.hearth"), F_OK), -1);
	sandbox_cmd_release(&c);
	mk("ws/.mcp.json", 0);
	sandbox_strv_add(&c.absent, P("ws/.mcp.json"));
	sandbox_after(NULL, &c, &notes);
	assert_int_equal(access(P("ws/.mcp.json"), F_OK), -1);
	assert_non_null(strstr(notes.data, "created " ));
	sandbox_cmd_release(&c);
	buf_release(&notes);
}

/*
 * Issue 20: the hints in full: the network one (each message that means
 * "no network", once, not when the network is on), and the refused
 * write's, which names the mechanism, the mode and, under bwrap only,
 * the protected paths.
 */
static void
test_hints(void **state)
{
	const char *net[] = { "curl: (6) Could not resolve host: example.com\n",
			      "Temporary failure in name resolution", "connect: Network is unreachable",
			      "ping: x: Name or service not known" };
	const char *ro = "touch: cannot touch '/usr/x': Read-only file system\n";
	struct sandbox_spec spec = { 0 };
	struct sandbox *sb;
	struct buf out = BUF_INIT, want = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		sb = sb_fake(SANDBOX_WORKSPACE_WRITE, NULL, NULL);
		assert_int_equal(sandbox_hint(sb, net[i], strlen(net[i]), &out), 1);
		assert_non_null(strstr(out.data, "[sandbox: the network is off for commands that run without asking."));
		buf_reset(&out);
		assert_int_equal(sandbox_hint(sb, net[i], strlen(net[i]), &out), 0);
		assert_int_equal(out.len, 0);
		sandbox_free(sb);
	}
	sb = sb_fake(SANDBOX_WORKSPACE_WRITE, NULL, NULL);
	assert_int_equal(sandbox_hint(sb, ro, strlen(ro), &out), 1);
	buf_addf(&want, "[sandbox (bwrap, workspace-write): only the workspace %s (except .git/config, .git/hooks, "
			".hearth/ and .mcp.json) and $TMPDIR (private) are writable;", P("ws"));
	assert_memory_equal(out.data, want.data, want.len);
	sandbox_free(sb);
	buf_reset(&out);
	sb = sb_fake(SANDBOX_READ_ONLY, NULL, NULL);
	assert_int_equal(sandbox_hint(sb, ro, strlen(ro), &out), 1);
	assert_non_null(strstr(out.data, "[sandbox (bwrap, read-only): only $TMPDIR (private) is writable;"));
	sandbox_free(sb);
	buf_reset(&out);

	spec.mode = SANDBOX_WORKSPACE_WRITE;
	spec.root = P("ws");
	spec.no_bwrap = 1;
	sb = sandbox_new(&spec);
	if (sandbox_kind(sb) == SANDBOX_LANDLOCK) {
		assert_int_equal(sandbox_hint(sb, ro, strlen(ro), &out), 0); /* landlock says "Permission denied" */
		assert_int_equal(sandbox_hint(sb, "sh: x: Permission denied\n", 25, &out), 1);
		assert_non_null(strstr(out.data, "[sandbox (landlock, workspace-write): only the workspace "));
		assert_null(strstr(out.data, "(except"));
	}
	sandbox_free(sb);
	buf_reset(&out);
	spec.network = 1;
	spec.no_bwrap = 0;
	spec.bwrap = P("bw-ok");
	sb = sandbox_new(&spec);
	assert_int_equal(sandbox_hint(sb, net[0], strlen(net[0]), &out), 0); /* the network is on */
	sandbox_free(sb);
	buf_release(&out);
	buf_release(&want);
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
		cmocka_unit_test_setup_teardown(test_probe_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_no_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probed_when_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_landlock_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_landlock_abi1_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hide_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hide_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bwrap_argv_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_dirs_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_after_one_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hints, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * io/sandbox: bwrap, landlock or nothing around the model's commands (see io/sandbox.h).
 *
 * Data: struct sandbox holds the resolved policy (owned copies of every
 * list), the probe's answer (written by the probe thread, read after
 * pthread_join, so no lock) and the sandbox's own directory, made on the
 * first wrapped command under /tmp (or $TMPDIR when that is outside the
 * workspace): tmp/ (the commands' private /tmp), empty (an empty 0444
 * file) and emptydir/ (an empty 0555 dir), the read-only placeholders.
 * Bound from the host path, they stay read-only inside (the whole file
 * system is, apart from the workspace and tmp/).
 */
#define _GNU_SOURCE
#include "io/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "base/xmalloc.h"

extern char **environ;

struct sandbox {
	struct sandbox_spec spec;       /* lists point into the strvs below */
	struct sandbox_strv writable, protect, pin, hide;
	char *root, *state_dir, *bwrap;
	pthread_t probe;
	int probing, probed;
	atomic_int probe_ended;         /* set by the probe thread as its last act */
	enum sandbox_kind kind;         /* the probe's answer */
	int landlock_abi;
	char why[256];                  /* why neither works */
	char *dir;                      /* the sandbox's own dir; NULL until made */
	int hinted, hinted_net;
	int grant_net;                  /* network for the next wrapped command */
};

void
sandbox_strv_add(struct sandbox_strv *v, const char *s)
{
	if (v->n + 2 > v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->v = xrealloc(v->v, v->cap * sizeof *v->v);
	}
	v->v[v->n++] = xstrdup(s);
	v->v[v->n] = NULL;
}

void
sandbox_strv_release(struct sandbox_strv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	memset(v, 0, sizeof *v);
}

/* Make sure v->v is a (possibly empty) NULL-terminated array. */
static void
sandbox_strv_terminate(struct sandbox_strv *v)
{
	if (!v->v) {
		v->cap = 4;
		v->v = xcalloc(v->cap, sizeof *v->v);
	}
}

static void
sandbox_strv_addf2(struct sandbox_strv *v, const char *a, const char *b)
{
	struct buf s = BUF_INIT;

	buf_addf(&s, "%s%s", a, b);
	sandbox_strv_add(v, s.data);
	buf_release(&s);
}

int
sandbox_mode_parse(const char *s, enum sandbox_mode *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "workspace-write"))
		*out = SANDBOX_WORKSPACE_WRITE;
	else if (!strcmp(s, "read-only"))
		*out = SANDBOX_READ_ONLY;
	else if (!strcmp(s, "off"))
		*out = SANDBOX_OFF;
	else
		return -1;
	return 0;
}

const char *
sandbox_mode_name(enum sandbox_mode m)
{
	return m == SANDBOX_READ_ONLY ? "read-only" : m == SANDBOX_OFF ? "off" : "workspace-write";
}

const char *
sandbox_kind_name(enum sandbox_kind k)
{
	return k == SANDBOX_BWRAP ? "bwrap" : k == SANDBOX_LANDLOCK ? "landlock" : "none";
}

/* Paths inside the workspace that stay read-only ("x/": a placeholder dir when missing). */
static const char *const sandbox_protect_default[] = {
	".git/config", ".git/hooks/", ".hearth/", ".mcp.json", NULL
};
/* Directories bound onto themselves, so they cannot be renamed or replaced (missing: removed if created). */
static const char *const sandbox_pin_default[] = { ".git", NULL };
/* Under $HOME: credentials and other secrets. */
static const char *const sandbox_hide_home[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".netrc", ".docker", ".kube",
	".git-credentials", ".config/gh", ".config/hub", ".npmrc", ".pypirc", ".cargo/credentials",
	".cargo/credentials.toml", ".gem/credentials", ".password-store", ".local/share/keyrings",
	".vault-token", ".terraform.d/credentials.tfrc.json", ".config/hearth", ".local/state/hearth",
	".local/share/hearth", ".cache/hearth", ".claude", ".claude.json", ".config/anthropic", NULL
};
/* Sockets that would let a command act outside (container and session daemons). */
static const char *const sandbox_hide_abs[] = {
	"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
	"/run/podman/podman.sock", "/run/dbus/system_bus_socket", NULL
};

/* The default hidden paths: secrets under $HOME, hearth's XDG dirs, the state dir, daemons' sockets. */
static void
sandbox_hide_defaults(struct sandbox_strv *v, const char *state_dir)
{
	static const char *const xdg[][2] = { { "XDG_CONFIG_HOME", "/hearth" }, { "XDG_STATE_HOME", "/hearth" },
					      { "XDG_DATA_HOME", "/hearth" }, { "XDG_CACHE_HOME", "/hearth" } };
	const char *home = getenv("HOME");
	char run[64];
	size_t i;

	if (home && *home)
		for (i = 0; sandbox_hide_home[i]; i++) {
			struct buf p = BUF_INIT;

			buf_addf(&p, "%s/%s", home, sandbox_hide_home[i]);
			sandbox_strv_add(v, p.data);
			buf_release(&p);
		}
	for (i = 0; i < sizeof xdg / sizeof xdg[0]; i++) {
		const char *d = getenv(xdg[i][0]);

		if (d && *d)
			sandbox_strv_addf2(v, d, xdg[i][1]);
	}
	if (state_dir && *state_dir)
		sandbox_strv_add(v, state_dir);
	for (i = 0; sandbox_hide_abs[i]; i++)
		sandbox_strv_add(v, sandbox_hide_abs[i]);
	snprintf(run, sizeof run, "/run/user/%u", (unsigned)getuid());
	sandbox_strv_add(v, run);
}

/* Copy a NULL-terminated list (NULL: defaults). */
static void
sandbox_copy_list(struct sandbox_strv *dst, const char *const *src, const char *const *def)
{
	size_t i;

	if (!src)
		src = def;
	for (i = 0; src && src[i]; i++)
		sandbox_strv_add(dst, src[i]);
	sandbox_strv_terminate(dst);
}

struct sandbox *
sandbox_new(const struct sandbox_spec *spec)
{
	struct sandbox *sb = xcalloc(1, sizeof *sb);

	sb->spec = *spec;
	sb->root = xstrdup(spec->root ? spec->root : "/");
	sb->state_dir = spec->state_dir ? xstrdup(spec->state_dir) : NULL;
	sb->bwrap = xstrdup(spec->bwrap ? spec->bwrap : "bwrap");
	sandbox_copy_list(&sb->writable, spec->writable, NULL);
	sandbox_copy_list(&sb->protect, spec->protect, sandbox_protect_default);
	sandbox_copy_list(&sb->pin, spec->pin, sandbox_pin_default);
	if (spec->hide)
		sandbox_copy_list(&sb->hide, spec->hide, NULL);
	else
		sandbox_hide_defaults(&sb->hide, spec->state_dir);
	sandbox_strv_terminate(&sb->hide);
	sb->spec.root = sb->root;
	sb->spec.state_dir = sb->state_dir;
	sb->spec.bwrap = sb->bwrap;
	sb->spec.writable = (const char *const *)sb->writable.v;
	sb->spec.protect = (const char *const *)sb->protect.v;
	sb->spec.pin = (const char *const *)sb->pin.v;
	sb->spec.hide = (const char *const *)sb->hide.v;
	return sb;
}

/* nftw callback: remove everything. */
static int
sandbox_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type == FTW_DP || type == FTW_D)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* rm -rf path (no symlink followed). */
static void
sandbox_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		(void)chmod(path, 0700);
		(void)nftw(path, sandbox_rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	} else {
		(void)unlink(path);
	}
}

/* nftw callback: make directories writable so they can be emptied. */
static int
sandbox_chmod_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_D && (st->st_mode & 0700) != 0700)
		(void)chmod(path, 0700);
	return 0;
}

void
sandbox_free(struct sandbox *sb)
{
	if (!sb)
		return;
	if (sb->probing)
		pthread_join(sb->probe, NULL);
	if (sb->dir) {
		(void)nftw(sb->dir, sandbox_chmod_one, 16, FTW_PHYS | FTW_MOUNT);
		sandbox_rm_rf(sb->dir);
		free(sb->dir);
	}
	sandbox_strv_release(&sb->writable);
	sandbox_strv_release(&sb->protect);
	sandbox_strv_release(&sb->pin);
	sandbox_strv_release(&sb->hide);
	free(sb->root);
	free(sb->state_dir);
	free(sb->bwrap);
	free(sb);
}

/* Whether a is b or an ancestor of b. */
static int
sandbox_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	while (n > 1 && a[n - 1] == '/')
		n--;
	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/' || (n == 1 && a[0] == '/'));
}

/* Whether the parent directory of path exists. */
static int
sandbox_parent_exists(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct buf p = BUF_INIT;
	struct stat st;
	int ok;

	if (!slash || slash == path)
		return 1;
	buf_add(&p, path, (size_t)(slash - path));
	ok = stat(p.data, &st) == 0 && S_ISDIR(st.st_mode);
	buf_release(&p);
	return ok;
}

static void
sandbox_arg3(struct sandbox_strv *v, const char *a, const char *b, const char *c)
{
	sandbox_strv_add(v, a);
	sandbox_strv_add(v, b);
	if (c)
		sandbox_strv_add(v, c);
}

/* The bwrap command line (see io/sandbox.h). */
void
sandbox_bwrap_argv(const struct sandbox_spec *spec, const char *sbdir, const char *const *cmd,
		   struct sandbox_strv *argv, struct sandbox_strv *made, struct sandbox_strv *absent)
{
	const char *root = spec->root;
	struct buf p = BUF_INIT, src = BUF_INIT;
	struct stat st;
	size_t i;

	sandbox_strv_add(argv, spec->bwrap ? spec->bwrap : "bwrap");
	sandbox_strv_add(argv, "--die-with-parent");
	sandbox_strv_add(argv, "--new-session");
	sandbox_strv_add(argv, "--unshare-all");
	if (spec->network)
		sandbox_strv_add(argv, "--share-net");
	sandbox_arg3(argv, "--cap-drop", "ALL", NULL);
	sandbox_arg3(argv, "--ro-bind", "/", "/");
	sandbox_arg3(argv, "--dev", "/dev", NULL);
	sandbox_arg3(argv, "--proc", "/proc", NULL);
	buf_addf(&src, "%s/tmp", sbdir);
	sandbox_arg3(argv, "--bind", src.data, "/tmp");
	/* the workspace: writable, or read-only (a root under /tmp must still show) */
	sandbox_arg3(argv, spec->mode == SANDBOX_WORKSPACE_WRITE ? "--bind" : "--ro-bind", root, root);
	for (i = 0; spec->mode == SANDBOX_WORKSPACE_WRITE && spec->writable && spec->writable[i]; i++)
		if (stat(spec->writable[i], &st) == 0 && S_ISDIR(st.st_mode))
			sandbox_arg3(argv, "--bind", spec->writable[i], spec->writable[i]);
	for (i = 0; spec->hide && spec->hide[i]; i++) {
		const char *h = spec->hide[i];

		if (!*h || stat(h, &st) < 0 || sandbox_covers(h, root)) /* a link: what it points to */
			continue;
		if (S_ISDIR(st.st_mode)) {
			sandbox_arg3(argv, "--tmpfs", h, NULL);
			sandbox_arg3(argv, "--remount-ro", h, NULL);
		} else {
			buf_reset(&src);
			buf_addf(&src, "%s/empty", sbdir);
			sandbox_arg3(argv, "--ro-bind", src.data, h);
		}
	}
	/* pinned directories: a mount point cannot be renamed, so .git stays the one bound below */
	for (i = 0; spec->mode == SANDBOX_WORKSPACE_WRITE && spec->pin && spec->pin[i]; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", root, spec->pin[i]);
		if (lstat(p.data, &st) == 0 && S_ISDIR(st.st_mode))
			sandbox_arg3(argv, "--bind", p.data, p.data);
		else if (lstat(p.data, &st) == 0)
			sandbox_arg3(argv, "--ro-bind", p.data, p.data); /* a .git file: "gitdir: ..." */
		else if (absent && sandbox_parent_exists(p.data))
			sandbox_strv_add(absent, p.data);
	}
	for (i = 0; spec->mode == SANDBOX_WORKSPACE_WRITE && spec->protect && spec->protect[i]; i++) {
		size_t n = strlen(spec->protect[i]);
		int dir = n > 1 && spec->protect[i][n - 1] == '/';

		buf_reset(&p);
		buf_addf(&p, "%s/%.*s", root, (int)(dir ? n - 1 : n), spec->protect[i]);
		if (lstat(p.data, &st) == 0) {
			sandbox_arg3(argv, "--ro-bind", p.data, p.data);
		} else if (!sandbox_parent_exists(p.data)) {
			continue; /* .git/hooks without .git: nothing to protect, nothing to create in */
		} else if (dir) {
			buf_reset(&src);
			buf_addf(&src, "%s/emptydir", sbdir);
			sandbox_arg3(argv, "--ro-bind", src.data, p.data);
			if (made)
				sandbox_strv_add(made, p.data);
		} else if (absent) {
			sandbox_strv_add(absent, p.data);
		}
	}
	sandbox_strv_add(argv, "--");
	for (i = 0; cmd && cmd[i]; i++)
		sandbox_strv_add(argv, cmd[i]);
	buf_release(&p);
	buf_release(&src);
}

/* ---- the probe ---- */

/*
 * Run bwrap once around `true`, bounded by limit ms; 0 when it worked,
 * else -1 + why (-2 when it was killed at the limit).
 */
static int
sandbox_probe_bwrap(struct sandbox *sb, int limit)
{
	const char *argv[] = { sb->bwrap, "--die-with-parent", "--new-session", "--unshare-all",
			       "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			       "--tmpfs", "/tmp", "--", "true", NULL };
	posix_spawn_file_actions_t fa;
	struct timespec t0;
	char out[200];
	int pfd[2], st = 0, werr = 0;
	size_t got = 0;
	pid_t pid, r = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(sb->why, sizeof sb->why, "bwrap: pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	errno = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (errno) {
		snprintf(sb->why, sizeof sb->why, "bwrap: %s (install the bubblewrap package)", strerror(errno));
		close(pfd[0]);
		return -1;
	}
	(void)fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec ts = { 0, 2 * 1000 * 1000 }, t;

		r = waitpid(pid, &st, WNOHANG);
		werr = errno; /* the reads below may change errno */
		while (got + 1 < sizeof out && (n = read(pfd[0], out + got, sizeof out - 1 - got)) > 0)
			got += (size_t)n;
		if (r == pid || (r < 0 && werr != EINTR))
			break;
		clock_gettime(CLOCK_MONOTONIC, &t); /* the limit in real time, however long each poll takes */
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > limit) {
			kill(pid, SIGKILL);
			(void)waitpid(pid, &st, 0);
			snprintf(sb->why, sizeof sb->why, "bwrap did not finish within %d ms", limit);
			close(pfd[0]);
			return -2;
		}
		nanosleep(&ts, NULL);
	}
	close(pfd[0]);
	out[got] = '\0';
	if (r != pid) { /* no status (SIGCHLD ignored: the child was reaped unseen): not a success */
		snprintf(sb->why, sizeof sb->why, "bwrap: wait: %s", strerror(werr));
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	out[strcspn(out, "\n")] = '\0';
	snprintf(sb->why, sizeof sb->why, "bwrap cannot run here (%.150s)", got ? out : "it failed");
	return -1;
}

/* Landlock's ABI version, or 0 when the kernel has none. */
static int
sandbox_landlock_abi(void)
{
#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return v > 0 ? (int)v : 0;
#else
	return 0;
#endif
}

/* The probe thread: bwrap, else landlock, else none. */
static void *
sandbox_probe_run(void *arg)
{
	struct sandbox *sb = arg;
	int limit = sb->spec.probe_ms > 0 ? sb->spec.probe_ms : SANDBOX_PROBE_MS, rc = -1;
	int again = 3 * limit; /* killed at the limit: a loaded machine as likely as a hung bwrap */
	char bw[160];

	sb->landlock_abi = sandbox_landlock_abi();
	if (!sb->spec.no_bwrap && (rc = sandbox_probe_bwrap(sb, limit)) == -2 &&
	    (rc = sandbox_probe_bwrap(sb, again)) == -2)
		snprintf(sb->why, sizeof sb->why, "bwrap did not finish within %d ms, nor within %d ms "
			 "on a second try", limit, again);
	if (rc == 0) {
		sb->kind = SANDBOX_BWRAP;
		atomic_store(&sb->probe_ended, 1);
		return NULL;
	}
	snprintf(bw, sizeof bw, "%.150s", sb->spec.no_bwrap ? "bwrap not used" : sb->why);
	if (!sb->spec.no_landlock && sb->landlock_abi > 0) {
		sb->kind = SANDBOX_LANDLOCK;
		snprintf(sb->why, sizeof sb->why, "%.150s; landlock ABI %d", bw, sb->landlock_abi);
		atomic_store(&sb->probe_ended, 1);
		return NULL;
	}
	sb->kind = SANDBOX_NONE;
	snprintf(sb->why, sizeof sb->why, "%.150s; landlock: %s", bw,
		 sb->spec.no_landlock ? "not used" : "not in this kernel");
	atomic_store(&sb->probe_ended, 1);
	return NULL;
}

void
sandbox_probe_start(struct sandbox *sb)
{
	if (!sb || sb->probing || sb->probed || sb->spec.mode == SANDBOX_OFF)
		return;
	if (pthread_create(&sb->probe, NULL, sandbox_probe_run, sb) == 0)
		sb->probing = 1;
	else
		sandbox_probe_run(sb), sb->probed = 1;
}

enum sandbox_kind
sandbox_kind(struct sandbox *sb)
{
	if (!sb || sb->spec.mode == SANDBOX_OFF)
		return SANDBOX_NONE;
	if (!sb->probed) {
		if (!sb->probing)
			sandbox_probe_start(sb);
		if (sb->probing) {
			pthread_join(sb->probe, NULL);
			sb->probing = 0;
		}
		sb->probed = 1;
	}
	return sb->kind;
}

int
sandbox_probed(struct sandbox *sb)
{
	if (!sb || sb->spec.mode == SANDBOX_OFF || sb->probed)
		return 1;
	if (!sb->probing || !atomic_load(&sb->probe_ended))
		return 0;
	sandbox_kind(sb); /* joins the thread, which has ended */
	return 1;
}

enum sandbox_mode
sandbox_mode(const struct sandbox *sb)
{
	return sb ? sb->spec.mode : SANDBOX_OFF;
}

int
sandbox_network(const struct sandbox *sb)
{
	return sb && sb->spec.network;
}

void
sandbox_grant_network(struct sandbox *sb, int on)
{
	if (sb)
		sb->grant_net = on;
}

int
sandbox_confines(struct sandbox *sb)
{
	enum sandbox_kind k = sandbox_kind(sb);

	return k == SANDBOX_BWRAP || (k == SANDBOX_LANDLOCK && sb->spec.mode == SANDBOX_READ_ONLY);
}

void
sandbox_describe(struct sandbox *sb, struct buf *out)
{
	enum sandbox_kind k = sandbox_kind(sb);

	if (!sb || sb->spec.mode == SANDBOX_OFF) {
		buf_adds(out, "off");
		return;
	}
	if (k == SANDBOX_NONE) {
		buf_adds(out, "none: asking");
		return;
	}
	buf_addf(out, "%s (%s%s)", sandbox_mode_name(sb->spec.mode), sandbox_kind_name(k),
		 sb->spec.network ? ", network on" : "");
}

const char *
sandbox_why_none(struct sandbox *sb)
{
	return sandbox_kind(sb) == SANDBOX_NONE && sb && sb->spec.mode != SANDBOX_OFF ? sb->why : "";
}

/* ---- wrapping a command ---- */

/* The sandbox's own directory (see the top of the file); -1 + e when it cannot be made. */
static int
sandbox_dir(struct sandbox *sb, struct err *e)
{
	const char *tmp = getenv("TMPDIR");
	struct buf d = BUF_INIT, p = BUF_INIT;
	int fd;

	if (sb->dir)
		return 0;
	if (!tmp || *tmp != '/' || sandbox_covers(sb->root, tmp))
		tmp = "/tmp";
	buf_addf(&d, "%s/hearth-sandbox-XXXXXX", tmp);
	if (!mkdtemp(d.data)) {
		err_errno(e, "sandbox: create a private directory in %s", tmp);
		buf_release(&d);
		return -1;
	}
	buf_addf(&p, "%s/tmp", d.data);
	if (mkdir(p.data, 0700) < 0)
		goto fail;
	buf_reset(&p);
	buf_addf(&p, "%s/emptydir", d.data);
	if (mkdir(p.data, 0555) < 0)
		goto fail;
	buf_reset(&p);
	buf_addf(&p, "%s/empty", d.data);
	if ((fd = open(p.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
		goto fail;
	close(fd);
	buf_release(&p);
	sb->dir = buf_detach(&d, NULL);
	return 0;
fail:
	err_errno(e, "sandbox: create %s", p.data);
	sandbox_rm_rf(d.data);
	buf_release(&p);
	buf_release(&d);
	return -1;
}

#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
/* Rights newer than the headers this may be built with (the kernel's ABI decides what is used). */
#define SANDBOX_LL_REFER (1ULL << 13)    /* ABI 2 */
#define SANDBOX_LL_TRUNCATE (1ULL << 14) /* ABI 3 */
#define SANDBOX_LL_NET_BIND (1ULL << 0)  /* ABI 4 */
#define SANDBOX_LL_NET_CONNECT (1ULL << 1)
#define SANDBOX_LL_SCOPE_UNIX (1ULL << 0) /* ABI 6 */
#define SANDBOX_LL_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; its size tells the kernel which fields are there. */
struct sandbox_ll_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};

/* Allow rights beneath path (a directory, or a file: file rights only); -1 when it cannot. */
static int
sandbox_ll_rule(int rfd, const char *path, uint64_t rights)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= LANDLOCK_ACCESS_FS_WRITE_FILE | SANDBOX_LL_TRUNCATE;
	memset(&pb, 0, sizeof pb);
	pb.allowed_access = rights;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(fd);
	return rc < 0 ? -1 : 0;
}

/* The ruleset: writes only beneath the workspace (workspace-write), tmp and the extra dirs. */
static int
sandbox_ll_ruleset(struct sandbox *sb, int grant_net, struct err *e)
{
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/full", NULL };
	struct sandbox_ll_attr attr = { 0 }; /* what this ABI does not handle stays 0 */
	uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		     LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
		     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		     LANDLOCK_ACCESS_FS_MAKE_SYM;
	struct buf tmp = BUF_INIT;
	size_t sz = sizeof attr.handled_access_fs;
	int abi = sb->landlock_abi, fd, i;

	if (abi >= 2)
		w |= SANDBOX_LL_REFER;
	if (abi >= 3)
		w |= SANDBOX_LL_TRUNCATE;
	attr.handled_access_fs = w;
	if (abi >= 4) {
		sz = offsetof(struct sandbox_ll_attr, scoped);
		if (!sb->spec.network && !grant_net)
			attr.handled_access_net = SANDBOX_LL_NET_BIND | SANDBOX_LL_NET_CONNECT;
	}
	if (abi >= 6) { /* no signals to processes outside (hearth); no abstract sockets without network */
		sz = sizeof attr;
		attr.scoped = SANDBOX_LL_SCOPE_SIGNAL | (sb->spec.network || grant_net ? 0 : SANDBOX_LL_SCOPE_UNIX);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sz, 0);
	if (fd < 0)
		return err_errno(e, "sandbox: landlock ruleset");
	buf_addf(&tmp, "%s/tmp", sb->dir);
	if (sandbox_ll_rule(fd, tmp.data, w) < 0 ||
	    (sb->spec.mode == SANDBOX_WORKSPACE_WRITE && sandbox_ll_rule(fd, sb->root, w) < 0))
		goto fail;
	for (i = 0; sb->spec.mode == SANDBOX_WORKSPACE_WRITE && sb->spec.writable[i]; i++)
		if (sandbox_ll_rule(fd, sb->spec.writable[i], w) < 0)
			goto fail;
	for (i = 0; devs[i]; i++)
		if (sandbox_ll_rule(fd, devs[i], w) < 0)
			goto fail;
	buf_release(&tmp);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
fail:
	err_errno(e, "sandbox: landlock rule");
	buf_release(&tmp);
	close(fd);
	return -1;
}

/* In the child between fork and exec: enter the ruleset (async-signal-safe). */
static int
sandbox_ll_enter(void *arg)
{
	int fd = *(int *)arg;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_landlock_restrict_self, fd, 0) < 0 ? -1 : 0;
}
#endif

int
sandbox_wrap(struct sandbox *sb, const char *const *cmd, struct sandbox_cmd *c, struct err *e)
{
	enum sandbox_kind k = sandbox_kind(sb);
	struct buf t = BUF_INIT;
	size_t i;

	struct sandbox_spec spec;
	int grant = sb && sb->grant_net;

	memset(c, 0, sizeof *c);
	c->ruleset_fd = -1;
	if (sb)
		sb->grant_net = 0; /* one command only */
	if (k != SANDBOX_NONE && sandbox_dir(sb, e) < 0)
		return -1;
	if (k == SANDBOX_BWRAP) {
		spec = sb->spec;
		spec.network |= grant;
		sandbox_bwrap_argv(&spec, sb->dir, cmd, &c->argv, &c->made, &c->absent);
		sandbox_strv_add(&c->env, "TMPDIR=/tmp");
		return 0;
	}
	for (i = 0; cmd[i]; i++)
		sandbox_strv_add(&c->argv, cmd[i]);
	if (k == SANDBOX_NONE)
		return 0;
#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
	if ((c->ruleset_fd = sandbox_ll_ruleset(sb, grant, e)) < 0) {
		sandbox_cmd_release(c);
		return -1;
	}
	c->pre_exec = sandbox_ll_enter;
	c->pre_exec_arg = &c->ruleset_fd;
#endif
	buf_addf(&t, "TMPDIR=%s/tmp", sb->dir);
	sandbox_strv_add(&c->env, t.data);
	buf_release(&t);
	return 0;
}

/* Whether path is an empty directory. */
static int
sandbox_empty_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink <= 2 && rmdir(path) == 0;
}

void
sandbox_after(struct sandbox *sb, struct sandbox_cmd *c, struct buf *notes)
{
	size_t i;

	(void)sb;
	for (i = 0; i < c->made.n; i++)
		(void)sandbox_empty_dir(c->made.v[i]); /* rmdir: bwrap's mount point, never anything else */
	for (i = 0; i < c->absent.n; i++) {
		struct stat st;

		if (lstat(c->absent.v[i], &st) < 0)
			continue;
		sandbox_rm_rf(c->absent.v[i]);
		buf_addf(notes, "[sandbox: the command created %s, which commands may not create (it could run code "
				"or change hearth's settings); it was removed. Ask the user to create it.]\n",
			 c->absent.v[i]);
	}
}

void
sandbox_cmd_release(struct sandbox_cmd *c)
{
	sandbox_strv_release(&c->argv);
	sandbox_strv_release(&c->env);
	sandbox_strv_release(&c->made);
	sandbox_strv_release(&c->absent);
	if (c->ruleset_fd >= 0)
		close(c->ruleset_fd);
	c->ruleset_fd = -1;
}

int
sandbox_hint(struct sandbox *sb, const char *output, size_t n, struct buf *out)
{
	enum sandbox_kind k = sandbox_kind(sb);
	const char *needle = k == SANDBOX_BWRAP ? "Read-only file system" : "Permission denied";

	static const char *const net[] = { "Could not resolve host", "Temporary failure in name resolution",
					   "Network is unreachable", "Name or service not known", NULL };
	size_t i;

	for (i = 0; k != SANDBOX_NONE && !sb->hinted_net && !sb->spec.network && output && net[i]; i++)
		if (memmem(output, n, net[i], strlen(net[i]))) {
			sb->hinted_net = 1;
			buf_adds(out, "[sandbox: the network is off for commands that run without asking. The user "
				      "can approve the command (an allow rule in the settings, e.g. "
				      "\"permissions\": {\"allow\": [\"bash(npm install:*)\"]}, or yes to a question) "
				      "which turns the network on for it, or set \"sandbox_network\": true.]\n");
			return 1;
		}
	if (k == SANDBOX_NONE || sb->hinted || !output || !memmem(output, n, needle, strlen(needle)))
		return 0;
	sb->hinted = 1;
	buf_addf(out, "[sandbox (%s, %s): ", sandbox_kind_name(k), sandbox_mode_name(sb->spec.mode));
	if (sb->spec.mode == SANDBOX_WORKSPACE_WRITE)
		buf_addf(out, "only the workspace %s%s and $TMPDIR (private) are writable; everything else is "
			      "read-only. ", sb->root,
			 k == SANDBOX_BWRAP ? " (except .git/config, .git/hooks, .hearth/ and .mcp.json)" : "");
	else
		buf_adds(out, "only $TMPDIR (private) is writable; the workspace too is read-only. ");
	buf_adds(out, "A write refused by the sandbox cannot succeed by retrying: tell the user what you "
		      "wanted to write; they can do it themselves or change the \"sandbox\" setting.]\n");
	return 1;
}

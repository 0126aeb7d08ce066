/* testutil: see testutil.h. */
#define _GNU_SOURCE /* unshare */
#include "testutil.h"

#include <dirent.h>
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ui/term/grid.h"
#include "io/loop.h"
#include "base/xmalloc.h"

/* UTF-8 for wide-character drawing (see testutil.h). */
int
tu_utf8_locale(void **state)
{
	(void)state;
	return setlocale(LC_CTYPE, "C.UTF-8") ? 0 : -1;
}

/* A fresh temp dir. */
char *
tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/hearth-test-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(b.data));
	return buf_detach(&b, NULL);
}

/* Remove a test directory tree. */
void
tu_rmrf(const char *path)
{
	struct buf cmd = BUF_INIT;

	if (!path || strncmp(path, "/tmp/", 5) != 0)
		return; /* never outside /tmp */
	buf_addf(&cmd, "rm -rf '%s'", path);
	(void)!system(cmd.data);
	buf_release(&cmd);
}

/* Create dir/name with data. */
void
tu_write(const char *dir, const char *name, const char *data)
{
	struct buf p = BUF_INIT;
	FILE *f;

	buf_addf(&p, "%s/%s", dir, name);
	f = fopen(p.data, "wb");
	assert_non_null(f);
	fwrite(data, 1, strlen(data), f);
	fclose(f);
	buf_release(&p);
}

/* Contents of dir/name or NULL. */
char *
tu_read(const char *dir, const char *name)
{
	struct buf p = BUF_INIT, b = BUF_INIT;
	char *r = NULL;

	buf_addf(&p, "%s/%s", dir, name);
	if (buf_read_file(&b, p.data, 0, NULL) == 0)
		r = buf_detach(&b, NULL);
	buf_release(&b);
	buf_release(&p);
	return r;
}

/* A temp dir with an empty work tree w (see testutil.h). */
char *
tu_worktree(char w[TU_PATH], char state[TU_PATH])
{
	char *dir = tu_tmpdir();

	snprintf(w, TU_PATH, "%s/w", dir);
	snprintf(state, TU_PATH, "%s/state", dir);
	assert_int_equal(mkdir(w, 0755), 0);
	return dir;
}

/* See testutil.h. */
int
tu_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", ".." and the directory's own descriptor */
}

/* See testutil.h. */
int
tu_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Fixture bytes. */
void
tu_fixture(const char *name, struct buf *b)
{
	struct buf p = BUF_INIT;
	struct err e = ERR_INIT;

	buf_addf(&p, "%s/%s", FIXTURES, name);
	if (buf_read_file(b, p.data, 0, &e) < 0)
		fail_msg("fixture %s: %s", p.data, e.msg);
	buf_release(&p);
}

/* Bounded loop driving. */
int
tu_run_until(struct loop *l, const int *flag, int max_ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*flag) {
		long ms;

		loop_run_once(l, 20, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L;
		if (ms > max_ms)
			break;
	}
	return *flag;
}

/* Monotonic milliseconds (see testutil.h). */
uint64_t
tu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static pid_t tu_groups[256];
static int tu_ngroups;

/* Adopt orphaned descendants (see testutil.h). */
void
tu_subreaper(void)
{
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

/* Remember a process group to kill at the end (see testutil.h). */
void
tu_group_note(pid_t pgid)
{
	tu_groups[tu_ngroups++ % 256] = pgid;
}

/* Reap the group until it is empty (see testutil.h). */
int
tu_group_gone(pid_t pgid, int cap_ms)
{
	uint64_t t0 = tu_now_ms();
	int st;

	do {
		while (waitpid(-pgid, &st, WNOHANG) > 0)
			;
		if (kill(-pgid, 0) < 0 && errno == ESRCH)
			return 1;
		usleep(10000);
	} while (tu_now_ms() - t0 < (uint64_t)cap_ms);
	return 0;
}

/* Kill every remembered group, reap what is left (see testutil.h). */
void
tu_groups_kill(void)
{
	int i, st;

	for (i = 0; i < tu_ngroups && i < 256; i++)
		kill(-tu_groups[i], SIGKILL);
	while (waitpid(-1, &st, WNOHANG) > 0)
		;
}

/* Listen on an ephemeral loopback port. */
static int
tu_listen(int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 8), 0);
	getsockname(fd, (struct sockaddr *)&a, &len);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Case-insensitive strstr (see testutil.h). */
char *
tu_strcasestr(const char *h, const char *n)
{
	size_t len = strlen(n);

	for (; h && *h; h++)
		if (!strncasecmp(h, n, len))
			return (char *)h;
	return NULL;
}

/* Read one request (head and a Content-Length body) into req. */
static void
tu_read_request(int c, struct buf *req)
{
	char chunk[4096];
	ssize_t n;
	long want = -1;
	char *end, *cl;

	while ((n = read(c, chunk, sizeof chunk)) > 0) {
		buf_add(req, chunk, (size_t)n);
		if (want < 0 && (end = strstr(req->data, "\r\n\r\n")) != NULL) {
			cl = tu_strcasestr(req->data, "\r\ncontent-length:");
			want = cl && cl < end ? strtol(cl + 17, NULL, 10) : 0;
			want += (long)(end + 4 - req->data);
		}
		if (want >= 0 && (long)req->len >= want)
			return;
	}
}

/* The first unused response for the request in req (marking it used), or NULL. */
static const struct tu_resp *
tu_match(const struct buf *req, const struct tu_resp *resps, size_t n, char *used)
{
	char path[256] = "";
	size_t k;

	if (req->len)
		sscanf(req->data, "%*s %255s", path);
	for (k = 0; k < n; k++)
		if (!used[k] && (!resps[k].path || !strncmp(resps[k].path, path, strlen(resps[k].path)))) {
			used[k] = 1;
			return &resps[k];
		}
	return NULL;
}

/* Write r to c as tu_resp says: in chunks, with delays, cut short at drop_after. */
static void
tu_answer(int c, const struct tu_resp *r)
{
	size_t len = r->len ? r->len : strlen(r->raw), off = 0, k;

	while (off < len) {
		k = r->chunk ? r->chunk : len - off;
		if (k > len - off)
			k = len - off;
		if (r->drop_after && off + k > r->drop_after)
			k = r->drop_after - off;
		if (k == 0 || write(c, r->raw + off, k) < 0)
			break;
		off += k;
		if (r->drop_after && off >= r->drop_after)
			break;
		if (r->delay_us)
			usleep(r->delay_us);
	}
}

/* Serve the canned responses (child process), recording requests when s->dir is set. */
static void
tu_serve(const struct tu_server *s, int lfd, const struct tu_resp *resps, size_t n)
{
	size_t served;
	char used[64] = { 0 };

	alarm(10);
	for (served = 0; served < n; served++) {
		const struct tu_resp *r;
		struct buf req = BUF_INIT;
		int c = accept(lfd, NULL, NULL);

		if (c < 0)
			_exit(1);
		tu_read_request(c, &req);
		if (s->dir) {
			char name[32];

			snprintf(name, sizeof name, "req%zu", served);
			tu_write(s->dir, name, req.len ? req.data : "");
		}
		r = tu_match(&req, resps, n, used);
		buf_release(&req);
		if (r && r->hold)
			continue; /* the fd stays open until the server exits */
		if (r)
			tu_answer(c, r);
		close(c);
	}
	_exit(0);
}

/* Fork the server for s (s->dir already set or NULL). */
static void
tu_fork(struct tu_server *s, const struct tu_resp *resps, size_t n)
{
	int lfd = tu_listen(&s->port);
	pid_t pid;

	assert_true(n <= 64);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		tu_serve(s, lfd, resps, n);
	close(lfd);
	s->pid = (int)pid;
}

/* Fork the server. */
void
tu_server_start(struct tu_server *s, const struct tu_resp *resps, size_t n)
{
	s->dir = NULL;
	tu_fork(s, resps, n);
}

/* Fork the server, recording every request (see testutil.h). */
void
tu_server_record(struct tu_server *s, const struct tu_resp *resps, size_t n)
{
	s->dir = tu_tmpdir();
	tu_fork(s, resps, n);
}

/* Stop and reap the server; remove what it recorded. */
void
tu_server_stop(struct tu_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
	if (s->dir) {
		tu_rmrf(s->dir);
		free(s->dir);
	}
	s->dir = NULL;
}

/* Request k as the server read it (see testutil.h). */
char *
tu_server_req(const struct tu_server *s, int k)
{
	char name[32];

	snprintf(name, sizeof name, "req%d", k);
	return s->dir ? tu_read(s->dir, name) : NULL;
}

/* Bind, note the port, close: nothing listens there now. */
int
tu_closed_port(void)
{
	int port, fd = tu_listen(&port);

	close(fd);
	return port;
}

/* Run a shell command in dir (see testutil.h). */
int
tu_sh(const char *dir, const char *fmt, ...)
{
	char cmd[8192], full[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	snprintf(full, sizeof full, "cd '%s' && (%s) >/dev/null 2>&1", dir, cmd);
	return system(full);
}

/* A shell command's output (see testutil.h). */
char *
tu_sh_out(const char *dir, const char *cmd)
{
	char full[16384], chunk[4096];
	struct buf b = BUF_INIT;
	size_t n;
	FILE *p;

	snprintf(full, sizeof full, "cd '%s' && %s 2>&1", dir, cmd);
	p = popen(full, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
		buf_add(&b, chunk, n);
	pclose(p);
	return buf_detach(&b, NULL);
}

/* A grid as text, for snapshot comparisons (see testutil.h). */
char *
tu_grid_text(const struct grid *g)
{
	struct buf b = BUF_INIT;
	int y;

	for (y = 0; y < g->h; y++) {
		grid_row_text(g, y, &b);
		buf_addch(&b, '\n');
	}
	return buf_detach(&b, NULL);
}

/* Compare a grid's text with want (see testutil.h). */
void
tu_grid_expect(const struct grid *g, const char *want)
{
	char *got = tu_grid_text(g);

	assert_string_equal(got, want);
	free(got);
}

/* Compare two grids' text (see testutil.h). */
void
tu_grid_same(const struct grid *a, const struct grid *b)
{
	char *want = tu_grid_text(b);

	tu_grid_expect(a, want);
	free(want);
}

/* Write /proc/self/NAME (a user namespace's map); 0 or -1. */
static int
write_proc_self(const char *name, const char *text)
{
	char p[64];
	int fd, ok;

	snprintf(p, sizeof p, "/proc/self/%s", name);
	if ((fd = open(p, O_WRONLY)) < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* See testutil.h. */
void
tu_in_chroot(const char *dir, int map_ids, int (*fn)(void *arg), void *arg)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			_exit(77);
		if (map_ids) {
			snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
			if (write_proc_self("uid_map", map) < 0 || write_proc_self("setgroups", "deny") < 0)
				_exit(77);
			snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
			if (write_proc_self("gid_map", map) < 0)
				_exit(77);
		}
		if (chroot(dir) < 0 || chdir("/") < 0)
			_exit(77);
		_exit(fn(arg));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		print_message("no user namespaces here: skipped\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

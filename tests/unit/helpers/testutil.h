/*
 * testutil: shared helpers for the unit tests — temp directories, file
 * reading, fixture paths, and running a loop until a condition with a
 * wall-clock cap (so a bug fails a test instead of hanging it).
 */
#ifndef HEARTH_TESTUTIL_H
#define HEARTH_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"

struct loop;

/* cmocka group setup for the drawing tests: LC_CTYPE C.UTF-8 (-1 when missing). */
int tu_utf8_locale(void **state);
/* mkdtemp under $TMPDIR; returns a malloc'd path. */
char *tu_tmpdir(void);
/* rm -rf path (tests only). */
void tu_rmrf(const char *path);
/* Write a file (creating it) with the given bytes. */
void tu_write(const char *dir, const char *name, const char *data);
/* Read a whole file into a malloc'd string (NULL if missing). */
char *tu_read(const char *dir, const char *name);
/* Load a fixture from FIXTURES into b; aborts the test if missing. */
void tu_fixture(const char *name, struct buf *b);
/*
 * A work tree for the repository tests: a fresh temp dir (returned,
 * malloc'd; tu_rmrf and free it) holding an empty directory w, whose path
 * goes to w; state gets dir/state (not created), for a private store.
 */
#define TU_PATH 4096
char *tu_worktree(char w[TU_PATH], char state[TU_PATH]);
/*
 * Run fn(arg) in a child in its own user and mount namespace, chrooted into
 * dir (a workspace or repository at "/", as in a container), with the
 * caller's uid and gid mapped to root there when map_ids (files made
 * inside need a mapped owner).  The test fails unless fn returns 0 (its
 * value, a step number, is printed), and skips, saying so, where user
 * namespaces are not available.
 */
void tu_in_chroot(const char *dir, int map_ids, int (*fn)(void *arg), void *arg);
/* How many descriptors this process has open (/proc/self/fd, less the one reading it). */
int tu_open_fds(void);
/* How many threads this process has (/proc/self/task). */
int tu_threads(void);
/* Run the loop until *flag is non-zero or max_ms passes; returns *flag. */
int tu_run_until(struct loop *l, const int *flag, int max_ms);
/* Milliseconds on the monotonic clock. */
uint64_t tu_now_ms(void);

/*
 * Process groups a test started: tu_subreaper (first, in main) makes
 * the test process the reaper of its orphaned descendants (Linux);
 * tu_group_note remembers a group (the last 256); tu_group_gone reaps the
 * group's zombies until the group is empty (1) or cap_ms passed (0);
 * tu_groups_kill, at the end, SIGKILLs every remembered group and reaps
 * whatever children are left.
 */
void tu_subreaper(void);
void tu_group_note(pid_t pgid);
int tu_group_gone(pid_t pgid, int cap_ms);
void tu_groups_kill(void);


/*
 * A tiny forked HTTP server on 127.0.0.1 for tests: answers each accepted
 * connection with the next canned response (raw bytes: status line,
 * headers, body), written `chunk` bytes at a time (0 = all at once) with
 * `delay_us` between writes, closing after `drop_after` bytes if non-zero.
 * The child exits after serving all responses (at most 64) or after 10 s.
 * Started with tu_server_record, it also writes each request it reads
 * (head and body, as sent) to a temp dir, for tu_server_req.
 */
struct tu_resp {
	const char *path; /* answer only a request for this path (NULL: any) */
	const char *raw;
	size_t len; /* 0 = strlen(raw) */
	size_t chunk;
	unsigned delay_us;
	size_t drop_after;
	int hold;       /* answer nothing and keep the connection open (a queued request) */
};

struct tu_server {
	int port;
	int pid;
	char *dir; /* tu_server_record's request files (owned; NULL otherwise) */
};

void tu_server_start(struct tu_server *s, const struct tu_resp *resps, size_t n);
/* tu_server_start that also records the requests. */
void tu_server_record(struct tu_server *s, const struct tu_resp *resps, size_t n);
/* Kill and reap the server, remove its recorded requests; safe on a zeroed or stopped one. */
void tu_server_stop(struct tu_server *s);
/* Request k (0 = the first accepted) as recorded (malloc'd; NULL when it never came). */
char *tu_server_req(const struct tu_server *s, int k);
/* strstr ignoring ASCII case (strcasestr is a GNU extension). */
char *tu_strcasestr(const char *h, const char *n);
/* A port with nothing listening on it. */
int tu_closed_port(void);
struct grid;
/* The grid's rows as text, each ending in '\n', trailing blanks trimmed (malloc'd). */
char *tu_grid_text(const struct grid *g);
/* Assert that the grid's text (as tu_grid_text) is want. */
void tu_grid_expect(const struct grid *g, const char *want);
/* Assert that two grids show the same text. */
void tu_grid_same(const struct grid *a, const struct grid *b);
/* Run a shell command (printf format) in dir, output discarded; its exit status. */
int tu_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The output (stdout and stderr) of a shell command run in dir (malloc'd). */
char *tu_sh_out(const char *dir, const char *cmd);

#endif

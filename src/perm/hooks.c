/*
 * perm/hooks: running user commands at agent events (see perm/hooks.h).
 *
 * Entries are kept per event in settings order.  A run walks the entries
 * of its event that match its tool, one proc at a time: the event JSON is
 * written to an unlinked temporary file that becomes the child's stdin;
 * stdout arrives through proc's pipe, stderr through a pipe of our own
 * watched on the loop.  Both are kept up to PERM_HOOKS_KEEP bytes; past
 * PERM_HOOKS_FLOOD bytes in all the hook is killed.  When the proc exits, the
 * rest of stderr is drained without blocking and the outcome recorded;
 * the next entry starts from that callback.  Runs are linked into
 * h->runs until done, so perm_hooks_free can kill them.
 */
#include "perm/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "io/loop.h"
#include "perm/perm.h"
#include "io/proc.h"
#include "base/secret.h"
#include "base/fs.h"
#include "base/xmalloc.h"

struct perm_hooks_entry {
	char *command;
	char *matcher; /* tool-name glob (case-insensitive), NULL = every tool */
	int timeout_s;
};

struct perm_hooks {
	struct loop *loop;
	char *root;
	struct perm_hooks_entry *v[PERM_HOOKS_NEVENTS];
	size_t n[PERM_HOOKS_NEVENTS];
	struct perm_hooks_run *runs;
};

struct perm_hooks_run {
	struct perm_hooks *h;
	struct perm_hooks_run *next;
	enum perm_hooks_event event;
	char *tool, *session, *json;
	size_t next_entry;
	const struct perm_hooks_entry *cur;
	struct proc *proc;
	int err_fd;
	size_t total;
	int flooded;
	struct buf out, err;
	struct perm_hooks_result res;
	perm_hooks_done_fn done;
	void *arg;
};

static const char *const perm_hooks_names[PERM_HOOKS_NEVENTS] = {
	"session_start", "pre_tool", "post_tool", "turn_end"
};

/* An empty set of hooks for workspace root. */
struct perm_hooks *
perm_hooks_new(struct loop *l, const char *root)
{
	struct perm_hooks *h = xcalloc(1, sizeof *h);

	h->loop = l;
	h->root = xstrdup(root);
	return h;
}

/* Event name. */
const char *
perm_hooks_event_name(enum perm_hooks_event ev)
{
	return ev < PERM_HOOKS_NEVENTS ? perm_hooks_names[ev] : "?";
}

/* Append one entry (string or object) to event ev. */
static void
perm_hooks_add(struct perm_hooks *h, enum perm_hooks_event ev, const cJSON *it, const char *where,
	  struct buf *warnings)
{
	const cJSON *cmd = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "command");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "matcher");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "timeout");
	struct perm_hooks_entry *e;

	if (!cJSON_IsString(cmd) || !*cmd->valuestring) {
		buf_addf(warnings, "%s: hooks.%s: each hook needs a \"command\" string; ignored\n", where,
			 perm_hooks_names[ev]);
		return;
	}
	if ((m && !cJSON_IsString(m)) || (t && (!cJSON_IsNumber(t) || t->valuedouble < 1 ||
						t->valuedouble > 3600))) {
		buf_addf(warnings, "%s: hooks.%s: \"matcher\" must be a string and \"timeout\" 1-3600 seconds; hook ignored\n",
			 where, perm_hooks_names[ev]);
		return;
	}
	h->v[ev] = xrealloc(h->v[ev], (h->n[ev] + 1) * sizeof *h->v[ev]);
	e = &h->v[ev][h->n[ev]++];
	e->command = xstrdup(cmd->valuestring);
	e->matcher = m && *m->valuestring ? xstrdup(m->valuestring) : NULL;
	e->timeout_s = t ? (int)t->valuedouble : PERM_HOOKS_TIMEOUT_S;
}

/* Merge a settings "hooks" object. */
void
perm_hooks_load_json(struct perm_hooks *h, const cJSON *obj, const char *where, struct buf *warnings)
{
	const cJSON *it, *e;
	int ev;

	if (!cJSON_IsObject(obj)) {
		buf_addf(warnings, "%s: \"hooks\" must be an object like {\"pre_tool\": [{\"command\": \"...\"}]}; ignored\n", where);
		return;
	}
	cJSON_ArrayForEach(it, obj) {
		for (ev = 0; ev < PERM_HOOKS_NEVENTS; ev++)
			if (!strcmp(it->string, perm_hooks_names[ev]))
				break;
		if (ev == PERM_HOOKS_NEVENTS) {
			buf_addf(warnings, "%s: unknown hook event \"%s\" ignored (session_start, pre_tool, post_tool, turn_end)\n",
				 where, it->string);
			continue;
		}
		if (!cJSON_IsArray(it)) {
			buf_addf(warnings, "%s: hooks.%s must be an array; ignored\n", where, it->string);
			continue;
		}
		cJSON_ArrayForEach(e, it)
			perm_hooks_add(h, (enum perm_hooks_event)ev, e, where, warnings);
	}
}

/* Whether entry e applies to tool. */
static int
perm_hooks_matches(const struct perm_hooks_entry *e, const char *tool)
{
	char low[128];
	size_t i;

	if (!e->matcher || !strcmp(e->matcher, "*"))
		return 1;
	if (!tool)
		return 0;
	for (i = 0; tool[i] && i + 1 < sizeof low; i++)
		low[i] = (char)((tool[i] >= 'A' && tool[i] <= 'Z') ? tool[i] + 32 : tool[i]);
	low[i] = '\0';
	return perm_glob(e->matcher, tool) || perm_glob(e->matcher, low) || !strcasecmp(e->matcher, tool);
}

/* Count matching hooks. */
size_t
perm_hooks_count(const struct perm_hooks *h, enum perm_hooks_event ev, const char *tool)
{
	size_t i, n = 0;

	for (i = 0; i < h->n[ev]; i++)
		n += (size_t)perm_hooks_matches(&h->v[ev][i], tool);
	return n;
}

/* Keep up to PERM_HOOKS_KEEP bytes in b; kill the hook past PERM_HOOKS_FLOOD in all. */
static void
perm_hooks_take(struct perm_hooks_run *r, struct buf *b, const char *data, size_t n)
{
	if (b->len < PERM_HOOKS_KEEP)
		buf_add(b, data, n < PERM_HOOKS_KEEP - b->len ? n : PERM_HOOKS_KEEP - b->len);
	r->total += n;
	if (r->total > PERM_HOOKS_FLOOD && !r->flooded && r->proc) {
		r->flooded = 1;
		proc_kill(r->proc);
	}
}

/* Read what stderr has now (without blocking); 0 at EOF or error. */
static int
perm_hooks_read_err(struct perm_hooks_run *r)
{
	char chunk[4096];
	ssize_t n;

	for (;;) {
		n = read(r->err_fd, chunk, sizeof chunk);
		if (n > 0) {
			perm_hooks_take(r, &r->err, chunk, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

/* Close our end of stderr. */
static void
perm_hooks_close_err(struct perm_hooks_run *r)
{
	if (r->err_fd < 0)
		return;
	loop_unwatch(r->h->loop, r->err_fd);
	close(r->err_fd);
	r->err_fd = -1;
}

/* The loop: stderr readable. */
static void
perm_hooks_on_err(struct loop *l, int fd, int events, void *arg)
{
	struct perm_hooks_run *r = arg;

	(void)l;
	(void)fd;
	(void)events;
	if (!perm_hooks_read_err(r))
		perm_hooks_close_err(r);
}

/* proc: stdout bytes. */
static void
perm_hooks_on_out(struct proc *p, const char *data, size_t n, void *arg)
{
	(void)p;
	perm_hooks_take(arg, &((struct perm_hooks_run *)arg)->out, data, n);
}

static int perm_hooks_next(struct perm_hooks_run *r);

/* The first line of b (at most 200 bytes) for a problem line. */
static void
perm_hooks_first_line(const struct buf *b, struct buf *out)
{
	size_t n = b->len;
	const char *nl = memchr(b->data, '\n', b->len);

	if (nl)
		n = (size_t)(nl - b->data);
	if (n > 200)
		n = 200;
	if (n)
		buf_addf(out, ": %.*s", (int)n, b->data);
}

/* Record the outcome of the hook that just ended. */
static void
perm_hooks_outcome(struct perm_hooks_run *r)
{
	struct perm_hooks_result *res = &r->res;
	const char *name = perm_hooks_names[r->event], *cmd = r->cur->command;
	int st = proc_status(r->proc);

	buf_add(&res->output, r->out.data, r->out.len);
	if (r->flooded) {
		buf_addf(&res->problems, "hook \"%s\" (%s) wrote more than %d bytes and was killed\n",
			 cmd, name, PERM_HOOKS_FLOOD);
	} else if (proc_timed_out(r->proc)) {
		buf_addf(&res->problems, "hook \"%s\" (%s) timed out after %d s and was killed\n", cmd,
			 name, r->cur->timeout_s);
	} else if (st == 2 && r->event == PERM_HOOKS_PRE_TOOL) {
		res->blocked = 1;
		buf_add(&res->reason, r->err.data, r->err.len);
		buf_rtrim(&res->reason);
		if (!res->reason.len)
			buf_addf(&res->reason, "blocked by the hook \"%s\"", cmd);
	} else if (st != 0) {
		buf_addf(&res->problems, "hook \"%s\" (%s) exited with status %d", cmd, name, st);
		perm_hooks_first_line(&r->err, &res->problems);
		buf_addch(&res->problems, '\n');
	}
}

/* proc: the hook exited. */
static void
perm_hooks_on_exit(struct proc *p, void *arg)
{
	struct perm_hooks_run *r = arg;

	(void)p;
	if (r->err_fd >= 0)
		perm_hooks_read_err(r);
	perm_hooks_close_err(r);
	perm_hooks_outcome(r);
	proc_free(r->proc);
	r->proc = NULL;
	(void)perm_hooks_next(r);
}

/* The event JSON as an unlinked temporary file, positioned at 0; -1 on failure. */
static int
perm_hooks_stdin(const char *json)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	size_t n = strlen(json);
	int fd;

	snprintf(path, sizeof path, "%s/hearth-hook.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	unlink(path);
	if (fs_write_all(fd, json, n) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Start hook e; -1 with a problem line when it cannot start. */
static int
perm_hooks_start(struct perm_hooks_run *r, const struct perm_hooks_entry *e)
{
	char ev[64], dir[4200], tool[192], sess[128];
	const char *argv[] = { "/bin/sh", "-c", e->command, NULL };
	const char *env[] = { ev, dir, tool, sess, NULL };
	struct proc_spec spec = { 0 };
	struct err err = ERR_INIT;
	int in = perm_hooks_stdin(r->json), pfd[2] = { -1, -1 };

	snprintf(ev, sizeof ev, "HEARTH_EVENT=%s", perm_hooks_names[r->event]);
	snprintf(dir, sizeof dir, "HEARTH_PROJECT_DIR=%s", r->h->root);
	snprintf(tool, sizeof tool, "HEARTH_TOOL=%s", r->tool ? r->tool : "");
	snprintf(sess, sizeof sess, "HEARTH_SESSION_ID=%s", r->session ? r->session : "");
	if (in < 0 || pipe(pfd) < 0) {
		buf_addf(&r->res.problems, "hook \"%s\" (%s) could not start: %s\n", e->command,
			 perm_hooks_names[r->event], strerror(errno));
		if (in >= 0)
			close(in);
		return -1;
	}
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	spec.argv = argv;
	spec.cwd = r->h->root;
	spec.env = env;
	spec.timeout_ms = (uint64_t)e->timeout_s * 1000;
	spec.stdin_fd = in;
	spec.stderr_fd = pfd[1];
	spec.on_output = perm_hooks_on_out;
	spec.on_exit = perm_hooks_on_exit;
	spec.arg = r;
	r->cur = e;
	r->total = 0;
	r->flooded = 0;
	buf_reset(&r->out);
	buf_reset(&r->err);
	r->proc = proc_spawn(r->h->loop, &spec, &err);
	close(in);
	close(pfd[1]);
	if (!r->proc) {
		close(pfd[0]);
		buf_addf(&r->res.problems, "hook \"%s\" (%s) could not start: %s\n", e->command,
			 perm_hooks_names[r->event], err.msg);
		return -1;
	}
	r->err_fd = pfd[0];
	loop_watch(r->h->loop, r->err_fd, LOOP_READ, perm_hooks_on_err, r);
	return 0;
}

/* Unlink r from h's runs and free it. */
static void
perm_hooks_run_free(struct perm_hooks_run *r)
{
	struct perm_hooks_run **pp;

	for (pp = &r->h->runs; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	perm_hooks_close_err(r);
	proc_free(r->proc);
	free(r->tool);
	free(r->session);
	free(r->json);
	buf_release(&r->out);
	buf_release(&r->err);
	buf_release(&r->res.reason);
	buf_release(&r->res.problems);
	buf_release(&r->res.output);
	free(r);
}

/* Start the next matching hook (1), or finish and free the run (0). */
static int
perm_hooks_next(struct perm_hooks_run *r)
{
	struct perm_hooks *h = r->h;

	while (!r->res.blocked && r->next_entry < h->n[r->event]) {
		const struct perm_hooks_entry *e = &h->v[r->event][r->next_entry++];

		if (perm_hooks_matches(e, r->tool) && perm_hooks_start(r, e) == 0)
			return 1;
	}
	buf_rtrim(&r->res.problems);
	secret_mask(&r->res.reason); /* what hooks print goes to the screen and the model */
	secret_mask(&r->res.problems);
	secret_mask(&r->res.output);
	if (r->done)
		r->done(r->arg, &r->res);
	perm_hooks_run_free(r);
	return 0;
}

/* Run the hooks of one event. */
struct perm_hooks_run *
perm_hooks_run(struct perm_hooks *h, const struct perm_hooks_call *c, perm_hooks_done_fn done, void *arg)
{
	struct perm_hooks_run *r;

	if (!perm_hooks_count(h, c->event, c->tool)) {
		struct perm_hooks_result none = { 0, BUF_INIT, BUF_INIT, BUF_INIT };

		if (done)
			done(arg, &none);
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	r->h = h;
	r->event = c->event;
	r->tool = c->tool ? xstrdup(c->tool) : NULL;
	r->session = c->session_id ? xstrdup(c->session_id) : NULL;
	r->json = xstrdup(c->json ? c->json : "{}");
	r->err_fd = -1;
	r->done = done;
	r->arg = arg;
	buf_init(&r->out, 0);
	buf_init(&r->err, 0);
	buf_init(&r->res.reason, 0);
	buf_init(&r->res.problems, 0);
	buf_init(&r->res.output, 0);
	r->next = h->runs;
	h->runs = r;
	return perm_hooks_next(r) ? r : NULL; /* NULL: every hook failed to start, already done */
}

/* Kill a run without its callback. */
void
perm_hooks_cancel(struct perm_hooks_run *r)
{
	if (r)
		perm_hooks_run_free(r);
}

/* Whether a run is still going. */
int
perm_hooks_busy(const struct perm_hooks *h)
{
	return h && h->runs != NULL;
}

/* Kill every run and free the entries. */
void
perm_hooks_free(struct perm_hooks *h)
{
	size_t i;
	int ev;

	if (!h)
		return;
	while (h->runs)
		perm_hooks_run_free(h->runs);
	for (ev = 0; ev < PERM_HOOKS_NEVENTS; ev++) {
		for (i = 0; i < h->n[ev]; i++) {
			free(h->v[ev][i].command);
			free(h->v[ev][i].matcher);
		}
		free(h->v[ev]);
	}
	free(h->root);
	free(h);
}

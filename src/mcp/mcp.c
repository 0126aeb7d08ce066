/*
 * mcp/mcp: MCP servers on the loop (see mcp/mcp.h).
 *
 * Data: struct mcp owns an array of servers (fixed once started) and a
 * list of every tool struct ever made (`tools`, freed only by mcp_free).
 * A server has a state (STARTING until its first tool list is in, then
 * READY, or DEAD for good), its proc, the write end of its stdin with a
 * queue of bytes not yet written (outq from outpos), the line reader of
 * its stdout, the tail of its stderr, and the requests in flight (a list
 * of struct pend, each with its timeout timer; a tools/call pend also
 * holds its job, and job->priv points back at the pend).  reg[] is the
 * server's tools registered now; listing/nlisting collects the pages of
 * a tools/list in progress.
 *
 * Invariant: a DEAD server has no pends, no registered tools, no stdin;
 * its proc may still be running until its exit callback frees it.  Code
 * that can run callbacks (job completion, reports) re-checks the state
 * afterwards.  The proc is only freed from its exit callback or mcp_free,
 * never from its output callback.
 */
#include "mcp/mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "io/loop.h"
#include "mcp/config.h"
#include "mcp/http.h"
#include "io/http.h"
#include "mcp/proto.h"
#include "mcp/tools.h"
#include "mcp/wire.h"
#include "io/proc.h"
#include "base/xmalloc.h"

#define MCP_MAX_QUEUE (64u << 20) /* unwritten bytes before a server counts as stuck */
#define MCP_ERR_TAIL 2048
#define MCP_START_MIN_MS 30000 /* initialize and tools/list get at least this long */
#define MCP_PROGRESS_CAP 10 /* progress extends a call to at most this many timeouts */

/* Report a line through the sink, or keep it until there is one. */
void
mcp_report(struct mcp *m, const char *fmt, ...)
{
	struct buf line = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (m->report)
		m->report(m->report_arg, line.data);
	else
		buf_addf(&m->queued, "%s\n", line.data);
	buf_release(&line);
}

/* The last non-empty line of the server's stderr, for error reports ("" if none). */
static void
err_tail(struct mcp_server *s, struct buf *out)
{
	size_t end = s->errtail.len, start;

	while (end && (s->errtail.data[end - 1] == '\n' || s->errtail.data[end - 1] == '\r'))
		end--;
	start = end;
	while (start && s->errtail.data[start - 1] != '\n')
		start--;
	if (end > start)
		buf_addf(out, " (stderr: %.*s)", (int)(end - start > 200 ? 200 : end - start),
			 s->errtail.data + start);
}

/* Stop watching and close the server's stdin and stderr pipes. */
static void
close_pipes(struct mcp_server *s)
{
	if (s->in_w >= 0) {
		loop_unwatch(s->m->loop, s->in_w);
		close(s->in_w);
		s->in_w = -1;
	}
	if (s->err_r >= 0) {
		loop_unwatch(s->m->loop, s->err_r);
		close(s->err_r);
		s->err_r = -1;
	}
}

/* Take a pend off the server's list and cancel its timer. */
void
mcp_server_unlink(struct mcp_server *s, struct pend *p)
{
	struct pend **pp;

	for (pp = &s->pends; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	if (p->timer)
		loop_timer_del(s->m->loop, p->timer);
	p->timer = 0;
	if (p->job)
		p->job->priv = NULL;
}

/* End every request in flight of s with line: calls fail, prompts/get waiters hear it. */
static void
fail_pends(struct mcp_server *s, const char *line)
{
	struct pend *p;

	s->prompts_busy = 0;
	while ((p = s->pends) != NULL) {
		struct tool_job *job = p->job;
		mcp_prompt_fn pfn = p->pfn;
		void *parg = p->parg;

		mcp_server_unlink(s, p);
		cJSON_Delete(p->held);
		free(p);
		if (job)
			tool_job_fail(job, "%s", line);
		else if (pfn)
			pfn(parg, 0, line);
	}
}

/*
 * The server is unusable: report why (once), remove its tools, end its
 * calls with the reason, and kill it.
 */
void
mcp_server_fail(struct mcp_server *s, const char *why)
{
	struct buf line = BUF_INIT;

	if (s->state == SRV_DEAD)
		return;
	s->state = SRV_DEAD;
	buf_addf(&line, "mcp server %s: %s", s->name, why);
	err_tail(s, &line);
	free(s->why);
	s->why = xstrdup(line.data + strlen("mcp server : ") + strlen(s->name));
	buf_adds(&line, "; its tools are removed");
	mcp_tools_unregister_all(s);
	close_pipes(s);
	mcp_http_close(s);
	if (s->proc)
		proc_kill(s->proc);
	mcp_report(s->m, "%s", line.data);
	fail_pends(s, line.data);
	buf_release(&line);
}

static void start_server(struct mcp *m, struct mcp_server *s);
static void reset_listing(struct mcp_server *s);

/* s's HTTP session is gone: a new one (see mcp/tools.h). */
void
mcp_server_restart(struct mcp_server *s, const char *why)
{
	struct buf line = BUF_INIT;

	if (s->state == SRV_DEAD)
		return;
	if (s->state == SRV_STARTING) { /* the new session did not last either */
		buf_addf(&line, "%s before it was ready", why);
		mcp_server_fail(s, line.data);
		buf_release(&line);
		return;
	}
	buf_addf(&line, "mcp server %s: %s; a new session starts (calls in flight fail: call again)", s->name, why);
	mcp_report(s->m, "%s", line.data);
	s->state = SRV_STARTING; /* first: calls the failures below start wait for the new session */
	mcp_tools_unregister_all(s);
	mcp_http_close(s);
	reset_listing(s);
	fail_pends(s, line.data);
	buf_release(&line);
	if (s->state == SRV_DEAD)
		return;
	s->sessions++;
	start_server(s->m, s);
}

/* Write what is queued; watch for writability while some remains. */
static void mcp_flush(struct mcp_server *s);

/* Loop: stdin became writable. */
static void
on_writable(struct loop *l, int fd, int events, void *arg)
{
	(void)l;
	(void)fd;
	(void)events;
	mcp_flush(arg);
}

static void
mcp_flush(struct mcp_server *s)
{
	while (s->in_w >= 0 && s->outpos < s->outq.len) {
		ssize_t n = write(s->in_w, s->outq.data + s->outpos, s->outq.len - s->outpos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			loop_watch(s->m->loop, s->in_w, LOOP_WRITE, on_writable, s);
			return;
		}
		if (n < 0) { /* it closed its input: usually exiting; its exit reports why */
			loop_unwatch(s->m->loop, s->in_w);
			close(s->in_w);
			s->in_w = -1;
			break;
		}
		s->outpos += (size_t)n;
	}
	if (s->in_w >= 0)
		loop_unwatch(s->m->loop, s->in_w);
	buf_reset(&s->outq);
	s->outpos = 0;
}

/* Queue one line for the server and try to write it now. */
void
mcp_server_send(struct mcp_server *s, struct buf *line)
{
	if (s->state == SRV_DEAD)
		return;
	if (s->transport != MCP_STDIO) {
		mcp_http_send(s, line);
		return;
	}
	if (s->outq.len - s->outpos + line->len > MCP_MAX_QUEUE) {
		mcp_server_fail(s, "does not read its input");
		return;
	}
	buf_add(&s->outq, line->data, line->len);
	mcp_flush(s);
}

/*
 * A request timed out.  A tools/call is cancelled on the server
 * (notifications/cancelled) and fails alone: the server and its other
 * calls go on.  A server that does not answer initialize or tools/list
 * is given up on.
 */
static void
on_pend_timeout(struct loop *l, long id, void *arg)
{
	struct pend *p = arg;
	struct mcp_server *s = p->srv;
	struct buf line = BUF_INIT, why = BUF_INIT;
	int secs = (int)((loop_now_ms(s->m->loop) - p->t_start + 500) / 1000);

	(void)l;
	(void)id;
	p->timer = 0;
	if (p->job) {
		buf_addf(&why, "mcp server %s did not answer %s within %d s (setting mcp_timeout",
			 s->name, p->what, secs);
		if (p->nprogress)
			buf_addf(&why, "; %ld progress notifications extended the wait", p->nprogress);
		buf_adds(&why, "): the call was cancelled, the server keeps running");
		mcp_server_cancel(s, p, "timed out", why.data);
		buf_release(&why);
		return;
	}
	mcp_wire_notify(&line, "notifications/cancelled",
		       mcp_wire_cancel_params(p->id, "timed out"));
	mcp_server_send(s, &line);
	buf_addf(&why, "did not answer %s within %d s (setting mcp_timeout; at least %d s to start)", p->what,
		 secs, MCP_START_MIN_MS / 1000);
	mcp_server_fail(s, why.data);
	buf_release(&line);
	buf_release(&why);
}

/* Progress for a request in flight: its timer starts again, up to MCP_PROGRESS_CAP timeouts in all. */
void
mcp_server_progress(struct mcp_server *s, long id)
{
	struct pend *p;
	uint64_t now = loop_now_ms(s->m->loop), end, cap;

	for (p = s->pends; p && p->id != id; p = p->next)
		;
	if (!p || !p->timer)
		return;
	p->nprogress++;
	cap = p->t_start + (uint64_t)s->m->timeout_ms * MCP_PROGRESS_CAP;
	end = now + (uint64_t)s->m->timeout_ms;
	if (end > cap)
		end = cap;
	loop_timer_del(s->m->loop, p->timer);
	p->timer = loop_timer_add(s->m->loop, end > now ? end - now : 0, on_pend_timeout, p);
}

/*
 * How long a request may take: mcp_timeout for a call; for the start-up
 * requests (initialize, tools/list) at least MCP_START_MIN_MS, since a
 * server run through node or npx takes seconds to start.
 */
static int
pend_timeout_ms(const struct mcp_server *s, const char *method)
{
	if (!strcmp(method, "tools/call") || s->m->timeout_ms >= MCP_START_MIN_MS)
		return s->m->timeout_ms;
	return MCP_START_MIN_MS;
}

/* Send a request and remember it; the pend is returned (NULL when the server is dead). */
struct pend *
mcp_server_request(struct mcp_server *s, const char *method, cJSON *params, const char *what)
{
	struct buf line = BUF_INIT;
	struct pend *p;

	if (s->state == SRV_DEAD) {
		cJSON_Delete(params);
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->srv = s;
	p->id = ++s->next_id;
	snprintf(p->what, sizeof p->what, "%s", what);
	p->next = s->pends;
	s->pends = p;
	p->t_start = loop_now_ms(s->m->loop);
	p->timer = loop_timer_add(s->m->loop, (uint64_t)pend_timeout_ms(s, method), on_pend_timeout, p);
	mcp_wire_request(&line, p->id, method, params);
	mcp_server_send(s, &line);
	buf_release(&line);
	return s->state == SRV_DEAD ? NULL : p;
}

/* Cancel a call the agent aborts: tell the server (unless it was only held), end the job. */
void
mcp_server_cancel(struct mcp_server *s, struct pend *p, const char *reason, const char *msg)
{
	struct buf line = BUF_INIT;
	struct tool_job *job = p->job;
	int sent = !p->held;

	mcp_server_unlink(s, p);
	if (sent)
		mcp_wire_notify(&line, "notifications/cancelled", mcp_wire_cancel_params(p->id, reason));
	cJSON_Delete(p->held);
	free(p);
	if (sent)
		mcp_server_send(s, &line);
	buf_release(&line);
	tool_job_fail(job, "%s", msg);
}

/* Hold a call until s's new session is ready (see mcp/tools.h). */
void
mcp_server_hold(struct mcp_server *s, struct tool_job *job, const cJSON *args, const char *what)
{
	struct pend *p = xcalloc(1, sizeof *p);

	p->srv = s;
	p->id = 0; /* never sent: no id of ours */
	p->job = job;
	p->held = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	snprintf(p->what, sizeof p->what, "%s", what);
	p->next = s->pends;
	s->pends = p;
	p->t_start = loop_now_ms(s->m->loop);
	p->timer = loop_timer_add(s->m->loop, (uint64_t)s->m->timeout_ms + MCP_START_MIN_MS, on_pend_timeout, p);
	job->priv = p;
}

/* s is ready: send the calls held for it. */
void
mcp_server_release_held(struct mcp_server *s)
{
	struct pend **pp = &s->pends, *p;

	while (s->state == SRV_READY && (p = *pp) != NULL) {
		struct tool_job *job = p->job;
		cJSON *args = p->held;

		if (!args) {
			pp = &p->next;
			continue;
		}
		mcp_server_unlink(s, p);
		free(p);
		job->priv = NULL;
		mcp_tools_call(job, args);
		cJSON_Delete(args);
		pp = &s->pends; /* the list changed: from its head again (held ones are few) */
	}
}

/* proc: stdout bytes; each complete line is one message. */
static void
on_output(struct proc *pr, const char *data, size_t n, void *arg)
{
	struct mcp_server *s = arg;
	struct mcp_wire_msg msg;
	struct err e = ERR_INIT;
	const char *line;
	size_t len;
	int rc;

	(void)pr;
	if (s->state == SRV_DEAD)
		return;
	mcp_wire_lines_add(&s->lines, data, n);
	while (s->state != SRV_DEAD && (rc = mcp_wire_lines_next(&s->lines, &line, &len, &e)) != 0) {
		if (rc < 0 || (len && mcp_wire_parse(line, len, &msg, &e) < 0)) {
			mcp_server_fail(s, e.msg);
			return;
		}
		if (!len)
			continue;
		mcp_proto_dispatch(s, &msg);
		mcp_wire_msg_free(&msg);
	}
}

/* Read the server's stderr, keeping its tail; at EOF (or when `final`, once drained) close it. */
static void
read_stderr(struct mcp_server *s, int final)
{
	char chunk[4096];

	while (s->err_r >= 0) {
		ssize_t n = read(s->err_r, chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !final)
			return;
		if (n <= 0) {
			loop_unwatch(s->m->loop, s->err_r);
			close(s->err_r);
			s->err_r = -1;
			return;
		}
		buf_add(&s->errtail, chunk, (size_t)n);
		if (s->errtail.len > MCP_ERR_TAIL)
			buf_remove(&s->errtail, 0, s->errtail.len - MCP_ERR_TAIL);
	}
}

/* Loop: stderr is readable. */
static void
on_stderr(struct loop *l, int fd, int events, void *arg)
{
	(void)l;
	(void)fd;
	(void)events;
	read_stderr(arg, 0);
}

/* proc: the server exited (and its stdout closed). */
static void
on_exit_cb(struct proc *pr, void *arg)
{
	struct mcp_server *s = arg;
	struct buf why = BUF_INIT;

	read_stderr(s, 1); /* what it said last goes into the report */
	if (proc_signal(pr))
		buf_addf(&why, "was killed by signal %d", proc_signal(pr));
	else
		buf_addf(&why, "exited with status %d", proc_status(pr));
	mcp_server_fail(s, why.data);
	buf_release(&why);
	proc_free(pr);
	s->proc = NULL;
}

/* Two close-on-exec pipes: the child's stdin and stderr. */
static int
make_pipes(int in[2], int errp[2])
{
	if (pipe(in) < 0)
		return -1;
	if (pipe(errp) < 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	fcntl(in[0], F_SETFD, FD_CLOEXEC);
	fcntl(in[1], F_SETFD, FD_CLOEXEC);
	fcntl(errp[0], F_SETFD, FD_CLOEXEC);
	fcntl(errp[1], F_SETFD, FD_CLOEXEC);
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	fcntl(errp[0], F_SETFL, fcntl(errp[0], F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Spawn one server and send initialize. */
static void
start_server(struct mcp *m, struct mcp_server *s)
{
	struct proc_spec spec = { 0 };
	struct err e = ERR_INIT;
	int in[2], errp[2];

	s->starts++;
	if (s->transport != MCP_STDIO) {
		mcp_http_start(s);
		(void)mcp_server_request(s, "initialize", mcp_wire_init_params("hearth", HEARTH_VERSION),
					 "initialize");
		return;
	}
	if (make_pipes(in, errp) < 0) {
		mcp_server_fail(s, "cannot create pipes");
		return;
	}
	spec.argv = (const char *const *)s->argv;
	spec.cwd = m->root;
	spec.env = (const char *const *)s->env;
	spec.on_output = on_output;
	spec.on_exit = on_exit_cb;
	spec.arg = s;
	spec.stdin_fd = in[0];
	spec.stderr_fd = errp[1];
	spec.die_with_parent = 1;	/* a SIGKILLed hearth leaves no server behind */
	s->proc = proc_spawn(m->loop, &spec, &e);
	close(in[0]);
	close(errp[1]);
	s->in_w = in[1];
	s->err_r = errp[0];
	if (!s->proc) {
		mcp_server_fail(s, e.msg);
		return;
	}
	loop_watch(m->loop, s->err_r, LOOP_READ, on_stderr, s);
	(void)mcp_server_request(s, "initialize", mcp_wire_init_params("hearth", HEARTH_VERSION),
				 "initialize");
}

/* A copy of a NULL-terminated string vector (NULL stays NULL). */
static char **
strv_dup(char *const *v)
{
	size_t n = 0, i;
	char **out;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

/* Free a vector from strv_dup. */
static void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A manager with no servers yet. */
struct mcp *
mcp_new(struct loop *l, const char *root, int timeout_s)
{
	struct mcp *m = xcalloc(1, sizeof *m);

	m->loop = l;
	m->root = xstrdup(root);
	m->timeout_ms = (timeout_s > 0 ? timeout_s : 60) * 1000;
	buf_init(&m->queued, 0);
	return m;
}

/* Start the configured servers. */
void
mcp_start(struct mcp *m, const struct mcp_config *cfg)
{
	size_t i;

	json_init();
	m->servers = xcalloc(cfg->n + 1, sizeof *m->servers);
	for (i = 0; i < cfg->n; i++) {
		struct mcp_server *s = &m->servers[m->nservers++];

		s->m = m;
		s->name = xstrdup(cfg->v[i].name);
		s->argv = strv_dup(cfg->v[i].argv);
		s->env = strv_dup(cfg->v[i].env);
		s->transport = cfg->v[i].transport;
		s->url = cfg->v[i].url ? xstrdup(cfg->v[i].url) : NULL;
		s->headers = strv_dup(cfg->v[i].headers);
		s->in_w = s->err_r = -1;
		buf_init(&s->outq, 0);
		buf_init(&s->errtail, 0);
		mcp_wire_lines_init(&s->lines);
		start_server(m, s);
	}
}

/* Set the sink and deliver what was kept. */
void
mcp_set_report(struct mcp *m, mcp_report_fn fn, void *arg)
{
	char *line, *save = NULL;

	if (!m)
		return;
	m->report = fn;
	m->report_arg = arg;
	if (!fn || !m->queued.len)
		return;
	for (line = strtok_r(m->queued.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fn(arg, line);
	buf_reset(&m->queued);
}

/* Servers still starting. */
size_t
mcp_starting(const struct mcp *m)
{
	size_t i, n = 0;

	for (i = 0; m && i < m->nservers; i++)
		n += m->servers[i].state == SRV_STARTING || m->servers[i].prompts_busy;
	return n;
}

/* /mcp: per server its state, command, last failure and tools. */
void
mcp_status(const struct mcp *m, struct buf *out)
{
	static const char *const names[] = { "starting", "ready", "failed" };
	size_t i, j, k;

	if (!m || !m->nservers) {
		buf_adds(out, "no mcp servers configured (.mcp.json in the project, mcp.json in the config dir)\n");
		return;
	}
	for (i = 0; i < m->nservers; i++) {
		const struct mcp_server *s = &m->servers[i];

		buf_addf(out, "%s: %s, %zu tool%s; %s", s->name, names[s->state], s->nreg,
			 s->nreg == 1 ? "" : "s",
			 s->transport == MCP_HTTP ? "http " : s->transport == MCP_SSE ? "sse " : "stdio:");
		if (s->url)
			buf_adds(out, s->url);
		for (k = 0; s->argv && s->argv[k] && k < 4; k++)
			buf_addf(out, " %s", s->argv[k]);
		if (s->argv && k == 4 && s->argv[k])
			buf_adds(out, " …");
		if (s->starts - s->sessions > 1)
			buf_addf(out, "; reconnected %d time%s", s->starts - s->sessions - 1,
				 s->starts - s->sessions == 2 ? "" : "s");
		if (s->sessions)
			buf_addf(out, "; %d new session%s (the server ended one)", s->sessions, s->sessions == 1 ? "" : "s");
		buf_addch(out, '\n');
		if (s->state == SRV_DEAD && s->why)
			buf_addf(out, "  failed: %s (/mcp reconnect %s to start it again)\n", s->why, s->name);
		for (j = 0; j < s->nreg; j++) {
			const struct mcp_tool *t = s->reg[j];
			size_t dl = strcspn(t->desc, "\n");

			buf_addf(out, "  %s%s: %.*s\n", t->name, t->t.flags & TOOL_READ_ONLY ? " (read-only)" : "",
				 (int)(dl > 80 ? 80 : dl), t->desc);
		}
		for (j = 0; j < s->nprompts; j++) {
			const struct mcp_prompt *p = &s->prompts[j];
			size_t dl = strcspn(p->description, "\n");

			buf_adds(out, "  /");
			mcp_tools_name(out, s->name, p->name);
			for (k = 0; p->args[k]; k++)
				buf_addf(out, k < 32 && p->required & (1u << k) ? " %s" : " [%s]", p->args[k]);
			buf_addf(out, " (prompt): %.*s\n", (int)(dl > 80 ? 80 : dl), p->description);
		}
	}
}

/* Forget a listing in progress and the prompts (a new start lists again). */
static void
reset_listing(struct mcp_server *s)
{
	mcp_wire_tools_free(s->listing, s->nlisting);
	s->listing = NULL;
	s->nlisting = 0;
	s->listing_busy = s->relist = s->pages = 0;
	mcp_proto_prompts_free(s);
}

/* Kill server name (if running) and start it again. */
int
mcp_reconnect(struct mcp *m, const char *name, struct buf *out)
{
	struct mcp_server *s = NULL;
	size_t i;

	for (i = 0; m && i < m->nservers; i++)
		if (!strcmp(m->servers[i].name, name))
			s = &m->servers[i];
	if (!s) {
		buf_addf(out, "no mcp server named \"%s\"; /mcp lists them\n", name);
		return -1;
	}
	mcp_http_end_session(s); /* the old session is done with (HTTP DELETE) */
	if (s->state != SRV_DEAD)
		mcp_server_fail(s, "stopped to reconnect (/mcp reconnect)");
	proc_free(s->proc); /* abandoned: killed, no callback */
	s->proc = NULL;
	buf_reset(&s->outq);
	s->outpos = 0;
	buf_reset(&s->errtail);
	mcp_wire_lines_release(&s->lines);
	mcp_wire_lines_init(&s->lines);
	reset_listing(s);
	s->state = SRV_STARTING;
	start_server(m, s);
	buf_addf(out, "mcp server %s: %s\n", s->name,
		 s->state == SRV_DEAD ? "could not start again (see the line above)" : "starting again");
	return s->state == SRV_DEAD ? -1 : 0;
}

/* Prompt i over all servers. */
int
mcp_prompt_info(const struct mcp *m, size_t i, struct buf *command, struct buf *synopsis,
		const char **description)
{
	size_t j, k;

	for (j = 0; m && j < m->nservers; j++) {
		const struct mcp_server *s = &m->servers[j];
		const struct mcp_prompt *p;

		if (s->state == SRV_DEAD || i >= s->nprompts) {
			i -= s->state == SRV_DEAD ? 0 : s->nprompts;
			continue;
		}
		p = &s->prompts[i];
		mcp_tools_name(command, s->name, p->name);
		*description = p->description;
		for (k = 0; p->args[k]; k++)
			buf_addf(synopsis, k < 32 && p->required & (1u << k) ? "%s%s" : "%s[%s]", k ? " " : "",
				 p->args[k]);
		return 0;
	}
	return -1;
}

/* Expand a prompt: prompts/get with the words of args. */
int
mcp_prompt_get(struct mcp *m, const char *command, const char *args, mcp_prompt_fn fn, void *arg,
	       struct buf *err)
{
	struct buf name = BUF_INIT, why = BUF_INIT;
	struct mcp_server *s = NULL;
	const struct mcp_prompt *p = NULL;
	cJSON *params, *a;
	struct pend *pd;
	char what[96];
	size_t j, k;

	for (j = 0; m && j < m->nservers && !p; j++) {
		for (k = 0; k < m->servers[j].nprompts && !p; k++) {
			buf_reset(&name);
			mcp_tools_name(&name, m->servers[j].name, m->servers[j].prompts[k].name);
			if (!strcmp(name.data, command) && m->servers[j].state != SRV_DEAD) {
				s = &m->servers[j];
				p = &s->prompts[k];
			}
		}
	}
	buf_release(&name);
	if (!p) {
		buf_addf(err, "no mcp prompt /%s (/mcp lists the prompts)", command);
		return -1;
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", p->name);
	a = cJSON_AddObjectToObject(params, "arguments");
	if (mcp_wire_prompt_args(p->args, p->required, args, a, &why) < 0) {
		buf_addf(err, "/%s %s; usage: /%s", command, why.data, command);
		for (k = 0; p->args[k]; k++)
			buf_addf(err, k < 32 && p->required & (1u << k) ? " %s" : " [%s]", p->args[k]);
		if (p->args[0])
			buf_adds(err, " (quote a value with blanks, or NAME=value)");
		buf_release(&why);
		cJSON_Delete(params);
		return -1;
	}
	buf_release(&why);
	snprintf(what, sizeof what, "prompts/get %s", p->name);
	pd = mcp_server_request(s, "prompts/get", params, what);
	if (!pd) {
		buf_addf(err, "mcp server %s is not running (/mcp reconnect %s)", s->name, s->name);
		return -1;
	}
	pd->pfn = fn;
	pd->parg = arg;
	return 0;
}

/* One server's name and state, for stream-json's init line. */
int
mcp_server_info(const struct mcp *m, size_t i, const char **name, const char **state)
{
	static const char *const names[] = { "pending", "connected", "failed" };

	if (!m || i >= m->nservers)
		return -1;
	*name = m->servers[i].name;
	*state = names[m->servers[i].state];
	return 0;
}

/* The wait for the DELETEs ran out. */
static void
on_end_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* End the HTTP sessions (DELETE) and wait for the answers, up to wait_ms. */
void
mcp_end_sessions(struct mcp *m, int wait_ms)
{
	struct err e = ERR_INIT;
	long t;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nservers; i++)
		if (m->servers[i].state != SRV_DEAD)
			mcp_http_end_session(&m->servers[i]);
	if (!m->ends || wait_ms <= 0)
		return;
	m->ending = 1; /* the last DELETE's answer stops the loop (mcp/http.c) */
	t = loop_timer_add(m->loop, (uint64_t)wait_ms, on_end_timeout, m);
	(void)loop_run(m->loop, &e);
	loop_timer_del(m->loop, t);
	m->ending = 0;
}

/* Kill and free everything. */
void
mcp_free(struct mcp *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nservers; i++) {
		struct mcp_server *s = &m->servers[i];

		m->report = NULL;
		mcp_server_fail(s, "stopped");
		proc_free(s->proc);
		buf_release(&s->outq);
		buf_release(&s->errtail);
		mcp_wire_lines_release(&s->lines);
		mcp_wire_tools_free(s->listing, s->nlisting);
		free(s->reg);
		free(s->name);
		free(s->why);
		mcp_proto_prompts_free(s);
		strv_free(s->argv);
		strv_free(s->env);
		strv_free(s->headers);
		free(s->url);
	}
	mcp_tools_free_all(m);
	mcp_http_ends_free(m);
	http_free(m->http);
	free(m->servers);
	free(m->root);
	buf_release(&m->queued);
	free(m);
}

/*
 * llama/serve: the managed llama-server (see llama/serve.h).  The child is a proc;
 * its output goes to a log file and the last line is kept for error
 * messages.  Waiting for the port is a 100 ms timer that tries a
 * connect() to 127.0.0.1:port (loopback: answered at once) while the
 * loop also reaps the child.
 */
#include "llama/serve.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "io/loop.h"
#include "io/proc.h"
#include "base/xmalloc.h"

#define LLAMA_SERVE_POLL_MS 100
#define LLAMA_SERVE_STOP_MS (PROC_KILL_GRACE_MS + 1000)
#define LLAMA_SERVE_GRACE_MS 5000 /* after the port opens: time for a setting to fail the model load */

struct llama_serve {
	struct loop *loop;
	struct proc *proc;
	int port;
	int log_fd;
	struct buf last;  /* the last complete output line */
	struct buf part;  /* the line being received */
	struct buf first_err; /* the first error line (" E " or "error"), the likely cause */
	int ready, exited;
	int loaded;       /* it said "model loaded" or "listening on": past the point a setting can fail */
	long timer;
};

/* A free port on 127.0.0.1 (bind to 0 and read it back); -1 on failure. */
static int
llama_serve_free_port(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* Whether something accepts connections on 127.0.0.1:port. */
static int
llama_serve_port_open(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((unsigned short)port);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

/* The binary to run: its path when found (in out), else -1 + e. */
static int
llama_serve_find_binary(const char *bin, struct buf *out, struct err *e)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(bin, '/')) {
		if (access(bin, X_OK) == 0)
			return buf_adds(out, bin), 0;
		return err_set(e, "serve.binary %s is not an executable file: build llama.cpp or fix the setting", bin);
	}
	for (p = path && *path ? path : "/usr/bin:/bin"; *p; ) {
		size_t n = strcspn(p, ":");
		struct stat st;

		buf_reset(out);
		buf_addf(out, "%.*s/%s", (int)n, n ? p : ".", bin);
		if (stat(out->data, &st) == 0 && S_ISREG(st.st_mode) && access(out->data, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	buf_reset(out);
	return err_set(e, "%s not found in PATH: install llama.cpp (it provides llama-server) or set serve.binary to its path", bin);
}

/* Output: into the log, and keep the last line for messages. */
static void
llama_serve_output(struct proc *p, const char *data, size_t n, void *arg)
{
	struct llama_serve *s = arg;
	size_t i;

	(void)p;
	if (s->log_fd >= 0 && write(s->log_fd, data, n) < 0) {
		close(s->log_fd);
		s->log_fd = -1;
	}
	for (i = 0; i < n; i++) {
		if (data[i] == '\n' || data[i] == '\r') {
			if (s->part.len) {
				buf_reset(&s->last);
				buf_add(&s->last, s->part.data, s->part.len);
				if (!s->first_err.len && (strstr(s->last.data, " E ") || strstr(s->last.data, "error")))
					buf_add(&s->first_err, s->last.data, s->last.len);
				if (strstr(s->last.data, "model loaded") || strstr(s->last.data, "listening on"))
					s->loaded = 1;
				buf_reset(&s->part);
			}
		} else if (s->part.len < 400) {
			buf_addch(&s->part, data[i]);
		}
	}
}

/* The child is gone. */
static void
llama_serve_exit(struct proc *p, void *arg)
{
	struct llama_serve *s = arg;

	(void)p;
	s->exited = 1;
}

/* Poll the port until it accepts. */
static void
llama_serve_poll(struct loop *l, long id, void *arg)
{
	struct llama_serve *s = arg;

	(void)id;
	s->timer = 0;
	if (s->exited)
		return;
	if (llama_serve_port_open(s->port)) {
		s->ready = 1;
		return;
	}
	s->timer = loop_timer_add(l, LLAMA_SERVE_POLL_MS, llama_serve_poll, s);
}

/* The model's name for --alias: the file name without .gguf. */
static void
llama_serve_alias(const char *model, struct buf *out)
{
	const char *base = strrchr(model, '/');
	size_t n;

	base = base ? base + 1 : model;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".gguf"))
		n -= 5;
	buf_add(out, base, n);
}

/* The optional flags a fallback may drop (an older llama-server does not know them). */
enum { SERVE_F_UNIFIED = 1, SERVE_F_CACHE_RAM = 2, SERVE_F_SIMILARITY = 4, SERVE_F_CKPT_STEP = 8 };

/* Check the inputs, then spawn the child with the recommended flags (minus the dropped ones). */
static int
llama_serve_spawn(struct llama_serve *s, const struct llama_serve_opts *o, const char *ctype, int drop,
		  struct err *e)
{
	struct buf bin = BUF_INIT, port = BUF_INIT, ctx = BUF_INIT, slots = BUF_INIT, np = BUF_INIT;
	struct buf alias = BUF_INIT, logp = BUF_INIT, ram = BUF_INIT, sim = BUF_INIT;
	const char **argv = NULL;
	struct proc_spec spec;
	struct stat st;
	size_t n = 0, nextra = 0;
	int rc = -1, nslots = o->slots > 0 ? o->slots : 1;
	/*
	 * 0.95 by default (0.9 with several unified slots): a pinned request that
	 * shares less than that with its slot (another session's) makes the
	 * server park the slot in its RAM cache and load the request's own
	 * earlier state from there, so sessions that outnumber the slots swap
	 * instead of re-reading (docs/cache.md: 0.95 measured below 2,500
	 * tokens for 3 x 3 on 2 slots, 0.9 not).
	 */
	double simv = o->similarity >= 0 ? o->similarity : (o->kv_unified && nslots > 1 ? 0.9 : 0.95);

	if (!o->model || stat(o->model, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_set(e, "no model file at %s: pass the path of a .gguf file to --serve (or serve.model)",
			o->model ? o->model : "(none)");
		goto out;
	}
	if (llama_serve_find_binary(o->binary && *o->binary ? o->binary : "llama-server", &bin, e) < 0)
		goto out;
	if ((s->port = llama_serve_free_port()) < 0) {
		err_set(e, "no free port on 127.0.0.1 for llama-server: %s", strerror(errno));
		goto out;
	}
	buf_addf(&port, "%d", s->port);
	buf_addf(&ctx, "%ld", o->ctx > 0 ? (long)o->ctx * nslots : 0L);
	buf_addf(&np, "%d", nslots);
	buf_addf(&ram, "%d", o->cache_ram);
	buf_addf(&sim, "%.3f", simv);
	buf_addf(&slots, "%s/slots", o->state_dir);
	buf_addf(&logp, "%s/llama-server.log", o->state_dir);
	llama_serve_alias(o->model, &alias);
	if (fs_mkdirs_private(slots.data, e) < 0) /* slot files hold the prompts' cache */
		goto out;
	s->log_fd = open(logp.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	while (o->args && o->args[nextra])
		nextra++;
	argv = xcalloc(40 + nextra, sizeof *argv);
	{
		const char *fixed[] = { bin.data, "-m", o->model, "--host", "127.0.0.1", "--port", port.data,
					"-ngl", "99", "-fa", "on", "--cache-type-k", ctype,
					"--cache-type-v", ctype, "--jinja", "--reasoning", "off", "-np", np.data,
					"--slot-save-path", slots.data, "--alias", alias.data, "-c", ctx.data };
		size_t i;

		for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			argv[n++] = fixed[i];
		if (o->kv_unified && !(drop & SERVE_F_UNIFIED))
			argv[n++] = "--kv-unified";
		if (o->cache_ram >= -1 && !(drop & SERVE_F_CACHE_RAM)) {
			argv[n++] = "--cache-ram";
			argv[n++] = ram.data;
		}
		if (simv >= 0 && !(drop & SERVE_F_SIMILARITY)) {
			argv[n++] = "--slot-prompt-similarity";
			argv[n++] = sim.data;
		}
		if (!(drop & SERVE_F_CKPT_STEP)) { /* keep the checkpoint at the first user message (docs/cache.md) */
			argv[n++] = "--checkpoint-min-step";
			argv[n++] = "0";
		}
		for (i = 0; i < nextra; i++)
			argv[n++] = o->args[i];
		argv[n] = NULL;
	}
	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.on_output = llama_serve_output;
	spec.on_exit = llama_serve_exit;
	spec.arg = s;
	spec.die_with_parent = 1; /* no orphaned server holding the GPU if hearth is killed */
	spec.env_user = 1; /* hearth's own server: our environment (CUDA_*, GGML_*...) without secrets */
	s->proc = proc_spawn(s->loop, &spec, e);
	rc = s->proc ? 0 : -1;
out:
	free(argv);
	buf_release(&bin);
	buf_release(&port);
	buf_release(&ctx);
	buf_release(&np);
	buf_release(&ram);
	buf_release(&sim);
	buf_release(&slots);
	buf_release(&alias);
	buf_release(&logp);
	return rc;
}

/* Why the server stopped: its first error line, else its last line. */
static const char *
llama_serve_reason(const struct llama_serve *s)
{
	return s->first_err.len ? s->first_err.data : s->last.len ? s->last.data : "";
}

/* One start: spawn and wait for the port; 1 ready, 0 exited early, -1 failed (e set). */
static int
llama_serve_try(struct llama_serve *s, const struct llama_serve_opts *o, const char *ctype, int drop,
		uint64_t deadline, struct err *e)
{
	if (llama_serve_spawn(s, o, ctype, drop, e) < 0)
		return -1;
	uint64_t grace;

	s->timer = loop_timer_add(s->loop, 0, llama_serve_poll, s);
	while (!s->ready && !s->exited && loop_now_ms(s->loop) < deadline && !(o->interrupted && *o->interrupted))
		loop_run_once(s->loop, LLAMA_SERVE_POLL_MS, NULL);
	/*
	 * llama-server opens its port before it loads the model (answering 503),
	 * and a KV cache type the model cannot take fails only then: give a
	 * small model the chance to fail here, where a fallback can restart it.
	 * A big one keeps loading; the caller's 503 wait shows that.
	 */
	grace = loop_now_ms(s->loop) + LLAMA_SERVE_GRACE_MS;
	while (s->ready && !s->loaded && !s->exited && loop_now_ms(s->loop) < grace &&
	       !(o->interrupted && *o->interrupted))
		loop_run_once(s->loop, LLAMA_SERVE_POLL_MS, NULL);
	if (s->exited)
		s->ready = 0;
	return s->ready ? 1 : s->exited ? 0 : -1;
}

/*
 * Why an early exit may be our setting's fault: a flag the binary does not
 * know (dropped next time), or a KV cache type the model cannot take (f16
 * next time).  0 when it is neither (the error stands).
 */
static int
llama_serve_fallback(const char *why, const char **ctype, int *drop, struct buf *notes)
{
	static const struct { const char *flag; int bit; } opt[] = {
		{ "--kv-unified", SERVE_F_UNIFIED }, { "--cache-ram", SERVE_F_CACHE_RAM },
		{ "--slot-prompt-similarity", SERVE_F_SIMILARITY }, { "--checkpoint-min-step", SERVE_F_CKPT_STEP },
	};
	size_t i;

	for (i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (!(*drop & opt[i].bit) && strstr(why, opt[i].flag)) {
			*drop |= opt[i].bit;
			if (notes)
				buf_addf(notes, "llama-server does not take %s (%.160s): started without it\n", opt[i].flag, why);
			return 1;
		}
	if (strcmp(*ctype, "f16") && (strstr(why, "cache type") || strstr(why, "cache_type") ||
				      strstr(why, "divide") || strstr(why, "n_embd_head"))) {
		if (notes)
			buf_addf(notes, "the model cannot use a %s KV cache (%.160s): started with f16\n", *ctype, why);
		*ctype = "f16";
		return 1;
	}
	return 0;
}

/* Start and wait for the port (see llama/serve.h). */
struct llama_serve *
llama_serve_start(struct loop *l, const struct llama_serve_opts *o, struct buf *url, struct err *e)
{
	struct llama_serve *s = xcalloc(1, sizeof *s);
	uint64_t deadline = loop_now_ms(l) + (uint64_t)(o->wait_ms > 0 ? o->wait_ms : 60000);
	const char *ctype = o->cache_type && *o->cache_type ? o->cache_type : "q8_0";
	int drop = 0, tries, got = -1;

	s->loop = l;
	s->log_fd = -1;
	buf_init(&s->last, 0);
	buf_init(&s->part, 0);
	buf_init(&s->first_err, 0);
	for (tries = 0; tries < 5; tries++) {
		if ((got = llama_serve_try(s, o, ctype, drop, deadline, e)) != 0)
			break;
		if (!llama_serve_fallback(llama_serve_reason(s), &ctype, &drop, o->notes))
			break;
		/* the next try: a fresh child, its own output */
		if (s->timer)
			loop_timer_del(l, s->timer);
		s->timer = 0;
		proc_free(s->proc);
		s->proc = NULL;
		if (s->log_fd >= 0)
			close(s->log_fd);
		s->log_fd = -1;
		s->exited = s->ready = s->loaded = 0;
		buf_reset(&s->last);
		buf_reset(&s->part);
		buf_reset(&s->first_err);
	}
	if (got > 0) {
		buf_addf(url, "http://127.0.0.1:%d", s->port);
		return s;
	}
	if (got < 0 && e->msg[0]) {
		llama_serve_stop(s);
		return NULL;
	}
	if (s->exited)
		err_set(e, "llama-server exited (status %d) before it listened%s%s", proc_status(s->proc),
			*llama_serve_reason(s) ? ": " : "", llama_serve_reason(s));
	else if (o->interrupted && *o->interrupted)
		err_set(e, "interrupted while llama-server was starting");
	else
		err_set(e, "llama-server did not listen on port %d within %d s: see %s/llama-server.log",
			s->port, (o->wait_ms > 0 ? o->wait_ms : 60000) / 1000, o->state_dir);
	llama_serve_stop(s);
	return NULL;
}

/* SIGTERM, SIGKILL after the grace, wait for the exit (bounded), free. */
void
llama_serve_stop(struct llama_serve *s)
{
	uint64_t deadline;

	if (!s)
		return;
	if (s->timer)
		loop_timer_del(s->loop, s->timer);
	if (s->proc && proc_running(s->proc)) {
		proc_kill(s->proc);
		deadline = loop_now_ms(s->loop) + LLAMA_SERVE_STOP_MS;
		while (proc_running(s->proc) && loop_now_ms(s->loop) < deadline)
			loop_run_once(s->loop, 100, NULL);
	}
	proc_free(s->proc);
	if (s->log_fd >= 0)
		close(s->log_fd);
	buf_release(&s->last);
	buf_release(&s->part);
	buf_release(&s->first_err);
	free(s);
}

/* A server that died after it listened: say so with its words. */
int
llama_serve_exited(const struct llama_serve *s, struct buf *why)
{
	if (!s || !s->exited)
		return 0;
	buf_addf(why, "the llama-server hearth started exited (status %d)%s%s", proc_status(s->proc),
		 *llama_serve_reason(s) ? ": " : "", llama_serve_reason(s));
	return 1;
}

/* One slot file: its name and what counts for the budget. */
struct llama_serve_slotfile {
	char name[256];
	long long size;
	time_t mtime;
};

/* Oldest first. */
static int
llama_serve_slotfile_cmp(const void *a, const void *b)
{
	const struct llama_serve_slotfile *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp(x->name, y->name);
}

/* Delete the oldest hearth-*.bin files of dir until the rest fit max_bytes (see llama/serve.h). */
int
llama_serve_prune_slots(const char *dir, long long max_bytes, long long *freed)
{
	struct llama_serve_slotfile *v = NULL;
	size_t n = 0, cap = 0, i;
	long long total = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int removed = 0;

	if (freed)
		*freed = 0;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		char path[4096];
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "hearth-", 7) || len < 11 || len >= sizeof v->name ||
		    strcmp(de->d_name + len - 4, ".bin"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap)
			v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
		memcpy(v[n].name, de->d_name, len + 1);
		v[n].size = (long long)st.st_size;
		v[n].mtime = st.st_mtime;
		total += v[n].size;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, llama_serve_slotfile_cmp);
	for (i = 0; i < n && total > max_bytes; i++) {
		char path[4096];

		snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
		if (unlink(path) == 0) {
			total -= v[i].size;
			if (freed)
				*freed += v[i].size;
			removed++;
		}
	}
	free(v);
	return removed;
}

/* front/bench: `hearth bench` (see front/bench.h and docs/bench.md). */
#include "front/bench.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "front/bench_problem.h"
#include "front/cli.h"
#include "io/http.h"
#include "io/loop.h"
#include "io/proc.h"

#define BENCH_MAX_AGENTS 8
#define BENCH_MAX_PASS_ENV 16
#define BENCH_OUT_KEEP (4u << 20)  /* the agent's last output bytes kept (hearth's result is at the end) */
#define BENCH_TESTS_MAX (16u << 20) /* bytes of tests/ compared */
#define BENCH_DEFAULT_SERVER "http://127.0.0.1:8080"
#define BENCH_SETTLE_MS 250     /* after the agent, while the server still processes a request ... */
#define BENCH_SETTLE_TRIES 120  /* ... for at most 30 s */

struct bench_agent {
	const char *cmd;    /* as the user wrote it; NULL = this hearth in print mode */
	const char *server; /* llama-server URL for this agent (metrics; hearth's --server) */
	char *label;
	int is_hearth;      /* its json result is read */
};

struct bench_opts {
	struct bench_agent agents[BENCH_MAX_AGENTS];
	int nagents;
	const char *server, *problems, *only;
	const char *pass_env[BENCH_MAX_PASS_ENV];
	int npass_env;
	int trials, json, list, keep;
	long timeout_s;
};

struct bench_result {
	int problem, agent, trial;
	long passed, total;
	double wall_s;
	double prompt_tokens, generated_tokens; /* -1: no /metrics */
	struct front_bench_hearth h;            /* -1s: not hearth */
	int tests_changed, timed_out, agent_exit;
	char *error;                            /* harness trouble with this trial, or NULL */
};

/* The loop's one child or request in flight. */
struct bench_wait {
	struct loop *loop;
	struct proc *proc;
	struct buf out;
	size_t keep;
	int done;
	int interrupted;
	/* /metrics */
	int status;
	struct buf body;
};

static struct bench_wait *bench_current; /* for the signal handler's kill */

/* Seconds on the monotonic clock. */
static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
bench_usage(FILE *f)
{
	fputs("usage: hearth bench [options]\n"
	      "  --agent CMD          the agent to run, the prompt appended as one argument\n"
	      "                       (default: this hearth, `hearth -p -y`); repeat to compare\n"
	      "  --compare A B        two agents, or two llama-server URLs for one agent, side by side\n"
	      "  --trials N           trials per problem and agent (default 3; use 5 or more)\n"
	      "  --problems DIR       the problems (default: the ones shipped with hearth)\n"
	      "  --only a,b           only these problems\n"
	      "  --server URL         llama-server to read /metrics from (and hearth's --server;\n"
	      "                       env HEARTH_SERVER; default " BENCH_DEFAULT_SERVER ")\n"
	      "  --timeout S          seconds per trial before the agent is killed (default 900)\n"
	      "  --pass-env NAME      also give the agent this secret variable (e.g. an API key)\n"
	      "  --json               one JSON object per problem x agent x trial, as a list\n"
	      "  --list               list the problems and exit\n"
	      "  --keep               keep each trial's directory (its path is printed)\n",
	      f);
}

/* The value of --opt V or --opt=V at argv[*i]; NULL when this is not opt. */
static const char *
bench_optval(int argc, char **argv, int *i, const char *opt, int *missing)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];

	if (strncmp(a, opt, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int
bench_is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* Parse the command line; -1 to run, else an exit code. */
static int
bench_parse(int argc, char **argv, struct bench_opts *o)
{
	const char *cmp[2] = { NULL, NULL };
	int i, missing = 0;

	o->trials = 3;
	o->timeout_s = 900;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		char *end;

		if (!strcmp(a, "--json"))
			o->json = 1;
		else if (!strcmp(a, "--list"))
			o->list = 1;
		else if (!strcmp(a, "--keep"))
			o->keep = 1;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			bench_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--compare")) {
			if (i + 2 >= argc)
				return front_cli_usage_error("%s", "--compare needs two agents or two server URLs: --compare A B");
			cmp[0] = argv[++i];
			cmp[1] = argv[++i];
		} else if ((v = bench_optval(argc, argv, &i, "--agent", &missing))) {
			if (o->nagents == BENCH_MAX_AGENTS)
				return front_cli_usage_error("at most %d --agent", BENCH_MAX_AGENTS);
			if (!*v)
				return front_cli_usage_error("%s", "--agent needs a command, e.g. --agent 'pi -p'");
			o->agents[o->nagents++].cmd = v;
		} else if ((v = bench_optval(argc, argv, &i, "--trials", &missing))) {
			errno = 0;
			o->trials = (int)strtol(v, &end, 10);
			if (errno || *end || end == v || o->trials <= 0 || o->trials > 1000)
				return front_cli_usage_error("--trials needs a number from 1 to 1000, got \"%s\"", v);
		} else if ((v = bench_optval(argc, argv, &i, "--timeout", &missing))) {
			errno = 0;
			o->timeout_s = strtol(v, &end, 10);
			if (errno || *end || end == v || o->timeout_s <= 0 || o->timeout_s > 86400)
				return front_cli_usage_error("--timeout needs seconds (1 to 86400), got \"%s\"", v);
		} else if ((v = bench_optval(argc, argv, &i, "--problems", &missing))) {
			o->problems = v;
		} else if ((v = bench_optval(argc, argv, &i, "--only", &missing))) {
			o->only = v;
		} else if ((v = bench_optval(argc, argv, &i, "--server", &missing))) {
			if (!bench_is_url(v))
				return front_cli_usage_error("--server takes an http:// or https:// URL, got \"%s\"", v);
			o->server = v;
		} else if ((v = bench_optval(argc, argv, &i, "--pass-env", &missing))) {
			if (o->npass_env == BENCH_MAX_PASS_ENV)
				return front_cli_usage_error("at most %d --pass-env", BENCH_MAX_PASS_ENV);
			if (!*v || strchr(v, '='))
				return front_cli_usage_error("--pass-env takes a variable's name, got \"%s\"", v);
			o->pass_env[o->npass_env++] = v;
		} else if (missing) {
			return front_cli_usage_error("%s needs a value", a);
		} else {
			return front_cli_usage_error("bench: unknown argument \"%s\" (hearth bench --help lists them)", a);
		}
		if (missing)
			return front_cli_usage_error("%s needs a value", a);
	}
	if (!o->server) {
		const char *env = getenv("HEARTH_SERVER");

		o->server = env && *env ? env : BENCH_DEFAULT_SERVER;
	}
	if (cmp[0]) {
		int urls = bench_is_url(cmp[0]) + bench_is_url(cmp[1]);

		if (urls == 1)
			return front_cli_usage_error("%s", "--compare takes two agents or two server URLs, not one of each");
		if (urls == 2) {
			const char *agent = o->nagents ? o->agents[0].cmd : NULL;

			if (o->nagents > 1)
				return front_cli_usage_error("%s", "--compare of two servers runs one agent: give at most one --agent");
			o->nagents = 2;
			for (i = 0; i < 2; i++) {
				o->agents[i].cmd = agent;
				o->agents[i].server = cmp[i];
			}
		} else {
			if (o->nagents)
				return front_cli_usage_error("%s", "--compare of two agents replaces --agent: give one or the other");
			o->nagents = 2;
			o->agents[0].cmd = cmp[0];
			o->agents[1].cmd = cmp[1];
		}
	}
	if (!o->nagents)
		o->nagents = 1;
	for (i = 0; i < o->nagents; i++)
		if (!o->agents[i].server)
			o->agents[i].server = o->server;
	return -1;
}

/* Our own binary's path (the default agent). */
static int
bench_self(char *out, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", out, n - 1);

	if (k <= 0)
		return -1;
	out[k] = 0;
	return 0;
}

/* Whether a command's first word names hearth (its json result can be read). */
static int
bench_cmd_is_hearth(const char *cmd)
{
	size_t n = strcspn(cmd, " \t");
	const char *w = cmd, *slash;
	size_t k;

	for (slash = cmd; slash < cmd + n; slash++)
		if (*slash == '/')
			w = slash + 1;
	k = (size_t)(cmd + n - w);
	return k == 6 && !strncmp(w, "hearth", 6);
}

/* Labels and the shell script each agent runs. */
static void
bench_agents_prepare(struct bench_opts *o)
{
	int i;

	for (i = 0; i < o->nagents; i++) {
		struct bench_agent *a = &o->agents[i];
		struct buf l = BUF_INIT;

		a->is_hearth = !a->cmd || bench_cmd_is_hearth(a->cmd);
		buf_adds(&l, a->cmd ? a->cmd : "hearth -p");
		if (o->agents[0].server != o->agents[o->nagents - 1].server &&
		    strcmp(o->agents[0].server, o->agents[o->nagents - 1].server))
			buf_addf(&l, " @ %s", a->server);
		a->label = buf_detach(&l, NULL);
	}
}

/* The script `sh -c` runs for agent a: exec CMD [hearth's options] "$1". */
static void
bench_agent_script(const struct bench_agent *a, const char *self, struct buf *s)
{
	buf_adds(s, "exec ");
	if (!a->cmd) {
		buf_add_shquoted(s, self);
		buf_adds(s, " -p -y");
	} else {
		buf_adds(s, a->cmd);
	}
	if (a->is_hearth) {
		if (!a->cmd || !strstr(a->cmd, "--output-format"))
			buf_adds(s, " --output-format json");
		if (!a->cmd || !strstr(a->cmd, "--server")) {
			buf_adds(s, " --server ");
			buf_add_shquoted(s, a->server);
		}
	}
	buf_adds(s, " \"$1\"");
}

/* ---- the loop: one child or one request at a time ---- */

static void
bench_on_output(struct proc *p, const char *data, size_t n, void *arg)
{
	struct bench_wait *w = arg;

	(void)p;
	buf_add(&w->out, data, n);
	if (w->out.len > w->keep)
		buf_remove(&w->out, 0, w->out.len - w->keep / 2);
}

static void
bench_on_exit(struct proc *p, void *arg)
{
	struct bench_wait *w = arg;

	(void)p;
	w->done = 1;
	loop_stop(w->loop);
}

static void
bench_on_signal(struct loop *l, int signo, void *arg)
{
	(void)l;
	(void)signo;
	(void)arg;
	if (!bench_current)
		return;
	bench_current->interrupted = 1;
	if (bench_current->proc)
		proc_kill(bench_current->proc);
	else
		loop_stop(bench_current->loop);
}

/*
 * Run argv in cwd until it exits (or the timeout); its output in w->out.
 * The exit status, or -1 + e when it could not start.
 */
static int
bench_run(struct bench_wait *w, const char *const *argv, const char *cwd, const char *const *env, int env_user,
	  long timeout_s, int *timed_out, struct err *e)
{
	struct proc_spec spec;
	struct err le = ERR_INIT;
	int status;

	memset(&spec, 0, sizeof spec);
	spec.argv = argv;
	spec.cwd = cwd;
	spec.env = env;
	spec.env_user = env_user;
	spec.timeout_ms = (uint64_t)timeout_s * 1000u;
	spec.on_output = bench_on_output;
	spec.on_exit = bench_on_exit;
	spec.arg = w;
	spec.die_with_parent = 1;
	buf_reset(&w->out);
	w->done = 0;
	if (!(w->proc = proc_spawn(w->loop, &spec, e)))
		return -1;
	while (!w->done) {
		if (loop_run(w->loop, &le) < 0) {
			err_set(e, "%s", le.msg);
			proc_free(w->proc);
			w->proc = NULL;
			return -1;
		}
	}
	status = proc_status(w->proc);
	if (timed_out)
		*timed_out = proc_timed_out(w->proc);
	proc_free(w->proc);
	w->proc = NULL;
	return status;
}

static void
bench_on_fetch(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct bench_wait *w = arg;

	(void)fail;
	(void)e;
	w->status = status;
	buf_reset(&w->body);
	if (body)
		buf_add(&w->body, body->data, body->len);
	w->done = 1;
	loop_stop(w->loop);
}

static void
bench_on_pause(struct loop *l, long id, void *arg)
{
	struct bench_wait *w = arg;

	(void)id;
	w->done = 1;
	loop_stop(l);
}

/* Wait ms on the loop (a signal ends it early). */
static void
bench_pause(struct bench_wait *w, uint64_t ms)
{
	long id;

	w->done = 0;
	id = loop_timer_add(w->loop, ms, bench_on_pause, w);
	while (!w->done && !w->interrupted)
		if (loop_run(w->loop, NULL) < 0)
			break;
	loop_timer_del(w->loop, id);
}

/*
 * The /metrics counters of server; 0, or -1 when it does not answer them.
 * *busy (when not NULL): the requests it is still processing (0 when not said).
 */
static int
bench_metrics_busy(struct bench_wait *w, struct http *h, const char *server, double *prompt, double *gen,
		   double *busy);

static int
bench_metrics(struct bench_wait *w, struct http *h, const char *server, double *prompt, double *gen)
{
	return bench_metrics_busy(w, h, server, prompt, gen, NULL);
}

static int
bench_metrics_busy(struct bench_wait *w, struct http *h, const char *server, double *prompt, double *gen,
		   double *busy)
{
	struct http_opts ho;
	struct buf url = BUF_INIT;
	struct err e = ERR_INIT;
	int rc = -1;

	memset(&ho, 0, sizeof ho);
	buf_adds(&url, server);
	while (url.len && url.data[url.len - 1] == '/')
		buf_setlen(&url, url.len - 1);
	buf_adds(&url, "/metrics");
	ho.url = url.data;
	ho.timeout_ms = 5000;
	ho.connect_timeout_ms = 2000;
	w->done = 0;
	w->status = 0;
	if (http_fetch(h, &ho, bench_on_fetch, w, &e)) {
		while (!w->done && !w->interrupted)
			if (loop_run(w->loop, &e) < 0)
				break;
		if (w->done && w->status == 200 &&
		    front_bench_parse_metrics(w->body.data, w->body.len, prompt, gen) == 0) {
			rc = 0;
			if (busy && front_bench_metric(w->body.data, w->body.len, "llamacpp:requests_processing",
						       busy) < 0)
				*busy = 0;
		}
	}
	buf_release(&url);
	return rc;
}

/* ---- one trial ---- */

struct bench_ctx {
	struct bench_opts *o;
	struct front_bench_problem *problems;
	long nproblems;
	struct bench_wait w;
	struct http *http;
	char self[PATH_MAX];
};

/* Make dir a git repository with one commit (agents diff against it); failures only lose that. */
static void
bench_git_init(struct bench_ctx *c, const char *dir)
{
	static const char *const argv[] = {
		"sh", "-c",
		"git init -q && git add -A && "
		"git -c user.name=hearth-bench -c user.email=bench@localhost commit -q -m start",
		NULL
	};
	struct err e = ERR_INIT;

	bench_run(&c->w, argv, dir, NULL, 0, 60, NULL, &e);
}

/* Run one trial into r. */
static void
bench_trial(struct bench_ctx *c, int pi, int ai, int trial, struct bench_result *r)
{
	const struct front_bench_problem *p = &c->problems[pi];
	const struct bench_agent *a = &c->o->agents[ai];
	struct buf dir = BUF_INIT, path = BUF_INIT, prompt = BUF_INIT, script = BUF_INIT;
	struct buf before = BUF_INIT, after = BUF_INIT, envs[BENCH_MAX_PASS_ENV + 4];
	const char *env[BENCH_MAX_PASS_ENV + 5];
	const char *tmp = getenv("TMPDIR");
	double p0 = 0, g0 = 0, p1 = 0, g1 = 0, t0;
	int have_metrics, ne = 0, i, status, timed_out = 0;
	struct err e = ERR_INIT;

	memset(r, 0, sizeof *r);
	r->problem = pi;
	r->agent = ai;
	r->trial = trial;
	r->total = p->tests;
	r->prompt_tokens = r->generated_tokens = -1;
	r->h.steps = r->h.escalations = -1;
	r->h.cost_usd = -1;
	r->agent_exit = -1;
	for (i = 0; i < BENCH_MAX_PASS_ENV + 4; i++)
		buf_init(&envs[i], 0);

	buf_addf(&dir, "%s/hearth-bench-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", p->name);
	if (!mkdtemp(dir.data)) {
		err_errno(&e, "mkdtemp %s", dir.data);
		goto fail;
	}
	if (front_bench_copy(p->dir, dir.data, &e) < 0)
		goto fail;
	buf_addf(&path, "%s/PROBLEM.md", dir.data);
	if (buf_read_file(&prompt, path.data, 1u << 20, &e) < 0)
		goto fail;
	buf_rtrim(&prompt);
	buf_reset(&path);
	buf_addf(&path, "%s/" FRONT_BENCH_TESTS, dir.data);
	if (front_bench_snapshot(path.data, &before, BENCH_TESTS_MAX, &e) < 0)
		goto fail;
	bench_git_init(c, dir.data);
	if (c->w.interrupted)
		goto out;

	/* the agent */
	for (i = 0; i < c->o->npass_env; i++) {
		const char *v = getenv(c->o->pass_env[i]);

		if (v) {
			buf_addf(&envs[ne], "%s=%s", c->o->pass_env[i], v);
			env[ne] = envs[ne].data;
			ne++;
		}
	}
	buf_addf(&envs[ne], "HEARTH_SERVER=%s", a->server);
	env[ne] = envs[ne].data;
	ne++;
	buf_addf(&envs[ne], "HEARTH_BENCH_PROBLEM=%s", p->name);
	env[ne] = envs[ne].data;
	ne++;
	buf_addf(&envs[ne], "HEARTH_BENCH_TRIAL=%d", trial);
	env[ne] = envs[ne].data;
	ne++;
	env[ne] = NULL;
	bench_agent_script(a, c->self, &script);
	{
		const char *argv[] = { "/bin/sh", "-c", script.data, "hearth-bench-agent", prompt.data, NULL };

		have_metrics = bench_metrics(&c->w, c->http, a->server, &p0, &g0) == 0;
		if (c->w.interrupted)
			goto out;
		t0 = bench_now();
		status = bench_run(&c->w, argv, dir.data, env, 1, c->o->timeout_s, &timed_out, &e);
		r->wall_s = bench_now() - t0;
		if (status < 0)
			goto fail;
		r->agent_exit = status;
		r->timed_out = timed_out;
		if (a->is_hearth)
			front_bench_parse_hearth(c->w.out.data, c->w.out.len, &r->h);
		if (have_metrics) {
			double busy = 0;
			int tries = BENCH_SETTLE_TRIES;

			/* a killed agent's request may still be decoding: its tokens are this trial's */
			while ((have_metrics = bench_metrics_busy(&c->w, c->http, a->server, &p1, &g1, &busy) == 0) &&
			       busy > 0 && --tries > 0 && !c->w.interrupted)
				bench_pause(&c->w, BENCH_SETTLE_MS);
		}
		if (have_metrics) {
			r->prompt_tokens = p1 - p0 >= 0 ? p1 - p0 : 0;
			r->generated_tokens = g1 - g0 >= 0 ? g1 - g0 : 0;
		}
	}
	if (c->w.interrupted)
		goto out;

	/* the frozen tests */
	if (front_bench_snapshot(path.data, &after, BENCH_TESTS_MAX, &e) < 0 || after.len != before.len ||
	    memcmp(after.data, before.data, before.len)) {
		r->tests_changed = 1;
		r->passed = 0;
		err_clear(&e);
	} else {
		const char *argv[] = { "/bin/sh", "-c", p->test, NULL };
		long passed = 0, total = 0;

		status = bench_run(&c->w, argv, dir.data, NULL, 0, p->timeout_s, &timed_out, &e);
		if (status < 0)
			goto fail;
		front_bench_parse_counts(p->format, c->w.out.data, c->w.out.len, &passed, &total);
		r->passed = passed <= p->tests ? passed : p->tests;
		r->total = total > p->tests ? total : p->tests;
		if (r->passed > r->total)
			r->passed = r->total;
	}
	goto out;
fail:
	r->error = xstrdup(e.msg);
out:
	if (dir.len && access(dir.data, F_OK) == 0) {
		struct err re = ERR_INIT;

		if (c->o->keep)
			fprintf(stderr, "bench: kept %s\n", dir.data);
		else if (front_bench_rmtree(dir.data, &re) < 0)
			fprintf(stderr, "bench: %s\n", re.msg);
	}
	for (i = 0; i < BENCH_MAX_PASS_ENV + 4; i++)
		buf_release(&envs[i]);
	buf_release(&dir);
	buf_release(&path);
	buf_release(&prompt);
	buf_release(&script);
	buf_release(&before);
	buf_release(&after);
}

/* ---- reports ---- */

static void
bench_json_num(cJSON *o, const char *key, double v, int known)
{
	if (known)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void
bench_print_json(const struct bench_ctx *c, const struct bench_result *r, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	char *s;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct bench_result *x = &r[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "problem", c->problems[x->problem].name);
		cJSON_AddStringToObject(o, "agent", c->o->agents[x->agent].label);
		cJSON_AddNumberToObject(o, "trial", x->trial);
		cJSON_AddNumberToObject(o, "passed", (double)x->passed);
		cJSON_AddNumberToObject(o, "total", (double)x->total);
		cJSON_AddNumberToObject(o, "wall_s", round(x->wall_s * 1000) / 1000);
		bench_json_num(o, "prompt_tokens", x->prompt_tokens, x->prompt_tokens >= 0);
		bench_json_num(o, "generated_tokens", x->generated_tokens, x->generated_tokens >= 0);
		bench_json_num(o, "steps", (double)x->h.steps, x->h.steps >= 0);
		bench_json_num(o, "escalations", (double)x->h.escalations, x->h.escalations >= 0);
		bench_json_num(o, "cost_usd", x->h.cost_usd, x->h.cost_usd >= 0);
		cJSON_AddStringToObject(o, "server", c->o->agents[x->agent].server);
		cJSON_AddBoolToObject(o, "tests_changed", x->tests_changed);
		cJSON_AddBoolToObject(o, "timed_out", x->timed_out);
		bench_json_num(o, "agent_exit", x->agent_exit, x->agent_exit >= 0);
		if (x->error)
			cJSON_AddStringToObject(o, "error", x->error);
		else
			cJSON_AddNullToObject(o, "error");
		cJSON_AddItemToArray(arr, o);
	}
	s = json_print(arr);
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	cJSON_Delete(arr);
}

struct bench_stat {
	double sum, min, max;
	int n, known;
};

static void
bench_stat_add(struct bench_stat *s, double v, int known)
{
	if (!known)
		return;
	if (!s->known || v < s->min)
		s->min = v;
	if (!s->known || v > s->max)
		s->max = v;
	s->sum += v;
	s->known++;
}

/* "mean (min-max)" with dec decimals, or "-", into b, padded to width. */
static void
bench_cell(struct buf *b, const struct bench_stat *s, int dec, int width)
{
	char cell[128];

	if (!s->known)
		snprintf(cell, sizeof cell, "-");
	else if (s->min == s->max)
		snprintf(cell, sizeof cell, "%.*f", dec, s->sum / s->known);
	else
		snprintf(cell, sizeof cell, "%.*f (%.*f-%.*f)", dec, s->sum / s->known, dec, s->min, dec, s->max);
	buf_addf(b, "%-*s", width, cell);
}

static void
bench_print_table(const struct bench_ctx *c, const struct bench_result *r, size_t n, FILE *f)
{
	struct buf b = BUF_INIT;
	int pi, ai;
	size_t i;
	int aw = 5;

	for (ai = 0; ai < c->o->nagents; ai++)
		if ((int)strlen(c->o->agents[ai].label) > aw)
			aw = (int)strlen(c->o->agents[ai].label);
	if (aw > 40)
		aw = 40;
	buf_addf(&b, "%-16s %-*s  %-18s %-18s %-20s %-16s %-12s %-6s %s\n", "problem", aw, "agent", "passed (min-max)",
		 "wall s", "prompt tok", "generated tok", "steps", "escal", "cost $");
	for (pi = 0; pi < c->nproblems; pi++) {
		for (ai = 0; ai < c->o->nagents; ai++) {
			struct bench_stat passed = { 0 }, wall = { 0 }, pt = { 0 }, gt = { 0 }, st = { 0 }, es = { 0 },
					  cost = { 0 };
			int changed = 0, timeouts = 0, errors = 0, failed = 0;
			char head[80];

			for (i = 0; i < n; i++) {
				if (r[i].problem != pi || r[i].agent != ai)
					continue;
				bench_stat_add(&passed, (double)r[i].passed, !r[i].error);
				bench_stat_add(&wall, r[i].wall_s, !r[i].error);
				bench_stat_add(&pt, r[i].prompt_tokens, r[i].prompt_tokens >= 0);
				bench_stat_add(&gt, r[i].generated_tokens, r[i].generated_tokens >= 0);
				bench_stat_add(&st, (double)r[i].h.steps, r[i].h.steps >= 0);
				bench_stat_add(&es, (double)r[i].h.escalations, r[i].h.escalations >= 0);
				bench_stat_add(&cost, r[i].h.cost_usd, r[i].h.cost_usd >= 0);
				changed += r[i].tests_changed;
				timeouts += r[i].timed_out;
				errors += r[i].error != NULL;
				failed += r[i].agent_exit > 0 && !r[i].timed_out;
			}
			snprintf(head, sizeof head, "%s", ai == 0 ? c->problems[pi].name : "");
			buf_addf(&b, "%-16s %-*.*s  ", head, aw, aw, c->o->agents[ai].label);
			{
				struct buf cell = BUF_INIT;

				bench_cell(&cell, &passed, 1, 0);
				buf_addf(&cell, "/%ld", c->problems[pi].tests);
				buf_addf(&b, "%-18s ", cell.data);
				buf_release(&cell);
			}
			bench_cell(&b, &wall, 1, 18);
			buf_addch(&b, ' ');
			bench_cell(&b, &pt, 0, 20);
			buf_addch(&b, ' ');
			bench_cell(&b, &gt, 0, 16);
			buf_addch(&b, ' ');
			bench_cell(&b, &st, 1, 12);
			buf_addch(&b, ' ');
			bench_cell(&b, &es, 1, 6);
			buf_addch(&b, ' ');
			bench_cell(&b, &cost, 4, 0);
			if (changed)
				buf_addf(&b, "  tests changed in %d", changed);
			if (timeouts)
				buf_addf(&b, "  timed out %d", timeouts);
			if (failed)
				buf_addf(&b, "  agent failed %d", failed);
			if (errors)
				buf_addf(&b, "  harness errors %d", errors);
			while (b.len && b.data[b.len - 1] == ' ')
				buf_setlen(&b, b.len - 1);
			buf_addch(&b, '\n');
		}
	}
	for (ai = 0; ai < c->o->nagents; ai++) {
		double passed = 0, total = 0, wall = 0;
		int trials = 0;

		for (i = 0; i < n; i++) {
			if (r[i].agent != ai)
				continue;
			passed += (double)r[i].passed;
			total += (double)r[i].total;
			wall += r[i].wall_s;
			trials++;
		}
		buf_addf(&b, "%-16s %-*.*s  %.0f/%.0f tests passed (%.0f%%) in %d trials, %.1f s of agent time\n",
			 ai == 0 ? "all" : "", aw, aw, c->o->agents[ai].label, passed, total,
			 total > 0 ? 100 * passed / total : 0, trials, wall);
	}
	fputs(b.data, f);
	buf_release(&b);
}

/* ---- the mode ---- */

/* The shipped problems: $HEARTH_BENCH_PROBLEMS, beside the binary in the tree (or in a
 * build directory of it, such as build-asan/), or installed. */
static int
bench_default_problems(const char *self, struct buf *out)
{
	const char *env = getenv("HEARTH_BENCH_PROBLEMS");
	static const char *const rel[] = { "extensions/bench/problems", "../extensions/bench/problems",
					    "../share/hearth/bench/problems" };
	char dir[PATH_MAX];
	char *slash;
	size_t i;

	if (env && *env) {
		buf_adds(out, env);
		return 0;
	}
	snprintf(dir, sizeof dir, "%s", self);
	if (!(slash = strrchr(dir, '/')))
		return -1;
	*slash = 0;
	for (i = 0; i < sizeof rel / sizeof *rel; i++) {
		buf_reset(out);
		buf_addf(out, "%s/%s", dir, rel[i]);
		if (access(out->data, R_OK | X_OK) == 0)
			return 0;
	}
	return -1;
}

static void
bench_list(const struct bench_ctx *c)
{
	long i;

	printf("%-18s %-8s %-5s %-6s %s\n", "problem", "language", "level", "tests", "summary");
	for (i = 0; i < c->nproblems; i++) {
		const struct front_bench_problem *p = &c->problems[i];

		printf("%-18s %-8s %-5ld %-6ld %s\n", p->name, p->language, p->level, p->tests, p->summary);
	}
}

int
front_bench_main(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_ctx c;
	struct bench_result *res = NULL;
	struct buf pdir = BUF_INIT;
	struct err e = ERR_INIT;
	size_t nres = 0, cap;
	int code, t, pi, ai, errors = 0;

	memset(&o, 0, sizeof o);
	memset(&c, 0, sizeof c);
	if ((code = bench_parse(argc, argv, &o)) >= 0)
		return code;
	c.o = &o;
	json_init();
	signal(SIGPIPE, SIG_IGN);
	if (bench_self(c.self, sizeof c.self) < 0) {
		fprintf(stderr, "hearth: bench: cannot find this binary's path in /proc/self/exe\n");
		return 1;
	}
	if (o.problems)
		buf_adds(&pdir, o.problems);
	else if (bench_default_problems(c.self, &pdir) < 0) {
		fprintf(stderr, "hearth: bench: the shipped problems are not installed; give --problems DIR\n");
		buf_release(&pdir);
		return 1;
	}
	if (pdir.data[0] != '/') {
		char cwd[PATH_MAX];
		struct buf abs = BUF_INIT;

		if (getcwd(cwd, sizeof cwd))
			buf_addf(&abs, "%s/%s", cwd, pdir.data);
		buf_release(&pdir);
		pdir = abs;
	}
	if ((c.nproblems = front_bench_problems_load(pdir.data, o.only, &c.problems, &e)) < 0) {
		fprintf(stderr, "hearth: bench: %s\n", e.msg);
		buf_release(&pdir);
		return 1;
	}
	buf_release(&pdir);
	if (o.list) {
		bench_list(&c);
		front_bench_problems_free(c.problems, c.nproblems);
		return 0;
	}
	bench_agents_prepare(&o);
	if (proc_guard_start(&e) < 0)
		fprintf(stderr, "hearth: %s (an agent may outlive a killed hearth)\n", e.msg);
	buf_init(&c.w.out, 0);
	buf_init(&c.w.body, 0);
	c.w.keep = BENCH_OUT_KEEP;
	if (!(c.w.loop = loop_new(&e)) || !(c.http = http_new(c.w.loop, &e))) {
		fprintf(stderr, "hearth: bench: %s\n", e.msg);
		code = 1;
		goto out;
	}
	bench_current = &c.w;
	loop_signal(c.w.loop, SIGINT, bench_on_signal, NULL, NULL);
	loop_signal(c.w.loop, SIGTERM, bench_on_signal, NULL, NULL);
	loop_signal(c.w.loop, SIGHUP, bench_on_signal, NULL, NULL);
	cap = (size_t)o.trials * (size_t)c.nproblems * (size_t)o.nagents;
	res = xcalloc(cap, sizeof *res);
	/* trials outermost and agents innermost: drift of the machine or server spreads over all of them */
	for (t = 1; t <= o.trials && !c.w.interrupted; t++) {
		for (pi = 0; pi < c.nproblems && !c.w.interrupted; pi++) {
			for (ai = 0; ai < o.nagents && !c.w.interrupted; ai++) {
				struct bench_result *r = &res[nres];

				bench_trial(&c, pi, ai, t, r);
				if (c.w.interrupted) {
					free(r->error);
					break;
				}
				nres++;
				if (r->error) {
					errors++;
					fprintf(stderr, "bench: %s / %s trial %d: %s\n", c.problems[pi].name,
						o.agents[ai].label, t, r->error);
				} else {
					char why[48] = "";

					if (r->agent_exit > 0 && !r->timed_out)
						snprintf(why, sizeof why, " (the agent exited %d)", r->agent_exit);
					fprintf(stderr, "bench: %s / %s trial %d: %ld/%ld in %.1f s%s%s%s\n",
						c.problems[pi].name, o.agents[ai].label, t, r->passed, r->total,
						r->wall_s, r->tests_changed ? " (tests changed: scored 0)" : "",
						r->timed_out ? " (timed out)" : "", why);
				}
			}
		}
	}
	if (o.json)
		bench_print_json(&c, res, nres);
	else
		bench_print_table(&c, res, nres, stdout);
	code = c.w.interrupted ? 130 : errors ? 1 : 0;
	if (c.w.interrupted)
		fprintf(stderr, "bench: interrupted; the figures cover the trials that finished\n");
out:
	bench_current = NULL;
	for (; nres > 0; nres--)
		free(res[nres - 1].error);
	free(res);
	http_free(c.http);
	loop_free(c.w.loop);
	buf_release(&c.w.out);
	buf_release(&c.w.body);
	for (ai = 0; ai < o.nagents; ai++)
		free(o.agents[ai].label);
	front_bench_problems_free(c.problems, c.nproblems);
	return code;
}

/*
 * main: command line, modes and wiring.
 *
 * Start-up stays lazy so `hearth --version` costs little more than the
 * dynamic loader: arguments are parsed first, and the loop, curl, the
 * settings files and the tools are only touched once a run needs them.
 * Print mode: probe the server, run one agent turn, print, exit with a
 * code a script can act on (0 done, 1 failed, 2 usage, 3 no server,
 * 130 interrupted).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cfg.h"
#include "checkpoint.h"
#include "cli.h"
#include "escalate.h"
#include "cmd.h"
#include "cmdtpl.h"
#include "http.h"
#include "journal.h"
#include "json.h"
#include "llama.h"
#include "log.h"
#include "loop.h"
#include "pmode.h"
#include "prompt.h"
#include "repl.h"
#include "repo.h"
#include "repomap.h"
#include "stale.h"
#include "sesscli.h"
#include "tool.h"
#include "xmalloc.h"

#define EXIT_USAGE 2
#define MAX_TOOLS 32


struct run {
	struct cli *o;
	struct cfg cfg;
	struct loop *loop;
	struct http *http;
	struct llama *llama;
	struct agent *agent;
	struct pmode *pm;
	struct tool_env env;
	const struct tool *tools[MAX_TOOLS];
	size_t ntools;
	struct buf system;
	char root[PATH_MAX];
	char session_id[40];
	struct buf state_dir;
	uint64_t t0;
	int interrupted;
	struct journal journal;   /* this run's session file */
	struct checkpoint cp;     /* undo history of the session */
	struct escalate esc;      /* local or Claude, per turn */
	const char *task;         /* the task after routing (a leading @claude removed) */
	struct conv resumed;      /* messages of a resumed session, until the agent exists */
};


/* Read the task from stdin (bounded) when it is not a terminal. */
static int
read_stdin_task(struct buf *task)
{
	struct err e = ERR_INIT;

	if (isatty(STDIN_FILENO))
		return 0;
	if (buf_read_file(task, "/dev/stdin", 16u << 20, &e) < 0) {
		fprintf(stderr, "hearth: reading the task from stdin: %s\n", e.msg);
		return -1;
	}
	buf_rtrim(task);
	return 0;
}

/* Enabled tools: all, none, or the --tools list (unknown names are usage errors). */
static int
select_tools(struct run *r)
{
	size_t n, i;
	const struct tool *const *all = tool_all(&n);
	char *list, *tok, *save = NULL;

	if (r->o->no_tools)
		return 0;
	if (!r->o->tools) {
		for (i = 0; i < n && i < MAX_TOOLS; i++)
			r->tools[r->ntools++] = all[i];
		return 0;
	}
	list = xstrdup(r->o->tools);
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const struct tool *t = tool_find(tok);

		if (!t) {
			cli_usage_error("unknown tool \"%s\" in --tools (read, write, edit, bash, grep, find, ls)", tok);
			free(list);
			return -1;
		}
		if (r->ntools < MAX_TOOLS)
			r->tools[r->ntools++] = t;
	}
	free(list);
	return 0;
}

/* A random session id (hex). */
static void
make_session_id(char *out, size_t n)
{
	unsigned char raw[8] = { 0 };
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
		unsigned long v = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);

		memcpy(raw, &v, sizeof v < sizeof raw ? sizeof v : sizeof raw);
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < sizeof raw && 2 * i + 2 < n; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* $XDG_STATE_HOME/hearth (or ~/.local/state/hearth); created lazily by users. */
static void
state_dir(struct buf *out)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		buf_addf(out, "%s/hearth", xdg);
	else
		buf_addf(out, "%s/.local/state/hearth", home && *home ? home : "/tmp");
}

/* Settings: files, then HEARTH_SERVER, then flags. */
static void
load_settings(struct run *r)
{
	struct buf warnings = BUF_INIT;
	const char *env = getenv("HEARTH_SERVER");

	cfg_defaults(&r->cfg);
	cfg_load(&r->cfg, r->root, &warnings);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
	if (env && *env) {
		free(r->cfg.server_url);
		r->cfg.server_url = xstrdup(env);
	}
	if (r->o->server) {
		free(r->cfg.server_url);
		r->cfg.server_url = xstrdup(r->o->server);
	}
	if (r->o->model) {
		free(r->cfg.model);
		r->cfg.model = xstrdup(r->o->model);
	}
	if (r->o->max_steps > 0)
		r->cfg.max_steps = r->o->max_steps;
	if (r->o->thinking >= 0)
		r->cfg.thinking = r->o->thinking;
}

/* SIGINT/SIGTERM/SIGHUP: abort the turn (tools killed) and stop. */
static void
on_interrupt(struct loop *l, int signo, void *arg)
{
	struct run *r = arg;

	(void)signo;
	r->interrupted = 1;
	if (r->agent && agent_busy(r->agent))
		agent_abort(r->agent);
	loop_stop(l);
}

/* Discovery said the model is loading. */
static void
on_loading(void *arg)
{
	struct run *r = arg;
	struct buf b = BUF_INIT;

	buf_addf(&b, "llama-server at %s is loading the model; waiting", r->cfg.server_url);
	pmode_note(r->pm, b.data);
	buf_release(&b);
}

/* Create the agent on provider p and submit the (routed) task. */
static void
start_turn(struct run *r, struct provider *p, const char *task)
{
	struct agent_observer obs = pmode_observer(r->pm);
	struct agent_opts ao = { 0 };
	struct err e = ERR_INIT;

	ao.max_steps = r->cfg.max_steps;
	ao.thinking = r->cfg.thinking;
	ao.tools = r->tools;
	ao.ntools = r->ntools;
	ao.hooks.arg = &r->cp;
	ao.hooks.before_change = checkpoint_before_change;
	ao.hooks.turn_end = checkpoint_turn_end;
	obs.on_commit = journal_commit;
	obs.commit_arg = &r->journal;
	journal_set_model(&r->journal, p->model(p->self));
	r->agent = agent_new(r->loop, p, &r->env, &ao, &obs);
	conv_set_system(agent_conv(r->agent), r->system.data);
	conv_move_msgs(agent_conv(r->agent), &r->resumed);
	agent_mark_committed(r->agent);
	if (agent_submit(r->agent, task, &e) < 0) {
		pmode_fail(r->pm, LLM_ERR_OTHER, e.msg);
		loop_stop(r->loop);
	}
	/* the task was committed, so the session exists and has its id */
	snprintf(r->session_id, sizeof r->session_id, "%s", journal_id(&r->journal));
	pmode_init(r->pm, p->model(p->self), r->tools, r->ntools);
}

/* Route the task: Claude (no local server needed) or local (after discovery). */
static struct provider *
route_task(struct run *r, const char **task, long n_ctx)
{
	struct buf note = BUF_INIT;
	struct provider *p = escalate_turn(&r->esc, task, llama_provider(r->llama), n_ctx, NULL, &note);

	if (note.len)
		pmode_error(r->pm, note.data);
	pmode_route(r->pm, route_target_name(r->esc.last.target), r->esc.last.reason);
	buf_release(&note);
	return p;
}

/* Discovery finished: start the turn, or end with its error. */
static void
on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct run *r = arg;
	const struct llama_info *info = llama_info(lm);

	if (rc < 0) {
		pmode_fail(r->pm, kind, msg);
		loop_stop(r->loop);
		return;
	}
	log_msg("server %s model %s n_ctx %ld slots %d build %s", r->cfg.server_url,
		info->model_id ? info->model_id : "?", info->n_ctx, info->total_slots,
		info->build_info ? info->build_info : "?");
	start_turn(r, llama_provider(lm), r->task);
}

/* Stop the loop once the turn ended or stdout went away. */
static void
before_sleep(struct loop *l, void *arg)
{
	struct run *r = arg;

	if (pmode_ended(r->pm) || pmode_stdout_closed(r->pm))
		loop_stop(l);
}

/* Load or write warnings of the session file, one line each on stderr. */
static void
flush_journal_warnings(struct run *r)
{
	if (!r->journal.warnings.len)
		return;
	buf_rtrim(&r->journal.warnings);
	fprintf(stderr, "hearth: %s\n", r->journal.warnings.data);
	buf_reset(&r->journal.warnings);
}

/* Workspace, settings, tools and prompt: everything a run needs before the loop. */
static int
run_setup(struct run *r)
{
	char date[16];
	time_t now = time(NULL);
	struct err e = ERR_INIT;

	if (r->o->cwd && chdir(r->o->cwd) < 0) {
		fprintf(stderr, "hearth: --cwd %s: %s\n", r->o->cwd, strerror(errno));
		return EXIT_USAGE;
	}
	if (!realpath(".", r->root)) {
		fprintf(stderr, "hearth: cannot resolve the working directory: %s\n", strerror(errno));
		return 1;
	}
	load_settings(r);
	if (select_tools(r) < 0)
		return EXIT_USAGE;
	buf_init(&r->system, 0);
	if (r->o->system_prompt_file) {
		if (prompt_load_file(&r->system, r->o->system_prompt_file, &e) < 0) {
			fprintf(stderr, "hearth: --system-prompt-file: %s\n", e.msg);
			return EXIT_USAGE;
		}
	} else {
		struct buf warnings = BUF_INIT;

		strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
		prompt_session(&r->system, r->root, date, r->tools, r->ntools, &warnings);
		if (warnings.len) {
			buf_rtrim(&warnings);
			fprintf(stderr, "hearth: %s\n", warnings.data);
		}
		buf_release(&warnings);
	}
	make_session_id(r->session_id, sizeof r->session_id);
	conv_init(&r->resumed);
	journal_init(&r->journal, r->root, r->cfg.server_url);
	checkpoint_init(&r->cp, r->root, r->state_dir.data, &r->journal, &r->env);
	if (r->o->cont || (r->o->resume && r->o->resume_id)) {
		if (journal_resume(&r->journal, r->o->resume_id, &r->resumed, &e) < 0) {
			fprintf(stderr, "hearth: %s\n", e.msg);
			return 1;
		}
		flush_journal_warnings(r);
	}
	buf_init(&r->state_dir, 0);
	state_dir(&r->state_dir);
	r->env.root = r->root;
	r->env.allow_outside = r->cfg.allow_outside_workspace;
	r->env.state_dir = r->state_dir.data;
	r->env.bash_timeout_s = r->cfg.bash_timeout_s;
	r->env.syntax_reject = r->cfg.syntax_reject;
	r->env.stale = stale_new();
	return -1;
}

/* The routing policy from the settings, --route on top. */
static void
start_routing(struct run *r)
{
	struct buf warnings = BUF_INIT;

	escalate_init(&r->esc, r->loop, r->http, r->root, r->state_dir.data, &warnings);
	if (r->o->route)
		escalate_set_mode(&r->esc, r->o->route, NULL);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
}

/* Loop, http, provider: the machinery of a run. */
static int
run_start(struct run *r)
{
	struct err e = ERR_INIT;
	struct pmode_opts po = { 0 };

	signal(SIGPIPE, SIG_IGN);
	json_init();
	if (!(r->loop = loop_new(&e)) || !(r->http = http_new(r->loop, &e))) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		return 1;
	}
	r->t0 = loop_now_ms(r->loop);
	loop_signal(r->loop, SIGINT, on_interrupt, r, NULL);
	loop_signal(r->loop, SIGTERM, on_interrupt, r, NULL);
	loop_signal(r->loop, SIGHUP, on_interrupt, r, NULL);
	r->env.loop = r->loop;
	r->llama = llama_new(r->loop, r->http, &r->cfg);
	if (r->resumed.nmsgs)
		llama_prefer_warm_slot(r->llama);
	start_routing(r);
	po.format = r->o->format;
	po.err_is_tty = isatty(STDERR_FILENO);
	po.verbose = r->o->verbose || po.err_is_tty;
	po.out_fd = STDOUT_FILENO;
	po.err_fd = STDERR_FILENO;
	po.session_id = r->session_id;
	po.cwd = r->root;
	r->pm = pmode_new(&po);
	loop_set_before_sleep(r->loop, before_sleep, r);
	return -1;
}

/* Free whatever run_setup/run_start made. */
static void
run_release(struct run *r)
{
	agent_free(r->agent);
	escalate_release(&r->esc);
	llama_free(r->llama);
	http_free(r->http);
	pmode_free(r->pm);
	loop_free(r->loop);
	flush_journal_warnings(r);
	checkpoint_release(&r->cp);
	journal_release(&r->journal);
	conv_release(&r->resumed);
	stale_free(r->env.stale);
	r->env.stale = NULL;
	repomap_cache_free();
	cfg_release(&r->cfg);
	buf_release(&r->system);
	buf_release(&r->state_dir);
}

/* Set up a run; -1 when ready, else the exit code (everything already released). */
static int
run_open(struct run *r, struct cli *o)
{
	int code;

	memset(r, 0, sizeof *r);
	r->o = o;
	buf_init(&r->system, 0);
	buf_init(&r->state_dir, 0);
	if ((code = run_setup(r)) >= 0 || (code = run_start(r)) >= 0) {
		run_release(r);
		return code;
	}
	return -1;
}

/* /help in print mode: the commands a task may start with. */
static enum cmd_result
print_cmd_help(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)self;
	(void)args;
	buf_adds(out, "A print-mode task may be a slash command:\n");
	cmdreg_help(ctx, out);
	return CMD_DONE;
}

/*
 * A task that is a slash command: a prompt template becomes the task;
 * other commands print their output.  Returns -1 to go on with the
 * (possibly replaced) task, or an exit code.
 */
static int
print_command(struct run *r)
{
	static const struct cmd help = { "help", "", "list the commands", print_cmd_help, NULL };
	struct cmdreg reg;
	struct ctxfiles_templates tpl;
	struct buf out = BUF_INIT, warnings = BUF_INIT;
	int code = -1;

	if (r->o->task.data[0] != '/' || r->o->task.data[1] == '/')
		return -1;
	cmdreg_init(&reg);
	cmdreg_add(&reg, &help);
	checkpoint_commands(&reg, &r->cp);
	ctxfiles_templates_load(r->root, &tpl, &warnings);
	cmdtpl_add(&reg, &tpl, &warnings);
	switch (cmdreg_run(&reg, &reg, r->o->task.data, &out)) {
	case CMD_SUBMIT:
		buf_reset(&r->o->task);
		buf_add(&r->o->task, out.data, out.len);
		break;
	case CMD_ERROR:
		fprintf(stderr, "hearth: %s\n", out.data);
		code = EXIT_USAGE;
		break;
	default:
		buf_rtrim(&out);
		if (out.len)
			printf("%s\n", out.data);
		code = 0;
		break;
	}
	cmdreg_release(&reg);
	ctxfiles_templates_release(&tpl);
	buf_release(&out);
	buf_release(&warnings);
	return code;
}

/* The files the session changed, for the json result; returns how many. */
static int
report_changes(struct run *r)
{
	struct repo_result res = REPO_RESULT_INIT;
	size_t i;
	int n;

	if (checkpoint_changes(&r->cp, &res) < 0)
		return 0;
	for (i = 0; i < res.nfiles; i++)
		pmode_file_changed(r->pm, res.files[i].path, res.files[i].status, res.files[i].added,
				   res.files[i].removed);
	n = (int)res.nfiles;
	repo_result_release(&res);
	return n;
}

/* Print mode: one task, one answer. */
static int
run_print(struct cli *o)
{
	struct provider *prov;
	struct run r;
	int nchanged;
	struct err e = ERR_INIT;
	int code;

	if ((code = run_open(&r, o)) >= 0)
		return code;
	if ((code = print_command(&r)) >= 0) {
		run_release(&r);
		return code;
	}
	r.task = r.o->task.data;
	prov = route_task(&r, &r.task, 0);
	if (prov != llama_provider(r.llama))
		start_turn(&r, prov, r.task); /* Claude: the local server is not needed */
	else
		llama_probe(r.llama, 300000, on_loading, on_probe, &r);
	if (loop_run(r.loop, &e) < 0)
		pmode_fail(r.pm, LLM_ERR_OTHER, e.msg);
	if (r.interrupted && !pmode_ended(r.pm))
		pmode_fail(r.pm, LLM_ERR_ABORTED, "interrupted");
	if (pmode_stdout_closed(r.pm) && r.agent && agent_busy(r.agent))
		agent_abort(r.agent);
	nchanged = report_changes(&r);
	prov = r.agent ? agent_provider(r.agent) : llama_provider(r.llama);
	code = pmode_finish(r.pm, r.agent ? agent_stats(r.agent) : &(struct agent_stats){ 0 },
			    prov->model(prov->self), loop_now_ms(r.loop) - r.t0);
	if (r.interrupted)
		code = 130;
	else if (pmode_stdout_closed(r.pm) && code == 130)
		code = 1; /* the reader went away mid-run: not an interrupt, not a success */
	if (r.agent)
		escalate_turn_end(&r.esc, agent_stats(r.agent), code == 0, nchanged > 0,
				  (double)(loop_now_ms(r.loop) - r.t0) / 1000.0);
	run_release(&r);
	return code;
}

/* Interactive session (line mode until the full-screen UI lands). */
static int
run_interactive(struct cli *o)
{
	struct run r;
	struct repl_deps d = { 0 };
	int code;

	if ((code = run_open(&r, o)) >= 0)
		return code;
	loop_set_before_sleep(r.loop, NULL, NULL);
	d.loop = r.loop;
	d.llama = r.llama;
	d.cfg = &r.cfg;
	d.env = &r.env;
	d.tools = r.tools;
	d.ntools = r.ntools;
	d.system = r.system.data;
	d.in_fd = STDIN_FILENO;
	d.out_fd = STDOUT_FILENO;
	d.journal = &r.journal;
	d.resumed = &r.resumed;
	d.checkpoint = &r.cp;
	code = repl_run(&d);
	run_release(&r);
	return code;
}

/* `hearth stats`: what escalation cost and bought. */
static int
print_stats(void)
{
	struct buf dir = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	int code = 0;

	state_dir(&dir);
	if (escalate_stats(dir.data, &out, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 1;
	} else {
		fputs(out.data, stdout);
	}
	buf_release(&dir);
	buf_release(&out);
	return code;
}

/* Entry point. */
int
main(int argc, char **argv)
{
	struct cli o;
	const char *logp;
	char chosen[64];
	int code;

	memset(&o, 0, sizeof o);
	o.thinking = -1;
	buf_init(&o.task, 0);
	if ((code = cli_parse(argc, argv, &o)) >= 0)
		goto out;
	logp = o.log_path ? o.log_path : getenv("HEARTH_LOG");
	if (logp && *logp) {
		struct err e = ERR_INIT;

		if (log_open(logp, &e) < 0)
			fprintf(stderr, "hearth: %s (continuing without a log)\n", e.msg);
	}
	if (o.export_session) {
		code = sesscli_export(&o);
		goto out;
	}
	if (o.stats) {
		code = print_stats();
		goto out;
	}
	if (o.resume && !o.resume_id && (code = sesscli_pick(&o, chosen, sizeof chosen)) >= 0)
		goto out;
	if (!o.print) {
		code = run_interactive(&o);
		goto out;
	}
	if (!o.task.len && read_stdin_task(&o.task) < 0) {
		code = EXIT_USAGE;
		goto out;
	}
	if (!o.task.len) {
		code = cli_usage_error("%s", "no task: pass it as arguments (hearth -p \"task\") or on stdin");
		goto out;
	}
	code = run_print(&o);
out:
	buf_release(&o.task);
	log_close();
	return code;
}

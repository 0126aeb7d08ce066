/*
 * front/run: setting up and tearing down one run (see front/run.h).  Order matters in
 * front_run_release: the agent first (its turn-end hook still uses the
 * checkpoint), then the providers, the http client and the loop.
 */
#include "front/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perm/gate.h"
#include "perm/perm.h"
#include "front/trust.h"
#include "io/http.h"
#include "base/env.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/secret.h"
#include "llama/llama.h"
#include "llm/conv.h"
#include "io/loop.h"
#include "mcp/mcp.h"
#include "mcp/config.h"
#include "prompt/prompt.h"
#include "route/ladder.h"
#include "repomap/repomap.h"
#include "llama/serve.h"
#include "tools/stale.h"
#include "io/work.h"
#include "io/sandbox.h"
#include "base/xmalloc.h"
#include "base/workspace.h"


/* Enabled tools: all, none, or the --tools list (unknown names are usage errors). */
static int
select_tools(struct front_run *r)
{
	size_t n, i;
	const struct tool *const *all = tool_all(&n);
	char *list, *tok, *save = NULL;

	if (r->o->no_tools)
		return 0;
	if (!r->o->tools) {
		for (i = 0; i < n && i < FRONT_RUN_MAX_TOOLS; i++)
			r->tools[r->ntools++] = all[i];
		return 0;
	}
	list = xstrdup(r->o->tools);
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const struct tool *t = tool_find(tok);

		if (!t) {
			front_cli_usage_error("unknown tool \"%s\" in --tools (read, write, edit, bash, grep, find, ls)", tok);
			free(list);
			return -1;
		}
		if (r->ntools < FRONT_RUN_MAX_TOOLS)
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
void
front_run_state_dir(struct buf *out)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		buf_addf(out, "%s/hearth", xdg);
	else
		buf_addf(out, "%s/.local/state/hearth", home && *home ? home : "/tmp");
}

/* The server from the environment and --server, over the settings files (see front/run.h). */
void
front_run_server_env(struct cfg *c, const char *flag_server)
{
	const char *base = getenv("OPENAI_BASE_URL"), *key = getenv("OPENAI_API_KEY");
	const char *env = getenv("HEARTH_SERVER");

	if (base && *base) {
		free(c->server_url);
		c->server_url = xstrdup(base);
	}
	if (key && *key) { /* read before env_scrub_secrets wipes it */
		free(c->server_api_key);
		c->server_api_key = xstrdup(key);
		secret_add("OPENAI_API_KEY", key);
	}
	if (env && *env) {
		free(c->server_url);
		c->server_url = xstrdup(env);
	}
	if (flag_server) {
		free(c->server_url);
		c->server_url = xstrdup(flag_server);
	}
}

/* Whether a --route value is a mode rather than a tier's name. */
static int
route_is_mode(const char *s)
{
	return !strcmp(s, "auto") || !strcmp(s, "local") || !strcmp(s, "claude");
}

/*
 * The tier of this run (route/tiers.h): --route NAME, else a print task's
 * "@NAME " prefix (taken off the task), else the interactive tier unless
 * --server, HEARTH_SERVER or OPENAI_BASE_URL named a server.  Its url,
 * model, thinking and key (the variable api_key_env names, read before the
 * environment is scrubbed) go into the settings.  -1 on an unknown name.
 */
static int
pick_tier(struct front_run *r, struct buf *warnings)
{
	const char *env = getenv("HEARTH_SERVER"), *base = getenv("OPENAI_BASE_URL"), *key;
	const char *task = r->o->task.data;
	const struct route_tier *t = NULL;

	route_tiers_load_user(&r->tiers, warnings);
	if (r->o->route && !route_is_mode(r->o->route)) {
		if (!(t = route_tiers_find(&r->tiers, r->o->route, strlen(r->o->route)))) {
			struct buf names = BUF_INIT;

			route_tiers_names(&r->tiers, &names);
			fprintf(stderr, "hearth: --route %s: no such mode or tier; modes: auto, local, claude; tiers (the servers setting): %s\n",
				r->o->route, names.data);
			buf_release(&names);
			return -1;
		}
		r->tier_pinned = 1;
	} else if (r->o->print && task && task[0] == '@') {
		size_t n = strcspn(task + 1, " \t\n");

		if ((t = route_tiers_find(&r->tiers, task + 1, n)) != NULL) {
			size_t skip = 1 + n + strspn(task + 1 + n, " \t\n");
			char *rest = xstrdup(task + skip);

			buf_reset(&r->o->task);
			buf_adds(&r->o->task, rest);
			free(rest);
			r->tier_pinned = 1;
		}
	}
	if (!t && !r->o->server && !(env && *env) && !(base && *base))
		t = route_tiers_start(&r->tiers);
	if (!t)
		return 0;
	r->tier = t;
	free(r->cfg.server_url);
	r->cfg.server_url = xstrdup(t->url);
	if (t->model && !r->o->model) {
		free(r->cfg.model);
		r->cfg.model = xstrdup(t->model);
	}
	if (t->thinking >= 0)
		r->cfg.thinking = t->thinking;
	if (t->api_key_env && (key = getenv(t->api_key_env)) != NULL && *key) {
		free(r->cfg.server_api_key);
		r->cfg.server_api_key = xstrdup(key);
		secret_add(t->api_key_env, key);
	}
	return 0;
}

/* Settings: files, then OPENAI_BASE_URL and OPENAI_API_KEY, then HEARTH_SERVER, then flags. */
static int
load_settings(struct front_run *r)
{
	struct buf warnings = BUF_INIT;
	int rc;

	cfg_defaults(&r->cfg);
	cfg_load(&r->cfg, r->root, &warnings);
	{ /* what children see (base/env.h) and what tool results never show (base/secret.h) */
		size_t n = 0;

		while (r->cfg.env_passthrough && r->cfg.env_passthrough[n])
			n++;
		env_set_passthrough((const char *const *)r->cfg.env_passthrough, n, &warnings);
		secret_capture(NULL);
	}
	front_run_server_env(&r->cfg, r->o->server);
	rc = pick_tier(r, &warnings);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
	if (rc < 0)
		return -1;
	if (r->o->model) {
		free(r->cfg.model);
		r->cfg.model = xstrdup(r->o->model);
	}
	if (r->o->theme) {
		free(r->cfg.theme);
		r->cfg.theme = xstrdup(r->o->theme);
	}
	if (r->o->max_steps > 0)
		r->cfg.max_steps = r->o->max_steps;
	if (r->o->thinking >= 0)
		r->cfg.thinking = r->o->thinking;
	return 0;
}

/* The user's settings alone: cfg_each_file with the project's file skipped. */
struct front_run_user {
	struct cfg *cfg;
	const char *project;
};

static int
front_run_user_file(void *arg, const char *path, struct buf *warnings, struct err *e)
{
	struct front_run_user *u = arg;

	return strcmp(path, u->project) ? cfg_load_file(u->cfg, path, warnings, e) : 0;
}

void
front_run_user_cfg(const char *root, struct cfg *user, struct buf *warnings)
{
	struct buf proj = BUF_INIT;
	struct front_run_user u = { user, NULL };

	cfg_defaults(user);
	workspace_project_file(root, ".hearth/settings.json", &proj);
	u.project = proj.data;
	cfg_each_file(root, front_run_user_file, &u, warnings);
	buf_release(&proj);
}

/*
 * Trust on first use (front/trust.h): untrusted, the project's settings
 * keep what only narrows rights (the gate and start_mcp leave the rest
 * out); here its allow_outside_workspace and serve.binary fall back to
 * the user's.
 */
static void
decide_trust(struct front_run *r)
{
	struct buf state = BUF_INIT, warnings = BUF_INIT;
	struct cfg user;
	int can_ask = !r->o->print && isatty(STDIN_FILENO) && isatty(STDERR_FILENO);

	front_run_state_dir(&state);
	r->trusted = front_trust_decide(r->root, state.data, r->o->yes, can_ask, stdin, stderr);
	buf_release(&state);
	if (r->trusted)
		return;
	front_run_user_cfg(r->root, &user, &warnings);
	r->cfg.allow_outside_workspace = user.allow_outside_workspace;
	free(r->cfg.serve_binary);
	r->cfg.serve_binary = user.serve_binary ? xstrdup(user.serve_binary) : NULL;
	free(r->cfg.slot_save_dir); /* a directory whose hearth-*.bin files are deleted: the user's own */
	r->cfg.slot_save_dir = user.slot_save_dir ? xstrdup(user.slot_save_dir) : NULL;
	cfg_list_free(r->cfg.serve_args); /* extra server arguments: the user's own settings only */
	r->cfg.serve_args = user.serve_args;
	user.serve_args = NULL;
	cfg_release(&user);
	buf_release(&warnings);
}

/* SIGINT/SIGTERM/SIGHUP: abort the turn (tools killed) and stop. */
static void
on_interrupt(struct loop *l, int signo, void *arg)
{
	struct front_run *r = arg;

	(void)signo;
	r->interrupted = 1;
	if (r->turn.agent && agent_busy(r->turn.agent))
		agent_abort(r->turn.agent);
	loop_stop(l);
}

/* Load or write warnings of the session file, one line each on stderr. */
static void
flush_journal_warnings(struct front_run *r)
{
	if (!r->journal.warnings.len)
		return;
	buf_rtrim(&r->journal.warnings);
	fprintf(stderr, "hearth: %s\n", r->journal.warnings.data);
	buf_reset(&r->journal.warnings);
}

/* The tools the prompt names: the toolset's, with the MCP tools registered so far. */
static size_t
front_run_tool_listing(struct front_run *r, const struct tool **list)
{
	size_t nx = 0;
	const struct tool *const *x = r->ntools ? tool_extra(&nx) : NULL;

	if (r->ntools)
		toolset_sync(&r->toolset, x, nx);
	return toolset_listing(&r->toolset, list, 2 * TOOLSET_MAX);
}

/* What a session runs on (see front/run.h). */
void
front_run_session(struct front_run *r, struct front_session *s)
{
	memset(s, 0, sizeof *s);
	s->loop = r->loop;
	s->llama = r->llama;
	s->cfg = &r->cfg;
	s->env = &r->env;
	s->tools = r->tools;
	s->ntools = r->ntools;
	s->system = "";
	s->prompt = front_run_prompt_text;
	s->prompt_arg = r;
	s->in_fd = STDIN_FILENO;
	s->out_fd = STDOUT_FILENO;
	s->journal = &r->journal;
	s->gate = r->gate;
	s->resumed = &r->resumed;
	s->checkpoint = &r->cp;
	s->esc = &r->esc;
	s->mcp = r->mcp;
}

/*
 * --append-system-prompt: at the end of the prompt's stable part, before
 * the session part (CONV_SESSION_MARK), which a llama-server gets at the
 * start of the first user message: the appended text stays in the system
 * message, as in Claude Code, and the same for every session run with it.
 */
static void
front_run_append_prompt(struct front_run *r)
{
	const char *t = r->o->append_system_prompt;
	const char *mark;
	struct buf out = BUF_INIT;
	size_t at;

	if (!t || !*t)
		return;
	mark = r->system.len ? strstr(r->system.data, CONV_SESSION_MARK) : NULL;
	at = mark ? (size_t)(mark - r->system.data) : r->system.len;
	buf_add(&out, r->system.data ? r->system.data : "", at);
	if (at)
		buf_adds(&out, "\n\n");
	buf_adds(&out, t);
	if (mark)
		buf_adds(&out, mark);
	buf_release(&r->system);
	r->system = out;
}

/* The session prompt (git status, context files, memory), built once. */
const char *
front_run_prompt_text(void *run, struct buf *warnings)
{
	struct front_run *r = run;
	const struct tool *list[2 * TOOLSET_MAX];
	char date[16];
	time_t now = time(NULL);

	if (r->prompt_pending && r->o->system_prompt && *r->o->system_prompt) {
		/* a replacement that came after start-up (the Agent SDK's initialize) */
		r->prompt_pending = 0;
		buf_reset(&r->system);
		buf_adds(&r->system, r->o->system_prompt);
		front_run_append_prompt(r);
	}
	if (r->prompt_pending) {
		r->prompt_pending = 0;
		strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
		prompt_session(&r->system, r->root, date, list, front_run_tool_listing(r, list), warnings);
		front_run_append_prompt(r);
	}
	return r->system.data ? r->system.data : "";
}

/* front_run_prompt_text with the warnings on stderr (print mode). */
void
front_run_prompt(struct front_run *r)
{
	struct buf warnings = BUF_INIT;

	front_run_prompt_text(r, &warnings);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
}

/*
 * bash's sandbox from the settings ("sandbox", "sandbox_network") and
 * --sandbox; its probe starts now, on its own thread.  HEARTH_SANDBOX_MECHANISM
 * (landlock or none) leaves better mechanisms out, for tests.  -1, or a usage exit code.
 */
static int
start_sandbox(struct front_run *r)
{
	struct sandbox_spec spec = { 0 };
	const char *mode = r->o->sandbox ? r->o->sandbox : r->cfg.sandbox, *mech = getenv("HEARTH_SANDBOX_MECHANISM");
	size_t i;

	spec.mode = SANDBOX_WORKSPACE_WRITE;
	if (mode && sandbox_mode_parse(mode, &spec.mode) < 0) {
		fprintf(stderr, "hearth: setting \"sandbox\" must be \"workspace-write\", \"read-only\" or \"off\", "
				"got \"%s\"; using workspace-write\n", mode);
		spec.mode = SANDBOX_WORKSPACE_WRITE;
	}
	spec.network = r->cfg.sandbox_network;
	spec.root = r->root;
	spec.state_dir = r->state_dir.data;
	spec.no_bwrap = mech && (!strcmp(mech, "landlock") || !strcmp(mech, "none"));
	spec.no_landlock = mech && !strcmp(mech, "none");
	r->sandbox = sandbox_new(&spec);
	for (i = 0; i < r->ntools; i++)
		if (r->tools[i]->flags & TOOL_SHELL) /* without a shell tool the probe waits until asked */
			sandbox_probe_start(r->sandbox);
	r->env.sandbox = r->sandbox;
	return -1;
}

/*
 * Remove the temp files a killed run left (base/fs.h: a bounded replay of
 * small journals, no tree walk) and start this run's journal.
 */
static void
clean_temps(const char *state_dir)
{
	struct err e = ERR_INIT;
	size_t removed = 0;

	if (fs_temps_start(state_dir, &removed, &e) < 0)
		log_msg("temp-file journal off: %s", e.msg);
	if (removed)
		log_msg("removed %zu temporary file(s) left by a killed run", removed);
}

/* Workspace, settings, tools and prompt: everything a run needs before the loop. */
static int
front_run_setup(struct front_run *r)
{
	struct err e = ERR_INIT;

	if (r->o->serve && !realpath(r->o->serve, r->serve_model))
		snprintf(r->serve_model, sizeof r->serve_model, "%s", r->o->serve);
	if (r->o->cwd && chdir(r->o->cwd) < 0) {
		fprintf(stderr, "hearth: --cwd %s: %s\n", r->o->cwd, strerror(errno));
		return FRONT_CLI_EXIT_USAGE;
	}
	if (!realpath(".", r->root)) {
		fprintf(stderr, "hearth: cannot resolve the working directory: %s\n", strerror(errno));
		return 1;
	}
	if (load_settings(r) < 0)
		return FRONT_CLI_EXIT_USAGE;
	decide_trust(r);
	if (select_tools(r) < 0)
		return FRONT_CLI_EXIT_USAGE;
	/* an explicit --tools list is offered as it is */
	toolset_init(&r->toolset, r->tools, r->ntools,
		     !r->o->tools && toolset_want_defer(r->tools, r->ntools, r->cfg.defer_tools,
							r->cfg.defer_tools_min_tokens, &tool_search),
		     &tool_search);
	if (!r->o->tools && r->cfg.defer_tools < 0 && r->ntools)
		toolset_auto(&r->toolset, r->cfg.defer_tools_min_tokens, &tool_search); /* MCP tools may tip it */
	if ((r->toolset.ndeferred || r->toolset.auto_min) && r->ntools < FRONT_RUN_MAX_TOOLS)
		r->tools[r->ntools++] = &tool_search;
	r->env.toolset = &r->toolset;
	buf_init(&r->system, 0);
	if (r->o->system_prompt && *r->o->system_prompt) { /* Claude Code's --system-prompt: a replacement */
		buf_adds(&r->system, r->o->system_prompt);
		front_run_append_prompt(r);
	} else if (r->o->system_prompt_file) {
		if (prompt_load_file(&r->system, r->o->system_prompt_file, &e) < 0) {
			fprintf(stderr, "hearth: --system-prompt-file: %s\n", e.msg);
			return FRONT_CLI_EXIT_USAGE;
		}
		front_run_append_prompt(r);
	} else {
		r->prompt_pending = 1; /* gathered while discovery runs: front_run_prompt, front_run_prompt_text */
	}
	make_session_id(r->session_id, sizeof r->session_id);
	conv_init(&r->resumed);
	session_journal_init(&r->journal, r->root, r->cfg.server_url);
	if (r->o->cont || (r->o->resume && r->o->resume_id)) {
		if (session_journal_resume(&r->journal, r->o->resume_id, &r->resumed, &e) < 0) {
			fprintf(stderr, "hearth: %s\n", e.msg);
			return 1;
		}
		flush_journal_warnings(r);
		toolset_replay(&r->toolset, &r->resumed);
	}
	buf_init(&r->state_dir, 0);
	front_run_state_dir(&r->state_dir);
	{
		struct err se = ERR_INIT;

		/* sessions, slot files, snapshots and logs of conversations live here: the owner's only */
		if (fs_mkdirs_private(r->state_dir.data, &se) < 0)
			fprintf(stderr, "hearth: %s\n", se.msg);
	}
	clean_temps(r->state_dir.data);
	/* after the state directory is known: a workspace outside git keeps its checkpoints there
	 * (made before it, they went to "/checkpoints") */
	front_checkpoint_init(&r->cp, r->root, r->state_dir.data, &r->journal, &r->env);
	r->env.root = r->root;
	r->env.allow_outside = r->cfg.allow_outside_workspace;
	r->env.state_dir = r->state_dir.data;
	r->env.bash_timeout_s = r->cfg.bash_timeout_s;
	r->env.syntax_reject = r->cfg.syntax_reject;
	r->env.stale = tool_stale_new();
	return start_sandbox(r);
}

/* --allowedTools / --disallowedTools: one rule a line into list which; bad rules are warnings. */
static void
front_run_rules(struct front_run *r, enum perm_list which, const char *lines, const char *flag, struct buf *warnings)
{
	const char *p = lines, *nl;

	for (; p && *p; p = *nl ? nl + 1 : nl) {
		struct err e = ERR_INIT;
		char *rule;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		rule = xstrndup(p, (size_t)(nl - p));
		if (perm_add_rule(perm_gate_perm(r->gate), which, rule, &e) < 0)
			buf_addf(warnings, "%s: %s; left out\n", flag, e.msg);
		free(rule);
	}
}

/* Permissions and hooks from the settings, --approval and --yes on top. */
static void
start_gate(struct front_run *r)
{
	struct buf warnings = BUF_INIT;

	r->gate = perm_gate_new(r->loop, &r->env, r->trusted, &warnings);
	if (r->o->approval)
		perm_gate_set_mode(r->gate, r->o->approval, NULL);
	perm_gate_set_yes(r->gate, r->o->yes);
	front_run_rules(r, PERM_LIST_ALLOW, r->o->allowed_tools.data, "--allowedTools", &warnings);
	front_run_rules(r, PERM_LIST_DENY, r->o->disallowed_tools.data, "--disallowedTools", &warnings);
	perm_gate_set_journal(r->gate, &r->journal);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
	perm_gate_session_start(r->gate, r->o->print ? "print" : "interactive", r->resumed.nmsgs > 0);
}

/* Discovery of another tier's server: the ladder learns its context, or that it is down. */
static void
tier_probed(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct front_run_tier *t = arg;

	(void)kind;
	t->probing = 0;
	if (rc < 0)
		log_msg("tier %s: %s", t->r->esc.rungs[t->rung].name, msg ? msg : "down");
	else
		t->discovered = 1;
	route_escalate_rung_ready(&t->r->esc, t->rung, rc < 0 ? 0 : llama_info(lm)->n_ctx, rc < 0);
	if (t->r->others_ready && !front_run_others_probing(t->r)) {
		void (*fn)(struct front_run *) = t->r->others_ready;

		t->r->others_ready = NULL;
		fn(t->r);
	}
}

/* See front/run.h. */
size_t
front_run_others_probing(const struct front_run *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nothers; i++)
		n += r->others[i].probing != 0;
	return n;
}

/* The run's own server answered discovery (or not). */
void
front_run_tier_ready(struct front_run *r, long n_ctx, int down)
{
	if (r->tier_rung < 0)
		return;
	if (!down && r->own)
		r->own->discovered = 1;
	route_escalate_rung_ready(&r->esc, r->tier_rung, n_ctx, down);
	if (r->esc.rung == r->tier_rung && n_ctx > 0)
		r->esc.n_ctx = n_ctx;
}

/* A tier that was down answers again: up, its backoff over. */
static void
tier_up(struct front_run_tier *t)
{
	struct route_escalate *x = &t->r->esc;

	t->backoff_ms = 0;
	t->next_ms = 0;
	if (t->rung >= 0 && (size_t)t->rung < x->nrungs && x->rungs[t->rung].down) {
		x->rungs[t->rung].down = 0;
		log_msg("tier %s answers again", x->rungs[t->rung].name);
	}
}

/* A tier's GET /slots answered: its free slots for the ladder's choice; a server answering again is up. */
static void
tier_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e, void *arg)
{
	struct front_run_tier *t = arg;
	struct route_escalate *x = &t->r->esc;
	size_t i;
	int idle = 0;

	(void)e;
	t->inflight = 0;
	if (status != 200) {
		t->no_slots = status >= 400 && status != 503; /* --no-slots, or a server without them */
		return;
	}
	t->no_slots = 0;
	for (i = 0; i < n; i++)
		idle += !slots[i].is_processing;
	route_escalate_rung_slots(x, t->rung, (int)n, idle);
	tier_up(t);
}

/* A tier's GET /metrics answered: its load for the ladder's choice (none: not asked again). */
static void
tier_load(int status, const struct llama_load *load, void *arg)
{
	struct front_run_tier *t = arg;

	t->load_inflight = 0;
	if (status >= 400 || (status == 200 && !load->known)) {
		t->no_metrics = 1;
		return;
	}
	if (status == 200)
		route_escalate_rung_load(&t->r->esc, t->rung, 1, load->running, load->waiting);
}

#define FRONT_RUN_TIER_POLL_MS 2000
#define FRONT_RUN_TIER_BACKOFF_MAX_MS 30000

/* The liveness check of a tier that is down answered. */
static void
tier_alive(int up, void *arg)
{
	struct front_run_tier *t = arg;
	struct route_escalate *x = &t->r->esc;

	t->alive_inflight = 0;
	if (!up) { /* ask again later, each time twice as late (up to 30 s) */
		t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : FRONT_RUN_TIER_POLL_MS;
		if (t->backoff_ms > FRONT_RUN_TIER_BACKOFF_MAX_MS)
			t->backoff_ms = FRONT_RUN_TIER_BACKOFF_MAX_MS;
		t->next_ms = loop_now_ms(t->r->loop) + t->backoff_ms;
		return;
	}
	if (!t->discovered && llama_info(t->lm)->n_ctx <= 0 && !llama_info(t->lm)->model_id) {
		if (t == t->r->own) /* down since the start: the front end's own retries discover it */
			return;
		if (!t->probing) { /* discovery learns its context */
			t->probing = 1;
			llama_probe(t->lm, 0, NULL, tier_probed, t);
		}
		return;
	}
	t->no_slots = t->no_metrics = 0; /* restarted: maybe with other flags */
	tier_up(t);
	if (t->rung >= 0 && (size_t)t->rung < x->nrungs && x->rungs[t->rung].n_ctx <= 0)
		x->rungs[t->rung].n_ctx = llama_info(t->lm)->n_ctx;
}

/*
 * Every 2 s, per server: up, its GET /slots and GET /metrics (one of each
 * at a time); down, whether it answers again (GET /health or /v1/models),
 * with a backoff: 2 s, 4 s, 8 s... up to 30 s between tries.
 */
static void
tier_poll(struct loop *l, long id, void *arg)
{
	struct front_run *r = arg;
	uint64_t now = loop_now_ms(l);
	size_t i;

	(void)id;
	r->tier_timer = loop_timer_add(l, FRONT_RUN_TIER_POLL_MS, tier_poll, r);
	for (i = 0; i <= r->nothers; i++) {
		struct front_run_tier *t = i < r->nothers ? &r->others[i] : r->own;

		if (!t || t->probing)
			continue;
		if (t->rung >= 0 && (size_t)t->rung < r->esc.nrungs && r->esc.rungs[t->rung].down) {
			if (!t->alive_inflight && now >= t->next_ms) {
				t->alive_inflight = 1;
				llama_alive(t->lm, tier_alive, t);
			}
			continue;
		}
		if (!t->inflight && !t->no_slots) {
			t->inflight = 1;
			llama_get_slots(t->lm, tier_slots, t);
		}
		if (!t->load_inflight && !t->no_metrics) {
			t->load_inflight = 1;
			llama_get_load(t->lm, tier_load, t);
		}
	}
}

/*
 * The ladder (route/ladder.h): every tier of the servers setting is a
 * rung; the run's own tier uses r->llama, the others get a server of
 * their own (their url, model, thinking and key over the settings),
 * probed now without waiting.
 */
static void
start_tiers(struct front_run *r)
{
	size_t i;

	r->tier_rung = -1;
	if (!r->tier)
		return;
	r->others = xcalloc(r->tiers.n, sizeof *r->others);
	for (i = 0; i < r->tiers.n; i++) {
		const struct route_tier *t = &r->tiers.v[i];
		struct front_run_tier *o;
		struct buf w = BUF_INIT;
		const char *key;
		int k;

		if (t == r->tier) {
			r->tier_rung = route_escalate_add_rung(&r->esc, t->name, t->role == ROUTE_TIER_WORKHORSE,
							       llama_provider(r->llama));
			r->own = xcalloc(1, sizeof *r->own);
			r->own->r = r;
			r->own->lm = r->llama;
			r->own->rung = r->tier_rung;
			continue;
		}
		o = &r->others[r->nothers];
		o->r = r;
		cfg_defaults(&o->cfg);
		cfg_load(&o->cfg, r->root, &w); /* warned about once already */
		buf_release(&w);
		free(o->cfg.server_url);
		o->cfg.server_url = xstrdup(t->url);
		free(o->cfg.model);
		o->cfg.model = t->model ? xstrdup(t->model) : NULL;
		o->cfg.thinking = t->thinking >= 0 ? t->thinking : r->cfg.thinking;
		o->cfg.slot_save = 0; /* the session's slot file is the start tier's */
		o->cfg.cache_prime = r->cfg.cache_prime;
		if (t->api_key_env && (key = getenv(t->api_key_env)) != NULL && *key) {
			o->cfg.server_api_key = xstrdup(key);
			secret_add(t->api_key_env, key);
		}
		o->lm = llama_new(r->loop, r->http, &o->cfg);
		k = route_escalate_add_rung(&r->esc, t->name, t->role == ROUTE_TIER_WORKHORSE, llama_provider(o->lm));
		if (k < 0) {
			llama_free(o->lm);
			cfg_release(&o->cfg);
			continue;
		}
		o->rung = k;
		r->nothers++;
		o->probing = 1;
		llama_probe(o->lm, o->cfg.loading_wait_s * 1000L, NULL, tier_probed, o);
	}
	if (r->tiers.n > 1)
		r->tier_timer = loop_timer_add(r->loop, 300, tier_poll, r);
}

/* The routing policy from the settings, --route on top. */
static void
start_routing(struct front_run *r)
{
	struct buf warnings = BUF_INIT;

	route_escalate_init(&r->esc, r->loop, r->http, r->root, r->state_dir.data, &warnings);
	r->esc.idle_timeout_ms = r->cfg.stream_idle_timeout_s > 0 ? r->cfg.stream_idle_timeout_s * 1000L : 0;
	start_tiers(r);
	route_ladder_check_patterns(&r->esc, &warnings);
	if (r->o->route) /* a tier's name pins the run to that tier: local */
		route_escalate_set_mode(&r->esc, r->o->route, NULL);
	else if (r->tier_pinned)
		route_escalate_set_mode(&r->esc, r->tier->name, NULL);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
}

/* MCP servers from .mcp.json files, started without waiting for them (not with --no-tools). */
static void
start_mcp(struct front_run *r)
{
	struct mcp_config c = { 0 };
	struct buf warnings = BUF_INIT;

	if (r->o->no_tools)
		return;
	if (r->trusted)
		mcp_config_load(&c, r->root, &warnings);
	else
		mcp_config_load_user(&c, &warnings); /* front/trust.h */
	if (r->o->mcp_config) { /* the command line's: as trusted as the user's own file */
		const char *m = r->o->mcp_config;
		struct err e = ERR_INIT;
		int rc;

		m += strspn(m, " \t\n");
		if (*m == '{')
			rc = mcp_config_load_text(&c, m, strlen(m), "--mcp-config", &warnings, &e);
		else if (access(m, R_OK) != 0)
			rc = err_set(&e, "--mcp-config %s: %s; pass a JSON object or a readable file", m, strerror(errno));
		else
			rc = mcp_config_load_file(&c, m, &warnings, &e);
		if (rc < 0)
			buf_addf(&warnings, "%s\n", e.msg);
	}
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&warnings);
	if (c.n) {
		size_t i;

		r->mcp = mcp_new(r->loop, r->root, r->cfg.mcp_timeout_s);
		mcp_start(r->mcp, &c);
		/* servers may list more tools than a request offers: the rest wait behind tool_search */
		for (i = 0; i < r->ntools && r->tools[i] != &tool_search; i++)
			;
		if (r->ntools && i == r->ntools && r->ntools < FRONT_RUN_MAX_TOOLS)
			r->tools[r->ntools++] = &tool_search;
	}
	mcp_config_release(&c);
}

/* Report MCP problems through fn; run the loop until every server started or failed. */
void
front_run_wait_mcp(struct front_run *r, void (*fn)(void *arg, const char *line), void *arg)
{
	if (!r->mcp)
		return;
	mcp_set_report(r->mcp, fn, arg);
	while (mcp_starting(r->mcp) && !r->interrupted && !loop_stopped(r->loop))
		if (loop_run_once(r->loop, -1, NULL) < 0)
			break;
}

/* The journal's session id, for the slot file name. */
static const char *
front_run_journal_id(void *journal)
{
	return session_journal_id(journal);
}

/* --serve / serve.model: start llama-server and talk to it; -1 + a line on stderr when it fails. */
static int
start_server(struct front_run *r)
{
	struct llama_serve_opts so = { 0 };
	struct buf url = BUF_INIT, notes = BUF_INIT;
	struct err e = ERR_INIT;

	so.model = r->serve_model[0] ? r->serve_model : r->cfg.serve_model;
	if (!so.model || !*so.model)
		return 0;
	so.binary = r->cfg.serve_binary;
	so.ctx = r->cfg.serve_ctx;
	so.slots = r->cfg.serve_slots;
	so.cache_type = r->cfg.serve_cache_type;
	so.kv_unified = r->cfg.serve_kv_unified;
	so.cache_ram = r->cfg.serve_cache_ram;
	so.similarity = r->cfg.serve_slot_similarity;
	so.args = r->cfg.serve_args;
	so.notes = &notes;
	so.state_dir = r->state_dir.data;
	so.interrupted = &r->interrupted;
	r->serve = llama_serve_start(r->loop, &so, &url, &e);
	if (notes.len)
		fprintf(stderr, "hearth: --serve: %s", notes.data);
	buf_release(&notes);
	if (!r->serve) {
		fprintf(stderr, "hearth: --serve: %s\n", e.msg);
		buf_release(&url);
		return -1;
	}
	free(r->cfg.server_url);
	r->cfg.server_url = buf_detach(&url, NULL);
	return 0;
}

/* Loop, http, provider: the machinery of a run. */
static int
front_run_start(struct front_run *r)
{
	struct err e = ERR_INIT;
	struct front_output_opts po = { 0 };

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
	if (start_server(r) < 0)
		return 1;
	r->llama = llama_new(r->loop, r->http, &r->cfg);
	llama_set_session(r->llama, front_run_journal_id, &r->journal, r->resumed.nmsgs > 0);
	if (r->resumed.nmsgs && !r->cfg.slot_save)
		llama_prefer_warm_slot(r->llama);
	if (r->state_dir.len) { /* the slot records: longest cached prefix, a session kept on its slot */
		struct buf map = BUF_INIT;

		buf_addf(&map, "%s/slotmap.json", r->state_dir.data);
		llama_set_slotmap(r->llama, map.data);
		buf_reset(&map);
		buf_addf(&map, "%s/slotfiles", r->state_dir.data);
		llama_set_slot_records(r->llama, map.data);
		buf_release(&map);
	}
	start_gate(r);
	start_routing(r);
	start_mcp(r);
	env_scrub_secrets(); /* copied by now (key, ${VAR}); gone from /proc/$PPID/environ */
	po.format = r->o->format;
	po.err_is_tty = isatty(STDERR_FILENO);
	po.verbose = r->o->verbose || po.err_is_tty;
	po.out_fd = STDOUT_FILENO;
	po.err_fd = STDERR_FILENO;
	po.session_id = r->session_id;
	po.cwd = r->root;
	r->pm = front_output_new(&po);
	return -1;
}

/* Free whatever front_run_setup/front_run_start made. */
void
front_run_release(struct front_run *r)
{
	int settled;

	front_turn_release(&r->turn);
	if (r->loop) { /* the front end's stop hook has done its job: the loop runs again below */
		loop_set_before_sleep(r->loop, NULL, NULL);
		mcp_end_sessions(r->mcp, 1000); /* HTTP DELETE of each MCP session, 1 s at most */
	}
	mcp_free(r->mcp);
	llama_save_slot(r->llama, 30000);
	route_escalate_release(&r->esc);
	if (r->loop && !r->interrupted)
		perm_gate_drain(r->gate); /* post_tool / turn_end hooks still running */
	perm_gate_free(r->gate);
	if (r->tier_timer)
		loop_timer_del(r->loop, r->tier_timer);
	r->tier_timer = 0;
	llama_free(r->llama);
	free(r->own);
	r->own = NULL;
	for (size_t i = 0; i < r->nothers; i++) {
		llama_free(r->others[i].lm);
		cfg_release(&r->others[i].cfg);
	}
	free(r->others);
	r->others = NULL;
	r->nothers = 0;
	http_free(r->http);
	if (r->serve) { /* the managed server's slot files, after the last save: within the budget */
		struct buf dir = BUF_INIT;

		llama_serve_stop(r->serve);
		buf_addf(&dir, "%s/slots", r->state_dir.data);
		llama_serve_prune_slots(dir.data, (long long)r->cfg.slot_files_max_mb << 20, NULL);
		buf_release(&dir);
	} else if (r->cfg.slot_save_dir && *r->cfg.slot_save_dir) { /* an external server's, when hearth knows it */
		llama_serve_prune_slots(r->cfg.slot_save_dir, (long long)r->cfg.slot_files_max_mb << 20, NULL);
	}
	r->serve = NULL;
	front_output_free(r->pm);
	/* the last turn's end snapshot: a bounded, shown wait (not dropped by the shutdown) */
	settled = front_checkpoint_settle(&r->cp);
	if (settled) {
		work_shutdown(); /* a cancelled repo_map may still run: before the loop and the map's cache go */
		loop_free(r->loop);
	}
	flush_journal_warnings(r);
	if (settled) /* else the worker still holds the repository: the process exits */
		front_checkpoint_release(&r->cp);
	session_journal_release(&r->journal);
	conv_release(&r->resumed);
	tool_stale_free(r->env.stale);
	r->env.stale = NULL;
	if (settled)
		repomap_cache_free();
	sandbox_free(r->sandbox); /* after the agent: no command runs any more */
	r->sandbox = NULL;
	r->env.sandbox = NULL;
	cfg_release(&r->cfg);
	route_tiers_release(&r->tiers);
	r->tier = NULL;
	env_clear_passthrough();
	secret_reset();
	buf_release(&r->system);
	buf_release(&r->state_dir);
	fs_temps_stop();
}

/* Set up a run; -1 when ready, else the exit code (everything already released). */
int
front_run_open(struct front_run *r, struct front_cli *o)
{
	int code;

	memset(r, 0, sizeof *r);
	r->o = o;
	buf_init(&r->system, 0);
	buf_init(&r->state_dir, 0);
	if ((code = front_run_setup(r)) >= 0 || (code = front_run_start(r)) >= 0) {
		front_run_release(r);
		return code;
	}
	return -1;
}

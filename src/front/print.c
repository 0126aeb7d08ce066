/* front/print: print mode (see front/print.h). */
#include "front/print.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front/cmd_template.h"
#include "front/cmd_ui.h"
#include "front/cmd_commit.h"
#include "front/commands.h"
#include "llm/toolset.h"
#include "route/ladder.h"
#include "route/step.h"
#include "llama/llama.h"
#include "base/log.h"
#include "perm/gate.h"
#include "io/loop.h"
#include "repo/repo.h"
#include "base/sanitize.h"

#include "base/json.h"
#include "base/xmalloc.h"
#include "front/output_json.h"
#include "front/run.h"
#include "llama/serve.h"
#include "mcp/mcp.h"

/* Discovery said the model is loading: a countdown on stderr (front_output_wait). */
static void
on_loading(void *arg, long left_ms)
{
	struct front_run *r = arg;
	struct buf b = BUF_INIT;
	long left = (left_ms + 999) / 1000;

	buf_addf(&b, "llama-server at %s is loading the model · %ld:%02ld left (loading_wait)", r->cfg.server_url,
		 left / 60, left % 60);
	front_output_wait(r->pm, b.data);
	buf_release(&b);
}

/* A routing decision between steps: a switch is always shown, a refusal when verbose. */
static void
announce(void *arg, const char *line, int switched)
{
	if (!*line)
		return;
	if (switched)
		front_output_error(arg, line);
	else
		front_output_note(arg, line);
}

/* The controller's own lines: attachments (refusals are errors), a turn that did not start. */
static void
print_say(void *arg, enum front_turn_say kind, const char *text)
{
	struct buf b = BUF_INIT;
	char *line;

	if (kind == FRONT_TURN_SAY_ERROR) {
		front_output_fail(arg, LLM_ERR_OTHER, text);
		return;
	}
	if (kind != FRONT_TURN_SAY_ATTACH) {
		front_output_error(arg, text);
		return;
	}
	buf_adds(&b, text);
	for (line = strtok(b.data, "\n"); line; line = strtok(NULL, "\n"))
		(strncmp(line, "attached ", 9) ? front_output_error : front_output_note)(arg, line);
	buf_release(&b);
}

/* Create the turn controller on provider p (routed already) and submit the task. */
static void
start_turn(struct front_run *r, struct provider *p, const char *task)
{
	struct agent_observer obs = front_output_observer(r->pm);
	struct front_turn_view v = { 0 };

	front_run_prompt(r);
	front_run_session(r, &r->session);
	r->session.system = r->system.data;
	r->session.prompt = NULL;
	v.arg = obs.arg;
	v.on_event = obs.on_event;
	v.on_message = obs.on_message;
	v.on_tool_start = obs.on_tool_start;
	v.on_tool_done = obs.on_tool_done;
	v.on_notice = obs.on_notice;
	v.on_wait = obs.on_wait;
	v.on_end = obs.on_end;
	v.say = print_say;
	session_journal_set_model(&r->journal, p->model(p->self));
	front_turn_init(&r->turn, &r->session, p, &v);
	route_escalate_attach(&r->esc, r->turn.agent);
	r->esc.announce = announce;
	r->esc.announce_arg = r->pm;
	if (r->o->think)
		agent_think_next(r->turn.agent);
	if (front_turn_submit(&r->turn, task) != FRONT_TURN_STARTED)
		loop_stop(r->loop);
	/* the task was committed, so the session exists and has its id */
	snprintf(r->session_id, sizeof r->session_id, "%s", session_journal_id(&r->journal));
	front_output_init(r->pm, p->model(p->self), r->tools, r->ntools);
}

/* Route the task: Claude (no local server needed) or local (after discovery). */
static struct provider *
route_task(struct front_run *r, const char **task, long n_ctx)
{
	struct buf note = BUF_INIT;
	struct provider *p = route_escalate_turn(&r->esc, task, llama_provider(r->llama), n_ctx, NULL, &note);

	if (note.len)
		front_output_error(r->pm, note.data);
	front_output_route(r->pm, route_target_name(r->esc.last.target), r->esc.last.reason);
	if (r->tier)
		front_output_tier(r->pm, r->tier->name, route_tiers_role_name(r->tier->role), r->tier->url,
				  r->o->route && strcmp(r->o->route, "auto") && strcmp(r->o->route, "local") &&
				  strcmp(r->o->route, "claude") ? "--route" : r->tier_pinned ? "@name" : "start tier (interactive)");
	buf_release(&note);
	return p;
}

/* How long print mode waits for the other tiers' discovery after its own server's. */
#define FRONT_PRINT_OTHERS_WAIT_MS 3000

/* Start the task's turn, the local servers discovered (a consult starts on Claude but continues here). */
static void
start_first_turn(struct front_run *r)
{
	start_turn(r, r->esc.on_claude ? route_escalate_claude(&r->esc) :
		   r->esc.nrungs ? r->esc.local : llama_provider(r->llama), r->task);
}

/* Every other tier's discovery ended: start the turn (once). */
static void
others_ready(struct front_run *r)
{
	if (r->others_timer)
		loop_timer_del(r->loop, r->others_timer);
	r->others_timer = 0;
	start_first_turn(r);
}

/* The wait for the other tiers ran out: start with what is known. */
static void
others_waited(struct loop *l, long id, void *arg)
{
	struct front_run *r = arg;

	(void)l;
	(void)id;
	r->others_timer = 0;
	if (r->others_ready) {
		r->others_ready = NULL;
		log_msg("print: the other tiers' discovery is still out after %d ms; routing with what is known",
			FRONT_PRINT_OTHERS_WAIT_MS);
		start_first_turn(r);
	}
}

/* Discovery finished: start the turn, or end with its error. */
static void
on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct front_run *r = arg;
	const struct llama_info *info = llama_info(lm);

	front_output_wait(r->pm, NULL);
	if (rc < 0) {
		struct buf note = BUF_INIT, why = BUF_INIT;
		struct provider *p;

		front_run_tier_ready(r, 0, 1);
		if (!r->esc.on_claude && (p = route_ladder_skip_down(&r->esc, r->tier_rung, &note)) != NULL) {
			announce(r->pm, note.data, 1); /* the next tier takes the task */
			buf_release(&note);
			buf_release(&why);
			start_turn(r, p, r->task);
			return;
		}
		p = route_escalate_server_down(&r->esc, llama_provider(lm), &note);

		announce(r->pm, note.data, p != NULL);
		buf_release(&note);
		if (p) {
			front_output_route(r->pm, "claude", r->esc.last.reason);
			start_turn(r, p, r->task);
			return;
		}
		front_output_fail(r->pm, kind, llama_serve_exited(r->serve, &why) ? why.data : msg);
		buf_release(&why);
		loop_stop(r->loop);
		return;
	}
	log_msg("server %s model %s n_ctx %ld slots %d build %s", r->cfg.server_url,
		info->model_id ? info->model_id : "?", info->n_ctx, info->total_slots,
		info->build_info ? info->build_info : "?");
	front_run_tier_ready(r, info->n_ctx, 0);
	if (front_run_others_probing(r)) {
		/*
		 * the task is routed by the tiers' contexts (a prompt over small's
		 * goes to a tier with room): wait for the other tiers' discovery,
		 * bounded, on a loaded machine it can come after this one's
		 */
		r->others_ready = others_ready;
		r->others_timer = loop_timer_add(r->loop, FRONT_PRINT_OTHERS_WAIT_MS, others_waited, r);
		return;
	}
	start_first_turn(r);
}

/* Stop the loop once the turn ended or stdout went away. */
static void
before_sleep(struct loop *l, void *arg)
{
	struct front_run *r = arg;

	if (front_output_ended(r->pm) || front_output_stdout_closed(r->pm))
		loop_stop(l);
}

/* The gate's notices (refused calls, failed hooks) always reach stderr. */
static void
print_gate_notice(void *arg, const char *line)
{
	front_output_error(arg, line);
}

/* /help in print mode: the commands a task may start with. */
static enum cmd_result
print_cmd_help(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)self;
	(void)args;
	buf_adds(out, "A print-mode task may be a slash command:\n");
	front_cmd_help(ctx, out);
	return CMD_DONE;
}

static void on_mcp_report(void *arg, const char *line);

/* /mcp [reconnect NAME] in print mode: once the servers started (or failed). */
static enum cmd_result
print_cmd_mcp(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_run *r = (struct front_run *)self->data;
	size_t nx = 0;
	const struct tool *const *x;
	int rc;

	(void)ctx;
	front_run_wait_mcp(r, on_mcp_report, r);
	rc = front_mcp_command(r->mcp, NULL, args, out);
	if (rc < 0)
		return CMD_ERROR;
	if (rc > 0) /* reconnecting: wait for it */
		front_run_wait_mcp(r, on_mcp_report, r);
	else
		buf_reset(out);
	x = tool_extra(&nx);
	if (r->ntools) /* the counts as the first request would offer them */
		toolset_sync(&r->toolset, x, nx);
	(void)front_mcp_command(r->mcp, r->ntools ? &r->toolset : NULL, "", out);
	return CMD_DONE;
}

/* A prompt being expanded (print_mcp_prompt). */
struct print_prompt {
	int done, ok;
	struct buf text;
};

/* prompts/get answered (or failed). */
static void
print_prompt_done(void *arg, int ok, const char *text)
{
	struct print_prompt *pp = arg;

	pp->done = 1;
	pp->ok = ok;
	buf_adds(&pp->text, text);
}

/*
 * A task "/mcp__<server>__<prompt> ARGS": once the servers are up, the
 * prompt's text (prompts/get) becomes the task.  -1 to go on with it, or
 * an exit code.
 */
static int
print_mcp_prompt(struct front_run *r)
{
	struct print_prompt pp = { 0, 0, BUF_INIT };
	struct buf err = BUF_INIT, cmd = BUF_INIT;
	const char *t = r->o->task.data + 1;
	size_t n = strcspn(t, " \t\n");
	int code = -1;

	buf_add(&cmd, t, n);
	front_run_wait_mcp(r, on_mcp_report, r);
	if (mcp_prompt_get(r->mcp, cmd.data, t + n, print_prompt_done, &pp, &err) < 0) {
		fprintf(stderr, "hearth: %s\n", err.data);
		code = FRONT_CLI_EXIT_USAGE;
	} else {
		while (!pp.done && !r->interrupted && !loop_stopped(r->loop))
			if (loop_run_once(r->loop, -1, NULL) < 0)
				break;
		if (!pp.ok) {
			fprintf(stderr, "hearth: %s\n", pp.done ? pp.text.data : "interrupted");
			code = pp.done ? 1 : 130;
		} else {
			buf_reset(&r->o->task);
			buf_add(&r->o->task, pp.text.data, pp.text.len);
		}
	}
	buf_release(&pp.text);
	buf_release(&err);
	buf_release(&cmd);
	return code;
}

/* A slash-command task that goes on after it returns (/commit). */
struct print_cmd {
	struct front_run *r;
	struct front_cmd_ui ui;
	struct front_cmd_commit commit;
};

/* The command moved on: print its text; stop the loop when it is over. */
static void
print_cmd_changed(void *arg)
{
	struct print_cmd *pc = arg;
	struct buf text = BUF_INIT, safe = BUF_INIT;
	int error = front_cmd_ui_take(&pc->ui, &text);

	buf_rtrim(&text);
	sanitize_term(&safe, text.data, text.len); /* the drafted message is model output */
	if (safe.len)
		fprintf(error ? stderr : stdout, "%s%s\n", error ? "hearth: " : "", safe.data);
	buf_release(&safe);
	fflush(stdout);
	buf_release(&text);
	if (pc->ui.state == FRONT_CMD_UI_IDLE)
		loop_stop(pc->r->loop);
}

/* Discovery for /commit's draft finished. */
static void
print_cmd_probed(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct print_cmd *pc = arg;

	(void)kind;
	front_run_prompt(pc->r); /* deferred by the parallel bootstrap: the draft shares its prefix */
	conv_set_system(&pc->r->resumed, pc->r->system.data);
	front_cmd_commit_model_ready(&pc->commit, rc < 0 ? NULL : llama_provider(lm), &pc->r->resumed, msg);
}

/* /commit wants the model: discover the local server first. */
static void
print_cmd_want_model(void *arg, struct front_cmd_commit *c)
{
	struct print_cmd *pc = arg;

	(void)c;
	llama_probe(pc->r->llama, 300000, NULL, print_cmd_probed, pc);
}

/* Run a pending command to its end on the loop; returns the exit code. */
static int
print_cmd_wait(struct print_cmd *pc)
{
	struct err e = ERR_INIT;

	if (pc->ui.state != FRONT_CMD_UI_IDLE && loop_run(pc->r->loop, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		return 1;
	}
	if (pc->r->interrupted)
		return 130;
	return pc->commit.failed ? 1 : 0;
}

/*
 * A task that is a slash command: a prompt template becomes the task;
 * other commands print their output.  Returns -1 to go on with the
 * (possibly replaced) task, or an exit code.
 */
static int
print_command(struct front_run *r)
{
	static const struct cmd help = { "help", "", "list the commands", print_cmd_help, NULL };
	struct cmd mcp_cmd = { "mcp", "[reconnect NAME]", "MCP servers: state and tools; reconnect one",
			       print_cmd_mcp, NULL };
	struct front_cmd reg;
	struct prompt_context_templates tpl;
	struct buf out = BUF_INIT, warnings = BUF_INIT;
	struct print_cmd pc;
	int code = -1;

	if (r->o->task.data[0] != '/' || r->o->task.data[1] == '/')
		return -1;
	if (!strncmp(r->o->task.data, "/mcp__", 6) && r->mcp) /* an MCP prompt */
		return print_mcp_prompt(r);
	front_cmd_init(&reg);
	front_cmd_add(&reg, &help);
	mcp_cmd.data = r;
	front_cmd_add(&reg, &mcp_cmd);
	front_checkpoint_commands(&reg, &r->cp);
	memset(&pc, 0, sizeof pc);
	pc.r = r;
	front_cmd_ui_init(&pc.ui);
	pc.ui.changed = print_cmd_changed;
	pc.ui.arg = &pc;
	front_cmd_commit_init(&pc.commit);
	pc.commit.cp = &r->cp;
	pc.commit.ui = &pc.ui;
	pc.commit.yes = r->o->yes;
	pc.commit.want_model = print_cmd_want_model;
	pc.commit.arg = &pc;
	pc.commit.tools = r->tools;
	pc.commit.ntools = r->ntools;
	front_cmd_commit_register(&reg, &pc.commit);
	prompt_context_templates_load(r->root, &tpl, &warnings);
	front_cmd_template_add(&reg, &tpl, &warnings);
	switch (front_cmd_run(&reg, &reg, r->o->task.data, &out)) {
	case CMD_SUBMIT:
		buf_reset(&r->o->task);
		buf_add(&r->o->task, out.data, out.len);
		break;
	case CMD_ERROR:
		fprintf(stderr, "hearth: %s\n", out.data);
		code = FRONT_CLI_EXIT_USAGE;
		break;
	case CMD_PENDING:
		code = print_cmd_wait(&pc);
		break;
	default:
		buf_rtrim(&out);
		if (out.len)
			printf("%s\n", out.data);
		code = 0;
		break;
	}
	front_cmd_commit_release(&pc.commit);
	front_cmd_ui_release(&pc.ui);
	front_cmd_release(&reg);
	prompt_context_templates_release(&tpl);
	buf_release(&out);
	buf_release(&warnings);
	return code;
}

/* The files the session changed, for the json result; returns how many. */
static int
report_changes(struct front_run *r)
{
	struct repo_result res = REPO_RESULT_INIT;
	size_t i;
	int n;

	if (front_checkpoint_changes(&r->cp, &res) < 0)
		return 0;
	for (i = 0; i < res.nfiles; i++)
		front_output_file_changed(r->pm, res.files[i].path, res.files[i].status, res.files[i].added,
				   res.files[i].removed);
	n = (int)res.nfiles;
	repo_result_release(&res);
	return n;
}

/* Routing decisions, per-route usage and cost, and a model-check warning. */
static void
report_routing(struct front_run *r)
{
	struct buf w = BUF_INIT;

	front_output_routing(r->pm, route_step_json(&r->esc, r->turn.agent ? agent_stats(r->turn.agent) : NULL));
	if (!r->interrupted && !front_output_stdout_closed(r->pm))
		route_escalate_settle(&r->esc, 2000);
	if (route_escalate_take_warning(&r->esc, &w))
		front_output_error(r->pm, w.data);
	buf_release(&w);
}

/* MCP problems are errors on stderr (or stream-json events). */
static void
on_mcp_report(void *arg, const char *line)
{
	front_output_error(((struct front_run *)arg)->pm, line);
}

/* Wait for the MCP servers; what the init line says of them and of the approval mode. */
static void
print_wait_mcp(struct front_run *r)
{
	static const char *const modes[] = { "default", "acceptEdits", "bypassPermissions" };
	cJSON *servers = cJSON_CreateArray();
	const char *name, *state;
	size_t n = 0;

	front_run_wait_mcp(r, on_mcp_report, r);
	while (mcp_server_info(r->mcp, n, &name, &state) == 0) {
		cJSON *s = cJSON_CreateObject();

		front_output_json_add_str(s, "name", name, strlen(name));
		cJSON_AddStringToObject(s, "status", state);
		cJSON_AddItemToArray(servers, s);
		n++;
	}
	front_output_init_extra(r->pm, servers, modes[perm_gate_perm(r->gate)->mode]);
}

/*
 * --input-format stream-json: Claude Code's headless protocol.  stdin
 * carries JSON lines: user messages (each one turn, in order, on the same
 * agent) and control requests (initialize, interrupt).  Each turn ends
 * with its result line; the process ends when stdin has ended and the
 * last turn is done.
 */
struct print_stream {
	struct front_run *r;
	struct buf in;       /* bytes read, not yet a whole line */
	char **queue;        /* user messages waiting for their turn (malloc'd) */
	size_t nqueue;
	size_t lineno;
	int eof;             /* stdin ended */
	int probed;          /* discovery is over (ok: the turns may start) */
	int failed;          /* discovery failed: nothing can run */
	int running;         /* a turn runs */
	int turns;           /* turns started */
	int code;            /* the last turn's exit code */
	uint64_t t_turn;     /* when the running turn started */
	struct buf append;   /* --append-system-prompt and initialize's appendSystemPrompt */
	struct buf system;   /* initialize's systemPrompt (a replacement) */
};

/* Answer a control request: {"type":"control_response","response":{...}}. */
static void
ps_control_response(struct print_stream *ps, const char *id, cJSON *body, const char *error)
{
	cJSON *o = cJSON_CreateObject(), *resp;

	cJSON_AddStringToObject(o, "type", "control_response");
	resp = cJSON_AddObjectToObject(o, "response");
	cJSON_AddStringToObject(resp, "subtype", error ? "error" : "success");
	front_output_json_add_str(resp, "request_id", id, strlen(id));
	if (error)
		cJSON_AddStringToObject(resp, "error", error);
	else
		cJSON_AddItemToObject(resp, "response", body ? body : cJSON_CreateObject());
	front_output_line(ps->r->pm, o);
}

/* A control request from the SDK: initialize and interrupt are answered, the rest refused. */
static void
ps_control(struct print_stream *ps, const cJSON *j)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "request_id");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(j, "request");
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(req, "subtype");
	struct buf why = BUF_INIT;

	if (!cJSON_IsString(id) || !cJSON_IsString(sub)) {
		front_output_error(ps->r->pm, "a control_request on stdin without request_id or request.subtype: skipped");
		return;
	}
	if (!strcmp(sub->valuestring, "initialize")) {
		cJSON *b = cJSON_CreateObject(), *styles;
		const cJSON *app = cJSON_GetObjectItemCaseSensitive(req, "appendSystemPrompt"), *sys;

		/* the SDK's systemPrompt {preset, append}: the prompt is built at the first turn */
		if (cJSON_IsString(app) && *app->valuestring && !ps->turns) {
			if (!ps->append.len && ps->r->o->append_system_prompt)
				buf_adds(&ps->append, ps->r->o->append_system_prompt);
			if (ps->append.len)
				buf_adds(&ps->append, "\n\n");
			buf_adds(&ps->append, app->valuestring);
			ps->r->o->append_system_prompt = ps->append.data;
		}

		/* its systemPrompt: a string, or strings (the SDK sends [""] when none
		 * was given: hearth's own prompt stays); a replacement, as --system-prompt */
		sys = cJSON_GetObjectItemCaseSensitive(req, "systemPrompt");
		buf_reset(&ps->system);
		if (cJSON_IsString(sys) && *sys->valuestring) {
			buf_adds(&ps->system, sys->valuestring);
		} else if (cJSON_IsArray(sys)) {
			const cJSON *it;

			cJSON_ArrayForEach(it, sys)
				if (cJSON_IsString(it) && *it->valuestring)
					buf_addf(&ps->system, "%s%s", ps->system.len ? "\n\n" : "", it->valuestring);
		}
		if (ps->system.len && !ps->turns)
			ps->r->o->system_prompt = ps->system.data;

		cJSON_AddItemToObject(b, "commands", cJSON_CreateArray());
		cJSON_AddItemToObject(b, "agents", cJSON_CreateArray());
		cJSON_AddStringToObject(b, "output_style", "default");
		styles = cJSON_AddArrayToObject(b, "available_output_styles");
		cJSON_AddItemToArray(styles, cJSON_CreateString("default"));
		cJSON_AddItemToObject(b, "models", cJSON_CreateArray());
		cJSON_AddItemToObject(b, "account", cJSON_CreateObject());
		ps_control_response(ps, id->valuestring, b, NULL);
	} else if (!strcmp(sub->valuestring, "interrupt")) {
		if (ps->running && ps->r->turn.agent && agent_busy(ps->r->turn.agent))
			agent_abort(ps->r->turn.agent);
		ps_control_response(ps, id->valuestring, NULL, NULL);
	} else {
		buf_addf(&why, "hearth does not support the control request \"%s\" (initialize and interrupt only)",
			 sub->valuestring);
		ps_control_response(ps, id->valuestring, NULL, why.data);
	}
	buf_release(&why);
}

/* A user message's text: a string, or its text blocks joined; NULL when it has none. */
static char *
ps_user_text(const cJSON *j)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(msg, "content"), *b;
	struct buf t = BUF_INIT;

	if (cJSON_IsString(c))
		return xstrdup(c->valuestring);
	cJSON_ArrayForEach(b, c) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(b, "type");
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(b, "text");

		if (cJSON_IsString(type) && !strcmp(type->valuestring, "text") && cJSON_IsString(text)) {
			if (t.len)
				buf_addch(&t, '\n');
			buf_adds(&t, text->valuestring);
		}
	}
	if (!t.len) {
		buf_release(&t);
		return NULL;
	}
	return buf_detach(&t, NULL);
}

/* One line of stdin. */
static void
ps_line(struct print_stream *ps, const char *line, size_t n)
{
	struct err e = ERR_INIT;
	struct buf msg = BUF_INIT;
	const cJSON *type;
	cJSON *j;
	char *text;

	ps->lineno++;
	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	if (!(j = json_parse(line, n, &e))) {
		buf_addf(&msg, "stdin line %zu is not JSON (%s); skipped: --input-format stream-json takes one "
			 "JSON message a line", ps->lineno, e.msg);
		goto out;
	}
	type = cJSON_GetObjectItemCaseSensitive(j, "type");
	if (cJSON_IsString(type) && !strcmp(type->valuestring, "user")) {
		if (!(text = ps_user_text(j))) {
			buf_addf(&msg, "stdin line %zu: a user message without text; skipped", ps->lineno);
			goto out;
		}
		ps->queue = xrealloc(ps->queue, (ps->nqueue + 1) * sizeof *ps->queue);
		ps->queue[ps->nqueue++] = text;
	} else if (cJSON_IsString(type) && !strcmp(type->valuestring, "control_request")) {
		ps_control(ps, j);
	} else if (!cJSON_IsString(type) || (strcmp(type->valuestring, "control_response") &&
		   strcmp(type->valuestring, "keep_alive") && strcmp(type->valuestring, "update_environment_variables"))) {
		buf_addf(&msg, "stdin line %zu: type \"%s\" is not a message hearth takes (user, control_request); "
			 "skipped", ps->lineno, cJSON_IsString(type) ? type->valuestring : "?");
	}
out:
	if (msg.len)
		front_output_error(ps->r->pm, msg.data);
	buf_release(&msg);
	cJSON_Delete(j);
}

/* stdin is readable: split what came into lines. */
static void
ps_on_stdin(struct loop *l, int fd, int events, void *arg)
{
	struct print_stream *ps = arg;
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof chunk);
	size_t start = 0, i;

	(void)events;
	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		if (n < 0)
			front_output_error(ps->r->pm, "reading stdin failed; no more messages are read");
		ps->eof = 1;
		loop_unwatch(l, fd);
		if (ps->in.len)
			ps_line(ps, ps->in.data, ps->in.len);
		buf_reset(&ps->in);
		return;
	}
	buf_add(&ps->in, chunk, (size_t)n);
	for (i = 0; i < ps->in.len; i++)
		if (ps->in.data[i] == '\n') {
			ps_line(ps, ps->in.data + start, i - start);
			start = i + 1;
		}
	if (start) {
		memmove(ps->in.data, ps->in.data + start, ps->in.len - start);
		buf_setlen(&ps->in, ps->in.len - start);
	}
}

/* Discovery for the turns finished. */
static void
ps_on_probe(struct llama *lm, int rc, enum llm_err_kind kind, const char *msg, void *arg)
{
	struct print_stream *ps = arg;
	struct buf why = BUF_INIT;

	front_output_wait(ps->r->pm, NULL);
	ps->probed = 1;
	if (rc < 0 && !route_escalate_server_down(&ps->r->esc, llama_provider(lm), &why)) {
		ps->failed = 1;
		front_output_fail(ps->r->pm, kind, llama_serve_exited(ps->r->serve, &why) ? why.data : msg);
	}
	buf_release(&why);
}

/* The next queued message becomes a turn. */
static void
ps_start(struct print_stream *ps)
{
	struct front_run *r = ps->r;
	char *text = ps->queue[0];

	memmove(ps->queue, ps->queue + 1, --ps->nqueue * sizeof *ps->queue);
	ps->running = 1;
	ps->t_turn = loop_now_ms(r->loop);
	if (ps->turns++ == 0) {
		const char *task = text;
		struct provider *p = route_task(r, &task, 0);

		start_turn(r, p, task);
	} else if (front_turn_send(&r->turn, text, 0) != FRONT_TURN_STARTED && !front_output_ended(r->pm)) {
		front_output_fail(r->pm, LLM_ERR_OTHER, "the turn did not start");
	}
	free(text);
}

/* The running turn ended: its result line. */
static void
ps_finish(struct print_stream *ps)
{
	struct front_run *r = ps->r;
	struct provider *prov = r->turn.agent ? agent_provider(r->turn.agent) : llama_provider(r->llama);
	int nchanged = report_changes(r);

	report_routing(r);
	ps->code = front_output_finish(r->pm, r->turn.agent ? agent_stats(r->turn.agent) : &(struct agent_stats){ 0 },
				       prov->model(prov->self), loop_now_ms(r->loop) - ps->t_turn);
	if (r->turn.agent && ps->turns == 1)
		route_escalate_turn_end(&r->esc, agent_stats(r->turn.agent), ps->code == 0, nchanged > 0,
					(double)(loop_now_ms(r->loop) - ps->t_turn) / 1000.0);
	front_output_next_turn(r->pm);
	ps->running = 0;
}

/* Between loop passes: end a turn, start the next, stop when all is done. */
static void
ps_before_sleep(struct loop *l, void *arg)
{
	struct print_stream *ps = arg;
	struct front_run *r = ps->r;

	if (front_output_stdout_closed(r->pm)) {
		loop_stop(l);
		return;
	}
	if (ps->running && front_output_ended(r->pm))
		ps_finish(ps);
	if (!ps->running && ps->nqueue && ps->probed && !ps->failed)
		ps_start(ps);
	if (!ps->running && ((ps->eof && !ps->nqueue) || ps->failed))
		loop_stop(l);
}

/* The whole stream-json session; returns the exit code. */
static int
print_stream_main(struct front_run *r)
{
	struct print_stream ps;
	struct err e = ERR_INIT;
	size_t i;

	memset(&ps, 0, sizeof ps);
	ps.r = r;
	buf_init(&ps.in, 0);
	buf_init(&ps.append, 0);
	buf_init(&ps.system, 0);
	print_wait_mcp(r);
	loop_set_before_sleep(r->loop, ps_before_sleep, &ps);
	loop_watch(r->loop, STDIN_FILENO, LOOP_READ, ps_on_stdin, &ps);
	llama_probe(r->llama, r->cfg.loading_wait_s * 1000L, on_loading, ps_on_probe, &ps);
	if (loop_run(r->loop, &e) < 0)
		front_output_fail(r->pm, LLM_ERR_OTHER, e.msg);
	if (!ps.eof)
		loop_unwatch(r->loop, STDIN_FILENO);
	if (ps.running) { /* interrupted, or the reader went away */
		if (r->turn.agent && agent_busy(r->turn.agent))
			agent_abort(r->turn.agent);
		if (!front_output_ended(r->pm))
			front_output_fail(r->pm, LLM_ERR_ABORTED, "interrupted");
		ps_finish(&ps);
	} else if (ps.failed) {
		ps.code = front_output_finish(r->pm, &(struct agent_stats){ 0 }, "", loop_now_ms(r->loop) - r->t0);
	}
	loop_set_before_sleep(r->loop, NULL, NULL);
	for (i = 0; i < ps.nqueue; i++)
		free(ps.queue[i]);
	free(ps.queue);
	buf_release(&ps.in);
	r->o->append_system_prompt = NULL; /* ps.append goes now */
	buf_release(&ps.append);
	if (ps.system.len)
		r->o->system_prompt = NULL; /* and ps.system */
	buf_release(&ps.system);
	if (r->interrupted)
		return 130;
	if (front_output_stdout_closed(r->pm))
		return 1;
	return ps.code;
}

/* Print mode: one task, one answer. */
int
front_print_main(struct front_cli *o)
{
	struct provider *prov;
	struct front_run r;
	int nchanged;
	struct err e = ERR_INIT;
	int code;

	if ((code = front_run_open(&r, o)) >= 0)
		return code;
	loop_set_before_sleep(r.loop, before_sleep, &r);
	perm_gate_set_ui(r.gate, &(struct perm_gate_ui){ r.pm, NULL, NULL, print_gate_notice });
	if (o->input_stream_json) {
		code = print_stream_main(&r);
		front_run_release(&r);
		return code;
	}
	if ((code = print_command(&r)) >= 0) {
		front_run_release(&r);
		return code;
	}
	print_wait_mcp(&r);
	r.task = r.o->task.data;
	prov = route_task(&r, &r.task, 0);
	if (r.esc.on_claude && r.esc.last.mode == ROUTE_HANDOFF)
		start_turn(&r, prov, r.task); /* Claude: the local server is not needed */
	else
		llama_probe(r.llama, r.cfg.loading_wait_s * 1000L, on_loading, on_probe, &r);
	/* parallel bootstrap: a few passes (connect, send) put discovery on the wire, then the
	 * prompt is gathered while the server answers */
	for (int i = 0; i < 3; i++)
		loop_run_once(r.loop, 0, NULL);
	front_run_prompt(&r);
	if (loop_run(r.loop, &e) < 0)
		front_output_fail(r.pm, LLM_ERR_OTHER, e.msg);
	if (r.interrupted && !front_output_ended(r.pm))
		front_output_fail(r.pm, LLM_ERR_ABORTED, "interrupted");
	if (front_output_stdout_closed(r.pm) && r.turn.agent && agent_busy(r.turn.agent))
		agent_abort(r.turn.agent);
	nchanged = report_changes(&r);
	prov = r.turn.agent ? agent_provider(r.turn.agent) : llama_provider(r.llama);
	report_routing(&r);
	code = front_output_finish(r.pm, r.turn.agent ? agent_stats(r.turn.agent) : &(struct agent_stats){ 0 },
			    prov->model(prov->self), loop_now_ms(r.loop) - r.t0);
	if (r.interrupted)
		code = 130;
	else if (front_output_stdout_closed(r.pm) && code == 130)
		code = 1; /* the reader went away mid-run: not an interrupt, not a success */
	if (r.turn.agent)
		route_escalate_turn_end(&r.esc, agent_stats(r.turn.agent), code == 0, nchanged > 0,
				  (double)(loop_now_ms(r.loop) - r.t0) / 1000.0);
	front_run_release(&r);
	return code;
}

/*
 * perm/gate: permissions, hooks and the question, per tool call (see perm/gate.h).
 *
 * At most one call is pending at a time (the agent runs calls one after
 * another): `pend` holds its agent, tool, a copy of its arguments, the
 * perm verdict and the question's strings while the pre_tool hooks run
 * (`run`) or the user decides (`asking`).  Notification hooks are
 * started and forgotten; their problems become notices.
 */
#include "perm/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "perm/hooks.h"
#include "session/journal.h"
#include "base/json.h"
#include "io/loop.h"
#include "io/sandbox.h"
#include "base/xmalloc.h"
#include "base/workspace.h"

#define PERM_GATE_MAX_OUTPUT (64u << 10)  /* tool output given to post_tool hooks */

struct perm_gate_pending {
	struct agent *agent;
	const struct tool *tool;
	cJSON *args;
	enum perm_verdict verdict;
	struct buf why, title, detail, always;
	struct perm_hooks_run *run;
	int asking;
	int described; /* title and detail hold the call's description and preview */
	int is_diff;   /* detail is a unified diff */
	int approved;  /* the user said yes (or --yes did) or an allow rule covers the call */
};

struct perm_gate {
	struct loop *loop;
	const struct tool_env *env;
	struct perm perm;
	struct perm_hooks *hooks;
	struct perm_gate_ui ui;
	int yes;
	int trusted; /* the project's settings may widen rights (perm/trust.h) */
	const struct session_journal *journal;
	struct perm_gate_pending pend;
	int active; /* pend is in use */
	int said_sandbox; /* the notice that no sandbox works was given */
};

/*
 * An untrusted project file's part that only narrows rights: deny and
 * ask rules, an approval no more permissive than the current one; its
 * allow rules and hooks are left out (perm/trust.h).
 */
static void
perm_gate_untrusted(struct perm_gate *g, const cJSON *root, const char *path, struct buf *warnings)
{
	const cJSON *v;
	enum perm_mode m;

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "approval")) != NULL &&
	    (!cJSON_IsString(v) || perm_mode_parse(v->valuestring, &m) < 0))
		buf_addf(warnings, "%s: setting \"approval\" must be \"ask\", \"auto-edit\" or \"yolo\"; ignored\n", path);
	else if (v && m < g->perm.mode)
		g->perm.mode = m;
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "permissions")) != NULL) {
		cJSON *narrow = cJSON_Duplicate(v, 1);

		/* not an object: perm_load_json says so, as for a trusted file */
		cJSON_DeleteItemFromObjectCaseSensitive(narrow, "allow");
		perm_load_json(&g->perm, narrow, path, warnings);
		cJSON_Delete(narrow);
	}
}

/* Whether path is the project's settings file. */
static int
perm_gate_is_project(const struct perm_gate *g, const char *path)
{
	struct buf proj = BUF_INIT;
	int is;

	workspace_project_file(g->env->root, ".hearth/settings.json", &proj);
	is = !strcmp(path, proj.data);
	buf_release(&proj);
	return is;
}

/* Settings file adapter: "approval", "permissions", "hooks" (invalid JSON: cfg reports it). */
static int
perm_gate_file(void *arg, const char *path, struct buf *warnings, struct err *e)
{
	struct perm_gate *g = arg;
	struct buf text = BUF_INIT;
	struct err pe = ERR_INIT;
	const cJSON *v;
	cJSON *root;

	(void)e;
	if (access(path, F_OK) != 0 || buf_read_file(&text, path, 1 << 20, &pe) < 0) {
		buf_release(&text);
		return 0;
	}
	root = json_parse(text.data, text.len, &pe);
	buf_release(&text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return 0;
	}
	if (!g->trusted && perm_gate_is_project(g, path)) {
		perm_gate_untrusted(g, root, path, warnings);
		cJSON_Delete(root);
		return 0;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "approval")) != NULL &&
	    (!cJSON_IsString(v) || perm_mode_parse(v->valuestring, &g->perm.mode) < 0))
		buf_addf(warnings, "%s: setting \"approval\" must be \"ask\", \"auto-edit\" or \"yolo\"; ignored\n", path);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "permissions")) != NULL)
		perm_load_json(&g->perm, v, path, warnings);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "hooks")) != NULL)
		perm_hooks_load_json(g->hooks, v, path, warnings);
	cJSON_Delete(root);
	return 0;
}

/* A gate with the settings' rules and hooks. */
struct perm_gate *
perm_gate_new(struct loop *l, const struct tool_env *env, int trusted, struct buf *warnings)
{
	struct perm_gate *g = xcalloc(1, sizeof *g);

	g->loop = l;
	g->trusted = trusted;
	g->env = env;
	perm_init(&g->perm);
	g->perm.sandbox = env->sandbox;
	g->hooks = perm_hooks_new(l, env->root);
	buf_init(&g->pend.why, 0);
	buf_init(&g->pend.title, 0);
	buf_init(&g->pend.detail, 0);
	buf_init(&g->pend.always, 0);
	cfg_each_file(env->root, perm_gate_file, g, warnings);
	return g;
}

/* Forget the pending call (its hooks killed). */
static void
perm_gate_clear(struct perm_gate *g)
{
	struct perm_gate_pending *p = &g->pend;

	perm_hooks_cancel(p->run);
	p->run = NULL;
	cJSON_Delete(p->args);
	p->args = NULL;
	p->agent = NULL;
	p->asking = 0;
	p->approved = 0;
	p->described = 0;
	p->is_diff = 0;
	buf_reset(&p->why);
	buf_reset(&p->title);
	buf_reset(&p->detail);
	buf_reset(&p->always);
	g->active = 0;
}

/* Free everything (running hooks are killed). */
void
perm_gate_free(struct perm_gate *g)
{
	if (!g)
		return;
	perm_gate_clear(g);
	perm_hooks_free(g->hooks);
	perm_release(&g->perm);
	buf_release(&g->pend.why);
	buf_release(&g->pend.title);
	buf_release(&g->pend.detail);
	buf_release(&g->pend.always);
	free(g);
}

void
perm_gate_set_ui(struct perm_gate *g, const struct perm_gate_ui *ui)
{
	if (ui)
		g->ui = *ui;
	else
		memset(&g->ui, 0, sizeof g->ui);
}

int
perm_gate_set_mode(struct perm_gate *g, const char *mode, struct err *e)
{
	if (perm_mode_parse(mode, &g->perm.mode) < 0)
		return err_set(e, "unknown approval mode \"%s\": use ask, auto-edit or yolo", mode);
	return 0;
}

void
perm_gate_set_yes(struct perm_gate *g, int yes)
{
	g->yes = yes;
}

void
perm_gate_set_journal(struct perm_gate *g, const struct session_journal *j)
{
	g->journal = j;
}

struct perm *
perm_gate_perm(struct perm_gate *g)
{
	return &g->perm;
}

int
perm_gate_asking(const struct perm_gate *g)
{
	return g->active && g->pend.asking;
}

/* Tell the front end one line. */
static void
perm_gate_notice(struct perm_gate *g, const char *line)
{
	if (g->ui.notice && *line)
		g->ui.notice(g->ui.arg, line);
}

/* Each line of a hook run's problems as a notice. */
static void
perm_gate_problems(struct perm_gate *g, const struct perm_hooks_result *r)
{
	const char *p = r->problems.data, *nl;

	while (p && *p) {
		struct buf line = BUF_INIT;

		nl = strchr(p, '\n');
		buf_add(&line, p, nl ? (size_t)(nl - p) : strlen(p));
		perm_gate_notice(g, line.data);
		buf_release(&line);
		p = nl ? nl + 1 : NULL;
	}
}

/* The common head of every event object. */
static cJSON *
perm_gate_event(struct perm_gate *g, enum perm_hooks_event ev)
{
	cJSON *o = cJSON_CreateObject();
	const char *id = g->journal ? session_journal_id(g->journal) : "";

	cJSON_AddStringToObject(o, "event", perm_hooks_event_name(ev));
	cJSON_AddStringToObject(o, "session_id", id ? id : "");
	cJSON_AddStringToObject(o, "cwd", g->env->root);
	cJSON_AddStringToObject(o, "approval", perm_mode_name(g->perm.mode));
	return o;
}

/* Run ev's hooks with object o (consumed); done may be NULL (a notification). */
static struct perm_hooks_run *
perm_gate_hooks(struct perm_gate *g, enum perm_hooks_event ev, const char *tool, cJSON *o, perm_hooks_done_fn done,
	   void *arg)
{
	struct perm_hooks_call c = { ev, tool, g->journal ? session_journal_id(g->journal) : NULL, NULL };
	struct perm_hooks_run *r;
	char *json = json_print(o);

	cJSON_Delete(o);
	c.json = json;
	r = perm_hooks_run(g->hooks, &c, done, arg);
	free(json);
	return r;
}

/* A notification's problems. */
static void
perm_gate_notified(void *arg, const struct perm_hooks_result *r)
{
	perm_gate_problems(arg, r);
}

/*
 * The question's title and detail for the pending call: the detail is
 * the tool's own preview (the diff its code would write, the command),
 * else the arguments as JSON after why no preview could be made.
 */
static void
perm_gate_describe(struct perm_gate *g)
{
	struct perm_gate_pending *p = &g->pend;
	const char *cmd = tool_command(p->tool, p->args), *path = NULL;
	int kind;

	if (p->described)
		return;
	p->described = 1; /* title and detail are empty: perm_gate_clear began the call */
	if (cmd) {
		const char *nl = strchr(cmd, '\n');

		buf_addf(&p->title, "%s: %.*s%s", p->tool->name, nl ? (int)(nl - cmd) : (int)strlen(cmd), cmd,
			 nl ? " …" : "");
	} else {
		tool_paths(p->tool, p->args, &path, 1);
		buf_addf(&p->title, "%s%s%s", p->tool->name, path ? " " : "", path ? path : "");
	}
	kind = tool_preview(p->tool, p->args, g->env, &p->detail);
	p->is_diff = kind == TOOL_PREVIEW_DIFF;
	if (kind == TOOL_PREVIEW_NONE) {
		char *s = json_print(p->args);

		if (p->detail.len)
			buf_adds(&p->detail, "\n");
		buf_adds(&p->detail, s);
		free(s);
	}
	if (p->detail.len > PERM_GATE_MAX_OUTPUT) {
		buf_setlen(&p->detail, PERM_GATE_MAX_OUTPUT);
		buf_adds(&p->detail, "\n[… cut]");
	}
}

/* Answer the agent and forget the call. */
static void
perm_gate_finish(struct perm_gate *g, int allow, const char *reason)
{
	struct agent *a = g->pend.agent;
	struct buf r = BUF_INIT;

	if (allow && (g->pend.tool->flags & TOOL_SHELL) && g->pend.approved)
		sandbox_grant_network(g->env->sandbox, 1); /* the user's yes or an allow rule: network too */

	buf_adds(&r, reason ? reason : "");
	perm_gate_clear(g);
	agent_gate_done(a, allow, r.data);
	buf_release(&r);
}

/* Refuse because nobody can answer the question (print mode). */
static void
perm_gate_refuse_unasked(struct perm_gate *g)
{
	struct perm_gate_pending *p = &g->pend;
	struct buf note = BUF_INIT, model = BUF_INIT;

	perm_always_rules(&g->perm, p->tool, p->args, g->env->root, &p->always);
	buf_addf(&note, "refused %s: it needs approval (%s) and print mode cannot ask; rerun with --yes or --approval yolo, or allow it in settings: \"permissions\": {\"allow\": [\"%s\"]}",
		 p->title.data, p->why.data, p->always.len ? p->always.data : p->tool->name);
	if (p->detail.len)
		buf_addf(&note, "\nthe call would have %s:\n%s", p->is_diff ? "made this change" : "run",
			 p->detail.data);
	perm_gate_notice(g, note.data);
	buf_addf(&model, "Not run: this call needs the user's approval (%s) and none can be given in this non-interactive run. Do not retry it; finish what you can without it and tell the user what you wanted to run.",
		 p->why.data);
	perm_gate_finish(g, 0, model.data);
	buf_release(&note);
	buf_release(&model);
}

/* After the rules and the hooks: run, ask, or refuse. */
static void
perm_gate_decide(struct perm_gate *g)
{
	struct perm_gate_pending *p = &g->pend;
	struct perm_gate_question q;

	if (p->verdict == PERM_ALLOW || g->yes) {
		p->approved = p->verdict != PERM_ALLOW ||
			      perm_allowed_by_rule(&g->perm, p->tool, p->args, g->env->root);
		perm_gate_finish(g, 1, NULL);
		return;
	}
	perm_gate_describe(g);
	if (!g->ui.ask) {
		perm_gate_refuse_unasked(g);
		return;
	}
	perm_always_rules(&g->perm, p->tool, p->args, g->env->root, &p->always);
	q.tool = p->tool->name;
	q.is_diff = p->is_diff;
	q.title = p->title.data;
	q.detail = p->detail.data;
	q.why = p->why.data;
	q.always = p->always.data;
	p->asking = 1;
	g->ui.ask(g->ui.arg, &q);
}

/* The pre_tool hooks are done. */
static void
perm_gate_hooks_done(void *arg, const struct perm_hooks_result *r)
{
	struct perm_gate *g = arg;
	struct buf reason = BUF_INIT;

	g->pend.run = NULL;
	perm_gate_problems(g, r);
	if (r->blocked) {
		buf_addf(&reason, "Blocked by a pre_tool hook: %s", r->reason.data);
		buf_reset(&g->pend.title);
		buf_addf(&g->pend.title, "a pre_tool hook blocked %s: %.*s", g->pend.tool->name,
			 (int)strcspn(r->reason.data, "\n"), r->reason.data);
		perm_gate_notice(g, g->pend.title.data);
		perm_gate_finish(g, 0, reason.data);
	} else if (g->active) {
		perm_gate_decide(g);
	}
	buf_release(&reason);
}

/* agent_gate.pre_tool: deny rules, hooks, then the question. */
static void
perm_gate_pre_tool(void *arg, struct agent *a, const struct agent_call *c, const cJSON *args)
{
	struct perm_gate *g = arg;
	struct perm_gate_pending *p = &g->pend;
	cJSON *o;

	perm_gate_clear(g);
	sandbox_grant_network(g->env->sandbox, 0); /* a grant never outlives its call */
	g->active = 1;
	p->agent = a;
	p->tool = c->tool;
	p->args = cJSON_Duplicate(args, 1);
	if ((c->tool->flags & TOOL_SHELL) && !g->said_sandbox && *sandbox_why_none(g->env->sandbox)) {
		struct buf note = BUF_INIT;

		g->said_sandbox = 1;
		buf_addf(&note, "sandbox: none works here (%s); bash commands that are not read-only ask "
				"(docs/permissions.md, \"Sandbox\")", sandbox_why_none(g->env->sandbox));
		perm_gate_notice(g, note.data);
		buf_release(&note);
	}
	p->verdict = perm_check(&g->perm, c->tool, args, g->env->root, &p->why);
	if (p->verdict == PERM_DENY) {
		struct buf note = BUF_INIT, model = BUF_INIT;

		buf_addf(&note, "refused %s: %s", c->name, p->why.data);
		perm_gate_notice(g, note.data);
		buf_addf(&model, "Not run: %s. The user does not allow this; do not retry it or work around it.",
			 p->why.data);
		perm_gate_finish(g, 0, model.data);
		buf_release(&note);
		buf_release(&model);
		return;
	}
	o = perm_gate_event(g, PERM_HOOKS_PRE_TOOL);
	cJSON_AddStringToObject(o, "tool_name", c->name);
	cJSON_AddItemToObject(o, "tool_input", cJSON_Duplicate(args, 1));
	if (perm_hooks_count(g->hooks, PERM_HOOKS_PRE_TOOL, c->name)) {
		perm_gate_describe(g);
		cJSON_AddStringToObject(o, "tool_preview", p->detail.data ? p->detail.data : "");
	}
	p->run = perm_gate_hooks(g, PERM_HOOKS_PRE_TOOL, c->name, o, perm_gate_hooks_done, g);
}

/* agent_gate.cancel: the turn was aborted. */
static void
perm_gate_cancel(void *arg)
{
	struct perm_gate *g = arg;
	int asking = perm_gate_asking(g);

	perm_gate_clear(g);
	if (asking && g->ui.withdraw)
		g->ui.withdraw(g->ui.arg);
}

/* agent_gate.post_tool: a notification with the call and its result. */
static void
perm_gate_post_tool(void *arg, const struct agent_call *c)
{
	struct perm_gate *g = arg;
	cJSON *o, *in;
	size_t n = c->job.out.len;

	if (!perm_hooks_count(g->hooks, PERM_HOOKS_POST_TOOL, c->name))
		return;
	o = perm_gate_event(g, PERM_HOOKS_POST_TOOL);
	in = json_parse(c->args.data, c->args.len, NULL);
	cJSON_AddStringToObject(o, "tool_name", c->name);
	cJSON_AddItemToObject(o, "tool_input", in ? in : cJSON_CreateObject());
	{
		char *out = xstrndup(c->job.out.data, n > PERM_GATE_MAX_OUTPUT ? PERM_GATE_MAX_OUTPUT : n);

		cJSON_AddStringToObject(o, "tool_output", out);
		free(out);
	}
	cJSON_AddBoolToObject(o, "is_error", c->job.is_error);
	cJSON_AddNumberToObject(o, "duration_ms", (double)(c->t_end_ms - c->t_start_ms));
	perm_gate_hooks(g, PERM_HOOKS_POST_TOOL, c->name, o, perm_gate_notified, g);
}

/* agent_gate.turn_end: a notification. */
static void
perm_gate_turn_end(void *arg, enum agent_end end, const char *message)
{
	static const char *const ends[] = { "ok", "max_steps", "error", "aborted" };
	struct perm_gate *g = arg;
	cJSON *o;

	if (!perm_hooks_count(g->hooks, PERM_HOOKS_TURN_END, NULL))
		return;
	o = perm_gate_event(g, PERM_HOOKS_TURN_END);
	cJSON_AddStringToObject(o, "end", ends[end]);
	cJSON_AddStringToObject(o, "message", message ? message : "");
	perm_gate_hooks(g, PERM_HOOKS_TURN_END, NULL, o, perm_gate_notified, g);
}

/* The callbacks for agent_opts.gate. */
struct agent_gate
perm_gate_agent(struct perm_gate *g)
{
	struct agent_gate ag = { g, perm_gate_pre_tool, perm_gate_cancel, perm_gate_post_tool, perm_gate_turn_end };

	return ag;
}

/* The user answered the question. */
void
perm_gate_answer(struct perm_gate *g, enum perm_gate_answer ans)
{
	struct perm_gate_pending *p = &g->pend;
	const char *r, *nl;

	if (!perm_gate_asking(g))
		return;
	if (ans == PERM_GATE_NO) {
		perm_gate_finish(g, 0, "Not run: the user declined this call. Ask them what they want instead, or try another way.");
		return;
	}
	if (ans == PERM_GATE_ALWAYS) {
		for (r = p->always.data; r && *r; r = nl ? nl + 1 : NULL) {
			struct buf one = BUF_INIT;
			struct err e = ERR_INIT;

			nl = strchr(r, '\n');
			buf_add(&one, r, nl ? (size_t)(nl - r) : strlen(r));
			if (perm_add_rule(&g->perm, PERM_LIST_SESSION, one.data, &e) < 0)
				perm_gate_notice(g, e.msg);
			buf_release(&one);
		}
	}
	p->approved = 1;
	perm_gate_finish(g, 1, NULL);
}

/* session_start hooks. */
void
perm_gate_session_start(struct perm_gate *g, const char *mode, int resumed)
{
	cJSON *o;

	if (!perm_hooks_count(g->hooks, PERM_HOOKS_SESSION_START, NULL))
		return;
	o = perm_gate_event(g, PERM_HOOKS_SESSION_START);
	cJSON_AddStringToObject(o, "mode", mode);
	cJSON_AddBoolToObject(o, "resumed", resumed);
	perm_gate_hooks(g, PERM_HOOKS_SESSION_START, NULL, o, perm_gate_notified, g);
}

/* Before-sleep hook of perm_gate_drain: stop once no hook runs. */
static void
perm_gate_drain_check(struct loop *l, void *arg)
{
	if (!perm_hooks_busy(((struct perm_gate *)arg)->hooks))
		loop_stop(l);
}

/* Wait for notification hooks (bounded by their timeouts). */
void
perm_gate_drain(struct perm_gate *g)
{
	if (!g || !perm_hooks_busy(g->hooks))
		return;
	loop_set_before_sleep(g->loop, perm_gate_drain_check, g);
	loop_run(g->loop, NULL);
	loop_set_before_sleep(g->loop, NULL, NULL);
}

/*
 * gate: permissions, hooks and the question, per tool call (see gate.h).
 *
 * At most one call is pending at a time (the agent runs calls one after
 * another): `pend` holds its agent, tool, a copy of its arguments, the
 * perm verdict and the question's strings while the pre_tool hooks run
 * (`run`) or the user decides (`asking`).  Notification hooks are
 * started and forgotten; their problems become notices.
 */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "diff.h"
#include "hooks.h"
#include "journal.h"
#include "json.h"
#include "loop.h"
#include "ws.h"
#include "xmalloc.h"

#define GATE_MAX_FILE (4u << 20)     /* files read for a diff preview */
#define GATE_MAX_OUTPUT (64u << 10)  /* tool output given to post_tool hooks */

struct gate_pending {
	struct agent *agent;
	const struct tool *tool;
	cJSON *args;
	enum perm_verdict verdict;
	struct buf why, title, detail, always;
	struct hooks_run *run;
	int asking;
};

struct gate {
	struct loop *loop;
	const struct tool_env *env;
	struct perm perm;
	struct hooks *hooks;
	struct gate_ui ui;
	int yes;
	const struct journal *journal;
	struct gate_pending pend;
	int active; /* pend is in use */
};

/* Settings file adapter: "approval", "permissions", "hooks" (invalid JSON: cfg reports it). */
static int
gate_file(void *arg, const char *path, struct buf *warnings, struct err *e)
{
	struct gate *g = arg;
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
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "approval")) != NULL &&
	    (!cJSON_IsString(v) || perm_mode_parse(v->valuestring, &g->perm.mode) < 0))
		buf_addf(warnings, "%s: setting \"approval\" must be \"ask\", \"auto-edit\" or \"yolo\"; ignored\n", path);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "permissions")) != NULL)
		perm_load_json(&g->perm, v, path, warnings);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "hooks")) != NULL)
		hooks_load_json(g->hooks, v, path, warnings);
	cJSON_Delete(root);
	return 0;
}

/* A gate with the settings' rules and hooks. */
struct gate *
gate_new(struct loop *l, const struct tool_env *env, struct buf *warnings)
{
	struct gate *g = xcalloc(1, sizeof *g);

	g->loop = l;
	g->env = env;
	perm_init(&g->perm);
	g->hooks = hooks_new(l, env->root);
	buf_init(&g->pend.why, 0);
	buf_init(&g->pend.title, 0);
	buf_init(&g->pend.detail, 0);
	buf_init(&g->pend.always, 0);
	cfg_each_file(env->root, gate_file, g, warnings);
	return g;
}

/* Forget the pending call (its hooks killed). */
static void
gate_clear(struct gate *g)
{
	struct gate_pending *p = &g->pend;

	hooks_cancel(p->run);
	p->run = NULL;
	cJSON_Delete(p->args);
	p->args = NULL;
	p->agent = NULL;
	p->asking = 0;
	buf_reset(&p->why);
	buf_reset(&p->title);
	buf_reset(&p->detail);
	buf_reset(&p->always);
	g->active = 0;
}

/* Free everything (running hooks are killed). */
void
gate_free(struct gate *g)
{
	if (!g)
		return;
	gate_clear(g);
	hooks_free(g->hooks);
	perm_release(&g->perm);
	buf_release(&g->pend.why);
	buf_release(&g->pend.title);
	buf_release(&g->pend.detail);
	buf_release(&g->pend.always);
	free(g);
}

void
gate_set_ui(struct gate *g, const struct gate_ui *ui)
{
	if (ui)
		g->ui = *ui;
	else
		memset(&g->ui, 0, sizeof g->ui);
}

int
gate_set_mode(struct gate *g, const char *mode, struct err *e)
{
	if (perm_mode_parse(mode, &g->perm.mode) < 0)
		return err_set(e, "unknown approval mode \"%s\": use ask, auto-edit or yolo", mode);
	return 0;
}

void
gate_set_yes(struct gate *g, int yes)
{
	g->yes = yes;
}

void
gate_set_journal(struct gate *g, const struct journal *j)
{
	g->journal = j;
}

struct perm *
gate_perm(struct gate *g)
{
	return &g->perm;
}

int
gate_asking(const struct gate *g)
{
	return g->active && g->pend.asking;
}

/* Tell the front end one line. */
static void
gate_notice(struct gate *g, const char *line)
{
	if (g->ui.notice && *line)
		g->ui.notice(g->ui.arg, line);
}

/* Each line of a hook run's problems as a notice. */
static void
gate_problems(struct gate *g, const struct hooks_result *r)
{
	const char *p = r->problems.data, *nl;

	while (p && *p) {
		struct buf line = BUF_INIT;

		nl = strchr(p, '\n');
		buf_add(&line, p, nl ? (size_t)(nl - p) : strlen(p));
		gate_notice(g, line.data);
		buf_release(&line);
		p = nl ? nl + 1 : NULL;
	}
}

/* The common head of every event object. */
static cJSON *
gate_event(struct gate *g, enum hooks_event ev)
{
	cJSON *o = cJSON_CreateObject();
	const char *id = g->journal ? journal_id(g->journal) : "";

	cJSON_AddStringToObject(o, "event", hooks_event_name(ev));
	cJSON_AddStringToObject(o, "session_id", id ? id : "");
	cJSON_AddStringToObject(o, "cwd", g->env->root);
	cJSON_AddStringToObject(o, "approval", perm_mode_name(g->perm.mode));
	return o;
}

/* Run ev's hooks with object o (consumed); done may be NULL (a notification). */
static struct hooks_run *
gate_hooks(struct gate *g, enum hooks_event ev, const char *tool, cJSON *o, hooks_done_fn done,
	   void *arg)
{
	struct hooks_call c = { ev, tool, g->journal ? journal_id(g->journal) : NULL, NULL };
	struct hooks_run *r;
	char *json = json_print(o);

	cJSON_Delete(o);
	c.json = json;
	r = hooks_run(g->hooks, &c, done, arg);
	free(json);
	return r;
}

/* A notification's problems. */
static void
gate_notified(void *arg, const struct hooks_result *r)
{
	gate_problems(arg, r);
}

/* Append the file's text (up to GATE_MAX_FILE) to out; 0 when it could not be read. */
static int
gate_read(const char *abs, struct buf *out)
{
	struct err e = ERR_INIT;

	return access(abs, F_OK) == 0 && buf_read_file(out, abs, GATE_MAX_FILE, &e) == 0;
}

/* The diff an edit or write would make, for the question. */
static void
gate_preview(struct gate *g, const char *name, const cJSON *args, struct buf *out)
{
	const char *path = json_str(args, "path"), *content = json_str(args, "content");
	const char *old = json_str(args, "old_text"), *new = json_str(args, "new_text");
	struct buf abs = BUF_INIT, cur = BUF_INIT, next = BUF_INIT;
	struct err e = ERR_INIT;
	const char *at;

	if (!path || ws_resolve(g->env->root, 1, path, &abs, &e) < 0)
		goto out;
	gate_read(abs.data, &cur);
	if (!strcmp(name, "write") && content) {
		diff_unified(ws_rel(g->env->root, abs.data), cur.data, cur.len, content, strlen(content),
			     out, NULL, NULL);
	} else if (!strcmp(name, "edit") && old && new && *old && (at = strstr(cur.data, old)) != NULL) {
		buf_add(&next, cur.data, (size_t)(at - cur.data));
		buf_adds(&next, new);
		buf_adds(&next, at + strlen(old));
		diff_unified(ws_rel(g->env->root, abs.data), cur.data, cur.len, next.data, next.len,
			     out, NULL, NULL);
	} else if (old && new) {
		diff_unified(path, old, strlen(old), new, strlen(new), out, NULL, NULL);
	}
out:
	buf_release(&abs);
	buf_release(&cur);
	buf_release(&next);
}

/* The question's title and detail for the pending call. */
static void
gate_describe(struct gate *g)
{
	struct gate_pending *p = &g->pend;
	const char *cmd = json_str(p->args, "command"), *path = json_str(p->args, "path");

	if (!strcmp(p->tool->name, "bash") && cmd) {
		const char *nl = strchr(cmd, '\n');

		buf_addf(&p->title, "bash: %.*s%s", nl ? (int)(nl - cmd) : (int)strlen(cmd), cmd, nl ? " …" : "");
		buf_adds(&p->detail, cmd);
		return;
	}
	buf_addf(&p->title, "%s%s%s", p->tool->name, path ? " " : "", path ? path : "");
	gate_preview(g, p->tool->name, p->args, &p->detail);
	if (!p->detail.len) {
		char *s = json_print(p->args);

		buf_adds(&p->detail, s);
		free(s);
	}
	if (p->detail.len > GATE_MAX_OUTPUT) {
		buf_setlen(&p->detail, GATE_MAX_OUTPUT);
		buf_adds(&p->detail, "\n[… cut]");
	}
}

/* Answer the agent and forget the call. */
static void
gate_finish(struct gate *g, int allow, const char *reason)
{
	struct agent *a = g->pend.agent;
	struct buf r = BUF_INIT;

	buf_adds(&r, reason ? reason : "");
	gate_clear(g);
	agent_gate_done(a, allow, r.data);
	buf_release(&r);
}

/* Refuse because nobody can answer the question (print mode). */
static void
gate_refuse_unasked(struct gate *g)
{
	struct gate_pending *p = &g->pend;
	struct buf note = BUF_INIT, model = BUF_INIT;

	perm_always_rules(&g->perm, p->tool, p->args, g->env->root, &p->always);
	buf_addf(&note, "refused %s: it needs approval (%s) and print mode cannot ask; rerun with --yes or --approval yolo, or allow it in settings: \"permissions\": {\"allow\": [\"%s\"]}",
		 p->title.data, p->why.data, p->always.len ? p->always.data : p->tool->name);
	gate_notice(g, note.data);
	buf_addf(&model, "Not run: this call needs the user's approval (%s) and none can be given in this non-interactive run. Do not retry it; finish what you can without it and tell the user what you wanted to run.",
		 p->why.data);
	gate_finish(g, 0, model.data);
	buf_release(&note);
	buf_release(&model);
}

/* After the rules and the hooks: run, ask, or refuse. */
static void
gate_decide(struct gate *g)
{
	struct gate_pending *p = &g->pend;
	struct gate_question q;

	if (p->verdict == PERM_ALLOW || g->yes) {
		gate_finish(g, 1, NULL);
		return;
	}
	gate_describe(g);
	if (!g->ui.ask) {
		gate_refuse_unasked(g);
		return;
	}
	perm_always_rules(&g->perm, p->tool, p->args, g->env->root, &p->always);
	q.tool = p->tool->name;
	q.title = p->title.data;
	q.detail = p->detail.data;
	q.why = p->why.data;
	q.always = p->always.data;
	p->asking = 1;
	g->ui.ask(g->ui.arg, &q);
}

/* The pre_tool hooks are done. */
static void
gate_hooks_done(void *arg, const struct hooks_result *r)
{
	struct gate *g = arg;
	struct buf reason = BUF_INIT;

	g->pend.run = NULL;
	gate_problems(g, r);
	if (r->blocked) {
		buf_addf(&reason, "Blocked by a pre_tool hook: %s", r->reason.data);
		buf_reset(&g->pend.title);
		buf_addf(&g->pend.title, "a pre_tool hook blocked %s: %.*s", g->pend.tool->name,
			 (int)strcspn(r->reason.data, "\n"), r->reason.data);
		gate_notice(g, g->pend.title.data);
		gate_finish(g, 0, reason.data);
	} else if (g->active) {
		gate_decide(g);
	}
	buf_release(&reason);
}

/* agent_gate.pre_tool: deny rules, hooks, then the question. */
static void
gate_pre_tool(void *arg, struct agent *a, const struct agent_call *c, const cJSON *args)
{
	struct gate *g = arg;
	struct gate_pending *p = &g->pend;
	cJSON *o;

	gate_clear(g);
	g->active = 1;
	p->agent = a;
	p->tool = c->tool;
	p->args = cJSON_Duplicate(args, 1);
	p->verdict = perm_check(&g->perm, c->tool, args, g->env->root, &p->why);
	if (p->verdict == PERM_DENY) {
		struct buf note = BUF_INIT, model = BUF_INIT;

		buf_addf(&note, "refused %s: %s", c->name, p->why.data);
		gate_notice(g, note.data);
		buf_addf(&model, "Not run: %s. The user does not allow this; do not retry it or work around it.",
			 p->why.data);
		gate_finish(g, 0, model.data);
		buf_release(&note);
		buf_release(&model);
		return;
	}
	o = gate_event(g, HOOKS_PRE_TOOL);
	cJSON_AddStringToObject(o, "tool_name", c->name);
	cJSON_AddItemToObject(o, "tool_input", cJSON_Duplicate(args, 1));
	p->run = gate_hooks(g, HOOKS_PRE_TOOL, c->name, o, gate_hooks_done, g);
}

/* agent_gate.cancel: the turn was aborted. */
static void
gate_cancel(void *arg)
{
	struct gate *g = arg;
	int asking = gate_asking(g);

	gate_clear(g);
	if (asking && g->ui.withdraw)
		g->ui.withdraw(g->ui.arg);
}

/* agent_gate.post_tool: a notification with the call and its result. */
static void
gate_post_tool(void *arg, const struct agent_call *c)
{
	struct gate *g = arg;
	cJSON *o, *in;
	size_t n = c->job.out.len;

	if (!hooks_count(g->hooks, HOOKS_POST_TOOL, c->name))
		return;
	o = gate_event(g, HOOKS_POST_TOOL);
	in = json_parse(c->args.data, c->args.len, NULL);
	cJSON_AddStringToObject(o, "tool_name", c->name);
	cJSON_AddItemToObject(o, "tool_input", in ? in : cJSON_CreateObject());
	{
		char *out = xstrndup(c->job.out.data, n > GATE_MAX_OUTPUT ? GATE_MAX_OUTPUT : n);

		cJSON_AddStringToObject(o, "tool_output", out);
		free(out);
	}
	cJSON_AddBoolToObject(o, "is_error", c->job.is_error);
	cJSON_AddNumberToObject(o, "duration_ms", (double)(c->t_end_ms - c->t_start_ms));
	gate_hooks(g, HOOKS_POST_TOOL, c->name, o, gate_notified, g);
}

/* agent_gate.turn_end: a notification. */
static void
gate_turn_end(void *arg, enum agent_end end, const char *message)
{
	static const char *const ends[] = { "ok", "max_steps", "error", "aborted" };
	struct gate *g = arg;
	cJSON *o;

	if (!hooks_count(g->hooks, HOOKS_TURN_END, NULL))
		return;
	o = gate_event(g, HOOKS_TURN_END);
	cJSON_AddStringToObject(o, "end", ends[end]);
	cJSON_AddStringToObject(o, "message", message ? message : "");
	gate_hooks(g, HOOKS_TURN_END, NULL, o, gate_notified, g);
}

/* The callbacks for agent_opts.gate. */
struct agent_gate
gate_agent(struct gate *g)
{
	struct agent_gate ag = { g, gate_pre_tool, gate_cancel, gate_post_tool, gate_turn_end };

	return ag;
}

/* The user answered the question. */
void
gate_answer(struct gate *g, enum gate_answer ans)
{
	struct gate_pending *p = &g->pend;
	const char *r, *nl;

	if (!gate_asking(g))
		return;
	if (ans == GATE_NO) {
		gate_finish(g, 0, "Not run: the user declined this call. Ask them what they want instead, or try another way.");
		return;
	}
	if (ans == GATE_ALWAYS) {
		for (r = p->always.data; r && *r; r = nl ? nl + 1 : NULL) {
			struct buf one = BUF_INIT;
			struct err e = ERR_INIT;

			nl = strchr(r, '\n');
			buf_add(&one, r, nl ? (size_t)(nl - r) : strlen(r));
			if (perm_add_rule(&g->perm, PERM_LIST_SESSION, one.data, &e) < 0)
				gate_notice(g, e.msg);
			buf_release(&one);
		}
	}
	gate_finish(g, 1, NULL);
}

/* session_start hooks. */
void
gate_session_start(struct gate *g, const char *mode, int resumed)
{
	cJSON *o;

	if (!hooks_count(g->hooks, HOOKS_SESSION_START, NULL))
		return;
	o = gate_event(g, HOOKS_SESSION_START);
	cJSON_AddStringToObject(o, "mode", mode);
	cJSON_AddBoolToObject(o, "resumed", resumed);
	gate_hooks(g, HOOKS_SESSION_START, NULL, o, gate_notified, g);
}

/* Before-sleep hook of gate_drain: stop once no hook runs. */
static void
gate_drain_check(struct loop *l, void *arg)
{
	if (!hooks_busy(((struct gate *)arg)->hooks))
		loop_stop(l);
}

/* Wait for notification hooks (bounded by their timeouts). */
void
gate_drain(struct gate *g)
{
	if (!g || !hooks_busy(g->hooks))
		return;
	loop_set_before_sleep(g->loop, gate_drain_check, g);
	loop_run(g->loop, NULL);
	loop_set_before_sleep(g->loop, NULL, NULL);
}

/* /approval [ask|auto-edit|yolo]: show or set the mode. */
static enum cmd_result
gate_cmd_approval(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct gate *g = (struct gate *)self->data;
	struct buf mode = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i, n = 0;

	(void)ctx;
	buf_adds(&mode, args ? args : "");
	buf_rtrim(&mode);
	if (mode.len && gate_set_mode(g, mode.data, &e) < 0) {
		buf_addf(out, "/approval: %s", e.msg);
		buf_release(&mode);
		return CMD_ERROR;
	}
	buf_release(&mode);
	buf_addf(out, "approval: %s%s", perm_mode_name(g->perm.mode),
		 g->perm.mode == PERM_ASK ? " (every change asks)" :
		 g->perm.mode == PERM_YOLO ? " (nothing asks; deny rules still refuse)" :
		 " (edits inside the workspace run; other changes ask)");
	for (i = 0; i < 4; i++)
		n += g->perm.lists[i].n;
	if (n) {
		static const char *const names[] = { "allow", "ask", "deny", "allowed this session" };

		for (i = 0; i < 4; i++) {
			size_t j;

			for (j = 0; j < g->perm.lists[i].n; j++)
				buf_addf(out, "\n  %s %s", names[i], g->perm.lists[i].v[j].text);
		}
	}
	return CMD_DONE;
}

/* Register /approval. */
void
gate_commands(struct cmdreg *reg, struct gate *g)
{
	const struct cmd c = { "approval", "[ask|auto-edit|yolo]",
			       "show or set when tool calls ask first", gate_cmd_approval, g };

	cmdreg_add(reg, &c);
}

/* front/commands: shared interactive slash commands (see front/commands.h). */
#include "front/commands.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/agent.h"
#include "front/checkpoint.h"
#include "front/cmd_template.h"
#include "perm/gate.h"
#include "io/sandbox.h"
#include "llm/conv.h"
#include "route/escalate.h"
#include "front/cmd_fork.h"
#include "mcp/mcp.h"
#include "llm/toolset.h"
#include "session/journal.h"
#include "llama/llama.h"
#include "prompt/prompt.h"
#include "front/session.h"
#include "session/export.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

/* The session state a handler works on. */
static struct front_commands *
sc_of(const struct cmd *self)
{
	return (struct front_commands *)self->data;
}

/* /help */
static enum cmd_result
sc_help(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);

	(void)ctx;
	(void)args;
	buf_addf(out, "%s\n", sc->intro);
	front_cmd_help(&sc->reg, out);
	return CMD_DONE;
}

/* /compact [focus]: the model summarises the older turns now (agent_compact). */
static enum cmd_result
sc_compact(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct err e = ERR_INIT;

	(void)ctx;
	if (agent_compact(sc->agent, args, &e) < 0) {
		buf_adds(out, e.msg);
		return CMD_ERROR;
	}
	return CMD_SUBMIT; /* an empty turn: the compaction alone */
}

/* /approval [ask|auto-edit|yolo]: show or set the gate's mode, and list its rules. */
static enum cmd_result
sc_approval(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	static const char *const names[] = { "allow", "ask", "deny", "allowed this session" };
	struct front_commands *sc = sc_of(self);
	const struct perm *p = perm_gate_perm(sc->d->gate);
	struct buf mode = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i, j;

	(void)ctx;
	buf_adds(&mode, args ? args : "");
	buf_rtrim(&mode);
	if (mode.len && perm_gate_set_mode(sc->d->gate, mode.data, &e) < 0) {
		buf_addf(out, "/approval: %s", e.msg);
		buf_release(&mode);
		return CMD_ERROR;
	}
	buf_release(&mode);
	buf_addf(out, "approval: %s%s", perm_mode_name(p->mode),
		 p->mode == PERM_ASK ? " (every change asks)" :
		 p->mode == PERM_YOLO ? " (nothing asks; deny rules still refuse)" :
		 " (edits inside the workspace run; other changes ask)");
	buf_adds(out, "\nsandbox: ");
	sandbox_describe(p->sandbox, out);
	buf_adds(out, sandbox_confines(p->sandbox) ? (p->mode == PERM_AUTO_EDIT ? " (bash runs without asking, confined)" : "")
		      : " (bash commands that are not read-only ask)");
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		for (j = 0; j < p->lists[i].n; j++)
			buf_addf(out, "\n  %s %s", names[i], p->lists[i].v[j].text);
	return CMD_DONE;
}

/* /permissions: what /approval shows, without changing anything (Claude Code's name for it). */
static enum cmd_result
sc_permissions(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)args;
	buf_adds(out, "permissions in force (change the mode with /approval MODE):\n");
	return sc_approval(ctx, self, "", out);
}

/* /quit, /exit */
static enum cmd_result
sc_quit(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	(void)ctx;
	(void)self;
	(void)args;
	(void)out;
	return CMD_QUIT;
}

/* /clear, /new: a new conversation and session file, same system prompt. */
static enum cmd_result
sc_clear(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct conv *c = agent_conv(sc->agent);

	(void)ctx;
	(void)args;
	if (agent_busy(sc->agent)) {
		buf_adds(out, "a turn is running: stop it first");
		return CMD_ERROR;
	}
	while (c->nmsgs)
		conv_pop(c);
	if (sc->d->journal)
		session_journal_restart(sc->d->journal);
	if (sc->on_clear)
		sc->on_clear(sc->arg);
	buf_adds(out, "conversation cleared; a new session starts with the next message");
	return CMD_DONE;
}

/* /model: what the server serves. */
static enum cmd_result
sc_model(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	const struct llama_info *info = llama_info(sc->d->llama);

	(void)ctx;
	(void)args;
	buf_addf(out, "%s · ctx %ld per slot · %d slots · %s · slot %d",
		 info->model_id ? info->model_id : "?", info->n_ctx, info->total_slots,
		 info->build_info ? info->build_info : "?", llama_slot(sc->d->llama));
	if (info->models) { /* router mode or llama-swap: every model behind the URL */
		const char *l = info->models;

		buf_adds(out, "\nmodels on this server (the settings' \"model\" or a tier's picks one):");
		while (*l) {
			size_t n = strcspn(l, "\n");

			buf_addf(out, "\n  %s%.*s", info->model_id && strlen(info->model_id) <= n &&
				 !strncmp(l, info->model_id, strlen(info->model_id)) &&
				 (l[strlen(info->model_id)] == ' ' || l[strlen(info->model_id)] == '\n' ||
				  !l[strlen(info->model_id)]) ? "▶ " : "  ", (int)n, l);
			l += n + (l[n] == '\n');
		}
	}
	if (sc->d->esc && sc->d->esc->nrungs) { /* the tiers of the servers setting */
		const struct route_escalate *x = sc->d->esc;
		size_t i;

		buf_adds(out, "\ntiers (the servers setting):");
		for (i = 0; i < x->nrungs; i++)
			buf_addf(out, "\n  %s%s (%s)%s%s", (int)i == (x->rung >= 0 ? x->rung : x->start) && !x->on_claude ? "▶ " : "  ",
				 x->rungs[i].name, x->rungs[i].workhorse ? "workhorse" : "interactive",
				 x->rungs[i].down ? " · down" : "", (int)i == x->pin ? " · pinned (/route)" : "");
	}
	return CMD_DONE;
}

/* /export [file]: this session as Markdown (HTML for *.html). */
static enum cmd_result
sc_export(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct buf file = BUF_INIT, warnings = BUF_INIT;
	struct err e = ERR_INIT;
	enum cmd_result rc = CMD_DONE;

	(void)ctx;
	if (!sc->d->journal || !*session_journal_path(sc->d->journal)) {
		buf_adds(out, "nothing to export yet");
		return CMD_ERROR;
	}
	if (*args)
		buf_adds(&file, args);
	else
		buf_addf(&file, "hearth-%s.md", session_journal_id(sc->d->journal));
	buf_rtrim(&file);
	if (session_export_file(session_journal_path(sc->d->journal), file.data, &warnings, &e) < 0) {
		buf_addf(out, "export: %s", e.msg);
		rc = CMD_ERROR;
	} else {
		buf_addf(out, "wrote %s", file.data);
	}
	buf_release(&file);
	buf_release(&warnings);
	return rc;
}

/* /reload: re-read AGENTS.md / CLAUDE.md into the system prompt (a planned prefix change). */
static enum cmd_result
sc_reload(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct conv *c = agent_conv(sc->agent);
	struct buf sys = BUF_INIT, warnings = BUF_INIT;
	char date[16];
	time_t now = time(NULL);

	(void)ctx;
	(void)args;
	strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
	prompt_session(&sys, sc->d->env->root, date, sc->d->tools, sc->d->ntools, &warnings);
	if (strcmp(sys.data, c->system ? c->system : "")) {
		conv_set_system(c, sys.data);
		buf_adds(out, "context files reloaded: the next request re-reads the whole prompt (one expected cache break)");
	} else {
		buf_adds(out, "context files unchanged");
	}
	if (warnings.len)
		buf_addf(out, "\n%s", warnings.data);
	buf_release(&sys);
	buf_release(&warnings);
	return CMD_DONE;
}

/* /think: thinking on for the next turn only. */
static enum cmd_result
sc_think(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);

	(void)ctx;
	(void)args;
	agent_think_next(sc->agent);
	buf_adds(out, "the next turn thinks (enable_thinking for that turn only)");
	return CMD_DONE;
}

/* /claude, /local: who answers the next turn. */
static enum cmd_result
sc_pick(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	int claude = strcmp(self->name, "claude") == 0;

	(void)ctx;
	(void)args;
	sc->d->esc->pending = claude ? ROUTE_REQ_CLAUDE : ROUTE_REQ_LOCAL;
	buf_addf(out, "the next turn goes to %s", claude ? "Claude (if a key is set and routing allows)" :
		 "the local server");
	return CMD_DONE;
}

/* /route auto|local|claude */
static enum cmd_result
sc_route(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct err e = ERR_INIT;
	struct buf mode = BUF_INIT;

	(void)ctx;
	buf_adds(&mode, args);
	buf_rtrim(&mode);
	if (route_escalate_set_mode(sc->d->esc, mode.data, &e) < 0) {
		buf_addf(out, "/route: %s", e.msg);
		buf_release(&mode);
		return CMD_ERROR;
	}
	buf_addf(out, "routing: %s", mode.data);
	buf_release(&mode);
	return CMD_DONE;
}

/* /commit's model: the agent's provider and conversation, at once. */
static void
sc_want_model(void *arg, struct front_cmd_commit *c)
{
	struct front_commands *sc = arg;
	struct conv *conv = agent_conv(sc->agent);
	struct buf warnings = BUF_INIT;

	if ((!conv->system || !*conv->system) && sc->d->prompt) /* no turn yet: the session prompt */
		conv_set_system(conv, sc->d->prompt(sc->d->prompt_arg, &warnings));
	buf_release(&warnings);
	front_cmd_commit_model_ready(c, agent_provider(sc->agent), conv, NULL);
}

/* Whether a turn is running (no /commit then). */
static int
sc_busy(void *arg)
{
	return agent_busy(((struct front_commands *)arg)->agent);
}

/* /commit on this session's checkpoint and agent. */
static void
sc_commit(struct front_commands *sc, const struct front_session *d)
{
	sc->commit.cp = d->checkpoint;
	sc->commit.ui = &sc->ui;
	sc->commit.want_model = sc_want_model;
	sc->commit.busy = sc_busy;
	sc->commit.arg = sc;
	sc->commit.tools = d->tools;
	sc->commit.ntools = d->ntools;
	front_cmd_commit_register(&sc->reg, &sc->commit);
}

/* /mcp [reconnect NAME] (see front/commands.h). */
int
front_mcp_command(struct mcp *m, const struct toolset *ts, const char *args, struct buf *out)
{
	args += strspn(args, " \t");
	if (!strncmp(args, "reconnect", 9) && (!args[9] || args[9] == ' ')) {
		const char *name = args + 9 + strspn(args + 9, " \t");

		if (!*name) {
			buf_adds(out, "usage: /mcp reconnect NAME (/mcp lists the servers)");
			return -1;
		}
		return mcp_reconnect(m, name, out) < 0 ? -1 : 1;
	}
	if (*args) {
		buf_addf(out, "unknown /mcp argument \"%s\": /mcp lists the servers, /mcp reconnect NAME restarts one",
			 args);
		return -1;
	}
	mcp_status(m, out);
	if (m && ts) {
		size_t off = 0, def = 0;

		toolset_extension_counts(ts, &off, &def);
		buf_addf(out, "extension tools: %zu offered to the model, %zu wait behind tool_search", off, def);
		if (ts->overflow)
			buf_addf(out, " (%zu because a request offers at most %d tools)", ts->overflow, TOOLSET_MAX);
		if (ts->dropped)
			buf_addf(out, "; %zu left out: more than %d wait", ts->dropped, TOOLSET_DEFER_MAX);
		buf_addch(out, '\n');
	}
	return 0;
}

/* /mcp: the MCP servers, their state and tools; /mcp reconnect NAME. */
static enum cmd_result
sc_mcp(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	const struct front_session *d = sc->d;
	struct toolset *ts = d->env ? d->env->toolset : NULL;

	(void)ctx;
	if (ts && d->ntools && !agent_busy(sc->agent)) { /* the counts as the next turn will offer them (a reconnect makes new tools) */
		size_t nx = 0;
		const struct tool *const *x = tool_extra(&nx);

		toolset_sync(ts, x, nx);
	}
	(void)front_mcp_command(d->mcp, ts, args, out);
	buf_rtrim(out);
	return CMD_DONE;
}

/*
 * An MCP prompt's prompts/get in flight.  Its answer always comes (the
 * text, a failure, a timeout, or mcp_free failing the server), so the
 * callback frees it; sc is NULL once nobody waits (cancelled, released).
 */
struct front_prompt_wait {
	struct front_commands *sc;
};

/* prompts/get answered: send its text as the user's turn, or say why not. */
static void
sc_prompt_done(void *arg, int ok, const char *text)
{
	struct front_prompt_wait *w = arg;
	struct front_commands *sc = w->sc;

	free(w);
	if (!sc)
		return;
	sc->prompt = NULL;
	if (ok && !*text) {
		front_cmd_ui_show(&sc->ui, 1, "the prompt's text is empty: nothing to send");
		ok = 0;
	} else if (!ok) {
		front_cmd_ui_show(&sc->ui, 1, "%s", text);
	}
	if (ok)
		front_cmd_ui_submit(&sc->ui, text);
	else
		front_cmd_ui_done(&sc->ui);
}

/* Esc / Ctrl-C while the prompt's text is awaited: the answer is dropped. */
static void
sc_prompt_cancel(void *cmd)
{
	struct front_commands *sc = cmd;

	if (sc->prompt)
		sc->prompt->sc = NULL;
	sc->prompt = NULL;
	front_cmd_ui_show(&sc->ui, 0, "stopped waiting for the prompt's text");
}

/* /mcp__SERVER__PROMPT ARGS: prompts/get, then the text is the user's turn. */
static enum cmd_result
sc_prompt(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct front_prompt_wait *w;

	(void)ctx;
	if (sc->ui.state != FRONT_CMD_UI_IDLE || sc->prompt) {
		buf_adds(out, "another command is still running (Esc stops it)");
		return CMD_ERROR;
	}
	w = xmalloc(sizeof *w);
	w->sc = sc;
	if (mcp_prompt_get(sc->d->mcp, self->name, args, sc_prompt_done, w, out) < 0) {
		free(w);
		return CMD_ERROR;
	}
	sc->prompt = w;
	front_cmd_ui_show(&sc->ui, 0, "/%s: asking the server for the prompt's text", self->name);
	front_cmd_ui_busy(&sc->ui, sc_prompt_cancel, sc);
	return CMD_PENDING;
}

/* The registry's provider: the MCP prompts listed now. */
static int
sc_prompt_more(void *arg, size_t i, struct cmd *c, struct buf *scratch)
{
	struct front_commands *sc = arg;
	struct buf syn = BUF_INIT;
	const char *desc = "";
	size_t syn_at, dl;

	if (mcp_prompt_info(sc->d->mcp, i, scratch, &syn, &desc) < 0) {
		buf_release(&syn);
		return -1;
	}
	buf_addch(scratch, '\0');
	syn_at = scratch->len;
	buf_add(scratch, syn.data, syn.len);
	buf_addch(scratch, '\0');
	dl = strcspn(desc, "\n");
	buf_addf(scratch, "%.*s%s", (int)(dl > 100 ? 100 : dl), desc, *desc ? "" : "an MCP prompt");
	c->name = scratch->data;
	c->args = scratch->data + syn_at;
	c->help = scratch->data + syn_at + syn.len + 1;
	c->run = sc_prompt;
	c->data = sc;
	buf_release(&syn);
	return 0;
}

/* An unknown /mcp__... while servers start: their prompts are not listed yet. */
static void
sc_prompt_hint(void *arg, const char *name, size_t len, struct buf *out)
{
	struct front_commands *sc = arg;

	if (len > 5 && !strncmp(name, "mcp__", 5) && mcp_starting(sc->d->mcp))
		buf_adds(out, " (the MCP servers are still starting and listing their prompts: "
			 "try again in a moment; /mcp shows them)");
}

/* /fork [N]: list the user messages, or start a new session before message N. */
static enum cmd_result
sc_fork(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_commands *sc = sc_of(self);
	struct buf text = BUF_INIT;
	enum cmd_result rc;

	(void)ctx;
	rc = front_cmd_fork_run(sc->agent, sc->d->journal, sc->d->env->root, args, out, &text);
	if (rc == CMD_DONE && text.len) {
		if (sc->on_clear)
			sc->on_clear(sc->arg);
		if (sc->on_fork)
			sc->on_fork(sc->arg, text.data);
		else
			buf_addf(out, "\nmessage %s was:\n%s", args, text.data);
	}
	buf_release(&text);
	return rc;
}

/* Built-ins, checkpoint commands, then the prompt templates. */
void
front_commands_init(struct front_commands *sc, struct agent *agent, const struct front_session *d,
	     const char *intro, struct buf *warnings)
{
	const struct cmd builtins[] = {
		{ "help", "", "list the commands and keys", sc_help, sc },
		{ "quit", "", "leave hearth", sc_quit, sc },
		{ "exit", "", "leave hearth", sc_quit, sc },
		{ "clear", "", "start a new conversation", sc_clear, sc },
		{ "new", "", "start a new session", sc_clear, sc },
		{ "model", "", "show the model and the server's slots", sc_model, sc },
		{ "export", "[file]", "write this session as Markdown (HTML for *.html)", sc_export, sc },
		{ "reload", "", "re-read AGENTS.md / CLAUDE.md into the system prompt", sc_reload, sc },
		{ "mcp", "[reconnect NAME]", "MCP servers: state and tools; reconnect one", sc_mcp, sc },
		{ "fork", "[N]", "list your messages; /fork N: a new session from before message N", sc_fork, sc },
		{ "compact", "[focus]", "summarise the older turns to free context (recent turns stay)", sc_compact, sc },
		{ "think", "", "let the model think on the next turn only", sc_think, sc },
	};
	size_t i;

	memset(sc, 0, sizeof *sc);
	sc->agent = agent;
	sc->d = d;
	sc->intro = intro;
	front_cmd_init(&sc->reg);
	front_cmd_ui_init(&sc->ui);
	sc->ui.interactive = 1;
	front_cmd_commit_init(&sc->commit);
	for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		front_cmd_add(&sc->reg, &builtins[i]);
	if (d->checkpoint) {
		front_checkpoint_commands(&sc->reg, d->checkpoint);
		d->checkpoint->ui = &sc->ui;
		sc_commit(sc, d);
	}
	if (d->esc) {
		const struct cmd routing[] = {
			{ "claude", "", "send the next turn to Claude", sc_pick, sc },
			{ "local", "", "keep the next turn on the local server", sc_pick, sc },
			{ "route", "auto|local|claude", "routing for this session", sc_route, sc },
		};

		for (i = 0; i < sizeof routing / sizeof routing[0]; i++)
			front_cmd_add(&sc->reg, &routing[i]);
	}
	if (d->gate) {
		const struct cmd approval = { "approval", "[ask|auto-edit|yolo]",
					      "show or set when tool calls ask first", sc_approval, sc };

		const struct cmd permissions = { "permissions", "",
						 "show the approval mode, the sandbox and the rules", sc_permissions, sc };

		front_cmd_add(&sc->reg, &approval);
		front_cmd_add(&sc->reg, &permissions);
	}
	prompt_context_templates_load(d->env->root, &sc->templates, warnings);
	front_cmd_template_add(&sc->reg, &sc->templates, warnings);
	if (d->mcp) {
		sc->reg.more = sc_prompt_more;
		sc->reg.more_hint = sc_prompt_hint;
		sc->reg.more_arg = sc;
	}
}

/* Free the registry and the templates. */
void
front_commands_release(struct front_commands *sc)
{
	if (sc->d && sc->d->checkpoint && sc->d->checkpoint->ui == &sc->ui)
		sc->d->checkpoint->ui = NULL;
	if (sc->prompt) /* its answer finds nobody */
		sc->prompt->sc = NULL;
	sc->prompt = NULL;
	front_cmd_commit_release(&sc->commit);
	front_cmd_ui_release(&sc->ui);
	front_cmd_release(&sc->reg);
	prompt_context_templates_release(&sc->templates);
}

/*
 * front/cmd_commit: /commit (see front/cmd_commit.h).  State lives in struct front_cmd_commit
 * between the steps: `plan` (have_plan) from the handler until the end,
 * `drafting` while a model request is in flight (prov is its provider),
 * `text` the draft as it streams, `msg` the message to commit.  `pending`
 * is set while the command runs through its front_cmd_ui; `failed` tells print
 * mode to exit with an error.
 */
#include "front/cmd_commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/checkpoint.h"
#include "front/cmd_ui.h"
#include "llm/conv.h"
#include "llm/provider.h"
#include "repo/repo.h"

#define DRAFT_PROMPT \
	"Write a git commit message for the changes below, which you made in this session. " \
	"First line: a summary in the imperative mood, at most 72 characters, no period. " \
	"Then a blank line and a short body saying what changed and why, wrapped at 72 " \
	"columns. Answer with the commit message only: no tool calls, no code fences, no " \
	"preamble.\n\n"

/* Zeroed. */
void
front_cmd_commit_init(struct front_cmd_commit *c)
{
	memset(c, 0, sizeof *c);
	buf_init(&c->text, 0);
	buf_init(&c->msg, 0);
}

/* Forget the command's state (the plan, the draft). */
static void
reset(struct front_cmd_commit *c)
{
	if (c->drafting && c->prov)
		c->prov->cancel(c->prov->self);
	c->drafting = 0;
	c->prov = NULL;
	if (c->have_plan)
		repo_commit_plan_free(&c->plan);
	c->have_plan = 0;
	c->pending = 0;
	buf_reset(&c->text);
	buf_reset(&c->msg);
}

/* Free. */
void
front_cmd_commit_release(struct front_cmd_commit *c)
{
	reset(c);
	buf_release(&c->text);
	buf_release(&c->msg);
}

/* End the command with a line (error: it failed). */
static void
finish(struct front_cmd_commit *c, int error, const char *line)
{
	if (line && *line)
		front_cmd_ui_show(c->ui, error, "%s", line);
	c->failed = error;
	reset(c);
	front_cmd_ui_done(c->ui);
}

/* Make the commit with c->msg and end. */
static void
commit_now(struct front_cmd_commit *c)
{
	struct err e = ERR_INIT;
	struct repo *r = front_checkpoint_repo(c->cp, &e);
	char sid[8], line[160];
	git_oid id;
	const char *nl;

	if (!r || repo_commit_commit(repo_git(r), &c->plan, c->msg.data, &id, &e) < 0) {
		finish(c, 1, e.msg);
		return;
	}
	git_oid_tostr(sid, sizeof sid, &id);
	nl = strchr(c->msg.data, '\n');
	snprintf(line, sizeof line, "committed %s %.*s (%zu file%s)", sid,
		 (int)(nl ? (size_t)(nl - c->msg.data) : c->msg.len), c->msg.data, c->plan.nfiles,
		 c->plan.nfiles == 1 ? "" : "s");
	finish(c, 0, line);
}

static void on_answer(void *arg, const char *answer);
static void on_cancel(void *arg);

/* The edited message: commit it (empty: cancel). */
static void
on_edited(void *arg, const char *text)
{
	struct front_cmd_commit *c = arg;

	buf_reset(&c->msg);
	buf_adds(&c->msg, text);
	buf_rtrim(&c->msg);
	if (!c->msg.len) {
		finish(c, 0, "commit cancelled: the message was empty");
		return;
	}
	commit_now(c);
}

/* The answer to "commit?". */
static void
on_answer(void *arg, const char *answer)
{
	struct front_cmd_commit *c = arg;
	const char *a = answer + strspn(answer, " ");

	if (*a == 'e' || *a == 'E') {
		front_cmd_ui_ask_text(c->ui, c->ui->whole_text ?
			       "edit the message and press Enter to commit (an empty message cancels)" :
			       "type the message; a line with only \".\" ends it (an empty message cancels)",
			       c->msg.data, on_edited, on_cancel, c);
		return;
	}
	switch (front_cmd_ui_yes(a)) {
	case 1:
		commit_now(c);
		break;
	case 0:
		finish(c, 0, "commit cancelled: nothing was committed");
		break;
	default:
		front_cmd_ui_ask(c->ui, "commit? [y]es / [e]dit / [N]o", on_answer, on_cancel, c);
		break;
	}
}

/* The message is known: ask, or commit at once. */
static void
confirm(struct front_cmd_commit *c)
{
	if (!c->ui->interactive || c->yes_now) {
		commit_now(c);
		return;
	}
	front_cmd_ui_show(c->ui, 0, "message:\n%s", c->msg.data);
	front_cmd_ui_ask(c->ui, "commit? [y]es / [e]dit / [N]o", on_answer, on_cancel, c);
}

/* Stream events of the draft. */
static void
on_event(void *arg, const struct llm_event *ev)
{
	struct front_cmd_commit *c = arg;
	struct buf why = BUF_INIT;

	if (ev->kind == LLM_TEXT) {
		buf_add(&c->text, ev->text.p, ev->text.len);
	} else if (ev->kind == LLM_ERROR) {
		c->drafting = 0;
		c->prov->describe_error(c->prov->self, ev, &why);
		buf_insert(&why, 0, "commit: could not draft a message: ", 35);
		buf_adds(&why, "; give one: /commit <message>");
		finish(c, 1, why.data);
	} else if (ev->kind == LLM_DONE) {
		c->drafting = 0;
		repo_commit_tidy_message(c->text.data, &c->msg);
		if (!c->msg.len)
			finish(c, 1, "commit: the model drafted no message; give one: /commit <message>");
		else
			confirm(c);
	}
	buf_release(&why);
}

/* Ctrl-C / Esc while drafting or asking. */
static void
on_cancel(void *arg)
{
	struct front_cmd_commit *c = arg;

	finish(c, 0, "commit cancelled: nothing was committed");
}

/* Send the draft request (see front/cmd_commit.h). */
void
front_cmd_commit_model_ready(struct front_cmd_commit *c, struct provider *p, struct conv *conv,
		      const char *msg)
{
	struct provider_req req;
	struct buf ask = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (!c->pending)
		return;
	if (!p) {
		buf_addf(&ask, "commit: cannot draft a message: %s; give one: /commit <message>",
			 msg ? msg : "no model");
		finish(c, 1, ask.data);
		buf_release(&ask);
		return;
	}
	buf_addf(&ask, "%sFiles:\n%s\n%s", DRAFT_PROMPT, c->plan.stat.data, c->plan.diff.data);
	conv_add_user_text(conv, ask.data);
	memset(&req, 0, sizeof req);
	req.conv = conv;
	req.tools = c->tools;
	req.ntools = c->ntools;
	c->prov = p;
	rc = p->start(p->self, &req, on_event, c, &e);
	conv_pop(conv);
	buf_release(&ask);
	if (rc < 0) {
		buf_reset(&c->text);
		buf_addf(&c->text, "commit: could not draft a message: %s; give one: /commit <message>",
			 e.msg);
		finish(c, 1, c->text.data);
		return;
	}
	c->drafting = 1;
}

/* Split "[--yes|-y] [message]": yes flag and the message (the rest, as is). */
static const char *
parse_args(const char *args, int *yes)
{
	*yes = 0;
	for (;;) {
		args += strspn(args, " \t");
		if (strncmp(args, "--yes", 5) == 0 && (!args[5] || args[5] == ' ')) {
			args += 5;
			*yes = 1;
		} else if (strncmp(args, "-y", 2) == 0 && (!args[2] || args[2] == ' ')) {
			args += 2;
			*yes = 1;
		} else {
			return args;
		}
	}
}

/* What will be committed and what is left out, for the user. */
static void
show_plan(struct front_cmd_commit *c, const struct repo_result *agent, const struct repo_result *hand)
{
	size_t i;

	front_cmd_ui_show(c->ui, 0, "to commit (%zu file%s):\n%s", c->plan.nfiles,
		   c->plan.nfiles == 1 ? "" : "s", c->plan.stat.data);
	for (i = 0; i < agent->nfiles; i++)
		if (agent->files[i].by_hand)
			front_cmd_ui_show(c->ui, 0, "%s: also changed by hand since the agent's edit; "
				   "committed as it is now", agent->files[i].path);
	for (i = 0; i < hand->nfiles; i++)
		front_cmd_ui_show(c->ui, 0, "left out (changed by hand, not by this session): %s",
			   hand->files[i].path);
	if (c->plan.notes.len)
		front_cmd_ui_show(c->ui, 0, "%s", c->plan.notes.data);
}

/* The session's files (agent, hand) into c->plan; -1 with the reason in out. */
static int
make_plan(struct front_cmd_commit *c, struct repo_result *agent, struct repo_result *hand,
	  struct buf *out)
{
	struct err e = ERR_INIT;
	struct repo *r = front_checkpoint_repo(c->cp, &e);
	const char **paths;
	size_t i;
	int rc = -1;

	if (!r) {
		buf_addf(out, "nothing to commit: %s", e.msg);
		return -1;
	}
	if (!repo_git(r)) {
		buf_adds(out, "commit: the workspace is not in a git work tree");
		return -1;
	}
	if (repo_session_files(r, agent, hand, &e) < 0) {
		buf_addf(out, "commit: %s", e.msg);
		return -1;
	}
	paths = calloc(agent->nfiles + 1, sizeof *paths);
	for (i = 0; paths && i < agent->nfiles; i++)
		paths[i] = agent->files[i].path;
	c->have_plan = 1;
	if (!paths || repo_commit_plan(repo_git(r), paths, agent->nfiles, &c->plan, &e) < 0)
		buf_adds(out, paths ? e.msg : "commit: out of memory");
	else if (!c->plan.nfiles)
		buf_adds(out, "nothing to commit: this session's changes are already committed, "
			 "undone, or there are none");
	else
		rc = 0;
	free(paths);
	return rc;
}

/* Plan, refuse print mode without --yes, show the plan; CMD_PENDING when it goes on. */
static enum cmd_result
start(struct front_cmd_commit *c, struct buf *out)
{
	struct repo_result agent = REPO_RESULT_INIT, hand = REPO_RESULT_INIT;
	enum cmd_result rc = CMD_PENDING;

	if (make_plan(c, &agent, &hand, out) < 0)
		rc = strncmp(out->data, "nothing", 7) == 0 ? CMD_DONE : CMD_ERROR;
	else if (!c->ui->interactive && !c->yes_now) {
		buf_addf(out, "commit: print mode cannot ask for confirmation: add --yes to commit "
			 "the session's %zu file%s (hearth -c -p --yes /commit [message])",
			 c->plan.nfiles, c->plan.nfiles == 1 ? "" : "s");
		rc = CMD_ERROR;
	} else {
		show_plan(c, &agent, &hand);
	}
	if (rc != CMD_PENDING)
		reset(c);
	repo_result_release(&agent);
	repo_result_release(&hand);
	return rc;
}

/* /commit [--yes] [message] */
static enum cmd_result
commit_cmd(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_cmd_commit *c = (struct front_cmd_commit *)self->data;
	int yes;
	const char *message = parse_args(args, &yes);

	(void)ctx;
	if (c->pending) {
		buf_adds(out, "a /commit is already waiting for an answer");
		return CMD_ERROR;
	}
	if (c->busy && c->busy(c->arg)) {
		buf_adds(out, "a turn is running: wait for it or stop it first");
		return CMD_ERROR;
	}
	reset(c);
	c->yes_now = c->yes || yes;
	c->failed = 0;
	if (start(c, out) != CMD_PENDING)
		return out->len && strncmp(out->data, "nothing", 7) == 0 ? CMD_DONE : CMD_ERROR;
	c->pending = 1;
	if (*message) {
		buf_adds(&c->msg, message);
		confirm(c);
	} else {
		front_cmd_ui_show(c->ui, 0, "drafting the commit message…");
		front_cmd_ui_busy(c->ui, on_cancel, c);
		if (c->want_model)
			c->want_model(c->arg, c);
		else
			front_cmd_commit_model_ready(c, NULL, NULL, "no model in this mode");
	}
	return CMD_PENDING;
}

/* Register /commit. */
void
front_cmd_commit_register(struct front_cmd *reg, struct front_cmd_commit *c)
{
	const struct cmd cmd = { "commit", "[--yes] [message]",
				 "commit the files this session changed (the model drafts the message)",
				 commit_cmd, c };

	front_cmd_add(reg, &cmd);
}

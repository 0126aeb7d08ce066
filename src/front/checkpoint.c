/*
 * front/checkpoint: lazy repo + agent hooks + undo commands (see front/checkpoint.h).
 * Command handlers find the checkpoint through cmd.data, so the front
 * end's own context pointer stays whatever it is.
 */
#include "front/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/cmd_ui.h"
#include "session/journal.h"
#include "repo/repo.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

/* Nothing open yet. */
void
front_checkpoint_init(struct front_checkpoint *cp, const char *root, const char *state_dir,
		struct session_journal *j, struct tool_env *env)
{
	struct buf dir = BUF_INIT;

	memset(cp, 0, sizeof *cp);
	cp->root = xstrdup(root);
	buf_addf(&dir, "%s/checkpoints", state_dir);
	cp->state_dir = buf_detach(&dir, NULL);
	cp->journal = j;
	cp->env = env;
}

/* Close the repository and detach it from the tools. */
void
front_checkpoint_release(struct front_checkpoint *cp)
{
	if (cp->env)
		cp->env->repo = NULL;
	repo_close(cp->repo);
	free(cp->root);
	free(cp->state_dir);
	free(cp->session);
	buf_release(&cp->said);
	memset(cp, 0, sizeof *cp);
}

/* Open under the journal's session id (the file exists once a message was saved). */
struct repo *
front_checkpoint_repo(struct front_checkpoint *cp, struct err *e)
{
	const char *id = cp->journal ? session_journal_id(cp->journal) : "";
	struct buf dir = BUF_INIT;

	if (cp->repo)
		return cp->repo;
	if (!*id) {
		err_set(e, "no session yet: nothing has been checkpointed");
		return NULL;
	}
	buf_addf(&dir, "%s/%s", cp->state_dir, id);
	cp->repo = repo_open(cp->root, id, dir.data, e);
	buf_release(&dir);
	if (cp->repo) {
		cp->session = xstrdup(id);
		if (cp->env)
			cp->env->repo = cp->repo;
	}
	return cp->repo;
}

/* The lines of notes not said before in this session into note (each cause once, not every turn). */
static void
front_checkpoint_once(struct front_checkpoint *cp, const char *notes, struct buf *note)
{
	struct buf key = BUF_INIT;
	const char *p;
	size_t len;

	for (p = notes; *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		if (!len)
			continue;
		buf_reset(&key);
		buf_addf(&key, "\n%.*s\n", (int)len, p); /* said is "\nline\nline\n" */
		if (cp->said.len && strstr(cp->said.data, key.data))
			continue;
		buf_add(&cp->said, key.data + (cp->said.len ? 1 : 0), key.len - (cp->said.len ? 1 : 0));
		if (note->len)
			buf_adds(note, "\n");
		buf_add(note, p, len);
	}
	buf_release(&key);
}

/* Snapshot the working tree before the turn's first change. */
void
front_checkpoint_before_change(void *arg, struct buf *note)
{
	struct front_checkpoint *cp = arg;
	struct err e = ERR_INIT;
	struct buf notes = BUF_INIT;
	struct repo *r = front_checkpoint_repo(cp, &e);

	if (!r || repo_checkpoint(r, &notes, &e) < 0)
		buf_addf(&notes, "this turn cannot be undone: %s", e.msg);
	front_checkpoint_once(cp, notes.data ? notes.data : "", note);
	buf_release(&notes);
}

/* Close the turn so later hand edits are told apart from the agent's. */
void
front_checkpoint_turn_end(void *arg)
{
	struct front_checkpoint *cp = arg;

	if (cp->repo)
		repo_turn_end(cp->repo, NULL);
}

/* Show a result: the diff, then what was left alone. */
static void
front_checkpoint_show(const struct repo_result *res, const char *what, struct buf *out)
{
	if (!res->diff.len && !res->notes.len) {
		buf_addf(out, "%s: nothing to change", what);
		return;
	}
	buf_add(out, res->diff.data, res->diff.len);
	if (res->notes.len)
		buf_add(out, res->notes.data, res->notes.len);
	buf_addf(out, "%s: %zu file%s", what, res->nfiles, res->nfiles == 1 ? "" : "s");
	if (res->conflicts)
		buf_addf(out, "; %d changed by hand since and left alone (add --force to restore them too)",
			 res->conflicts);
}

/* Parse "[N] [--force] [--yes|-y]"; -1 on anything else. */
static int
undo_args(const char *args, int *n, unsigned *flags, int *yes)
{
	char word[32];
	int len;

	*n = 1;
	*flags = 0;
	*yes = 0;
	while (sscanf(args, " %31s%n", word, &len) == 1) {
		args += len;
		if (strcmp(word, "--force") == 0)
			*flags |= REPO_FORCE;
		else if (strcmp(word, "--yes") == 0 || strcmp(word, "-y") == 0)
			*yes = 1;
		else if (atoi(word) > 0 && strspn(word, "0123456789") == strlen(word))
			*n = atoi(word);
		else
			return -1;
	}
	return 0;
}

/* Undo or redo with flags into res; -1 with the message in out. */
static int
front_checkpoint_apply(struct front_checkpoint *cp, int redo, int n, unsigned flags,
		 struct repo_result *res, struct buf *out)
{
	struct err e = ERR_INIT;
	struct repo *r = front_checkpoint_repo(cp, &e);
	const char *what = redo ? "redo" : "undo";

	if (!r) {
		buf_addf(out, "nothing to %s (%s)", what, e.msg);
		return -1;
	}
	if ((redo ? repo_redo(r, flags, res, &e) : repo_undo(r, n, flags, res, &e)) < 0) {
		buf_addf(out, "%s: %s", what, e.msg);
		return -1;
	}
	return 0;
}

/* Ctrl-C / Esc at the question. */
static void
front_checkpoint_cancel(void *arg)
{
	struct front_checkpoint *cp = arg;

	front_cmd_ui_show(cp->ui, 0, "%s cancelled: nothing was changed", cp->pend_redo ? "redo" : "undo");
	front_cmd_ui_done(cp->ui);
}

/* The answer to "undo?": apply, or leave everything as it is. */
static void
front_checkpoint_answer(void *arg, const char *answer)
{
	struct front_checkpoint *cp = arg;
	struct repo_result res = REPO_RESULT_INIT;
	struct buf out = BUF_INIT;
	const char *what = cp->pend_redo ? "redo" : "undo";
	int yes = front_cmd_ui_yes(answer);

	if (yes < 0) {
		front_cmd_ui_ask(cp->ui, cp->pend_redo ? "redo? [y/N]" : "undo? [y/N]", front_checkpoint_answer,
			  front_checkpoint_cancel, cp);
		return;
	}
	if (!yes) {
		front_cmd_ui_show(cp->ui, 0, "%s cancelled: nothing was changed", what);
	} else if (front_checkpoint_apply(cp, cp->pend_redo, cp->pend_n, cp->pend_flags, &res, &out) < 0) {
		front_cmd_ui_show(cp->ui, 1, "%s", out.data);
	} else {
		front_checkpoint_show(&res, what, &out);
		front_cmd_ui_show(cp->ui, 0, "%s", out.data);
	}
	buf_release(&out);
	repo_result_release(&res);
	front_cmd_ui_done(cp->ui);
}

/* Interactive: show what would change (files, line counts) and ask. */
static enum cmd_result
front_checkpoint_ask(struct front_checkpoint *cp, int redo, int n, unsigned flags, struct buf *out)
{
	struct repo_result res = REPO_RESULT_INIT;
	const char *what = redo ? "redo" : "undo";
	size_t i;

	if (front_checkpoint_apply(cp, redo, n, flags | REPO_DRY_RUN, &res, out) < 0) {
		repo_result_release(&res);
		return CMD_ERROR;
	}
	if (!res.nfiles) {
		front_checkpoint_show(&res, what, out);
		repo_result_release(&res);
		return CMD_DONE;
	}
	cp->pend_redo = redo;
	cp->pend_n = n;
	cp->pend_flags = flags;
	front_cmd_ui_show(cp->ui, 0, "/%s would restore %zu file%s:", what, res.nfiles,
		   res.nfiles == 1 ? "" : "s");
	for (i = 0; i < res.nfiles; i++)
		front_cmd_ui_show(cp->ui, 0, "  %c %s  +%d -%d%s", res.files[i].status, res.files[i].path,
			   res.files[i].added, res.files[i].removed,
			   res.files[i].binary ? " (binary)" : "");
	if (res.notes.len)
		front_cmd_ui_show(cp->ui, 0, "%s", res.notes.data);
	front_cmd_ui_ask(cp->ui, redo ? "redo? [y/N]" : "undo? [y/N]", front_checkpoint_answer,
		  front_checkpoint_cancel, cp);
	repo_result_release(&res);
	return CMD_PENDING;
}

/* /undo [N] [--force] [--yes], /redo [--force] [--yes] */
static enum cmd_result
front_checkpoint_cmd_undo(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_checkpoint *cp = (struct front_checkpoint *)self->data;
	struct repo_result res = REPO_RESULT_INIT;
	int redo = strcmp(self->name, "redo") == 0, n, yes;
	unsigned flags;

	(void)ctx;
	if (undo_args(args, &n, &flags, &yes) < 0) {
		buf_addf(out, "/%s: unexpected \"%s\" (%s)", self->name, args, self->args);
		return CMD_ERROR;
	}
	if (cp->ui && cp->ui->interactive && !yes)
		return front_checkpoint_ask(cp, redo, n, flags, out);
	if (front_checkpoint_apply(cp, redo, n, flags, &res, out) < 0) {
		repo_result_release(&res);
		return CMD_ERROR;
	}
	front_checkpoint_show(&res, self->name, out);
	repo_result_release(&res);
	return CMD_DONE;
}

/* /diff: everything the session changed. */
static enum cmd_result
front_checkpoint_cmd_diff(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct front_checkpoint *cp = (struct front_checkpoint *)self->data;
	struct repo_result res = REPO_RESULT_INIT;
	size_t i;

	(void)ctx;
	(void)args;
	if (front_checkpoint_changes(cp, &res) < 0) {
		buf_adds(out, "no changes in this session yet");
		return CMD_DONE;
	}
	buf_add(out, res.diff.data, res.diff.len);
	for (i = 0; i < res.nfiles; i++)
		buf_addf(out, "%c %s +%d -%d\n", res.files[i].status, res.files[i].path,
			 res.files[i].added, res.files[i].removed);
	if (!res.nfiles)
		buf_adds(out, "no changes in this session");
	repo_result_release(&res);
	return CMD_DONE;
}

/* The commands, with the checkpoint as their data. */
void
front_checkpoint_commands(struct front_cmd *reg, struct front_checkpoint *cp)
{
	struct cmd c[3];

	memset(c, 0, sizeof c);
	c[0] = (struct cmd){ "undo", "[N] [--force] [--yes]", "restore the files the last N turns changed",
			     front_checkpoint_cmd_undo, cp };
	c[1] = (struct cmd){ "redo", "[--force] [--yes]", "re-apply what the last /undo restored",
			     front_checkpoint_cmd_undo, cp };
	c[2] = (struct cmd){ "diff", "", "what this session changed (first checkpoint → now)",
			     front_checkpoint_cmd_diff, cp };
	front_cmd_add(reg, &c[0]);
	front_cmd_add(reg, &c[1]);
	front_cmd_add(reg, &c[2]);
}

/* Session diff, when there is a session with checkpoints. */
int
front_checkpoint_changes(struct front_checkpoint *cp, struct repo_result *res)
{
	struct repo *r = front_checkpoint_repo(cp, NULL);

	if (!r || repo_turns(r) == 0)
		return -1;
	return repo_session_diff(r, res, NULL);
}

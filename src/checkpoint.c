/*
 * checkpoint: lazy repo + agent hooks + undo commands (see checkpoint.h).
 * Command handlers find the checkpoint through cmd.data, so the front
 * end's own context pointer stays whatever it is.
 */
#include "checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "repo.h"
#include "tool.h"
#include "xmalloc.h"

/* Nothing open yet. */
void
checkpoint_init(struct checkpoint *cp, const char *root, const char *state_dir,
		struct journal *j, struct tool_env *env)
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
checkpoint_release(struct checkpoint *cp)
{
	if (cp->env)
		cp->env->repo = NULL;
	repo_close(cp->repo);
	free(cp->root);
	free(cp->state_dir);
	free(cp->session);
	memset(cp, 0, sizeof *cp);
}

/* Open under the journal's session id (the file exists once a message was saved). */
struct repo *
checkpoint_repo(struct checkpoint *cp, struct err *e)
{
	const char *id = cp->journal ? journal_id(cp->journal) : "";
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

/* Snapshot the working tree before the turn's first change. */
void
checkpoint_before_change(void *arg, struct buf *note)
{
	struct checkpoint *cp = arg;
	struct err e = ERR_INIT;
	struct buf notes = BUF_INIT;
	struct repo *r = checkpoint_repo(cp, &e);

	if (!r || repo_checkpoint(r, &notes, &e) < 0)
		buf_addf(note, "this turn cannot be undone: %s", e.msg);
	else if (notes.len) {
		buf_rtrim(&notes);
		buf_add(note, notes.data, notes.len);
	}
	buf_release(&notes);
}

/* Close the turn so later hand edits are told apart from the agent's. */
void
checkpoint_turn_end(void *arg)
{
	struct checkpoint *cp = arg;

	if (cp->repo)
		repo_turn_end(cp->repo, NULL);
}

/* Show a result: the diff, then what was left alone. */
static void
checkpoint_show(const struct repo_result *res, const char *what, struct buf *out)
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

/* /undo [N] [--force] */
static enum cmd_result
checkpoint_cmd_undo(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct checkpoint *cp = (struct checkpoint *)self->data;
	struct repo_result res = REPO_RESULT_INIT;
	struct err e = ERR_INIT;
	struct repo *r = checkpoint_repo(cp, &e);
	unsigned flags = strstr(args, "--force") ? REPO_FORCE : 0;
	int n = atoi(args) > 0 ? atoi(args) : 1, rc;

	(void)ctx;
	if (!r) {
		buf_addf(out, "nothing to undo (%s)", e.msg);
		return CMD_ERROR;
	}
	rc = strcmp(self->name, "redo") == 0 ? repo_redo(r, flags, &res, &e) :
					       repo_undo(r, n, flags, &res, &e);
	if (rc < 0) {
		buf_addf(out, "%s: %s", self->name, e.msg);
		repo_result_release(&res);
		return CMD_ERROR;
	}
	checkpoint_show(&res, self->name, out);
	repo_result_release(&res);
	return CMD_DONE;
}

/* /diff: everything the session changed. */
static enum cmd_result
checkpoint_cmd_diff(void *ctx, const struct cmd *self, const char *args, struct buf *out)
{
	struct checkpoint *cp = (struct checkpoint *)self->data;
	struct repo_result res = REPO_RESULT_INIT;
	size_t i;

	(void)ctx;
	(void)args;
	if (checkpoint_changes(cp, &res) < 0) {
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
checkpoint_commands(struct cmdreg *reg, struct checkpoint *cp)
{
	struct cmd c[3];

	memset(c, 0, sizeof c);
	c[0] = (struct cmd){ "undo", "[N] [--force]", "restore the files the last N turns changed",
			     checkpoint_cmd_undo, cp };
	c[1] = (struct cmd){ "redo", "[--force]", "re-apply what the last /undo restored",
			     checkpoint_cmd_undo, cp };
	c[2] = (struct cmd){ "diff", "", "what this session changed (first checkpoint → now)",
			     checkpoint_cmd_diff, cp };
	cmdreg_add(reg, &c[0]);
	cmdreg_add(reg, &c[1]);
	cmdreg_add(reg, &c[2]);
}

/* Session diff, when there is a session with checkpoints. */
int
checkpoint_changes(struct checkpoint *cp, struct repo_result *res)
{
	struct repo *r = checkpoint_repo(cp, NULL);

	if (!r || repo_turns(r) == 0)
		return -1;
	return repo_session_diff(r, res, NULL);
}

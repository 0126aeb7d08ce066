/*
 * front/checkpoint: lazy repo + agent hooks + undo commands (see front/checkpoint.h).
 * Command handlers find the checkpoint through cmd.data, so the front
 * end's own context pointer stays whatever it is.
 */
#include "front/checkpoint.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "front/cmd_ui.h"
#include "io/work.h"
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

/*
 * A snapshot on the worker thread: the turn's checkpoint (its agent waits)
 * or the turn's end.  While jobs are outstanding only the worker touches
 * the repository; the loop thread waits for them (front_checkpoint_wait) before
 * it uses the repository itself (commands, release).
 */
struct checkpoint_job {
	struct front_checkpoint *cp; /* NULL once cp was released */
	struct agent *a;             /* the agent waiting (NULL: none, or cancelled) */
	struct repo *r;
	int end;                     /* repo_turn_end instead of repo_checkpoint */
	int rc;
	struct err e;
	struct buf notes;
	struct checkpoint_job *next; /* cp's outstanding jobs */
};

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

/* On the worker: take the snapshot. */
static void
checkpoint_job_run(void *arg)
{
	struct checkpoint_job *j = arg;

	j->rc = j->end ? repo_turn_end(j->r, &j->e) : repo_checkpoint(j->r, &j->notes, &j->e);
}

/* On the loop: unlink the job, let the agent go on. */
static void
checkpoint_job_done(void *arg, int ran)
{
	struct checkpoint_job *j = arg, **pp;
	struct buf raw = BUF_INIT, note = BUF_INIT;

	for (pp = j->cp ? &j->cp->jobs : NULL; pp && *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	if (j->cp && j->cp->waiting == j)
		j->cp->waiting = NULL;
	if (!ran)
		buf_adds(&raw, "this turn cannot be undone: hearth stopped before the checkpoint");
	else if (j->rc < 0)
		buf_addf(&raw, "this turn cannot be undone: %s", j->e.msg);
	else if (j->notes.len) {
		buf_rtrim(&j->notes);
		buf_add(&raw, j->notes.data, j->notes.len);
	}
	if (j->cp) /* each cause once a session, not every turn */
		front_checkpoint_once(j->cp, raw.data ? raw.data : "", &note);
	else
		buf_add(&note, raw.data ? raw.data : "", raw.len);
	buf_release(&raw);
	if (j->a)
		agent_change_ready(j->a, note.data ? note.data : "");
	buf_release(&note);
	buf_release(&j->notes);
	free(j);
}

/* Queue a snapshot job (run in place without a loop or when the worker cannot start). */
static void
checkpoint_submit(struct front_checkpoint *cp, struct agent *a, int end)
{
	struct checkpoint_job *j = xcalloc(1, sizeof *j);
	struct loop *l = cp->env ? cp->env->loop : NULL;
	struct err e = ERR_INIT;

	j->cp = cp;
	j->a = a;
	j->r = cp->repo;
	j->end = end;
	j->next = cp->jobs;
	cp->jobs = j;
	if (a)
		cp->waiting = j;
	if (work_submit(l, checkpoint_job_run, checkpoint_job_done, j, &e) < 0 &&
	    work_submit(NULL, checkpoint_job_run, checkpoint_job_done, j, &e) < 0)
		checkpoint_job_done(j, 0); /* not reached: a NULL loop never fails */
}

/* Nothing for the barrier to do. */
static void
checkpoint_nothing(void *arg)
{
	(void)arg;
}

/* A barrier's done: nothing. */
static void
checkpoint_nothing_done(void *arg, int ran)
{
	(void)arg, (void)ran;
}

/* Wait until no snapshot job runs or is queued (their done() comes later, from the loop). */
void
front_checkpoint_wait(struct front_checkpoint *cp)
{
	struct err e = ERR_INIT;

	if (cp->jobs && work_submit(NULL, checkpoint_nothing, checkpoint_nothing_done, NULL, &e) < 0)
		return;
}

static volatile sig_atomic_t settle_skip; /* Ctrl-C during front_checkpoint_settle */

static void
settle_sigint(int signo)
{
	(void)signo;
	settle_skip = 1;
}

/* Quitting: a bounded, shown wait for the snapshots (see front/checkpoint.h). */
int
front_checkpoint_settle(struct front_checkpoint *cp)
{
	struct sigaction sa, old;
	int waited = FRONT_CHECKPOINT_QUIET_MS, idle;
	struct checkpoint_job *j;

	if (!cp->jobs || work_wait_idle(FRONT_CHECKPOINT_QUIET_MS))
		return 1;
	fprintf(stderr, "hearth: saving the last turn's undo snapshot (at most %d s; Ctrl-C skips "
		"it and /undo takes it on the next start)\n", FRONT_CHECKPOINT_QUIT_MS / 1000);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = settle_sigint;
	sigemptyset(&sa.sa_mask);
	settle_skip = 0;
	sigaction(SIGINT, &sa, &old);
	while (!(idle = work_wait_idle(50)) && !settle_skip && (waited += 50) < FRONT_CHECKPOINT_QUIT_MS)
		;
	sigaction(SIGINT, &old, NULL);
	if (idle)
		return 1;
	repo_abandon(cp->repo);
	fprintf(stderr, "hearth: the undo snapshot was not finished; /undo takes it on the next start\n");
	/* what only this thread uses goes now; the repository and the jobs stay the worker's */
	for (j = cp->jobs; j; j = j->next)
		j->cp = NULL, j->a = NULL;
	if (cp->env)
		cp->env->repo = NULL;
	free(cp->root);
	free(cp->state_dir);
	free(cp->session);
	buf_release(&cp->said);
	memset(cp, 0, sizeof *cp);
	return 0;
}

/* Close the repository and detach it from the tools. */
void
front_checkpoint_release(struct front_checkpoint *cp)
{
	struct checkpoint_job *j;

	front_checkpoint_wait(cp);
	for (j = cp->jobs; j; j = j->next) { /* ran; their done() comes later */
		j->cp = NULL;
		if (cp->waiting == j)
			j->a = NULL;
	}
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
static struct repo *
checkpoint_open(struct front_checkpoint *cp, struct err *e)
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

/* The repository, after the snapshots on the worker (see front/checkpoint.h). */
struct repo *
front_checkpoint_repo(struct front_checkpoint *cp, struct err *e)
{
	front_checkpoint_wait(cp);
	return checkpoint_open(cp, e);
}

/* Snapshot the working tree before the turn's first change, on the worker. */
void
front_checkpoint_before_change(void *arg, struct agent *a)
{
	struct front_checkpoint *cp = arg;
	struct err e = ERR_INIT;
	struct buf note = BUF_INIT;

	if (!checkpoint_open(cp, &e)) {
		struct buf why = BUF_INIT;

		buf_addf(&why, "this turn cannot be undone: %s", e.msg);
		front_checkpoint_once(cp, why.data, &note);
		buf_release(&why);
		agent_change_ready(a, note.data ? note.data : "");
		buf_release(&note);
		return;
	}
	checkpoint_submit(cp, a, 0);
}

/* The agent stopped waiting: its answer is dropped (the snapshot still completes). */
void
front_checkpoint_change_cancel(void *arg)
{
	struct front_checkpoint *cp = arg;

	if (cp->waiting)
		cp->waiting->a = NULL;
	cp->waiting = NULL;
}

/* Close the turn so later hand edits are told apart from the agent's (on the worker). */
void
front_checkpoint_turn_end(void *arg)
{
	struct front_checkpoint *cp = arg;

	if (cp->repo)
		checkpoint_submit(cp, NULL, 1);
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

/*
 * front/checkpoint: the session's undo history, between the agent and src/repo.
 *
 * Opens the repository lazily, under the session's id (the journal's), so
 * a run that changes nothing never touches git.  Before the first change
 * of each turn it takes a checkpoint (agent hook), registers it as the
 * tools' repo so edit/write note every file they change, and ends the turn
 * afterwards.  It also provides /undo [N], /redo and /diff for every front
 * end through the command registry.  A checkpoint that fails never stops
 * the turn: the note says the turn cannot be undone and why.
 *
 * With an interactive front_cmd_ui (`ui`, set by the front end), /undo and /redo
 * first show what they would restore (files and line counts) and ask;
 * --yes (-y) skips the question.  Without one (print mode) they apply at
 * once, as `hearth -c -p /undo` should.
 */
#ifndef HEARTH_FRONT_CHECKPOINT_H
#define HEARTH_FRONT_CHECKPOINT_H

#include "base/buf.h"
#include "front/cmd.h"
#include "base/err.h"

struct session_journal;
struct repo;
struct repo_result;
struct tool_env;

struct front_cmd_ui;
struct agent;
struct checkpoint_job;

struct front_checkpoint {
	char *root;
	char *state_dir;        /* <state>/checkpoints */
	struct session_journal *journal;
	struct tool_env *env;   /* env->repo is set once the repo is open */
	struct repo *repo;
	char *session;
	struct front_cmd_ui *ui;       /* interactive front end (NULL: apply without asking) */
	int pend_redo, pend_n;  /* the /undo or /redo waiting for its answer */
	unsigned pend_flags;
	struct buf said;        /* before_change's note lines already told (one a line): each once */
	struct checkpoint_job *jobs;    /* snapshots queued on the worker (private) */
	struct checkpoint_job *waiting; /* the one the agent waits for, or NULL */
};

void front_checkpoint_init(struct front_checkpoint *cp, const char *root, const char *state_dir,
		     struct session_journal *j, struct tool_env *env);
void front_checkpoint_release(struct front_checkpoint *cp);
/*
 * The repository of this session (opened on first use); NULL + e without a
 * session yet.  Waits for the snapshots still running on the worker.
 */
struct repo *front_checkpoint_repo(struct front_checkpoint *cp, struct err *e);
/*
 * agent_hooks.before_change / change_cancel / turn_end (arg is the
 * checkpoint).  The snapshots run on the worker thread (io/work.h; in
 * place without a loop): the turn's checkpoint, then its end; the agent's
 * call waits for the checkpoint (agent_change_ready), nothing waits for
 * the end.  While they are queued only the worker touches the repository.
 * The note the agent gets holds what could not be checkpointed, each line
 * once per session ("x: not checkpointed" is not repeated every turn).
 */
void front_checkpoint_before_change(void *cp, struct agent *a);
void front_checkpoint_change_cancel(void *cp);
void front_checkpoint_turn_end(void *cp);
/* Wait for the snapshots queued on the worker to be taken (before work_shutdown drops them). */
void front_checkpoint_wait(struct front_checkpoint *cp);
/*
 * Quitting: wait for the snapshots still queued or running, at most
 * FRONT_CHECKPOINT_QUIT_MS, saying so on stderr after
 * FRONT_CHECKPOINT_QUIET_MS (Ctrl-C skips the wait).  1 when they were
 * taken (or none ran); 0 when given up: the repository is abandoned
 * (repo_abandon: the snapshot writes nothing, the next start's /undo takes
 * the turn's end), cp is emptied of what only the loop thread used (its
 * strings; the repository and the queued jobs stay the worker's until the
 * process exits, reachable from its queue), and the caller must not wait
 * for the worker nor call front_checkpoint_release (the process is about to
 * exit).
 */
#define FRONT_CHECKPOINT_QUIT_MS 3000
#define FRONT_CHECKPOINT_QUIET_MS 150
int front_checkpoint_settle(struct front_checkpoint *cp);
/* Register /undo, /redo and /diff (cp must outlive reg). */
void front_checkpoint_commands(struct front_cmd *reg, struct front_checkpoint *cp);
/* Files changed since the session's first checkpoint; 0, or -1 when nothing was checkpointed. */
int front_checkpoint_changes(struct front_checkpoint *cp, struct repo_result *res);

#endif

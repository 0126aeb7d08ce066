/*
 * front/cmd_commit: `/commit [--yes] [message]` — commit exactly the files this
 * session's agent changed (from the checkpoint record; never `git add -A`)
 * with a message the model drafts, after the user confirms.
 *
 * Steps: plan (repo_session_files → repo_commit_plan; files changed only by
 * hand are left out and listed), then the message — the argument as is,
 * or a draft: one request to the current provider with the session's own
 * system prompt, tools and messages plus one user message holding the
 * staged diff (so the server reuses its cached prefix and the model knows
 * why the files changed; the message is removed from the conv right
 * after the request is built), tidied (repo_commit_tidy_message).  Then the
 * question — commit? [y]es / [e]dit / [N]o — in interactive sessions
 * unless --yes; print mode (no interactive front_cmd_ui) refuses without --yes,
 * before any request.  Last, repo_commit_commit with the user's identity.
 *
 * The model is reached through `want_model`, which calls
 * front_cmd_commit_model_ready now (an interactive session: the agent's
 * provider and conv) or later (print mode: after discovery).  Everything
 * borrowed must outlive the command; front_cmd_commit_release cancels a draft in
 * flight.
 */
#ifndef HEARTH_FRONT_CMD_COMMIT_H
#define HEARTH_FRONT_CMD_COMMIT_H

#include <stddef.h>

#include "base/buf.h"
#include "front/cmd.h"
#include "repo/commit.h"

struct front_checkpoint;
struct front_cmd_ui;
struct conv;
struct provider;
struct tool;

struct front_cmd_commit {
	/* set by the owner */
	struct front_checkpoint *cp;
	struct front_cmd_ui *ui;
	int yes;                              /* --yes given on the command line (print mode) */
	void (*want_model)(void *arg, struct front_cmd_commit *c);
	int (*busy)(void *arg);               /* a turn is running (may be NULL) */
	void *arg;
	const struct tool *const *tools;
	size_t ntools;
	/* private */
	struct repo_commit_plan plan;
	int have_plan, pending, drafting, failed, yes_now;
	struct provider *prov;
	struct buf text, msg;
};

/* Zero c (the owner then fills the fields above). */
void front_cmd_commit_init(struct front_cmd_commit *c);
/* Cancel a draft in flight and free c's state. */
void front_cmd_commit_release(struct front_cmd_commit *c);
/* Register /commit with c as its data (c must outlive reg). */
void front_cmd_commit_register(struct front_cmd *reg, struct front_cmd_commit *c);
/*
 * The model to draft with: p and conv (the session's system prompt and
 * messages; a message is appended and removed again), or p NULL and why
 * in msg.
 */
void front_cmd_commit_model_ready(struct front_cmd_commit *c, struct provider *p, struct conv *conv,
			   const char *msg);

#endif

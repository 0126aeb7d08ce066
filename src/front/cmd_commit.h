/*
 * commitcmd: `/commit [--yes] [message]` — commit exactly the files this
 * session's agent changed (from the checkpoint record; never `git add -A`)
 * with a message the model drafts, after the user confirms.
 *
 * Steps: plan (repo_session_files → gitcommit_plan; files changed only by
 * hand are left out and listed), then the message — the argument as is,
 * or a draft: one request to the current provider with the session's own
 * system prompt, tools and messages plus one user message holding the
 * staged diff (so the server reuses its cached prefix and the model knows
 * why the files changed; the message is removed from the conv right
 * after the request is built), tidied (gitcommit_tidy_message).  Then the
 * question — commit? [y]es / [e]dit / [N]o — in interactive sessions
 * unless --yes; print mode (no interactive cmdui) refuses without --yes,
 * before any request.  Last, gitcommit_commit with the user's identity.
 *
 * The model is reached through `want_model`, which calls
 * commitcmd_model_ready now (an interactive session: the agent's
 * provider and conv) or later (print mode: after discovery).  Everything
 * borrowed must outlive the command; commitcmd_release cancels a draft in
 * flight.
 */
#ifndef HEARTH_COMMITCMD_H
#define HEARTH_COMMITCMD_H

#include <stddef.h>

#include "buf.h"
#include "cmd.h"
#include "gitcommit.h"

struct checkpoint;
struct cmdui;
struct conv;
struct provider;
struct tool;

struct commitcmd {
	/* set by the owner */
	struct checkpoint *cp;
	struct cmdui *ui;
	int yes;                              /* --yes given on the command line (print mode) */
	void (*want_model)(void *arg, struct commitcmd *c);
	int (*busy)(void *arg);               /* a turn is running (may be NULL) */
	void *arg;
	const struct tool *const *tools;
	size_t ntools;
	/* private */
	struct gitcommit_plan plan;
	int have_plan, pending, drafting, failed, yes_now;
	struct provider *prov;
	struct buf text, msg;
};

/* Zero c (the owner then fills the fields above). */
void commitcmd_init(struct commitcmd *c);
/* Cancel a draft in flight and free c's state. */
void commitcmd_release(struct commitcmd *c);
/* Register /commit with c as its data (c must outlive reg). */
void commitcmd_register(struct cmdreg *reg, struct commitcmd *c);
/*
 * The model to draft with: p and conv (the session's system prompt and
 * messages; a message is appended and removed again), or p NULL and why
 * in msg.
 */
void commitcmd_model_ready(struct commitcmd *c, struct provider *p, struct conv *conv,
			   const char *msg);

#endif

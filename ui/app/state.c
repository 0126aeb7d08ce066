/*
 * ui/app/state: the helpers every part of the full-screen session uses (see
 * ui/app/state.h for the shared struct and its invariants).
 */
#include "ui/app/state.h"

#include <stdio.h>
#include <string.h>

#include "repo/info.h"
#include "io/loop.h"
#include "ui/view/transcript.h"

/* Add a notice line to the transcript. */
void
app_state_notice(struct app *a, uint16_t role, const char *s)
{
	transcript_add_notice(&a->tv, role, s, strlen(s));
	a->dirty = 1;
}

/* Leave the session at the end of this loop pass. */
void
app_state_quit(struct app *a)
{
	a->state = AS_QUIT;
	loop_stop(a->d->loop);
}

/* Git branch and changed-file count for the status line. */
void
app_state_git(struct app *a)
{
	struct repo_info gi = REPO_INFO_INIT;
	struct err e = ERR_INIT;

	repo_info_read(a->d->env->root, &gi, &e);
	snprintf(a->st.branch, sizeof a->st.branch, "%s", gi.branch ? gi.branch : "");
	a->st.dirty = (int)(gi.modified + gi.added + gi.deleted + gi.renamed + gi.untracked);
	repo_info_release(&gi);
}

/* The session prompt and the git summary, once (see ui/app/state.h). */
void
app_state_boot(struct app *a)
{
	struct buf w = BUF_INIT;

	if (a->booted)
		return;
	a->booted = 1;
	if (a->d->prompt)
		conv_set_system(agent_conv(a->turn.agent), a->d->prompt(a->d->prompt_arg, &w));
	buf_rtrim(&w);
	if (w.len)
		app_state_notice(a, THEME_WARNING, w.data);
	buf_release(&w);
	app_state_git(a);
	a->dirty = 1;
}

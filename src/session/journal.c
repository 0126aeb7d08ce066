/* session/journal: lazy session writer for a run (see session/journal.h). */
#include "session/journal.h"

#include <stdlib.h>
#include <string.h>

#include "session/session.h"
#include "session/list.h"
#include "base/xmalloc.h"

/* Nothing open yet. */
void
session_journal_init(struct session_journal *j, const char *root, const char *server)
{
	memset(j, 0, sizeof *j);
	j->root = xstrdup(root);
	j->server = xstrdup(server);
	buf_init(&j->warnings, 0);
}

/* Close the file and free. */
void
session_journal_release(struct session_journal *j)
{
	session_close(j->s);
	while (j->nbefore)
		free(j->before[--j->nbefore]);
	free(j->before);
	free(j->root);
	free(j->server);
	free(j->model);
	buf_release(&j->warnings);
	memset(j, 0, sizeof *j);
}

/* Remember the model for the metadata. */
void
session_journal_set_model(struct session_journal *j, const char *model)
{
	free(j->model);
	j->model = xstrdup(model);
}

/* Move the loaded messages into `into` (their entry ids are not needed here). */
static void
session_journal_take(struct session_loaded *l, struct conv *into)
{
	size_t i;

	for (i = 0; i < l->conv.nmsgs; i++)
		free(l->ids[i]);
	free(l->ids);
	l->ids = NULL;
	conv_move_msgs(into, &l->conv);
}

/* Load an earlier session and keep appending to it. */
int
session_journal_resume(struct session_journal *j, const char *which, struct conv *into, struct err *e)
{
	struct buf path = BUF_INIT;
	struct session_loaded loaded;
	int rc;

	memset(&loaded, 0, sizeof loaded);
	rc = which ? session_list_resolve(j->root, which, &path, e) : session_list_latest(j->root, &path, e);
	if (rc == 0) {
		j->s = session_resume(path.data, &loaded, &j->warnings, e);
		if (!j->s)
			rc = -1;
		else {
			j->resumed_in = loaded.tokens_in;
			j->resumed_out = loaded.tokens_out;
			session_journal_take(&loaded, into);
		}
		session_loaded_release(&loaded);
	}
	buf_release(&path);
	return rc;
}

/* Append one message, creating the session with the first one. */
void
session_journal_commit(void *journal, const struct conv_msg *m)
{
	struct session_journal *j = journal;
	struct err e = ERR_INIT;

	if (!j->s && !j->warned) {
		struct session_meta meta = { 0 };

		meta.cwd = j->root;
		meta.server = j->server;
		meta.model = j->model;
		j->s = session_create(j->root, &meta, &e);
	}
	if (j->s) {
		const char *leaf = session_leaf(j->s);

		if (j->nbefore == j->abefore) {
			j->abefore = j->abefore ? 2 * j->abefore : 16;
			j->before = xrealloc(j->before, j->abefore * sizeof *j->before);
		}
		j->before[j->nbefore++] = leaf ? xstrdup(leaf) : NULL;
	}
	if ((!j->s || session_append_msg(j->s, m, &e) < 0) && !j->warned++)
		buf_addf(&j->warnings, "the session could not be saved (%s); the run goes on\n", e.msg);
}

/* Append a turn's usage to the open session. */
void
session_journal_usage(struct session_journal *j, long tokens_in, long tokens_out)
{
	struct err e = ERR_INIT;

	if (!j->s || (!tokens_in && !tokens_out))
		return;
	if (session_append_usage(j->s, tokens_in, tokens_out, &e) < 0 && !j->warned++)
		buf_addf(&j->warnings, "the session could not be saved (%s); the run goes on\n", e.msg);
}

/* Leave the last n committed messages out of the active branch. */
void
session_journal_rewind(void *journal, size_t n, const char *why)
{
	struct session_journal *j = journal;
	struct err e = ERR_INIT;

	if (!j->s || !n || n > j->nbefore)
		return;
	session_set_leaf(j->s, j->before[j->nbefore - n]);
	while (n--)
		free(j->before[--j->nbefore]);
	if (session_append_notice(j->s, why, &e) < 0 && !j->warned++)
		buf_addf(&j->warnings, "the session could not be saved (%s); the run goes on\n", e.msg);
}

/* Id of the open session. */
const char *
session_journal_id(const struct session_journal *j)
{
	return j->s ? session_id(j->s) : "";
}

/* Start over with a new session file at the next message. */
void
session_journal_restart(struct session_journal *j)
{
	session_close(j->s);
	j->s = NULL;
	j->warned = 0;
}

/* Switch to another open session (/fork). */
void
session_journal_adopt(struct session_journal *j, struct session *s)
{
	session_journal_restart(j);
	j->s = s;
}

/* Path of the open session file. */
const char *
session_journal_path(const struct session_journal *j)
{
	return j->s ? session_path(j->s) : "";
}

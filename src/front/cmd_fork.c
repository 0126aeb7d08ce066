/*
 * front/cmd_fork: /fork (see front/cmd_fork.h).
 *
 * The session file is the truth: the user messages are read from the
 * active branch of the journal's file (session_load), so the entry ids
 * are the ones session_list_fork needs.  A user message counts when it has
 * text (tool results travel in user messages too and are not listed).
 */
#include "front/cmd_fork.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "llm/conv.h"
#include "session/journal.h"
#include "session/session.h"
#include "session/list.h"

#define FRONT_CMD_FORK_SHOW 70 /* characters of each message in the list */

/* One list row: "  N  first line of the text". */
static void
list_row(struct buf *out, size_t n, const struct conv_msg *m)
{
	struct buf t = BUF_INIT;
	size_t len;

	conv_msg_text(m, &t);
	len = strcspn(t.data, "\n");
	if (len > FRONT_CMD_FORK_SHOW) {
		len = FRONT_CMD_FORK_SHOW;
		while (len && ((unsigned char)t.data[len] & 0xC0) == 0x80)
			len--;
	}
	buf_addf(out, "%3zu  %.*s%s\n", n, (int)len, t.data, len < t.len ? "…" : "");
	buf_release(&t);
}

/* The index in l->conv of typed message n (1-based); -1 when there is none. */
static long
find_typed(const struct session_loaded *l, size_t n, size_t *count)
{
	size_t i, k = 0;
	long at = -1;

	for (i = 0; i < l->conv.nmsgs; i++)
		if (conv_msg_is_query(&l->conv.msgs[i]) && ++k == n)
			at = (long)i;
	*count = k;
	return at;
}

/* The agent continues with the forked session's messages. */
static int
adopt(struct agent *a, struct session_journal *j, struct session *s, struct err *e)
{
	struct session_loaded l;
	struct conv *c = agent_conv(a);
	size_t i;

	memset(&l, 0, sizeof l);
	if (session_load(session_path(s), &l, NULL, e) < 0) {
		session_close(s);
		return -1;
	}
	session_journal_adopt(j, s);
	while (c->nmsgs)
		conv_pop(c);
	for (i = 0; i < l.conv.nmsgs; i++) { /* the ids go with their messages' count */
		free(l.ids[i]);
		l.ids[i] = NULL;
	}
	conv_move_msgs(c, &l.conv);
	agent_mark_committed(a);
	session_loaded_release(&l);
	return 0;
}

/* Fork before typed message n. */
static enum cmd_result
fork_at(struct agent *a, struct session_journal *j, const char *root, const struct session_loaded *l,
	long at, size_t n, struct buf *out, struct buf *text)
{
	struct err e = ERR_INIT;
	char old[64];
	struct session *s;

	snprintf(old, sizeof old, "%s", session_journal_id(j));
	s = session_list_fork(session_journal_path(j), l->ids[at], 0, root, &e);
	if (!s || adopt(a, j, s, &e) < 0) {
		buf_addf(out, "/fork: %s", e.msg);
		return CMD_ERROR;
	}
	conv_msg_text(&l->conv.msgs[at], text);
	buf_addf(out, "forked session %s from %s before message %zu (%ld message%s kept; %s is unchanged)",
		 session_journal_id(j), old, n, at, at == 1 ? "" : "s", old);
	return CMD_DONE;
}

/* /fork [N]. */
enum cmd_result
front_cmd_fork_run(struct agent *a, struct session_journal *j, const char *root, const char *args,
	    struct buf *out, struct buf *text)
{
	struct session_loaded l;
	struct err e = ERR_INIT;
	enum cmd_result rc = CMD_DONE;
	size_t count, i, k = 0;
	char *end;
	long at;
	unsigned long n;

	if (agent_busy(a)) {
		buf_adds(out, "/fork: a turn is running; stop it first (Esc or Ctrl-C)");
		return CMD_ERROR;
	}
	if (!j || !*session_journal_path(j)) {
		buf_adds(out, "/fork: nothing to fork yet; send a message first");
		return CMD_ERROR;
	}
	memset(&l, 0, sizeof l);
	if (session_load(session_journal_path(j), &l, NULL, &e) < 0) {
		buf_addf(out, "/fork: %s", e.msg);
		return CMD_ERROR;
	}
	while (*args == ' ')
		args++;
	n = strtoul(args, &end, 10);
	while (*end == ' ' || *end == '\n')
		end++;
	at = find_typed(&l, n, &count);
	if (!*args) {
		for (i = 0; i < l.conv.nmsgs; i++)
			if (conv_msg_is_query(&l.conv.msgs[i]))
				list_row(out, ++k, &l.conv.msgs[i]);
		buf_adds(out, k ? "/fork N starts a new session before message N (this one is kept)"
				: "no messages to fork from yet");
	} else if (*end || !n || at < 0) {
		buf_addf(out, "/fork: no message \"%s\"; give a number from 1 to %zu (/fork lists them)",
			 args, count);
		rc = CMD_ERROR;
	} else {
		rc = fork_at(a, j, root, &l, at, (size_t)n, out, text);
	}
	session_loaded_release(&l);
	return rc;
}

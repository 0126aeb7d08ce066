/*
 * route/failures: failure signals from the conv (see route/failures.h).  Results are
 * matched to their calls by id; a call without a result yet (the step in
 * flight) counts as a call but not as a test run or a change.
 */
#include "route/failures.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "llm/tool.h"

/* The result block answering call id, in the messages after index mi. */
static const struct conv_block *
rs_result(const struct conv *c, size_t mi, const char *id)
{
	size_t i, j;

	for (i = mi + 1; id && i < c->nmsgs; i++)
		for (j = 0; j < c->msgs[i].nblocks; j++) {
			const struct conv_block *b = &c->msgs[i].blocks[j];

			if (b->kind == CONV_TOOL_RESULT && b->id && !strcmp(b->id, id))
				return b;
		}
	return NULL;
}

/* Whether a bash result says the command exited 0. */
static int
rs_passed(const char *out)
{
	const char *k = NULL, *p = out;

	while (p && (p = strstr(p, "exit code: ")) != NULL)
		k = p++;
	return k && k[11] == '0' && (k[12] == '\0' || k[12] == '\n');
}

/* Whether an earlier test run of cmd exists since the last change (index of it or -1). */
static long
rs_last_run(const struct route_failures *s, const char *cmd)
{
	size_t i;

	for (i = s->ntests; i-- > 0;)
		if (!strcmp(s->tests[i].command, cmd))
			return (long)i;
	return -1;
}

/* Drop the calls recorded so far (the repeat window starts over). */
static void
rs_forget_calls(struct route_failures *s)
{
	size_t i;

	for (i = 0; i < s->ncalls; i++) {
		free((char *)s->calls[i].name);
		free((char *)s->calls[i].args);
	}
	s->ncalls = 0;
}

/* Record one call (and its test run or change). */
static void
rs_call(struct route_failures *s, const struct route_policy *p, const struct conv_block *call,
	const struct conv_block *res, int *edited_since)
{
	struct buf canon = BUF_INIT;
	cJSON *args = cJSON_Parse(call->text ? call->text : "");
	const struct tool *t = call->name ? tool_find(call->name) : NULL;
	const char *cmd = t ? tool_command(t, args) : NULL;

	route_canon_args(call->text ? call->text : "", &canon);
	if (s->ncalls == s->acalls) {
		s->acalls = s->acalls ? s->acalls * 2 : 8;
		s->calls = xrealloc(s->calls, s->acalls * sizeof *s->calls);
	}
	s->calls[s->ncalls].name = xstrdup(call->name ? call->name : "");
	s->calls[s->ncalls++].args = buf_detach(&canon, NULL);
	if (res && !res->is_error && t && (t->flags & TOOL_EDITS)) {
		s->files_changed = 1;
		*edited_since = 1;
		rs_forget_calls(s); /* progress: a call repeated across a change is no loop */
	}
	if (res && cmd &&
	    route_is_test_command(p, cmd)) {
		long prev = rs_last_run(s, cmd);

		if (s->ntests == s->atests) {
			s->atests = s->atests ? s->atests * 2 : 8;
			s->tests = xrealloc(s->tests, s->atests * sizeof *s->tests);
		}
		s->tests[s->ntests].command = xstrdup(cmd);
		s->tests[s->ntests].passed = !res->is_error && rs_passed(res->text);
		s->tests[s->ntests++].after_edit = prev >= 0 && *edited_since;
		*edited_since = 0;
	}
	cJSON_Delete(args);
}

/* Walk the messages from `from`. */
void
route_failures_scan(struct route_failures *s, const struct route_policy *p, const struct conv *c,
	      size_t from)
{
	size_t i, j;
	int edited_since = 0;

	route_failures_release(s);
	for (i = from; i < c->nmsgs; i++) {
		if (c->msgs[i].role != CONV_ASSISTANT)
			continue;
		for (j = 0; j < c->msgs[i].nblocks; j++) {
			const struct conv_block *b = &c->msgs[i].blocks[j];

			if (b->kind == CONV_TOOL_CALL)
				rs_call(s, p, b, rs_result(c, i, b->id), &edited_since);
		}
	}
}

/* Free. */
void
route_failures_release(struct route_failures *s)
{
	size_t i;

	rs_forget_calls(s);
	for (i = 0; i < s->ntests; i++)
		free((char *)s->tests[i].command);
	free(s->calls);
	free(s->tests);
	memset(s, 0, sizeof *s);
}

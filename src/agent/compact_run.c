/*
 * agent/compact_run: compaction before a turn and /compact (private part of the
 * agent, see agent/agent-int.h).
 *
 * Before a turn's text is added, the conversation is summarised when
 * /compact asked for it or when the next request would not fit the
 * context; the turn's text waits in compact_text and is sent once the
 * summary request ended (or the /compact turn just ends).
 */
#include "agent/agent-int.h"

#include <stdlib.h>
#include <string.h>

#include "agent/compact.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "llm/toolset.h"
#include "base/xmalloc.h"

/* Compaction ended: go on with the turn's text, or end the /compact turn. */
static void
agent_compacted(void *arg, int rc, const char *msg)
{
	struct agent *a = arg;
	char *text = a->compact_text;

	a->compacting = NULL;
	a->compact_text = NULL;
	agent_notice(a, msg);
	if (rc == 0) {
		agent_mark_committed(a); /* the session file keeps the full history */
		buf_reset(&a->planned);
		buf_adds(&a->planned, msg);
	}
	if (text && *text)
		agent_begin_turn(a, text);
	else
		agent_end(a, rc == 0 ? AGENT_END_OK : AGENT_END_ERROR, rc == 0 ? NULL : msg);
	free(text);
}

/* Before a turn: compact when asked to or when the next request would not fit; 1 if started. */
int
agent_compact_first(struct agent *a, const char *text)
{
	const struct llm_timings *t = &a->stats.last_timings;
	long n_ctx = a->prov->n_ctx ? a->prov->n_ctx(a->prov->self) : 0;
	long used = t->cache_n + t->prompt_n + t->predicted_n + (long)strlen(text) / 3 + 16;
	long reserve = a->opts.context_reserve > 0 ? a->opts.context_reserve : 4096;
	struct err e = ERR_INIT;

	if (!a->compact_pending && !(a->stats.have_timings && agent_compact_due(used, n_ctx, reserve)))
		return 0;
	a->compact_pending = 0;
	/* the tools the conversation's requests offer: the same prompt prefix */
	a->compacting = agent_compact_start(a->loop, a->prov, &a->conv,
				      a->env && a->env->toolset ? a->env->toolset->offered : a->opts.tools,
				      a->env && a->env->toolset ? a->env->toolset->noffered : a->opts.ntools,
				      AGENT_COMPACT_KEEP_TURNS, a->compact_focus, agent_compacted, a, &e);
	free(a->compact_focus);
	a->compact_focus = NULL;
	if (!a->compacting) {
		agent_notice(a, e.msg);
		return 0;
	}
	a->compact_text = xstrdup(text);
	agent_notice(a, "compacting the conversation: the model summarises the older turns…");
	return 1;
}

/* /compact: the next submit summarises first. */
int
agent_compact(struct agent *a, const char *focus, struct err *e)
{
	if (agent_busy(a))
		return err_set(e, "a turn is running: wait for it or stop it first");
	if (!agent_compact_keep_from(&a->conv, AGENT_COMPACT_KEEP_TURNS))
		return err_set(e, "nothing to compact yet: the conversation is only its last turns");
	free(a->compact_focus);
	a->compact_focus = focus && *focus ? xstrdup(focus) : NULL;
	a->compact_pending = 1;
	return 0;
}

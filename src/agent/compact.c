/*
 * agent/compact: the summary request and the rewrite (agent/compact.h).
 *
 * Data: a run holds a copy of the conversation plus the instruction (the
 * request's conv), the text streamed so far and a zero-delay timer that
 * finishes the run outside the provider's callback.  Invariant: after
 * done is called the run is freed; cancel frees it without a call.
 */
#include "agent/compact.h"

#include <stdlib.h>
#include <string.h>

#include "llm/event.h"
#include "io/loop.h"
#include "llm/provider.h"
#include "base/xmalloc.h"

struct agent_compact_run {
	struct loop *loop;
	struct provider *prov;
	struct conv *target;
	struct conv req;          /* the conversation + the instruction */
	size_t keep_from;
	agent_compact_done_fn done;
	void *arg;
	struct buf text;
	struct buf msg;
	int rc, ended;
	long timer;
};

/* First message of the last keep_turns turns; 0 if that leaves nothing before it. */
size_t
agent_compact_keep_from(const struct conv *c, int keep_turns)
{
	size_t i = c->nmsgs;
	int seen = 0;

	if (keep_turns < 1)
		keep_turns = 1;
	while (i-- > 0)
		if (conv_msg_is_query(&c->msgs[i]) && ++seen == keep_turns)
			return i;
	return 0;
}

/* The request for the summary. */
void
agent_compact_instruction(const char *focus, struct buf *out)
{
	buf_adds(out,
		 "The conversation is about to be compacted to fit the context window. Do not call any "
		 "tool. Write a structured summary of the conversation so far that lets you continue the "
		 "work without it, with these headings:\n"
		 "## Goal\n## Decisions\n## Files touched\n## Open problems\n## Next step\n"
		 "Be specific: file paths, function names, commands and their results, what was changed "
		 "and what still fails. Leave out pleasantries. Keep it under 600 words.");
	if (focus && *focus)
		buf_addf(out, "\nPay particular attention to: %s", focus);
}

/* Deep copy of one message into dst. */
static void
cp_copy_msg(struct conv *dst, const struct conv_msg *m)
{
	struct conv_msg *n = conv_add_msg(dst, m->role);
	size_t i;

	n->aborted = m->aborted;
	for (i = 0; i < m->nblocks; i++) {
		const struct conv_block *b = &m->blocks[i];
		struct conv_block *nb = conv_add_block(n, b->kind, b->text, b->id, b->name);

		nb->is_error = b->is_error;
		nb->provider = b->provider ? xstrdup(b->provider) : NULL;
		nb->signature = b->signature ? xstrdup(b->signature) : NULL;
	}
}

/* Rewrite c: the summary, then the kept messages. */
void
agent_compact_rewrite(struct conv *c, size_t keep_from, const char *summary)
{
	struct conv kept;
	struct conv_msg *first;
	size_t i;

	conv_init(&kept);
	for (i = keep_from; i < c->nmsgs; i++)
		cp_copy_msg(&kept, &c->msgs[i]);
	while (c->nmsgs)
		conv_pop(c);
	if (kept.nmsgs && conv_msg_is_query(&kept.msgs[0])) {
		struct buf t = BUF_INIT;

		/* the summary goes first in the first kept user message */
		first = &kept.msgs[0];
		buf_adds(&t, AGENT_COMPACT_MARK);
		buf_adds(&t, summary);
		conv_add_user_text(c, t.data);
		buf_release(&t);
		for (i = 0; i < first->nblocks; i++)
			conv_add_block(&c->msgs[0], first->blocks[i].kind, first->blocks[i].text,
				       first->blocks[i].id, first->blocks[i].name);
		for (i = 1; i < kept.nmsgs; i++)
			cp_copy_msg(c, &kept.msgs[i]);
	} else {
		struct buf t = BUF_INIT;

		buf_adds(&t, AGENT_COMPACT_MARK);
		buf_adds(&t, summary);
		conv_add_user_text(c, t.data);
		buf_release(&t);
		conv_move_msgs(c, &kept);
	}
	conv_release(&kept);
}

/* The next request would leave less than reserve tokens. */
int
agent_compact_due(long used, long n_ctx, long reserve)
{
	if (n_ctx <= 0)
		return 0;
	if (reserve > n_ctx / 4)
		reserve = n_ctx / 4;
	return used > n_ctx - reserve;
}

/* Free a run. */
static void
cp_free(struct agent_compact_run *r)
{
	if (r->timer)
		loop_timer_del(r->loop, r->timer);
	conv_release(&r->req);
	buf_release(&r->text);
	buf_release(&r->msg);
	free(r);
}

/* Finish from the loop: rewrite or not, tell the caller, free. */
static void
cp_finish(struct loop *l, long id, void *arg)
{
	struct agent_compact_run *r = arg;
	long before = 0, after = 0;
	size_t i, j;

	(void)l;
	(void)id;
	r->timer = 0;
	if (r->rc == 0) {
		for (i = 0; i < r->target->nmsgs; i++)
			for (j = 0; j < r->target->msgs[i].nblocks; j++)
				before += (long)strlen(r->target->msgs[i].blocks[j].text ? r->target->msgs[i].blocks[j].text : "");
		agent_compact_rewrite(r->target, r->keep_from, r->text.data);
		for (i = 0; i < r->target->nmsgs; i++)
			for (j = 0; j < r->target->msgs[i].nblocks; j++)
				after += (long)strlen(r->target->msgs[i].blocks[j].text ? r->target->msgs[i].blocks[j].text : "");
		buf_addf(&r->msg, "compacted the conversation: %zu earlier messages became a summary (%ld → %ld bytes)",
			 r->keep_from, before, after);
	}
	r->done(r->arg, r->rc, r->msg.data);
	cp_free(r);
}

/* Provider events: collect the text; end on DONE or ERROR. */
static void
cp_sink(void *ctx, const struct llm_event *ev)
{
	struct agent_compact_run *r = ctx;

	if (r->ended)
		return;
	if (ev->kind == LLM_TEXT)
		buf_add(&r->text, ev->text.p, ev->text.len);
	if (ev->kind != LLM_DONE && ev->kind != LLM_ERROR)
		return;
	r->ended = 1;
	buf_rtrim(&r->text);
	if (ev->kind == LLM_ERROR) {
		r->rc = -1;
		buf_adds(&r->msg, "compaction failed: ");
		r->prov->describe_error(r->prov->self, ev, &r->msg);
	} else if (r->text.len < 20) {
		r->rc = -1;
		buf_adds(&r->msg, "compaction failed: the model wrote no summary; the conversation is unchanged");
	}
	r->timer = loop_timer_add(r->loop, 0, cp_finish, r);
}

/* Start the summary request. */
struct agent_compact_run *
agent_compact_start(struct loop *l, struct provider *p, struct conv *c, const struct tool *const *tools,
	      size_t ntools, int keep_turns, const char *focus, agent_compact_done_fn done, void *arg,
	      struct err *e)
{
	struct agent_compact_run *r;
	struct provider_req req = { 0 };
	struct buf ins = BUF_INIT;
	size_t from = agent_compact_keep_from(c, keep_turns), i;

	if (from == 0) {
		err_set(e, "nothing to compact yet: the conversation is only the last turns");
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	r->loop = l;
	r->prov = p;
	r->target = c;
	r->keep_from = from;
	r->done = done;
	r->arg = arg;
	buf_init(&r->text, 0);
	buf_init(&r->msg, 0);
	conv_init(&r->req);
	conv_set_system(&r->req, c->system);
	for (i = 0; i < c->nmsgs; i++)
		cp_copy_msg(&r->req, &c->msgs[i]);
	agent_compact_instruction(focus, &ins);
	conv_add_user_text(&r->req, ins.data);
	buf_release(&ins);
	req.conv = &r->req;
	req.tools = tools;
	req.ntools = ntools;
	if (p->start(p->self, &req, cp_sink, r, e) < 0) {
		cp_free(r);
		return NULL;
	}
	return r;
}

/* Stop the request and free. */
void
agent_compact_cancel(struct agent_compact_run *r)
{
	if (!r)
		return;
	if (!r->ended)
		r->prov->cancel(r->prov->self);
	cp_free(r);
}

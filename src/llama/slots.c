/*
 * llama/slots: which llama-server slot the chat requests go to (private part
 * of the llama provider, see llama/llama-int.h).
 *
 * Learning: after an unpinned request, /slots is asked (at most 3 times)
 * for the one slot whose prompt has exactly our size, and requests are
 * pinned to it.  Waiting: a pinned request that gets no byte for
 * slot_wait_s looks at /slots; if our slot is busy with another client the
 * request is re-sent to any slot and the provider stays unpinned.
 * Restoring: a resumed session's first request is held until the slot
 * restore ended (llama_slotfile), then sent.
 */
#include "llama/llama-int.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cfg.h"
#include "io/http.h"
#include "io/loop.h"
#include "llama/slotmap.h"

/* /slots after an unpinned request: pin to the slot holding exactly our prompt. */
static void
llama_on_learn_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e,
		     void *arg)
{
	struct llama *lm = arg;
	int found = -1, matches = 0;
	size_t i;

	(void)status;
	(void)e;
	for (i = 0; i < n; i++)
		if (slots[i].id_task >= 0 && slots[i].n_prompt_tokens == lm->learn_tokens) {
			found = slots[i].id;
			matches++;
		}
	if (matches == 1 && lm->disco.slot < 0)
		lm->disco.slot = found;
	lm->learning = 0;
}

/* Start the look-up from the loop: curl refuses new transfers inside its callbacks. */
void
llama_slots_learn_timer(struct loop *l, long id, void *arg)
{
	struct llama *lm = arg;

	(void)l;
	(void)id;
	lm->learn_timer = 0;
	llama_disco_slots(&lm->disco, llama_on_learn_slots, lm);
}

/* The restore before a resumed session's first request ended: send it now. */
void
llama_slots_after_restore(void *arg, const char *notice)
{
	struct llama *lm = arg;
	struct llama_call *c = lm->call;
	struct err e = ERR_INIT;

	if (!c || !c->held)
		return;
	c->held = 0;
	if (lm->ss.restored)
		llama_cache_restored(&lm->cw, lm->ss.restored_tokens);
	/* no restore: let the server find a warm slot, unless the records found one (llama/slotmap.h) */
	if (lm->ss.support == LLAMA_SLOTFILE_NO && lm->cfg->id_slot < 0 && lm->slot_why != LLAMA_SLOTMAP_LIVE &&
	    lm->slot_why != LLAMA_SLOTMAP_SHARED) {
		cJSON *root = cJSON_Parse(c->body);

		cJSON_ReplaceItemInObject(root, "id_slot", cJSON_CreateNumber(-1));
		free(c->body);
		c->body = cJSON_PrintUnformatted(root);
		cJSON_Delete(root);
		lm->disco.slot = -1;
		lm->cw.next_slot = -1;
	}
	if (notice) {
		struct llm_event ev = { .kind = LLM_NOTICE };

		ev.text = str_from(notice);
		llama_emit(c, &ev);
	}
	if (llama_send(c, &e) < 0) {
		lm->call = NULL;
		llama_fail(c, LLM_ERR_OTHER, 0, e.msg);
		llama_call_free(c);
		return;
	}
	if (lm->disco.slot >= 0 && lm->cfg->slot_wait_s > 0)
		c->wait_timer = loop_timer_add(lm->loop, (uint64_t)lm->cfg->slot_wait_s * 1000u, llama_slots_on_wait, c);
}

/* /slots answered while a pinned request waits: re-send to any slot if ours is taken. */
static void
llama_on_wait_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e,
		    void *arg)
{
	struct llama *lm = arg;
	struct llama_call *c = lm->call;
	struct err se = ERR_INIT;
	int slot = lm->disco.slot, busy = 0;
	size_t i;
	cJSON *root;
	char msg[160];

	(void)status;
	(void)e;
	if (!c || c->seq != lm->wait_seq || c->got_bytes || c->dead)
		return;
	for (i = 0; i < n; i++)
		busy |= slots[i].id == slot && slots[i].is_processing;
	if (!busy) { /* not queued behind another client: keep waiting */
		c->wait_timer = loop_timer_add(lm->loop, (uint64_t)lm->cfg->slot_wait_s * 1000u, llama_slots_on_wait, c);
		return;
	}
	root = cJSON_Parse(c->body);
	cJSON_ReplaceItemInObject(root, "id_slot", cJSON_CreateNumber(-1));
	free(c->body);
	c->body = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	lm->disco.slot = -1;
	lm->slot_gave_up = 1;
	lm->cw.next_slot = -1;
	http_cancel(c->req);
	if (llama_send(c, &se) < 0) {
		llama_fail(c, LLM_ERR_OTHER, 0, se.msg);
		return;
	}
	snprintf(msg, sizeof msg,
		 "slot %d is busy with another client; sent the request to any free slot (its cache may be cold)",
		 slot);
	{
		struct llm_event ev = { .kind = LLM_NOTICE };

		ev.text = str_from(msg);
		llama_emit(c, &ev);
	}
}

/* A pinned request has had no byte for a while: look at /slots. */
void
llama_slots_on_wait(struct loop *l, long id, void *arg)
{
	struct llama_call *c = arg;

	(void)l;
	(void)id;
	c->wait_timer = 0;
	c->lm->wait_seq = c->seq;
	llama_disco_slots(&c->lm->disco, llama_on_wait_slots, c->lm);
}

/*
 * ui/app/poll: the /slots poll (see ui/app/poll.h).  State lives in struct app:
 * poll_timer (pending timer id or 0), poll_inflight, poll_backoff (s).
 */
#include "ui/app/poll.h"

#include "llama/llama.h"
#include "io/loop.h"
#include "ui/view/server_panel.h"

static void app_poll_fire(struct loop *l, long id, void *arg);

/* Schedule the next poll in ms (replacing a pending one; none while one is in flight). */
void
app_poll_in(struct app *a, uint64_t ms)
{
	if (a->poll_inflight || a->state == AS_QUIT)
		return;
	if (a->poll_timer)
		loop_timer_del(a->d->loop, a->poll_timer);
	a->poll_timer = loop_timer_add(a->d->loop, ms, app_poll_fire, a);
}

/* GET /slots answered (or failed). */
static void
app_poll_on_slots(int status, const struct llama_slot *slots, size_t n, const struct err *e,
    void *arg)
{
	struct app *a = arg;
	struct server_panel_slot v[VIEW_SLOTS_MAX];
	size_t i;

	(void)e;
	a->poll_inflight = 0;
	if (a->state == AS_QUIT)
		return;
	a->dirty = 1;
	if (status == 200) {
		a->poll_backoff = 0;
		for (i = 0; i < n && i < VIEW_SLOTS_MAX; i++) {
			v[i].id = slots[i].id;
			v[i].n_ctx = slots[i].n_ctx;
			v[i].is_processing = slots[i].is_processing;
			v[i].n_prompt_tokens = slots[i].n_prompt_tokens;
			v[i].n_prompt_tokens_processed = slots[i].n_prompt_tokens_processed;
			v[i].n_decoded = slots[i].n_decoded;
		}
		server_panel_set_slots(&a->srv, v, i, llama_slot(a->d->llama), loop_now_ms(a->d->loop));
	} else if (status == 501) {
		a->poll_backoff = 0;
		server_panel_no_slots(&a->srv);
		server_panel_reconnecting(&a->srv, -1);
	} else {
		a->poll_backoff = a->poll_backoff ? a->poll_backoff * 2 : 1;
		if (a->poll_backoff > 30)
			a->poll_backoff = 30;
		server_panel_reconnecting(&a->srv, a->poll_backoff);
		app_poll_in(a, (uint64_t)a->poll_backoff * 1000);
		return;
	}
	app_poll_in(a, a->busy ? APP_POLL_BUSY_MS : APP_POLL_IDLE_MS);
}

/* The poll timer fired: one request, unless one is already out. */
static void
app_poll_fire(struct loop *l, long id, void *arg)
{
	struct app *a = arg;

	(void)l;
	(void)id;
	a->poll_timer = 0;
	if (a->poll_inflight || a->state != AS_READY)
		return;
	a->poll_inflight = 1;
	llama_get_slots(a->d->llama, app_poll_on_slots, a);
}

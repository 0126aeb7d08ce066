/* fakeprov: see fakeprov.h. */
#include "fakeprov.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "llm/conv.h"
#include "io/loop.h"
#include "testutil.h"

/* Timer callback: deliver the step this request plays. */
static void
fakeprov_fire(struct loop *l, long id, void *arg)
{
	struct fakeprov *f = arg;
	int s = f->next < f->nsteps ? f->next : f->cycle ? f->next % f->nsteps : f->nsteps - 1;
	int i;

	(void)l;
	(void)id;
	f->timer = 0;
	f->next++;
	for (i = 0; i < FAKEPROV_MAX_EV && f->steps[s][i].kind != 0; i++) {
		const struct fakeprov_ev *fe = &f->steps[s][i];
		struct llm_event ev;

		memset(&ev, 0, sizeof ev);
		ev.kind = (enum llm_kind)(fe->kind - 1);
		ev.text = str_from(fe->text);
		ev.index = fe->index;
		ev.id = fe->id;
		ev.name = fe->name;
		ev.error.kind = fe->err;
		ev.error.retryable = ev.error.kind == LLM_ERR_HTTP;
		ev.stop_reason = ev.kind == LLM_DONE ? fe->text : NULL;
		f->sink(f->ctx, &ev);
		if (ev.kind == LLM_DONE || ev.kind == LLM_ERROR)
			break;
	}
}

/* provider start: note the request, answer later from the loop. */
static int
fakeprov_start(void *self, const struct provider_req *req, llm_sink_fn sink, void *ctx, struct err *e)
{
	struct fakeprov *f = self;

	(void)e;
	if (f->on_start)
		f->on_start(f->on_start_arg, req);
	f->nmsgs_at_start[f->starts++ % (FAKEPROV_MAX_STEPS * 2)] = req->conv ? req->conv->nmsgs : 0;
	f->retries += req->retry;
	f->sink = sink;
	f->ctx = ctx;
	if (f->nsteps && (f->next < f->nsteps || f->repeat_last || f->cycle))
		f->timer = loop_timer_add(f->loop, 0, fakeprov_fire, f);
	return 0;
}

/* provider cancel: nothing more is delivered. */
static void
fakeprov_cancel(void *self)
{
	struct fakeprov *f = self;

	f->cancels++;
	if (f->timer)
		loop_timer_del(f->loop, f->timer);
	f->timer = 0;
}

/* provider model. */
static const char *
fakeprov_model(void *self)
{
	(void)self;
	return "fake";
}

/* provider describe_error: a marked copy of the error text. */
static void
fakeprov_describe(void *self, const struct llm_event *ev, struct buf *out)
{
	(void)self;
	buf_addf(out, "described: %.*s", (int)ev->text.len, ev->text.p);
}

/* An empty script (see fakeprov.h). */
void
fakeprov_init(struct fakeprov *f, struct loop *l, const char *name)
{
	memset(f, 0, sizeof *f);
	f->loop = l;
	f->prov.name = name;
	f->prov.self = f;
	f->prov.start = fakeprov_start;
	f->prov.cancel = fakeprov_cancel;
	f->prov.model = fakeprov_model;
	f->prov.describe_error = fakeprov_describe;
}

/* Script one step (see fakeprov.h). */
void
fakeprov_step(struct fakeprov *f, int i, const struct fakeprov_ev *evs, size_t n)
{
	assert_true(i >= 0 && i < FAKEPROV_MAX_STEPS);
	assert_true(n <= FAKEPROV_MAX_EV);
	memset(f->steps[i], 0, sizeof f->steps[i]);
	memcpy(f->steps[i], evs, n * sizeof *evs);
	if (i + 1 > f->nsteps)
		f->nsteps = i + 1;
}

/* Script a step of one tool call (see fakeprov.h). */
void
fakeprov_call(struct fakeprov *f, int i, const char *id, const char *tool, const char *args)
{
	const struct fakeprov_ev s[] = { EV_BEGIN(0, id, tool), EV_ARGS(0, args), EV_END(0),
					 EV_DONE("tool_calls") };

	FAKEPROV_STEP(f, i, s);
}

/* Script a step of one text answer (see fakeprov.h). */
void
fakeprov_answer(struct fakeprov *f, int i, const char *text)
{
	const struct fakeprov_ev s[] = { EV_TEXT(text), EV_DONE("stop") };

	FAKEPROV_STEP(f, i, s);
}

/* An agent test's workspace (see fakeprov.h). */
void
fakeprov_ws_init(struct fakeprov_ws *w, const char *f_txt)
{
	memset(w, 0, sizeof *w);
	w->loop = loop_new(NULL);
	w->dir = tu_tmpdir();
	tu_write(w->dir, "f.txt", f_txt);
	w->tenv.loop = w->loop;
	w->tenv.root = w->dir;
	w->tenv.bash_timeout_s = 10;
}

/* Free what fakeprov_ws_init made. */
void
fakeprov_ws_release(struct fakeprov_ws *w)
{
	loop_free(w->loop);
	tu_rmrf(w->dir);
	free(w->dir);
	memset(w, 0, sizeof *w);
}

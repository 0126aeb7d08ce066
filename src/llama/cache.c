/*
 * llama/cache: cache-reuse accounting and cache-break causes (see the
 * header).  The message lists are small arrays of owned strings; the
 * `next` set becomes the baseline once the request's timings arrive, so
 * a request that failed (no timings) leaves the previous baseline alone.
 */
#include "llama/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

/* Empty watcher. */
void
llama_cache_init(struct llama_cache *cw)
{
	memset(cw, 0, sizeof *cw);
	cw->slot = cw->next_slot = -2; /* unknown */
	buf_init(&cw->cause, 0);
}

/* Free a message list. */
static void
cw_free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Free everything. */
void
llama_cache_release(struct llama_cache *cw)
{
	cw_free_list(cw->msgs, cw->nmsgs);
	cw_free_list(cw->next, cw->nnext);
	free(cw->server);
	free(cw->next_server);
	free(cw->planned);
	buf_release(&cw->cause);
	llama_cache_init(cw);
}

/* Remember what is being sent. */
void
llama_cache_request(struct llama_cache *cw, const char *const *msgs, size_t n, int slot,
		   const char *server, long n_ctx)
{
	size_t i;

	cw_free_list(cw->next, cw->nnext);
	cw->next = xcalloc(n ? n : 1, sizeof *cw->next);
	for (i = 0; i < n; i++)
		cw->next[i] = xstrdup(msgs[i]);
	cw->nnext = n;
	cw->next_slot = slot;
	free(cw->next_server);
	cw->next_server = xstrdup(server ? server : "");
	cw->n_ctx = n_ctx;
}

/* A planned prefix change for the request just reported. */
void
llama_cache_plan(struct llama_cache *cw, const char *why)
{
	free(cw->planned);
	cw->planned = xstrdup(why);
}

/* A slot restore put n tokens in the slot. */
void
llama_cache_restored(struct llama_cache *cw, long n)
{
	cw->restored = n;
}

/* The server went away: its cache is gone. */
void
llama_cache_server_lost(struct llama_cache *cw)
{
	cw->server_lost = 1;
}

/* Index of the first previous message not sent again unchanged, or -1. */
static long
cw_first_change(const struct llama_cache *cw)
{
	size_t i;

	for (i = 0; i < cw->nmsgs; i++)
		if (i >= cw->nnext || strcmp(cw->msgs[i], cw->next[i]) != 0)
			return (long)i;
	return -1;
}

/* Name the most likely cause of a shortfall. */
static void
cw_explain(struct llama_cache *cw, long total)
{
	long changed = cw_first_change(cw);

	buf_reset(&cw->cause);
	if (cw->server && strcmp(cw->server, cw->next_server) != 0)
		buf_adds(&cw->cause, "the server restarted or the model changed");
	else if (cw->server_lost)
		buf_adds(&cw->cause, "the server restarted (the connection was lost): its cache is empty");
	else if (changed >= 0)
		buf_addf(&cw->cause, "the prompt prefix changed at message %ld", changed);
	else if (cw->slot != -2 && cw->slot != cw->next_slot)
		buf_addf(&cw->cause, "the request went to another slot (%d, was %d)", cw->next_slot,
			 cw->slot);
	else if (cw->n_ctx > 0 && total >= cw->n_ctx)
		buf_addf(&cw->cause, "the context was truncated (%ld tokens, n_ctx %ld)", total, cw->n_ctx);
	else
		buf_adds(&cw->cause, "the server dropped the cached prefix (another client used the slot, or a hybrid model rolled back to a checkpoint)");
}

/* Compare what happened with what a stable prefix promises. */
void
llama_cache_timings(struct llama_cache *cw, const struct llm_timings *t,
		   struct llama_cache_report *out)
{
	long total = t->cache_n + t->prompt_n;

	memset(out, 0, sizeof *out);
	out->cache_n = t->cache_n;
	out->prompt_n = t->prompt_n;
	out->cause = "";
	out->reuse = total > 0 ? (double)t->cache_n / (double)total : 0;
	if (cw->restored > 0 && total > 0) {
		/* the slot file's tokens should all be reused: they are the prompt's beginning */
		long keep = cw->restored < total ? cw->restored : total;

		out->expected = (double)keep / (double)total;
		if (out->reuse + LLAMA_CACHE_SLACK < out->expected) {
			out->is_break = 1;
			cw->breaks++;
			buf_reset(&cw->cause);
			if (cw->planned)
				buf_addf(&cw->cause, "expected: %s", cw->planned);
			else
				buf_addf(&cw->cause,
					 "the restored slot did not match the prompt: %ld tokens restored from the slot file, %ld reused",
					 cw->restored, t->cache_n);
			out->planned = cw->planned != NULL;
			out->cause = cw->cause.data;
		}
	} else if (cw->requests > 0 && total > 0) {
		/* what was in the slot after the last request, if it is all sent again */
		long keep = cw->prev_prompt < total ? cw->prev_prompt : total;

		out->expected = (double)keep / (double)total;
		if (out->reuse + LLAMA_CACHE_SLACK < out->expected) {
			out->is_break = 1;
			cw->breaks++;
			if (cw->planned) {
				out->planned = 1;
				buf_reset(&cw->cause);
				buf_addf(&cw->cause, "expected: %s", cw->planned);
			} else {
				cw_explain(cw, total);
			}
			out->cause = cw->cause.data;
		}
	}
	free(cw->planned);
	cw->planned = NULL;
	cw->restored = 0;
	cw->server_lost = 0;
	cw->cached_total += t->cache_n;
	cw->prompt_total += total;
	/* this request is the new baseline */
	cw_free_list(cw->msgs, cw->nmsgs);
	cw->msgs = cw->next;
	cw->nmsgs = cw->nnext;
	cw->next = NULL;
	cw->nnext = 0;
	cw->slot = cw->next_slot;
	free(cw->server);
	cw->server = cw->next_server;
	cw->next_server = NULL;
	cw->prev_prompt = total;
	cw->requests++;
}

/* Tokens served from cache over tokens of prompt, whole session. */
double
llama_cache_session_reuse(const struct llama_cache *cw)
{
	return cw->prompt_total > 0 ? (double)cw->cached_total / (double)cw->prompt_total : -1;
}

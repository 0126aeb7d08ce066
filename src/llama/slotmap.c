/*
 * llama/slotmap: the slot records of hearth sessions and the slot choice.
 *
 * File format: {"<server>": {"slots": {"<id>": {"session", "task", "tokens",
 * "t"}}, "restore_hits": N, "restore_misses": N}, ...}.  At most
 * SLOTMAP_SERVERS servers are kept (the least recently written go).
 */
#include "llama/slotmap.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/xmalloc.h"

#define SLOTMAP_MAX_BYTES (1L << 20)
#define SLOTMAP_SERVERS 32

/* The whole file parsed, or an empty object (also when it is unreadable or
 * SLOTMAP_MAX_BYTES or more). */
static cJSON *
llama_slotmap_read(const char *path)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *root = NULL;

	if (buf_read_file(&b, path, SLOTMAP_MAX_BYTES - 1, &e) == 0 && b.len)
		root = json_parse(b.data, b.len, &e);
	buf_release(&b);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = cJSON_CreateObject();
	}
	return root;
}

/* Read server's part. */
void
llama_slotmap_load(const char *path, const char *server, struct llama_slotmap *m)
{
	cJSON *root, *e;
	const cJSON *srv, *slots;
	long v;

	memset(m, 0, sizeof *m);
	if (!path || !server)
		return;
	root = llama_slotmap_read(path);
	srv = json_obj(root, server);
	slots = json_obj(srv, "slots");
	if (json_long(srv, "restore_hits", &v) == 0)
		m->restore_hits = (int)v;
	if (json_long(srv, "restore_misses", &v) == 0)
		m->restore_misses = (int)v;
	if (json_long(srv, "slot_files", &v) == 0)
		m->no_slot_files = v == 0;
	m->v = xcalloc((size_t)cJSON_GetArraySize(slots) + 1, sizeof *m->v);
	cJSON_ArrayForEach(e, slots) {
		struct llama_slotmap_entry *x = &m->v[m->n];
		const char *s = json_str(e, "session");
		double t = 0;
		char *end;
		long id = e->string ? strtol(e->string, &end, 10) : -1;

		if (!e->string || *end || id < 0 || !s || json_long(e, "task", &x->task) < 0 ||
		    json_long(e, "tokens", &x->tokens) < 0)
			continue;
		x->slot = (int)id;
		snprintf(x->session, sizeof x->session, "%s", s);
		if (json_double(e, "t", &t) == 0)
			x->t = (long long)t;
		m->n++;
	}
	cJSON_Delete(root);
}

void
llama_slotmap_release(struct llama_slotmap *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* Drop the least recently written servers beyond SLOTMAP_SERVERS. */
static void
llama_slotmap_trim(cJSON *root)
{
	while (cJSON_GetArraySize(root) > SLOTMAP_SERVERS) {
		cJSON *it, *old = NULL;
		double ot = 0, t;

		cJSON_ArrayForEach(it, root) {
			t = 0;
			json_double(it, "t", &t);
			if (!old || t < ot) {
				old = it;
				ot = t;
			}
		}
		cJSON_DeleteItemFromObjectCaseSensitive(root, old->string);
	}
}

/* Record one slot and a restore verdict. */
int
llama_slotmap_note(const char *path, const char *server, int slot, const char *session, long task,
		   long tokens, long long t, int restore, int files, struct err *e)
{
	cJSON *root = llama_slotmap_read(path), *srv, *slots, *ent;
	char key[24];
	char *text;
	int rc;

	srv = cJSON_GetObjectItemCaseSensitive(root, server);
	if (!cJSON_IsObject(srv)) {
		cJSON_DeleteItemFromObjectCaseSensitive(root, server);
		srv = cJSON_AddObjectToObject(root, server);
	}
	slots = cJSON_GetObjectItemCaseSensitive(srv, "slots");
	if (!cJSON_IsObject(slots)) {
		cJSON_DeleteItemFromObjectCaseSensitive(srv, "slots");
		slots = cJSON_AddObjectToObject(srv, "slots");
	}
	if (slot >= 0 && session && *session) {
		snprintf(key, sizeof key, "%d", slot);
		cJSON_DeleteItemFromObjectCaseSensitive(slots, key);
		ent = cJSON_AddObjectToObject(slots, key);
		cJSON_AddStringToObject(ent, "session", session);
		cJSON_AddNumberToObject(ent, "task", (double)task);
		cJSON_AddNumberToObject(ent, "tokens", (double)tokens);
		cJSON_AddNumberToObject(ent, "t", (double)t);
	}
	if (restore) {
		const char *k = restore > 0 ? "restore_hits" : "restore_misses";
		long v = 0;

		json_long(srv, k, &v);
		cJSON_DeleteItemFromObjectCaseSensitive(srv, k);
		cJSON_AddNumberToObject(srv, k, (double)(v + 1));
	}
	if (files >= 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(srv, "slot_files");
		cJSON_AddNumberToObject(srv, "slot_files", files);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(srv, "t");
	cJSON_AddNumberToObject(srv, "t", (double)t);
	llama_slotmap_trim(root);
	text = cJSON_PrintUnformatted(root);
	rc = fs_write_private(path, text, strlen(text), e);
	cJSON_free(text);
	cJSON_Delete(root);
	return rc;
}

int
llama_slotmap_restores_useless(const struct llama_slotmap *m)
{
	return m->restore_misses >= 2 && m->restore_hits == 0;
}

/* The record for slot id, if it still describes what the slot holds. */
static const struct llama_slotmap_entry *
llama_slotmap_holder(const struct llama_slotmap *m, const struct llama_slot *s)
{
	size_t i;

	if (s->id_task < 0)
		return NULL;
	for (i = 0; m && i < m->n; i++)
		if (m->v[i].slot == s->id && m->v[i].task == s->id_task && m->v[i].tokens == s->n_prompt_tokens)
			return &m->v[i];
	return NULL;
}

/* The choice rule (see the header). */
int
llama_slotmap_choose(const struct llama_slotmap *m, const char *session, int restoring,
		     const struct llama_slot *slots, size_t n, enum llama_slotmap_why *why)
{
	int best[5] = { -1, -1, -1, -1, -1 }; /* by enum llama_slotmap_why */
	long long shared_t = 0;
	long other_tokens = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct llama_slot *s = &slots[i];
		const struct llama_slotmap_entry *h = llama_slotmap_holder(m, s);

		if (s->is_processing)
			continue;
		if (h && session && *session && !strcmp(h->session, session)) {
			if (best[LLAMA_SLOTMAP_LIVE] < 0)
				best[LLAMA_SLOTMAP_LIVE] = s->id;
		} else if (h) {
			if (best[LLAMA_SLOTMAP_SHARED] < 0 || h->t < shared_t) {
				best[LLAMA_SLOTMAP_SHARED] = s->id;
				shared_t = h->t;
			}
		} else if (s->id_task < 0) {
			if (best[LLAMA_SLOTMAP_EMPTY] < 0)
				best[LLAMA_SLOTMAP_EMPTY] = s->id;
		} else {
			long held = s->n_prompt_tokens + s->n_decoded;

			if (best[LLAMA_SLOTMAP_OTHER] < 0 || held < other_tokens) {
				best[LLAMA_SLOTMAP_OTHER] = s->id;
				other_tokens = held;
			}
		}
	}
	{
		static const enum llama_slotmap_why prefix_order[] = {
			LLAMA_SLOTMAP_LIVE, LLAMA_SLOTMAP_SHARED, LLAMA_SLOTMAP_EMPTY, LLAMA_SLOTMAP_OTHER
		};
		static const enum llama_slotmap_why restore_order[] = {
			LLAMA_SLOTMAP_LIVE, LLAMA_SLOTMAP_EMPTY, LLAMA_SLOTMAP_SHARED, LLAMA_SLOTMAP_OTHER
		};
		const enum llama_slotmap_why *order = restoring ? restore_order : prefix_order;

		for (i = 0; i < 4; i++)
			if (best[order[i]] >= 0) {
				*why = order[i];
				return best[order[i]];
			}
	}
	*why = LLAMA_SLOTMAP_NONE;
	return -1;
}

/*
 * llama/wire: the llama-server wire format, pure (no I/O) so it can be
 * tested byte for byte against the recorded fixtures.
 *
 * The chat request is built from the conv deterministically: the same
 * conv, tools and settings always give the same bytes (cJSON keeps
 * insertion order and prints numbers the same way), which is what keeps
 * the server's prompt cache warm.  Tool results become OpenAI `tool`
 * messages; reasoning made by a local model goes back as
 * reasoning_content only within the turn that produced it (templates
 * render it there, so the prefix is what the model produced; they drop
 * it from earlier turns), reasoning from other providers never does.
 * With the template probe's gen_prefix, earlier assistant turns are
 * written so that the template renders them as they were generated.
 */
#include "llama/wire.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/json.h"
#include "base/sanitize.h"
#include "llm/conv.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

/* ---- request body ---------------------------------------------------- */

/*
 * Add a string member that is valid UTF-8 whatever the transcript holds
 * (file names, tool output, a pasted task): the server rejects invalid
 * UTF-8, and the repair is deterministic, so the prefix stays stable.
 */
static void
lw_str(cJSON *o, const char *key, const char *s)
{
	size_t n = strlen(s), i = 0, k;
	struct buf fixed = BUF_INIT;

	while (i < n && (k = sanitize_utf8_len((const unsigned char *)s + i, n - i)) > 0)
		i += k;
	if (i == n) {
		cJSON_AddStringToObject(o, key, s);
		return;
	}
	sanitize_utf8(&fixed, s, n);
	cJSON_AddStringToObject(o, key, fixed.data);
	buf_release(&fixed);
}

/*
 * OpenAI wire form of one assistant message.  earlier: it comes before
 * the last user message (its reasoning is dropped; gen_prefix, when
 * known, makes the template render it as it was generated).
 */
static cJSON *
llama_wire_assistant(const struct conv_msg *m, int earlier, const char *gen_prefix)
{
	cJSON *o = cJSON_CreateObject(), *calls = NULL;
	struct buf text = BUF_INIT, reasoning = BUF_INIT;
	size_t i;

	if (earlier && gen_prefix)
		buf_adds(&text, gen_prefix);
	for (i = 0; i < m->nblocks; i++) {
		const struct conv_block *b = &m->blocks[i];

		if (b->kind == CONV_TEXT)
			buf_adds(&text, b->text);
		else if (b->kind == CONV_REASONING && !earlier &&
			 (!b->provider || !strcmp(b->provider, "llama")))
			buf_adds(&reasoning, b->text);
		else if (b->kind == CONV_TOOL_CALL) {
			cJSON *tc = cJSON_CreateObject(), *fn = cJSON_CreateObject();

			if (!calls)
				calls = cJSON_CreateArray();
			lw_str(tc, "id", b->id ? b->id : "");
			cJSON_AddStringToObject(tc, "type", "function");
			lw_str(fn, "name", b->name ? b->name : "");
			lw_str(fn, "arguments", b->text);
			cJSON_AddItemToObject(tc, "function", fn);
			cJSON_AddItemToArray(calls, tc);
		}
	}
	cJSON_AddStringToObject(o, "role", "assistant");
	lw_str(o, "content", text.data);
	if (reasoning.len)
		lw_str(o, "reasoning_content", reasoning.data);
	else if (earlier && gen_prefix)
		cJSON_AddStringToObject(o, "reasoning_content", " ");
	if (calls)
		cJSON_AddItemToObject(o, "tool_calls", calls);
	buf_release(&text);
	buf_release(&reasoning);
	return o;
}

/* A user message: tool results become `tool` messages, text one user message. */
static void
llama_wire_user(const struct conv_msg *m, cJSON *msgs, const char **lead)
{
	struct buf text = BUF_INIT;
	size_t i;

	for (i = 0; i < m->nblocks; i++) {
		const struct conv_block *b = &m->blocks[i];

		if (b->kind == CONV_TOOL_RESULT) {
			cJSON *t = cJSON_CreateObject();

			cJSON_AddStringToObject(t, "role", "tool");
			lw_str(t, "tool_call_id", b->id ? b->id : "");
			lw_str(t, "content", b->text);
			cJSON_AddItemToArray(msgs, t);
		} else if (b->kind == CONV_TEXT) {
			if (text.len)
				buf_adds(&text, "\n\n");
			else if (*lead) { /* the session part of the system prompt opens the first user message */
				buf_adds(&text, *lead);
				buf_adds(&text, "\n");
				*lead = NULL;
			}
			buf_adds(&text, b->text);
		}
	}
	if (text.len) {
		cJSON *u = cJSON_CreateObject();

		cJSON_AddStringToObject(u, "role", "user");
		lw_str(u, "content", text.data);
		cJSON_AddItemToArray(msgs, u);
	}
	buf_release(&text);
}

/* The tools array in the registry's fixed order. */
static cJSON *
llama_wire_tools(const struct provider_req *req)
{
	cJSON *tools = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < req->ntools; i++) {
		const struct tool *t = req->tools[i];
		cJSON *o = cJSON_CreateObject(), *fn = cJSON_CreateObject();
		cJSON *schema = cJSON_Parse(t->schema_json);

		cJSON_AddStringToObject(o, "type", "function");
		cJSON_AddStringToObject(fn, "name", t->name);
		cJSON_AddStringToObject(fn, "description", t->description);
		cJSON_AddItemToObject(fn, "parameters", schema ? schema : cJSON_CreateObject());
		cJSON_AddItemToObject(o, "function", fn);
		cJSON_AddItemToArray(tools, o);
	}
	return tools;
}

/* Index of the last conv message that becomes a wire `user` message (nmsgs when none). */
static size_t
llama_wire_last_query(const struct conv *cv)
{
	size_t i, j;

	for (i = cv->nmsgs; i-- > 0;) {
		if (cv->msgs[i].role != CONV_USER)
			continue;
		for (j = 0; j < cv->msgs[i].nblocks; j++)
			if (cv->msgs[i].blocks[j].kind == CONV_TEXT)
				return i;
	}
	return cv->nmsgs;
}

/* Serialise the chat request with no template knowledge. */
void
llama_wire_request(const struct cfg *cfg, const char *model, const struct provider_req *req,
		    struct buf *out)
{
	llama_wire_request_gen(cfg, model, req, NULL, out);
}

/* The system message of cv, and the session part (*lead) when it moves to the first user message. */
static cJSON *
llama_wire_system(const struct conv *cv, const char **lead)
{
	const char *mark = strstr(cv->system, CONV_SESSION_MARK);
	cJSON *o = cJSON_CreateObject();

	/*
	 * The session part goes to the first user message: the system prompt
	 * (and the tools the template renders with it) is then the same for
	 * every session, so a session that lands on another's slot reuses it.
	 */
	cJSON_AddStringToObject(o, "role", "system");
	if (mark && llama_wire_last_query(cv) < cv->nmsgs) {
		char *stable = xstrndup(cv->system, (size_t)(mark - cv->system));

		lw_str(o, "content", stable);
		free(stable);
		*lead = mark + 2;
	} else {
		lw_str(o, "content", cv->system);
	}
	return o;
}

/* The top-level fields around the messages; "messages" is an empty array. */
static cJSON *
llama_wire_root(const struct cfg *cfg, const char *model, const struct provider_req *req)
{
	cJSON *root = cJSON_CreateObject(), *o;

	cJSON_AddStringToObject(root, "model", model ? model : "local");
	cJSON_AddItemToObject(root, "messages", cJSON_CreateArray());
	if (req->ntools)
		cJSON_AddItemToObject(root, "tools", llama_wire_tools(req));
	cJSON_AddBoolToObject(root, "stream", 1);
	o = cJSON_AddObjectToObject(root, "stream_options");
	cJSON_AddBoolToObject(o, "include_usage", 1);
	cJSON_AddBoolToObject(root, "return_progress", 1);
	cJSON_AddBoolToObject(root, "cache_prompt", 1);
	cJSON_AddNumberToObject(root, "id_slot", cfg->id_slot);
	o = cJSON_AddObjectToObject(root, "chat_template_kwargs");
	cJSON_AddBoolToObject(o, "enable_thinking", req->thinking);
	cJSON_AddNumberToObject(root, "temperature", cfg->temperature);
	cJSON_AddNumberToObject(root, "top_p", cfg->top_p);
	cJSON_AddNumberToObject(root, "top_k", cfg->top_k);
	cJSON_AddNumberToObject(root, "presence_penalty", cfg->presence_penalty);
	if (cfg->max_tokens > 0)
		cJSON_AddNumberToObject(root, "max_tokens", cfg->max_tokens);
	return root;
}

/* Serialise the chat request; same inputs give the same bytes. */
void
llama_wire_request_gen(const struct cfg *cfg, const char *model, const struct provider_req *req,
		      const char *gen_prefix, struct buf *out)
{
	cJSON *root = llama_wire_root(cfg, model, req);
	cJSON *msgs = cJSON_GetObjectItemCaseSensitive(root, "messages");
	const struct conv *cv = req->conv;
	size_t lq = llama_wire_last_query(cv);
	const char *lead = NULL;
	char *text;
	size_t i;

	if (cv->system)
		cJSON_AddItemToArray(msgs, llama_wire_system(cv, &lead));
	for (i = 0; i < cv->nmsgs; i++) {
		if (cv->msgs[i].role == CONV_ASSISTANT)
			cJSON_AddItemToArray(msgs, llama_wire_assistant(&cv->msgs[i], lq < cv->nmsgs && i < lq,
								       gen_prefix));
		else
			llama_wire_user(&cv->msgs[i], msgs, &lead);
	}
	text = cJSON_PrintUnformatted(root);
	buf_adds(out, text ? text : "{}");
	cJSON_free(text);
	cJSON_Delete(root);
}

/* ---- the serialised prefix kept between requests ---------------------- */

void
llama_wire_memo_init(struct llama_wire_memo *m)
{
	memset(m, 0, sizeof *m);
	buf_init(&m->sys_src, 0);
	buf_init(&m->body, 0);
}

static void
memo_ent_free(struct llama_wire_memo_ent *e)
{
	size_t i;

	buf_release(&e->src);
	buf_release(&e->json);
	for (i = 0; i < e->nnotes; i++)
		cJSON_free(e->notes[i]);
	free(e->notes);
	memset(e, 0, sizeof *e);
}

void
llama_wire_memo_release(struct llama_wire_memo *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		memo_ent_free(&m->ents[i]);
	free(m->ents);
	free(m->notes);
	cJSON_free(m->sys_json);
	cJSON_free(m->sys_note);
	buf_release(&m->sys_src);
	buf_release(&m->body);
	llama_wire_memo_init(m);
}

/*
 * The bytes message m's wire form is made from (see struct llama_wire_memo):
 * role and earlier, the gen_prefix and session part it is written with,
 * then per block its kind, is_error and strings (NULL and "" differ).
 * With b NULL, compare with *cmp instead of writing: 1 when equal.
 */
struct memo_cur {
	struct buf *b;          /* write here, or */
	const char *p, *end;    /* compare against [p, end) */
};

static int
memo_put(struct memo_cur *c, const void *d, size_t n)
{
	if (c->b) {
		buf_add(c->b, d, n);
		return 1;
	}
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, d, n))
		return 0;
	c->p += n;
	return 1;
}

static int
memo_field(struct memo_cur *c, const char *s)
{
	return memo_put(c, s ? "+" : "-", 1) && (!s || memo_put(c, s, strlen(s) + 1));
}

/*
 * With m->gen known (not 0) only what it is written with goes in (the gen
 * stands for the blocks: the entry's gen is compared on its own), so a
 * step's check of an old message costs the same whatever its length.
 */
static int
memo_src(struct memo_cur *c, const struct conv_msg *m, int earlier, const char *gen_prefix,
	 const char *lead)
{
	char h[2];
	size_t i;

	h[0] = (char)('0' + (int)m->role);
	h[1] = (char)('0' + earlier);
	if (!memo_put(c, h, 2) || !memo_field(c, m->role == CONV_ASSISTANT && earlier ? gen_prefix : NULL) ||
	    !memo_field(c, m->role == CONV_USER ? lead : NULL))
		return 0;
	for (i = 0; !m->gen && i < m->nblocks; i++) {
		const struct conv_block *bl = &m->blocks[i];

		h[0] = (char)('0' + (int)bl->kind);
		h[1] = (char)('0' + (bl->is_error != 0));
		if (!memo_put(c, h, 2) || !memo_field(c, bl->text) || !memo_field(c, bl->id) ||
		    !memo_field(c, bl->name) || !memo_field(c, bl->provider))
			return 0;
	}
	return !c->b ? c->p == c->end : 1;
}

/* A wire message as llama_cache compares it (reasoning dropped, gen_prefix taken off). */
static char *
memo_note(cJSON *m, const char *gen_prefix)
{
	const cJSON *ct = cJSON_GetObjectItemCaseSensitive(m, "content");

	cJSON_DeleteItemFromObjectCaseSensitive(m, "reasoning_content");
	if (gen_prefix && cJSON_IsString(ct) && !strncmp(ct->valuestring, gen_prefix, strlen(gen_prefix)))
		cJSON_ReplaceItemInObjectCaseSensitive(m, "content",
						       cJSON_CreateString(ct->valuestring + strlen(gen_prefix)));
	return cJSON_PrintUnformatted(m);
}

/* Print the wire messages in arr into e->json (joined by ',') and their notes. */
static void
memo_fill(struct llama_wire_memo_ent *e, cJSON *arr, const char *gen_prefix)
{
	cJSON *m;
	char *t;
	size_t n = (size_t)cJSON_GetArraySize(arr);

	buf_reset(&e->json);
	e->notes = xcalloc(n ? n : 1, sizeof *e->notes);
	e->nnotes = 0;
	cJSON_ArrayForEach(m, arr) {
		t = cJSON_PrintUnformatted(m);
		if (e->json.len)
			buf_addch(&e->json, ',');
		buf_adds(&e->json, t ? t : "{}");
		cJSON_free(t);
		e->notes[e->nnotes++] = memo_note(m, gen_prefix);
	}
}

static void
memo_note_add(struct llama_wire_memo *memo, const char *note)
{
	if (memo->nnotes == memo->capnotes) {
		memo->capnotes = memo->capnotes ? memo->capnotes * 2 : 64;
		memo->notes = xrealloc(memo->notes, memo->capnotes * sizeof *memo->notes);
	}
	memo->notes[memo->nnotes++] = note ? note : "{}";
}

/*
 * llama_wire_request_gen's bytes from the memo's entries that still hold.
 * memo->body keeps the last request up to its last message; while the
 * head, the system message and the messages before are the same, a
 * message's bytes are there already (ents[i].end), so only what changed
 * or is new is appended, and out gets one copy of the whole.
 */
void
llama_wire_request_memo(const struct cfg *cfg, const char *model, const struct provider_req *req,
			const char *gen_prefix, struct llama_wire_memo *memo, struct buf *out)
{
	static const char hole[] = ",\"messages\":[]";
	const struct conv *cv = req->conv;
	size_t lq = llama_wire_last_query(cv), i, j, first = 1, hl, pos;
	const char *lead = NULL, *at;
	struct buf src = BUF_INIT;
	struct memo_cur cmp = { NULL, NULL, NULL };
	cJSON *root = llama_wire_root(cfg, model, req), *arr;
	char *head = cJSON_PrintUnformatted(root);
	int keep, same;

	cJSON_Delete(root);
	at = head ? strstr(head, hole) : NULL; /* the first: a quote inside a string is escaped */
	if (!at) { /* cannot happen; the slow way is still right */
		cJSON_free(head);
		memo->body_ok = 0;
		memo->nnotes = 0;
		llama_wire_request_gen(cfg, model, req, gen_prefix, out);
		return;
	}
	hl = (size_t)(at - head) + strlen(",\"messages\":[");
	keep = memo->body_ok && memo->body.len >= hl && !memcmp(memo->body.data, head, (size_t)(at - head)) &&
	       !memcmp(memo->body.data + (at - head), ",\"messages\":[", hl - (size_t)(at - head));
	if (!keep) {
		buf_reset(&memo->body);
		buf_add(&memo->body, head, (size_t)(at - head));
		buf_adds(&memo->body, ",\"messages\":[");
	}
	pos = hl;
	{
		/* what every message is written with: the split, gen_prefix, the system prompt */
		struct memo_cur w = { &src, NULL, NULL };

		buf_addf(&src, "%d", lq < cv->nmsgs);
		memo_field(&w, gen_prefix);
		memo_field(&w, cv->system);
		same = keep && src.len == memo->sys_src.len && !memcmp(src.data, memo->sys_src.data, src.len);
	}
	memo->nnotes = 0;
	if (cv->system) {
		/* the system message: rebuilt when the prompt or its split changes */
		if (!memo->sys_json || !same) {
			cJSON *o = llama_wire_system(cv, &lead);

			cJSON_free(memo->sys_json);
			cJSON_free(memo->sys_note);
			memo->sys_json = cJSON_PrintUnformatted(o);
			memo->sys_note = memo_note(o, gen_prefix);
			cJSON_Delete(o);
			keep = 0;
		} else {
			const char *mark = strstr(cv->system, CONV_SESSION_MARK);

			if (mark && lq < cv->nmsgs)
				lead = mark + 2;
		}
		if (keep && memo->sys_end) {
			pos = memo->sys_end;
		} else {
			buf_setlen(&memo->body, hl);
			keep = 0;
			buf_adds(&memo->body, memo->sys_json ? memo->sys_json : "{}");
			memo->sys_end = memo->body.len;
		}
		memo_note_add(memo, memo->sys_note);
		first = 0;
	} else if (memo->sys_end) {
		keep = 0;
		buf_setlen(&memo->body, hl);
		memo->sys_end = 0;
	}
	buf_reset(&memo->sys_src);
	buf_add(&memo->sys_src, src.data, src.len);
	if (keep && !same) {
		buf_setlen(&memo->body, pos);
		keep = 0;
	}
	for (i = 0; i < cv->nmsgs; i++) {
		const struct conv_msg *m = &cv->msgs[i];
		int earlier = m->role == CONV_ASSISTANT && lq < cv->nmsgs && i < lq;
		struct llama_wire_memo_ent *e;

		if (i == memo->cap) {
			memo->cap = memo->cap ? memo->cap * 2 : 64;
			memo->ents = xrealloc(memo->ents, memo->cap * sizeof *memo->ents);
		}
		if (i == memo->n) {
			memset(&memo->ents[i], 0, sizeof memo->ents[i]);
			buf_init(&memo->ents[i].src, 0);
			buf_init(&memo->ents[i].json, 0);
			memo->n++;
		}
		e = &memo->ents[i];
		if (keep && m->gen && e->notes && e->gen == m->gen && e->earlier == earlier &&
		    e->end >= pos && e->end <= memo->body.len && e->note_end >= memo->nnotes &&
		    e->note_end <= memo->capnotes) {
			/* the same message written the same way, in the same place: nothing to read */
			pos = e->end;
			memo->nnotes = e->note_end;
			first = first && !e->json.len;
			if (e->took_lead)
				lead = NULL;
			continue;
		}
		cmp.p = e->src.data;
		cmp.end = e->src.data + e->src.len;
		if (!e->notes || e->gen != m->gen || !memo_src(&cmp, m, earlier, gen_prefix, lead)) {
			const char *l0 = lead;
			struct memo_cur w;

			memo_ent_free(e);
			buf_init(&e->src, 0);
			buf_init(&e->json, 0);
			w.b = &e->src;
			(void)memo_src(&w, m, earlier, gen_prefix, lead);
			e->gen = m->gen;
			e->earlier = earlier;
			arr = cJSON_CreateArray();
			if (m->role == CONV_ASSISTANT)
				cJSON_AddItemToArray(arr, llama_wire_assistant(m, earlier, gen_prefix));
			else
				llama_wire_user(m, arr, &lead);
			e->took_lead = l0 && !lead;
			memo_fill(e, arr, gen_prefix);
			cJSON_Delete(arr);
		} else if (e->took_lead) {
			lead = NULL;
		}
		if (keep) { /* from here on the bytes and notes are new */
			buf_setlen(&memo->body, pos);
			keep = 0;
		}
		if (e->json.len) {
			if (!first)
				buf_addch(&memo->body, ',');
			buf_add(&memo->body, e->json.data, e->json.len);
		}
		e->end = memo->body.len;
		if (e->json.len)
			first = 0;
		for (j = 0; j < e->nnotes; j++)
			memo_note_add(memo, e->notes[j]);
		e->note_end = memo->nnotes;
	}
	while (memo->n > cv->nmsgs) /* the conv got shorter (compaction, a popped turn) */
		memo_ent_free(&memo->ents[--memo->n]);
	if (keep)
		buf_setlen(&memo->body, pos);
	memo->body_ok = 1;
	buf_add(out, memo->body.data, memo->body.len);
	buf_addch(out, ']');
	buf_adds(out, at + strlen(hole));
	cJSON_free(head);
	buf_release(&src);
}

/* Free discovery strings. */
void
llama_wire_info_release(struct llama_info *info)
{
	free(info->model_id);
	free(info->build_info);
	free(info->models);
	memset(info, 0, sizeof *info);
}

/* ---- discovery ------------------------------------------------------- */

/* props.json → per-slot n_ctx, slots, build. */
int
llama_wire_props(const char *json, size_t n, struct llama_info *info, struct err *e)
{
	cJSON *root = json_parse(json, n, e), *dgs;
	const char *build;
	long v;

	if (!root)
		return -1;
	dgs = cJSON_GetObjectItemCaseSensitive(root, "default_generation_settings");
	if (json_long(dgs, "n_ctx", &v) == 0)
		info->n_ctx = v;
	if (json_long(root, "total_slots", &v) == 0)
		info->total_slots = (int)v;
	if ((build = json_str(root, "build_info")) != NULL) {
		free(info->build_info);
		info->build_info = xstrdup(build);
	}
	cJSON_Delete(root);
	return 0;
}

/* v1_models.json → model id and n_ctx_train. */
int
llama_wire_models(const char *json, size_t n, struct llama_info *info, struct err *e)
{
	return llama_wire_models_for(json, n, NULL, info, e);
}

/*
 * Several models behind one URL: "id (status)" lines into info->models
 * (the status of llama-server's router mode is an object with "value",
 * other servers may give a string); NULL when there is one model.
 */
static void
llama_wire_model_list(const cJSON *data, struct llama_info *info)
{
	struct buf b = BUF_INIT;
	const cJSON *it;
	int n = 0;

	free(info->models);
	info->models = NULL;
	cJSON_ArrayForEach(it, data) {
		const char *id = json_str(it, "id");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
		const char *sv = cJSON_IsString(st) ? st->valuestring : json_str(st, "value");

		if (!id)
			continue;
		n++;
		buf_addf(&b, "%s%.120s", b.len ? "\n" : "", id);
		if (sv && *sv)
			buf_addf(&b, " (%.40s%s)", sv, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "failed")) ?
				 ", failed" : "");
	}
	if (n > 1)
		info->models = buf_detach(&b, NULL);
	buf_release(&b);
}

/*
 * llama-server's router mode states how it starts a model in its entry
 * (status.args: the command line): the per-slot context is --ctx-size
 * divided among --parallel slots (the whole of it with --kv-unified or
 * without --parallel, as -np auto unifies the cache); 0 when not stated.
 */
static long
llama_wire_args_ctx(const cJSON *entry)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "status"), "args");
	const cJSON *a;
	long ctx = 0, np = 0;
	int unified = 0;
	const char *prev = NULL;

	cJSON_ArrayForEach(a, args) {
		const char *s = cJSON_IsString(a) ? a->valuestring : NULL;

		if (!s)
			continue;
		if (prev && (!strcmp(prev, "--ctx-size") || !strcmp(prev, "-c")))
			ctx = strtol(s, NULL, 10);
		else if (prev && (!strcmp(prev, "--parallel") || !strcmp(prev, "-np")))
			np = strtol(s, NULL, 10);
		unified |= !strcmp(s, "--kv-unified") || !strcmp(s, "-kvu");
		prev = s;
	}
	if (ctx <= 0 || ctx > 100000000L)
		return 0;
	return unified || np <= 1 ? ctx : ctx / np;
}

/* The entry for want (else the first) → model id, n_ctx_train and the stated context. */
int
llama_wire_models_for(const char *json, size_t n, const char *want, struct llama_info *info,
		      struct err *e)
{
	static const char *const ctx_keys[] = { "max_model_len", "context_length", "context_window",
						"max_context_length" };
	cJSON *root = json_parse(json, n, e), *data, *first, *it;
	const char *id;
	long v;
	size_t i;

	if (!root)
		return -1;
	data = cJSON_GetObjectItemCaseSensitive(root, "data");
	first = cJSON_IsArray(data) ? cJSON_GetArrayItem(data, 0) : NULL;
	if (cJSON_IsArray(data))
		llama_wire_model_list(data, info);
	if (want && cJSON_IsArray(data))
		cJSON_ArrayForEach(it, data) {
			const char *wid = json_str(it, "id");

			if (wid && !strcmp(wid, want)) {
				first = it;
				break;
			}
		}
	if ((id = json_str(first, "id")) != NULL) {
		free(info->model_id);
		info->model_id = xstrdup(id);
	}
	if (json_long(cJSON_GetObjectItemCaseSensitive(first, "meta"), "n_ctx_train", &v) == 0)
		info->n_ctx_train = v;
	info->ctx_meta = 0;
	for (i = 0; i < sizeof ctx_keys / sizeof ctx_keys[0] && !info->ctx_meta; i++)
		if (json_long(first, ctx_keys[i], &v) == 0 && v > 0)
			info->ctx_meta = v;
	if (!info->ctx_meta && json_long(cJSON_GetObjectItemCaseSensitive(first, "meta"), "n_ctx", &v) == 0 &&
	    v > 0)
		info->ctx_meta = v;
	if (!info->ctx_meta)
		info->ctx_meta = llama_wire_args_ctx(first);
	info->model_loading = 0;
	if (first) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(first, "status");
		const char *sv = cJSON_IsString(st) ? st->valuestring : json_str(st, "value");

		info->model_loading = sv && (!strcmp(sv, "unloaded") || !strcmp(sv, "loading"));
	}
	cJSON_Delete(root);
	if (!id)
		return err_set(e, "/v1/models has no model id");
	return 0;
}

/* /slots array → slot states (next_token is an array in current servers). */
int
llama_wire_slots(const char *json, size_t n, struct llama_slot **out, size_t *nout,
		  struct err *e)
{
	cJSON *root = json_parse(json, n, e), *it;
	size_t i = 0;
	long v;

	*out = NULL;
	*nout = 0;
	if (!root)
		return -1;
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return err_set(e, "/slots did not return an array");
	}
	*out = xcalloc((size_t)cJSON_GetArraySize(root) + 1, sizeof **out);
	cJSON_ArrayForEach(it, root) {
		struct llama_slot *s = &(*out)[i++];
		cJSON *nt = cJSON_GetObjectItemCaseSensitive(it, "next_token");

		if (cJSON_IsArray(nt))
			nt = cJSON_GetArrayItem(nt, 0);
		s->id = json_long(it, "id", &v) == 0 ? (int)v : (int)i - 1;
		s->n_ctx = json_long(it, "n_ctx", &v) == 0 ? v : 0;
		s->is_processing = json_bool(it, "is_processing", &s->is_processing) == 0 &&
				   s->is_processing;
		s->id_task = json_long(it, "id_task", &v) == 0 ? v : -1;
		s->n_prompt_tokens = json_long(it, "n_prompt_tokens", &v) == 0 ? v : 0;
		s->n_prompt_tokens_processed =
			json_long(it, "n_prompt_tokens_processed", &v) == 0 ? v : 0;
		s->n_prompt_tokens_cache = json_long(it, "n_prompt_tokens_cache", &v) == 0 ? v : 0;
		s->n_decoded = json_long(nt, "n_decoded", &v) == 0 ? v : 0;
		s->n_remain = json_long(nt, "n_remain", &v) == 0 ? v : -1;
	}
	*nout = i;
	cJSON_Delete(root);
	return 0;
}

/* Drop llama-server's own request fields. */
void
llama_wire_plain(struct buf *body)
{
	static const char *const own[] = { "return_progress", "cache_prompt", "id_slot" };
	cJSON *root = json_parse(body->data, body->len, NULL);
	char *out;
	size_t i;

	if (!root)
		return;
	for (i = 0; i < sizeof own / sizeof own[0]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(root, own[i]);
	out = cJSON_PrintUnformatted(root);
	buf_reset(body);
	buf_adds(body, out);
	cJSON_free(out);
	cJSON_Delete(root);
}

/* The gauges a server's load is read from (struct llama_load): name, and whether it counts the queue. */
static const struct {
	const char *name;
	int waiting;
} llama_wire_gauges[] = {
	{ "llamacpp:requests_processing", 0 }, { "llamacpp:requests_deferred", 1 },
	{ "vllm:num_requests_running", 0 },    { "vllm:num_requests_waiting", 1 },
	{ "sglang:num_running_reqs", 0 },      { "sglang:num_queue_reqs", 1 },
};

/* One sample line "NAME{labels} VALUE [TIMESTAMP]" of /metrics; comments and other names skipped. */
static void
llama_wire_load_line(const char *l, size_t n, struct llama_load *out)
{
	size_t i, k, len;
	char num[64];
	double v;
	char *end;

	for (i = 0; i < sizeof llama_wire_gauges / sizeof llama_wire_gauges[0]; i++) {
		len = strlen(llama_wire_gauges[i].name);
		if (n <= len || memcmp(l, llama_wire_gauges[i].name, len) != 0 || (l[len] != ' ' && l[len] != '{'))
			continue;
		k = len;
		if (l[k] == '{') { /* labels: to the closing brace outside quotes */
			int q = 0;

			for (k++; k < n && (q || l[k] != '}'); k++)
				if (l[k] == '\\' && q && k + 1 < n)
					k++;
				else if (l[k] == '"')
					q = !q;
			if (k >= n)
				return;
			k++;
		}
		while (k < n && l[k] == ' ')
			k++;
		for (len = 0; k + len < n && l[k + len] != ' ' && len < sizeof num - 1; len++)
			num[len] = l[k + len];
		num[len] = 0;
		v = strtod(num, &end);
		if (!len || *end || v != v || v < 0 || v > 1e9) /* NaN, negative or absurd: not a count */
			return;
		out->known = 1;
		if (llama_wire_gauges[i].waiting)
			out->waiting += v;
		else
			out->running += v;
		return;
	}
}

/* /metrics text → the server's load (see llama/wire.h). */
int
llama_wire_load(const char *text, size_t n, struct llama_load *out)
{
	size_t i = 0, j;

	memset(out, 0, sizeof *out);
	while (text && i < n) {
		for (j = i; j < n && text[j] != '\n'; j++)
			;
		if (j > i && text[i] != '#')
			llama_wire_load_line(text + i, j - i - (text[j - 1] == '\r'), out);
		i = j + 1;
	}
	return out->known ? 0 : -1;
}

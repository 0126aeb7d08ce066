/*
 * llm/toolset: offered and deferred tools (see llm/toolset.h).  Both lists are
 * small fixed arrays; a found tool is removed from `deferred` (order of
 * the rest kept) and appended to `offered`.
 */
#include "llm/toolset.h"

#include <ctype.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm/conv.h"
#include "base/json.h"
#include "llm/tool.h"

/* Whether t is a core tool (TOOL_CORE: offered up front). */
int
toolset_is_core(const struct tool *t)
{
	return (t->flags & TOOL_CORE) != 0;
}

/* Bytes of the schema entry as the wire sends it, in tokens (about 4 bytes each). */
static long
toolset_schema_tokens(const struct tool *t)
{
	/* {"type":"function","function":{"name":"","description":"","parameters":}} */
	size_t bytes = 72 + strlen(t->name) + strlen(t->description) + strlen(t->schema_json);

	return (long)((bytes + 3) / 4);
}

/* Tokens not sent per request if the non-core tools are deferred (tool_search's own counted against). */
long
toolset_deferrable_tokens(const struct tool *const *enabled, size_t n, const struct tool *search)
{
	long tok = 0;
	size_t i, ndefer = 0;

	for (i = 0; i < n; i++)
		if (!toolset_is_core(enabled[i]) && enabled[i] != search) {
			tok += toolset_schema_tokens(enabled[i]);
			ndefer++;
		}
	return ndefer && search ? tok - toolset_schema_tokens(search) : tok;
}

/* Defer or not: the setting, or in auto mode whether the saving is worth a load's re-prefill. */
int
toolset_want_defer(const struct tool *const *enabled, size_t n, int mode, long min_tokens,
		   const struct tool *search)
{
	if (mode >= 0)
		return mode != 0;
	return toolset_deferrable_tokens(enabled, n, search) >= min_tokens;
}

/* Split enabled into offered and deferred. */
void
toolset_init(struct toolset *ts, const struct tool *const *enabled, size_t n, int defer,
	     const struct tool *search)
{
	size_t i, ndefer = 0;

	memset(ts, 0, sizeof *ts);
	for (i = 0; i < n; i++)
		if (!toolset_is_core(enabled[i]))
			ndefer++;
	for (i = 0; i < n && ts->noffered < TOOLSET_MAX - 1; i++) {
		if (defer && ndefer && !toolset_is_core(enabled[i])) {
			ts->deferred[ts->ndeferred++] = enabled[i];
			ts->saved_tokens += toolset_schema_tokens(enabled[i]);
		} else {
			ts->offered[ts->noffered++] = enabled[i];
		}
	}
	if (ts->ndeferred && search) {
		ts->offered[ts->noffered++] = search;
		ts->saved_tokens -= toolset_schema_tokens(search);
	}
}

/* Whether t is among v[0..n). */
static int
toolset_has(const struct tool *const *v, size_t n, const struct tool *t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == t)
			return 1;
	return 0;
}

/* Drop from v[0..*n) the extension tools (not built in, not tool_search) missing from extra. */
static void
toolset_drop_gone(const struct tool **v, size_t *n, const struct tool *const *extra, size_t nx)
{
	size_t nb, i, k = 0;
	const struct tool *const *builtin = tool_all(&nb);

	for (i = 0; i < *n; i++)
		if (v[i] == &tool_search || toolset_has(builtin, nb, v[i]) || toolset_has(extra, nx, v[i]))
			v[k++] = v[i];
	*n = k;
}

/* Auto mode: remember the threshold (see llm/toolset.h). */
void
toolset_auto(struct toolset *ts, long min_tokens, const struct tool *search)
{
	ts->auto_min = min_tokens > 0 ? min_tokens : 1;
	ts->search = search;
}

/* Auto mode before the first request: defer after all once the offered non-core schemas are worth it. */
static void
toolset_auto_switch(struct toolset *ts)
{
	size_t i, k = 0;
	long tok;

	if (ts->auto_min <= 0 || ts->sent || !ts->search || toolset_has(ts->offered, ts->noffered, ts->search))
		return;
	tok = toolset_deferrable_tokens(ts->offered, ts->noffered, ts->search);
	if (tok < ts->auto_min)
		return;
	for (i = 0; i < ts->noffered; i++) {
		if (toolset_is_core(ts->offered[i]))
			ts->offered[k++] = ts->offered[i];
		else if (ts->ndeferred < TOOLSET_MAX)
			ts->deferred[ts->ndeferred++] = ts->offered[i];
	}
	ts->noffered = k;
	ts->offered[ts->noffered++] = ts->search;
	ts->saved_tokens = tok;
}

/* Extension tools among the offered and the deferred. */
void
toolset_extension_counts(const struct toolset *ts, size_t *offered, size_t *deferred)
{
	size_t nx, i;
	const struct tool *const *x = tool_extra(&nx);

	*offered = *deferred = 0;
	for (i = 0; i < ts->noffered; i++)
		*offered += toolset_has(x, nx, ts->offered[i]);
	for (i = 0; i < ts->ndeferred; i++)
		*deferred += toolset_has(x, nx, ts->deferred[i]);
}

/* Offered, then deferred. */
size_t
toolset_listing(const struct toolset *ts, const struct tool **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < ts->noffered && n < max; i++)
		out[n++] = ts->offered[i];
	for (i = 0; i < ts->ndeferred && n < max; i++)
		out[n++] = ts->deferred[i];
	return n;
}

/*
 * The offered list is full: move extension tools from its end to the
 * deferred list until TOOLSET_LOAD_ROOM places are free for tool_search
 * to load into, and offer tool_search.
 */
static void
toolset_make_searchable(struct toolset *ts)
{
	size_t nb;
	const struct tool *const *builtin = tool_all(&nb);
	const struct tool *moved[TOOLSET_MAX];
	size_t nmoved = 0, i;

	if (toolset_has(ts->offered, ts->noffered, &tool_search))
		return;
	while (ts->noffered + 1 + TOOLSET_LOAD_ROOM > TOOLSET_MAX && ts->noffered &&
	       !toolset_has(builtin, nb, ts->offered[ts->noffered - 1]))
		moved[nmoved++] = ts->offered[--ts->noffered];
	for (i = nmoved; i-- > 0;) {
		if (ts->ndeferred < TOOLSET_DEFER_MAX) {
			ts->deferred[ts->ndeferred++] = moved[i];
			ts->overflow++;
		} else {
			ts->dropped++;
		}
	}
	if (ts->noffered < TOOLSET_MAX)
		ts->offered[ts->noffered++] = &tool_search;
}

/* Follow the registered extension tools (see llm/toolset.h). */
void
toolset_sync(struct toolset *ts, const struct tool *const *extra, size_t n)
{
	int searchable = toolset_has(ts->offered, ts->noffered, &tool_search);
	int forced = ts->overflow > 0; /* searchable only because the list filled up */
	size_t i, before = ts->ndeferred;

	toolset_drop_gone(ts->offered, &ts->noffered, extra, n);
	toolset_drop_gone(ts->deferred, &ts->ndeferred, extra, n);
	if (forced && ts->ndeferred < before)
		ts->overflow -= ts->overflow < before - ts->ndeferred ? ts->overflow : before - ts->ndeferred;
	ts->dropped = 0;
	for (i = 0; i < n; i++) {
		if (toolset_has(ts->offered, ts->noffered, extra[i]) ||
		    toolset_has(ts->deferred, ts->ndeferred, extra[i]))
			continue;
		if (!searchable && ts->noffered < TOOLSET_MAX - 1) {
			ts->offered[ts->noffered++] = extra[i];
			continue;
		}
		if (!searchable) { /* full: the rest wait behind tool_search */
			toolset_make_searchable(ts);
			searchable = forced = 1;
		}
		if (ts->ndeferred >= TOOLSET_DEFER_MAX) {
			ts->dropped++;
			continue;
		}
		ts->deferred[ts->ndeferred++] = extra[i];
		ts->overflow += forced;
	}
	toolset_auto_switch(ts);
}

/* Whether hay contains needle (lowercase), ignoring case. */
static int
toolset_contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	for (; *hay; hay++) {
		for (i = 0; i < n && hay[i] && tolower((unsigned char)hay[i]) == needle[i]; i++)
			;
		if (i == n)
			return 1;
	}
	return 0;
}

/*
 * Whether query names t: "*" or "all", the tool's name, or (unless
 * by_name) any word of three letters or more found in its name or
 * description.
 */
static int
toolset_matches(const struct tool *t, const char *query, int by_name)
{
	char word[64];
	const char *p = query;

	while (*p) {
		size_t n = 0;

		while (*p && !isalnum((unsigned char)*p) && *p != '_' && *p != '*')
			p++;
		while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '*')) {
			if (n < sizeof word - 1)
				word[n++] = (char)tolower((unsigned char)*p);
			p++;
		}
		word[n] = '\0';
		if (!strcmp(word, "*") || !strcmp(word, "all") || !strcmp(word, t->name))
			return 1;
		if (!by_name && n >= 3 && (toolset_contains(t->name, word) || toolset_contains(t->description, word)))
			return 1;
	}
	return 0;
}

/* The first line of a description (up to 100 bytes) for listings. */
static void
toolset_summary(const struct tool *t, struct buf *out)
{
	size_t n = strcspn(t->description, "\n");

	buf_addf(out, "%s: %.*s\n", t->name, (int)(n > 100 ? 100 : n), t->description);
}

/* Move matching deferred tools to the end of the offered list. */
size_t
toolset_search(struct toolset *ts, const char *query, struct buf *out)
{
	size_t i, j = 0, added = 0, nofit = 0;
	int by_name = 0;

	for (i = 0; i < ts->ndeferred; i++) /* a tool named in the query: just that one */
		by_name |= toolset_matches(ts->deferred[i], query, 1);
	for (i = 0; i < ts->ndeferred; i++) {
		const struct tool *t = ts->deferred[i];

		if (!toolset_matches(t, query, by_name)) {
			ts->deferred[j++] = t;
		} else if (ts->noffered < TOOLSET_MAX) {
			ts->offered[ts->noffered++] = t;
			ts->saved_tokens -= toolset_schema_tokens(t);
			buf_adds(out, "loaded ");
			toolset_summary(t, out);
			added++;
		} else { /* no room: it still runs when called by name */
			if (!nofit++)
				buf_addf(out, "the tool list is full (%d tools); these match and can be called "
					 "by name with arguments following their schema:\n", TOOLSET_MAX);
			if (nofit <= 10) {
				toolset_summary(t, out);
				buf_addf(out, "  schema: %s\n", t->schema_json);
			} else if (nofit == 11) {
				buf_adds(out, "(more match: narrow the query or name the tool)\n");
			}
			ts->deferred[j++] = t;
		}
	}
	ts->ndeferred = j;
	ts->added += (int)added;
	if (added || nofit)
		return added;
	for (i = 0; i < ts->noffered; i++)
		if (!strcmp(ts->offered[i]->name, query))
			buf_addf(out, "%s is already available\n", ts->offered[i]->name);
	if (!ts->ndeferred) {
		buf_adds(out, "no more tools to load: every tool is already available\n");
		return 0;
	}
	buf_addf(out, "no tool matches \"%s\"; tools that can be loaded:\n", query);
	for (i = 0; i < ts->ndeferred; i++)
		toolset_summary(ts->deferred[i], out);
	return 0;
}

/* Whether the tool called `name` among ts's is a discovery tool (tool_search). */
static int
toolset_discovers(const struct toolset *ts, const char *name)
{
	size_t i;

	if (!name)
		return 0;
	if (ts->search && !strcmp(ts->search->name, name))
		return (ts->search->flags & TOOL_DISCOVERY) != 0;
	for (i = 0; i < ts->noffered; i++)
		if (!strcmp(ts->offered[i]->name, name))
			return (ts->offered[i]->flags & TOOL_DISCOVERY) != 0;
	return 0;
}

/* Replay the queries of every tool_search call in c, in order. */
void
toolset_replay(struct toolset *ts, const struct conv *c)
{
	struct buf sink = BUF_INIT;
	size_t i, j;

	for (i = 0; i < c->nmsgs; i++)
		for (j = 0; j < c->msgs[i].nblocks; j++) {
			const struct conv_block *b = &c->msgs[i].blocks[j];
			cJSON *args;
			const char *q;

			if (b->kind != CONV_TOOL_CALL || !toolset_discovers(ts, b->name))
				continue;
			args = cJSON_Parse(b->text ? b->text : "");
			if ((q = json_str(args, "query")) != NULL && *q)
				toolset_search(ts, q, &sink);
			cJSON_Delete(args);
			buf_reset(&sink);
		}
	buf_release(&sink);
}

/* Tools loaded since the last request: say so (a planned cache break) and make this the baseline. */
int
toolset_take_loaded(struct toolset *ts, struct buf *why)
{
	size_t i, first = ts->sent;

	ts->sent = ts->noffered;
	if (!first || ts->noffered <= first)
		return 0;
	buf_adds(why, why->len ? "; tools loaded (" : "tools loaded (");
	for (i = first; i < ts->noffered; i++)
		buf_addf(why, "%s%s", i > first ? ", " : "", ts->offered[i]->name);
	buf_adds(why, "): the tool list, rendered before the conversation, changed");
	return 1;
}

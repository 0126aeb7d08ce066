/*
 * route/route: the routing decision (see route/route.h for the contract,
 * docs/routing.md for the policy).
 *
 * Rules are a table of small checkers, one per failure signal, each
 * writing its human reason into a fixed buffer; route_decide runs them in
 * table order and then applies the guards.
 */
#include "route/route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/json.h"
#include "base/xmalloc.h"

typedef int (*route_check_fn)(const struct route_policy *p, const struct route_signals *s,
			      int threshold, char *why, size_t n);

/* "local" or "claude", for reasons and the log. */
const char *
route_target_name(enum route_target t)
{
	return t == ROUTE_CLAUDE ? "claude" : "local";
}

/* Tokens as people say them: 812, 58k; a power-of-two context as 64k. */
static void
route_ktok(char *out, size_t n, long t, int ctx)
{
	snprintf(out, n, t < 1000 ? "%ld" : "%ldk", t < 1000 ? t :
		 ctx && t % 1024 == 0 ? t / 1024 : (t + 500) / 1000);
}

/* Local server down. */
static int
route_check_server(const struct route_policy *p, const struct route_signals *s, int th,
		   char *why, size_t n)
{
	(void)p, (void)th;
	if (s->server_down)
		snprintf(why, n, "the local server is unreachable or unhealthy");
	return s->server_down != 0;
}

/* N tool-call parse/validation failures in a row. */
static int
route_check_failures(const struct route_policy *p, const struct route_signals *s, int th,
		     char *why, size_t n)
{
	(void)p;
	if (s->consecutive_tool_failures >= th)
		snprintf(why, n, "%d failed tool calls in a row", s->consecutive_tool_failures);
	return s->consecutive_tool_failures >= th;
}

/* Whether two calls are the same call with the same arguments. */
static int
route_same_call(const struct route_call *a, const struct route_call *b)
{
	return a->name && b->name && strcmp(a->name, b->name) == 0 &&
	       strcmp(a->args ? a->args : "", b->args ? b->args : "") == 0;
}

/* The newest call appears K times in the window (a loop). */
static int
route_check_repeat(const struct route_policy *p, const struct route_signals *s, int th,
		   char *why, size_t n)
{
	const struct route_call *last;
	size_t i;
	int count = 0;

	(void)p;
	if (!s->calls || s->ncalls == 0)
		return 0;
	last = &s->calls[s->ncalls - 1];
	for (i = 0; i < s->ncalls; i++)
		count += route_same_call(&s->calls[i], last);
	if (count >= th)
		snprintf(why, n, "the same %.40s call repeated %d times (a loop)", last->name, count);
	return count >= th;
}

/* The newest test command failed after M edit->test cycles. */
static int
route_check_tests(const struct route_policy *p, const struct route_signals *s, int th,
		  char *why, size_t n)
{
	const struct route_test *last;
	size_t i;
	int cycles = 0;

	(void)p;
	last = s->tests && s->ntests ? &s->tests[s->ntests - 1] : NULL;
	if (!last || last->passed || !last->command)
		return 0;
	for (i = s->ntests; i-- > 0;) {
		if (!s->tests[i].command || strcmp(s->tests[i].command, last->command) != 0)
			continue;
		if (s->tests[i].passed)
			break;
		cycles += s->tests[i].after_edit != 0;
	}
	if (cycles >= th)
		snprintf(why, n, "`%.60s` still failing after %d edit-test cycles", last->command,
			 cycles);
	return cycles >= th;
}

/* The step limit was reached and nothing changed. */
static int
route_check_steps(const struct route_policy *p, const struct route_signals *s, int th,
		  char *why, size_t n)
{
	(void)p, (void)th;
	if (s->max_steps_hit && !s->files_changed)
		snprintf(why, n, "step limit reached with no file changed");
	return s->max_steps_hit && !s->files_changed;
}

/* The prompt would overflow the local slot. */
static int
route_check_context(const struct route_policy *p, const struct route_signals *s, int th,
		    char *why, size_t n)
{
	char a[32], b[32];

	(void)th;
	if (s->n_ctx <= 0 || (double)s->prompt_tokens <= p->context_fraction * (double)s->n_ctx)
		return 0;
	route_ktok(a, sizeof a, s->prompt_tokens, 0);
	route_ktok(b, sizeof b, s->n_ctx, 1);
	snprintf(why, n, "prompt \xe2\x89\x88 %s tokens > %.0f%% of the local %s context", a,
		 p->context_fraction * 100, b);
	return 1;
}

static const route_check_fn route_checks[ROUTE_RULE_COUNT] = {
	route_check_server, route_check_failures, route_check_repeat,
	route_check_tests, route_check_steps, route_check_context,
};

/* The first task pattern that matches; its index or -1. */
static int
route_match_pattern(const struct route_policy *p, const char *task)
{
	const char *at;
	size_t i;

	for (i = 0; task && i < p->npatterns; i++) {
		if (p->patterns[i].is_regex && regexec(&p->patterns[i].re, task, 0, NULL, 0) == 0)
			return (int)i;
		for (at = task; !p->patterns[i].is_regex && *at; at++)
			if (strncasecmp(at, p->patterns[i].text, strlen(p->patterns[i].text)) == 0)
				return (int)i;
	}
	return -1;
}

/* Auto mode: the first rule that fires; 1 with d->mode and d->reason set. */
static int
route_auto(const struct route_policy *p, const struct route_signals *s,
	   struct route_decision *d)
{
	const struct route_rule *r;
	int i;

	for (i = 0, r = p->rules; i < ROUTE_RULE_COUNT; i++, r++)
		if (r->enabled && route_checks[i](p, s, r->threshold, d->reason, sizeof d->reason)) {
			d->mode = r->mode;
			d->rule = i;
			return 1;
		}
	i = route_match_pattern(p, s->task);
	if (i < 0)
		return 0;
	d->mode = p->patterns[i].mode;
	d->rule = ROUTE_RULE_COUNT;
	snprintf(d->reason, sizeof d->reason, p->patterns[i].is_regex ?
		 "task matches /%.80s/" : "task mentions \"%.80s\"", p->patterns[i].text);
	if (p->patterns[i].tier) { /* a local tier: no guard applies */
		d->tier = p->patterns[i].tier;
		return 0;
	}
	return 1;
}

/* Claude was wanted: apply the guards; 1 when one of them keeps it local. */
static int
route_guard(const struct route_policy *p, const struct route_signals *s,
	    struct route_decision *d)
{
	unsigned bit;
	char head[ROUTE_REASON_MAX];

	if (p->mode == ROUTE_ONLY_LOCAL) {
		bit = ROUTE_TOLD_LOCAL;
		snprintf(head, sizeof head, "routing mode is local");
	} else if (!s->have_key) {
		bit = ROUTE_TOLD_NO_KEY;
		snprintf(head, sizeof head, "no ANTHROPIC_API_KEY");
	} else if (s->spent_session_usd >= p->spend_cap_session_usd) {
		bit = ROUTE_TOLD_CAP;
		snprintf(head, sizeof head, "session spend cap $%.2f reached ($%.2f spent)",
			 p->spend_cap_session_usd, s->spent_session_usd);
	} else if (s->spent_day_usd >= p->spend_cap_day_usd) {
		bit = ROUTE_TOLD_CAP;
		snprintf(head, sizeof head, "daily spend cap $%.2f reached ($%.2f spent today)",
			 p->spend_cap_day_usd, s->spent_day_usd);
	} else {
		return 0;
	}
	d->blocked = 1;
	snprintf(d->blocked_why, sizeof d->blocked_why, "%s: staying local (would escalate: %s)",
		 head, d->reason);
	d->notify = !(s->told & bit);
	d->told |= bit;
	return 1;
}

/* Decide (see route/route.h). */
void
route_decide(const struct route_policy *p, const struct route_signals *s,
	     enum route_request req, struct route_decision *d)
{
	int want = 1;

	memset(d, 0, sizeof *d);
	d->target = ROUTE_LOCAL;
	d->mode = ROUTE_HANDOFF;
	d->told = s->told;
	d->rule = -1;
	if (req == ROUTE_REQ_LOCAL) {
		snprintf(d->reason, sizeof d->reason, "requested with /local");
		return;
	}
	if (req == ROUTE_REQ_CLAUDE || req == ROUTE_REQ_AT_CLAUDE)
		snprintf(d->reason, sizeof d->reason, "requested with %s",
			 req == ROUTE_REQ_CLAUDE ? "/claude" : "@claude");
	else if (p->mode == ROUTE_ONLY_CLAUDE)
		snprintf(d->reason, sizeof d->reason, "routing mode is claude");
	else
		want = route_auto(p, s, d);
	if (want && !route_guard(p, s, d))
		d->target = ROUTE_CLAUDE;
}

/* Text after a leading @claude. */
const char *
route_strip_at_claude(const char *text)
{
	const char *t;

	if (!text)
		return NULL;
	t = text + strspn(text, " \t\r\n");
	if (strncasecmp(t, "@claude", 7) != 0 || (t[7] && !strchr(" \t\r\n:,", t[7])))
		return NULL;
	t += 7 + (t[7] == ':' || t[7] == ',');
	return t + strspn(t, " \t\r\n");
}

/* qsort order of object members by key. */
static int
route_key_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;

	return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

/* Sort every object's members by key, recursively. */
static void
route_sort_json(cJSON *o)
{
	cJSON **items, *it;
	size_t n = 0, i;

	for (it = o->child; it; it = it->next)
		route_sort_json(it);
	if (!cJSON_IsObject(o) || !o->child)
		return;
	items = xmalloc((size_t)cJSON_GetArraySize(o) * sizeof *items);
	while (o->child)
		items[n++] = cJSON_DetachItemViaPointer(o, o->child);
	qsort(items, n, sizeof *items, route_key_cmp);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(o, items[i]);
	free(items);
}

/* Canonical arguments for repeat detection. */
void
route_canon_args(const char *json, struct buf *out)
{
	size_t len = json ? strlen(json) : 0;
	cJSON *t = len ? json_parse(json, len, NULL) : NULL;
	char *s;

	if (!t) {
		buf_adds(out, json ? json : "");
		return;
	}
	route_sort_json(t);
	s = json_print(t);
	buf_adds(out, s);
	free(s);
	cJSON_Delete(t);
}

/* Whether cmd runs a test: one of the test_commands as whole words. */
int
route_is_test_command(const struct route_policy *p, const char *cmd)
{
	const char *at;
	size_t i, n;

	for (i = 0; cmd && i < p->ntest_commands; i++)
		for (at = cmd, n = strlen(p->test_commands[i]);
		     n && (at = strstr(at, p->test_commands[i])) != NULL; at++)
			if ((at == cmd || strchr(" \t;&|(/'\"", at[-1])) &&
			    (!at[n] || strchr(" \t;&|)'\"", at[n])))
				return 1;
	return 0;
}

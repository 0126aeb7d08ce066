/*
 * route/route: the routing decision, costs, the privacy list and the outcomes
 * log (see route/route.h for the contract, docs/routing.md for the policy).
 *
 * Rules are a table of small checkers, one per failure signal, each
 * writing its human reason into a fixed buffer; route_decide runs them in
 * table order and then applies the guards.  The outcomes log is JSONL,
 * one object per finished turn, only ever appended to.
 */
#include "route/route.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "route/config.h"
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
			return 1;
		}
	i = route_match_pattern(p, s->task);
	if (i < 0)
		return 0;
	d->mode = p->patterns[i].mode;
	snprintf(d->reason, sizeof d->reason, p->patterns[i].is_regex ?
		 "task matches /%.80s/" : "task mentions \"%.80s\"", p->patterns[i].text);
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

/* The price entry for model: exact, else the longest prefix; NULL if none. */
static const struct route_price *
route_find_price(const struct route_policy *p, const char *model)
{
	const struct route_price *best = NULL;
	size_t i, len, best_len = 0;

	for (i = 0; model && i < p->nprices; i++) {
		len = strlen(p->prices[i].model);
		if (strncmp(p->prices[i].model, model, len) == 0 &&
		    (model[len] == '\0' || model[len] == '-' || model[len] == '@') && len > best_len) {
			best = &p->prices[i];
			best_len = len;
		}
	}
	return best;
}

/* Cost of usage (see route/route.h). */
int
route_cost_usd(const struct route_policy *p, const char *model, const struct route_usage *u,
	       double *usd)
{
	const struct route_price *pr = route_find_price(p, model);
	struct route_price w = { NULL, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; !pr && i < p->nprices; i++) {
		w.input = fmax(w.input, p->prices[i].input);
		w.output = fmax(w.output, p->prices[i].output);
		w.cache_write = fmax(w.cache_write, p->prices[i].cache_write);
		w.cache_read = fmax(w.cache_read, p->prices[i].cache_read);
	}
	if (pr)
		w = *pr;
	*usd = ((double)u->input * w.input + (double)u->output * w.output +
		(double)u->cache_write * w.cache_write + (double)u->cache_read * w.cache_read) / 1e6;
	return pr ? 0 : -1;
}

/* The privacy glob covering path, or NULL. */
static const char *
route_privacy_glob(const struct route_policy *p, const char *path)
{
	const char *t;
	size_t i;

	if (!path || !*path)
		return NULL;
	for (i = 0; i < p->nprivacy; i++) {
		if (fs_glob_match(p->privacy[i], path))
			return p->privacy[i];
		for (t = strchr(p->privacy[i], '/') ? strchr(path, '/') : NULL; t;
		     t = strchr(t + 1, '/'))
			if (t[1] && fs_glob_match(p->privacy[i], t + 1))
				return p->privacy[i];
	}
	return NULL;
}

/* Whether path is private. */
int
route_privacy_match(const struct route_policy *p, const char *path)
{
	return route_privacy_glob(p, path) != NULL;
}

/* Content or its notice. */
int
route_redact(const struct route_policy *p, const char *path, const char *content, size_t len,
	     struct buf *out)
{
	const char *g = route_privacy_glob(p, path);

	if (!g) {
		buf_add(out, content ? content : "", content ? len : 0);
		return 0;
	}
	buf_addf(out, "[hearth: the contents of %s (%zu bytes) are not shown to Claude: "
		 "it matches the privacy glob \"%s\" (routing.privacy)]", path, len, g);
	return 1;
}

/* One outcome as a JSON line (newline included). */
static void
route_outcome_line(const struct route_outcome *o, struct buf *b)
{
	char ts[32];
	struct tm tm;
	time_t t = o->ts ? o->ts : time(NULL);
	const char *r = o->reason ? o->reason : "";

	gmtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_addf(b, "{\"ts\":\"%s\",\"route\":\"%s\"", ts, route_target_name(o->target));
	if (o->target == ROUTE_CLAUDE)
		buf_addf(b, ",\"mode\":\"%s\"", route_config_mode_name(o->mode));
	buf_adds(b, ",\"reason\":");
	json_add_escaped(b, r, strlen(r));
	buf_addf(b, ",\"steps\":%d,\"answered\":%s,\"files_changed\":%s,"
		 "\"tokens\":{\"input\":%ld,\"output\":%ld,\"cache_write\":%ld,\"cache_read\":%ld},"
		 "\"cost_usd\":%.6f,\"wall_s\":%.3f}\n", o->steps, o->answered ? "true" : "false",
		 o->files_changed ? "true" : "false", o->tokens.input, o->tokens.output,
		 o->tokens.cache_write, o->tokens.cache_read, o->cost_usd, o->wall_s);
}

/* Write all n bytes. */
static int
route_write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w, n -= (size_t)w;
	}
	return 0;
}

/* Append one outcome line. */
int
route_outcome_append(const char *path, const struct route_outcome *o, struct err *e)
{
	struct buf line = BUF_INIT, dir = BUF_INIT;
	const char *slash = strrchr(path, '/');
	struct stat st;
	char last = '\n';
	int fd, rc = 0;

	if (slash && slash != path) {
		buf_add(&dir, path, (size_t)(slash - path));
		rc = fs_mkdirs(dir.data, e);
		buf_release(&dir);
		if (rc < 0)
			return -1;
	}
	fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno(e, "open %s", path);
	/* A torn last line (crash mid-write) must not swallow this one. */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	if (last != '\n')
		buf_addch(&line, '\n');
	route_outcome_line(o, &line);
	if (route_write_all(fd, line.data, line.len) < 0 || fsync(fd) < 0)
		rc = err_errno(e, "write %s", path);
	close(fd);
	buf_release(&line);
	return rc;
}

/* What a scan of the log adds up: per route (local, handoff, consult), and one day. */
struct route_tally {
	struct {
		long turns, answered, changed, tok_in, tok_out;
		double cost, wall;
	} r[3];
	char day[11];     /* "YYYY-MM-DD" (UTC) whose cost goes to day_usd */
	double day_usd;
	long bad;
};

/* Add one parsed line to the tally; -1 when it is not an outcome. */
static int
route_tally_line(const cJSON *o, struct route_tally *t)
{
	const char *route = json_str(o, "route"), *mode = json_str(o, "mode");
	const char *ts = json_str(o, "ts");
	const cJSON *tok = json_obj(o, "tokens");
	long in = 0, out = 0, cw = 0, cr = 0;
	double cost = 0, wall = 0;
	int ans = 0, ch = 0, k;

	if (!route || (strcmp(route, "local") && strcmp(route, "claude")))
		return -1;
	k = strcmp(route, "local") == 0 ? 0 : mode && strcmp(mode, "consult") == 0 ? 2 : 1;
	json_long(tok, "input", &in), json_long(tok, "output", &out);
	json_long(tok, "cache_write", &cw), json_long(tok, "cache_read", &cr);
	json_double(o, "cost_usd", &cost), json_double(o, "wall_s", &wall);
	json_bool(o, "answered", &ans), json_bool(o, "files_changed", &ch);
	t->r[k].turns++;
	t->r[k].answered += ans != 0;
	t->r[k].changed += ch != 0;
	t->r[k].tok_in += in + cw + cr;
	t->r[k].tok_out += out;
	t->r[k].cost += cost;
	t->r[k].wall += wall;
	if (ts && strncmp(ts, t->day, 10) == 0)
		t->day_usd += cost;
	return 0;
}

/* Read and tally the whole log; 1 when it does not exist, 0, or -1 + e. */
static int
route_scan(const char *path, struct route_tally *t, struct err *e)
{
	struct buf text = BUF_INIT;
	char *line, *nl, *end;

	if (access(path, F_OK) != 0)
		return 1;
	if (buf_read_file(&text, path, 256u << 20, e) < 0) {
		buf_release(&text);
		return -1;
	}
	end = text.data + text.len;
	for (line = text.data; line < end; line = nl + 1) {
		cJSON *o;

		nl = memchr(line, '\n', (size_t)(end - line));
		nl = nl ? nl : end;
		if (nl == line)
			continue;
		o = json_parse(line, (size_t)(nl - line), NULL);
		t->bad += !o || route_tally_line(o, t) < 0;
		cJSON_Delete(o);
	}
	buf_release(&text);
	return 0;
}

/* The summary table of the outcomes log. */
int
route_stats(const char *path, struct buf *out, struct err *e)
{
	static const char *const names[3] = { "local", "claude handoff", "claude consult" };
	struct route_tally t;
	int i, rc;

	memset(&t, 0, sizeof t);
	if ((rc = route_scan(path, &t, e)) > 0)
		buf_addf(out, "no routed turns recorded yet (%s)\n", path);
	if (rc != 0)
		return rc > 0 ? 0 : -1;
	buf_addf(out, "%-15s %6s %9s %8s %11s %11s %10s %9s\n", "route", "turns", "answered",
		 "changed", "tokens in", "tokens out", "cost USD", "wall s");
	for (i = 0; i < 3; i++)
		buf_addf(out, "%-15s %6ld %9ld %8ld %11ld %11ld %10.4f %9.1f\n", names[i],
			 t.r[i].turns, t.r[i].answered, t.r[i].changed, t.r[i].tok_in,
			 t.r[i].tok_out, t.r[i].cost, t.r[i].wall);
	buf_addf(out, "escalations: %ld, ended with an answer: %ld, changed files: %ld, "
		 "cost $%.4f\n", t.r[1].turns + t.r[2].turns, t.r[1].answered + t.r[2].answered,
		 t.r[1].changed + t.r[2].changed, t.r[1].cost + t.r[2].cost);
	if (t.bad)
		buf_addf(out, "skipped %ld unreadable line%s\n", t.bad, t.bad == 1 ? "" : "s");
	return 0;
}

/* Spend of the UTC day of `now`, for the daily cap. */
int
route_spent_day(const char *path, time_t now, double *usd, struct err *e)
{
	struct route_tally t;
	struct tm tm;

	memset(&t, 0, sizeof t);
	gmtime_r(&now, &tm);
	strftime(t.day, sizeof t.day, "%Y-%m-%d", &tm);
	*usd = 0;
	if (route_scan(path, &t, e) < 0)
		return -1;
	*usd = t.day_usd;
	return 0;
}

/*
 * route/outcomes: the outcomes log (see route/outcomes.h).  It is JSONL, one
 * object per finished turn, only ever appended to; the summary and the
 * day's spend are one scan of it.
 */
#include "route/outcomes.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "route/config.h"

#define ROUTE_OUTCOMES_TALLY_TIERS 32

/* One outcome as a JSON line (newline included). */
static void
route_outcomes_line(const struct route_outcomes_turn *o, struct buf *b)
{
	char ts[32];
	struct tm tm;
	time_t t = o->ts ? o->ts : time(NULL);
	const char *r = o->reason ? o->reason : "";
	size_t i;

	gmtime_r(&t, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_addf(b, "{\"ts\":\"%s\",\"route\":\"%s\"", ts, route_target_name(o->target));
	if (o->target == ROUTE_CLAUDE)
		buf_addf(b, ",\"mode\":\"%s\"", route_config_mode_name(o->mode));
	buf_adds(b, ",\"reason\":");
	json_add_escaped(b, r, strlen(r));
	buf_addf(b, ",\"steps\":%d,\"answered\":%s,\"files_changed\":%s,"
		 "\"tokens\":{\"input\":%ld,\"output\":%ld,\"cache_write\":%ld,\"cache_read\":%ld},"
		 "\"cost_usd\":%.6f,\"wall_s\":%.3f", o->steps, o->answered ? "true" : "false",
		 o->files_changed ? "true" : "false", o->tokens.input, o->tokens.output,
		 o->tokens.cache_write, o->tokens.cache_read, o->cost_usd, o->wall_s);
	for (i = 0; i < o->ntiers; i++) {
		const struct route_outcomes_tier *ti = &o->tiers[i];

		buf_adds(b, i ? ",{\"name\":" : ",\"tiers\":[{\"name\":");
		json_add_escaped(b, ti->name, strlen(ti->name));
		buf_addf(b, ",\"role\":\"%s\",\"requests\":%d,\"input\":%ld,\"output\":%ld,\"cache_read\":%ld,"
			 "\"ms\":%.0f,\"cost_usd\":%.6f}", ti->role, ti->requests, ti->tokens.input + ti->tokens.cache_write,
			 ti->tokens.output, ti->tokens.cache_read, ti->ms, ti->cost_usd);
	}
	buf_adds(b, o->ntiers ? "]}\n" : "}\n");
}

/* Append one outcome line. */
int
route_outcomes_append(const char *path, const struct route_outcomes_turn *o, struct err *e)
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
	route_outcomes_line(o, &line);
	if (fs_write_all(fd, line.data, line.len) < 0 || fsync(fd) < 0)
		rc = err_errno(e, "write %s", path);
	close(fd);
	buf_release(&line);
	return rc;
}

/* What a scan of the log adds up: per route (local, handoff, consult), and one day. */
struct route_outcomes_tally {
	struct {
		long turns, answered, changed, tok_in, tok_out;
		double cost, wall;
	} r[3];
	char day[11];     /* "YYYY-MM-DD" (UTC) whose cost goes to day_usd */
	double day_usd;
	long bad;
	struct {          /* per tier name (the first ROUTE_OUTCOMES_TALLY_TIERS names seen) */
		char name[32], role[16];
		long turns, requests, tok_in, tok_out;
		double cost, ms;
	} t[ROUTE_OUTCOMES_TALLY_TIERS];
	size_t nt;
};

/* A line's "tiers": each adds to its name's row. */
static void
route_outcomes_tally_tiers(const cJSON *arr, struct route_outcomes_tally *t)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr) {
		const char *name = json_str(e, "name"), *role = json_str(e, "role");
		long req = 0, in = 0, out = 0, cr = 0;
		double ms = 0, cost = 0;
		size_t k;

		if (!name || !*name)
			continue;
		for (k = 0; k < t->nt && strcmp(t->t[k].name, name); k++)
			;
		if (k == t->nt) {
			if (t->nt == ROUTE_OUTCOMES_TALLY_TIERS)
				continue;
			snprintf(t->t[k].name, sizeof t->t[k].name, "%s", name);
			snprintf(t->t[k].role, sizeof t->t[k].role, "%s", role ? role : "");
			t->nt++;
		}
		json_long(e, "requests", &req), json_long(e, "input", &in), json_long(e, "output", &out);
		json_long(e, "cache_read", &cr), json_double(e, "ms", &ms), json_double(e, "cost_usd", &cost);
		t->t[k].turns++;
		t->t[k].requests += req;
		t->t[k].tok_in += in + cr;
		t->t[k].tok_out += out;
		t->t[k].ms += ms;
		t->t[k].cost += cost;
	}
}

/* Add one parsed line to the tally; -1 when it is not an outcome. */
static int
route_outcomes_tally_line(const cJSON *o, struct route_outcomes_tally *t)
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
	route_outcomes_tally_tiers(cJSON_GetObjectItemCaseSensitive(o, "tiers"), t);
	return 0;
}

/* Read and tally the whole log; 1 when it does not exist, 0, or -1 + e. */
static int
route_outcomes_scan(const char *path, struct route_outcomes_tally *t, struct err *e)
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
		t->bad += !o || route_outcomes_tally_line(o, t) < 0;
		cJSON_Delete(o);
	}
	buf_release(&text);
	return 0;
}

/* The summary table of the outcomes log. */
int
route_outcomes_stats(const char *path, struct buf *out, struct err *e)
{
	static const char *const names[3] = { "local", "claude handoff", "claude consult" };
	struct route_outcomes_tally t;
	int i, rc;

	memset(&t, 0, sizeof t);
	if ((rc = route_outcomes_scan(path, &t, e)) > 0)
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
	if (t.nt)
		buf_addf(out, "\n%-24s %6s %8s %11s %11s %10s %9s\n", "tier", "turns", "requests", "tokens in",
			 "tokens out", "cost USD", "time s");
	for (i = 0; i < (int)t.nt; i++) {
		char label[64];

		snprintf(label, sizeof label, "%s (%s)", t.t[i].name, t.t[i].role);
		buf_addf(out, "%-24s %6ld %8ld %11ld %11ld %10.4f %9.1f\n", label, t.t[i].turns, t.t[i].requests,
			 t.t[i].tok_in, t.t[i].tok_out, t.t[i].cost, t.t[i].ms / 1000.0);
	}
	if (t.bad)
		buf_addf(out, "skipped %ld unreadable line%s\n", t.bad, t.bad == 1 ? "" : "s");
	return 0;
}

/* Spend of the UTC day of `now`, for the daily cap. */
int
route_outcomes_spent_day(const char *path, time_t now, double *usd, struct err *e)
{
	struct route_outcomes_tally t;
	struct tm tm;

	memset(&t, 0, sizeof t);
	gmtime_r(&now, &tm);
	strftime(t.day, sizeof t.day, "%Y-%m-%d", &tm);
	*usd = 0;
	if (route_outcomes_scan(path, &t, e) < 0)
		return -1;
	*usd = t.day_usd;
	return 0;
}

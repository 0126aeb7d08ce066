/*
 * ui/view/server_panel: server state updates and the panel drawing.
 *
 * Drawing uses a row cursor (struct prow) that writes one row at a time
 * at r.y + row and stops writing once r.h rows are used, so a short
 * terminal just loses the bottom sections.  Every string goes through
 * ui/term/draw.h (a build string or model id from the server is not trusted).
 */
#include <stdio.h>
#include <string.h>

#include "ui/term/draw.h"
#include "ui/view/server_panel.h"
#include "ui/term/theme.h"

struct prow {
	struct grid *g;
	struct grid_rect r;
	int row;
};

/* Token counts from the server kept in a sane range (no overflow in sums). */
static long
tok(long v)
{
	return v < 0 ? 0 : v > 1000000000000L ? 1000000000000L : v;
}

/* A rate or fraction from the server kept finite and in range. */
static double
num(double v, double max)
{
	return v >= 0 && v <= max ? v : v > max ? max : 0;
}

/* An empty server state. */
void
server_panel_init(struct view_server *s)
{
	memset(s, 0, sizeof(*s));
}

/* Copy src into a fixed array, cut to fit. */
static void
copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* Server address and discovery results. */
void
server_panel_set_info(struct view_server *s, const char *url, const struct server_panel_info *info)
{
	const char *dash;

	copy(s->url, sizeof(s->url), url);
	if (!info)
		return;
	copy(s->model, sizeof(s->model), info->model);
	copy(s->build, sizeof(s->build), info->build);
	dash = strchr(s->build, '-');
	if (dash)
		s->build[dash - s->build] = '\0';
	s->n_ctx = tok(info->n_ctx);
	s->total_slots = info->total_slots;
}

/* Last-request counters from a TIMINGS or CACHE event. */
static void
set_last(struct view_server *s, long cache_n, long prompt_n)
{
	s->have_last = 1;
	s->last_cache_n = cache_n;
	s->last_prompt_n = prompt_n;
	s->last_reuse = cache_n + prompt_n > 0 ? (double)cache_n / (double)(cache_n + prompt_n) : 0;
}

/* Feed a stream event. */
void
server_panel_on_event(struct view_server *s, const struct llm_event *ev)
{
	switch (ev->kind) {
	case LLM_PROGRESS:
		s->waiting = 0;
		s->prefill = 1;
		s->decoding = 0;
		s->progress.total = tok(ev->progress.total);
		s->progress.cache = tok(ev->progress.cache);
		s->progress.processed = tok(ev->progress.processed);
		s->progress.time_ms = tok(ev->progress.time_ms);
		break;
	case LLM_TEXT: case LLM_REASONING: case LLM_TOOL_CALL_BEGIN:
	case LLM_TOOL_CALL_ARGS: case LLM_TOOL_CALL_END:
		s->waiting = 0;
		s->prefill = 0;
		s->decoding = 1;
		break;
	case LLM_TIMINGS:
		set_last(s, tok(ev->timings.cache_n), tok(ev->timings.prompt_n));
		s->last_decode_tps = num(ev->timings.predicted_per_second, 1e9);
		s->last_prefill_tps = num(ev->timings.prompt_per_second, 1e9);
		break;
	case LLM_CACHE:
		set_last(s, tok(ev->cache.cache_n), tok(ev->cache.prompt_n));
		s->last_reuse = num(ev->cache.reuse, 1.0);
		s->last_break = ev->cache.is_break;
		break;
	case LLM_USAGE:
		s->session_in = tok(s->session_in + tok(ev->usage.prompt_tokens));
		s->session_out = tok(s->session_out + tok(ev->usage.completion_tokens));
		s->ctx_used = tok(ev->usage.prompt_tokens) + tok(ev->usage.completion_tokens);
		break;
	case LLM_DONE: case LLM_ERROR:
		s->prefill = s->decoding = s->waiting = 0;
		s->decode_tps = 0;
		break;
	default:
		break;
	}
}

/* The turn was stopped: nothing in flight any more (see ui/view/server_panel.h). */
void
server_panel_stopped(struct view_server *s)
{
	int i;

	s->prefill = s->decoding = 0;
	s->decode_tps = 0;
	for (i = 0; i < s->nslots; i++)
		if (s->slots[i].is_ours)
			s->slots[i].state = VIEW_SLOT_IDLE;
}

/* The state of one slot from its /slots fields. */
static enum view_slot_state
slot_state(const struct server_panel_slot *l)
{
	if (!l->is_processing)
		return VIEW_SLOT_IDLE;
	if (l->n_prompt_tokens > 0 && l->n_prompt_tokens_processed < l->n_prompt_tokens)
		return VIEW_SLOT_PREFILL;
	return VIEW_SLOT_DECODING;
}

/* Live decode speed from our slot's n_decoded growth. */
static void
track_decode(struct view_server *s, const struct server_panel_slot *l, uint64_t now_ms)
{
	long n = tok(l->n_decoded);

	if (s->last_decoded_ms && now_ms > s->last_decoded_ms && n >= s->last_decoded)
		s->decode_tps = (double)(n - s->last_decoded) * 1000.0 /
		    (double)(now_ms - s->last_decoded_ms);
	s->last_decoded = n;
	s->last_decoded_ms = now_ms;
}

/* A GET /slots answer. */
void
server_panel_set_slots(struct view_server *s, const struct server_panel_slot *sl, size_t n, int our_id,
    uint64_t now_ms)
{
	size_t i;
	struct view_slot *v;

	s->nslots = 0;
	for (i = 0; i < n && i < VIEW_SLOTS_MAX; i++) {
		v = &s->slots[s->nslots++];
		v->id = sl[i].id;
		v->state = slot_state(&sl[i]);
		v->n_ctx = tok(sl[i].n_ctx);
		v->tokens = tok(sl[i].n_prompt_tokens) + tok(sl[i].n_decoded);
		v->is_ours = sl[i].id == our_id;
		if (v->is_ours && v->state == VIEW_SLOT_DECODING)
			track_decode(s, &sl[i], now_ms);
		else if (v->is_ours)
			s->last_decoded_ms = 0;
	}
	s->have_slots = 1;
	s->slots_disabled = s->slots_absent = 0;
	s->reconnecting = 0;
}

/* A request went out: wait with a spinner until the server answers. */
void
server_panel_wait(struct view_server *s, uint64_t now_ms)
{
	s->waiting = 1;
	s->prefill = s->decoding = 0;
	s->wait_since_ms = s->now_ms = now_ms;
}

/* The spinner frame and the whole seconds waited ("⠹ 12s"), for the status line and the panel. */
void
server_panel_spinner(const struct view_server *s, char *dst, size_t n)
{
	static const char *const frames[] = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" };
	uint64_t d = s->now_ms > s->wait_since_ms ? s->now_ms - s->wait_since_ms : 0;

	snprintf(dst, n, "%s %lus", frames[(d / 100) % 10], (unsigned long)(d / 1000));
}

/* GET /slots answered 404/405. */
void
server_panel_slots_absent(struct view_server *s)
{
	s->slots_absent = 1;
	s->slots_disabled = 0;
	s->nslots = 0;
}

/* GET /slots answered 501. */
void
server_panel_no_slots(struct view_server *s)
{
	s->slots_disabled = 1;
	s->nslots = 0;
}

/* The server is gone (backoff_s >= 0) or back (< 0). */
void
server_panel_reconnecting(struct view_server *s, int backoff_s)
{
	s->reconnecting = backoff_s >= 0;
	s->backoff_s = backoff_s;
}

/* A token count as people read it. */
void
server_panel_count(char *dst, size_t n, long v)
{
	if (v >= 999950)
		snprintf(dst, n, "%.1fM", (double)v / 1e6);
	else if (v >= 1000)
		snprintf(dst, n, "%.1fk", (double)v / 1e3);
	else
		snprintf(dst, n, "%ld", v);
}

/* Prefill speed and time left; -1 when not known yet. */
int
server_panel_rate(const struct llm_progress *p, double *tps, double *eta_s)
{
	long done = p->processed - p->cache;

	*tps = *eta_s = 0;
	if (p->time_ms <= 0 || done <= 0)
		return -1;
	*tps = (double)done * 1000.0 / (double)p->time_ms;
	*eta_s = p->total > p->processed ? (double)(p->total - p->processed) / *tps : 0;
	return 0;
}

/* Cells for part of total in w cells: rounded down, at least 1 if part > 0. */
static int
cells(long part, long total, int w)
{
	long c;

	if (part <= 0 || total <= 0)
		return 0;
	c = part >= total ? w : (long)((double)part * w / (double)total);
	return c < 1 ? 1 : (int)c;
}

/* The prefill bar. */
void
server_panel_bar(struct grid *g, int x, int y, int w, const struct llm_progress *p)
{
	int c = cells(p->cache, p->total, w);
	int d = cells(p->processed, p->total, w);
	int i;

	if (d < c)
		d = c;
	for (i = 0; i < w; i++)
		grid_put(g, x + i, y, 1, i < d ? "█" : "░", strlen("█"),
		    i < c ? THEME_PROGRESS_CACHED : i < d ? THEME_PROGRESS_NEW :
		    THEME_PROGRESS_EMPTY);
}

/* One row of text at column indent, cut to the width. */
static void
row(struct prow *p, int indent, const char *s, uint16_t role)
{
	if (p->row < p->r.h && p->r.w > indent)
		draw_trunc(p->g, p->r.x + indent, p->r.y + p->row, p->r.w - indent, s,
		    strlen(s), role);
	p->row++;
}

/* The header rows: address, build, slot count, context. */
static void
draw_head(struct prow *p, const struct view_server *s)
{
	char line[160], ctx[16];

	snprintf(line, sizeof(line), "llama-server %s", s->url);
	row(p, 0, line, THEME_ACCENT);
	server_panel_count(ctx, sizeof(ctx), s->n_ctx);
	snprintf(line, sizeof(line), "%s%s%d slot%s · ctx %s", s->build, *s->build ? " · " : "",
	    s->total_slots, s->total_slots == 1 ? "" : "s", ctx);
	row(p, 0, line, THEME_DIM);
	if (s->reconnecting) {
		snprintf(line, sizeof(line), "reconnecting in %ds", s->backoff_s);
		row(p, 0, line, THEME_WARNING);
	}
	p->row++;
}

/* Draw s at column *x of the cursor's row and advance *x. */
static void
seg(struct prow *p, int *x, const char *s, uint16_t role)
{
	if (p->row < p->r.h && *x < p->r.w)
		*x += draw_trunc(p->g, p->r.x + *x, p->r.y + p->row, p->r.w - *x, s, strlen(s),
		    role);
}

/* One row per slot, or why there are none. */
static void
draw_slots(struct prow *p, const struct view_server *s)
{
	static const char *const names[] = { "idle   ", "PREFILL", "decode " };
	static const uint16_t roles[] = { THEME_SLOT_IDLE, THEME_SLOT_PREFILL, THEME_SLOT_DECODE };
	char line[32], tok[16];
	int i, x;

	if (s->slots_disabled) {
		row(p, 0, "slots endpoint disabled", THEME_DIM);
		row(p, 0, "(--no-slots)", THEME_DIM);
		return;
	}
	if (s->slots_absent) {
		row(p, 0, "no /slots on this server", THEME_DIM);
		return;
	}
	for (i = 0; i < s->nslots; i++) {
		x = 0;
		snprintf(line, sizeof(line), "slot %d  ", s->slots[i].id);
		seg(p, &x, line, THEME_TEXT);
		seg(p, &x, names[s->slots[i].state], roles[s->slots[i].state]);
		server_panel_count(tok, sizeof(tok), s->slots[i].tokens);
		snprintf(line, sizeof(line), " %6s", tok);
		seg(p, &x, line, THEME_TEXT);
		if (s->slots[i].is_ours)
			seg(p, &x, " ◀ you", THEME_ACCENT);
		p->row++;
	}
}

/* The request in flight: prefill bar and numbers, or the decode speed. */
static void
draw_flight(struct prow *p, const struct view_server *s)
{
	const struct llm_progress *g = &s->progress;
	char line[96], a[16], b[16], c[16];
	double tps, eta;
	int pct = g->total <= 0 ? 0 : g->processed >= g->total ? 100 :
	    (int)(g->processed * 100 / g->total);

	if (s->waiting) {
		char sp[32];

		server_panel_spinner(s, sp, sizeof sp);
		snprintf(line, sizeof(line), "%s waiting for the server", sp);
		row(p, 1, line, THEME_TEXT);
	} else if (s->prefill) {
		if (p->row < p->r.h && p->r.w > 7) {
			server_panel_bar(p->g, p->r.x + 1, p->r.y + p->row, p->r.w - 7, g);
			snprintf(line, sizeof(line), "%4d%%", pct);
			draw_text(p->g, p->r.x + p->r.w - 5, p->r.y + p->row, 5, line, strlen(line),
			    THEME_TEXT);
		}
		p->row++;
		server_panel_count(a, sizeof(a), g->cache);
		snprintf(line, sizeof(line), "cached %s", a);
		row(p, 1, line, THEME_PROGRESS_CACHED);
		server_panel_count(a, sizeof(a), g->processed - g->cache);
		server_panel_count(b, sizeof(b), g->total - g->cache);
		if (server_panel_rate(g, &tps, &eta) == 0) {
			server_panel_count(c, sizeof(c), (long)tps);
			snprintf(line, sizeof(line), "%s/%s new · %s tok/s", a, b, c);
			row(p, 1, line, THEME_TEXT);
			snprintf(line, sizeof(line), "ETA %.1fs", eta);
			row(p, 1, line, THEME_TEXT);
		} else {
			snprintf(line, sizeof(line), "%s/%s new", a, b);
			row(p, 1, line, THEME_TEXT);
		}
	} else if (s->decoding) {
		snprintf(line, sizeof(line), s->decode_tps > 0 ? "decoding %.0f tok/s" : "decoding",
		    s->decode_tps);
		row(p, 1, line, THEME_SLOT_DECODE);
	}
	if (s->prefill || s->decoding || s->waiting)
		p->row++;
}

/* The last finished request and the session totals. */
static void
draw_totals(struct prow *p, const struct view_server *s)
{
	char line[96], a[16], b[16];

	if (s->have_last) {
		row(p, 0, "last turn", THEME_DIM);
		server_panel_count(a, sizeof(a), s->last_cache_n);
		server_panel_count(b, sizeof(b), s->last_cache_n + s->last_prompt_n);
		snprintf(line, sizeof(line), "cache %.1f%% (%s/%s)", s->last_reuse * 100.0, a, b);
		row(p, 1, line, s->last_break ? THEME_WARNING : THEME_TEXT);
		snprintf(line, sizeof(line), "decode %.0f tok/s", s->last_decode_tps);
		row(p, 1, line, THEME_TEXT);
		server_panel_count(a, sizeof(a), (long)s->last_prefill_tps);
		snprintf(line, sizeof(line), "prefill %s tok/s", a);
		row(p, 1, line, THEME_TEXT);
		p->row++;
	}
	row(p, 0, "session", THEME_DIM);
	server_panel_count(a, sizeof(a), s->session_in);
	server_panel_count(b, sizeof(b), s->session_out);
	snprintf(line, sizeof(line), "in %s · out %s", a, b);
	row(p, 1, line, THEME_TEXT);
}

/* One tier's state in a few cells: "1/2 free", "down", "?". */
void
server_panel_tier_state(const struct view_tier *t, char *dst, size_t n)
{
	if (t->down)
		snprintf(dst, n, "down");
	else if (t->slots > 0)
		snprintf(dst, n, "%d/%d free", t->idle, t->slots);
	else
		snprintf(dst, n, "up");
}

/* Every server of the servers setting: state, load, speed; the active one marked. */
static void
draw_tiers(struct prow *p, const struct view_server *s)
{
	char line[128], st[24];
	int i;

	if (s->ntiers < 2)
		return;
	p->row++;
	row(p, 0, "servers", THEME_DIM);
	for (i = 0; i < s->ntiers; i++) {
		const struct view_tier *t = &s->tiers[i];
		int n;

		server_panel_tier_state(t, st, sizeof st);
		n = snprintf(line, sizeof line, "%s %s %c %s", t->active ? "\xe2\x96\xb6" : " ", t->name,
			     t->workhorse ? 'W' : 'I', st);
		if (t->tps > 0 && n > 0 && (size_t)n < sizeof line)
			snprintf(line + n, sizeof line - (size_t)n, " · %.0f tok/s", t->tps);
		row(p, 0, line, t->down ? THEME_WARNING : t->active ? THEME_ACCENT : THEME_TEXT);
		if (t->requests > 0) { /* what it did this session: tokens, time, cost */
			char k[16];

			server_panel_count(k, sizeof k, t->tokens);
			n = snprintf(line, sizeof line, "    %s tok · %.0f s", k, t->secs);
			if (t->cost > 0 && n > 0 && (size_t)n < sizeof line)
				snprintf(line + n, sizeof line - (size_t)n, " · $%.3f", t->cost);
			row(p, 0, line, THEME_DIM);
		}
	}
}

/* Draw the panel into r. */
void
server_panel_draw(struct grid *g, struct grid_rect r, const struct view_server *s)
{
	struct prow p = { g, r, 0 };

	if (r.w <= 0 || r.h <= 0)
		return;
	grid_clear_rect(g, r, THEME_TEXT);
	draw_head(&p, s);
	draw_slots(&p, s);
	p.row++;
	draw_flight(&p, s);
	draw_totals(&p, s);
	draw_tiers(&p, s);
}

/*
 * ui/view/status: top line, folded server line and help line.
 *
 * Each line is built as a left part and a right part (struct buf); the
 * right part is drawn flush right and the left part is cut with "…" to
 * the room left, so the right-hand numbers survive a narrow terminal.
 */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "ui/term/draw.h"
#include "ui/view/server_panel.h"
#include "ui/view/status.h"
#include "ui/term/theme.h"

/* The role for `used` of n_ctx tokens. */
uint16_t
status_ctx_role(long used, long n_ctx)
{
	double f = n_ctx > 0 ? (double)used / (double)n_ctx : 0;

	return f < 0.7 ? THEME_CTX_OK : f < 0.9 ? THEME_CTX_WARN : THEME_CTX_CRIT;
}

/* Our slot's id, or -1. */
static int
our_slot(const struct view_server *srv)
{
	int i;

	for (i = 0; i < srv->nslots; i++)
		if (srv->slots[i].is_ours)
			return srv->slots[i].id;
	return -1;
}

/* The last path component of a directory ("~/src/shop" → "shop"). */
static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* "hearth · DIR (BRANCH ✚N)" into b. */
static void
add_place(struct buf *b, const struct view_status *st, int wide)
{
	buf_addf(b, " hearth · %s", wide ? st->cwd : base(st->cwd));
	if (*st->branch) {
		buf_addf(b, " (%s", st->branch);
		if (st->dirty > 0)
			buf_addf(b, " ✚%d", st->dirty);
		buf_adds(b, ")");
	}
}

/* Draw left and right parts on the first row of r; the right part in rrole. */
static void
two_parts(struct grid *g, struct grid_rect r, const struct buf *l, uint16_t lrole,
    const struct buf *rt, uint16_t rrole)
{
	int rw = draw_width(rt->data, rt->len);

	if (rw > r.w)
		rw = r.w;
	if (r.w - rw > 0)
		draw_trunc(g, r.x, r.y, r.w - rw, l->data, l->len, lrole);
	draw_trunc(g, r.x + r.w - rw, r.y, rw, rt->data, rt->len, rrole);
}

/* The top status line. */
void
status_draw(struct grid *g, struct grid_rect r, const struct view_status *st,
    const struct view_server *srv)
{
	struct buf l = BUF_INIT, rt = BUF_INIT;
	char used[16], max[16];
	int wide = r.w >= STATUS_WIDE, slot = our_slot(srv), cw;
	long pct = srv->n_ctx > 0 ? (long)((double)srv->ctx_used * 100.0 / (double)srv->n_ctx) : 0;

	if (r.w <= 0 || r.h <= 0)
		return;
	r.h = 1;
	grid_clear_rect(g, r, THEME_STATUS_BG);
	add_place(&l, st, wide);
	if (wide && *st->model)
		buf_addf(&l, " · %s", st->model);
	buf_addf(&l, " · %s", *st->route ? st->route : "local");
	if (st->spend_usd >= 0.01)
		buf_addf(&l, " $%.2f", st->spend_usd);
	else if (st->spend_usd > 0)
		buf_adds(&l, " <$0.01");
	if (wide) {
		server_panel_count(used, sizeof(used), srv->ctx_used);
		server_panel_count(max, sizeof(max), srv->n_ctx);
		buf_addf(&rt, "ctx %s/%s %ld%% ", used, max, pct);
	} else {
		buf_addf(&rt, " · ctx %ld%% ", pct);
	}
	if (wide) {
		cw = draw_width(rt.data, rt.len);
		draw_trunc(g, r.x + r.w - cw, r.y, cw, rt.data, rt.len,
		    status_ctx_role(srv->ctx_used, srv->n_ctx));
		r.w -= cw;
		buf_reset(&rt);
		if (slot >= 0)
			buf_addf(&rt, "  slot %d · ", slot);
		two_parts(g, r, &l, THEME_STATUS_FG, &rt, THEME_STATUS_FG);
	} else
		draw_trunc(g, r.x + draw_trunc(g, r.x, r.y, r.w - draw_width(rt.data, rt.len),
		    l.data, l.len, THEME_STATUS_FG), r.y, r.w, rt.data, rt.len,
		    status_ctx_role(srv->ctx_used, srv->n_ctx));
	buf_release(&l);
	buf_release(&rt);
}

/* "slot1 PREFILL ██████░░░░ 61% ETA 1s" at the start of r's row; returns columns. */
static int
fold_prefill(struct grid *g, struct grid_rect r, const struct view_server *srv, int slot)
{
	const struct llm_progress *p = &srv->progress;
	char s[64];
	double tps, eta;
	int x = 0;

	snprintf(s, sizeof(s), slot >= 0 ? " slot%d PREFILL " : " PREFILL ", slot);
	x += draw_text(g, r.x + x, r.y, r.w - x, s, strlen(s), THEME_SLOT_PREFILL);
	if (r.w - x >= 10) {
		server_panel_bar(g, r.x + x, r.y, 10, p);
		x += 10;
	}
	snprintf(s, sizeof(s), " %ld%%", p->total <= 0 ? 0 : p->processed >= p->total ? 100 :
	    p->processed * 100 / p->total);
	x += draw_text(g, r.x + x, r.y, r.w - x, s, strlen(s), THEME_STATUS_FG);
	if (server_panel_rate(p, &tps, &eta) == 0) {
		snprintf(s, sizeof(s), " ETA %lds", (long)(eta + 0.999));
		x += draw_text(g, r.x + x, r.y, r.w - x, s, strlen(s), THEME_STATUS_FG);
	}
	return x;
}

/* The server's essentials in one row. */
void
status_draw_server(struct grid *g, struct grid_rect r, const struct view_server *srv)
{
	struct buf l = BUF_INIT, rt = BUF_INIT;
	char a[16], b[16];
	int slot = our_slot(srv), x = 0;

	if (r.w <= 0 || r.h <= 0)
		return;
	r.h = 1;
	grid_clear_rect(g, r, THEME_STATUS_BG);
	if (srv->have_last)
		buf_addf(&rt, "  %.1f%%⚡ ", srv->last_reuse * 100.0);
	if (srv->reconnecting) {
		buf_addf(&l, " reconnecting in %ds", srv->backoff_s);
	} else if (srv->waiting) {
		char sp[32];

		server_panel_spinner(srv, sp, sizeof(sp));
		buf_addf(&l, " %s waiting for the server", sp);
	} else if (srv->prefill) {
		x = fold_prefill(g, r, srv, slot);
	} else if (srv->decoding) {
		buf_addf(&l, slot >= 0 ? " slot%d decode" : " decode", slot);
		if (srv->decode_tps > 0)
			buf_addf(&l, " %.0f tok/s", srv->decode_tps);
	} else if (srv->ntiers > 1) { /* every server, compact: "small 1/2 · big down" */
		int i;

		buf_adds(&l, " idle");
		for (i = 0; i < srv->ntiers; i++) {
			const struct view_tier *t = &srv->tiers[i];

			server_panel_tier_state(t, a, sizeof(a));
			if (!strcmp(a + strcspn(a, " "), " free"))
				a[strcspn(a, " ")] = 0;
			buf_addf(&l, " · %s%s %s", t->active ? "\xe2\x96\xb6" : "", t->name, a);
		}
	} else {
		server_panel_count(a, sizeof(a), srv->session_in);
		server_panel_count(b, sizeof(b), srv->session_out);
		buf_addf(&l, " idle · in %s · out %s", a, b);
	}
	r.x += x;
	r.w -= x;
	if (r.w > 0)
		two_parts(g, r, &l, srv->reconnecting ? THEME_WARNING : THEME_STATUS_FG, &rt,
		    srv->last_break ? THEME_WARNING : THEME_STATUS_FG);
	buf_release(&l);
	buf_release(&rt);
}

/* The wait (a loading model, a server not answering) in place of the folded server line. */
void
status_draw_wait(struct grid *g, struct grid_rect r, const struct view_status *st)
{
	int x;

	if (r.w <= 0 || r.h <= 0)
		return;
	r.h = 1;
	grid_clear_rect(g, r, THEME_STATUS_BG);
	x = draw_width(st->wait, strlen(st->wait)) < r.w; /* the leading blank only when it fits */
	draw_trunc(g, r.x + x, r.y, r.w - x, st->wait, strlen(st->wait),
	    THEME_MIX(THEME_WARNING, THEME_STATUS_BG));
}

/* The keys of focus mode. */
static const char focus_keys[] = " focus: ↑↓ move · enter open/close · a all · esc leave";

/* "⠹ 12.3s · 38 tok/s · " while a turn runs, then "scrolled back — End to follow · "; the bytes. */
static size_t
add_live(struct buf *b, const struct view_status *st)
{
	static const char *const spin[] = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" };
	size_t before = b->len;

	if (st->busy) {
		buf_addf(b, " %s %.1fs", spin[st->spin % 10], (double)st->turn_ms / 1000.0);
		if (st->tps > 0)
			buf_addf(b, st->tps < 10 ? " · %.1f tok/s" : " · %.0f tok/s", st->tps);
		buf_adds(b, " ·");
	}
	if (st->scrolled)
		buf_adds(b, " scrolled back — End to follow ·");
	return b->len - before;
}

/* Narrow layouts: the liveness part at the left of the server row; the columns it took. */
int
status_draw_live(struct grid *g, struct grid_rect r, const struct view_status *st)
{
	struct buf l = BUF_INIT;
	int x = 0;

	if (r.w <= 0 || r.h <= 0)
		return 0;
	if (st->focus_mode)
		buf_adds(&l, focus_keys);
	else
		add_live(&l, st);
	if (l.len) {
		grid_clear_rect(g, (struct grid_rect){ r.x, r.y, r.w, 1 }, THEME_STATUS_BG);
		x = draw_trunc(g, r.x, r.y, r.w, l.data, l.len,
		    st->focus_mode || st->scrolled ? THEME_WARNING : THEME_STATUS_FG);
	}
	buf_release(&l);
	return st->focus_mode ? r.w : x;
}

/* The key hints and turn/time summary. */
void
status_draw_help(struct grid *g, struct grid_rect r, const struct view_status *st)
{
	struct buf l = BUF_INIT, rt = BUF_INIT;
	uint16_t lrole = *st->wait ? THEME_WARNING : THEME_DIM;

	if (r.w <= 0 || r.h <= 0)
		return;
	r.h = 1;
	grid_clear_rect(g, r, THEME_DIM);
	if (st->focus_mode) {
		buf_adds(&l, focus_keys);
		lrole = THEME_WARNING;
	} else {
		if (add_live(&l, st) && st->scrolled)
			lrole = THEME_WARNING;
		if (*st->wait)
			buf_addf(&l, " %s%s", st->busy ? "esc stop · " : "", st->wait);
		else
			buf_addf(&l, " %sctrl-o open · ctrl-p focus · ctrl-g editor · /help",
			    st->busy ? "esc stop · " : "");
	}
	buf_addch(&rt, ' '); /* a cut left part never touches the right one */
	if (*st->sandbox)
		buf_addf(&rt, "sandbox: %s · ", st->sandbox);
	if (*st->route_mode)
		buf_addf(&rt, "route: %s · ", st->route_mode);
	buf_addf(&rt, "%d turn%s · %ld:%02ld ", st->turns, st->turns == 1 ? "" : "s",
	    st->elapsed_s / 60, st->elapsed_s % 60);
	two_parts(g, r, &l, lrole, &rt, THEME_DIM);
	buf_release(&l);
	buf_release(&rt);
}

/*
 * ui/view/diff_view: the full-screen diff viewer (see ui/view/diff_view.h).
 *
 * Opening splits the text into files at each "--- " line followed by a
 * "+++ " line and parses each part with diff_parse (the texts stay in the
 * view's copy).  Layout turns files → hunks → lines into rows; a side by
 * side row pairs the i-th line of a removed run with the i-th of the
 * added run after it (context lines sit on both sides).  Drawing maps
 * rows top.. onto the rect below the title bar; nothing is wrapped (a
 * long line is cut at its column's edge).
 */
#include "ui/view/diff_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/term/draw.h"
#include "ui/view/markdown.h"
#include "ui/term/theme.h"
#include "base/xmalloc.h"

/* Append a row. */
static void
dv_row(struct diff_view *dv, enum diff_view_row_kind k, int file, int hunk, long a, long b)
{
	struct diff_view_row *r;

	if (dv->nrows == dv->cap) {
		dv->cap = dv->cap ? dv->cap * 2 : 64;
		dv->rows = xrealloc(dv->rows, dv->cap * sizeof *dv->rows);
	}
	r = &dv->rows[dv->nrows++];
	r->kind = k;
	r->file = file;
	r->hunk = hunk;
	r->a = a;
	r->b = b;
}

/* The path of a file part from its "+++ b/x" (or "--- a/x") header. */
static char *
dv_path(const char *minus, const char *plus)
{
	const char *p = plus + 4, *e;

	if (!strncmp(p, "/dev/null", 9))
		p = minus + 4;
	if ((p[0] == 'a' || p[0] == 'b') && p[1] == '/')
		p += 2;
	e = strpbrk(p, "\t\n");
	return xstrndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* Add a file part [s, e) of the text (headers included). */
static void
dv_add_file(struct diff_view *dv, const char *s, const char *e, char *path)
{
	struct diff_view_file *f;
	struct err er = ERR_INIT;

	dv->files = xrealloc(dv->files, (dv->nfiles + 1) * sizeof *dv->files);
	f = &dv->files[dv->nfiles++];
	memset(f, 0, sizeof *f);
	f->path = path;
	(void)diff_parse(&f->d, s, (size_t)(e - s), &er); /* keeps the hunks read so far */
	highlight_lines_init(&f->hl, &f->d, path);
	dv->nhunks += (int)f->d.nhunks;
}

/* Split the text into files (see the top of the file). */
static void
dv_split(struct diff_view *dv, const char *title)
{
	const char *t = dv->text, *p, *nl, *start = t;
	char *path = NULL;

	for (p = t; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (strncmp(p, "--- ", 4) || !nl || strncmp(nl + 1, "+++ ", 4))
			continue;
		if (p > start && (path || dv->nfiles == 0))
			dv_add_file(dv, start, p, path ? path : xstrdup(title));
		else
			free(path);
		path = dv_path(p, nl + 1);
		start = p;
	}
	dv_add_file(dv, start, p, path ? path : xstrdup(title));
}

/* Drop files without hunks (a header with nothing under it). */
static void
dv_prune(struct diff_view *dv)
{
	size_t i, n = 0;

	for (i = 0; i < dv->nfiles; i++) {
		if (dv->files[i].d.nhunks) {
			dv->files[n++] = dv->files[i];
		} else {
			free(dv->files[i].path);
			diff_release(&dv->files[i].d);
		highlight_lines_release(&dv->files[i].hl);
		}
	}
	dv->nfiles = n;
}

/* Open the viewer on a copy of text. */
int
diff_view_open(struct diff_view *dv, const char *title, const char *text, size_t len)
{
	diff_view_close(dv);
	dv->text = xstrndup(text, len);
	snprintf(dv->title, sizeof dv->title, "%s", title ? title : "diff");
	dv_split(dv, dv->title);
	dv_prune(dv);
	if (!dv->nfiles) {
		diff_view_close(dv);
		return -1;
	}
	dv->open = 1;
	dv->sbs = -1;
	return 0;
}

/* Close and free. */
void
diff_view_close(struct diff_view *dv)
{
	size_t i;

	for (i = 0; i < dv->nfiles; i++) {
		free(dv->files[i].path);
		diff_release(&dv->files[i].d);
		highlight_lines_release(&dv->files[i].hl);
	}
	free(dv->files);
	free(dv->rows);
	free(dv->text);
	memset(dv, 0, sizeof *dv);
}

/* Partner of line k in hunk lines [first, end): the i-th '-' of a run <-> the i-th '+' after it. */
static long
dv_partner(const struct diff *d, size_t first, size_t end, size_t k)
{
	const struct diff_line *l = d->lines;
	size_t s = k, e, g;

	if (l[k].kind == DIFF_CTX)
		return -1;
	while (s > first && l[s - 1].kind == l[k].kind)
		s--;
	if (l[k].kind == DIFF_DEL) {
		for (e = k; e < end && l[e].kind == DIFF_DEL; e++)
			;
		for (g = e; g < end && l[g].kind == DIFF_ADD; g++)
			;
		return e + (k - s) < g ? (long)(e + (k - s)) : -1;
	}
	for (e = s; e > first && l[e - 1].kind == DIFF_DEL; e--)
		;
	return e + (k - s) < s ? (long)(e + (k - s)) : -1;
}

/* Rows of one hunk, side by side. */
static void
dv_hunk_sbs(struct diff_view *dv, int f, int h, size_t first, size_t end)
{
	const struct diff_line *l = dv->files[f].d.lines;
	size_t k = first, e, g, i;

	while (k < end) {
		if (l[k].kind == DIFF_CTX) {
			dv_row(dv, DIFF_VIEW_LINE, f, h, (long)k, (long)k);
			k++;
			continue;
		}
		for (e = k; e < end && l[e].kind == DIFF_DEL; e++)
			;
		for (g = e; g < end && l[g].kind == DIFF_ADD; g++)
			;
		for (i = 0; i < e - k || i < g - e; i++)
			dv_row(dv, DIFF_VIEW_LINE, f, h, i < e - k ? (long)(k + i) : -1,
			    i < g - e ? (long)(e + i) : -1);
		k = g;
	}
}

/* Lay out the rows for a screen w columns wide. */
void
diff_view_layout(struct diff_view *dv, int w)
{
	int sbs = w >= DIFF_VIEW_SBS_MIN, hn = 0;
	size_t f, h, k, first, end;
	const struct diff *d;

	if (!dv->open || sbs == dv->sbs)
		return;
	dv->sbs = sbs;
	dv->nrows = 0;
	for (f = 0; f < dv->nfiles; f++) {
		d = &dv->files[f].d;
		dv_row(dv, DIFF_VIEW_FILE, (int)f, hn, -1, -1);
		for (h = 0; h < d->nhunks; h++, hn++) {
			first = d->hunks[h].first;
			end = first + d->hunks[h].count;
			dv_row(dv, DIFF_VIEW_HUNK, (int)f, hn, (long)h, -1);
			if (sbs) {
				dv_hunk_sbs(dv, (int)f, hn, first, end);
				continue;
			}
			for (k = first; k < end; k++)
				dv_row(dv, DIFF_VIEW_LINE, (int)f, hn, (long)k, dv_partner(d, first, end, k));
		}
	}
	if (dv->top >= (long)dv->nrows)
		dv->top = dv->nrows ? (long)dv->nrows - 1 : 0;
}

/* The file and hunk of the row at the top. */
void
diff_view_where(const struct diff_view *dv, int *file, int *hunk)
{
	*file = *hunk = -1;
	if (!dv->open || !dv->nrows)
		return;
	*file = dv->rows[dv->top].file;
	*hunk = dv->rows[dv->top].hunk;
}

/* The file and line to open for the top row (see ui/view/diff_view.h). */
int
diff_view_target(const struct diff_view *dv, const char **path, long *line)
{
	const struct diff_view_file *f;
	size_t i;

	if (!dv->open || !dv->nrows)
		return -1;
	f = &dv->files[dv->rows[dv->top].file];
	*path = f->path;
	*line = 1;
	for (i = (size_t)dv->top; i < dv->nrows && dv->rows[i].file == dv->rows[dv->top].file; i++) {
		const struct diff_view_row *r = &dv->rows[i];
		long k = r->b >= 0 && f->d.lines[r->b].new_no ? r->b : r->a;

		if (r->kind == DIFF_VIEW_LINE && k >= 0 && f->d.lines[k].new_no) {
			*line = f->d.lines[k].new_no;
			break;
		}
	}
	return 0;
}

/* The next (dir > 0) or previous row of kind k from top; top when none. */
static long
dv_seek(const struct diff_view *dv, enum diff_view_row_kind k, int dir)
{
	long i;

	for (i = dv->top + dir; i >= 0 && i < (long)dv->nrows; i += dir)
		if (dv->rows[i].kind == k)
			return i;
	return dv->top;
}

/* Scroll by delta rows in a body of h rows (not past the last page, unless already there). */
static void
dv_scroll(struct diff_view *dv, long delta, int h)
{
	long maxtop = (long)dv->nrows > h ? (long)dv->nrows - h : 0, t = dv->top + delta;

	if (delta > 0 && t > maxtop)
		t = dv->top > maxtop ? dv->top : maxtop;
	dv->top = t < 0 ? 0 : t;
}

/* One key (see ui/view/diff_view.h). */
int
diff_view_key(struct diff_view *dv, const struct keys_event *ev, int w, int h)
{
	long page = h > 3 ? h - 3 : 1;
	uint32_t c = ev->kind == KEYS_CHAR && !(ev->mods & (KEYS_MOD_CTRL | KEYS_MOD_ALT)) ? ev->cp : 0;

	if (!dv->open)
		return 0;
	diff_view_layout(dv, w);
	h = h > 1 ? h - 1 : 1;
	if (ev->kind == KEYS_ESC || c == 'q')
		diff_view_close(dv);
	else if (c == 'n')
		dv->top = dv_seek(dv, DIFF_VIEW_HUNK, 1);
	else if (c == 'p' || c == 'N')
		dv->top = dv_seek(dv, DIFF_VIEW_HUNK, -1);
	else if (c == ']' || (ev->kind == KEYS_TAB && !ev->mods))
		dv->top = dv_seek(dv, DIFF_VIEW_FILE, 1);
	else if (c == '[' || (ev->kind == KEYS_TAB && (ev->mods & KEYS_MOD_SHIFT)))
		dv->top = dv_seek(dv, DIFF_VIEW_FILE, -1);
	else if (c == 'j' || ev->kind == KEYS_DOWN || ev->kind == KEYS_WHEEL_DOWN)
		dv_scroll(dv, ev->kind == KEYS_WHEEL_DOWN ? 3 : 1, h);
	else if (c == 'k' || ev->kind == KEYS_UP || ev->kind == KEYS_WHEEL_UP)
		dv_scroll(dv, ev->kind == KEYS_WHEEL_UP ? -3 : -1, h);
	else if (c == ' ' || ev->kind == KEYS_PGDN)
		dv_scroll(dv, page, h);
	else if (c == 'b' || ev->kind == KEYS_PGUP)
		dv_scroll(dv, -page, h);
	else if (c == 'g' || ev->kind == KEYS_HOME)
		dv->top = 0;
	else if (c == 'G' || ev->kind == KEYS_END)
		dv_scroll(dv, (long)dv->nrows, h);
	else
		return 0;
	return 1;
}

/* Which line numbers a drawn line shows. */
enum dv_side { DV_BOTH, DV_OLD, DV_NEW };

/*
 * One side of a line at (x, y), w columns: number(s), sign, text with the
 * span changed against the partner in the word role; the row's cells are
 * first cleared in the line's role.
 */
static void
dv_line(struct grid *g, int x, int y, int w, const struct diff_line *l,
    const struct diff_line *partner, const uint16_t *syn, int numw, enum dv_side side)
{
	uint16_t role = l->kind == DIFF_ADD ? THEME_DIFF_ADD : l->kind == DIFF_DEL ? THEME_DIFF_DEL
	    : THEME_TEXT;
	uint16_t wrole = l->kind == DIFF_ADD ? THEME_DIFF_ADD_WORD : THEME_DIFF_DEL_WORD;
	size_t pre = l->len, suf = 0;
	char num[48], o[16] = "", nw[16] = "", sign[3] = { (char)l->kind, ' ', 0 };
	int cx;

	grid_clear_rect(g, (struct grid_rect){ x, y, w, 1 }, role);
	if (l->kind != DIFF_ADD)
		snprintf(o, sizeof o, "%d", l->old_no);
	if (l->kind != DIFF_DEL)
		snprintf(nw, sizeof nw, "%d", l->new_no);
	if (side == DV_BOTH)
		snprintf(num, sizeof num, "%*s %*s ", numw, o, numw, nw);
	else
		snprintf(num, sizeof num, "%*s ", numw, side == DV_OLD ? o : nw);
	if (partner)
		markdown_diff_span(l->text, l->len, partner->text, partner->len, &pre, &suf);
	cx = x + draw_text(g, x, y, w, num, strlen(num), THEME_LINE_NO);
	cx += draw_text(g, cx, y, x + w - cx, sign, 2, role);
	highlight_diff_text(g, cx, y, x + w - cx, l->text, l->len, syn, pre, suf, role, wrole);
}

/* Width of the line-number column for the widest number in the view. */
static int
dv_numw(const struct diff_view *dv)
{
	size_t f, h;
	int max = 9, w = 1;

	for (f = 0; f < dv->nfiles; f++)
		for (h = 0; h < dv->files[f].d.nhunks; h++) {
			const struct diff_hunk *k = &dv->files[f].d.hunks[h];

			if (k->old_start + k->old_count > max)
				max = k->old_start + k->old_count;
			if (k->new_start + k->new_count > max)
				max = k->new_start + k->new_count;
		}
	while (max >= 10) {
		max /= 10;
		w++;
	}
	return w < 4 ? 4 : w;
}

/* A file or hunk header row. */
static void
dv_header(struct grid *g, struct grid_rect r, int y, const struct diff_view *dv,
    const struct diff_view_row *row)
{
	const struct diff_view_file *f = &dv->files[row->file];
	const struct diff_hunk *h;
	char s[160];

	if (row->kind == DIFF_VIEW_FILE) {
		snprintf(s, sizeof s, "  (+%d −%d)", f->d.added, f->d.removed);
		grid_clear_rect(g, (struct grid_rect){ r.x, y, r.w, 1 }, THEME_ACCENT);
		r.x += draw_text(g, r.x, y, r.w, "▌ ", strlen("▌ "), THEME_ACCENT);
		r.x += draw_trunc(g, r.x, y, r.w - 16, f->path, strlen(f->path), THEME_ACCENT);
		draw_text(g, r.x, y, r.w, s, strlen(s), THEME_DIM);
		return;
	}
	h = &f->d.hunks[row->a];
	snprintf(s, sizeof s, "@@ -%d,%d +%d,%d @@", h->old_start, h->old_count, h->new_start,
	    h->new_count);
	draw_text(g, r.x, y, r.w, s, strlen(s), THEME_DIFF_HUNK);
}

/* The title bar: where the top row is, the counts, the keys. */
static void
dv_title(struct grid *g, struct grid_rect r, const struct diff_view *dv)
{
	char s[256];
	int f, h, add = 0, del = 0, n;
	size_t i;

	for (i = 0; i < dv->nfiles; i++) {
		add += dv->files[i].d.added;
		del += dv->files[i].d.removed;
	}
	diff_view_where(dv, &f, &h);
	grid_clear_rect(g, (struct grid_rect){ r.x, r.y, r.w, 1 }, THEME_STATUS_BG);
	n = snprintf(s, sizeof s, " diff · file %d/%zu · hunk %d/%d · +%d −%d", f + 1, dv->nfiles,
	    h + 1, dv->nhunks, add, del);
	draw_trunc(g, r.x, r.y, r.w, s, (size_t)n, THEME_STATUS_FG);
	n = snprintf(s, sizeof s, "n/p hunk%s · q close ", dv->nfiles > 1 ? " · ]/[ file" : "");
	if (r.w - draw_width(s, (size_t)n) > 48)
		draw_text(g, r.x + r.w - draw_width(s, (size_t)n), r.y, r.w, s, (size_t)n,
		    THEME_STATUS_FG);
}

/* Draw into r. */
void
diff_view_draw(struct grid *g, struct grid_rect r, const struct diff_view *dv)
{
	const struct diff_view_row *row;
	const struct diff_line *l;
	const uint16_t *const *hl;
	int y, numw = dv_numw(dv), half = (r.w - 1) / 2;
	long i;

	if (r.w <= 0 || r.h <= 0 || !dv->open)
		return;
	grid_clear_rect(g, r, THEME_TEXT);
	dv_title(g, r, dv);
	for (y = 1, i = dv->top; y < r.h && i < (long)dv->nrows; y++, i++) {
		row = &dv->rows[i];
		l = dv->files[row->file].d.lines;
		hl = dv->files[row->file].hl.line;
		if (row->kind != DIFF_VIEW_LINE)
			dv_header(g, r, r.y + y, dv, row);
		else if (!dv->sbs)
			dv_line(g, r.x, r.y + y, r.w, &l[row->a], row->b >= 0 ? &l[row->b] : NULL,
			    hl ? hl[row->a] : NULL, numw, DV_BOTH);
		else {
			if (row->a >= 0)
				dv_line(g, r.x, r.y + y, half, &l[row->a], row->b >= 0 &&
				    l[row->a].kind != DIFF_CTX ? &l[row->b] : NULL,
				    hl ? hl[row->a] : NULL, numw, DV_OLD);
			draw_text(g, r.x + half, r.y + y, 1, "│", strlen("│"), THEME_BORDER);
			if (row->b >= 0)
				dv_line(g, r.x + half + 1, r.y + y, r.w - half - 1, &l[row->b],
				    row->a >= 0 && l[row->b].kind != DIFF_CTX ? &l[row->a] : NULL,
				    hl ? hl[row->b] : NULL, numw, DV_NEW);
		}
	}
}

/*
 * ui/view/transcript: model updates and layout of the conversation view.
 *
 * Layout is one pass over the items with a cursor (struct tpos): `row` is
 * the content row about to be laid out, `top` the first content row the
 * rect shows.  Each block (a wrapped paragraph, one diff row, ...) knows
 * its height; it is drawn only where it overlaps [top, top + r.h), with
 * draw_wrap's skip for a block cut by the top edge.  With g == NULL the
 * same pass only counts rows (transcript_rows), so drawing and scrolling
 * agree by construction.  Each item caches its row count for a width
 * (ui/view/view.h), so a frame lays out only the items it shows plus one cheap
 * pass over the rest (make bench prints the frame time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ui/term/draw.h"
#include "ui/view/markdown.h"
#include "ui/term/theme.h"
#include "ui/view/transcript.h"
#include "base/xmalloc.h"
#include "llm/tool.h"

#define TRANSCRIPT_REJECTED "✗ rejected: too long for the context, not sent again"

struct tpos {
	struct grid *g; /* NULL: measure only */
	struct grid_rect r;
	long top, row;
	uint64_t now_ms;
	int focused;    /* the item being laid out has the focus */
	int streaming;  /* the item being laid out is the one still streaming */
};

/* Screen row of the current content row, or -1 when it is not shown. */
static int
vis(const struct tpos *p)
{
	if (!p->g || p->row < p->top || p->row >= p->top + p->r.h)
		return -1;
	return p->r.y + (int)(p->row - p->top);
}

/*
 * A block of `rows` rows of wrapped text at column indent: draws the part
 * that overlaps the shown rows (plain draw_wrap, or markdown_wrap when md)
 * and advances the cursor.
 */
static void
block(struct tpos *p, int indent, int rows, const char *s, size_t n, uint16_t role, int md)
{
	struct grid_rect r = { p->r.x + indent, 0, p->r.w - indent, 0 };
	long first = p->row > p->top ? p->row : p->top;
	long last = p->row + rows < p->top + p->r.h ? p->row + rows : p->top + p->r.h;

	if (p->g && first < last && r.w > 0) {
		r.y = p->r.y + (int)(first - p->top);
		r.h = (int)(last - first);
		if (md)
			markdown_wrap(p->g, r, (int)(first - p->row), s, n, role);
		else
			draw_wrap(p->g, r, (int)(first - p->row), s, n, role);
	}
	p->row += rows;
}

/* A wrapped paragraph with an optional prefix drawn on its first row. */
static void
para(struct tpos *p, const char *prefix, uint16_t prole, int indent, const char *s, size_t n,
    uint16_t role, int md)
{
	int w = p->r.w - indent > 0 ? p->r.w - indent : 1;
	struct grid_rect mr = { 0, 0, w, 0 };
	int rows = md ? markdown_wrap(NULL, mr, 0, s, n, role) : draw_measure(w, s, n);
	int y = vis(p);

	if (prefix && y >= 0)
		draw_text(p->g, p->r.x + indent - draw_width(prefix, strlen(prefix)), y,
		    p->r.w, prefix, strlen(prefix), prole);
	block(p, indent, rows, s, n, role, md);
}

/* One row: text cut to the width (with "…"). */
static void
line(struct tpos *p, int indent, const char *s, size_t n, uint16_t role)
{
	int y = vis(p);

	if (y >= 0 && p->r.w > indent)
		draw_trunc(p->g, p->r.x + indent, y, p->r.w - indent, s, n, role);
	p->row++;
}

/* The next line of s[*i..n) (without '\n'); 0 at the end. */
static int
next_line(const char *s, size_t n, size_t *i, const char **ls, size_t *ln)
{
	const char *nl;

	if (*i >= n)
		return 0;
	*ls = s + *i;
	nl = memchr(*ls, '\n', n - *i);
	*ln = nl ? (size_t)(nl - *ls) : n - *i;
	*i += *ln + 1;
	return 1;
}

/* A pipe table: rows from markdown_table, drawn where they overlap the rect. */
static void
lay_table(struct tpos *p, const char *s, size_t n)
{
	struct grid_rect r = p->r;
	int rows = markdown_table(NULL, r, 0, s, n);
	long first = p->row > p->top ? p->row : p->top;
	long last = p->row + rows < p->top + p->r.h ? p->row + rows : p->top + p->r.h;

	if (p->g && first < last) {
		r.y = p->r.y + (int)(first - p->top);
		r.h = (int)(last - first);
		markdown_table(p->g, r, (int)(first - p->row), s, n);
	}
	p->row += rows;
}

/* Rows between two checkpoints of an assistant item. */
#define CK_EVERY 32

/*
 * Where lay_markdown may start: the last checkpoint whose rows all lie
 * above the shown rows (any when measuring); NULL: from the top.
 */
static const struct view_ck *
ck_find(const struct tpos *p, const struct view_item *it)
{
	size_t k = it->nck;

	if (it->ck_w != p->r.w)
		return NULL;
	while (k-- > 0)
		if (it->ck[k].off <= it->text.len && (!p->g || p->row + it->ck[k].rows <= p->top))
			return &it->ck[k];
	return NULL;
}

/*
 * Record a checkpoint at text offset i (a line start, rows laid out so
 * far) when it is CK_EVERY rows past the last and the line starting
 * there is whole: its end has arrived, so whether the line before it
 * opens a table, and where a table before it ends, are settled.
 */
static struct view_ck *
ck_push(const struct tpos *p, const struct view_item *cit, size_t i, long rows)
{
	struct view_item *it = (struct view_item *)cit; /* the cache fields only */
	struct view_ck *c;

	if (it->ck_w != p->r.w) {
		it->nck = 0;
		it->ck_w = p->r.w;
	}
	if (i >= it->text.len || (it->nck && (it->ck[it->nck - 1].off >= i ||
	    rows - it->ck[it->nck - 1].rows < CK_EVERY)) || (!it->nck && rows < CK_EVERY))
		return NULL;
	if (it->nck == it->capck) {
		it->capck = it->capck ? it->capck * 2 : 8;
		it->ck = xrealloc(it->ck, it->capck * sizeof(*it->ck));
	}
	c = &it->ck[it->nck++];
	memset(c, 0, sizeof *c);
	c->off = i;
	c->rows = rows;
	c->code = -1;
	return c;
}

static void
ck_add(const struct tpos *p, const struct view_item *it, size_t i, long rows,
    const struct markdown_state *st, const char *code)
{
	struct view_ck *c;

	if (i >= it->text.len || !memchr(it->text.data + i, '\n', it->text.len - i) ||
	    !(c = ck_push(p, it, i, rows)))
		return;
	c->code = code ? (long)(code - it->text.data) : -1;
	c->in_fence = st->in_fence;
	memcpy(c->lang, st->lang, sizeof(c->lang));
}

/* A paragraph line longer than this records resume points inside it. */
#define PARA_LONG 2048

/* markdown_wrap_marks' callback: a checkpoint inside the line being laid out. */
struct para_marks {
	const struct tpos *p;
	const struct view_item *it;
	long rows;   /* rows of the item before the line's first row */
	size_t off;  /* the line's offset in the item's text */
	int indent;
	uint16_t role;
};

static void
para_mark(void *arg, size_t off, int row)
{
	struct para_marks *m = arg;
	struct view_ck *c = ck_push(m->p, m->it, m->off + off, m->rows + row);

	if (c) {
		c->mid = 1;
		c->indent = m->indent;
		c->role = m->role;
	}
}

/*
 * A paragraph line of an assistant item (markdown): para, and for a long
 * line checkpoints inside it (item base row: base), so that a frame lays
 * out a paragraph that streams without a line break from its last
 * checkpoint above the view, not from its start.
 */
static void
para_ck(struct tpos *p, const struct view_item *it, long base, const char *prefix,
    uint16_t prole, int indent, const char *s, size_t n, uint16_t role)
{
	struct para_marks m = { p, it, p->row - base, (size_t)(s - it->text.data), indent, role };
	int w = p->r.w - indent > 0 ? p->r.w - indent : 1, rows, y;

	if (n < PARA_LONG) {
		para(p, prefix, prole, indent, s, n, role, 1);
		return;
	}
	rows = markdown_wrap_marks(w, s, n, role, CK_EVERY, para_mark, &m);
	if (prefix && (y = vis(p)) >= 0)
		draw_text(p->g, p->r.x + indent - draw_width(prefix, strlen(prefix)), y,
		    p->r.w, prefix, strlen(prefix), prole);
	block(p, indent, rows, s, n, role, 1);
}

/*
 * An assistant message as markdown, from the last usable checkpoint on
 * (ck_find): a streamed answer's frame costs its tail and the shown rows,
 * not its whole length.
 */
static void
lay_markdown(struct tpos *p, const struct view_item *it)
{
	struct markdown_state st = { 0, "" };
	struct markdown_line ml;
	char bullet[16];
	const char *ls, *code = NULL;
	size_t i = 0, ln, code_n = 0, tn;
	const struct view_ck *ck = ck_find(p, it);
	long base = p->row;
	int y, ind;

	if (ck) {
		i = ck->off;
		p->row += ck->rows;
		st.in_fence = ck->in_fence;
		memcpy(st.lang, ck->lang, sizeof(st.lang));
		if (ck->code >= 0) {
			code = it->text.data + ck->code;
			code_n = markdown_fence_body(code, it->text.len - (size_t)ck->code);
		}
		if (ck->mid) { /* the rest of a long paragraph line, from a word in it */
			const char *eol;

			ls = it->text.data + i;
			eol = memchr(ls, '\n', it->text.len - i);
			ln = eol ? (size_t)(eol - ls) : it->text.len - i;
			para_ck(p, it, base, NULL, 0, ck->indent, ls, ln, ck->role);
			i += ln + 1;
		}
	}
	for (;;) {
		ck_add(p, it, i, p->row - base, &st, st.in_fence ? code : NULL);
		if (!next_line(it->text.data, it->text.len, &i, &ls, &ln))
			break;
		if (!st.in_fence && (tn = markdown_table_len(ls, it->text.len -
		    (size_t)(ls - it->text.data))) > 0) {
			lay_table(p, ls, tn);
			i = (size_t)(ls - it->text.data) + tn;
			continue;
		}
		markdown_line(&st, ls, ln, &ml);
		if (ml.kind == MARKDOWN_FENCE) {
			if (st.in_fence && i <= it->text.len) {
				code = it->text.data + i;
				code_n = markdown_fence_body(code, it->text.len - i);
			}
			continue;
		}
		if (ml.kind == MARKDOWN_BLANK) {
			p->row++;
		} else if (ml.kind == MARKDOWN_CODE_LINE) {
			y = vis(p);
			if (y >= 0 && p->r.w > 2)
				markdown_code_line(p->g, p->r.x + 2, y, p->r.w - 2, st.lang, code,
				    code_n, p->streaming && code + code_n == it->text.data + it->text.len,
				    ls, ln);
			p->row++;
		} else if (ml.kind == MARKDOWN_HEADING_LINE) {
			para_ck(p, it, base, NULL, 0, 0, ls + ml.off, ln - ml.off, MARKDOWN_HEADING);
		} else if (ml.kind == MARKDOWN_ITEM) {
			snprintf(bullet, sizeof(bullet), "%s ", ml.bullet);
			ind = ml.level * 2 + 1 + draw_width(bullet, strlen(bullet));
			para_ck(p, it, base, bullet, THEME_ACCENT, ind, ls + ml.off, ln - ml.off,
			    THEME_ASSISTANT);
		} else {
			para_ck(p, it, base, NULL, 0, 0, ls, ln, THEME_ASSISTANT);
		}
	}
	if (it->aborted)
		line(p, 0, "[interrupted]", 13, THEME_WARNING);
}

/* A reasoning item: one dimmed summary row, or all of it when expanded. */
static void
lay_reasoning(struct tpos *p, const struct view_item *it, int expand)
{
	struct buf b = BUF_INIT;
	const char *ls = it->text.data, *nl;
	size_t ln = it->text.len, k, rows = 1;

	if (expand) {
		para(p, p->focused ? "▸ " : "∴ ", p->focused ? THEME_ACCENT : THEME_REASONING, 2,
		    it->text.data, it->text.len, THEME_REASONING, 0);
		return;
	}
	for (k = 0; k < it->text.len; k++)
		rows += it->text.data[k] == '\n';
	nl = memchr(ls, '\n', ln);
	buf_addf(&b, "%s %.*s", p->focused ? "▸" : "∴", (int)(nl ? (size_t)(nl - ls) : ln), ls);
	if (rows > 1)
		buf_addf(&b, " … (%zu lines)", rows);
	line(p, 0, b.data, b.len, THEME_REASONING);
	buf_release(&b);
}

/* Put s at x and return the column after it (clipped to the rect). */
static int
put(struct tpos *p, int x, int y, const char *s, size_t n, uint16_t role)
{
	if (x >= p->r.w)
		return x;
	return x + draw_text(p->g, p->r.x + x, y, p->r.w - x, s, n, role);
}

/* The one-line header of a tool call. */
static void
lay_tool_header(struct tpos *p, const struct view_item *it)
{
	char right[64];
	uint64_t end = it->status == VIEW_TOOL_RUNNING ? p->now_ms : it->t_end_ms;
	double secs = end > it->t_start_ms ? (double)(end - it->t_start_ms) / 1000.0 : 0.0;
	long add, del;
	int y = vis(p), rw, x, n = 0;

	if (y >= 0) {
		markdown_diff_counts(it->diff.data, it->diff.len, &add, &del);
		if (add || del)
			n = snprintf(right, sizeof(right), "+%ld −%ld  ", add, del);
		if (it->note && *it->note && (size_t)n + 40 < sizeof(right))
			n += snprintf(right + n, sizeof(right) - (size_t)n, "%.*s · ",
			    (int)(sizeof(right) - (size_t)n - 40), it->note);
		if (it->status == VIEW_TOOL_RUNNING && it->waiting) /* the approval's time is not the call's */
			snprintf(right + n, sizeof(right) - (size_t)n, "waiting to run");
		else if (it->status == VIEW_TOOL_RUNNING)
			snprintf(right + n, sizeof(right) - (size_t)n, "running %.1fs", secs);
		else
			snprintf(right + n, sizeof(right) - (size_t)n, "%.1fs %s", secs,
			    it->status == VIEW_TOOL_OK ? "✓" : "✗");
		rw = draw_width(right, strlen(right));
		if (rw > p->r.w / 2) { /* a narrow screen keeps the name and arguments */
			memmove(right, right + n, strlen(right + n) + 1);
			rw = draw_width(right, strlen(right));
		}
		x = put(p, 0, y, p->focused ? "▸ " : "● ", strlen("● "), p->focused ? THEME_ACCENT :
		    it->status == VIEW_TOOL_ERROR ? THEME_TOOL_ERR : it->status == VIEW_TOOL_OK ?
		    THEME_TOOL_OK : THEME_TOOL_HEADER);
		x = put(p, x, y, it->name, strlen(it->name), THEME_TOOL_HEADER);
		if (it->args && *it->args && x + 1 < p->r.w - rw - 1)
			x = 1 + x + draw_trunc(p->g, p->r.x + x + 1, y, p->r.w - rw - 2 - x,
			    it->args, strlen(it->args), THEME_TEXT);
		if (x < p->r.w - rw)
			draw_text(p->g, p->r.x + p->r.w - rw, y, rw, right, strlen(right),
			    it->status == VIEW_TOOL_ERROR ? THEME_TOOL_ERR : THEME_DIM);
	}
	p->row++;
}

/* A diff block: rows from markdown_diff, drawn where they overlap the rect. */
static void
lay_diff(struct tpos *p, const char *s, size_t n, int fold)
{
	struct grid_rect r = p->r;
	int rows = markdown_diff(NULL, r, 0, s, n, fold);
	long first = p->row > p->top ? p->row : p->top;
	long last = p->row + rows < p->top + p->r.h ? p->row + rows : p->top + p->r.h;

	if (p->g && first < last) {
		r.y = p->r.y + (int)(first - p->top);
		r.h = (int)(last - first);
		markdown_diff(p->g, r, (int)(first - p->row), s, n, fold);
	}
	p->row += rows;
}

/* A running call's last TRANSCRIPT_LIVE_ROWS output lines, one row each. */
static void
lay_live(struct tpos *p, const struct view_item *it)
{
	const char *s = it->text.data, *ls;
	size_t n = it->text.len, i, ln;
	int k = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	for (i = n; i > 0 && k < TRANSCRIPT_LIVE_ROWS; i--)
		if (s[i - 1] == '\n' && ++k == TRANSCRIPT_LIVE_ROWS)
			break;
	while (next_line(s, n, &i, &ls, &ln)) {
		int y = vis(p);

		if (ln && ls[ln - 1] == '\r')
			ln--;
		if (memchr(ls, '\r', ln)) { /* a progress bar redrawn in place: its last state */
			const char *cr = ls + ln;

			while (cr > ls && cr[-1] != '\r')
				cr--;
			ln -= (size_t)(cr - ls);
			ls = cr;
		}
		if (y >= 0)
			put(p, 2, y, "│ ", strlen("│ "), THEME_BORDER);
		line(p, 4, ls, ln, THEME_DIM);
	}
}

/* A tool item: header, diff, and its output when expanded (the tail of it while it runs). */
static void
lay_tool(struct tpos *p, const struct view_item *it)
{
	const char *ls;
	size_t i = 0, ln;

	lay_tool_header(p, it);
	if (it->diff.len)
		lay_diff(p, it->diff.data, it->diff.len, it->expanded ? 0 : TRANSCRIPT_DIFF_FOLDED);
	if (!it->expanded && it->status == VIEW_TOOL_RUNNING && it->text.len)
		lay_live(p, it);
	if (!it->expanded)
		return;
	while (next_line(it->text.data, it->text.len, &i, &ls, &ln))
		para(p, "│ ", THEME_BORDER, 4, ls, ln, THEME_DIM, 0);
}

/*
 * Where a "name  text" line's second column starts: the byte offset after
 * the first run of two or more blanks that follows text (0: no such
 * column).  *col gets its column.
 */
static size_t
hang_at(const char *s, size_t n, int *col)
{
	size_t i = 0, j;

	while (i < n && s[i] == ' ')
		i++;
	for (; i + 2 < n; i++) {
		if (s[i] != ' ' || s[i + 1] != ' ' || i == 0 || s[i - 1] == ' ')
			continue;
		for (j = i; j < n && s[j] == ' '; j++)
			;
		if (j >= n)
			return 0;
		*col = draw_width(s, j);
		return j;
	}
	return 0;
}

/*
 * A notice: "→ text" (no second arrow when the text has its own).  A line
 * of several is wrapped under itself, and a "name  text" line (a table row
 * of /help) under its second column, or, when that column is past half the
 * width, as the name on its row and the text wrapped below it, indented.
 */
static void
lay_notice(struct tpos *p, const struct view_item *it)
{
	const char *s = it->text.data, *ls;
	size_t n = it->text.len, i = 0, ln, h;
	int own = n >= strlen("→") && !memcmp(s, "→", strlen("→")), first = 1, col = 0, y;

	if (it->one_line) {
		line(p, 0, "→ ", strlen("→ "), it->role);
		p->row--;
		line(p, 2, s, n, it->role);
		return;
	}
	if (!memchr(s, '\n', n)) {
		para(p, own ? NULL : "→ ", it->role, own ? 0 : 2, s, n, it->role, 0);
		return;
	}
	while (next_line(s, n, &i, &ls, &ln)) {
		y = vis(p);
		if (first && !own && y >= 0)
			draw_text(p->g, p->r.x, y, 2, "→ ", strlen("→ "), it->role);
		first = 0;
		if ((h = hang_at(ls, ln, &col)) > 0 && col <= (p->r.w - 2) / 2) {
			if (y >= 0)
				draw_text(p->g, p->r.x + 2, y, col, ls, h, it->role);
			para(p, NULL, 0, 2 + col, ls + h, ln - h, it->role, 0);
		} else if (h > 0) {
			line(p, 2, ls, h, it->role);
			para(p, NULL, 0, 6, ls + h, ln - h, it->role, 0);
		} else {
			para(p, NULL, 0, 2, ls, ln, it->role, 0);
		}
	}
}

/* Lay out one item at the cursor. */
static void
lay_item(struct tpos *p, const struct view_transcript *tv, const struct view_item *it)
{
	if (it->kind == VIEW_USER) {
		para(p, "› ", THEME_USER, 2, it->text.data, it->text.len, THEME_USER, 0);
		if (it->queued)
			line(p, 2, "⋯ queued", strlen("⋯ queued"), THEME_DIM);
		if (it->rejected)
			line(p, 2, TRANSCRIPT_REJECTED, strlen(TRANSCRIPT_REJECTED), THEME_ERROR);
		p->row++;
	} else if (it->kind == VIEW_ASSISTANT) {
		p->streaming = tv->open == it - tv->items;
		lay_markdown(p, it);
		p->streaming = 0;
		p->row++;
	} else if (it->kind == VIEW_REASONING) {
		p->focused = tv->focus == it - tv->items;
		lay_reasoning(p, it, it->expanded || tv->show_reasoning);
		p->focused = 0;
	} else if (it->kind == VIEW_TOOL) {
		p->focused = tv->focus == it - tv->items;
		lay_tool(p, it);
		p->focused = 0;
	} else {
		lay_notice(p, it);
	}
}

/* What an item's row count depends on besides the width (see ui/view/view.h's cache). */
static unsigned long
cache_key(const struct view_transcript *tv, const struct view_item *it)
{
	unsigned long k = (unsigned long)it->text.len * 1000003UL ^ (unsigned long)it->diff.len;

	return (k << 8) ^ (unsigned long)it->queued << 7 ^ (unsigned long)it->rejected << 5 ^
	    (unsigned long)(it->kind * 8 + it->status * 2 + it->aborted) ^
	    (unsigned long)((it->expanded || (it->kind == VIEW_REASONING && tv->show_reasoning)) << 4);
}

/*
 * Lay out every item from the top.  An item outside the shown rows (all
 * of them when measuring) whose row count is cached for this width only
 * advances the cursor, so a frame costs the shown items plus one cheap
 * pass; every item laid out refreshes its cache.
 */
static void
lay_all(struct tpos *p, const struct view_transcript *tv)
{
	struct view_item *it;
	unsigned long key;
	long start;
	size_t i;

	for (i = 0; i < tv->n; i++) {
		it = (struct view_item *)&tv->items[i]; /* only the cache fields are written */
		key = cache_key(tv, it);
		if (it->cache_w == p->r.w && it->cache_key == key && (!p->g ||
		    p->row + it->cache_rows <= p->top || p->row >= p->top + p->r.h)) {
			p->row += it->cache_rows;
			continue;
		}
		start = p->row;
		lay_item(p, tv, it);
		it->cache_rows = p->row - start;
		it->cache_w = p->r.w;
		it->cache_key = key;
	}
}

/* Content rows at `width` columns. */
long
transcript_rows(const struct view_transcript *tv, int width)
{
	struct tpos p = { NULL, { 0, 0, width, 0 }, 0, 0, tv->now_ms, 0, 0 };

	lay_all(&p, tv);
	return p.row;
}

/* Draw the transcript into r (pure: tv is not changed). */
void
transcript_draw(struct grid *g, struct grid_rect r, const struct view_transcript *tv)
{
	struct tpos p = { g, r, 0, 0, tv->now_ms, 0, 0 };
	long total, maxtop;

	if (r.w <= 0 || r.h <= 0)
		return;
	grid_clear_rect(g, r, THEME_TEXT);
	total = transcript_rows(tv, r.w);
	maxtop = total > r.h ? total - r.h : 0;
	p.top = tv->follow || tv->scroll > maxtop ? maxtop : tv->scroll < 0 ? 0 : tv->scroll;
	lay_all(&p, tv);
}

/* Scroll by delta rows in a view of w×h; reaching the bottom follows again. */
void
transcript_scroll(struct view_transcript *tv, long delta, int w, int h)
{
	long total = transcript_rows(tv, w), maxtop = total > h ? total - h : 0;
	long top = tv->follow ? maxtop : tv->scroll;

	top += delta;
	if (top < 0)
		top = 0;
	tv->follow = top >= maxtop;
	tv->scroll = tv->follow ? maxtop : top;
}

/* Back to following the stream (End). */
void
transcript_follow(struct view_transcript *tv)
{
	tv->follow = 1;
}

/* Stop following and scroll so that item idx is the top row at width w. */
void
transcript_show_item(struct view_transcript *tv, size_t idx, int w)
{
	struct view_transcript head = *tv;

	head.n = idx < tv->n ? idx : tv->n;
	tv->scroll = transcript_rows(&head, w);
	tv->follow = 0;
}

/* An empty transcript in follow mode. */
void
transcript_init(struct view_transcript *tv)
{
	memset(tv, 0, sizeof(*tv));
	tv->open = -1;
	tv->focus = -1;
	tv->follow = 1;
	buf_init(&tv->held, 0);
}

/* Free every item. */
void
transcript_release(struct view_transcript *tv)
{
	size_t i;

	for (i = 0; i < tv->n; i++) {
		buf_release(&tv->items[i].text);
		buf_release(&tv->items[i].diff);
		free(tv->items[i].name);
		free(tv->items[i].args);
		free(tv->items[i].call_id);
		free(tv->items[i].note);
		free(tv->items[i].ck);
	}
	free(tv->items);
	buf_release(&tv->held);
	transcript_init(tv);
}

static struct view_item *push_raw(struct view_transcript *tv, enum view_item_kind k);

/* The streaming item is over: the notices held while it streamed follow it. */
static void
close_open(struct view_transcript *tv)
{
	struct view_item *it;
	size_t i = 0, n;

	tv->open = -1;
	while (i + 3 < tv->held.len) {
		n = strlen(tv->held.data + i + 3);
		it = push_raw(tv, VIEW_NOTICE);
		it->role = (uint16_t)((unsigned char)tv->held.data[i] |
		    (unsigned char)tv->held.data[i + 1] << 8);
		it->one_line = tv->held.data[i + 2] == '1';
		buf_add(&it->text, tv->held.data + i + 3, n);
		i += n + 4;
	}
	buf_reset(&tv->held);
}

/* Append a blank item of kind k (closing the open one). */
static struct view_item *
push(struct view_transcript *tv, enum view_item_kind k)
{
	if (tv->open >= 0)
		close_open(tv);
	return push_raw(tv, k);
}

/* Append a blank item of kind k. */
static struct view_item *
push_raw(struct view_transcript *tv, enum view_item_kind k)
{
	struct view_item *it;

	if (tv->n == tv->cap) {
		tv->cap = tv->cap ? tv->cap * 2 : 16;
		tv->items = xrealloc(tv->items, tv->cap * sizeof(*tv->items));
	}
	it = &tv->items[tv->n++];
	memset(it, 0, sizeof(*it));
	buf_init(&it->text, 0);
	buf_init(&it->diff, 0);
	it->kind = k;
	tv->open = -1;
	return it;
}

/* Append a user message. */
void
transcript_add_user(struct view_transcript *tv, const char *s, size_t n)
{
	buf_add(&push(tv, VIEW_USER)->text, s, n);
}

/* Append a user message marked queued. */
void
transcript_add_queued(struct view_transcript *tv, const char *s, size_t n)
{
	struct view_item *it = push(tv, VIEW_USER);

	buf_add(&it->text, s, n);
	it->queued = 1;
}

/* The last user message's turn was rejected: mark it. */
int
transcript_reject_last_user(struct view_transcript *tv)
{
	size_t i = tv->n;

	while (i > 0) {
		if (tv->items[--i].kind == VIEW_USER && !tv->items[i].queued) {
			tv->items[i].rejected = 1;
			return 0;
		}
	}
	return -1;
}

/* The queued messages were sent: clear their marks. */
size_t
transcript_unqueue(struct view_transcript *tv)
{
	size_t i, k = 0;

	for (i = 0; i < tv->n; i++)
		if (tv->items[i].queued) {
			tv->items[i].queued = 0;
			k++;
		}
	return k;
}

/* The queue was dropped: remove the queued messages. */
size_t
transcript_drop_queued(struct view_transcript *tv)
{
	size_t i, j = 0, k = 0;

	for (i = 0; i < tv->n; i++) {
		if (tv->items[i].queued) {
			buf_release(&tv->items[i].text);
			free(tv->items[i].ck);
			k++;
			continue;
		}
		tv->items[j++] = tv->items[i];
	}
	tv->n = j;
	if (k)
		tv->open = -1;
	return k;
}

/* Append a notice (one_line: one row cut at the width), held while an answer streams. */
static void
add_notice(struct view_transcript *tv, uint16_t role, const char *s, size_t n, int one_line)
{
	struct view_item *it;
	const char *z = memchr(s, '\0', n);

	if (tv->open >= 0) {
		buf_addch(&tv->held, (char)(role & 0xff));
		buf_addch(&tv->held, (char)(role >> 8));
		buf_addch(&tv->held, one_line ? '1' : '0');
		buf_add(&tv->held, s, z ? (size_t)(z - s) : n);
		buf_addch(&tv->held, '\0');
		return;
	}
	it = push(tv, VIEW_NOTICE);
	it->role = role;
	it->one_line = one_line;
	buf_add(&it->text, s, n);
}

/* Append a notice line drawn in `role` (held while an answer streams). */
void
transcript_add_notice(struct view_transcript *tv, uint16_t role, const char *s, size_t n)
{
	add_notice(tv, role, s, n, 0);
}

/* The turn was stopped: mark the cut (see ui/view/transcript.h). */
void
transcript_interrupted(struct view_transcript *tv)
{
	if (tv->open >= 0 && tv->items[tv->open].kind == VIEW_ASSISTANT) {
		tv->items[tv->open].aborted = 1;
		close_open(tv);
		return;
	}
	if (tv->open >= 0)
		close_open(tv);
	if (tv->n && tv->items[tv->n - 1].kind == VIEW_ASSISTANT) {
		tv->items[tv->n - 1].aborted = 1;
		return;
	}
	transcript_add_notice(tv, THEME_WARNING, "[interrupted]", 13);
}

/* Append to the open item of kind k, opening a new one when needed. */
static void
grow(struct view_transcript *tv, enum view_item_kind k, struct str t)
{
	struct view_item *it;

	if (tv->open >= 0 && tv->items[tv->open].kind == k) {
		it = &tv->items[tv->open];
	} else {
		it = push(tv, k);
		tv->open = (long)tv->n - 1;
	}
	buf_add(&it->text, t.p, t.len);
}

/* A cache break as a notice of one row: the cause first, then the numbers (cut at the width). */
static void
cache_notice(struct view_transcript *tv, const struct llm_cache *c)
{
	struct buf b = BUF_INIT;

	if (c->planned) /* told when it was planned (MicroCompact, compaction...): not twice */
		return;
	buf_adds(&b, "cache break: ");
	if (c->cause && *c->cause)
		buf_addf(&b, "%s ", c->cause);
	buf_addf(&b, "(reuse %.1f%%, expected %.1f%%)", c->reuse * 100.0, c->expected * 100.0);
	add_notice(tv, THEME_WARNING, b.data, b.len, 1);
	buf_release(&b);
}

/* Feed a stream event (see ui/view/transcript.h). */
void
transcript_on_event(struct view_transcript *tv, const struct llm_event *ev)
{
	struct buf b = BUF_INIT;

	switch (ev->kind) {
	case LLM_TEXT:
		grow(tv, VIEW_ASSISTANT, ev->text);
		break;
	case LLM_REASONING:
		grow(tv, VIEW_REASONING, ev->text);
		break;
	case LLM_ERROR:
		if (ev->error.kind == LLM_ERR_ABORTED) {
			if (tv->open >= 0 && tv->items[tv->open].kind == VIEW_ASSISTANT)
				tv->items[tv->open].aborted = 1;
			close_open(tv);
			break;
		}
		close_open(tv);
		buf_addf(&b, "error: %.*s", (int)ev->text.len, ev->text.p);
		transcript_add_notice(tv, THEME_ERROR, b.data, b.len);
		break;
	case LLM_CACHE:
		if (ev->cache.is_break)
			cache_notice(tv, &ev->cache);
		break;
	case LLM_NOTICE:
		transcript_add_notice(tv, THEME_WARNING, ev->text.p, ev->text.len);
		break;
	case LLM_TOOL_CALL_BEGIN:
	case LLM_DONE:
		close_open(tv);
		break;
	default:
		break;
	}
	buf_release(&b);
}

/* Short arguments of a call: the tool's describe(), else the JSON cut short. */
static char *
short_args(const char *name, const char *json, size_t n)
{
	cJSON *root = cJSON_ParseWithLength(json, n);
	struct buf d = BUF_INIT;
	char *out = NULL;

	if (root)
		tool_describe(name ? tool_find(name) : NULL, root, &d);
	cJSON_Delete(root);
	if (d.len)
		out = buf_detach(&d, NULL);
	buf_release(&d);
	if (!out) {
		out = xmalloc((n > 60 ? 60 : n) + 1);
		memcpy(out, json, n > 60 ? 60 : n);
		out[n > 60 ? 60 : n] = '\0';
	}
	return out;
}

/* A tool call started: append a running tool item. */
void
transcript_tool_start(struct view_transcript *tv, const struct agent_call *c)
{
	struct view_item *it = push(tv, VIEW_TOOL);

	it->name = xstrdup(c->name ? c->name : "?");
	it->args = short_args(c->name, c->args.data, c->args.len);
	it->call_id = c->id ? xstrdup(c->id) : NULL;
	it->t_start_ms = c->t_start_ms;
	it->waiting = 1; /* until the call begins (transcript_tool_output) */
}

/* The item of call c (appended when none). */
static struct view_item *
call_item(struct view_transcript *tv, const struct agent_call *c)
{
	size_t i;

	for (i = tv->n; i > 0; i--)
		if (tv->items[i - 1].kind == VIEW_TOOL && tv->items[i - 1].call_id && c->id &&
		    strcmp(tv->items[i - 1].call_id, c->id) == 0)
			return &tv->items[i - 1];
	transcript_tool_start(tv, c);
	return &tv->items[tv->n - 1];
}

/* A running call began or wrote output: its start time and its output's tail. */
void
transcript_tool_output(struct view_transcript *tv, const struct agent_call *c)
{
	struct view_item *it = call_item(tv, c);

	if (it->status != VIEW_TOOL_RUNNING)
		return;
	it->waiting = 0;
	it->t_start_ms = c->t_start_ms;
	buf_reset(&it->text);
	buf_add(&it->text, c->job.live.data, c->job.live.len);
}

/* What the tool says its finished call found, for the header. */
static char *
call_note(const struct agent_call *c)
{
	cJSON *root = cJSON_ParseWithLength(c->args.data, c->args.len);
	struct buf d = BUF_INIT;
	char *out = NULL;

	if (root && !c->invalid)
		tool_summary(c->name ? tool_find(c->name) : NULL, root, c->job.out.data,
		    c->job.is_error, &d);
	cJSON_Delete(root);
	if (d.len)
		out = buf_detach(&d, NULL);
	buf_release(&d);
	return out;
}

/* A tool call finished: fill the item of the same id (append one when none). */
void
transcript_tool_done(struct view_transcript *tv, const struct agent_call *c)
{
	struct view_item *it = call_item(tv, c);

	it->status = c->job.is_error || c->invalid ? VIEW_TOOL_ERROR : VIEW_TOOL_OK;
	it->t_start_ms = c->t_start_ms;
	it->t_end_ms = c->t_end_ms;
	buf_reset(&it->text);
	buf_add(&it->text, c->job.out.data, c->job.out.len);
	buf_reset(&it->diff);
	if (c->job.diff)
		buf_adds(&it->diff, c->job.diff);
	free(it->note);
	it->note = call_note(c);
}

/* Whether an item opens and closes (a tool call, reasoning). */
static int
foldable(const struct view_item *it)
{
	return it->kind == VIEW_TOOL || it->kind == VIEW_REASONING;
}

/* Toggle the expanded flag of the last tool or reasoning item. */
void
transcript_toggle_last(struct view_transcript *tv)
{
	size_t i;

	for (i = tv->n; i > 0; i--)
		if (foldable(&tv->items[i - 1])) {
			tv->items[i - 1].expanded = !tv->items[i - 1].expanded;
			return;
		}
}

/* The first content row shown in a view of w×h, and each item's rows cached for w. */
static long
view_top(const struct view_transcript *tv, int w, int h)
{
	long total = transcript_rows(tv, w), maxtop = total > h ? total - h : 0;

	return tv->follow || tv->scroll > maxtop ? maxtop : tv->scroll < 0 ? 0 : tv->scroll;
}

/* The last foldable item whose first row is in the view of w×h (else the last before it); -1 none. */
long
transcript_in_view(const struct view_transcript *tv, int w, int h)
{
	long top = view_top(tv, w, h), row = 0, best = -1;
	size_t i;

	for (i = 0; i < tv->n && row < top + h; i++) {
		if (foldable(&tv->items[i]) && (best < 0 || row < top + h))
			best = (long)i;
		row += tv->items[i].cache_rows;
	}
	return best;
}

/* Ctrl-O: toggle the item in focus, else the one in view when scrolled back, else the last. */
void
transcript_toggle_here(struct view_transcript *tv, int w, int h)
{
	long i = tv->focus >= 0 && (size_t)tv->focus < tv->n ? tv->focus :
	    tv->follow ? -1 : transcript_in_view(tv, w, h);

	if (i < 0) {
		transcript_toggle_last(tv);
		return;
	}
	tv->items[i].expanded = !tv->items[i].expanded;
}

/* Scroll so that the focused item's first row is in the view of w×h. */
static void
show_focus(struct view_transcript *tv, int w, int h)
{
	long top = view_top(tv, w, h), row = 0, total;
	size_t i;

	for (i = 0; i < (size_t)tv->focus && i < tv->n; i++)
		row += tv->items[i].cache_rows;
	if (row < top)
		top = row;
	else if (row >= top + h)
		top = row - h / 3;
	total = transcript_rows(tv, w);
	tv->follow = 0;
	tv->scroll = top > total - h ? (total - h > 0 ? total - h : 0) : top;
}

/* Focus mode: start on the item in view (see ui/view/transcript.h). */
int
transcript_focus_start(struct view_transcript *tv, int w, int h)
{
	tv->focus = transcript_in_view(tv, w, h);
	if (tv->focus < 0)
		return -1;
	show_focus(tv, w, h);
	return 0;
}

/* Move the focus to the previous (dir < 0) or next foldable item (0: stay); its header shows. */
void
transcript_focus_move(struct view_transcript *tv, int dir, int w, int h)
{
	long i;

	if (tv->focus < 0)
		return;
	for (i = tv->focus + dir; dir && i >= 0 && (size_t)i < tv->n; i += dir)
		if (foldable(&tv->items[i])) {
			tv->focus = i;
			break;
		}
	show_focus(tv, w, h);
}

/* Open every foldable item, or close them all when all are open. */
void
transcript_toggle_all(struct view_transcript *tv)
{
	size_t i;
	int open = 0;

	for (i = 0; i < tv->n; i++)
		if (foldable(&tv->items[i]) && !tv->items[i].expanded)
			open = 1;
	for (i = 0; i < tv->n; i++)
		if (foldable(&tv->items[i]))
			tv->items[i].expanded = open;
}

/* Leave focus mode (the view stays where it is). */
void
transcript_focus_end(struct view_transcript *tv)
{
	tv->focus = -1;
}

/* Whether needle occurs in s[0..n). */
static int
has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; s && i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return 1;
	return 0;
}

/* Search items from index `from` for needle; -1 when none. */
long
transcript_find(const struct view_transcript *tv, size_t from, const char *needle)
{
	const struct view_item *it;
	size_t i;

	for (i = from; *needle && i < tv->n; i++) {
		it = &tv->items[i];
		if (has(it->text.data, it->text.len, needle) ||
		    has(it->diff.data, it->diff.len, needle) ||
		    (it->name && has(it->name, strlen(it->name), needle)) ||
		    (it->args && has(it->args, strlen(it->args), needle)))
			return (long)i;
	}
	return -1;
}

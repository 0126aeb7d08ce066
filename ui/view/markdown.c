/*
 * ui/view/markdown: block classification and inline-styled word wrap.
 *
 * markdown_wrap first strips the span markers into a scratch copy with a
 * role per byte (struct spans), then lays words out row by row; each run
 * of bytes with one role on one row is drawn with one draw_text call, so
 * combining marks stay with their base and sanitising happens in draw.
 * Column widths of a run are measured with draw_width on its bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "ui/view/highlight.h"
#include "ui/term/draw.h"
#include "ui/view/markdown.h"
#include "base/xmalloc.h"

struct spans {
	struct buf text;
	uint16_t *role; /* one per byte of text */
	size_t cap;
	size_t *src;    /* markdown_wrap_marks: the source offset of each byte of text */
	size_t open_at; /* markdown_wrap_marks: the first marker that later text could still
			 * open (a literal '*' or '`' not followed by a space), else n */
};

/* markdown_wrap_marks' request: every `every`-th row's resume point to mark(). */
struct wrap_marks {
	int every;
	int next;       /* the row the next mark may be at, at the earliest */
	uint16_t base;  /* a row whose first byte is in a span (another role) is no resume point */
	void (*mark)(void *arg, size_t off, int row);
	void *arg;
};

struct layout_pos {
	struct grid *g;
	struct grid_rect r;
	int skip, row, x;
	struct wrap_marks *marks; /* NULL: none asked for */
};

/* Whether s[0..n) starts with the string p. */
static int
starts(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && memcmp(s, p, k) == 0;
}

/* Classify an ordered or unordered list marker at s; 0 when none. */
static size_t
list_marker(const char *s, size_t n, char *bullet, size_t bn)
{
	size_t i = 0;

	if (n >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ') {
		snprintf(bullet, bn, "•");
		return 2;
	}
	while (i < n && i < 4 && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i > 0 && i + 1 < n && (s[i] == '.' || s[i] == ')') && s[i + 1] == ' ') {
		snprintf(bullet, bn, "%.*s.", (int)i, s);
		return i + 2;
	}
	return 0;
}

/* Classify one line (no '\n'), updating the fence state. */
void
markdown_line(struct markdown_state *st, const char *s, size_t n, struct markdown_line *out)
{
	size_t ind = 0, k;

	memset(out, 0, sizeof(*out));
	while (ind < n && s[ind] == ' ')
		ind++;
	if (starts(s + ind, n - ind, "```")) {
		out->kind = MARKDOWN_FENCE;
		st->in_fence = !st->in_fence;
		k = n - ind - 3;
		if (k >= sizeof(st->lang))
			k = sizeof(st->lang) - 1;
		memcpy(st->lang, s + ind + 3, st->in_fence ? k : 0);
		st->lang[st->in_fence ? k : 0] = '\0';
		return;
	}
	if (st->in_fence) {
		out->kind = MARKDOWN_CODE_LINE;
		return;
	}
	if (ind == n) {
		out->kind = MARKDOWN_BLANK;
		return;
	}
	for (k = ind; k < n && k - ind < 6 && s[k] == '#'; k++)
		;
	if (k > ind && k < n && s[k] == ' ') {
		out->kind = MARKDOWN_HEADING_LINE;
		out->level = (int)(k - ind);
		out->off = k + 1;
		return;
	}
	k = list_marker(s + ind, n - ind, out->bullet, sizeof(out->bullet));
	out->kind = k ? MARKDOWN_ITEM : MARKDOWN_PARA;
	out->level = (int)(ind / 2);
	out->off = k ? ind + k : 0;
}

/* Where the marker m (1 or 2 bytes) closes after i, or 0 when it does not. */
static size_t
closing(const char *s, size_t n, size_t i, const char *m)
{
	size_t k = strlen(m), j;

	if (i + k >= n || s[i + k] == ' ')
		return 0;
	for (j = i + k + 1; j + k <= n; j++)
		if (memcmp(s + j, m, k) == 0 && s[j - 1] != ' ')
			return j;
	return 0;
}

/* Append n bytes of s (source offset off) to sp in role r (tabs become spaces). */
static void
spans_add(struct spans *sp, const char *s, size_t n, uint16_t r, size_t off)
{
	size_t i, at = sp->text.len;

	if (at + n > sp->cap) {
		sp->cap = (at + n) * 2 + 16;
		sp->role = xrealloc(sp->role, sp->cap * sizeof(*sp->role));
		if (sp->src)
			sp->src = xrealloc(sp->src, sp->cap * sizeof(*sp->src));
	}
	for (i = 0; i < n; i++) {
		buf_addch(&sp->text, s[i] == '\t' ? ' ' : s[i]);
		sp->role[at + i] = r;
		if (sp->src)
			sp->src[at + i] = off + i;
	}
}

/* Strip inline markers from s into sp with a role per byte. */
static void
spans_parse(struct spans *sp, const char *s, size_t n, uint16_t base)
{
	size_t i = 0, j;

	sp->open_at = n;
	while (i < n) {
		if (s[i] == '`' && (j = closing(s, n, i, "`")) != 0) {
			spans_add(sp, s + i + 1, j - i - 1, MARKDOWN_CODE, i + 1);
			i = j + 1;
		} else if (starts(s + i, n - i, "**") && (j = closing(s, n, i, "**")) != 0) {
			spans_add(sp, s + i + 2, j - i - 2, MARKDOWN_BOLD, i + 2);
			i = j + 2;
		} else if (s[i] == '*' && (j = closing(s, n, i, "*")) != 0) {
			spans_add(sp, s + i + 1, j - i - 1, MARKDOWN_ITALIC, i + 1);
			i = j + 1;
		} else {
			/* a marker left literal that more text could close: nothing after it is settled */
			if ((s[i] == '*' || s[i] == '`') && (i + 1 >= n || s[i + 1] != ' ') &&
			    sp->open_at == n)
				sp->open_at = i;
			spans_add(sp, s + i, 1, base, i);
			i++;
		}
	}
}

/* Length of the UTF-8 character at s (1 for an invalid byte). */
static size_t
char_len(const char *s, size_t n)
{
	uint32_t cp;
	size_t k = grid_utf8_decode(s, n, &cp);

	return k ? k : 1;
}

/* Draw bytes [a, b) of sp at the current position, run by run of one role. */
static void
put_runs(struct layout_pos *p, const struct spans *sp, size_t a, size_t b)
{
	size_t e;
	int vis = p->row >= p->skip && p->row < p->skip + p->r.h;

	while (a < b) {
		for (e = a; e < b && sp->role[e] == sp->role[a]; e++)
			;
		if (p->g && vis)
			draw_text(p->g, p->r.x + p->x, p->r.y + p->row - p->skip, p->r.w - p->x,
			    sp->text.data + a, e - a, sp->role[a]);
		p->x += draw_width(sp->text.data + a, e - a);
		a = e;
	}
}

/* Place a word longer than the width, breaking it between characters. */
static void
put_long(struct layout_pos *p, const struct spans *sp, size_t a, size_t b)
{
	size_t k;
	int w;

	while (a < b) {
		k = char_len(sp->text.data + a, b - a);
		while (a + k < b && draw_width(sp->text.data + a + k,
		    char_len(sp->text.data + a + k, b - a - k)) == 0)
			k += char_len(sp->text.data + a + k, b - a - k);
		w = draw_width(sp->text.data + a, k);
		if (p->x > 0 && p->x + w > p->r.w) {
			p->row++;
			p->x = 0;
		}
		put_runs(p, sp, a, a + k);
		a += k;
	}
}

/* Lay out the words of sp; returns the rows used. */
static int
lay_words(struct layout_pos *p, const struct spans *sp)
{
	const char *t = sp->text.data;
	size_t i = 0, n = sp->text.len, ws, we;
	int w;

	while (i < n) {
		for (ws = i; ws < n && t[ws] == ' '; ws++)
			;
		for (we = ws; we < n && t[we] != ' '; we++)
			;
		if (we == ws)
			break;
		w = draw_width(t + ws, we - ws);
		if (p->x > 0 && p->x + (int)(ws - i) + w > p->r.w) {
			p->row++;
			p->x = 0;
			/* a row that starts with a whole word: the layout may resume here */
			if (p->marks && p->row >= p->marks->next && w <= p->r.w && we < n &&
			    sp->role[ws] == p->marks->base && sp->src[ws] <= sp->open_at) {
				p->marks->mark(p->marks->arg, sp->src[ws], p->row);
				p->marks->next = p->row + p->marks->every;
			}
		} else if (p->x > 0 || ws > i) {
			put_runs(p, sp, i, ws);
		}
		if (w > p->r.w)
			put_long(p, sp, ws, we);
		else
			put_runs(p, sp, ws, we);
		i = we;
	}
	return p->row + 1;
}

/* Word-wrap one line of inline markdown into r; see ui/view/markdown.h. */
int
markdown_wrap(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n,
    uint16_t base)
{
	struct spans sp = { BUF_INIT, NULL, 0, NULL, 0 };
	struct layout_pos p = { g, r, skip, 0, 0, NULL };
	int rows;

	if (r.w < 1)
		r.w = p.r.w = 1;
	spans_parse(&sp, s, n, base);
	rows = lay_words(&p, &sp);
	buf_release(&sp.text);
	free(sp.role);
	return rows;
}

/* Measure as markdown_wrap, reporting resume points (see ui/view/markdown.h). */
int
markdown_wrap_marks(int w, const char *s, size_t n, uint16_t base, int every,
    void (*mark)(void *arg, size_t off, int row), void *arg)
{
	struct wrap_marks m = { every > 0 ? every : 1, every > 0 ? every : 1, base, mark, arg };
	struct spans sp = { BUF_INIT, NULL, 0, NULL, 0 };
	struct layout_pos p = { NULL, { 0, 0, w < 1 ? 1 : w, 0 }, 0, 0, 0, &m };
	int rows;

	sp.src = xmalloc(sizeof *sp.src); /* grown with role by spans_add */
	spans_parse(&sp, s, n, base);
	rows = lay_words(&p, &sp);
	buf_release(&sp.text);
	free(sp.role);
	free(sp.src);
	return rows;
}

/*
 * Diff rows.  struct drow is a row cursor: rows skip .. skip+r.h-1 are
 * drawn at r, the others only counted.
 */
#define DIFF_LINE_MAX 1000000000L

struct drow {
	struct grid *g;
	struct grid_rect r;
	int skip, row;
	const struct highlight_diff *hl; /* syntax of the sides; NULL when measuring */
};

/* Screen row of the cursor's row, or -1 when it is not shown. */
static int
vis(const struct drow *p)
{
	if (!p->g || p->row < p->skip || p->row >= p->skip + p->r.h)
		return -1;
	return p->r.y + p->row - p->skip;
}

/* Put s at column x of row y and return the column after it. */
static int
put(struct drow *p, int x, int y, const char *s, size_t n, uint16_t role)
{
	if (x >= p->r.w)
		return x;
	return x + draw_text(p->g, p->r.x + x, y, p->r.w - x, s, n, role);
}

/* One row of dimmed text at column 6. */
static void
dline(struct drow *p, const char *s, uint16_t role)
{
	int y = vis(p);

	if (y >= 0 && p->r.w > 6)
		draw_trunc(p->g, p->r.x + 6, y, p->r.w - 6, s, strlen(s), role);
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

/* Count the + and - lines of a unified diff. */
void
markdown_diff_counts(const char *s, size_t n, long *add, long *del)
{
	const char *ls;
	size_t i = 0, ln;

	*add = *del = 0;
	while (next_line(s, n, &i, &ls, &ln)) {
		if (ln && ls[0] == '+' && !(ln >= 3 && memcmp(ls, "+++", 3) == 0))
			(*add)++;
		else if (ln && ls[0] == '-' && !(ln >= 3 && memcmp(ls, "---", 3) == 0))
			(*del)++;
	}
}

/* Length of a fenced block's body (see ui/view/markdown.h). */
size_t
markdown_fence_body(const char *s, size_t n)
{
	const char *ls;
	size_t i = 0, ln, at, ind;

	for (;;) {
		at = i;
		if (!next_line(s, n, &i, &ls, &ln))
			return n;
		for (ind = 0; ind < ln && ls[ind] == ' '; ind++)
			;
		if (starts(ls + ind, ln - ind, "```"))
			return at;
	}
}

/* One code line coloured in its block's context. */
void
markdown_code_line(struct grid *g, int x, int y, int w, const char *lang,
    const char *block, size_t bn, int growing, const char *line, size_t ln)
{
	const struct code_lang *l = code_lang_for_fence(lang);
	const uint16_t *roles = NULL;

	if (!block || line < block || line + ln > block + bn) {
		block = line;
		bn = ln;
		growing = 0;
	}
	if (l && (roles = (growing ? highlight_roles_growing : highlight_roles)(l, block, bn)) != NULL)
		roles += line - block;
	highlight_line(g, x, y, w, line, ln, roles, MARKDOWN_CODE_BLOCK);
}

/* Whether c is part of a word (for widening a changed span to whole tokens). */
static int
wordch(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || (unsigned char)c >= 0x80;
}

/* Whether a and b are the same class of token character (word, punctuation). */
static int
same_class(char a, char b)
{
	return a != ' ' && b != ' ' && a != '\t' && b != '\t' && wordch(a) == wordch(b);
}

/*
 * The changed span of line a against b (both without the +/- sign):
 * common prefix *pre and suffix *suf, widened to token boundaries.
 */
static void
diff_span(const char *a, size_t an, const char *b, size_t bn, size_t *pre, size_t *suf)
{
	size_t i = 0, j = 0, m = an < bn ? an : bn;

	while (i < m && a[i] == b[i])
		i++;
	while (i > 0 && ((i < an && same_class(a[i - 1], a[i])) ||
	    (i < bn && same_class(b[i - 1], b[i]))))
		i--;
	while (j < m - i && a[an - 1 - j] == b[bn - 1 - j])
		j++;
	while (j > 0 && ((j < an - i && same_class(a[an - j], a[an - j - 1])) ||
	    (j < bn - i && same_class(b[bn - j], b[bn - j - 1]))))
		j--;
	*pre = i;
	*suf = j;
}

/* The line of a diff paired with line k (-1: none): i-th '-' of a run <-> i-th '+'. */
static long
diff_pair(const char **ls, const size_t *ln, size_t nl, size_t k)
{
	size_t s, e, a;

	if (!ln[k] || (ls[k][0] != '-' && ls[k][0] != '+'))
		return -1;
	for (s = k; s > 0 && ln[s - 1] && ls[s - 1][0] == ls[k][0]; s--)
		;
	if (ls[k][0] == '-') {
		for (e = k; e < nl && ln[e] && ls[e][0] == '-'; e++)
			;
		for (a = e; a < nl && ln[a] && ls[a][0] == '+'; a++)
			;
		return k - s < a - e ? (long)(e + (k - s)) : -1;
	}
	for (e = s; e > 0 && ln[e - 1] && ls[e - 1][0] == '-'; e--)
		;
	return k - s < s - e ? (long)(e + (k - s)) : -1;
}

/*
 * Append s[0..n) to out with tabs expanded to 4-column stops from *col;
 * with syn (the roles of s), each byte's role goes to er[out->len].
 */
static void
expand(struct buf *out, uint16_t *er, const char *s, const uint16_t *syn, size_t n, int *col)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\t') {
			do {
				if (er)
					er[out->len] = syn ? syn[i] : THEME_TEXT;
				buf_addch(out, ' ');
			} while (++*col % 4);
			continue;
		}
		if (er)
			er[out->len] = syn ? syn[i] : THEME_TEXT;
		buf_addch(out, s[i]);
		*col += ((unsigned char)s[i] & 0xC0) != 0x80;
	}
}

/* Put e[a..b) in base, with syntax roles er (NULL: none) over it as mixes. */
static int
put_syn(struct drow *p, int x, int y, const struct buf *e, const uint16_t *er, size_t a,
    size_t b, uint16_t base)
{
	size_t j;
	uint16_t r;

	if (!er)
		return put(p, x, y, e->data + a, b - a, base);
	while (a < b) {
		for (j = a + 1; j < b && er[j] == er[a]; j++)
			;
		while (j < b && ((unsigned char)e->data[j] & 0xC0) == 0x80)
			j++;
		r = er[a] == THEME_TEXT ? base : base == THEME_TEXT ? er[a] : THEME_MIX(er[a], base);
		x = put(p, x, y, e->data + a, j - a, r);
		a = j;
	}
	return x;
}

/* One diff row: "  41 - text" with the changed span in the word role. */
static void
diff_row(struct drow *p, const char **ls, const size_t *ln, size_t nl, size_t k, long no)
{
	char num[24];
	char sign = ln[k] ? ls[k][0] : ' ';
	uint16_t role = sign == '+' ? THEME_DIFF_ADD : sign == '-' ? THEME_DIFF_DEL : THEME_TEXT;
	uint16_t wrole = sign == '+' ? THEME_DIFF_ADD_WORD : THEME_DIFF_DEL_WORD;
	const char *t = ln[k] ? ls[k] + 1 : "";
	size_t tn = ln[k] ? ln[k] - 1 : 0, pre = tn, suf = 0, a, b;
	long pk = diff_pair(ls, ln, nl, k);
	const uint16_t *syn = p->hl ? highlight_diff_line(p->hl, ls, ln, k) : NULL;
	uint16_t *er = syn ? xmalloc((tn * 4 + 1) * sizeof *er) : NULL;
	struct buf e = BUF_INIT;
	int y = vis(p), x, col = 0;

	p->row++;
	if (y < 0) {
		free(er);
		return;
	}
	if (pk >= 0)
		diff_span(t, tn, ls[pk] + 1, ln[pk] - 1, &pre, &suf);
	expand(&e, er, t, syn, pre, &col);
	a = e.len;
	expand(&e, er, t + pre, syn ? syn + pre : NULL, tn - pre - suf, &col);
	b = e.len;
	expand(&e, er, t + tn - suf, syn ? syn + tn - suf : NULL, suf, &col);
	snprintf(num, sizeof(num), "%5ld ", no);
	x = put(p, 0, y, num, strlen(num), THEME_LINE_NO);
	x = put(p, x, y, sign == ' ' ? "  " : sign == '+' ? "+ " : "- ", 2, role);
	x = put_syn(p, x, y, &e, er, 0, a, role);
	x = put_syn(p, x, y, &e, er, a, b, wrole);
	put_syn(p, x, y, &e, er, b, e.len, role);
	buf_release(&e);
	free(er);
}

/* Split a diff into its lines (arrays malloc'd into *ls, *ln). */
static size_t
diff_lines(const char *d, size_t dn, const char ***ls, size_t **ln)
{
	size_t i = 0, n = 0, cap = 16;
	const char *s;
	size_t l;

	*ls = xmalloc(cap * sizeof(**ls));
	*ln = xmalloc(cap * sizeof(**ln));
	while (next_line(d, dn, &i, &s, &l)) {
		if (n == cap) {
			cap *= 2;
			*ls = xrealloc(*ls, cap * sizeof(**ls));
			*ln = xrealloc(*ln, cap * sizeof(**ln));
		}
		(*ls)[n] = s;
		(*ln)[n++] = l;
	}
	return n;
}

/* Draw a unified diff into r (see ui/view/markdown.h). */
int
markdown_diff(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n, int fold)
{
	struct drow p = { g, r, skip, 0, NULL };
	const char **ls;
	size_t *ln, nl = diff_lines(s, n, &ls, &ln), k;
	long o = 0, nw = 0, more = 0, shown = 0;
	char msg[48];
	struct highlight_diff hl;

	if (g) {
		highlight_diff_init(&hl, ls, ln, nl);
		p.hl = &hl;
	}

	for (k = 0; k < nl; k++) {
		if ((ln[k] >= 3 && (!memcmp(ls[k], "---", 3) || !memcmp(ls[k], "+++", 3))) ||
		    (ln[k] && ls[k][0] == '\\'))
			continue;
		if (ln[k] >= 2 && !memcmp(ls[k], "@@", 2)) {
			if (sscanf(ls[k], "@@ -%ld%*[^+]+%ld", &o, &nw) != 2 || o < 0 || nw < 0 ||
			    o > DIFF_LINE_MAX || nw > DIFF_LINE_MAX)
				o = nw = 0;
			if (shown && (fold <= 0 || shown < fold)) {
				shown++;
				dline(&p, "⋯", THEME_DIFF_HUNK);
			}
			continue;
		}
		if (fold > 0 && shown >= fold) {
			more++;
			continue;
		}
		shown++;
		diff_row(&p, ls, ln, nl, k, ln[k] && ls[k][0] == '-' ? o : nw);
		o += !ln[k] || ls[k][0] != '+';
		nw += !ln[k] || ls[k][0] != '-';
	}
	if (more) {
		snprintf(msg, sizeof(msg), "… %ld more lines (ctrl-o)", more);
		dline(&p, msg, THEME_DIM);
	}
	if (g)
		highlight_diff_release(&hl);
	free(ls);
	free(ln);
	return p.row;
}

/* The changed span of one line of a -/+ pair, for the diff viewer (see ui/view/markdown.h). */
void
markdown_diff_span(const char *a, size_t an, const char *b, size_t bn, size_t *pre, size_t *suf)
{
	diff_span(a, an, b, bn, pre, suf);
}

/* ---- pipe tables (markdown_table_len, markdown_table) ---------------- */

#define TABLE_COLS 32

/* A table row's cells: [b[i], e[i]) trimmed, the outer pipes dropped, "\|" kept in a cell. */
static int
table_cells(const char *s, size_t n, size_t *b, size_t *e)
{
	size_t i = 0, start;
	int k = 0;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '|')
		i++;
	if (n > i && s[n - 1] == '|' && (n < 2 || s[n - 2] != '\\'))
		n--;
	while (k < TABLE_COLS) {
		start = i;
		while (i < n && !(s[i] == '|' && (i == 0 || s[i - 1] != '\\')))
			i++;
		b[k] = start;
		e[k] = i;
		while (b[k] < e[k] && s[b[k]] == ' ')
			b[k]++;
		while (e[k] > b[k] && s[e[k] - 1] == ' ')
			e[k]--;
		k++;
		if (i >= n)
			break;
		i++;
	}
	return k;
}

/* A delimiter row ("|---|:--:|"): its cell count, alignment in al ('l', 'c', 'r'); 0 if not one. */
static int
table_delim(const char *s, size_t n, char *al)
{
	size_t b[TABLE_COLS], e[TABLE_COLS], j;
	int k = table_cells(s, n, b, e), i, dashes;

	if (!memchr(s, '|', n) && k < 2)
		return 0;
	for (i = 0; i < k; i++) {
		dashes = 0;
		for (j = b[i]; j < e[i]; j++) {
			if (s[j] == '-')
				dashes++;
			else if (s[j] != ':' || (j != b[i] && j != e[i] - 1))
				return 0;
		}
		if (!dashes)
			return 0;
		al[i] = s[b[i]] == ':' && s[e[i] - 1] == ':' ? 'c' : s[e[i] - 1] == ':' ? 'r' : 'l';
	}
	return k;
}

/* Bytes of the pipe table at the start of s (0: none there). */
size_t
markdown_table_len(const char *s, size_t n)
{
	size_t b[TABLE_COLS], e[TABLE_COLS], i = 0, ln;
	const char *ls;
	char al[TABLE_COLS];
	int cols;

	if (!next_line(s, n, &i, &ls, &ln) || !memchr(ls, '|', ln))
		return 0;
	cols = table_cells(ls, ln, b, e);
	if (!next_line(s, n, &i, &ls, &ln) || table_delim(ls, ln, al) != cols)
		return 0;
	while (i < n) {
		size_t save = i;

		if (!next_line(s, n, &i, &ls, &ln) || !memchr(ls, '|', ln)) {
			i = save;
			break;
		}
	}
	return i < n ? i : n;
}

/* A cell's text without the inline markers ** __ and `, into out. */
static void
table_plain(const char *s, size_t n, struct buf *out)
{
	size_t i;

	buf_setlen(out, 0);
	for (i = 0; i < n; i++) {
		if ((s[i] == '*' || s[i] == '_') && i + 1 < n && s[i + 1] == s[i]) {
			i++;
			continue;
		}
		if (s[i] == '`' || (s[i] == '\\' && i + 1 < n && s[i + 1] == '|'))
			continue;
		buf_add(out, s + i, 1);
	}
	buf_add(out, "", 0);
}

/* One row of cells at y: each cut to its column's width and aligned, " │ " between. */
static void
table_row(struct grid *g, struct grid_rect r, int y, const char *s, size_t n, const int *w,
    const char *al, int cols, uint16_t role)
{
	size_t b[TABLE_COLS], e[TABLE_COLS];
	struct buf t = BUF_INIT;
	int k = table_cells(s, n, b, e), i, x = 0, cw, pad;

	for (i = 0; i < cols && x < r.w; i++) {
		if (i) {
			draw_text(g, r.x + x, y, r.w - x, " │ ", strlen(" │ "), THEME_BORDER);
			x += 3;
		}
		if (i < k && x < r.w) {
			table_plain(s + b[i], e[i] - b[i], &t);
			cw = draw_width(t.data, t.len);
			pad = cw >= w[i] ? 0 : al[i] == 'r' ? w[i] - cw : al[i] == 'c' ? (w[i] - cw) / 2 : 0;
			cw = w[i] - pad < r.w - x - pad ? w[i] - pad : r.w - x - pad;
			if (cw > 0)
				draw_trunc(g, r.x + x + pad, y, cw, t.data, t.len, role);
		}
		x += w[i];
	}
	buf_release(&t);
}

/* Draw the table s[0..n) (markdown_table_len's bytes) into r from row skip; returns its rows. */
int
markdown_table(struct grid *g, struct grid_rect r, int skip, const char *s, size_t n)
{
	size_t b[TABLE_COLS], e[TABLE_COLS], i = 0, ln;
	struct buf t = BUF_INIT;
	const char *ls;
	char al[TABLE_COLS];
	int w[TABLE_COLS], cols = 0, k, c, row = 0, total, widest, y;

	memset(w, 0, sizeof w);
	memset(al, 'l', sizeof al);
	while (next_line(s, n, &i, &ls, &ln)) { /* the columns' widths */
		if (row == 1) {
			table_delim(ls, ln, al);
		} else {
			k = table_cells(ls, ln, b, e);
			if (!row)
				cols = k;
			for (c = 0; c < k && c < cols; c++) {
				table_plain(ls + b[c], e[c] - b[c], &t);
				if (draw_width(t.data, t.len) > w[c])
					w[c] = draw_width(t.data, t.len);
			}
		}
		row++;
	}
	buf_release(&t);
	for (c = 0; c < cols; c++)
		if (w[c] < 1)
			w[c] = 1;
	for (;;) { /* too wide: narrow the widest column (cells are cut with "…") */
		for (total = 3 * (cols - 1), c = 0, widest = 0; c < cols; c++) {
			total += w[c];
			if (w[c] > w[widest])
				widest = c;
		}
		if (total <= r.w || w[widest] <= 3)
			break;
		w[widest]--;
	}
	if (!g)
		return row;
	for (i = 0, k = 0; next_line(s, n, &i, &ls, &ln); k++) {
		if (k < skip || k >= skip + r.h)
			continue;
		y = r.y + k - skip;
		if (k == 1) { /* the rule under the header */
			int x = 0;

			for (c = 0; c < cols && x < r.w; c++) {
				for (total = 0; total < w[c] + (c ? 2 : 1) - (c == cols - 1) && x < r.w; total++)
					x += draw_text(g, r.x + x, y, r.w - x, "─", strlen("─"), THEME_BORDER);
				if (c < cols - 1 && x < r.w)
					x += draw_text(g, r.x + x, y, r.w - x, "┼", strlen("┼"), THEME_BORDER);
			}
		} else {
			table_row(g, r, y, ls, ln, w, al, cols, k ? THEME_ASSISTANT : MARKDOWN_HEADING);
		}
	}
	return row;
}

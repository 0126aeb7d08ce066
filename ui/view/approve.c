/*
 * ui/view/approve: the approval box (see ui/view/approve.h).  The detail is kept as one
 * text; its lines are hard-wrapped at the box width when drawn (every
 * character kept, spaces too, never an ellipsis: what is approved is shown
 * whole), the wrapped height computed once per width.  `scroll` counts
 * wrapped rows and is clamped when drawing, where the box height is known.
 */
#include "ui/view/approve.h"

#include <string.h>

#include "base/sanitize.h"
#include "ui/term/draw.h"
#include "ui/term/theme.h"

void
approve_init(struct approve *ap)
{
	memset(ap, 0, sizeof *ap);
	buf_init(&ap->title, 0);
	buf_init(&ap->why, 0);
	buf_init(&ap->detail, 0);
	buf_init(&ap->always, 0);
}

void
approve_release(struct approve *ap)
{
	buf_release(&ap->title);
	buf_release(&ap->why);
	buf_release(&ap->detail);
	buf_release(&ap->always);
}

/* Copy the question and show it. */
void
approve_show(struct approve *ap, const struct approve_question *q)
{
	const char *p;
	char *c;

	buf_reset(&ap->title);
	buf_reset(&ap->why);
	buf_reset(&ap->detail);
	buf_reset(&ap->always);
	buf_adds(&ap->title, q->title);
	buf_adds(&ap->why, q->why);
	buf_adds(&ap->detail, q->detail);
	buf_rtrim(&ap->detail);
	buf_adds(&ap->always, q->always);
	for (c = ap->always.data; (c = strchr(c, '\n')) != NULL;)
		*c = ' ';
	ap->is_diff = q->is_diff;
	ap->nlines = ap->detail.len ? 1 : 0;
	for (p = ap->detail.data; (p = strchr(p, '\n')) != NULL; p++)
		ap->nlines++;
	ap->scroll = 0;
	ap->wrap_w = -1;
	ap->on = 1;
}

void
approve_hide(struct approve *ap)
{
	ap->on = 0;
}

/* Keys while shown. */
int
approve_key(struct approve *ap, const struct keys_event *ev)
{
	if (!ap->on)
		return APPROVE_PASS;
	if (ev->kind == KEYS_CHAR && (ev->mods & KEYS_MOD_CTRL))
		return APPROVE_PASS;
	switch (ev->kind) {
	case KEYS_CHAR:
		if (ev->cp == 'y' || ev->cp == 'Y' || ev->cp == 'n' || ev->cp == 'N' ||
		    ev->cp == 'a' || ev->cp == 'A') {
			ap->on = 0;
			return ev->cp == 'y' || ev->cp == 'Y' ? APPROVE_YES :
			       ev->cp == 'a' || ev->cp == 'A' ? APPROVE_ALWAYS : APPROVE_NO;
		}
		return APPROVE_KEEP;
	case KEYS_ESC:
		ap->on = 0;
		return APPROVE_NO;
	case KEYS_UP: case KEYS_WHEEL_UP: ap->scroll -= 1; return APPROVE_KEEP;
	case KEYS_DOWN: case KEYS_WHEEL_DOWN: ap->scroll += 1; return APPROVE_KEEP;
	case KEYS_PGUP: ap->scroll -= 10; return APPROVE_KEEP;
	case KEYS_PGDN: ap->scroll += 10; return APPROVE_KEEP;
	case KEYS_MOUSE: case KEYS_UNKNOWN: return APPROVE_PASS;
	default: return APPROVE_KEEP;
	}
}

/* The style of one detail line. */
static uint16_t
approve_style(const struct approve *ap, const char *s, size_t n)
{
	if (!ap->is_diff || !n)
		return THEME_TEXT;
	if ((n >= 3 && (!strncmp(s, "+++", 3) || !strncmp(s, "---", 3))))
		return THEME_DIM;
	return s[0] == '@' ? THEME_DIFF_HUNK : s[0] == '+' ? THEME_DIFF_ADD :
	       s[0] == '-' ? THEME_DIFF_DEL : THEME_TEXT;
}

/*
 * One line hard-wrapped at w columns: every character kept, spaces too (a
 * command is shown exactly, never cut or re-spaced); with g, its rows
 * [skip, skip + max) are drawn from (x, y).  Returns its rows (>= 1).
 */
static int
approve_wrap(struct grid *g, int x, int y, int w, int skip, int max, const char *s, size_t n,
    uint16_t style)
{
	size_t start = 0, i = 0, k;
	int row = 0, col = 0, cw;

	while (i < n) {
		k = sanitize_utf8_len((const unsigned char *)s + i, n - i);
		if (!k)
			k = 1;
		cw = s[i] == '\t' ? 8 - col % 8 : draw_width(s + i, k);
		if (col > 0 && col + cw > w) {
			if (g && row >= skip && row < skip + max)
				draw_text(g, x, y + row - skip, w, s + start, i - start, style);
			row++;
			start = i;
			col = 0;
			cw = s[i] == '\t' ? 8 : cw;
		}
		col += cw;
		i += k;
	}
	if (g && row >= skip && row < skip + max)
		draw_text(g, x, y + row - skip, w, s + start, n - start, style);
	return row + 1;
}

/*
 * The detail, every line wrapped at w: its rows; when g, the rows
 * [scroll, scroll + rows) are drawn from (x, y).
 */
static int
approve_lines(const struct approve *ap, struct grid *g, int x, int y, int w, int rows)
{
	const char *p = ap->detail.data, *nl;
	int row = 0, skip, max;
	size_t n;

	for (; p && ap->detail.len; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		skip = row < ap->scroll ? ap->scroll - row : 0;
		max = ap->scroll + rows - (row + skip);
		row += approve_wrap(g && max > 0 ? g : NULL, x, y + row + skip - ap->scroll, w, skip,
		    max, p, n, approve_style(ap, p, n));
	}
	return row;
}

/* The box at the bottom of r: the title on its top border, why, the detail, the keys. */
void
approve_draw(struct approve *ap, struct grid *g, struct grid_rect r)
{
	struct grid_rect box;
	struct buf line = BUF_INIT, keys = BUF_INIT;
	int rows, inner, total, krows, tw;
	const char *colon;

	if (!ap->on || r.w < 10 || r.h < 4)
		return;
	inner = r.w - 4;
	if (ap->wrap_w != inner) { /* the wrapped height, once per width */
		ap->wrap_w = inner;
		ap->wrap_rows = approve_lines(ap, NULL, 0, 0, inner, 0);
	}
	total = ap->wrap_rows;
	buf_adds(&keys, "y yes · n no · a always");
	if (ap->always.len)
		buf_addf(&keys, " (%s)", ap->always.data);
	krows = approve_wrap(NULL, 0, 0, inner, 0, 0, keys.data, keys.len, 0);
	if (krows > r.h / 3) /* the question never leaves no room for what it asks about */
		krows = r.h / 3 > 0 ? r.h / 3 : 1;
	rows = total;
	if (rows > r.h - 4 - krows)
		rows = r.h - 4 - krows > 0 ? r.h - 4 - krows : 0;
	if (ap->scroll > total - rows)
		ap->scroll = total - rows;
	if (ap->scroll < 0)
		ap->scroll = 0;
	box.h = rows + 3 + krows + (total > rows) <= r.h ? rows + 3 + krows + (total > rows) : r.h;
	box.x = r.x;
	box.w = r.w;
	box.y = r.y + r.h - box.h;
	grid_clear_rect(g, box, THEME_TEXT);
	draw_box(g, box, THEME_WARNING);
	buf_addf(&line, " allow %s ? ", ap->title.data);
	tw = draw_width(line.data, line.len);
	if (tw > box.w - 2 && ap->nlines) { /* the detail below shows the whole call */
		colon = strchr(ap->title.data, ':');
		buf_reset(&line);
		buf_addf(&line, " allow %.*s (in full below) ? ",
		    colon ? (int)(colon - ap->title.data) : (int)ap->title.len, ap->title.data);
	}
	draw_trunc(g, box.x + 1, box.y, box.w - 2, line.data, line.len, THEME_WARNING);
	draw_trunc(g, box.x + 2, box.y + 1, inner, ap->why.data, ap->why.len, THEME_DIM);
	approve_lines(ap, g, box.x + 2, box.y + 2, inner, rows);
	if (total > rows) {
		buf_reset(&line);
		buf_addf(&line, "↑↓ PgUp PgDn scroll · rows %d-%d of %d", ap->scroll + 1,
		    ap->scroll + rows, total);
		draw_trunc(g, box.x + 2, box.y + 2 + rows, inner, line.data, line.len, THEME_DIM);
	}
	approve_wrap(g, box.x + 2, box.y + box.h - 1 - krows, inner, 0, krows, keys.data, keys.len,
	    THEME_ACCENT);
	buf_release(&line);
	buf_release(&keys);
}

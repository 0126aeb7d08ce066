/*
 * ui/view/approve: the approval box (see ui/view/approve.h).  The detail is kept as one
 * text; its lines are counted at show time and cut to the box width when
 * drawn (no wrapping, so a diff keeps its columns).  `scroll` is clamped
 * when drawing, where the box height is known.
 */
#include "ui/view/approve.h"

#include <string.h>

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

/* Draw the detail lines [scroll, scroll + rows) at (x, y). */
static void
approve_lines(struct approve *ap, struct grid *g, int x, int y, int w, int rows)
{
	const char *p = ap->detail.data, *nl;
	int i = 0;

	if (ap->scroll > ap->nlines - rows)
		ap->scroll = ap->nlines - rows;
	if (ap->scroll < 0)
		ap->scroll = 0;
	for (; p && i < ap->scroll + rows; i++, p = nl ? nl + 1 : NULL) {
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (i >= ap->scroll)
			draw_trunc(g, x, y + i - ap->scroll, w, p, n, approve_style(ap, p, n));
	}
}

/* The box at the bottom of r. */
void
approve_draw(struct approve *ap, struct grid *g, struct grid_rect r)
{
	struct grid_rect box;
	struct buf line = BUF_INIT;
	int rows, inner;

	if (!ap->on || r.w < 10 || r.h < 4)
		return;
	rows = ap->nlines;
	if (rows > r.h - 5)
		rows = r.h - 5 > 0 ? r.h - 5 : 0;
	box.h = rows + 5 <= r.h ? rows + 5 : r.h;
	box.x = r.x;
	box.w = r.w;
	box.y = r.y + r.h - box.h;
	inner = box.w - 4;
	grid_clear_rect(g, box, THEME_TEXT);
	draw_box(g, box, THEME_WARNING);
	buf_addf(&line, " allow %s ? ", ap->title.data);
	draw_trunc(g, box.x + 1, box.y, box.w - 2, line.data, line.len, THEME_WARNING);
	draw_trunc(g, box.x + 2, box.y + 1, inner, ap->why.data, ap->why.len, THEME_DIM);
	approve_lines(ap, g, box.x + 2, box.y + 2, inner, rows);
	buf_reset(&line);
	buf_addf(&line, "y yes · n no · a always (%s) · ↑↓ scroll", ap->always.data);
	if (ap->nlines > rows)
		buf_addf(&line, " · lines %d-%d of %d", ap->scroll + 1, ap->scroll + rows, ap->nlines);
	draw_trunc(g, box.x + 2, box.y + box.h - 2, inner, line.data, line.len, THEME_ACCENT);
	buf_release(&line);
}

/*
 * ui/app/picker: the full-screen session picker (see ui/app/picker.h).
 *
 * `shown` is recomputed from scratch on every change of the query (a few
 * hundred sessions at most; each test is a case-folded substring search),
 * and `sel` is clamped to it; `top` follows `sel` when drawing so the
 * selected row is always on screen.
 */
#include "ui/app/picker.h"

#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/cli.h"
#include "ui/term/draw.h"
#include "io/loop.h"
#include "ui/term/term.h"
#include "ui/term/theme.h"
#include "front/sessions.h"
#include "base/xmalloc.h"

#define APP_PICKER_HINT "↑↓ move · Enter resume · Del delete · Esc cancel · type to search"
#define APP_PICKER_ESC_MS 30

/* app_picker_run's state on its loop. */
struct prun {
	struct app_picker p;
	struct term *t;
	struct grid *g;
	struct keys k;
	struct loop *l;
	long esc_timer;
	int result;      /* 1 chosen, 0 cancelled, -1 terminal gone */
	char *chosen;
	size_t size;
	struct err *e;
};

/* Case-folded (ASCII) substring test of n bytes of word in s. */
static int
has_word(const char *s, const char *word, size_t n)
{
	size_t i, j, len = strlen(s);

	for (i = 0; i + n <= len; i++) {
		for (j = 0; j < n && tolower((unsigned char)s[i + j]) == tolower((unsigned char)word[j]); j++)
			;
		if (j == n)
			return 1;
	}
	return 0;
}

/* Whether row r matches every word of the query. */
static int
matches(const struct session_list_info *r, const char *q)
{
	while (*q) {
		size_t n;

		q += strspn(q, " ");
		n = strcspn(q, " ");
		if (n && !has_word(r->first_prompt ? r->first_prompt : "", q, n) && !has_word(r->id, q, n))
			return 0;
		q += n;
	}
	return 1;
}

/* Recompute the rows that match and keep the selection in range. */
static void
refilter(struct app_picker *p)
{
	size_t i;

	p->nshown = 0;
	for (i = 0; i < p->n; i++)
		if (!p->gone[i] && matches(&p->v[i], p->query.data))
			p->shown[p->nshown++] = i;
	p->sel = 0;
	p->top = 0;
}

/* All rows shown, the first selected. */
void
app_picker_init(struct app_picker *p, const struct session_list_info *v, size_t n, const char *root)
{
	memset(p, 0, sizeof *p);
	p->v = v;
	p->n = n;
	p->root = root;
	buf_init(&p->query, 0);
	p->shown = xcalloc(n + 1, sizeof *p->shown);
	p->gone = xcalloc(n + 1, 1);
	refilter(p);
}

/* Free the query and the index. */
void
app_picker_release(struct app_picker *p)
{
	buf_release(&p->query);
	free(p->shown);
	free(p->gone);
	p->shown = NULL;
	p->gone = NULL;
}

/* The selected row was deleted: drop it, keep the selection near it. */
void
app_picker_deleted(struct app_picker *p, const char *note)
{
	size_t sel = p->sel;

	if (p->nshown)
		p->gone[p->shown[p->sel]] = 1;
	refilter(p);
	p->sel = p->nshown && sel >= p->nshown ? p->nshown - 1 : (p->nshown ? sel : 0);
	snprintf(p->note, sizeof p->note, "%s", note ? note : "");
}

/* Drop the last UTF-8 character of the query. */
static void
query_backspace(struct app_picker *p)
{
	size_t n = p->query.len;

	while (n && ((unsigned char)p->query.data[n - 1] & 0xC0) == 0x80)
		n--;
	if (n)
		n--;
	buf_setlen(&p->query, n);
	refilter(p);
}

/* Move the selection by d rows, clamped. */
static void
move(struct app_picker *p, long d)
{
	long s = (long)p->sel + d;

	if (!p->nshown)
		return;
	if (s < 0)
		s = 0;
	if (s >= (long)p->nshown)
		s = (long)p->nshown - 1;
	p->sel = (size_t)s;
}

/* One key. */
enum app_picker_result
app_picker_key(struct app_picker *p, const struct keys_event *ev)
{
	if (p->confirm) { /* "delete …? y" : y deletes, any other key keeps it */
		p->confirm = 0;
		if (ev->kind == KEYS_CHAR && !(ev->mods & KEYS_MOD_CTRL) && (ev->cp == 'y' || ev->cp == 'Y'))
			return APP_PICKER_DELETE;
		snprintf(p->note, sizeof p->note, "not deleted");
		return APP_PICKER_NONE;
	}
	p->note[0] = 0;
	switch (ev->kind) {
	case KEYS_DELETE:
		p->confirm = p->nshown > 0;
		break;
	case KEYS_ESC:
		return APP_PICKER_CANCEL;
	case KEYS_ENTER:
		return p->nshown ? APP_PICKER_CHOSEN : APP_PICKER_NONE;
	case KEYS_UP: move(p, -1); break;
	case KEYS_DOWN: move(p, 1); break;
	case KEYS_PGUP: move(p, -10); break;
	case KEYS_PGDN: move(p, 10); break;
	case KEYS_HOME: move(p, -(long)p->nshown); break;
	case KEYS_END: move(p, (long)p->nshown); break;
	case KEYS_BACKSPACE: query_backspace(p); break;
	case KEYS_CHAR:
		if (ev->mods & KEYS_MOD_CTRL) {
			if (ev->cp == 'c' || ev->cp == 'd')
				return APP_PICKER_CANCEL;
			if (ev->cp == 'u') {
				buf_reset(&p->query);
				refilter(p);
			}
			if (ev->cp == 'p' || ev->cp == 'n')
				move(p, ev->cp == 'p' ? -1 : 1);
			break;
		}
		buf_adds(&p->query, ev->utf8);
		refilter(p);
		break;
	case KEYS_PASTE:
		buf_add(&p->query, ev->paste, strcspn(ev->paste, "\r\n") < ev->paste_len
						  ? strcspn(ev->paste, "\r\n") : ev->paste_len);
		refilter(p);
		break;
	default:
		break;
	}
	return APP_PICKER_NONE;
}

/* The selected row. */
const struct session_list_info *
app_picker_selected(const struct app_picker *p)
{
	return p->nshown ? &p->v[p->shown[p->sel]] : NULL;
}

/* A short age. */
static void
app_picker_age(struct buf *out, time_t then, time_t now)
{
	long s = (long)(now - then);

	if (s < 60)
		buf_adds(out, "just now");
	else if (s < 3600)
		buf_addf(out, "%ldm ago", s / 60);
	else if (s < 86400)
		buf_addf(out, "%ldh ago", s / 3600);
	else if (s < 14 * 86400)
		buf_addf(out, "%ldd ago", s / 86400);
	else
		buf_addf(out, "%ldw ago", s / (7 * 86400));
}

/* One session row at y: prompt on the left, size and age on the right. */
static void
draw_row(struct grid *g, int y, const struct session_list_info *r, int selected, time_t now)
{
	struct buf right = BUF_INIT;
	uint16_t st = selected ? THEME_SELECTION : THEME_TEXT;
	const char *prompt = r->first_prompt && *r->first_prompt ? r->first_prompt : "(no prompt)";
	int rw;

	buf_addf(&right, "%zu msg%s · ", r->nmsgs, r->nmsgs == 1 ? "" : "s");
	app_picker_age(&right, r->mtime, now);
	rw = draw_width(right.data, right.len);
	draw_fill(g, (struct grid_rect){ 0, y, g->w, 1 }, " ", st);
	draw_text(g, 0, y, 2, selected ? "› " : "  ", selected ? 4 : 2, selected ? THEME_ACCENT : st);
	if (g->w > rw + 6) {
		draw_trunc(g, 2, y, g->w - rw - 4, prompt, strlen(prompt), st);
		draw_text(g, g->w - rw - 1, y, rw, right.data, right.len, selected ? st : THEME_DIM);
	} else {
		draw_trunc(g, 2, y, g->w - 2, prompt, strlen(prompt), st);
	}
	buf_release(&right);
}

/* The whole screen. */
void
app_picker_draw(struct app_picker *p, struct grid *g, time_t now, int *cx, int *cy)
{
	struct buf line = BUF_INIT;
	int rows = g->h - 4, y;
	size_t i, left;

	grid_clear(g, THEME_TEXT);
	if (g->h < 5 || g->w < 10) {
		draw_trunc(g, 0, 0, g->w, "window too small", 16, THEME_WARNING);
		*cx = *cy = -1;
		return;
	}
	for (i = 0, left = p->n; i < p->n; i++)
		left -= p->gone[i];
	buf_addf(&line, "Resume a session · %s · %zu of %zu", p->root ? p->root : "", p->nshown, left);
	draw_trunc(g, 0, 0, g->w, line.data, line.len, THEME_ACCENT);
	buf_reset(&line);
	buf_addf(&line, "search: %s", p->query.data);
	draw_trunc(g, 0, 1, g->w, line.data, line.len, THEME_TEXT);
	*cx = draw_width(line.data, line.len) < g->w ? draw_width(line.data, line.len) : g->w - 1;
	*cy = 1;
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)rows)
		p->top = p->sel - (size_t)rows + 1;
	for (y = 0, i = p->top; y < rows && i < p->nshown; y++, i++)
		draw_row(g, 2 + y, &p->v[p->shown[i]], i == p->sel, now);
	if (!p->nshown)
		draw_text(g, 2, 2, g->w - 2, "no session matches", 18, THEME_DIM);
	if (p->confirm && p->nshown) {
		const struct session_list_info *r = &p->v[p->shown[p->sel]];

		buf_reset(&line);
		buf_addf(&line, "delete session %s (%s) and its slot files? y deletes, any other key keeps it", r->id,
			 r->first_prompt && *r->first_prompt ? r->first_prompt : "no prompt");
		draw_trunc(g, 0, g->h - 1, g->w, line.data, line.len, THEME_WARNING);
	} else if (p->note[0]) {
		draw_trunc(g, 0, g->h - 1, g->w, p->note, strlen(p->note), THEME_DIM);
	} else {
		draw_trunc(g, 0, g->h - 1, g->w, APP_PICKER_HINT, strlen(APP_PICKER_HINT), THEME_DIM);
	}
	buf_release(&line);
}

/* Apply a key; Enter and Esc end the run. */
static void
prun_key(struct prun *r, const struct keys_event *ev)
{
	enum app_picker_result res = app_picker_key(&r->p, ev);

	if (res == APP_PICKER_NONE)
		return;
	if (res == APP_PICKER_DELETE) { /* the session and its slot files; the picker goes on */
		struct buf gone = BUF_INIT, note = BUF_INIT;
		struct err e = ERR_INIT;
		size_t files = 0;
		const char *q;

		if (front_sessions_delete_id(r->p.root, app_picker_selected(&r->p)->id, &gone, &e) < 0 &&
		    !gone.len) {
			snprintf(r->p.note, sizeof r->p.note, "not deleted: %.200s", e.msg);
			buf_release(&gone);
			return;
		}
		for (q = gone.data; (q = strchr(q, '\n')); q++)
			files++;
		buf_addf(&note, "deleted session %.*s (%zu file%s: the session, its slot files)%s%s",
			 (int)strcspn(gone.data, "\n"), gone.data, files, files == 1 ? "" : "s", e.msg[0] ? "; " : "",
			 e.msg);
		app_picker_deleted(&r->p, note.data);
		buf_release(&gone);
		buf_release(&note);
		return;
	}
	if (res == APP_PICKER_CHOSEN) {
		snprintf(r->chosen, r->size, "%s", app_picker_selected(&r->p)->id);
		r->result = 1;
	}
	loop_stop(r->l);
}

/* The Esc timer: a lone Esc is the Esc key. */
static void
prun_esc(struct loop *l, long id, void *arg)
{
	struct prun *r = arg;
	struct keys_event ev;

	(void)l;
	(void)id;
	r->esc_timer = 0;
	if (keys_flush(&r->k, &ev)) {
		prun_key(r, &ev);
		while (!loop_stopped(r->l) && keys_next(&r->k, &ev))
			prun_key(r, &ev);
	}
}

/* Terminal input: decode and apply the keys. */
static void
prun_input(struct loop *l, int fd, int events, void *arg)
{
	struct prun *r = arg;
	struct keys_event ev;

	(void)fd;
	(void)events;
	if (term_read_keys(r->t, &r->k, r->e) < 0) {
		r->result = -1;
		loop_stop(l);
		return;
	}
	while (!loop_stopped(l) && keys_next(&r->k, &ev))
		prun_key(r, &ev);
	if (r->esc_timer)
		loop_timer_del(l, r->esc_timer);
	r->esc_timer = keys_waiting(&r->k) ? loop_timer_add(l, APP_PICKER_ESC_MS, prun_esc, r) : 0;
}

/* Before each sleep: draw and present. */
static void
prun_render(struct loop *l, void *arg)
{
	struct prun *r = arg;
	int w, h, cx, cy;

	term_size(r->t, &w, &h);
	if (w != r->g->w || h != r->g->h)
		grid_resize(r->g, w, h);
	app_picker_draw(&r->p, r->g, time(NULL), &cx, &cy);
	term_cursor(r->t, cx, cy);
	if (term_present(r->t, r->g) < 0) {
		err_set(r->e, "the terminal went away");
		r->result = -1;
		loop_stop(l);
	}
}

/* SIGWINCH: the next render picks up the new size. */
static void
prun_winch(struct loop *l, int signo, void *arg)
{
	(void)l;
	(void)signo;
	term_resized(((struct prun *)arg)->t);
}

/* Run the picker on t with its own loop. */
int
app_picker_run(struct term *t, const struct session_list_info *v, size_t n, const char *root,
	   char *chosen, size_t size, struct err *e)
{
	struct prun r;

	memset(&r, 0, sizeof r);
	if (!(r.l = loop_new(e)))
		return -1;
	r.t = t;
	r.chosen = chosen;
	r.size = size;
	r.e = e;
	r.g = grid_new(0, 0);
	keys_init(&r.k);
	app_picker_init(&r.p, v, n, root);
	loop_signal(r.l, SIGWINCH, prun_winch, &r, NULL);
	loop_watch(r.l, term_input_fd(t), LOOP_READ, prun_input, &r);
	loop_set_before_sleep(r.l, prun_render, &r);
	if (loop_run(r.l, e) < 0)
		r.result = -1;
	loop_free(r.l);
	app_picker_release(&r.p);
	keys_release(&r.k);
	grid_free(r.g);
	return r.result;
}

/* hearth -r on a terminal. */
int
app_picker_main(struct front_cli *o, char *chosen, size_t size)
{
	struct term_curses_opts opts = { 0, 1 };
	struct session_list_info *v = NULL;
	struct err e = ERR_INIT;
	char root[PATH_MAX];
	struct theme th;
	struct term *t;
	size_t n = 0;
	int rc;

	if (front_sessions_sessions(o, root, &v, &n) < 0)
		return 1;
	setlocale(LC_CTYPE, "");
	theme_default(&th, theme_depth_env());
	if (!(t = term_curses_new(&th, &opts, &e))) {
		session_list_free(v, n);
		return front_sessions_pick(o, chosen, size); /* no full screen: the numbered list */
	}
	rc = app_picker_run(t, v, n, root, chosen, size, &e);
	term_free(t);
	session_list_free(v, n);
	if (rc < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		return 1;
	}
	if (rc == 0)
		return 0;
	o->resume_id = chosen;
	return -1;
}

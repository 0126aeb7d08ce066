/*
 * ui/term/text: the headless backend for snapshot tests (see ui/term/term.h).
 *
 * The "terminal" is a second grid (`screen`) that present() copies the
 * dirty rows of the caller's grid into, exactly as the curses backend
 * blits them — so a view that forgets to mark a row dirty shows a stale
 * row in its snapshot, as it would on a real terminal.  Input is a
 * non-blocking pipe the test writes into (term_text_type), so a UI loop
 * can watch term_input_fd() as it watches the tty.
 */
#include "ui/term/term.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xmalloc.h"

struct term_text {
	struct term base; /* first: a struct term * is a struct term_text * */
	struct grid *screen;
	int fds[2];
	long rows;
	int bells;
	int cx, cy;
};

/* The backend behind a struct term. */
static struct term_text *
tt(struct term *t)
{
	return (struct term_text *)t;
}

/* Free the screen and the pipe. */
static void
text_free(struct term *t)
{
	struct term_text *x = tt(t);

	grid_free(x->screen);
	close(x->fds[0]);
	close(x->fds[1]);
	free(x);
}

/* Size of the screen. */
static void
text_size(struct term *t, int *w, int *h)
{
	*w = tt(t)->screen->w;
	*h = tt(t)->screen->h;
}

/* Nothing to re-read: term_text_set_size changes the size directly. */
static void
text_resized(struct term *t)
{
	(void)t;
}

/* Copy one row of g onto the screen. */
static void
blit_row(struct grid *screen, const struct grid *g, int y)
{
	const struct grid_cell *c;
	int x;

	for (x = 0; x < g->w && x < screen->w; x++) {
		c = grid_at(g, x, y);
		if (c->width == 0)
			continue; /* padding: placed with its lead */
		grid_put_char(screen, x, y, c->text, strlen(c->text), c->width, c->style);
	}
}

/* Copy the dirty rows, then clear their marks. */
static int
text_present(struct term *t, struct grid *g)
{
	struct term_text *x = tt(t);
	int y;

	for (y = 0; y < g->h; y++) {
		if (!grid_dirty(g, y))
			continue;
		if (y < x->screen->h) {
			blit_row(x->screen, g, y);
			x->rows++;
		}
		grid_clean(g, y);
	}
	return 0;
}

/* Remember the cursor. */
static void
text_cursor(struct term *t, int cx, int cy)
{
	tt(t)->cx = cx;
	tt(t)->cy = cy;
}

/* Count the bell. */
static void
text_bell(struct term *t)
{
	tt(t)->bells++;
}

/* Read end of the input pipe. */
static int
text_input_fd(struct term *t)
{
	return tt(t)->fds[0];
}

/* One read of queued input into the decoder. */
static int
text_read_keys(struct term *t, struct keys *k, struct err *e)
{
	char b[4096];
	ssize_t n = read(tt(t)->fds[0], b, sizeof b);

	if (n > 0)
		keys_feed(k, b, (size_t)n);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return err_errno(e, "read test input");
	return 0;
}

/* Styles live in the grid's ids; nothing to do. */
static void
text_set_theme(struct term *t, const struct theme *th)
{
	(void)t;
	(void)th;
}

/* Nothing to give back. */
static int
text_noop(struct term *t, struct err *e)
{
	(void)t;
	(void)e;
	return 0;
}

static const struct term_ops text_ops = {
	"text", text_free, text_size, text_resized, text_present, text_cursor, text_bell,
	text_input_fd, text_read_keys, text_set_theme, text_noop, text_noop
};

/* A headless terminal of w×h cells. */
struct term *
term_text_new(int w, int h)
{
	struct term_text *x = xcalloc(1, sizeof *x);

	x->base.ops = &text_ops;
	x->screen = grid_new(w, h);
	x->cx = -1;
	if (pipe(x->fds) < 0)
		fatal("pipe for the test terminal: %s", strerror(errno));
	fcntl(x->fds[0], F_SETFL, fcntl(x->fds[0], F_GETFL) | O_NONBLOCK);
	fcntl(x->fds[1], F_SETFL, fcntl(x->fds[1], F_GETFL) | O_NONBLOCK);
	return &x->base;
}

/* Style id as one character of the style map. */
static char
style_char(unsigned s)
{
	if (s == 0)
		return '.';
	if (s <= 26)
		return (char)('a' + s - 1);
	if (s <= 52)
		return (char)('A' + s - 27);
	return '?';
}

/* Text (and styles) of the screen. */
void
term_text_dump(struct term *t, struct buf *out, int styles)
{
	struct grid *s = tt(t)->screen;
	const struct grid_cell *c;
	int x, y;

	for (y = 0; y < s->h; y++) {
		grid_row_text(s, y, out);
		buf_addch(out, '\n');
		if (!styles)
			continue;
		for (x = 0; x < s->w; x++) {
			c = grid_at(s, x, y);
			buf_addch(out, style_char(c->style));
		}
		buf_addch(out, '\n');
	}
}

/* Queue typed bytes (a pipe holds 64 KiB; tests type less). */
void
term_text_type(struct term *t, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(tt(t)->fds[1], s, n);
		if (w <= 0)
			fatal("test input pipe full or closed");
		s += w;
		n -= (size_t)w;
	}
}

/* New size for the next term_size. */
void
term_text_set_size(struct term *t, int w, int h)
{
	grid_resize(tt(t)->screen, w, h);
}

/* Rows blitted so far. */
long
term_text_rows_blitted(const struct term *t)
{
	return ((const struct term_text *)t)->rows;
}

/* Bells rung so far. */
int
term_text_bells(const struct term *t)
{
	return ((const struct term_text *)t)->bells;
}

/* Last cursor position. */
void
term_text_cursor_at(const struct term *t, int *x, int *y)
{
	*x = ((const struct term_text *)t)->cx;
	*y = ((const struct term_text *)t)->cy;
}

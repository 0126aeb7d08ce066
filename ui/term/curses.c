/*
 * ui/term/curses: the real terminal through ncursesw (see ui/term/term.h).
 *
 * The only file that includes curses.  It uses curses for what curses is
 * good at — terminfo, the alternate screen, and sending the minimum of
 * bytes for a changed screen (wnoutrefresh/doupdate) — and nothing else:
 * input is read as raw bytes from fd 0 and decoded by ui/term/keys.c (so paste,
 * mouse and Alt keys work the same everywhere and can be tested), and the
 * screen content comes only from the grid, whose cells are already safe.
 *
 * Colours: pair number role+1 holds the role's fg/bg (init_extended_pair,
 * so more than 256 colours and pairs work where the terminal has them);
 * a role's curses attributes are kept in `attrs[]`.  Mixed styles
 * (THEME_MIX: syntax colours on a diff line) get pairs from
 * THEME_ROLE_COUNT + 1 on, made on first use (`mix[]`: 0 not yet, -1 none
 * left) from the theme copy `th`.  A theme colour given
 * as THEME_RGB|rgb is used directly on a direct-colour terminal
 * (COLORS >= 2^24: TERM=*-direct, or its -direct sibling taken at
 * THEME_DEPTH_TRUE, see direct_term) and mapped to 256 colours otherwise;
 * there a palette number from 8 on is sent as its #rrggbb.
 *
 * One instance at a time (`active`): the fatal and crash paths restore
 * the terminal through it.  Crash restore writes fixed bytes and resets
 * the saved termios only (async-signal-safe), then re-raises.
 */
#include <curses.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "ui/term/term.h"
#include "base/xmalloc.h"

#define MODES_OFF "\x1b[?2004l\x1b[?1006l\x1b[?1000l"
#define CRASH_RESTORE MODES_OFF "\x1b[0m\x1b[?25h\x1b[?1049l\r\n"

struct term_curses {
	struct term base; /* first */
	SCREEN *screen;
	struct term_curses_opts opts;
	struct termios saved;
	int colors; /* 0: no colour pairs */
	attr_t attrs[THEME_ROLE_COUNT];
	int pairs[THEME_ROLE_COUNT];
	int mix[THEME_ROLE_COUNT][THEME_ROLE_COUNT]; /* [bg][fg]: pair, 0 unmade, -1 none */
	int next_pair;
	struct theme th;
	int cx, cy, cursor_shown;
};

static struct term_curses *active;
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction crash_old[5];
static int crash_set[5];

/* The backend behind a struct term. */
static struct term_curses *
tc(struct term *t)
{
	return (struct term_curses *)t;
}

/* Write fixed bytes to the terminal, ignoring failure (restore paths). */
static void
tty_write(const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n > 0 && ((w = write(STDOUT_FILENO, s, n)) > 0 || errno == EINTR)) {
		if (w > 0) {
			s += w;
			n -= (size_t)w;
		}
	}
}

/* Enable the input modes we decode (after curses has set up the screen). */
static void
modes_on(const struct term_curses *c)
{
	if (c->opts.bracketed_paste)
		tty_write("\x1b[?2004h");
	if (c->opts.mouse)
		tty_write("\x1b[?1000h\x1b[?1006h");
}

/* Crash handler: restore what can be restored safely, then die as intended. */
static void
crash_restore(int sig)
{
	if (active)
		tcsetattr(STDIN_FILENO, TCSANOW, &active->saved);
	tty_write(CRASH_RESTORE);
	raise(sig); /* SA_RESETHAND: the default action now */
}

/* Install the crash handler where nobody else (e.g. ASan) has one. */
static void
crash_install(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = crash_restore;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 5; i++) {
		crash_set[i] = sigaction(crash_signals[i], NULL, &crash_old[i]) == 0 &&
		    crash_old[i].sa_handler == SIG_DFL &&
		    sigaction(crash_signals[i], &sa, NULL) == 0;
	}
}

/* Put the previous crash dispositions back. */
static void
crash_remove(void)
{
	size_t i;

	for (i = 0; i < 5; i++)
		if (crash_set[i])
			sigaction(crash_signals[i], &crash_old[i], NULL);
}

/* fatal() path: leave curses so the message lands on a normal screen. */
static void
fatal_restore(void)
{
	if (!active)
		return;
	tty_write(MODES_OFF);
	endwin();
}

/* A theme colour as a curses colour number for this terminal (-1: default). */
static int
curses_color(int32_t c)
{
	if (c == THEME_DEFAULT)
		return -1;
	if (c & THEME_RGB) {
		if (COLORS >= 0x1000000)
			return c & 0xffffff;
		c = theme_rgb_to_256((uint32_t)c);
	} else if (COLORS >= 0x1000000 && c >= 8) {
		return (int)theme_256_to_rgb(c); /* direct colour: a number from 8 on is #rrggbb */
	}
	if (c >= COLORS)
		c = theme_256_to_8(c);
	return c < COLORS ? c : -1;
}

/* curses attributes of a theme style. */
static attr_t
curses_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_DIM_ATTR)
		r |= A_DIM;
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	return r;
}

/* One colour pair and attribute set per role. */
static void
curses_set_theme(struct term *t, const struct theme *th)
{
	struct term_curses *c = tc(t);
	int r;

	c->th = *th;
	memset(c->mix, 0, sizeof c->mix);
	c->next_pair = THEME_ROLE_COUNT + 1;
	for (r = 0; r < THEME_ROLE_COUNT; r++) {
		c->attrs[r] = curses_attrs(th->roles[r].attrs);
		c->pairs[r] = 0;
		if (!c->colors || r + 1 >= COLOR_PAIRS)
			continue;
		if (init_extended_pair(r + 1, curses_color(th->roles[r].fg),
		    curses_color(th->roles[r].bg)) == OK)
			c->pairs[r] = r + 1;
	}
}

/* Restore the terminal and free. */
static void
curses_free(struct term *t)
{
	struct term_curses *c = tc(t);

	tty_write(MODES_OFF);
	endwin();
	delscreen(c->screen);
	crash_remove();
	err_on_fatal(NULL);
	active = NULL;
	free(c);
}

/* Size as curses knows it. */
static void
curses_size(struct term *t, int *w, int *h)
{
	(void)t;
	*w = COLS;
	*h = LINES;
}

/* SIGWINCH: tell curses the new size; the next frame repaints everything. */
static void
curses_resized(struct term *t)
{
	struct winsize ws;

	(void)t;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

/* UTF-8 grapheme → wide string of at most CCHARW_MAX characters. */
static void
cell_wide(const char *s, wchar_t *wc)
{
	mbstate_t st;
	size_t k, i = 0, n = strlen(s);

	memset(&st, 0, sizeof st);
	while (n > 0 && i < CCHARW_MAX) {
		k = mbrtowc(&wc[i], s, n, &st);
		if (k == 0 || k > n)
			break;
		i++;
		s += k;
		n -= k;
	}
	if (i == 0)
		wc[i++] = L' ';
	wc[i] = L'\0';
}

/* Pair and attributes of a cell's style id (a role, or a mix made on first use). */
static void
style_look(struct term_curses *c, unsigned style, int *pair, attr_t *attrs)
{
	int fg = THEME_MIX_FG(style), bg = THEME_MIX_BG(style);
	struct theme_style ts;
	int *m;

	if (style < THEME_ROLE_COUNT || fg >= THEME_ROLE_COUNT || bg < 0 ||
	    bg >= THEME_ROLE_COUNT) {
		style = style < THEME_ROLE_COUNT ? style : THEME_TEXT;
		*pair = c->pairs[style];
		*attrs = c->attrs[style];
		return;
	}
	theme_style_of(&c->th, style, &ts);
	*attrs = curses_attrs(ts.attrs);
	m = &c->mix[bg][fg];
	if (*m == 0) {
		*m = -1;
		if (c->colors && c->next_pair < COLOR_PAIRS &&
		    init_extended_pair(c->next_pair, curses_color(ts.fg), curses_color(ts.bg)) == OK)
			*m = c->next_pair++;
	}
	*pair = *m > 0 ? *m : c->pairs[bg];
}

/* Draw one grid row into stdscr. */
static void
blit_row(struct term_curses *c, const struct grid *g, int y)
{
	const struct grid_cell *cell;
	wchar_t wc[CCHARW_MAX + 1];
	cchar_t cc;
	int x, pair;
	attr_t attrs;

	for (x = 0; x < g->w && x < COLS; x++) {
		cell = grid_at(g, x, y);
		if (cell->width == 0)
			continue;
		style_look(c, cell->style, &pair, &attrs);
		if (cell->width == 2 && x + 1 >= COLS)
			cell_wide(" ", wc);
		else
			cell_wide(cell->text, wc);
		setcchar(&cc, wc, attrs, 0, &pair);
		mvadd_wch(y, x, &cc);
	}
}

/* Blit dirty rows, place the cursor, send the frame. */
static int
curses_present(struct term *t, struct grid *g)
{
	struct term_curses *c = tc(t);
	int y, show;

	for (y = 0; y < g->h; y++) {
		if (!grid_dirty(g, y))
			continue;
		if (y < LINES)
			blit_row(c, g, y);
		grid_clean(g, y);
	}
	show = c->cx >= 0 && c->cx < COLS && c->cy >= 0 && c->cy < LINES;
	if (show != c->cursor_shown) {
		curs_set(show);
		leaveok(stdscr, show ? FALSE : TRUE);
		c->cursor_shown = show;
	}
	if (show)
		wmove(stdscr, c->cy, c->cx);
	wnoutrefresh(stdscr);
	return doupdate() == OK ? 0 : -1;
}

/* Remember where the cursor goes. */
static void
curses_cursor(struct term *t, int x, int y)
{
	tc(t)->cx = x;
	tc(t)->cy = y;
}

/* Ring the bell. */
static void
curses_bell(struct term *t)
{
	(void)t;
	beep();
}

/* Input is the tty on fd 0. */
static int
curses_input_fd(struct term *t)
{
	(void)t;
	return STDIN_FILENO;
}

/* One read of what the tty has (poll said readable, so it does not block). */
static int
curses_read_keys(struct term *t, struct keys *k, struct err *e)
{
	char b[4096];
	ssize_t n;

	(void)t;
	n = read(STDIN_FILENO, b, sizeof b);
	if (n > 0)
		keys_feed(k, b, (size_t)n);
	if (n == 0)
		return err_set(e, "terminal closed");
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return err_errno(e, "read terminal");
	return 0;
}

/* Give the terminal back to the shell's modes (for $EDITOR). */
static int
curses_suspend(struct term *t, struct err *e)
{
	(void)t;
	tty_write(MODES_OFF);
	def_prog_mode();
	if (endwin() != OK)
		return err_set(e, "leave full-screen mode: endwin failed");
	return 0;
}

/* Take the terminal again after curses_suspend. */
static int
curses_resume(struct term *t, struct err *e)
{
	reset_prog_mode();
	clearok(curscr, TRUE);
	wnoutrefresh(stdscr);
	if (doupdate() != OK)
		return err_set(e, "resume full-screen mode: doupdate failed");
	modes_on(tc(t));
	return 0;
}

static const struct term_ops curses_ops = {
	"curses", curses_free, curses_size, curses_resized, curses_present, curses_cursor,
	curses_bell, curses_input_fd, curses_read_keys, curses_set_theme, curses_suspend,
	curses_resume
};

/* Set curses' modes: raw bytes in, nothing echoed, no CR/LF translation. */
static void
curses_modes(struct term_curses *c, const struct theme *th)
{
	raw();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	scrollok(stdscr, FALSE);
	curs_set(0);
	leaveok(stdscr, TRUE);
	c->colors = th->depth != THEME_DEPTH_NONE && has_colors() && start_color() == OK &&
	    use_default_colors() == OK;
}

/*
 * At THEME_DEPTH_TRUE on a terminal type without direct colour (TERM=
 * xterm-256color, tmux-256color with COLORTERM=truecolor or tmux's RGB
 * feature), the type's "-direct" sibling (xterm-direct, tmux-direct; the
 * ncurses-term package) so that curses sends 24-bit colours; NULL when
 * there is none (the colours are then mapped to 256).
 */
static SCREEN *
direct_term(const struct theme *th)
{
	const char *t = getenv("TERM");
	const char *want = NULL;

	if (th->depth != THEME_DEPTH_TRUE || !t || strstr(t, "direct"))
		return NULL;
	if (!strncmp(t, "tmux", 4) || !strncmp(t, "screen", 6))
		want = "tmux-direct";
	else if (!strncmp(t, "xterm", 5))
		want = "xterm-direct";
	return want ? newterm(want, stdout, stdin) : NULL;
}

/* Take over the terminal. */
struct term *
term_curses_new(const struct theme *th, const struct term_curses_opts *o, struct err *e)
{
	struct term_curses *c;
	SCREEN *s;

	if (active) {
		err_set(e, "start the full-screen UI: already running");
		return NULL;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		err_set(e, "start the full-screen UI: stdin and stdout must be a terminal "
		    "(use -p for scripts)");
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	tcgetattr(STDIN_FILENO, &c->saved);
	s = direct_term(th);
	if (!s)
		s = newterm(NULL, stdout, stdin);
	if (!s) {
		free(c);
		err_set(e, "start the full-screen UI: unknown terminal type '%s' (check TERM)",
		    getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	c->base.ops = &curses_ops;
	c->screen = s;
	c->opts = *o;
	c->cx = -1;
	active = c;
	err_on_fatal(fatal_restore);
	crash_install();
	curses_modes(c, th);
	curses_set_theme(&c->base, th);
	wnoutrefresh(stdscr);
	doupdate();
	modes_on(c);
	return &c->base;
}

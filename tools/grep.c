/*
 * grep: search file contents under a path for a regex or a fixed string.
 *
 * The walk (fs_walk) yields entries in sorted order, skipping .git and
 * .gitignore'd paths (tracked paths settled by the git index, base/fs.h).
 * Each regular file that does not look binary is read in chunks of
 * GREP_CHUNK bytes cut at a line end (a 1 GB log is searched in bounded
 * memory), and each chunk is searched whole, not line by line: a literal
 * with lit_find (memchr for its rarest byte, a compare around it); a regex
 * through a literal every match must contain (required_literal: lit_find
 * finds the few candidate lines, regexec checks them), or, when there is
 * none, one regexec over the chunk with
 * REG_NEWLINE, a match that spans lines being checked on its own line.
 * Line numbers are counted only up to a match.  Matches are written as
 * "path:line:text" until GREP_MAX_MATCHES or GREP_MAX_OUT, after which they
 * are only counted so the final note can say how many were left out.
 * Regexes are POSIX ERE (glibc also knows \w \s \b) compiled through
 * base/regex.h; \d and \D are rewritten to bracket expressions since models
 * use them a lot.
 *
 * The search runs off the loop (io/work.h), so keys and redraws stay live:
 * the worker thread walks and queues the files in a ring of GREP_RING
 * slots; searchers (one per online core, at most GREP_THREADS, and the
 * worker itself once the walk is done) take them in turn, each with its
 * own buffers and its own copy of the regex (glibc's regexec locks a
 * compiled pattern), and write a file's rows into its slot.  Slots are
 * committed in walk order by whichever thread finishes the oldest one, and
 * the caps are applied there, so the result is the one a single thread
 * would give.  Its matches are streamed: out is shared with the loop thread
 * under g->mu, and the worker thread asks for a progress report
 * (work_progress) after the first committed match and then at most every
 * GREP_LIVE_MS; the report
 * hands the rows not yet shown to tool_job_progress (the screen shows them
 * under the call's header as they arrive).  A cancelled call (Esc) ends
 * at once with the rows found so far and "[aborted]"; its search stops at
 * the next chunk and the rest of the result is dropped.  Without a loop
 * it runs in place.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "base/regex.h"
#include "base/xmalloc.h"
#include "io/work.h"
#include "llm/tool.h"
#include "base/workspace.h"

#define GREP_MAX_MATCHES 200
#define GREP_MAX_OUT (50 * 1024)
#define GREP_CHUNK ((size_t)4 << 20)
#define GREP_MAX_LINE 300
#define GREP_MIN_LITERAL 3 /* shorter required literals are not worth a prefilter */
#define GREP_LIVE_MS 100   /* at most this often a progress report while matches come */
#define GREP_RING 256      /* files queued ahead of the oldest one not committed */
#define GREP_THREADS 4     /* searcher threads at most, besides the worker */

/* One searcher's own: its read buffer, its lower-cased copy, its regex. */
struct searcher {
	struct buf chunk, lower;
	regex_t *re;      /* &own, or the worker's g->re */
	regex_t own;
	int have_re;
	int rootfd;       /* the workspace root, opened once (-1: each open opens it) */
};

#define GREP_BATCH 8       /* files a searcher takes at a time (fewer lock round trips) */

/* One queued file and what its search found (rows: "path:line:text\n" each). */
struct slot {
	char *abs, *rel;
	struct buf rows;
	size_t nrows, matches;
	int done;
};

struct grep {
	struct tool_job *job; /* loop thread; NULL once cancelled */
	char *root;           /* copies: the job's env may be gone when the worker runs */
	char *abs;
	char *pattern;
	char *glob;           /* file-name filter, or NULL */
	int icase, literal;
	char *ere;            /* the regex as compiled (each searcher compiles its own) */
	regex_t re;           /* the worker thread's */
	int have_re;
	char *lit;            /* what lit_find looks for: the needle, or a required literal of
			       * the regex (lower case when icase); NULL: regexec only */
	size_t llen;
	size_t lrare;         /* the offset in lit of its rarest byte in text (lit_rarest) */
	int lfold;            /* icase, and that byte is no letter: the text is compared folded
			       * around it, not lower-cased whole first */
	size_t matches, shown, files;
	int capped;           /* output cap reached */
	atomic_int stop;      /* set by cancel */
	pthread_mutex_t mu;   /* out and sent: the worker writes, the loop thread reads */
	struct buf out;       /* the result so far (job->out belongs to the loop thread) */
	size_t rows;          /* bytes of out that are match rows (the note follows) */
	size_t sent;          /* bytes of out handed to tool_job_progress */
	double live_ms;       /* worker: when it last asked for a report (0: never) */
	size_t reported;      /* worker: rows when it last asked */
	struct searcher own;  /* the worker thread's */
	pthread_mutex_t qmu;  /* the ring: head (oldest not committed), take, tail */
	pthread_cond_t qcv;   /* searchers': a slot filled, the walk done, a stop */
	pthread_cond_t wcv;   /* the worker's: the ring half empty, every taken file committed */
	int wwait;            /* the worker waits on wcv */
	struct slot ring[GREP_RING];
	size_t head, take, tail;
	int walk_done;
	int waiting;          /* searchers waiting for a file */
	struct fs_walk w;
	struct err e;
	int rc;
};

/* Rewrite \d and \D (not understood by POSIX ERE) outside brackets. */
static void
translate(const char *p, struct buf *out)
{
	for (; *p; p++) {
		const char *end;

		if (p[0] == '\\' && (p[1] == 'd' || p[1] == 'D')) {
			buf_adds(out, p[1] == 'd' ? "[0-9]" : "[^0-9]");
			p++;
		} else if (p[0] == '\\' && p[1]) {
			buf_add(out, p, 2);
			p++;
		} else if (*p == '[' && (end = regex_bracket_end(p)) != NULL) {
			buf_add(out, p, (size_t)(end - p) + 1);
			p = end;
		} else if (*p == '[') { /* never closed: regcomp says so */
			buf_adds(out, p);
			break;
		} else
			buf_addch(out, *p);
	}
}

/* Whether the ERE byte c, escaped, stands for itself. */
static int
escaped_literal(char c)
{
	return c && strchr(".[]()*+?{}|^$\\/-", c) != NULL;
}

/*
 * The longest run of plain characters every match of the ERE must contain,
 * into out (empty when none is sure): no top-level alternation; brackets,
 * groups, classes and anchors end a run; a character made optional by ? *
 * or {0,...} is dropped from it.  A shorter literal is still a correct
 * prefilter: only a wrong one would lose matches.
 */
static void
required_literal(const char *p, struct buf *out)
{
	struct buf run = BUF_INIT;
	int depth = 0;
	const char *q;

	buf_reset(out);
	for (q = p; *q; q++) { /* a top-level '|' : nothing is required */
		if (*q == '\\' && q[1])
			q++;
		else if (*q == '[') {
			if (!(q = regex_bracket_end(q)))
				return;
		} else if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		else if (*q == '|' && depth == 0)
			return;
	}
#define FLUSH() do { if (run.len > out->len) { buf_reset(out); buf_add(out, run.data, run.len); } \
		     buf_reset(&run); } while (0)
	for (; *p; p++) {
		if (*p == '\\' && escaped_literal(p[1])) {
			buf_addch(&run, p[1]);
			p++;
		} else if (*p == '\\') {
			FLUSH();
			if (p[1])
				p++;
		} else if (*p == '*' || *p == '?' || (*p == '{' && isdigit((unsigned char)p[1]))) {
			if (run.len && ((unsigned char)run.data[run.len - 1] & 0xC0) != 0x80)
				buf_setlen(&run, run.len - 1);
			else
				buf_reset(&run); /* a multibyte character: drop the whole run */
			FLUSH();
			if (*p == '{')
				while (p[1] && *p != '}')
					p++;
		} else if (*p == '+') {
			FLUSH();
		} else if (*p == '[') {
			FLUSH();
			if (!(p = regex_bracket_end(p)))
				break;
		} else if (*p == '(') {
			/* a group: nothing inside is sure (alternatives, an optional group) */
			int d = 1;
			FLUSH();
			while (d && p[1]) {
				p++;
				if (*p == '\\' && p[1])
					p++;
				else if (*p == '(')
					d++;
				else if (*p == ')')
					d--;
			}
		} else if (strchr(".^$|)", *p)) {
			FLUSH();
		} else {
			buf_addch(&run, *p);
		}
	}
	FLUSH();
#undef FLUSH
	buf_release(&run);
}

/* Monotonic milliseconds. */
static double
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* On the worker: a report for the first rows, then at most every GREP_LIVE_MS. */
static void
ask_report(struct grep *g)
{
	double now = mono_ms();

	if (g->live_ms == 0 || now - g->live_ms >= GREP_LIVE_MS) {
		g->live_ms = now;
		work_progress();
	}
}

/*
 * Write one match line into the file's slot, long text cut; past what the
 * caps could ever show, only counted.
 */
static void
emit(struct slot *sl, long no, const char *line, size_t n)
{
	struct buf *out = &sl->rows;
	size_t k = n;

	sl->matches++;
	if (sl->nrows >= GREP_MAX_MATCHES || out->len > GREP_MAX_OUT)
		return;
	if (k && line[k - 1] == '\r')
		k--;
	if (k > GREP_MAX_LINE) {
		k = GREP_MAX_LINE;
		while (k > 0 && ((unsigned char)line[k] & 0xC0) == 0x80)
			k--;
	}
	buf_addf(out, "%s:%ld:", sl->rel, no);
	fs_add_utf8(out, line, k);
	if (k < n && !(k == n - 1 && line[k] == '\r'))
		buf_adds(out, " [...]");
	buf_addch(out, '\n');
	sl->nrows++;
}

/*
 * Commit the finished slots at the head of the ring, in walk order (qmu
 * held): each row is shown until the caps, as a single thread would.
 */
static void
commit(struct grep *g)
{
	struct slot *sl;
	const char *r, *nl;
	size_t len;

	while (g->head < g->tail && (sl = &g->ring[g->head % GREP_RING])->done) {
		pthread_mutex_lock(&g->mu);
		for (r = sl->rows.data; r && r < sl->rows.data + sl->rows.len; r = nl + 1) {
			nl = memchr(r, '\n', (size_t)(sl->rows.data + sl->rows.len - r));
			len = (size_t)(nl - r) + 1;
			if (g->capped)
				break;
			if (g->shown >= GREP_MAX_MATCHES || g->out.len + len > GREP_MAX_OUT) {
				g->capped = 1;
				break;
			}
			buf_add(&g->out, r, len);
			g->shown++;
		}
		if (sl->matches > sl->nrows && !g->capped)
			g->capped = 1; /* the slot kept only what the caps could show */
		g->matches += sl->matches;
		g->files += sl->matches > 0;
		g->rows = g->out.len;
		pthread_mutex_unlock(&g->mu);
		free(sl->abs);
		free(sl->rel);
		buf_release(&sl->rows);
		memset(sl, 0, sizeof *sl);
		g->head++;
	}
	/* (not at each slot: a walker woken for each freed slot queues one file and
	 * sleeps again, a context switch a file) */
	if (g->wwait && (g->tail - g->head <= GREP_RING / 2 || g->head >= g->take))
		pthread_cond_signal(&g->wcv);
}

/* On the worker thread: a report when rows were committed since the last one. */
static void
report_new_rows(struct grep *g)
{
	size_t rows;

	pthread_mutex_lock(&g->mu);
	rows = g->rows;
	pthread_mutex_unlock(&g->mu);
	if (rows != g->reported) {
		g->reported = rows;
		ask_report(g);
	}
}

/* Line counting within one chunk: the line number of `upto` (counted lazily). */
struct lines {
	const char *at; /* newlines before here are counted */
	long no;        /* line number at `at` */
};

static long
line_of(struct lines *ln, const char *upto)
{
	const char *nl;

	while (ln->at < upto && (nl = memchr(ln->at, '\n', (size_t)(upto - ln->at))) != NULL) {
		ln->no++;
		ln->at = nl + 1;
	}
	ln->at = upto;
	return ln->no;
}

/* Start of the line holding p (text starts at base). */
static const char *
line_start(const char *base, const char *p)
{
	while (p > base && p[-1] != '\n')
		p--;
	return p;
}

/* Whether the one line [ls, le) matches the regex (le is a '\n' or the NUL at the end). */
static int
line_matches(struct searcher *se, char *ls, char *le)
{
	char c = *le;
	int m;

	*le = '\0';
	m = regexec(se->re, ls, 0, NULL, 0) == 0;
	*le = c;
	return m;
}

/*
 * How common byte c is in source text, roughly (0 rare .. 255 everywhere):
 * blanks and newlines, then lower-case letters in English order, then
 * the punctuation of code; upper case, digits and the rest are rare.
 */
static unsigned
byte_commonness(unsigned char c)
{
	static const char common[] = " \netaoinsrhldcu\tmfpgwybv,._();=k\"-/:x*j{}q>z<";
	const char *p = c ? strchr(common, c) : NULL;

	return p ? 255 - (unsigned)(p - common) : c >= 'A' && c <= 'Z' ? 60 : 40;
}

/*
 * The offset of needle's rarest byte (ties: the first), where lit_find
 * looks with memchr; with icase a byte that is no letter first (it has
 * one case, so the text need not be lower-cased to find it).
 */
static size_t
lit_rarest(const char *needle, size_t n, int icase)
{
	size_t i, best = 0;
	unsigned bw = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)needle[i];
		unsigned w = byte_commonness(c) + (icase && isalpha(c) ? 256 : 0);

		if (i == 0 || w < bw)
			best = i, bw = w;
	}
	return best;
}

/*
 * The first needle[0..n) in hay[0..len), or NULL: memchr (vectorised) for
 * the needle's rarest byte at offset rare, then a compare there.  For a
 * rare needle in common text (NEEDLE in lower-case code, the ignore_case
 * search's "needle_rare"), this skips most bytes at memchr's speed where
 * memmem stops at every pair of the needle's common first letters.
 */
static const char *
lit_find(const char *hay, size_t len, const char *needle, size_t n, size_t rare, int fold)
{
	const char *p, *last;

	if (!n)
		return hay;
	if (n > len)
		return NULL;
	last = hay + len - n + rare; /* the last place the rare byte can be */
	for (p = hay + rare; p <= last && (p = memchr(p, needle[rare], (size_t)(last - p) + 1)) != NULL; p++)
		if (fold ? !strncasecmp(p - rare, needle, n) : !memcmp(p - rare, needle, n))
			return p - rare;
	return NULL;
}

/*
 * Search one chunk: whole lines in text[0..len), NUL at len; its first
 * line is line number *no, which is advanced past the chunk unless it is
 * the file's last (counting a last chunk through was a tenth of a
 * 30k-file search).
 */
static void
scan(const struct grep *g, struct searcher *se, struct slot *sl, char *text, size_t len, long *no,
     int last)
{
	struct lines ln = { text, *no };
	char *end = text + len, *p = text, *ls, *le;
	const char *hay = text;
	regmatch_t m;

	if (g->lit && g->icase && !g->lfold) {
		size_t i;
		buf_reset(&se->lower);
		buf_grow(&se->lower, len + 1);
		for (i = 0; i < len; i++)
			se->lower.data[i] = (char)tolower((unsigned char)text[i]);
		se->lower.len = len;
		hay = se->lower.data;
	}
	while (p < end) {
		if (g->lit) {
			const char *hit = lit_find(hay + (p - text), (size_t)(end - p), g->lit, g->llen, g->lrare,
						   g->lfold);
			if (!hit)
				break;
			ls = (char *)line_start(p, text + (hit - hay));
		} else {
			if (regexec(se->re, p, 1, &m, 0) != 0)
				break;
			ls = (char *)line_start(p, p + m.rm_so);
		}
		le = memchr(ls, '\n', (size_t)(end - ls));
		if (!le)
			le = end;
		if (!se->have_re || (!g->lit && !memchr(p + m.rm_so, '\n', (size_t)(m.rm_eo - m.rm_so))) ||
		    line_matches(se, ls, le))
			emit(sl, line_of(&ln, ls), ls, (size_t)(le - ls));
		p = le + 1;
	}
	if (!last)
		*no = line_of(&ln, end); /* a chunk cut inside a long line goes on with the same line */
}

/* Read up to n bytes at the end of b (short at end of file); -1 on error. */
static ssize_t
read_more(int fd, struct buf *b, size_t n)
{
	ssize_t r;

	buf_grow(b, n + 1);
	do
		r = read(fd, b->data + b->len, n);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		b->len += (size_t)r;
	b->data[b->len] = '\0';
	return r;
}

/* Search one file in chunks cut at line ends; a NUL byte ends it (binary from there). */
static void
search_file(const struct grep *g, struct searcher *se, struct slot *sl)
{
	struct err e = ERR_INIT;
	struct buf *b = &se->chunk;
	int fd = se->rootfd >= 0 && workspace_inside(g->root, sl->abs) ?
		 workspace_openat(se->rootfd, g->root, workspace_rel(g->root, sl->abs),
				  O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0) :
		 workspace_open(g->root, sl->abs, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, &e), eof = 0;
	long no = 1;
	size_t keep, seen;
	char *cut;

	if (fd < 0)
		return;
	buf_reset(b);
	while (!eof && !atomic_load(&g->stop)) {
		ssize_t r = read_more(fd, b, GREP_CHUNK - (b->len < GREP_CHUNK ? b->len : 0));
		if (r < 0)
			break;
		eof = r == 0 || b->len < GREP_CHUNK;
		seen = no == 1 ? (b->len < FS_SNIFF ? b->len : FS_SNIFF) : 0;
		if (seen && fs_is_binary(b->data, seen))
			break;
		cut = memchr(b->data + seen, '\0', b->len - seen); /* (the sniff saw any NUL before) */
		if (cut) { /* binary from here on: search what came before, then stop */
			b->len = (size_t)(cut - b->data);
			eof = 1;
		}
		cut = eof ? b->data + b->len : NULL;
		if (!cut) {
			for (cut = b->data + b->len; cut > b->data && cut[-1] != '\n'; cut--)
				;
			if (cut == b->data) /* one line longer than a chunk: take it in pieces */
				cut = b->data + b->len;
		}
		keep = (size_t)(b->data + b->len - cut);
		{
			char saved = *cut;
			*cut = '\0';
			scan(g, se, sl, b->data, (size_t)(cut - b->data), &no, eof);
			*cut = saved;
		}
		memmove(b->data, cut, keep);
		b->len = keep;
		if (sl->matches > GREP_MAX_MATCHES * 50)
			break; /* enough to say "narrow it": do not count a whole log's matches */
	}
	close(fd);
}

/*
 * On the worker thread, qmu held: wait for the ring to move (50 ms at
 * most), then, with the lock dropped, report committed rows and notice a
 * shutdown.
 */
static void
worker_wait(struct grep *g)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 50 * 1000000L;
	if (until.tv_nsec >= 1000000000L)
		until.tv_sec++, until.tv_nsec -= 1000000000L;
	g->wwait = 1;
	pthread_cond_timedwait(&g->wcv, &g->qmu, &until);
	g->wwait = 0;
	pthread_mutex_unlock(&g->qmu);
	report_new_rows(g);
	if (work_stopping())
		atomic_store(&g->stop, 1);
	pthread_mutex_lock(&g->qmu);
}

/*
 * Take queued files and search them until none is left and the walk is
 * done, or a stop (any thread; worker: the worker thread, which waits in
 * steps to report committed rows, and does not wait for the walk).
 */
static void
search_loop(struct grep *g, struct searcher *se, int worker)
{
	size_t first, n, k;

	for (;;) {
		pthread_mutex_lock(&g->qmu);
		while (!worker && g->take == g->tail && !g->walk_done && !atomic_load(&g->stop)) {
			g->waiting++;
			pthread_cond_wait(&g->qcv, &g->qmu);
			g->waiting--;
		}
		if (g->take == g->tail || atomic_load(&g->stop)) {
			pthread_mutex_unlock(&g->qmu);
			break;
		}
		first = g->take; /* a few at a time: the later ones wait in the ring anyway */
		n = g->tail - g->take < GREP_BATCH ? g->tail - g->take : GREP_BATCH;
		g->take += n;
		pthread_mutex_unlock(&g->qmu);
		for (k = 0; k < n; k++)
			search_file(g, se, &g->ring[(first + k) % GREP_RING]);
		pthread_mutex_lock(&g->qmu);
		for (k = 0; k < n; k++)
			g->ring[(first + k) % GREP_RING].done = 1;
		commit(g);
		pthread_mutex_unlock(&g->qmu);
		if (worker)
			report_new_rows(g);
	}
	if (!worker)
		return;
	/* the worker: until the other searchers' files are committed, reporting as they come */
	pthread_mutex_lock(&g->qmu);
	while (g->head < g->take && !atomic_load(&g->stop))
		worker_wait(g);
	pthread_mutex_unlock(&g->qmu);
}

/* A searcher thread's body. */
static void *
searcher_run(void *arg)
{
	struct grep *g = arg;
	struct searcher se;
	char why[256];

	memset(&se, 0, sizeof se);
	se.re = &se.own;
	se.rootfd = open(g->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->have_re && regex_compile(&se.own, g->ere, REG_NEWLINE | (g->icase ? REG_ICASE : 0),
					why, sizeof why) == 0)
		se.have_re = 1;
	if (!g->have_re || se.have_re) /* (the same pattern compiled once already: it does again) */
		search_loop(g, &se, 0);
	if (se.have_re)
		regfree(&se.own);
	if (se.rootfd >= 0)
		close(se.rootfd);
	buf_release(&se.chunk);
	buf_release(&se.lower);
	return NULL;
}

/* Walk visitor: filter, then queue for the searchers (waiting while the ring is full). */
static int
visit(const char *abs, const char *rel, const struct stat *st, void *arg)
{
	struct grep *g = arg;
	struct slot *sl;

	if (work_stopping())
		atomic_store(&g->stop, 1);
	if (atomic_load(&g->stop))
		return 1;
	if (!S_ISREG(st->st_mode))
		return 0;
	if (g->glob && !fs_glob_match(g->glob, rel))
		return 0;
	pthread_mutex_lock(&g->qmu);
	if (g->tail - g->head == GREP_RING) /* full: on when half of it is searched */
		while (g->tail - g->head > GREP_RING / 2 && !atomic_load(&g->stop))
			worker_wait(g);
	sl = &g->ring[g->tail % GREP_RING];
	memset(sl, 0, sizeof *sl);
	sl->abs = xstrdup(abs);
	sl->rel = xstrdup(rel);
	g->tail++;
	if (g->waiting)
		pthread_cond_signal(&g->qcv);
	pthread_mutex_unlock(&g->qmu);
	report_new_rows(g);
	return 0;
}

/* Final note: caps, walk limit, or "no matches". */
static void
add_note(struct grep *g, const char *where, const struct fs_walk *w)
{
	struct buf *out = &g->out;

	if (g->matches == 0)
		buf_addf(out, "no matches for \"%s\" in %s%s%s", g->pattern, where,
			 g->glob ? " (files matching " : "", g->glob ? g->glob : "");
	if (g->matches == 0 && g->glob)
		buf_addch(out, ')');
	if (g->capped)
		buf_addf(out, "[showing %zu of %s%zu matches in %zu files; narrow the search with "
			 "path, glob or a more specific pattern]", g->shown,
			 g->matches > GREP_MAX_MATCHES * 50 ? "more than " : "", g->matches, g->files);
	fs_walk_note(w, out);
}

/* Compile the pattern and choose the literal lit_find looks for; -1 + why. */
static int
compile(struct grep *g, char *why, size_t whylen)
{
	struct buf ere = BUF_INIT, lit = BUF_INIT;
	size_t i;
	int rc = 0;

	if (g->literal) {
		buf_adds(&lit, g->pattern);
	} else {
		translate(g->pattern, &ere);
		rc = regex_compile(&g->re, ere.data ? ere.data : "",
				   REG_NEWLINE | (g->icase ? REG_ICASE : 0), why, whylen);
		g->have_re = rc == 0;
		g->ere = xstrdup(ere.data ? ere.data : "");
		if (rc == 0)
			required_literal(ere.data ? ere.data : "", &lit);
		if (lit.len < GREP_MIN_LITERAL)
			buf_reset(&lit);
		for (i = 0; g->icase && i < lit.len; i++)
			if ((unsigned char)lit.data[i] >= 0x80)
				buf_reset(&lit); /* case folding beyond ASCII: regexec decides */
	}
	if (lit.len) {
		for (i = 0; g->icase && i < lit.len; i++)
			lit.data[i] = (char)tolower((unsigned char)lit.data[i]);
		g->llen = lit.len;
		g->lrare = lit_rarest(lit.data, lit.len, g->icase);
		g->lfold = g->icase && !isalpha((unsigned char)lit.data[g->lrare]);
		g->lit = buf_detach(&lit, NULL);
	}
	buf_release(&lit);
	buf_release(&ere);
	return rc;
}

/* Searcher threads besides the worker: one per online core, at most GREP_THREADS. */
static unsigned
searchers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > GREP_THREADS ? GREP_THREADS : (unsigned)n;
}

/* On the worker: walk and queue, then search too; the searchers write g->out. */
static void
grep_work(void *arg)
{
	struct grep *g = arg;
	pthread_t th[GREP_THREADS];
	unsigned k, n = searchers(), started = 0;
	int rc;

	g->w.root = g->root;
	g->w.visit = visit;
	g->w.arg = g;
	g->w.types_only = 1;
	for (k = 0; k < n; k++)
		if (pthread_create(&th[started], NULL, searcher_run, g) == 0)
			started++;
	rc = fs_walk(&g->w, g->abs, &g->e);
	pthread_mutex_lock(&g->qmu);
	g->walk_done = 1;
	pthread_cond_broadcast(&g->qcv);
	pthread_mutex_unlock(&g->qmu);
	g->own.re = &g->re;
	g->own.have_re = g->have_re;
	g->own.rootfd = open(g->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	search_loop(g, &g->own, 1);
	if (g->own.rootfd >= 0)
		close(g->own.rootfd);
	for (k = 0; k < started; k++) /* they end once the ring is empty and the walk done */
		pthread_join(th[k], NULL);
	pthread_mutex_lock(&g->qmu);
	commit(g);
	while (g->head < g->tail) { /* stopped: files queued or taken but not searched */
		struct slot *sl = &g->ring[g->head++ % GREP_RING];
		free(sl->abs);
		free(sl->rel);
		buf_release(&sl->rows);
		memset(sl, 0, sizeof *sl);
	}
	pthread_mutex_unlock(&g->qmu);
	report_new_rows(g);
	pthread_mutex_lock(&g->mu);
	g->rc = rc;
	if (rc == 0)
		add_note(g, workspace_rel(g->root, g->abs), &g->w);
	pthread_mutex_unlock(&g->mu);
}

/* On the loop thread while the worker searches: the rows found since the last report. */
static void
grep_progress(void *arg)
{
	struct grep *g = arg;
	struct buf rows = BUF_INIT;

	if (!g->job)
		return; /* cancelled */
	pthread_mutex_lock(&g->mu);
	if (g->rows > g->sent)
		buf_add(&rows, g->out.data + g->sent, g->rows - g->sent);
	g->sent = g->rows;
	pthread_mutex_unlock(&g->mu);
	if (rows.len)
		tool_job_progress(g->job, rows.data, rows.len);
	buf_release(&rows);
}

/* Free a run. */
static void
grep_free(struct grep *g)
{
	if (g->have_re)
		regfree(&g->re);
	free(g->lit);
	free(g->root);
	free(g->abs);
	free(g->pattern);
	free(g->glob);
	free(g->ere);
	buf_release(&g->out);
	buf_release(&g->own.chunk);
	buf_release(&g->own.lower);
	pthread_mutex_destroy(&g->mu);
	pthread_mutex_destroy(&g->qmu);
	pthread_cond_destroy(&g->qcv);
	pthread_cond_destroy(&g->wcv);
	free(g);
}

/* Back on the loop: hand the result to the job, unless it was cancelled. */
static void
grep_finish(void *arg, int ran)
{
	struct grep *g = arg;
	struct tool_job *job = g->job;

	if (!job) {
		grep_free(g);
		return;
	}
	job->priv = NULL;
	if (!ran)
		tool_job_fail(job, "grep: not run: hearth is shutting down");
	else if (g->rc < 0 && g->e.code == ENOENT)
		tool_job_fail(job, "%s does not exist; use ls or find to locate it",
			      workspace_rel(g->root, g->abs));
	else if (g->rc < 0)
		tool_job_fail(job, "grep %s", g->e.msg);
	else {
		buf_add(&job->out, g->out.data, g->out.len);
		tool_job_done(job);
	}
	grep_free(g);
}

/* Entry point: the search runs on the worker thread; without a loop, here and now. */
static void
grep_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *pat = cJSON_GetObjectItemCaseSensitive(args, "pattern");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	const cJSON *glob = cJSON_GetObjectItemCaseSensitive(args, "glob");
	struct buf abs = BUF_INIT;
	struct err e = ERR_INIT;
	struct grep *g;
	char why[256];

	if (!cJSON_IsString(pat) || !*pat->valuestring) {
		tool_job_fail(job, "grep needs a non-empty \"pattern\" (string)");
		return;
	}
	if (workspace_resolve(job->env->root, job->env->allow_outside,
		       cJSON_IsString(path) ? path->valuestring : NULL, &abs, &e) < 0) {
		tool_job_fail(job, "%s", e.msg);
		buf_release(&abs);
		return;
	}
	g = xcalloc(1, sizeof *g);
	g->job = job;
	g->root = xstrdup(job->env->root);
	g->abs = buf_detach(&abs, NULL);
	g->pattern = xstrdup(pat->valuestring);
	g->glob = cJSON_IsString(glob) && *glob->valuestring ? xstrdup(glob->valuestring) : NULL;
	g->icase = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "ignore_case"));
	g->literal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "literal"));
	atomic_init(&g->stop, 0);
	pthread_mutex_init(&g->mu, NULL);
	pthread_mutex_init(&g->qmu, NULL);
	pthread_cond_init(&g->qcv, NULL);
	pthread_cond_init(&g->wcv, NULL);
	buf_init(&g->out, 0);
	if (compile(g, why, sizeof why) < 0) {
		tool_job_fail(job, "invalid pattern \"%s\": %s; patterns are POSIX extended regular "
			      "expressions (escape ( ) [ ] { } . * + ? | with \\, or set literal=true)",
			      g->pattern, why);
		grep_free(g);
		return;
	}
	job->priv = g;
	if (work_submit_progress(job->env->loop, grep_work, grep_progress, grep_finish, g, &e) < 0)
		(void)work_submit(NULL, grep_work, grep_finish, g, &e);
}

/* Abort: the search stops at its next chunk; the rows found so far are the result. */
static void
grep_cancel(struct tool_job *job)
{
	struct grep *g = job->priv;

	if (!g || job->finished)
		return;
	atomic_store(&g->stop, 1);
	pthread_mutex_lock(&g->qmu); /* searchers waiting for files see the stop */
	pthread_cond_broadcast(&g->qcv);
	pthread_cond_signal(&g->wcv);
	pthread_mutex_unlock(&g->qmu);
	g->job = NULL;
	job->priv = NULL;
	pthread_mutex_lock(&g->mu);
	buf_add(&job->out, g->out.data, g->rows); /* the rows: not a note the worker may have added */
	pthread_mutex_unlock(&g->mu);
	buf_end_line(&job->out);
	buf_adds(&job->out, "[aborted]");
	job->is_error = 1;
	tool_job_done(job);
}

/* grep: pattern, where, and how many matching lines ("file:line:" rows). */
static void
grep_digest(const cJSON *args, const char *text, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path"), *p = text;
	long hits = 0;

	while (*p) {
		const char *nl = strchr(p, '\n'), *c1 = strchr(p, ':');

		if (c1 && (!nl || c1 < nl) && c1[1] >= '0' && c1[1] <= '9')
			hits++;
		if (!nl)
			break;
		p = nl + 1;
	}
	buf_adds(out, "grep \"");
	tool_add_short(out, pat ? pat : "?", TOOL_DIGEST_ARG_MAX);
	buf_adds(out, "\" in ");
	tool_add_short(out, path ? path : ".", TOOL_DIGEST_ARG_MAX);
	buf_addf(out, ": %ld matching lines; search again if needed]", hits);
}

/* Rows "file:line:" of a result, and the files they are in (sorted by path: a new file is a new name). */
static long
grep_hits(const char *text, long *files)
{
	const char *p = text, *last = NULL;
	size_t lastn = 0;
	long hits = 0;

	*files = 0;
	while (*p) {
		const char *nl = strchr(p, '\n'), *c1 = strchr(p, ':');

		if (c1 && (!nl || c1 < nl) && c1[1] >= '0' && c1[1] <= '9') {
			hits++;
			if (!last || lastn != (size_t)(c1 - p) || memcmp(last, p, lastn)) {
				(*files)++;
				last = p;
				lastn = (size_t)(c1 - p);
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return hits;
}

/* The header: "PATTERN" in SCOPE (glob, -i). */
static void
grep_describe(const cJSON *args, struct buf *out)
{
	const char *pat = json_str(args, "pattern"), *path = json_str(args, "path");
	const char *glob = json_str(args, "glob");

	buf_addch(out, '"');
	tool_add_short(out, pat ? pat : "?", 80);
	buf_adds(out, "\" in ");
	tool_add_short(out, path && *path ? path : ".", 80);
	if (glob && *glob) {
		buf_adds(out, " ");
		tool_add_short(out, glob, 40);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "ignore_case")))
		buf_adds(out, " -i");
}

/* After the call: "12 hits in 3 files" ("of N" when the output was capped). */
static void
grep_summary(const cJSON *args, const char *text, int is_error, struct buf *out)
{
	const char *cap = strstr(text, "[showing ");
	long files, hits = grep_hits(text, &files);
	size_t shown, total, nfiles;

	(void)args;
	if (is_error)
		return;
	if (cap && sscanf(cap, "[showing %zu of %zu matches in %zu files", &shown, &total,
	    &nfiles) == 3)
		buf_addf(out, "%zu hits in %zu files (%zu shown)", total, nfiles, shown);
	else if (!hits)
		buf_adds(out, "no hits");
	else
		buf_addf(out, "%ld hit%s in %ld file%s", hits, hits == 1 ? "" : "s", files,
			 files == 1 ? "" : "s");
}

const struct tool tool_grep = {
	.name = "grep",
	.description =
		"Search file contents with a POSIX extended regex (or literal text) under "
		"path (default: the workspace), skipping .git, ignored and binary files (any "
		"size, logs included). Prints path:line:text.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},"
		"\"path\":{\"type\":\"string\"},"
		"\"glob\":{\"type\":\"string\",\"description\":\"e.g. *.c\"},"
		"\"ignore_case\":{\"type\":\"boolean\"},\"literal\":{\"type\":\"boolean\"}},"
		"\"required\":[\"pattern\"]}",
	.flags = TOOL_READ_ONLY | TOOL_SHOWS_MATCHES | TOOL_CORE,
	.start = grep_start,
	.cancel = grep_cancel,
	.paths = tool_path_arg,
	.digest = grep_digest,
	.describe = grep_describe,
	.summary = grep_summary,
};

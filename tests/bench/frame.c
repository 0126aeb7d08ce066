/*
 * bench/frame: headless frame times of the full-screen UI (make bench).
 *
 * Builds a transcript of BENCH_FRAME_MSGS messages (default 10,000: user
 * questions, markdown answers with a code block, edits with diffs) and
 * times, at 120x32 with the server panel: a frame following the stream
 * (status, transcript, panel, help: what app_render draws), a frame while
 * scrolling back a page at a time, counting the transcript's rows, and a
 * search over it.  Then the streaming shape of issue 16: a 50,000-token
 * answer (markdown: paragraphs of wrapped lines, a list, a code block
 * every few paragraphs) fed as deltas at 5,000 tok/s with a frame every
 * APP_FRAME_MS (16 ms, 80 tokens a frame), each frame drawn in full:
 * the CPU time of feeding and drawing (CLOCK_PROCESS_CPUTIME_ID) over the
 * 10 s the stream lasts, as % of one core (goal < 10 %), and the cost of
 * a frame in the last tenth of the stream against the first tenth (the
 * reference: 1.0 when a token costs the same at any length).  The same
 * two rows for the shapes a frame cannot cut at line starts: one code
 * block of 50,000 tokens (coloured as it grows) and one paragraph without
 * a line break.  Prints one
 * line per figure in bench.sh's format; it asserts nothing about the times.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diff.h"
#include "ui/view/layout.h"
#include "ui/view/server_panel.h"
#include "ui/view/transcript.h"
#include "ui/view/transcript_search.h"

#include "bench_util.h"

#define W 120
#define H 32

/* Milliseconds of this process's CPU time. */
static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* One figure line, as bench.sh prints them. */
static void
figure(const char *label, double v, const char *unit, const char *extra)
{
	char val[32];

	snprintf(val, sizeof val, "%.2f %s", v, unit);
	printf("  %-34s %-14s %-34s %s\n", label, val, "", extra);
}

/* An edit's tool item with a small diff. */
static void
add_edit(struct view_transcript *tv, int i)
{
	static char name[] = "edit";
	struct agent_call c;
	char id[32], before[128], after[128];
	struct buf d = BUF_INIT;

	memset(&c, 0, sizeof c);
	snprintf(id, sizeof id, "call_%d", i);
	c.id = id;
	c.name = name;
	buf_init(&c.args, 0);
	buf_addf(&c.args, "{\"path\":\"src/file%d.c\"}", i % 97);
	buf_init(&c.job.out, 0);
	buf_adds(&c.job.out, "edited");
	snprintf(before, sizeof before, "int a;\nint b = %d;\nint c;\n", i);
	snprintf(after, sizeof after, "int a;\nint b = %d + 1;\nint c;\n", i);
	diff_unified("src/file.c", before, strlen(before), after, strlen(after), &d, NULL, NULL);
	c.job.diff = d.data;
	transcript_tool_start(tv, &c);
	transcript_tool_done(tv, &c);
	buf_release(&d);
	buf_release(&c.args);
	buf_release(&c.job.out);
}

/* The long transcript. */
static void
fill(struct view_transcript *tv, int msgs)
{
	struct llm_event ev;
	char s[512];
	int i;

	transcript_init(tv);
	for (i = 0; i < msgs; i++) {
		memset(&ev, 0, sizeof ev);
		if (i % 4 == 0) {
			snprintf(s, sizeof s, "question %d: why does the loop in file%d.c stop early?", i, i % 97);
			transcript_add_user(tv, s, strlen(s));
			continue;
		}
		if (i % 4 == 2) {
			add_edit(tv, i);
			continue;
		}
		snprintf(s, sizeof s, "## Answer %d\nThe loop reads **one element** past the end; "
		    "the bound should be `i < n`. This paragraph is long enough to wrap at least once "
		    "in a 120-column terminal with the panel open.\n- first point\n- second point\n"
		    "```c\nfor (i = 0; i < n; i++)\n\tsum += v[i];\n```\n", i);
		ev.kind = LLM_TEXT;
		ev.text.p = s;
		ev.text.len = strlen(s);
		transcript_on_event(tv, &ev);
		ev.kind = LLM_DONE;
		transcript_on_event(tv, &ev);
	}
}

/* Token k of the streamed answer (a word and what follows it). */
static void
token(char *s, size_t n, long k)
{
	static const char *const words[] = { "the", "loop", "reads", "**one**", "element",
		"past", "`end`", "because", "bound", "should", "be", "smaller", "than", "n" };
	long para = k / 120, in = k % 120;

	if (para % 5 == 4) { /* a code block: 120 tokens of 8 a line */
		static const char *const code[] = { "\tsum", " +=", " v[", "i", "]", " *", " 2", ";\n" };

		if (in == 0)
			snprintf(s, n, "```c\nint f(const int *v, int i) {\n\tint sum = 0;\n");
		else if (in == 119)
			snprintf(s, n, "\treturn sum;\n}\n```\n\n");
		else
			snprintf(s, n, "%s", code[in % 8]);
		return;
	}
	if (para % 5 == 2 && in % 12 == 0) { /* a list: items of 12 tokens */
		snprintf(s, n, "- %s ", words[k % 14]);
		return;
	}
	snprintf(s, n, "%s%s", words[k % 14], in == 119 ? "\n\n" : in % 12 == 11 ? "\n" : " ");
}

/* Token k of one code block of 50,000 tokens (about 6,000 lines of C). */
static void
token_code(char *s, size_t n, long k)
{
	static const char *const code[] = { "\tsum", " +=", " v[", "i", "]", " *", " 2", ";\n" };

	snprintf(s, n, "%s", k == 0 ? "```c\nint f(const int *v, int i) {\n" : code[k % 8]);
}

/* Token k of one paragraph without a line break. */
static void
token_para(char *s, size_t n, long k)
{
	static const char *const words[] = { "the", "loop", "reads", "**one**", "element",
		"past", "`end`", "because", "bound", "should", "be", "smaller", "than", "n" };

	snprintf(s, n, "%s ", words[k % 14]);
}

/*
 * The 50,000-token stream at 5,000 tok/s with a frame every 16 ms; see the
 * header comment.  shape names the row; tok makes the tokens.
 */
static void
stream_figures(struct grid *g, const struct layout *lay, struct view_server *srv,
    struct view_status *st, const char *shape, void (*tok_fn)(char *, size_t, long))
{
	enum { TOKENS = 50000, RATE = 5000, FRAME_MS = 16 };
	long per = RATE * FRAME_MS / 1000, k = 0, frames = 0, nf = TOKENS / per;
	double c0, t, early = 0, late = 0, total;
	struct view_transcript tv;
	struct llm_event ev;
	char tok[64], extra[128];
	int ne = 0, nl = 0;

	transcript_init(&tv);
	transcript_add_user(&tv, "Write a long answer.", 20);
	c0 = cpu_ms();
	while (k < TOKENS) {
		t = cpu_ms();
		for (long j = 0; j < per && k < TOKENS; j++, k++) {
			tok_fn(tok, sizeof tok, k);
			memset(&ev, 0, sizeof ev);
			ev.kind = LLM_TEXT;
			ev.text.p = tok;
			ev.text.len = strlen(tok);
			transcript_on_event(&tv, &ev);
		}
		layout_draw(g, lay, &tv, srv, st);
		t = cpu_ms() - t;
		if (frames < nf / 10) {
			early += t;
			ne++;
		} else if (frames >= nf - nf / 10) {
			late += t;
			nl++;
		}
		frames++;
	}
	total = cpu_ms() - c0;
	snprintf(extra, sizeof extra, "of one core: %.0f ms CPU over the %d s stream, %ld frames",
	    total, TOKENS / RATE, frames);
	{
		char val[32], tgt[64], label[64];

		snprintf(val, sizeof val, "%.2f %%", total / (TOKENS / RATE * 10.0));
		snprintf(tgt, sizeof tgt, "target < 10 %%  %s",
		    total / (TOKENS / RATE * 10.0) < 10 ? "meets target" : "MISSES target");
		snprintf(label, sizeof label, "tui: 50k %s, 5k tok/s CPU", shape);
		printf("  %-34s %-14s %-34s %s\n", label, val, tgt, extra);
		snprintf(val, sizeof val, "%.2fx", ne && nl && early > 0 ? (late / nl) / (early / ne) : 0);
		snprintf(extra, sizeof extra, "last tenth %.3f ms/frame vs first tenth %.3f ms/frame",
		    nl ? late / nl : 0, ne ? early / ne : 0);
		snprintf(label, sizeof label, "tui: 50k %s, end/start", shape);
		printf("  %-34s %-14s %-34s %s\n", label, val,
		    "target ~1x (constant per token)", extra);
	}
	transcript_release(&tv);
}

/* The streaming rows: every shape, or the one named (mixed, code, para). */
static void
stream_shapes(struct grid *g, const struct layout *lay, struct view_server *srv,
    struct view_status *st, const char *only)
{
	if (!only || !strcmp(only, "mixed"))
		stream_figures(g, lay, srv, st, "stream", token);
	if (!only || !strcmp(only, "code"))
		stream_figures(g, lay, srv, st, "code block", token_code);
	if (!only || !strcmp(only, "para"))
		stream_figures(g, lay, srv, st, "one line", token_para);
}

int
main(void)
{
	const char *env = getenv("BENCH_FRAME_MSGS");
	int msgs = env && atoi(env) > 0 ? atoi(env) : 10000, i, n = 30;
	struct view_transcript tv;
	struct view_server srv;
	struct view_status st;
	struct layout lay;
	struct transcript_search ts;
	struct grid *g = grid_new(W, H);
	double t[30], t0;
	char extra[96];
	long rows;

	setlocale(LC_CTYPE, "C.UTF-8");
	memset(&st, 0, sizeof st);
	memset(&ts, 0, sizeof ts);
	snprintf(st.model, sizeof st.model, "bench-model");
	server_panel_init(&srv);
	fill(&tv, msgs);
	layout_compute(&lay, W, H, 1, 1);
	t0 = bench_now_ms();
	rows = transcript_rows(&tv, lay.transcript.w);
	snprintf(extra, sizeof extra, "%d messages, %ld rows at %d columns", msgs, rows, lay.transcript.w);
	figure("tui: first layout (cold row cache)", bench_now_ms() - t0, "ms", extra);
	for (i = 0; i < n; i++) {
		t0 = bench_now_ms();
		layout_draw(g, &lay, &tv, &srv, &st);
		t[i] = bench_now_ms() - t0;
	}
	figure("tui: frame 120x32, following", bench_median(t, n, NULL), "ms", "median of 30 frames");
	for (i = 0; i < n; i++) {
		t0 = bench_now_ms();
		transcript_scroll(&tv, -(lay.transcript.h - 2), lay.transcript.w, lay.transcript.h);
		layout_draw(g, &lay, &tv, &srv, &st);
		t[i] = bench_now_ms() - t0;
	}
	figure("tui: frame 120x32, PgUp each frame", bench_median(t, n, NULL), "ms", "median of 30 (scroll + draw)");
	transcript_search_start(&ts, &tv, lay.transcript);
	buf_adds(&ts.query, "file42.c");
	t0 = bench_now_ms();
	transcript_search_update(&ts, &tv, lay.transcript.w);
	snprintf(extra, sizeof extra, "%zu matching rows", ts.nrows);
	figure("tui: search over the transcript", bench_now_ms() - t0, "ms", extra);
	transcript_search_release(&ts);
	transcript_release(&tv);
	if (!getenv("BENCH_FRAME_NO_STREAM"))
		stream_shapes(g, &lay, &srv, &st, getenv("BENCH_FRAME_STREAM"));
	grid_free(g);
	return 0;
}

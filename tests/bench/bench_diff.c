/*
 * bench_diff: base/diff (Myers after prefix/suffix trimming) against libgit2's
 * buffer diff (git_patch_from_buffers: Myers, minimal, patience) on the edits the
 * edit/write tools and /undo diff.  Prints per case: microseconds per diff and the
 * changed lines (+/-) each reports.  Figures in docs/architecture.md (issue 18, item 8).
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/diff.h"

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* A C-like file of n lines; every line distinct unless dup. */
static void
gen(struct buf *b, int n, unsigned seed, int every, const char *mark)
{
	int i;

	srand(seed);
	for (i = 0; i < n; i++) {
		if (every && i % every == every / 2)
			buf_addf(b, "\tx%d = %s(%d);\n", i, mark, rand() % 1000);
		else if (i % 7 == 0)
			buf_adds(b, "}\n");
		else
			buf_addf(b, "\tcall_%d(a, b, %d);\n", i, i * 3);
	}
}

struct cnt {
	int add, del;
};

static int
line_cb(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l, void *p)
{
	struct cnt *c = p;

	(void)d, (void)h;
	if (l->origin == GIT_DIFF_LINE_ADDITION)
		c->add++;
	else if (l->origin == GIT_DIFF_LINE_DELETION)
		c->del++;
	return 0;
}

static void
run(const char *name, const struct buf *a, const struct buf *b, int reps)
{
	static const struct {
		const char *name;
		unsigned flags;
	} modes[] = { { "libgit2 myers", 0 }, { "libgit2 minimal", GIT_DIFF_MINIMAL },
		      { "libgit2 patience", GIT_DIFF_PATIENCE } };
	struct diff d;
	double t0;
	int r, add = 0, del = 0;
	size_t m;

	t0 = now_us();
	for (r = 0; r < reps; r++) {
		diff_compute(&d, a->data, a->len, b->data, b->len, DIFF_CONTEXT);
		add = d.added, del = d.removed;
		diff_release(&d);
	}
	printf("%-34s %-17s %9.0f us  +%d -%d\n", name, "base/diff", (now_us() - t0) / reps, add, del);
	for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		git_diff_options o;
		struct cnt c = { 0, 0 };

		git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
		o.flags = modes[m].flags;
		o.context_lines = DIFF_CONTEXT;
		t0 = now_us();
		for (r = 0; r < reps; r++) {
			git_patch *p = NULL;
			size_t h, nh;

			memset(&c, 0, sizeof c);
			if (git_patch_from_buffers(&p, a->data, a->len, "a", b->data, b->len, "b", &o) < 0)
				abort();
			nh = git_patch_num_hunks(p);
			for (h = 0; h < nh; h++) {
				size_t l, nl = (size_t)git_patch_num_lines_in_hunk(p, h);

				for (l = 0; l < nl; l++) {
					const git_diff_line *ln;

					git_patch_get_line_in_hunk(&ln, p, h, l);
					line_cb(NULL, NULL, ln, &c);
				}
			}
			git_patch_free(p);
		}
		printf("%-34s %-17s %9.0f us  +%d -%d\n", name, modes[m].name, (now_us() - t0) / reps, c.add,
		       c.del);
	}
}

int
main(void)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	double t0 = now_us();

	git_libgit2_init();
	printf("git_libgit2_init: %.0f us (already paid by hearth at start)\n", now_us() - t0);
	/* 1: one line changed in a 2,000-line file (an edit tool call) */
	gen(&a, 2000, 1, 0, "f");
	buf_adds(&b, a.data);
	memcpy(strstr(b.data, "call_1000("), "CALL", 4);
	run("1 line of 2,000", &a, &b, 200);
	/* 2: 20 scattered edits in 10,000 lines */
	buf_reset(&a), buf_reset(&b);
	gen(&a, 10000, 2, 500, "f");
	gen(&b, 10000, 2, 500, "g");
	run("20 edits in 10,000 lines", &a, &b, 20);
	/* 3: a rewrite: 1 line in 3 changed in 6,000 lines (past DIFF_MAX_EDITS) */
	buf_reset(&a), buf_reset(&b);
	gen(&a, 6000, 3, 3, "f");
	gen(&b, 6000, 3, 3, "g");
	run("rewrite: 2,000 of 6,000 lines", &a, &b, 5);
	/* 4: a new 5,000-line file (write) */
	buf_reset(&a), buf_reset(&b);
	gen(&b, 5000, 4, 0, "f");
	run("new file of 5,000 lines", &a, &b, 20);
	buf_release(&a), buf_release(&b);
	git_libgit2_shutdown();
	return 0;
}

/*
 * base/diff: Myers' greedy O(ND) diff over lines, hunks and unified text.
 *
 * Texts are split into `struct tline` (pointer, length including the
 * newline, hash).  After the common prefix and suffix are trimmed, the
 * forward search records V[-d..d] for every d in one flat array (row d
 * starts at d*d), grown as d increases, so memory is O(D^2) for the edit
 * distance D actually found and bounded by DIFF_MAX_EDITS.  Backtracking
 * through those rows yields the edit script as `struct op`s over the whole
 * texts; hunk building then keeps only changes and their context.  Past
 * DIFF_MAX_EDITS the middle's script comes from libgit2 instead (see
 * docs/architecture.md, "Diffs", for the figures behind the split).
 */
#include "base/diff.h"

#include <git2.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

struct tline {
	const char *p;
	size_t len; /* including '\n' when present */
	uint32_t hash;
};

struct op {
	int kind; /* enum diff_kind */
	int ai, bi; /* 0-based line indexes (the one that does not apply is -1) */
};

struct script {
	struct op *v;
	size_t n, cap;
};

/* Split text into lines; the last may lack '\n'.  Never NULL, even for no lines. */
static struct tline *
split_lines(const char *s, size_t n, int *count)
{
	struct tline *v = NULL;
	size_t cap = 0, i = 0, j;
	int c = 0;
	uint32_t h;

	while (i < n) {
		h = 2166136261u;
		for (j = i; j < n && s[j] != '\n'; j++)
			h = (h ^ (unsigned char)s[j]) * 16777619u;
		if (j < n)
			j++;
		if ((size_t)c == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[c].p = s + i;
		v[c].len = j - i;
		v[c++].hash = h;
		i = j;
	}
	if (!v) /* never NULL: edit_script offsets it by the common prefix even when empty */
		v = xcalloc(1, sizeof *v);
	*count = c;
	return v;
}

/* Byte equality of two lines (newline included). */
static int
line_eq(const struct tline *a, const struct tline *b)
{
	return a->hash == b->hash && a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* Append one op to the script. */
static void
push(struct script *s, int kind, int ai, int bi)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n].kind = kind;
	s->v[s->n].ai = ai;
	s->v[s->n++].bi = bi;
}

/*
 * Forward Myers search over a[0..n) and b[0..m); returns D, or -1 when it
 * exceeds DIFF_MAX_EDITS.  *trace receives the V rows (row d at d*d).
 */
static int
myers_forward(const struct tline *a, int n, const struct tline *b, int m, int **trace)
{
	int dmax = n + m < DIFF_MAX_EDITS ? n + m : DIFF_MAX_EDITS;
	int *v = xcalloc((size_t)(2 * dmax + 3), sizeof *v), *t = NULL;
	int off = dmax + 1, d, k, x, y;
	size_t cap = 0, need;

	for (d = 0; d <= dmax; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(&a[x], &b[y]))
				x++, y++;
			v[off + k] = x;
		}
		need = (size_t)(d + 1) * (size_t)(d + 1);
		if (need > cap) {
			cap = need * 2;
			t = xrealloc(t, cap * sizeof *t);
		}
		memcpy(t + (size_t)d * (size_t)d, v + off - d, (size_t)(2 * d + 1) * sizeof *t);
		for (k = -d; k <= d; k += 2)
			if (v[off + k] >= n && v[off + k] - k >= m)
				goto found;
	}
	d = -1;
found:
	free(v);
	*trace = t;
	return d;
}

/* Walk the trace back from (n, m), appending ops in reverse order. */
static void
myers_back(const int *trace, int dfound, int n, int m, int a0, struct script *s)
{
	int x = n, y = m, d, k, pk, px, py;
	const int *prev;

	for (d = dfound; d > 0; d--) {
		prev = trace + (size_t)(d - 1) * (size_t)(d - 1) + (d - 1); /* prev[k] */
		k = x - y;
		if (k == -d || (k != d && prev[k - 1] < prev[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = prev[pk];
		py = px - pk;
		while (x > px && y > py) {
			x--, y--;
			push(s, DIFF_CTX, a0 + x, a0 + y);
		}
		if (pk == k + 1)
			push(s, DIFF_ADD, -1, a0 + --y);
		else
			push(s, DIFF_DEL, a0 + --x, -1);
	}
	while (x > 0 && y > 0) {
		x--, y--;
		push(s, DIFF_CTX, a0 + x, a0 + y);
	}
}

static void
diff_git_init(void)
{
	git_libgit2_init(); /* reference-counted; never shut down (the process keeps it) */
}

/*
 * The middle's script from libgit2 (git_patch_from_buffers, minimal Myers, no
 * context), for when our search gives up: n lines at a and m at b, indexes
 * offset by base.  0, or -1 when libgit2 fails or will not diff texts that
 * large (s then holds a partial script).
 */
static int
git_middle(const struct tline *a, int n, const struct tline *b, int m, int base, struct script *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	git_diff_options o;
	git_patch *p = NULL;
	size_t h, nh, k, nl;
	int ai = 0, bi = 0;

	pthread_once(&once, diff_git_init);
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags = GIT_DIFF_MINIMAL | GIT_DIFF_FORCE_TEXT; /* a NUL byte is still text here */
	o.context_lines = 0;
	if (git_patch_from_buffers(&p, n ? a[0].p : "", n ? (size_t)(a[n - 1].p + a[n - 1].len - a[0].p) : 0,
				   NULL, m ? b[0].p : "", m ? (size_t)(b[m - 1].p + b[m - 1].len - b[0].p) : 0,
				   NULL, &o) < 0)
		return -1;
	/* past its size limit (1023 MiB) libgit2 calls even FORCE_TEXT texts binary: no hunks */
	if (git_patch_get_delta(p)->flags & GIT_DIFF_FLAG_BINARY)
		goto fail;
	nh = git_patch_num_hunks(p);
	for (h = 0; h < nh; h++) {
		if (git_patch_get_hunk(NULL, &nl, p, h) < 0)
			break;
		for (k = 0; k < nl; k++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, p, h, k) < 0)
				goto fail;
			if (l->origin == GIT_DIFF_LINE_DELETION) {
				for (; ai < l->old_lineno - 1; ai++, bi++)
					push(s, DIFF_CTX, base + ai, base + bi);
				push(s, DIFF_DEL, base + ai++, -1);
			} else if (l->origin == GIT_DIFF_LINE_ADDITION) {
				for (; bi < l->new_lineno - 1; ai++, bi++)
					push(s, DIFF_CTX, base + ai, base + bi);
				push(s, DIFF_ADD, -1, base + bi++);
			}
		}
	}
	if (h < nh || n - ai != m - bi)
		goto fail;
	for (; ai < n; ai++, bi++)
		push(s, DIFF_CTX, base + ai, base + bi);
	git_patch_free(p);
	return 0;
fail:
	git_patch_free(p);
	return -1;
}

/* The whole edit script: prefix, middle (Myers, or libgit2 past DIFF_MAX_EDITS), suffix. */
static void
edit_script(const struct tline *a, int n, const struct tline *b, int m, struct script *s,
	    int *approx)
{
	int pre = 0, suf = 0, i, d, *trace = NULL;
	size_t mid_start;

	while (pre < n && pre < m && line_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && line_eq(&a[n - 1 - suf], &b[m - 1 - suf]))
		suf++;
	for (i = 0; i < pre; i++)
		push(s, DIFF_CTX, i, i);
	mid_start = s->n;
	d = myers_forward(a + pre, n - pre - suf, b + pre, m - pre - suf, &trace);
	if (d >= 0) {
		/* a and b share the offset `pre`, so one base serves both indexes */
		myers_back(trace, d, n - pre - suf, m - pre - suf, pre, s);
		for (i = 0; (size_t)i < (s->n - mid_start) / 2; i++) {
			struct op tmp = s->v[mid_start + (size_t)i];
			s->v[mid_start + (size_t)i] = s->v[s->n - 1 - (size_t)i];
			s->v[s->n - 1 - (size_t)i] = tmp;
		}
	} else if (git_middle(a + pre, n - pre - suf, b + pre, m - pre - suf, pre, s) < 0) {
		*approx = 1; /* libgit2 failed too (out of memory): replace the middle whole */
		s->n = mid_start;
		for (i = pre; i < n - suf; i++)
			push(s, DIFF_DEL, i, -1);
		for (i = pre; i < m - suf; i++)
			push(s, DIFF_ADD, -1, i);
	}
	free(trace);
	for (i = 0; i < suf; i++)
		push(s, DIFF_CTX, n - suf + i, m - suf + i);
}

/* Append one structured line for op o. */
static void
add_line(struct diff *d, size_t *cap, const struct op *o, const struct tline *a,
	 const struct tline *b)
{
	const struct tline *t = o->ai >= 0 ? &a[o->ai] : &b[o->bi];
	struct diff_line *l;

	if (d->nlines == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		d->lines = xrealloc(d->lines, *cap * sizeof *d->lines);
	}
	l = &d->lines[d->nlines++];
	l->kind = o->kind;
	l->old_no = o->kind != DIFF_ADD ? o->ai + 1 : 0;
	l->new_no = o->kind != DIFF_DEL ? o->bi + 1 : 0;
	l->text = t->p;
	l->no_eol = t->len == 0 || t->p[t->len - 1] != '\n';
	l->len = t->len - !l->no_eol;
	d->added += o->kind == DIFF_ADD;
	d->removed += o->kind == DIFF_DEL;
}

/* End (exclusive) of the hunk whose first change is at i. */
static size_t
hunk_end(const struct script *s, size_t i, int ctx)
{
	size_t j, run;

	for (;;) {
		while (i < s->n && s->v[i].kind != DIFF_CTX)
			i++;
		for (j = i, run = 0; j < s->n && s->v[j].kind == DIFF_CTX; j++)
			run++;
		if (j == s->n || run > 2 * (size_t)ctx)
			return i + (run < (size_t)ctx ? run : (size_t)ctx);
		i = j;
	}
}

/* Turn the script into hunks with ctx lines of context. */
static void
build_hunks(struct diff *d, const struct script *s, const struct tline *a,
	    const struct tline *b, int ctx)
{
	size_t i = 0, start, end, k, lcap = 0, hcap = 0;
	int aseen = 0, bseen = 0; /* old/new lines before op i */
	struct diff_hunk *h;

	while (i < s->n) {
		if (s->v[i].kind == DIFF_CTX) {
			aseen++, bseen++, i++;
			continue;
		}
		start = i >= (size_t)ctx ? i - (size_t)ctx : 0;
		aseen -= (int)(i - start), bseen -= (int)(i - start);
		end = hunk_end(s, i, ctx);
		if (d->nhunks == hcap) {
			hcap = hcap ? hcap * 2 : 8;
			d->hunks = xrealloc(d->hunks, hcap * sizeof *d->hunks);
		}
		h = &d->hunks[d->nhunks++];
		memset(h, 0, sizeof *h);
		h->first = d->nlines;
		for (k = start; k < end; k++) {
			add_line(d, &lcap, &s->v[k], a, b);
			h->old_count += s->v[k].kind != DIFF_ADD;
			h->new_count += s->v[k].kind != DIFF_DEL;
		}
		h->count = d->nlines - h->first;
		h->old_start = aseen + (h->old_count > 0);
		h->new_start = bseen + (h->new_count > 0);
		aseen += h->old_count, bseen += h->new_count;
		i = end;
	}
}

/* Diff a -> b (see base/diff.h). */
void
diff_compute(struct diff *d, const char *a, size_t alen, const char *b, size_t blen,
	     int context)
{
	struct script s = { NULL, 0, 0 };
	struct tline *la, *lb;
	int n, m;

	memset(d, 0, sizeof *d);
	if (context < 0)
		context = 0;
	la = split_lines(a, alen, &n);
	lb = split_lines(b, blen, &m);
	edit_script(la, n, lb, m, &s, &d->approx);
	build_hunks(d, &s, la, lb, context);
	free(s.v);
	free(la);
	free(lb);
}

/* Free the arrays. */
void
diff_release(struct diff *d)
{
	if (!d)
		return;
	free(d->lines);
	free(d->hunks);
	memset(d, 0, sizeof *d);
}

/* Unified text of d. */
void
diff_format(const struct diff *d, const char *path, struct buf *out)
{
	const struct diff_hunk *h;
	const struct diff_line *l;
	size_t i, k;

	if (!d->nhunks)
		return;
	buf_addf(out, "--- a/%s\n+++ b/%s\n", path, path);
	for (i = 0; i < d->nhunks; i++) {
		h = &d->hunks[i];
		buf_addf(out, "@@ -%d,%d +%d,%d @@\n", h->old_start, h->old_count,
			 h->new_start, h->new_count);
		for (k = 0; k < h->count; k++) {
			l = &d->lines[h->first + k];
			buf_addch(out, l->kind);
			buf_add(out, l->text, l->len);
			buf_addch(out, '\n');
			if (l->no_eol)
				buf_adds(out, "\\ No newline at end of file\n");
		}
	}
}

/* Compute and format in one call. */
void
diff_unified(const char *path, const char *a, size_t alen, const char *b, size_t blen,
	     struct buf *out, int *added, int *removed)
{
	struct diff d;

	diff_compute(&d, a, alen, b, blen, DIFF_CONTEXT);
	diff_format(&d, path, out);
	if (added)
		*added = d.added;
	if (removed)
		*removed = d.removed;
	diff_release(&d);
}

/* Parse "N" or "N,M" from a hunk header; returns the end or NULL. */
static const char *
parse_range(const char *p, const char *end, int *start, int *count)
{
	long v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	for (; p < end && *p >= '0' && *p <= '9' && v < 100000000; p++)
		v = v * 10 + (*p - '0');
	*start = (int)v;
	*count = 1;
	if (p < end && *p == ',') {
		v = 0;
		for (p++; p < end && *p >= '0' && *p <= '9' && v < 100000000; p++)
			v = v * 10 + (*p - '0');
		*count = (int)v;
	}
	return p;
}

/* Start a hunk from an "@@ -l,n +l,n @@" line. */
static int
parse_header(struct diff *d, size_t *hcap, const char *p, const char *end, struct err *e)
{
	struct diff_hunk h;

	memset(&h, 0, sizeof h);
	if (end - p < 4 || memcmp(p, "@@ -", 4) != 0 ||
	    !(p = parse_range(p + 4, end, &h.old_start, &h.old_count)) ||
	    end - p < 2 || memcmp(p, " +", 2) != 0 ||
	    !(p = parse_range(p + 2, end, &h.new_start, &h.new_count)) ||
	    end - p < 3 || memcmp(p, " @@", 3) != 0)
		return err_set(e, "parse diff: malformed hunk header");
	if (d->nhunks == *hcap) {
		*hcap = *hcap ? *hcap * 2 : 8;
		d->hunks = xrealloc(d->hunks, *hcap * sizeof *d->hunks);
	}
	h.first = d->nlines;
	d->hunks[d->nhunks++] = h;
	return 0;
}

/* Add one body line to the current hunk; tracks old/new numbers in on/nn. */
static void
parse_body(struct diff *d, size_t *lcap, const char *p, const char *end, int *on, int *nn)
{
	struct diff_line *l;

	if (d->nlines == *lcap) {
		*lcap = *lcap ? *lcap * 2 : 32;
		d->lines = xrealloc(d->lines, *lcap * sizeof *d->lines);
	}
	l = &d->lines[d->nlines++];
	l->kind = *p;
	l->text = p + 1;
	l->len = (size_t)(end - p - 1);
	l->no_eol = 0;
	l->old_no = *p != DIFF_ADD ? (*on)++ : 0;
	l->new_no = *p != DIFF_DEL ? (*nn)++ : 0;
	d->added += *p == DIFF_ADD;
	d->removed += *p == DIFF_DEL;
	d->hunks[d->nhunks - 1].count++;
}

/* A "--- " or "+++ " line (file names), as opposed to a hunk body line. */
static int
is_file_header(const char *p, const char *eol)
{
	return eol - p >= 4 && (!memcmp(p, "--- ", 4) || !memcmp(p, "+++ ", 4));
}

/* Structured form of unified text (see base/diff.h). */
int
diff_parse(struct diff *d, const char *text, size_t len, struct err *e)
{
	const char *p = text, *end = text + len, *eol;
	size_t hcap = 0, lcap = 0;
	int old_left = 0, new_left = 0, on = 0, nn = 0;
	struct diff_hunk *h;

	memset(d, 0, sizeof *d);
	for (; p < end; p = eol < end ? eol + 1 : end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (d->nhunks && eol > p && (*p == ' ' || *p == '-' || *p == '+') &&
		    (old_left > 0 || new_left > 0 || !is_file_header(p, eol))) {
			if ((*p != '+' && old_left == 0) || (*p != '-' && new_left == 0))
				return err_set(e, "parse diff: hunk longer than its header says");
			old_left -= *p != '+';
			new_left -= *p != '-';
			parse_body(d, &lcap, p, eol, &on, &nn);
		} else if (*p == '\\' && d->nlines > 0) {
			d->lines[d->nlines - 1].no_eol = 1;
		} else if (eol - p >= 2 && p[0] == '@' && p[1] == '@') {
			if (old_left > 0 || new_left > 0)
				return err_set(e, "parse diff: hunk shorter than its header says");
			if (parse_header(d, &hcap, p, eol, e) < 0)
				return -1;
			h = &d->hunks[d->nhunks - 1];
			old_left = h->old_count, new_left = h->new_count;
			on = h->old_start + (h->old_count == 0);
			nn = h->new_start + (h->new_count == 0);
		}
	}
	if (old_left > 0 || new_left > 0)
		return err_set(e, "parse diff: hunk shorter than its header says");
	return 0;
}

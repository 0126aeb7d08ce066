/*
 * test_diff: unified output, hunk numbering, missing final newlines, the
 * structured form, parse round trips, the size guard, and a randomised
 * check that every diff applies back to the new text and is minimal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <git2.h>
#include <git2/sys/alloc.h>

#include "base/diff.h"
#include "base/xmalloc.h"

/* Unified text of a -> b for "f". */
static char *
udiff(const char *a, const char *b)
{
	struct buf out = BUF_INIT;

	diff_unified("f", a, strlen(a), b, strlen(b), &out, NULL, NULL);
	return buf_detach(&out, NULL);
}

/* Lines of s as (pointer, length-with-newline). */
struct lines {
	const char *p[4096];
	size_t n[4096];
	size_t count;
};

static void
split(const char *s, struct lines *l)
{
	const char *nl;

	l->count = 0;
	while (*s) {
		nl = strchr(s, '\n');
		l->p[l->count] = s;
		l->n[l->count] = nl ? (size_t)(nl - s + 1) : strlen(s);
		s += l->n[l->count++];
	}
}

/* Apply the structured diff to a; fails the test if it does not fit a. */
static char *
apply(const struct diff *d, const char *a)
{
	static struct lines la;
	struct buf out = BUF_INIT;
	size_t ai = 0, h, k;
	const struct diff_line *l;

	split(a, &la);
	for (h = 0; h < d->nhunks; h++) {
		size_t upto = (size_t)d->hunks[h].old_start - (d->hunks[h].old_count > 0);
		assert_true(upto >= ai);
		for (; ai < upto; ai++)
			buf_add(&out, la.p[ai], la.n[ai]);
		for (k = 0; k < d->hunks[h].count; k++) {
			l = &d->lines[d->hunks[h].first + k];
			if (l->kind != DIFF_ADD) {
				assert_true(ai < la.count);
				assert_int_equal(l->old_no, (int)ai + 1);
				assert_int_equal(la.n[ai], l->len + !l->no_eol);
				assert_memory_equal(la.p[ai], l->text, l->len);
				ai++;
			}
			if (l->kind != DIFF_DEL) {
				buf_add(&out, l->text, l->len);
				if (!l->no_eol)
					buf_addch(&out, '\n');
			}
		}
	}
	for (; ai < la.count; ai++)
		buf_add(&out, la.p[ai], la.n[ai]);
	return buf_detach(&out, NULL);
}

static void
test_identical(void **state)
{
	char *u = udiff("a\nb\n", "a\nb\n");
	struct diff d;

	(void)state;
	assert_string_equal(u, "");
	free(u);
	diff_compute(&d, "x", 1, "x", 1, 3);
	assert_int_equal(d.nhunks, 0);
	assert_int_equal(d.added + d.removed, 0);
	diff_release(&d);
}

static void
test_middle_change(void **state)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
	const char *b = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n";
	char *u = udiff(a, b);
	struct buf out = BUF_INIT;
	int added, removed;

	(void)state;
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n");
	diff_unified("f", a, strlen(a), b, strlen(b), &out, &added, &removed);
	assert_int_equal(added, 1);
	assert_int_equal(removed, 1);
	buf_release(&out);
	free(u);
}

static void
test_new_and_deleted(void **state)
{
	char *u = udiff("", "x\ny\n");

	(void)state;
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	free(u);
	u = udiff("x\ny\n", "");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n");
	free(u);
	u = udiff("a\nb\nc\nd\n", "a\nb\nX\nc\nd\n");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n a\n b\n+X\n c\n d\n");
	free(u);
	/*
	 * Issue 20: the common suffix is kept whole: a line added that repeats
	 * the last one goes before it (the search alone would pair the first).
	 */
	u = udiff("y\nx\n", "z\nx\nx\n");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n-y\n+z\n+x\n x\n");
	free(u);
}

static void
test_no_newline(void **state)
{
	char *u = udiff("a\nb", "a\nc");

	(void)state;
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n"
			       "\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
	free(u);
	u = udiff("a", "a\n");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n"
			       "\\ No newline at end of file\n+a\n");
	free(u);
	/* issue 20: an empty line has its newline */
	u = udiff("\n", "x\n");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-\n+x\n");
	free(u);
	u = udiff("x\na", "y\na");
	assert_string_equal(u, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x\n+y\n a\n"
			       "\\ No newline at end of file\n");
	free(u);
}

static void
test_hunks_split_and_merge(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT, c = BUF_INIT, e = BUF_INIT, f = BUF_INIT;
	struct diff d;
	int i;

	(void)state;
	for (i = 1; i <= 30; i++) {
		buf_addf(&a, "%d\n", i);
		buf_addf(&b, "%d%s\n", i, i == 5 || i == 25 ? "x" : "");
		buf_addf(&c, "%d%s\n", i, i == 5 || i == 11 ? "x" : "");
		buf_addf(&e, "%d%s\n", i, i == 5 || i == 12 ? "x" : "");
		buf_addf(&f, "%d%s\n", i, i == 5 || i == 13 ? "x" : "");
	}
	diff_compute(&d, a.data, a.len, b.data, b.len, 3);
	assert_int_equal(d.nhunks, 2);
	assert_int_equal(d.hunks[0].old_start, 2);
	assert_int_equal(d.hunks[0].old_count, 7);
	assert_int_equal(d.hunks[1].old_start, 22);
	assert_int_equal(d.hunks[1].new_start, 22);
	diff_release(&d);
	/* 5 lines apart (gap 5 <= 2*3): one hunk */
	diff_compute(&d, a.data, a.len, c.data, c.len, 3);
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.hunks[0].old_start, 2);
	assert_int_equal(d.hunks[0].old_count, 13);
	diff_release(&d);
	/* issue 20: 6 apart (= 2*3, the contexts touch): still one hunk; 7 apart: two */
	diff_compute(&d, a.data, a.len, e.data, e.len, 3);
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.hunks[0].old_count, 14);
	diff_release(&d);
	diff_compute(&d, a.data, a.len, f.data, f.len, 3);
	assert_int_equal(d.nhunks, 2);
	assert_int_equal(d.hunks[1].old_start, 10);
	diff_release(&d);
	buf_release(&a), buf_release(&b), buf_release(&c), buf_release(&e), buf_release(&f);
}

static void
test_structured(void **state)
{
	const char *a = "keep\nold\nkeep2\n", *b = "keep\nnew1\nnew2\nkeep2\n";
	struct diff d;

	(void)state;
	diff_compute(&d, a, strlen(a), b, strlen(b), 3);
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.nlines, 5);
	assert_int_equal(d.lines[0].kind, DIFF_CTX);
	assert_int_equal(d.lines[0].old_no, 1);
	assert_int_equal(d.lines[0].new_no, 1);
	assert_int_equal(d.lines[1].kind, DIFF_DEL);
	assert_int_equal(d.lines[1].old_no, 2);
	assert_int_equal(d.lines[1].new_no, 0);
	assert_int_equal(d.lines[2].kind, DIFF_ADD);
	assert_int_equal(d.lines[2].new_no, 2);
	assert_int_equal(d.lines[3].new_no, 3);
	assert_int_equal(d.lines[4].old_no, 3);
	assert_int_equal(d.lines[4].new_no, 4);
	assert_int_equal(d.lines[2].len, 4);
	assert_memory_equal(d.lines[2].text, "new1", 4);
	assert_int_equal(d.added, 2);
	assert_int_equal(d.removed, 1);
	diff_release(&d);
	/* issue 20: release leaves d empty */
	assert_null(d.lines);
	assert_null(d.hunks);
	assert_int_equal(d.nlines + d.nhunks, 0);
	assert_int_equal(d.added + d.removed, 0);
	diff_release(NULL);
	/* issue 20: a negative context is no context */
	diff_compute(&d, a, strlen(a), b, strlen(b), -1);
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.nlines, 3);
	assert_int_equal(d.lines[0].kind, DIFF_DEL);
	diff_release(&d);
}

static void
test_parse_roundtrip(void **state)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nend";
	const char *b = "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n14\nEND";
	struct diff d, p;
	struct buf u = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	diff_compute(&d, a, strlen(a), b, strlen(b), 3);
	diff_format(&d, "x.c", &u);
	assert_int_equal(diff_parse(&p, u.data, u.len, &e), 0);
	assert_int_equal(p.nhunks, d.nhunks);
	assert_int_equal(p.nlines, d.nlines);
	assert_int_equal(p.added, d.added);
	assert_int_equal(p.removed, d.removed);
	for (i = 0; i < d.nlines; i++) {
		assert_int_equal(p.lines[i].kind, d.lines[i].kind);
		assert_int_equal(p.lines[i].old_no, d.lines[i].old_no);
		assert_int_equal(p.lines[i].new_no, d.lines[i].new_no);
		assert_int_equal(p.lines[i].no_eol, d.lines[i].no_eol);
		assert_int_equal(p.lines[i].len, d.lines[i].len);
		assert_memory_equal(p.lines[i].text, d.lines[i].text, d.lines[i].len);
	}
	diff_release(&p);
	diff_release(&d);
	buf_release(&u);
}

static void
test_parse_bad(void **state)
{
	static const char *bad[] = {
		"@@ -1,2 +1,2 @@\n a\n",                /* short */
		"@@ -1,1 +1,1 @@\n a\n b\n-c\n",         /* long */
		"@@ -x,1 +1,1 @@\n a\n",                /* header */
		"@@ -1,1 +1 @\n a\n",                   /* header end */
		"@@ -1,1 +1,1 @@\n-a\n@@ -5,1 +5,1 @@\n", /* second short */
		"@@\n a\n",                             /* a header of two bytes (issue 20) */
		"@@ -1,1 +1,1 @@\n a\n@@\n",             /* ... after a hunk */
		/* issue 20: one line too many or too few on either side */
		"@@ -1,1 +1,2 @@\n a\n b\n",
		"@@ -1,1 +1,1 @@\n a\n bbbb\n",
		"@@ -1,2 +1,1 @@\n a\n",
		"@@ -1,1 +1,2 @@\n a\n",
		"@@ -1,1 +1,1 @@\n+a\n@@ -5 +5 @@\n a\n",
		"@@ -1,1 +1,1 @@\n-a\n@@ -5 +5 @@\n a\n",
	};
	static const char *bad_header[] = {
		"@@ - +1 @@\n a\n", "@@ x1 +1 @@\n a\n", "@@ -1 x1 @@\n a\n", "@@ -1 +x @@\n a\n",
		"@@ -1 +1 xx\n a\n", "@@ -1000000000 +1 @@\n a\n", "@@ -1,1000000000 +1 @@\n a\n",
	};
	struct diff d;
	struct err e = ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err_clear(&e);
		assert_int_equal(diff_parse(&d, bad[i], strlen(bad[i]), &e), -1);
		assert_true(err_isset(&e));
		diff_release(&d);
	}
	/* Issue 20: each part of a header, and numbers of at most 9 digits. */
	for (i = 0; i < sizeof bad_header / sizeof bad_header[0]; i++) {
		err_clear(&e);
		assert_int_equal(diff_parse(&d, bad_header[i], strlen(bad_header[i]), &e), -1);
		assert_non_null(strstr(e.msg, "malformed hunk header"));
		diff_release(&d);
	}
	assert_int_equal(diff_parse(&d, "@@ -999999999 +1 @@\n a\n", 24, &e), 0);
	assert_int_equal(d.hunks[0].old_start, 999999999);
	diff_release(&d);
	assert_int_equal(diff_parse(&d, "", 0, &e), 0);
	assert_int_equal(d.nhunks, 0);
	diff_release(&d);
	/* a single-count header and a "\ No newline" marker */
	assert_int_equal(diff_parse(&d, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ x\n+b\n",
				    strlen("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ x\n+b\n"), &e), 0);
	assert_int_equal(d.nlines, 2);
	assert_int_equal(d.lines[0].no_eol, 1);
	assert_int_equal(d.lines[1].no_eol, 0);
	assert_int_equal(d.lines[0].old_no, 1); /* issue 20: the numbers of a one-line hunk */
	assert_int_equal(d.lines[1].new_no, 1);
	diff_release(&d);
}

/* diff_unified of a -> b parses back into its lines, added and removed. */
static void
check_parse(const char *a, const char *b, const char *header)
{
	struct buf u = BUF_INIT;
	struct err e = ERR_INIT;
	struct diff d;
	int added, removed;

	buf_adds(&u, header);
	diff_unified("f", a, strlen(a), b, strlen(b), &u, &added, &removed);
	if (diff_parse(&d, u.data, u.len, &e) != 0)
		fail_msg("%s: %s", u.data, e.msg);
	assert_int_equal(d.added, added);
	assert_int_equal(d.removed, removed);
	diff_release(&d);
	buf_release(&u);
}

/*
 * Issue 20: "--- " and "+++ " lines are file headers between hunks (of
 * several files, after other header lines) but hunk lines inside one: a
 * removed "-- x" or an added "++ y", also as the hunk's last line.
 */
static void
test_parse_headers_and_lines(void **state)
{
	struct buf u = BUF_INIT;
	struct diff d;
	struct err e = ERR_INIT;

	(void)state;
	check_parse("-- x\n", "++ y\n", "");
	check_parse("-- x\n", "", "");
	check_parse("", "++ y\n", "");
	check_parse("a\n", "b\n", "diff --git a/f b/f\na@b\n@x\n");
	diff_unified("f", "a\n", 2, "b\n", 2, &u, NULL, NULL);
	diff_unified("g", "c\n", 2, "d\n", 2, &u, NULL, NULL);
	buf_adds(&u, "--- \n+++ \n");
	diff_unified("h", "e\n", 2, "f\n", 2, &u, NULL, NULL);
	assert_int_equal(diff_parse(&d, u.data, u.len, &e), 0);
	assert_int_equal(d.nhunks, 3);
	assert_int_equal(d.nlines, 6);
	diff_release(&d);
	buf_release(&u);
}

static void
test_size_guard(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct diff d;
	char *back;
	int i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		buf_addf(&a, "a%d\n", i);
		buf_addf(&b, "b%d\n", i);
	}
	buf_adds(&a, "same\n");
	buf_adds(&b, "same\n");
	diff_compute(&d, a.data, a.len, b.data, b.len, 3);
	assert_int_equal(d.approx, 0); /* no size guard since libgit2: still minimal */
	assert_int_equal(d.added, 3000);
	assert_int_equal(d.removed, 3000);
	back = apply(&d, a.data);
	assert_string_equal(back, b.data);
	free(back);
	diff_release(&d);
	buf_release(&a), buf_release(&b);
}

/*
 * Issue 20: an edit distance of exactly DIFF_MAX_EDITS is still our own
 * search's (libgit2 takes over only past it): a change with two minimal
 * scripts is aligned as it is alone, not as libgit2 would align it
 * ("-b -a +c +c a +b +c").
 */
static void
test_max_edits_boundary(void **state)
{
	const char *small = "--- a/f\n+++ b/f\n@@ -1,5 +1,7 @@\n a\n-b\n+c\n+c\n a\n-a\n+b\n+c\n S\n";
	const char *big = "--- a/f\n+++ b/f\n@@ -1,255 +1,7 @@\n a\n-b\n+c\n+c\n a\n-a\n+b\n+c\n S\n-d0\n";
	struct buf a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	int i, added, removed;
	char *u;

	(void)state;
	buf_adds(&a, "a\nb\na\na\nS\n");
	buf_adds(&b, "a\nc\nc\na\nb\nc\nS\n");
	u = udiff(a.data, b.data);
	assert_string_equal(u, small);
	free(u);
	for (i = 0; i < DIFF_MAX_EDITS - 6; i++)
		buf_addf(&a, "d%d\n", i);
	diff_unified("f", a.data, a.len, b.data, b.len, &out, &added, &removed);
	assert_int_equal(added + removed, DIFF_MAX_EDITS);
	assert_int_equal(strncmp(out.data, big, strlen(big)), 0);
	buf_release(&a), buf_release(&b), buf_release(&out);
}

/* diff_compute of a -> b with 3 lines of context: libgit2's middle, applied back, of minimal size. */
static void
check_git(const char *a, const char *b, int added, int removed)
{
	struct diff d;
	char *back;

	diff_compute(&d, a, strlen(a), b, strlen(b), 3);
	assert_int_equal(d.approx, 0);
	assert_int_equal(d.added, added);
	assert_int_equal(d.removed, removed);
	back = apply(&d, a);
	assert_string_equal(back, b);
	free(back);
	diff_release(&d);
}

/*
 * Issue 20: past DIFF_MAX_EDITS the middle comes from libgit2: common lines
 * kept inside it, a long first line and a last line shorter than the
 * suffix's first (the middle's bytes are cut exactly), and a middle empty
 * on one side.
 */
static void
test_git_middle(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	int i;

	(void)state;
	buf_adds(&a, "a first line\n");
	buf_adds(&b, "a first line\n");
	for (i = 0; i < 1000; i++) {
		if (i == 1) {
			buf_adds(&a, "one, a long first line that changes\n");
			buf_adds(&b, "new one, another long first line\n");
		} else if (i == 998) {
			buf_adds(&a, "998, a longer line after the change\n");
			buf_adds(&b, "998, a longer line after the change\n");
		} else {
			buf_addf(&a, "%d\n", i);
			buf_addf(&b, i % 3 == 1 ? "new %d\n" : "%d\n", i);
		}
	}
	buf_adds(&a, "the end, a longer last line\n");
	buf_adds(&b, "the end, a longer last line\n");
	check_git(a.data, b.data, 333, 333);
	check_git(b.data, a.data, 333, 333);
	buf_reset(&a);
	buf_reset(&b);
	buf_adds(&a, "x\nyy\n");
	buf_adds(&b, "x\n");
	for (i = 0; i < 300; i++)
		buf_addf(&b, "%d\n", i);
	buf_adds(&b, "yy\n");
	check_git(a.data, b.data, 300, 0);
	check_git(b.data, a.data, 0, 300);
	buf_release(&a), buf_release(&b);
}

/* A libgit2 allocator out of memory: every allocation fails. */
static void *
oom_malloc(size_t n, const char *file, int line)
{
	(void)n, (void)file, (void)line;
	return NULL;
}

static void *
oom_calloc(size_t nelem, size_t elsize, const char *file, int line)
{
	(void)nelem, (void)elsize, (void)file, (void)line;
	return NULL;
}

static char *
oom_strdup(const char *str, const char *file, int line)
{
	(void)str, (void)file, (void)line;
	return NULL;
}

static char *
oom_strndup(const char *str, size_t n, const char *file, int line)
{
	(void)str, (void)n, (void)file, (void)line;
	return NULL;
}

static void *
oom_realloc(void *ptr, size_t size, const char *file, int line)
{
	(void)ptr, (void)size, (void)file, (void)line;
	return NULL;
}

static void *
oom_reallocarray(void *ptr, size_t nelem, size_t elsize, const char *file, int line)
{
	(void)ptr, (void)nelem, (void)elsize, (void)file, (void)line;
	return NULL;
}

static void *
oom_mallocarray(size_t nelem, size_t elsize, const char *file, int line)
{
	(void)nelem, (void)elsize, (void)file, (void)line;
	return NULL;
}

/*
 * Issue 20: when libgit2 fails too (out of memory), the differing middle is
 * removed then added whole (approx): still a diff that applies, prefix and
 * suffix kept as context.
 */
static void
test_git_out_of_memory(void **state)
{
	static git_allocator oom = {
		oom_malloc, oom_calloc, oom_strdup, oom_strndup, oom_strndup,
		oom_realloc, oom_reallocarray, oom_mallocarray, free,
	};
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct diff d;
	char *back;
	int i;

	(void)state;
	buf_adds(&a, "head\n");
	buf_adds(&b, "head\n");
	for (i = 0; i < 300; i++) {
		buf_addf(&a, "a%d\n", i);
		buf_addf(&b, i % 2 ? "b%d\n" : "a%d\n", i);
	}
	buf_adds(&a, "tail\n");
	buf_adds(&b, "tail\n");
	git_libgit2_init();
	assert_int_equal(git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &oom), 0);
	diff_compute(&d, a.data, a.len, b.data, b.len, 3);
	assert_int_equal(git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, NULL), 0);
	git_libgit2_shutdown();
	assert_int_equal(d.approx, 1);
	assert_int_equal(d.removed, 299);
	assert_int_equal(d.added, 299);
	assert_int_equal(d.nhunks, 1);
	assert_int_equal(d.hunks[0].old_start, 1);
	assert_int_equal(d.hunks[0].old_count, 302);
	assert_int_equal(d.hunks[0].new_count, 302);
	back = apply(&d, a.data);
	assert_string_equal(back, b.data);
	free(back);
	diff_release(&d);
	buf_release(&a), buf_release(&b);
}

/* Length of the longest common subsequence of two line lists (small). */
static int
lcs(const struct lines *a, const struct lines *b)
{
	static int t[41][41];
	size_t i, j;

	for (i = 0; i <= a->count; i++)
		for (j = 0; j <= b->count; j++) {
			if (!i || !j)
				t[i][j] = 0;
			else if (a->n[i - 1] == b->n[j - 1] &&
				 !memcmp(a->p[i - 1], b->p[j - 1], a->n[i - 1]))
				t[i][j] = t[i - 1][j - 1] + 1;
			else
				t[i][j] = t[i - 1][j] > t[i][j - 1] ? t[i - 1][j] : t[i][j - 1];
		}
	return t[a->count][b->count];
}

/* A random text of up to 40 lines over a tiny alphabet. */
static void
random_text(struct buf *b, unsigned *seed)
{
	int n = rand_r(seed) % 41, i;

	buf_reset(b);
	for (i = 0; i < n; i++)
		buf_addch(b, 'a' + rand_r(seed) % 4), buf_addch(b, '\n');
	if (b->len && rand_r(seed) % 4 == 0)
		buf_setlen(b, b->len - 1);
}

static void
test_random_apply_and_minimal(void **state)
{
	static struct lines la, lb;
	struct buf a = BUF_INIT, b = BUF_INIT, u = BUF_INIT;
	struct diff d, p;
	struct err e = ERR_INIT;
	unsigned seed = 12345;
	char *back;
	int it, ctx;

	(void)state;
	for (it = 0; it < 3000; it++) {
		random_text(&a, &seed);
		random_text(&b, &seed);
		ctx = it % 4;
		diff_compute(&d, a.data, a.len, b.data, b.len, ctx);
		back = apply(&d, a.data);
		assert_string_equal(back, b.data);
		free(back);
		split(a.data, &la);
		split(b.data, &lb);
		assert_int_equal(d.added + d.removed,
				 (int)(la.count + lb.count) - 2 * lcs(&la, &lb));
		buf_reset(&u);
		diff_format(&d, "f", &u);
		assert_int_equal(diff_parse(&p, u.data, u.len, &e), 0);
		back = apply(&p, a.data);
		assert_string_equal(back, b.data);
		free(back);
		diff_release(&p);
		diff_release(&d);
	}
	buf_release(&a), buf_release(&b), buf_release(&u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_middle_change),
		cmocka_unit_test(test_new_and_deleted),
		cmocka_unit_test(test_no_newline),
		cmocka_unit_test(test_hunks_split_and_merge),
		cmocka_unit_test(test_structured),
		cmocka_unit_test(test_parse_roundtrip),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_headers_and_lines),
		cmocka_unit_test(test_size_guard),
		cmocka_unit_test(test_max_edits_boundary),
		cmocka_unit_test(test_git_middle),
		cmocka_unit_test(test_git_out_of_memory),
		cmocka_unit_test(test_random_apply_and_minimal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * base/diff: line-based unified diffs of two in-memory texts.
 *
 * diff_compute finds a shortest edit script (Myers' O(ND) algorithm after
 * trimming the common prefix and suffix) and keeps only the hunks: changed
 * lines plus `context` unchanged lines around them, hunks at most
 * 2*context unchanged lines apart (their contexts touch) merged.  When the
 * texts differ in more than DIFF_MAX_EDITS lines the search stops and
 * libgit2's buffer diff (git_patch_from_buffers, minimal Myers) gives the
 * middle's script: fast, exact on rewrites, minimal or close to it on
 * repetitive text.  Only if libgit2 fails (out of memory, or a middle past
 * its 1023 MiB limit) is the differing middle shown as removed then added
 * (still a correct diff, just not minimal; `approx`).
 * docs/architecture.md, "Diffs".
 *
 * The structured form (struct diff) is for views that colour diffs; it
 * BORROWS the texts: every diff_line.text points into the texts given to
 * diff_compute (or into the unified text given to diff_parse) and is valid
 * only while they are.  Lines compare byte-exactly, including the newline:
 * "x" at the end of a file without a final newline differs from "x\n".
 */
#ifndef HEARTH_BASE_DIFF_H
#define HEARTH_BASE_DIFF_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define DIFF_CONTEXT 3      /* default context lines */
#define DIFF_MAX_EDITS 256 /* edit distance searched before libgit2 takes over */

enum diff_kind {
	DIFF_CTX = ' ', /* unchanged, present in both */
	DIFF_DEL = '-', /* only in the old text */
	DIFF_ADD = '+'  /* only in the new text */
};

struct diff_line {
	int kind;         /* enum diff_kind */
	int old_no;       /* 1-based line number in the old text; 0 for DIFF_ADD */
	int new_no;       /* 1-based line number in the new text; 0 for DIFF_DEL */
	const char *text; /* the line without its newline (borrowed) */
	size_t len;
	int no_eol;       /* last line of its text, without a final newline */
};

struct diff_hunk {
	int old_start, old_count; /* as in "@@ -old_start,old_count ..." */
	int new_start, new_count;
	size_t first, count;      /* its lines: lines[first .. first + count) */
};

struct diff {
	struct diff_line *lines;
	size_t nlines;
	struct diff_hunk *hunks;
	size_t nhunks;
	int added, removed; /* DIFF_ADD and DIFF_DEL lines in all hunks */
	int approx;         /* replaced whole: libgit2 failed (out of memory, too large) */
};

/* Diff old text a against new text b into d (no hunks when equal; context < 0 is 0). */
void diff_compute(struct diff *d, const char *a, size_t alen, const char *b, size_t blen,
		  int context);
/* Free d's arrays (not the texts); d is left empty.  NULL-safe. */
void diff_release(struct diff *d);

/*
 * Append d as unified text: "--- a/PATH", "+++ b/PATH", then each hunk
 * ("@@ -l,n +l,n @@" and its lines, "\ No newline at end of file" after a
 * line without one).  Appends nothing when d has no hunks.
 */
void diff_format(const struct diff *d, const char *path, struct buf *out);

/*
 * Convenience: compute with DIFF_CONTEXT and append the unified text of
 * a -> b for `path` to out; added/removed counts may be NULL.
 */
void diff_unified(const char *path, const char *a, size_t alen, const char *b, size_t blen,
		  struct buf *out, int *added, int *removed);

/*
 * Structured form of unified text (as produced by diff_format; "---",
 * "+++", "diff " and other header lines are skipped).  d's texts point into
 * `text`.  0, or -1 + e on a malformed hunk header (numbers have at most
 * 9 digits, leading zeros aside) or a hunk whose line counts do not match
 * its header (d then holds the hunks read so far).
 */
int diff_parse(struct diff *d, const char *text, size_t len, struct err *e);

#endif

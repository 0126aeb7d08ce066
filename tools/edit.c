/*
 * edit: replace an exact piece of text in a file.
 *
 * The file is read whole (up to EDIT_MAX_FILE), a UTF-8 BOM is set aside,
 * and the model's old_text/new_text (which arrive with LF line ends) are
 * adapted to the file: in a file with CRLF line ends they are converted to
 * CRLF, so everything outside the replaced span is written back byte for
 * byte (mixed files keep their mix).  If the CRLF form does not occur, the
 * LF form is tried as is.  The BOM is put back in front before the atomic
 * write.  The diff shown (and stored in job->diff) is computed on the LF
 * forms, so line ends never show up as noise.
 *
 * When old_text does not occur, the error quotes the closest region of
 * the file: first a whitespace-insensitive match of old_text's lines, else
 * the line most similar (bigram Dice coefficient) to its first non-blank
 * line, with line numbers, so the model can repair its call.
 *
 * After the change is made, the syntax check (code_check) compares the file's
 * parse errors before and after: a change that adds errors gets a note
 * with their lines appended to the result, or, when env->syntax_reject is
 * set, is refused before anything is written.
 *
 * The stale-write guard (env->stale, see tools/stale.h) refuses to edit a file
 * the agent has not read, or one that changed on disk since it last read
 * or wrote it; a successful edit updates the record, so edits in a row work.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diff.h"
#include "base/fs.h"
#include "repo/repo.h"
#include "tools/stale.h"
#include "base/str.h"
#include "code/check.h"
#include "llm/tool.h"
#include "base/workspace.h"
#include "base/xmalloc.h"

#define EDIT_MAX_FILE (32u << 20)
#define EDIT_SHOW_MATCHES 10 /* line numbers listed for ambiguous matches */
#define EDIT_SIMILAR 0.5     /* least Dice score worth quoting */
#define EDIT_QUOTE_MAX 40    /* lines quoted in a candidate region */

/*
 * The call and the change it makes: edit_plan fills it from the arguments,
 * then edit_start writes body and edit_preview shows it -- one computation.
 */
struct edit {
	struct buf abs;   /* the file, resolved */
	const char *rel;  /* as shown (in abs or the workspace root) */
	struct buf raw;   /* file content without the BOM */
	int bom;
	const char *old_text, *new_text;
	int replace_all;
	struct buf body;  /* the new content, without the BOM */
	size_t count;     /* occurrences replaced */
	struct buf note;  /* what the syntax check says of body ("" = nothing) */
	int worse;        /* body adds syntax errors */
};

#define EDIT_INIT { BUF_INIT, NULL, BUF_INIT, 0, NULL, NULL, 0, BUF_INIT, 0, BUF_INIT, 0 }

static void
edit_release(struct edit *ed)
{
	buf_release(&ed->abs);
	buf_release(&ed->raw);
	buf_release(&ed->body);
	buf_release(&ed->note);
}

/* Append s with every CRLF turned into LF. */
static void
to_lf(struct buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
			buf_addch(out, s[i]);
}

/*
 * Append the LF form s (to_lf's output) with every LF turned into CRLF.  A CR
 * before an LF is text of its own there: a line ending in a stray CR
 * ("\r\r\n", a file converted twice) has the LF form "\r\n", and must
 * become "\r\r\n" again to match the file.
 */
static void
to_crlf(struct buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n')
			buf_addch(out, '\r');
		buf_addch(out, s[i]);
	}
}

/* Whether the file uses CRLF line ends (any CRLF at all). */
static int
has_crlf(const struct buf *b)
{
	const char *p = memchr(b->data, '\n', b->len);

	while (p) {
		if (p > b->data && p[-1] == '\r')
			return 1;
		p = memchr(p + 1, '\n', b->len - (size_t)(p + 1 - b->data));
	}
	return 0;
}

/* Count non-overlapping occurrences; record the first few line numbers. */
static size_t
find_all(const struct buf *hay, const struct buf *needle, long *lines, size_t max)
{
	struct str rest = str_make(hay->data, hay->len);
	size_t count = 0, scanned = 0, i;
	long line = 1, at;

	while ((at = str_find(rest, needle->data, needle->len)) >= 0) {
		for (i = scanned; i < (size_t)(rest.p - hay->data) + (size_t)at; i++)
			line += hay->data[i] == '\n';
		scanned = i;
		if (count < max)
			lines[count] = line;
		count++;
		rest.p += (size_t)at + needle->len;
		rest.len -= (size_t)at + needle->len;
	}
	return count;
}

/* Build the new content: one or every occurrence of o replaced by n. */
static void
replace(struct buf *out, const struct buf *hay, const struct buf *o, const struct buf *n,
	int all)
{
	struct str rest = str_make(hay->data, hay->len);
	long at;

	while ((at = str_find(rest, o->data, o->len)) >= 0) {
		buf_add(out, rest.p, (size_t)at);
		buf_add(out, n->data, n->len);
		rest.p += (size_t)at + o->len;
		rest.len -= (size_t)at + o->len;
		if (!all)
			break;
	}
	buf_add(out, rest.p, rest.len);
}

/* Split text into line views (no newlines); returns the count. */
static size_t
split(const char *s, size_t n, struct str **out)
{
	size_t i, start = 0, c = 0, cap = 16;
	struct str *v = xmalloc(cap * sizeof *v);

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '\n')
			continue;
		if (i == n && start == n && c > 0)
			break;
		if (c == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[c++] = str_make(s + start, i - start);
		start = i + 1;
	}
	*out = v;
	return c;
}

/* Line equality ignoring all whitespace. */
static int
eq_nows(struct str a, struct str b)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a.len && isspace((unsigned char)a.p[i]))
			i++;
		while (j < b.len && isspace((unsigned char)b.p[j]))
			j++;
		if (i == a.len || j == b.len)
			return i == a.len && j == b.len;
		if (a.p[i++] != b.p[j++])
			return 0;
	}
}

/* Order for qsort over bigram codes. */
static int
cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* Sorted character bigrams of the trimmed line (at most 512). */
static size_t
bigrams(struct str s, uint16_t *v)
{
	size_t i, n = 0;

	s = str_trim(s);
	for (i = 0; i + 1 < s.len && n < 512; i++)
		v[n++] = (uint16_t)((unsigned char)s.p[i] << 8 | (unsigned char)s.p[i + 1]);
	qsort(v, n, sizeof *v, cmp_u16);
	return n;
}

/* Dice coefficient of two sorted bigram multisets. */
static double
dice(const uint16_t *a, size_t na, const uint16_t *b, size_t nb)
{
	size_t i = 0, j = 0, common = 0;

	if (!na || !nb)
		return 0;
	while (i < na && j < nb) {
		if (a[i] == b[j])
			common++, i++, j++;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return 2.0 * (double)common / (double)(na + nb);
}

/* Quote lines [from, to) with numbers, as read shows them. */
static void
quote(struct buf *out, const struct str *lines, size_t from, size_t to)
{
	size_t i, n;

	for (i = from; i < to && i < from + EDIT_QUOTE_MAX; i++) {
		n = lines[i].len > 300 ? 300 : lines[i].len;
		while (n < lines[i].len && n > 0 && ((unsigned char)lines[i].p[n] & 0xC0) == 0x80)
			n--;
		buf_addf(out, "\n%6zu\t", i + 1);
		fs_add_utf8(out, lines[i].p, n);
		if (n < lines[i].len)
			buf_adds(out, " [...]");
	}
}

/* First region where old's lines match ignoring whitespace; returns 1 if found. */
static int
match_loose(const struct str *fl, size_t nf, const struct str *ol, size_t no, size_t *at)
{
	size_t i, j;

	for (i = 0; i + no <= nf; i++) {
		for (j = 0; j < no && eq_nows(fl[i + j], ol[j]); j++)
			;
		if (j == no) {
			*at = i;
			return 1;
		}
	}
	return 0;
}

/* The file line most similar to `want`; returns its score. */
static double
most_similar(const struct str *fl, size_t nf, struct str want, size_t *at)
{
	uint16_t a[512], b[512];
	size_t na = bigrams(want, a), nb, i;
	double best = 0, s;

	for (i = 0; i < nf; i++) {
		nb = bigrams(fl[i], b);
		s = dice(a, na, b, nb);
		if (s > best) {
			best = s;
			*at = i;
		}
	}
	return best;
}

/* Drop blank lines at both ends of old_text's lines. */
static struct str *
trim_blank(struct str *ol, size_t *no)
{
	while (*no && str_trim(ol[*no - 1]).len == 0)
		(*no)--;
	while (*no && str_trim(ol[0]).len == 0)
		ol++, (*no)--;
	return ol;
}

/* Explain a missing old_text with the closest region of the file. */
static void
explain_missing(struct buf *out, const struct edit *ed, const struct buf *lf_file,
		const struct buf *lf_old)
{
	struct str *fl, *ol0, *ol;
	size_t nf = split(lf_file->data, lf_file->len, &fl);
	size_t no = split(lf_old->data, lf_old->len, &ol0), at = 0;

	ol = trim_blank(ol0, &no);
	buf_addf(out, "old_text not found in %s", ed->rel);
	if (no && match_loose(fl, nf, ol, no, &at)) {
		buf_addf(out, "; lines %zu-%zu match it when whitespace is ignored (check "
			 "indentation, tabs and trailing spaces). The current text is:", at + 1,
			 at + no);
		quote(out, fl, at, at + no);
		buf_adds(out, "\ncopy it exactly (without the line numbers) into old_text");
	} else if (no && most_similar(fl, nf, ol[0], &at) >= EDIT_SIMILAR) {
		buf_addf(out, "; the line most like its first line is line %zu. The file around "
			 "it:", at + 1);
		quote(out, fl, at > 2 ? at - 2 : 0, at + no + 2 < nf ? at + no + 2 : nf);
		buf_adds(out, "\ncopy the exact current text (without the line numbers) into "
			 "old_text");
	} else {
		buf_addf(out, " (%zu line%s), and no similar lines either; read the file to see "
			 "its current content", nf, nf == 1 ? "" : "s");
	}
	free(fl);
	free(ol0);
}

/* The file text with the BOM and final replacement, written atomically. */
static int
commit(struct tool_job *job, const struct edit *ed)
{
	struct buf all = BUF_INIT;
	struct err e = ERR_INIT;
	int rc;

	if (ed->bom)
		buf_adds(&all, "\xEF\xBB\xBF");
	buf_add(&all, ed->body.data, ed->body.len);
	if (job->env->repo) /* so /undo can restore it, in git or not */
		repo_note_file(job->env->repo, ed->abs.data, NULL);
	rc = fs_write_beneath(job->env->root, ed->abs.data, all.data, all.len, 0, &e);
	if (rc < 0)
		tool_job_fail(job, "%s", e.msg);
	else
		tool_stale_wrote(job->env->stale, ed->abs.data, all.data, all.len);
	buf_release(&all);
	return rc;
}

/* The diff of the change, on the LF forms (line ends are never noise). */
static void
edit_diff(const struct edit *ed, struct buf *d, int *added, int *removed)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	to_lf(&a, ed->raw.data, ed->raw.len);
	to_lf(&b, ed->body.data, ed->body.len);
	diff_unified(ed->rel, a.data, a.len, b.data, b.len, d, added, removed);
	buf_release(&a);
	buf_release(&b);
}

/* Report success with the LF diff of the change and the syntax note, if any. */
static void
report(struct tool_job *job, const struct edit *ed)
{
	struct buf d = BUF_INIT;
	int added = 0, removed = 0;

	edit_diff(ed, &d, &added, &removed);
	buf_addf(&job->out, "edited %s: replaced %zu occurrence%s (+%d -%d lines)\n", ed->rel,
		 ed->count, ed->count == 1 ? "" : "s", added, removed);
	buf_add(&job->out, d.data, d.len);
	job->diff = buf_detach(&d, NULL);
	if (ed->note.len)
		buf_addf(&job->out, "%s%s\n", job->out.len && job->out.data[job->out.len - 1] ==
			 '\n' ? "" : "\n", ed->note.data);
	tool_job_done(job);
}

/* The refusal of a change that adds syntax errors (reject mode). */
static void
edit_rejected(const struct edit *ed, struct buf *why)
{
	buf_addf(why, "%s\n%s not changed: the edit would add syntax errors; fix new_text and "
		 "try again", ed->note.data, ed->rel);
}

/* Refuse an ambiguous old_text, naming where it occurs. */
static void
fail_ambiguous(struct buf *why, const struct edit *ed, size_t count, const long *lines)
{
	struct buf l = BUF_INIT;
	size_t i;

	for (i = 0; i < count && i < EDIT_SHOW_MATCHES; i++)
		buf_addf(&l, "%s%ld", i ? ", " : "", lines[i]);
	if (count > EDIT_SHOW_MATCHES)
		buf_adds(&l, ", ...");
	buf_addf(why, "old_text matches %zu times in %s (lines %s); add more surrounding "
		 "lines to old_text to make it unique, or set replace_all=true to replace "
		 "every occurrence", count, ed->rel, l.data);
	buf_release(&l);
}

/* Find, check uniqueness, replace into ed->body, syntax-check; -1 with why set. */
static int
compute(struct edit *ed, struct buf *why)
{
	struct buf lf_old = BUF_INIT, lf_new = BUF_INIT, o = BUF_INIT, n = BUF_INIT;
	struct buf lf_file = BUF_INIT;
	long lines[EDIT_SHOW_MATCHES];
	size_t count = 0;
	int crlf = has_crlf(&ed->raw), rc = -1;

	to_lf(&lf_old, ed->old_text, strlen(ed->old_text));
	to_lf(&lf_new, ed->new_text, strlen(ed->new_text));
	if (lf_old.len == lf_new.len && !memcmp(lf_old.data, lf_new.data, lf_old.len)) {
		buf_adds(why, "old_text and new_text differ only in line ends; nothing to change");
		goto out;
	}
	if (crlf) {
		to_crlf(&o, lf_old.data, lf_old.len);
		to_crlf(&n, lf_new.data, lf_new.len);
		count = find_all(&ed->raw, &o, lines, EDIT_SHOW_MATCHES);
	}
	if (count == 0) {
		buf_reset(&o), buf_reset(&n);
		buf_add(&o, lf_old.data, lf_old.len);
		buf_add(&n, lf_new.data, lf_new.len);
		count = find_all(&ed->raw, &o, lines, EDIT_SHOW_MATCHES);
	}
	if (count == 0) {
		to_lf(&lf_file, ed->raw.data, ed->raw.len);
		explain_missing(why, ed, &lf_file, &lf_old);
	} else if (count > 1 && !ed->replace_all) {
		fail_ambiguous(why, ed, count, lines);
	} else {
		replace(&ed->body, &ed->raw, &o, &n, ed->replace_all);
		ed->count = ed->replace_all ? count : 1;
		ed->worse = code_check_check(ed->rel, ed->raw.data, ed->raw.len, ed->body.data,
					     ed->body.len, &ed->note);
		rc = 0;
	}
out:
	buf_release(&lf_old), buf_release(&lf_new), buf_release(&o), buf_release(&n);
	buf_release(&lf_file);
	return rc;
}

/* Read the file (opened beneath the workspace) into ed (BOM set aside); -1 with why set. */
static int
load(struct edit *ed, const char *root, struct buf *why)
{
	struct err e = ERR_INIT;
	struct stat st;
	int fd = workspace_open(root, ed->abs.data, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, &e), rc;

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			buf_addf(why, "%s does not exist; use write to create a file", ed->rel);
		else if (errno == ENXIO) /* a socket, or a device with nothing behind it */
			buf_addf(why, "%s is not a regular file; only files can be edited", ed->rel);
		else
			buf_adds(why, e.msg);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		buf_addf(why, "%s is not a regular file; only files can be edited", ed->rel);
		return -1;
	}
	rc = buf_read_fd(&ed->raw, fd, ed->rel, EDIT_MAX_FILE, &e);
	close(fd);
	if (rc < 0) {
		buf_adds(why, e.msg);
		return -1;
	}
	if (fs_is_binary(ed->raw.data, ed->raw.len)) {
		buf_addf(why, "%s is a binary file; edit works on text files only", ed->rel);
		return -1;
	}
	ed->bom = ed->raw.len >= 3 && !memcmp(ed->raw.data, "\xEF\xBB\xBF", 3);
	if (ed->bom)
		buf_remove(&ed->raw, 0, 3);
	return 0;
}

/*
 * Everything the call would do, short of writing: check the arguments,
 * resolve the path, the stale-write guard, read the file, compute the new
 * content.  0 with ed filled; -1 with why set to the line for the model.
 */
static int
edit_plan(const cJSON *args, const struct tool_env *env, struct edit *ed, struct buf *why)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(args, "old_text");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "new_text");
	struct err e = ERR_INIT;

	if (!cJSON_IsString(path) || !cJSON_IsString(o) || !cJSON_IsString(n)) {
		buf_adds(why, "edit needs \"path\", \"old_text\" and \"new_text\" (strings)");
		return -1;
	}
	ed->old_text = o->valuestring;
	ed->new_text = n->valuestring;
	ed->replace_all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "replace_all"));
	if (!*ed->old_text) {
		buf_adds(why, "old_text is empty; quote the exact text to replace (to create a "
			 "file, use write)");
		return -1;
	}
	if (!strcmp(ed->old_text, ed->new_text)) {
		buf_adds(why, "old_text and new_text are identical; nothing to change");
		return -1;
	}
	if (workspace_resolve(env->root, env->allow_outside, path->valuestring, &ed->abs, &e) < 0) {
		buf_adds(why, e.msg);
		return -1;
	}
	ed->rel = workspace_rel(env->root, ed->abs.data);
	if (tool_stale_check(env->stale, ed->abs.data, ed->rel, "editing", &e) < 0) {
		buf_adds(why, e.msg);
		return -1;
	}
	return load(ed, env->root, why) < 0 ? -1 : compute(ed, why);
}

/* Entry point: plan the change, then refuse it (reject mode) or write it and report. */
static void
edit_start(struct tool_job *job, const cJSON *args)
{
	struct edit ed = EDIT_INIT;
	struct buf why = BUF_INIT;

	if (edit_plan(args, job->env, &ed, &why) < 0) {
		tool_job_fail(job, "%s", why.data);
	} else if (ed.worse && job->env->syntax_reject) {
		edit_rejected(&ed, &why);
		tool_job_fail(job, "%s", why.data);
	} else if (commit(job, &ed) == 0) {
		report(job, &ed);
	}
	buf_release(&why);
	edit_release(&ed);
}

/* preview: the diff edit_start would write (same plan), or why it would not. */
static int
edit_preview(const cJSON *args, const struct tool_env *env, struct buf *out)
{
	struct edit ed = EDIT_INIT;
	int rc = TOOL_PREVIEW_DIFF;

	if (!env) {
		rc = TOOL_PREVIEW_NONE;
	} else if (edit_plan(args, env, &ed, out) < 0) {
		rc = TOOL_PREVIEW_NONE;
	} else if (ed.worse && env->syntax_reject) {
		edit_rejected(&ed, out);
		rc = TOOL_PREVIEW_NONE;
	} else {
		edit_diff(&ed, out, NULL, NULL);
	}
	edit_release(&ed);
	return rc;
}

const struct tool tool_edit = {
	.name = "edit",
	.description =
		"Replace old_text with new_text in a file. old_text must match exactly "
		"(indentation too) and occur once, unless replace_all; copy it from read "
		"output without the line numbers.",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
		"\"old_text\":{\"type\":\"string\"},\"new_text\":{\"type\":\"string\"},"
		"\"replace_all\":{\"type\":\"boolean\"}},"
		"\"required\":[\"path\",\"old_text\",\"new_text\"]}",
	.flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL | TOOL_SHOWS_FILE | TOOL_EDITS | TOOL_CORE,
	.start = edit_start,
	.cancel = NULL,
	.preview = edit_preview,
	.paths = tool_path_arg,
};

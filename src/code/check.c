/*
 * code/check: compare the syntax errors of a file before and after a change.
 *
 * Both texts are parsed (code_parse) and their ERROR/MISSING nodes listed
 * (at most CODE_CHECK_SCAN each).  When the new text has more, the note names
 * the new text's errors whose line text and kind do not occur among the
 * old text's errors (so errors that only moved are not named), up to
 * CODE_CHECK_LIST_MAX.  Nothing is kept between calls.
 */
#include "code/check.h"

#include <string.h>

#include "base/str.h"
#include "code/code.h"

#define CODE_CHECK_SCAN 256
#define CODE_CHECK_QUOTE 40 /* bytes of an unparsable line quoted */

/* Errors of one text. */
struct errs {
	const char *text;
	size_t len;
	struct code_error v[CODE_CHECK_SCAN];
	size_t n, total;
};

/* Parse and list the errors of text; -1 + e when the parse was refused. */
static int
scan(const struct code_lang *lang, struct errs *x, struct err *e)
{
	struct code_tree *t;

	if (code_parse(lang, x->text, x->len, &t, e) < 0)
		return -1;
	x->total = code_errors(t, x->v, CODE_CHECK_SCAN);
	x->n = x->total < CODE_CHECK_SCAN ? x->total : CODE_CHECK_SCAN;
	code_release(t);
	return 0;
}

/* The 0-based line `row` of text, trimmed. */
static struct str
line_at(const char *text, size_t len, size_t row)
{
	size_t i = 0, start;

	while (row > 0 && i < len) {
		if (text[i++] == '\n')
			row--;
	}
	start = i;
	while (i < len && text[i] != '\n')
		i++;
	return str_trim(str_make(text + start, i - start));
}

/* Whether error k of x also occurs (same kind, same line text) in old. */
static int
seen_before(const struct errs *old, const struct errs *x, size_t k)
{
	struct str l = line_at(x->text, x->len, x->v[k].line), m;
	size_t i;

	for (i = 0; i < old->n; i++) {
		if (old->v[i].missing != x->v[k].missing || strcmp(old->v[i].what, x->v[k].what))
			continue;
		m = line_at(old->text, old->len, old->v[i].line);
		if (m.len == l.len && !memcmp(m.p, l.p, l.len))
			return 1;
	}
	return 0;
}

/* Describe one error: 'line 14: missing ";"' or 'line 20: cannot parse "..."'. */
static void
describe(struct buf *note, const struct errs *x, size_t k)
{
	struct str l = line_at(x->text, x->len, x->v[k].line);
	size_t n = l.len > CODE_CHECK_QUOTE ? CODE_CHECK_QUOTE : l.len;

	while (n < l.len && n > 0 && ((unsigned char)l.p[n] & 0xC0) == 0x80)
		n--;
	if (x->v[k].missing)
		buf_addf(note, "line %zu: missing \"%s\"", x->v[k].line + 1, x->v[k].what);
	else
		buf_addf(note, "line %zu: cannot parse \"%.*s%s\"", x->v[k].line + 1, (int)n,
			 l.p, n < l.len ? "..." : "");
}

/* Compare old and new (see code/check.h). */
int
code_check_check(const char *path, const char *old, size_t old_len, const char *new_text,
	     size_t new_len, struct buf *note)
{
	const struct code_lang *lang = code_lang_for_path(path);
	static struct errs a, b; /* large: kept off the stack; callers are single-threaded */
	struct err e = ERR_INIT;
	size_t k, listed = 0;

	if (!lang)
		return 0;
	a.text = old ? old : "", a.len = old ? old_len : 0;
	b.text = new_text, b.len = new_len;
	a.n = a.total = 0;
	if (scan(lang, &b, &e) < 0 || (b.total && a.len && scan(lang, &a, &e) < 0)) {
		buf_addf(note, "syntax check of %s skipped: %s", path, e.msg);
		return 0;
	}
	if (b.total <= a.total)
		return 0;
	buf_addf(note, "syntax check: %zu new error%s in %s", b.total - a.total,
		 b.total - a.total == 1 ? "" : "s", path);
	for (k = 0; k < b.n && listed < CODE_CHECK_LIST_MAX; k++) {
		if (seen_before(&a, &b, k))
			continue;
		buf_adds(note, listed++ ? "; " : ": ");
		describe(note, &b, k);
	}
	return 1;
}

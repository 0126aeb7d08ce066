/*
 * code/lexer: comments, literals and brace matching for the brace-language
 * prescan (see code/lexer.h).
 */
#include "code/lexer.h"

#include <string.h>

#include "base/str.h"

#define MAX_NEST 64 /* template literals inside template literals */

/* Whether c can be part of a word (UTF-8 bytes count as letters). */
int
code_lexer_is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

/* Whether c is white space. */
int
code_lexer_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Whether the n bytes at w are one of the words in list (NULL-terminated). */
int
code_lexer_word_in(const char *w, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (**list == *w && strlen(*list) == n && !memcmp(*list, w, n))
			return 1;
	return 0;
}

/* The text ran out inside a construct: give up. */
static size_t
ran_out(struct code_lexer *x)
{
	x->bad = 1;
	return x->n;
}

/* Past a quoted literal opened at i by q; an unterminated one ends at its line unless multi. */
static size_t
skip_quoted(struct code_lexer *x, size_t i, char q, int multi)
{
	x->prev = '"';
	for (i++; i < x->n; i++) {
		if (x->s[i] == '\\')
			i++;
		else if (x->s[i] == q)
			return i + 1;
		else if (x->s[i] == '\n' && !multi)
			return i;
	}
	return ran_out(x);
}

/* Past a block comment at i (nested in Rust). */
static size_t
skip_block_comment(struct code_lexer *x, size_t i)
{
	int depth = 1;

	for (i += 2; i + 1 < x->n; i++) {
		if (x->s[i] == '*' && x->s[i + 1] == '/') {
			if (--depth == 0)
				return i + 2;
			i++;
		} else if (x->fam == CODE_LEXER_RUST && x->s[i] == '/' && x->s[i + 1] == '*') {
			depth++;
			i++;
		}
	}
	return ran_out(x);
}

/* The end of the line at i (its newline, or the end of the text). */
static size_t
line_end(const struct code_lexer *x, size_t i)
{
	const char *nl = memchr(x->s + i, '\n', x->n - i);

	return nl ? (size_t)(nl - x->s) : x->n;
}

/* Past a preprocessor line at i, with its continuations and comments. */
static size_t
skip_directive(struct code_lexer *x, size_t i)
{
	while (i < x->n && x->s[i] != '\n') {
		if (x->s[i] == '\\' && i + 1 < x->n && x->s[i + 1] == '\n')
			i += 2;
		else if (x->s[i] == '\\' && i + 2 < x->n && x->s[i + 1] == '\r' && x->s[i + 2] == '\n')
			i += 3;
		else if (x->s[i] == '/' && i + 1 < x->n && x->s[i + 1] == '*')
			i = skip_block_comment(x, i);
		else if (x->s[i] == '/' && i + 1 < x->n && x->s[i + 1] == '/')
			return line_end(x, i);
		else if (x->s[i] == '"' || x->s[i] == '\'')
			i = skip_quoted(x, i, x->s[i], 0);
		else
			i++;
	}
	return i;
}

/* Past a Java text block """...""" at i. */
static size_t
skip_text_block(struct code_lexer *x, size_t i)
{
	x->prev = '"';
	for (i += 3; i + 2 < x->n; i++) {
		if (x->s[i] == '\\')
			i++;
		else if (!memcmp(x->s + i, "\"\"\"", 3))
			return i + 3;
	}
	return ran_out(x);
}

/* Past a JavaScript template literal at i, its ${...} parts scanned as code. */
static size_t
skip_template(struct code_lexer *x, size_t i)
{
	for (i++; i < x->n && !x->bad; i++) {
		if (x->s[i] == '\\')
			i++;
		else if (x->s[i] == '`') {
			x->prev = '"';
			return i + 1;
		} else if (x->s[i] == '$' && i + 1 < x->n && x->s[i + 1] == '{')
			i = code_lexer_match_brace(x, i + 2);
	}
	return ran_out(x);
}

/* Past a Go raw string at i. */
static size_t
skip_go_raw(struct code_lexer *x, size_t i)
{
	const char *e = memchr(x->s + i + 1, '`', x->n - i - 1);

	x->prev = '"';
	return e ? (size_t)(e - x->s) + 1 : ran_out(x);
}

/* Whether "/" may start a regular expression here (JavaScript), by the token before it. */
static int
regex_allowed(const struct code_lexer *x)
{
	return x->prev == 0 || x->prev_kw || strchr("(,=:[!&|?{};+-*%<>~^", x->prev);
}

/* Past a regular expression at i; one that reaches its line's end was not one. */
static size_t
skip_regex(struct code_lexer *x, size_t i)
{
	int cls = 0;

	x->prev = '"';
	for (i++; i < x->n; i++) {
		char c = x->s[i];
		if (c == '\\')
			i++;
		else if (c == '\n')
			return i;
		else if (c == '[')
			cls = 1;
		else if (c == ']')
			cls = 0;
		else if (c == '/' && !cls)
			return i + 1;
	}
	return x->n;
}

/* Past a character literal at i, or just past the quote when it starts none. */
static size_t
skip_char(struct code_lexer *x, size_t i)
{
	size_t k;

	switch (x->fam) {
	case CODE_LEXER_RUST:
		if (i + 1 < x->n && x->s[i + 1] == '\\')
			return skip_quoted(x, i, '\'', 0);
		for (k = i + 2; k < x->n && ((unsigned char)x->s[k] & 0xC0) == 0x80; k++)
			;
		if (k < x->n && x->s[k] == '\'') {
			x->prev = '"';
			return k + 1;
		}
		return i + 1; /* a lifetime or a label */
	case CODE_LEXER_CPP:
		for (k = i; k > 0 && code_lexer_is_word((unsigned char)x->s[k - 1]); k--)
			;
		if (k < i && x->s[k] >= '0' && x->s[k] <= '9')
			return i + 1; /* a digit separator: 1'000'000 */
		return skip_quoted(x, i, '\'', 0);
	default:
		return skip_quoted(x, i, '\'', 0);
	}
}

/*
 * Past a comment, literal, regular expression or directive starting at i;
 * i itself when none starts there.
 */
size_t
code_lexer_skip(struct code_lexer *x, size_t i)
{
	char c = x->s[i], d = i + 1 < x->n ? x->s[i + 1] : 0;

	switch (c) {
	case '/':
		if (d == '/')
			return line_end(x, i);
		if (d == '*')
			return skip_block_comment(x, i);
		return x->fam == CODE_LEXER_JS && regex_allowed(x) ? skip_regex(x, i) : i;
	case '"':
		if (x->fam == CODE_LEXER_JAVA && d == '"' && i + 2 < x->n && x->s[i + 2] == '"')
			return skip_text_block(x, i);
		return skip_quoted(x, i, '"', x->fam == CODE_LEXER_RUST);
	case '\'':
		return skip_char(x, i);
	case '`':
		if (x->fam == CODE_LEXER_GO)
			return skip_go_raw(x, i);
		return x->fam == CODE_LEXER_JS ? skip_template(x, i) : i;
	case '#':
		if ((x->fam == CODE_LEXER_C || x->fam == CODE_LEXER_CPP) && str_at_line_start(x->s, i))
			return skip_directive(x, i);
		return i;
	default:
		return i;
	}
}

/* Past a raw string whose prefix is the word [i, j) (C++ R"x(...)x", Rust r#"..."#); 0 if none. */
size_t
code_lexer_raw(struct code_lexer *x, size_t i, size_t j)
{
	static const char *const cpp[] = { "R", "u8R", "uR", "UR", "LR", NULL };
	static const char *const rust[] = { "r", "br", "cr", NULL };
	size_t k, d, hashes = 0;

	if (j >= x->n)
		return 0;
	if (x->fam == CODE_LEXER_CPP && x->s[j] == '"' && code_lexer_word_in(x->s + i, j - i, cpp)) {
		for (d = j + 1; d < x->n && d - j <= 17 && x->s[d] != '('; d++)
			;
		if (d >= x->n || x->s[d] != '(')
			return 0;
		for (k = d + 1; k + (d - j) < x->n; k++)
			if (x->s[k] == ')' && !memcmp(x->s + k + 1, x->s + j + 1, d - j - 1) &&
			    x->s[k + d - j] == '"') {
				x->prev = '"';
				return k + d - j + 1;
			}
		return ran_out(x);
	}
	if (x->fam != CODE_LEXER_RUST || !code_lexer_word_in(x->s + i, j - i, rust))
		return 0;
	for (k = j; k < x->n && x->s[k] == '#'; k++)
		hashes++;
	if (k >= x->n || x->s[k] != '"')
		return 0; /* r#ident */
	for (k++; k < x->n; k++) {
		for (d = 0; d < hashes && k + 1 + d < x->n && x->s[k + 1 + d] == '#'; d++)
			;
		if (x->s[k] == '"' && d == hashes) {
			x->prev = '"';
			return k + 1 + hashes;
		}
	}
	return ran_out(x);
}

/* The end of the word at i. */
size_t
code_lexer_word_end(const struct code_lexer *x, size_t i)
{
	while (i < x->n && code_lexer_is_word((unsigned char)x->s[i]))
		i++;
	return i;
}

/* Note the word [i, j) as the last token (for regular expressions). */
void
code_lexer_saw_word(struct code_lexer *x, size_t i, size_t j)
{
	static const char *const kw[] = { "return", "typeof", "case", "do", "else", "in", "of",
					  "new", "delete", "void", "throw", "yield", "await",
					  NULL };

	x->prev = 'a';
	x->prev_kw = x->fam == CODE_LEXER_JS && code_lexer_word_in(x->s + i, j - i, kw);
}

/* Bytes that may start something a brace matcher must see (all but JavaScript). */
static const unsigned char stops[256] = {
	['{'] = 1, ['}'] = 1, ['/'] = 1, ['"'] = 1, ['\''] = 1, ['`'] = 1, ['#'] = 1,
};

/* Past a raw string whose quote (or Rust "#") is at i, its prefix word just before; 0 if none. */
static size_t
raw_before(struct code_lexer *x, size_t i)
{
	size_t w = i;

	while (w > 0 && code_lexer_is_word((unsigned char)x->s[w - 1]))
		w--;
	return w < i ? code_lexer_raw(x, w, i) : 0;
}

/*
 * The index of the "}" matching a "{" just before i; the text's end with
 * bad set if none.  Outside JavaScript nothing depends on the token before
 * a byte, so runs of bytes that start nothing are stepped over at once and
 * a raw string is recognised at its quote.
 */
size_t
code_lexer_match_brace(struct code_lexer *x, size_t i)
{
	int depth = 1, fast = x->fam != CODE_LEXER_JS;
	size_t j;

	if (++x->nest > MAX_NEST)
		return ran_out(x);
	while (i < x->n && !x->bad) {
		char c;
		if (fast) {
			while (i < x->n && !stops[(unsigned char)x->s[i]])
				i++;
			if (i == x->n)
				break;
			if ((x->s[i] == '"' || x->s[i] == '#') && (j = raw_before(x, i)) != 0) {
				i = j;
				continue;
			}
		}
		c = x->s[i];
		if ((j = code_lexer_skip(x, i)) != i) {
			i = j;
			continue;
		}
		if (!fast && code_lexer_is_word((unsigned char)c)) {
			j = code_lexer_word_end(x, i);
			code_lexer_saw_word(x, i, j);
			i = j;
			continue;
		}
		if (c == '{')
			depth++;
		else if (c == '}' && --depth == 0) {
			x->nest--;
			x->prev = '}';
			return i;
		}
		if (!code_lexer_is_space(c))
			x->prev = c, x->prev_kw = 0;
		i++;
	}
	x->nest--;
	return ran_out(x);
}


/*
 * code/cpp: whether C text is C++ (see code/cpp.h).  One pass over the words,
 * comments and string or character literals stepped over, so a comment
 * saying "namespace" does not count.
 */
#include "code/cpp.h"

#include <string.h>

/* Whether c can be part of a C identifier. */
static int
c_word(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * Whether the word [i, j) of text, with what follows it, is C++ only:
 * "namespace x", "template <", "std::", an access label, constexpr, nullptr.
 */
static int
cpp_word(const char *text, size_t n, size_t i, size_t j)
{
	static const struct {
		const char *word;
		char next; /* the next non-blank byte it needs, or 0 */
	} marks[] = {
		{ "namespace", 0 }, { "template", '<' }, { "std", ':' }, { "public", ':' },
		{ "private", ':' }, { "protected", ':' }, { "constexpr", 0 }, { "nullptr", 0 },
	};
	size_t k, m;

	for (k = 0; k < sizeof marks / sizeof marks[0]; k++) {
		if (strlen(marks[k].word) != j - i || memcmp(text + i, marks[k].word, j - i))
			continue;
		for (m = j; m < n && (text[m] == ' ' || text[m] == '\t'); m++)
			;
		if (!marks[k].next || (m < n && text[m] == marks[k].next))
			return 1;
	}
	return 0;
}

/* The "/" closing a block comment whose text starts at p, or NULL. */
static const char *
str_end_comment(const char *p, size_t n)
{
	const char *q;

	while ((q = memchr(p, '*', n)) != NULL) {
		n -= (size_t)(q - p) + 1;
		p = q + 1;
		if (n && *p == '/')
			return p;
	}
	return NULL;
}

/* See code/cpp.h: one pass over the words outside comments and strings. */
int
code_cpp_is_cpp(const char *text, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		if (text[i] == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
			const char *end = text[i + 1] == '/' ? memchr(text + i, '\n', n - i)
							      : str_end_comment(text + i + 2, n - i - 2);
			i = end ? (size_t)(end - text) + 1 : n;
			continue;
		}
		if (text[i] == '"' || text[i] == '\'') {
			for (j = i + 1; j < n && text[j] != text[i] && text[j] != '\n'; j++)
				j += text[j] == '\\';
			i = j + 1;
			continue;
		}
		if (!c_word((unsigned char)text[i])) {
			i++;
			continue;
		}
		for (j = i; j < n && c_word((unsigned char)text[j]); j++)
			;
		if (j - i >= 3 && j - i <= 9 && cpp_word(text, n, i, j))
			return 1;
		i = j;
	}
	return 0;
}


/* base/str: helpers on borrowed (pointer, length) views. */
#define _GNU_SOURCE /* memmem: glibc's two-way search, the one byte search not in POSIX */
#include "base/str.h"

#include <string.h>

#include "base/xmalloc.h"

/* View of a C string. */
struct str
str_from(const char *s)
{
	struct str v = { s ? s : "", s ? strlen(s) : 0 };
	return v;
}

/* View of a byte range. */
struct str
str_make(const char *p, size_t n)
{
	struct str v = { p, n };
	return v;
}

/* Exact byte comparison against a C string. */
int
str_eq(struct str s, const char *c)
{
	size_t n = strlen(c);
	return s.len == n && (n == 0 || memcmp(s.p, c, n) == 0);
}

/* Prefix test. */
int
str_startswith(struct str s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.len >= n && memcmp(s.p, prefix, n) == 0;
}

/* Trim ASCII whitespace on both sides. */
struct str
str_trim(struct str s)
{
	while (s.len && (*s.p == ' ' || *s.p == '\t' || *s.p == '\n' || *s.p == '\r')) {
		s.p++;
		s.len--;
	}
	while (s.len && (s.p[s.len - 1] == ' ' || s.p[s.len - 1] == '\t' ||
			 s.p[s.len - 1] == '\n' || s.p[s.len - 1] == '\r'))
		s.len--;
	return s;
}

/* The first n-byte needle in hay (see base/str.h). */
const char *
str_memmem(const char *hay, size_t len, const char *needle, size_t n)
{
	return n ? memmem(hay, len, needle, n) : hay;
}

/* Naive search: views are short. */
long
str_find(struct str s, const char *needle, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	if (n > s.len)
		return -1;
	for (i = 0; i + n <= s.len; i++)
		if (s.p[i] == needle[0] && memcmp(s.p + i, needle, n) == 0)
			return (long)i;
	return -1;
}

/* Scans back over blanks to the line's start. */
int
str_at_line_start(const char *text, size_t i)
{
	while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
		i--;
	return i == 0 || text[i - 1] == '\n';
}

/* Owning copy. */
char *
str_dup(struct str s)
{
	return xstrndup(s.p ? s.p : "", s.len);
}

#include <stdlib.h>
#include <string.h>

#include "csv.h"

char *
field_copy(const char *s, size_t n)
{
	char *out = malloc(n + 1);

	if (!out)
		abort();
	memcpy(out, s, n);
	out[n] = 0;
	return out;
}

char *
field_unquote(const char *s, size_t n)
{
	char *out = malloc(n);
	size_t i, k = 0;

	if (!out)
		abort();
	for (i = 1; i + 1 < n; i++) {
		out[k++] = s[i];
	}
	out[k] = 0;
	return out;
}

int
field_needs_quotes(const char *s)
{
	return strpbrk(s, ",\"") != NULL;
}

char *
field_quote(const char *s)
{
	size_t n = strlen(s), i, k = 0;
	char *out;

	if (!field_needs_quotes(s))
		return field_copy(s, n);
	if (!(out = malloc(2 * n + 3)))
		abort();
	out[k++] = '"';
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			out[k++] = '"';
		out[k++] = s[i];
	}
	out[k++] = '"';
	out[k] = 0;
	return out;
}

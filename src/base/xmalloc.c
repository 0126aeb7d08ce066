/* base/xmalloc: OOM-checked allocation; every failure goes through fatal(). */
#include "base/xmalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* Allocate or die. */
void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory allocating %zu bytes", n);
	return p;
}

/* Zeroed allocation or die; rejects multiplication overflow. */
void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		fatal("allocation overflow (%zu x %zu)", nmemb, size);
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		fatal("out of memory allocating %zu bytes", nmemb * size);
	return p;
}

/* Resize or die. */
void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatal("out of memory reallocating %zu bytes", n);
	return q;
}

/* strdup or die; NULL passes through so optional strings copy simply. */
char *
xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

/* Copy exactly n bytes and terminate. */
char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

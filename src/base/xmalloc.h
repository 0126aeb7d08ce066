/*
 * base/xmalloc: allocators that never return NULL.  Out of memory is one of the
 * two fatal conditions (design.md §6): the caller never checks, and fatal()
 * restores the terminal before exiting.
 */
#ifndef HEARTH_BASE_XMALLOC_H
#define HEARTH_BASE_XMALLOC_H

#include <stddef.h>

/* Allocate n bytes (n == 0 allocates 1); aborts through fatal() on OOM. */
void *xmalloc(size_t n);
/* Zeroed allocation of nmemb * size with overflow check. */
void *xcalloc(size_t nmemb, size_t size);
/* Resize; p may be NULL. */
void *xrealloc(void *p, size_t n);
/* Duplicate a NUL-terminated string; NULL gives NULL. */
char *xstrdup(const char *s);
/* Duplicate n bytes and terminate with NUL. */
char *xstrndup(const char *s, size_t n);

#endif

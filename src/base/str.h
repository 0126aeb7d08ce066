/*
 * base/str: a non-owning (pointer, length) view for parsing without copies.
 * A str never owns its bytes and is valid only while the bytes it points
 * into are; it need not be NUL-terminated.
 */
#ifndef HEARTH_BASE_STR_H
#define HEARTH_BASE_STR_H

#include <stddef.h>

struct str {
	const char *p;
	size_t len;
};

#define STR_NULL ((struct str){ NULL, 0 })

/* View of a C string (NULL gives the empty view). */
struct str str_from(const char *s);
/* View of n bytes. */
struct str str_make(const char *p, size_t n);
/* Byte equality with a C string. */
int str_eq(struct str s, const char *c);
/* Whether s starts with the C string prefix. */
int str_startswith(struct str s, const char *prefix);
/* Drop leading and trailing ASCII whitespace. */
struct str str_trim(struct str s);
/* Index of the first occurrence of needle (n bytes) in s, or -1. */
long str_find(struct str s, const char *needle, size_t n);
/* The first occurrence of needle[0..n) in hay[0..len), or NULL; hay when n is 0.  Fast on
 * megabytes (glibc memmem); for searching files. */
const char *str_memmem(const char *hay, size_t len, const char *needle, size_t n);
/* Whether only spaces and tabs stand before byte i of text on its line. */
int str_at_line_start(const char *text, size_t i);
/* Malloc'd NUL-terminated copy. */
char *str_dup(struct str s);

#endif

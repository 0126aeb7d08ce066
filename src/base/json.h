/*
 * base/json: helpers around cJSON (design.md §6).
 *
 * cJSON allocates through xmalloc once json_init() has run (json_parse and
 * json_print run it themselves), so out of memory is fatal and never a
 * NULL to check.  Trees are parsed, copied into our own structs and freed
 * with cJSON_Delete in the same function; nothing here keeps a tree.
 *
 * The typed getters never crash on a wrong type or a NULL object: a key
 * that is missing or holds another type reads as absent.  Strings returned
 * by json_str are borrowed from the tree (valid until cJSON_Delete).
 *
 * json_add_escaped is the one string writer used for request bodies that
 * must be byte-for-byte stable (same input, same bytes).
 */
#ifndef HEARTH_BASE_JSON_H
#define HEARTH_BASE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"

/* Route cJSON's allocations through xmalloc/free.  Idempotent. */
void json_init(void);

/*
 * Parse exactly n bytes holding one JSON value (whitespace around it is
 * allowed, anything else after it is an error).  Returns a tree to free
 * with cJSON_Delete, or NULL with e set to
 * "invalid JSON at line L, column C: near '...'" (lines and columns count
 * from 1, columns in bytes).  A \u escape of a lone surrogate (a high one
 * without its low one, or a low one alone) reads as U+FFFD instead of
 * failing the whole document, as cJSON would.
 */
cJSON *json_parse(const char *s, size_t n, struct err *e);

/* Member `key` of object o when it is a string; NULL otherwise. */
const char *json_str(const cJSON *o, const char *key);
/* Member `key` when it is an object (json_arr: an array); NULL otherwise. */
const cJSON *json_obj(const cJSON *o, const char *key);
const cJSON *json_arr(const cJSON *o, const char *key);
/*
 * Numeric and boolean members: 0 and *out set when present with the right
 * type, -1 and *out untouched otherwise.  json_long truncates toward zero
 * and refuses values outside the range of long (and NaN/infinities).
 */
int json_long(const cJSON *o, const char *key, long *out);
int json_double(const cJSON *o, const char *key, double *out);
int json_bool(const cJSON *o, const char *key, int *out);

/*
 * Append a JSON string literal for n bytes of s, quotes included: '"' and
 * '\\' are escaped, \b \f \n \r \t use their short forms, other control
 * bytes (and DEL) become \u00XX, valid UTF-8 is copied as is, and each
 * maximal invalid UTF-8 subsequence becomes \ufffd.  Deterministic.
 */
void json_add_escaped(struct buf *b, const char *s, size_t n);

/*
 * Length (1-4) of the well-formed UTF-8 sequence at s (n > 0 bytes
 * available), or 0 when the bytes there are ill-formed or truncated.
 */
size_t json_utf8_len(const char *s, size_t n);

/* Unformatted text of o (malloc'd; free() it).  NULL only when o is NULL. */
char *json_print(const cJSON *o);

#endif

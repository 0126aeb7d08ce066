/*
 * base/json: cJSON hooks, a parse wrapper that says where the syntax error is,
 * typed getters and a deterministic string escaper.
 *
 * The only state is `hooked`, set once the xmalloc hooks are installed.
 * Error positions come from cJSON's return_parse_end (the same position
 * cJSON_GetErrorPtr reports, without the global).
 */
#include "base/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

#define NEAR_MAX 24 /* bytes of context quoted in a syntax error */

static int hooked;

/* free() with cJSON's hook signature. */
static void
hook_free(void *p)
{
	free(p);
}

/* Make cJSON's out-of-memory fatal like every other allocation. */
void
json_init(void)
{
	cJSON_Hooks h = { xmalloc, hook_free };

	if (hooked)
		return;
	cJSON_InitHooks(&h);
	hooked = 1;
}

/* Whether c is JSON insignificant whitespace. */
static int
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Describe the syntax error at byte pos of s as line, column and context. */
static void
parse_error(const char *s, size_t n, size_t pos, struct err *e)
{
	size_t i, line = 1, col = 1;
	char near[NEAR_MAX + 1];
	size_t k = 0;

	if (pos > n)
		pos = n;
	for (i = 0; i < pos; i++) {
		col++;
		if (s[i] == '\n') {
			line++;
			col = 1;
		}
	}
	for (i = pos; i < n && k < NEAR_MAX && s[i] != '\n'; i++)
		near[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	near[k] = '\0';
	if (k == 0)
		err_set(e, "invalid JSON at line %zu, column %zu: unexpected end of input",
			line, col);
	else
		err_set(e, "invalid JSON at line %zu, column %zu: near '%s'", line, col, near);
}

/* The value of the 4 hex digits at s, or -1. */
static long
hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * A copy of s in which every \u escape of a lone surrogate (a high one not
 * followed by a \u escape of a low one, or a low one on its own) reads
 * \ufffd, which cJSON accepts (it refuses the whole document otherwise);
 * NULL when s has none.  The replacement has the same length, so byte
 * positions (and parse errors) stay where they were.
 */
static char *
json_fix_surrogates(const char *s, size_t n)
{
	char *fixed = NULL;
	size_t i = 0;

	while (i + 1 < n) {
		long hi, lo = -1;

		if (s[i] != '\\') {
			i++;
			continue;
		}
		if (s[i + 1] != 'u' || i + 6 > n || (hi = hex4(s + i + 2)) < 0xd800 || hi > 0xdfff) {
			i += 2; /* another escape (or not a surrogate): skip it whole, so \\u stays */
			continue;
		}
		if (hi <= 0xdbff && i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u')
			lo = hex4(s + i + 8);
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			i += 12; /* a proper pair */
			continue;
		}
		if (!fixed) {
			fixed = xmalloc(n);
			memcpy(fixed, s, n);
		}
		memcpy(fixed + i + 2, "fffd", 4);
		i += 6;
	}
	return fixed;
}

/* Parse one complete value occupying all of s (modulo whitespace). */
cJSON *
json_parse(const char *s, size_t n, struct err *e)
{
	const char *end = NULL;
	char *fixed;
	cJSON *v;
	size_t pos;

	json_init();
	if (!s)
		s = "";
	fixed = json_fix_surrogates(s, n);
	v = n ? cJSON_ParseWithLengthOpts(fixed ? fixed : s, n, &end, 0) : NULL;
	if (fixed) { /* report positions against s */
		if (end)
			end = s + (end - fixed);
		free(fixed);
	}
	if (!v) {
		pos = end && end >= s ? (size_t)(end - s) : 0;
		parse_error(s, n, pos, e);
		return NULL;
	}
	pos = (size_t)(end - s);
	while (pos < n && is_ws(s[pos]))
		pos++;
	if (pos < n) {
		parse_error(s, n, pos, e);
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

/* Member lookup that tolerates NULL and non-objects. */
static const cJSON *
member(const cJSON *o, const char *key)
{
	if (!cJSON_IsObject(o) || !key)
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* String member or NULL. */
const char *
json_str(const cJSON *o, const char *key)
{
	const cJSON *v = member(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Object member or NULL. */
const cJSON *
json_obj(const cJSON *o, const char *key)
{
	const cJSON *v = member(o, key);

	return cJSON_IsObject(v) ? v : NULL;
}

/* Array member or NULL. */
const cJSON *
json_arr(const cJSON *o, const char *key)
{
	const cJSON *v = member(o, key);

	return cJSON_IsArray(v) ? v : NULL;
}

/* Integer member: refuses non-numbers and values long cannot hold. */
int
json_long(const cJSON *o, const char *key, long *out)
{
	double d;

	if (json_double(o, key, &d) < 0 || !isfinite(d))
		return -1;
	/* 2^63 is exact as a double; LONG_MAX is not. */
	if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
		return -1;
	if (sizeof(long) < 8 && (d > 2147483647.0 || d < -2147483648.0))
		return -1;
	*out = (long)d;
	return 0;
}

/* Number member. */
int
json_double(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = member(o, key);

	if (!cJSON_IsNumber(v))
		return -1;
	*out = v->valuedouble;
	return 0;
}

/* Boolean member (true/false only; 0 and 1 are not booleans). */
int
json_bool(const cJSON *o, const char *key, int *out)
{
	const cJSON *v = member(o, key);

	if (!cJSON_IsBool(v))
		return -1;
	*out = cJSON_IsTrue(v) ? 1 : 0;
	return 0;
}

/*
 * Length of the well-formed UTF-8 sequence at s (n > 0 bytes left), or 0
 * with *skip set to the maximal ill-formed subpart (Unicode §3.9 U+FFFD
 * substitution: one replacement per maximal subpart).
 */
static size_t
utf8_seq(const unsigned char *s, size_t n, size_t *skip)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t need, i;

	*skip = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		need = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		need = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	for (i = 1; i < need; i++) {
		if (i >= n || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF)) {
			*skip = i;
			return 0;
		}
	}
	return need;
}

/* Public form of utf8_seq for sanitisers elsewhere. */
size_t
json_utf8_len(const char *s, size_t n)
{
	size_t skip;

	return n ? utf8_seq((const unsigned char *)s, n, &skip) : 0;
}

/* Escape one ASCII byte that JSON forbids raw (or that we keep visible). */
static void
add_escape(struct buf *b, unsigned char c)
{
	switch (c) {
	case '"': buf_add(b, "\\\"", 2); break;
	case '\\': buf_add(b, "\\\\", 2); break;
	case '\b': buf_add(b, "\\b", 2); break;
	case '\f': buf_add(b, "\\f", 2); break;
	case '\n': buf_add(b, "\\n", 2); break;
	case '\r': buf_add(b, "\\r", 2); break;
	case '\t': buf_add(b, "\\t", 2); break;
	default: buf_addf(b, "\\u%04x", c); break;
	}
}

/* Write s as a JSON string literal; runs of plain bytes are copied at once. */
void
json_add_escaped(struct buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, len, skip;

	buf_grow(b, n + 2);
	buf_addch(b, '"');
	while (i < n) {
		unsigned char c = u[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		buf_add(b, s + run, i - run);
		if (c < 0x80) {
			add_escape(b, c);
			i++;
		} else if ((len = utf8_seq(u + i, n - i, &skip)) > 0) {
			buf_add(b, s + i, len);
			i += len;
		} else {
			buf_add(b, "\\ufffd", 6);
			i += skip;
		}
		run = i;
	}
	buf_add(b, s + run, i - run);
	buf_addch(b, '"');
}

/* cJSON_PrintUnformatted through our allocator. */
char *
json_print(const cJSON *o)
{
	char *s;

	if (!o)
		return NULL;
	json_init();
	s = cJSON_PrintUnformatted(o);
	if (!s)
		fatal("out of memory printing JSON");
	return s;
}

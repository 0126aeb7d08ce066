/* base/sanitize: terminal- and JSON-safe text (see base/sanitize.h). */
#include "base/sanitize.h"

#include <stdio.h>

/* Decode the length of one well-formed UTF-8 sequence (RFC 3629 rules). */
size_t
sanitize_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0; /* overlong or surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* Shared walker: `term` selects the terminal escapes. */
static void
sanitize_walk(struct buf *out, const char *str, size_t n, int term)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;

	buf_grow(out, n);
	while (i < n) {
		k = sanitize_utf8_len(s + i, n - i);
		if (!k) {
			buf_adds(out, "\xef\xbf\xbd");
			i++;
			continue;
		}
		if (term && k == 1 && (s[i] < 0x20 || s[i] == 0x7f) && s[i] != '\n' && s[i] != '\t') {
			buf_addch(out, '^');
			buf_addch(out, s[i] == 0x7f ? '?' : s[i] + 0x40);
		} else if (term && k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0) {
			buf_addf(out, "<U+%04X>", s[i + 1]);
		} else {
			buf_add(out, s + i, k);
		}
		i += k;
	}
}

/* Terminal-safe copy. */
void
sanitize_term(struct buf *out, const char *s, size_t n)
{
	sanitize_walk(out, s, n, 1);
}

/* UTF-8 repair only. */
void
sanitize_utf8(struct buf *out, const char *s, size_t n)
{
	sanitize_walk(out, s, n, 0);
}

/* Rewrite C2 80..C2 9F as \u00XX (they only occur inside JSON strings). */
void
sanitize_json_c1(struct buf *json)
{
	size_t i;
	char esc[8];

	for (i = 0; i + 1 < json->len; i++) {
		unsigned char a = (unsigned char)json->data[i], b = (unsigned char)json->data[i + 1];

		if (a == 0xc2 && b >= 0x80 && b < 0xa0) {
			snprintf(esc, sizeof esc, "\\u%04x", b);
			buf_remove(json, i, 2);
			buf_insert(json, i, esc, 6);
			i += 5;
		}
	}
}

/*
 * fuzz_sanitize: libFuzzer harness for base/sanitize.  For any bytes:
 * sanitize_term's output is valid UTF-8 with no C0 byte but '\n' and '\t',
 * no DEL and no C1 code point; sanitize_utf8's output is valid UTF-8 and
 * equals the input when that was valid; sanitize_json_c1 leaves no C1
 * code point; sanitize_utf8_len agrees with a strict UTF-8 reader; no
 * output is longer than a fixed multiple of its input.
 *
 * dict: "\xc2\x80"
 * dict: "\xc2\x9f"
 * dict: "\xed\xa0\x80"
 * dict: "\xf4\x90\x80\x80"
 * dict: "\xe0\x80\x80"
 * dict: "\x1b["
 * dict: "\xef\xbf\xbd"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 if valid UTF-8 s[0..n) holds a code point in U+0080..U+009F. */
static int
has_c1(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct buf out = BUF_INIT;
	size_t i, k;

	/* Terminal-safe copy. */
	sanitize_term(&out, s, size);
	FUZZ_CHECK(out.len <= 4 * size);
	FUZZ_CHECK(fuzz_utf8_valid(out.data, out.len));
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.data[i];

		FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t');
		FUZZ_CHECK(c != 0x7f);
	}
	FUZZ_CHECK(!has_c1((const unsigned char *)out.data, out.len));
	buf_reset(&out);

	/* Valid-UTF-8 copy. */
	sanitize_utf8(&out, s, size);
	FUZZ_CHECK(out.len <= 3 * size);
	FUZZ_CHECK(fuzz_utf8_valid(out.data, out.len));
	if (fuzz_utf8_valid(s, size))
		FUZZ_CHECK(out.len == size && !memcmp(out.data, s, size));

	/* C1 escapes in place, on the valid copy. */
	k = out.len;
	sanitize_json_c1(&out);
	FUZZ_CHECK(out.len <= 3 * k);
	FUZZ_CHECK(!has_c1((const unsigned char *)out.data, out.len));
	FUZZ_CHECK(fuzz_utf8_valid(out.data, out.len));
	buf_release(&out);

	/* The sequence-length reader against a strict one. */
	for (i = 0; i < size; i++) {
		k = sanitize_utf8_len(data + i, size - i);
		FUZZ_CHECK(k == fuzz_utf8_seq(data + i, size - i));
	}
	return 0;
}

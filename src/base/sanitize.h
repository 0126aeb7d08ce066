/*
 * base/sanitize: make text from the model or tools safe for where it goes.
 * Nothing from a model ever reaches a terminal raw (design.md §7): control
 * bytes and C1 codes become visible escapes, invalid UTF-8 becomes U+FFFD.
 */
#ifndef HEARTH_BASE_SANITIZE_H
#define HEARTH_BASE_SANITIZE_H

#include <stddef.h>

#include "base/buf.h"

/*
 * Terminal-safe copy appended to out: keeps printable UTF-8, '\n' and
 * '\t'; other C0 bytes become ^X (ESC → ^[), DEL → ^?, C1 code points
 * (U+0080–U+009F) → <U+XXXX>, invalid UTF-8 → U+FFFD.
 */
void sanitize_term(struct buf *out, const char *s, size_t n);
/* Valid-UTF-8 copy (invalid sequences → U+FFFD), nothing else changed. */
void sanitize_utf8(struct buf *out, const char *s, size_t n);
/*
 * Escape C1 code points inside JSON text as \u0080–\u009f, so JSON output
 * is lossless but holds no byte a terminal would act on.  In place.
 */
void sanitize_json_c1(struct buf *json);
/* Length of the valid UTF-8 sequence at s (1–4), or 0 if invalid/truncated. */
size_t sanitize_utf8_len(const unsigned char *s, size_t n);

#endif

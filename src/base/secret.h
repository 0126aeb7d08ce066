/*
 * base/secret: the secrets hearth holds, masked wherever text from a
 * child or a tool could carry them (issue 13 item 3).
 *
 * The set: the value of every secret-named variable (env_name_is_secret)
 * in hearth's environment when secret_capture ran, and what secret_add
 * registers (the Anthropic key from the settings file).  Values shorter
 * than SECRET_MIN_LEN bytes are not kept: masking "abc" everywhere would
 * garble ordinary output, and so short a value is no real credential.
 *
 * secret_mask replaces every occurrence of a value, byte for byte, by
 * "[redacted NAME]"; longer values first, so a value that contains another
 * is masked whole.  The agent calls it on every tool result before the
 * result goes anywhere (agent/tools.c): the conversation, the screen, the
 * session file, requests to any server, exports.
 *
 * State: process-wide, filled on the loop thread at start (secret_capture,
 * secret_add) and read afterwards; secret_reset empties it (tests, exit).
 */
#ifndef HEARTH_BASE_SECRET_H
#define HEARTH_BASE_SECRET_H

#include <stddef.h>

#include "base/buf.h"

#define SECRET_MIN_LEN 8

/* Add the values of the secret-named variables of env (NULL: environ). */
void secret_capture(const char *const *env);
/* Add one value under a label ("anthropic.api_key"); short or NULL values are ignored. */
void secret_add(const char *label, const char *value);
/* How many values are held. */
size_t secret_count(void);
/* Mask every held value in b; returns how many occurrences were replaced. */
size_t secret_mask(struct buf *b);
/* Mask in a malloc'd NUL-terminated string (may be reallocated); returns the count. */
size_t secret_mask_str(char **s);
/* Forget every value (wiping them first). */
void secret_reset(void);

#endif

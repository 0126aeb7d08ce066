/*
 * base/secret: the masked values (see base/secret.h).  A small array kept
 * sorted by length, longest first; masking scans once per value
 * (str_find), so a result costs O(values x length).
 */
#include "base/secret.h"

#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/str.h"
#include "base/xmalloc.h"

extern char **environ;

struct secret {
	char *label;
	char *value;
	size_t len;
};

static struct secret *secret_v;
static size_t secret_n;

/* Add label=value unless short or already held. */
void
secret_add(const char *label, const char *value)
{
	size_t len = value ? strlen(value) : 0, i;

	if (len < SECRET_MIN_LEN)
		return;
	for (i = 0; i < secret_n; i++)
		if (secret_v[i].len == len && !memcmp(secret_v[i].value, value, len))
			return;
	for (i = 0; i < secret_n && secret_v[i].len >= len; i++)
		;
	secret_v = xrealloc(secret_v, (secret_n + 1) * sizeof *secret_v);
	memmove(&secret_v[i + 1], &secret_v[i], (secret_n - i) * sizeof *secret_v);
	secret_v[i].label = xstrdup(label ? label : "secret");
	secret_v[i].value = xstrdup(value);
	secret_v[i].len = len;
	secret_n++;
}

/* The environment's secrets. */
void
secret_capture(const char *const *env)
{
	size_t i;

	if (!env)
		env = (const char *const *)environ;
	for (i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (!eq || !env_name_is_secret(env[i]))
			continue;
		name = xstrndup(env[i], (size_t)(eq - env[i]));
		secret_add(name, eq + 1);
		free(name);
	}
}

/* How many. */
size_t
secret_count(void)
{
	return secret_n;
}

/* Mask one value in b; the count. */
static size_t
secret_mask_one(struct buf *b, const struct secret *s)
{
	struct buf out = BUF_INIT;
	size_t pos = 0, n = 0;
	long at;

	if (!b->data || b->len < s->len)
		return 0;
	while ((at = str_find(str_make(b->data + pos, b->len - pos), s->value, s->len)) >= 0) {
		buf_add(&out, b->data + pos, (size_t)at);
		buf_addf(&out, "[redacted %s]", s->label);
		pos += (size_t)at + s->len;
		n++;
	}
	if (!n)
		return 0;
	buf_add(&out, b->data + pos, b->len - pos);
	memset(b->data, 0, b->len); /* the old text held the secret */
	buf_release(b);
	*b = out;
	return n;
}

/* Mask all. */
size_t
secret_mask(struct buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < secret_n; i++)
		n += secret_mask_one(b, &secret_v[i]);
	return n;
}

/* Mask a malloc'd string. */
size_t
secret_mask_str(char **s)
{
	struct buf b = BUF_INIT;
	size_t n;

	if (!*s || !secret_n)
		return 0;
	buf_adds(&b, *s);
	n = secret_mask(&b);
	if (n) {
		memset(*s, 0, strlen(*s));
		free(*s);
		*s = buf_detach(&b, NULL);
	} else {
		buf_release(&b);
	}
	return n;
}

/* Forget all. */
void
secret_reset(void)
{
	size_t i;

	for (i = 0; i < secret_n; i++) {
		memset(secret_v[i].value, 0, secret_v[i].len);
		free(secret_v[i].value);
		free(secret_v[i].label);
	}
	free(secret_v);
	secret_v = NULL;
	secret_n = 0;
}

#include "map.h"

#include <stdlib.h>
#include <string.h>

#define MAP_MIN 8

static size_t
hash(const char *s)
{
	size_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static char *
dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (!p)
		abort();
	return memcpy(p, s, n);
}

void
map_init(struct map *m)
{
	m->cap = MAP_MIN;
	m->len = m->used = 0;
	if (!(m->slots = calloc(m->cap, sizeof *m->slots)))
		abort();
}

void
map_free(struct map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->slots[i].key);
		free(m->slots[i].value);
	}
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = m->used = 0;
}

/* The slot holding key, or -1. */
static long
find(const struct map *m, const char *key)
{
	size_t i = hash(key) % m->cap, n;

	for (n = 0; n < m->cap; n++, i = (i + 1) % m->cap) {
		const struct map_slot *s = &m->slots[i];

		if (!s->key && !s->tomb)
			return -1; /* the end of the chain */
		if (s->key && strcmp(s->key, key) == 0)
			return (long)i;
	}
	return -1;
}

static void
grow(struct map *m)
{
	struct map_slot *old = m->slots;
	size_t oldcap = m->cap, i;

	m->cap = oldcap * 2;
	if (!(m->slots = calloc(m->cap, sizeof *m->slots)))
		abort();
	m->used = m->len;
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		j = hash(old[i].key) % oldcap;
		while (m->slots[j].key)
			j = (j + 1) % m->cap;
		m->slots[j] = old[i];
	}
	free(old);
}

void
map_set(struct map *m, const char *key, const char *value)
{
	long at = find(m, key);
	size_t i;

	if (at >= 0) {
		free(m->slots[at].value);
		m->slots[at].value = dup(value);
		return;
	}
	if ((m->used + 1) * 10 > m->cap * 7)
		grow(m);
	i = hash(key) % m->cap;
	while (m->slots[i].key)
		i = (i + 1) % m->cap;
	if (!m->slots[i].tomb)
		m->used++;
	m->slots[i].key = dup(key);
	m->slots[i].value = dup(value);
	m->slots[i].tomb = 0;
	m->len++;
}

const char *
map_get(const struct map *m, const char *key)
{
	long at = find(m, key);

	return at >= 0 ? m->slots[at].value : NULL;
}

int
map_del(struct map *m, const char *key)
{
	long at = find(m, key);

	if (at < 0)
		return 0;
	free(m->slots[at].key);
	free(m->slots[at].value);
	m->slots[at].key = m->slots[at].value = NULL;
	m->len--;
	return 1;
}

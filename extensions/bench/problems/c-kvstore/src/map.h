/*
 * map: string -> string hash map, open addressing with linear probing.
 * A removed entry leaves a tombstone so the probe chains through it stay
 * intact; the table doubles when live entries + tombstones pass 70%.
 * Keys and values are copied.
 */
#ifndef MAP_H
#define MAP_H
#include <stddef.h>

struct map_slot {
	char *key;     /* NULL: empty (or a tombstone when tomb is set) */
	char *value;
	int tomb;
};

struct map {
	struct map_slot *slots;
	size_t cap, len, used; /* used: live + tombstones */
};

void map_init(struct map *m);
void map_free(struct map *m);
/* Set key to value (replacing). */
void map_set(struct map *m, const char *key, const char *value);
/* The value, or NULL. */
const char *map_get(const struct map *m, const char *key);
/* 1 when key was there and is removed, 0 when not there. */
int map_del(struct map *m, const char *key);
#endif

/*
 * arena: bump allocation for short-lived data with one of two lifetimes
 * (per frame, per turn; design.md §6).  Everything is freed at once by
 * arena_reset() / arena_release(); nothing longer-lived may point into it.
 */
#ifndef HEARTH_ARENA_H
#define HEARTH_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t used_total; /* bytes handed out since the last reset, for stats */
};

#define ARENA_INIT { NULL, 0 }

/* Allocate n bytes aligned for any type; never NULL (fatal on OOM). */
void *arena_alloc(struct arena *a, size_t n);
/* Copy a string (n bytes + NUL) into the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Forget every allocation but keep the first block for reuse. */
void arena_reset(struct arena *a);
/* Free everything. */
void arena_release(struct arena *a);

#endif

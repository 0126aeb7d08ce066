/*
 * arena: a singly-linked list of blocks, newest first.  Requests larger
 * than the default block size get a block of their own.
 */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "xmalloc.h"

#define ARENA_BLOCK 16384

struct arena_block {
	struct arena_block *next;
	size_t size, used;
	alignas(max_align_t) unsigned char mem[];
};

/* Bump-allocate, starting a new block when the current one is full. */
void *
arena_alloc(struct arena *a, size_t n)
{
	const size_t align = alignof(max_align_t);
	struct arena_block *b = a->head;
	size_t off;

	if (n > SIZE_MAX - align - sizeof *b)
		fatal("arena allocation overflow");
	off = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || off + n > b->size) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
		off = 0;
	}
	b->used = off + n;
	a->used_total += n;
	return b->mem + off;
}

/* Arena-owned string copy. */
char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Drop all but the oldest block so steady-state turns do not malloc. */
void
arena_reset(struct arena *a)
{
	struct arena_block *b = a->head, *next;

	while (b && b->next) {
		next = b->next;
		free(b);
		b = next;
	}
	if (b)
		b->used = 0;
	a->head = b;
	a->used_total = 0;
}

/* Free every block. */
void
arena_release(struct arena *a)
{
	arena_reset(a);
	free(a->head);
	a->head = NULL;
}

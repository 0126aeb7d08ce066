/*
 * llama/slotmap: which hearth session last left which slot of a server, kept
 * across runs in a small JSON file of the state directory, and the slot
 * choice made from it (docs/cache.md "Slot choice").
 *
 * /slots tells neither whose prompt a slot holds nor its text (only with the
 * server's debug switch), so hearth writes down, at exit, the slot its session
 * used with the slot's id_task and n_prompt_tokens.  A slot whose id_task and
 * size still match the record holds what that hearth session left: the
 * session's whole conversation, and for every hearth session the shared
 * system prompt and tools (the session part is in the first user message).
 *
 * The file also counts, per server, restores of slot files that paid (the
 * next request reused at least half of what was restored) and that did not;
 * after two misses and no hit hearth stops restoring on that server.
 *
 * The file is a hint: a missing or broken one is an empty map, concurrent
 * writers may lose an entry (rewritten atomically, never torn).
 */
#ifndef HEARTH_LLAMA_SLOTMAP_H
#define HEARTH_LLAMA_SLOTMAP_H

#include <stddef.h>

#include "base/err.h"
#include "llama/wire.h"

struct llama_slotmap_entry {
	int slot;
	char session[96];
	long task;       /* the slot's id_task when the session left it */
	long tokens;     /* its n_prompt_tokens then */
	long long t;     /* when (seconds since the epoch) */
};

struct llama_slotmap {
	struct llama_slotmap_entry *v;
	size_t n;
	int restore_hits;
	int restore_misses;
	int no_slot_files;  /* the server answered that it keeps no slot files (no --slot-save-path) */
};

/* Read server's part of the file at path (missing or unreadable: empty map). */
void llama_slotmap_load(const char *path, const char *server, struct llama_slotmap *m);
void llama_slotmap_release(struct llama_slotmap *m);
/*
 * Record that session left slot with (task, tokens) at time t, and add a
 * restore verdict (restore: 1 paid, -1 missed, 0 none) and whether the server
 * keeps slot files (files: 1, 0, -1 unknown): read-modify-write of
 * path, atomically replaced.  0 or -1 + e.
 */
int llama_slotmap_note(const char *path, const char *server, int slot, const char *session, long task,
		       long tokens, long long t, int restore, int files, struct err *e);
/* Restores are known not to pay on this server (>= 2 misses, no hit). */
int llama_slotmap_restores_useless(const struct llama_slotmap *m);

enum llama_slotmap_why {
	LLAMA_SLOTMAP_NONE,     /* no idle slot: any */
	LLAMA_SLOTMAP_LIVE,     /* the session's own slot, untouched since it left */
	LLAMA_SLOTMAP_SHARED,   /* a slot another hearth session left: the shared prefix */
	LLAMA_SLOTMAP_EMPTY,    /* a slot that never ran a task */
	LLAMA_SLOTMAP_OTHER,    /* least cached slot of another client */
};

/*
 * The slot choice rule, pure.  session: this session's id ("" when new);
 * restoring: the session's slot file will be restored into the slot (so an
 * empty slot is best: nothing is evicted).  Otherwise the slot with the
 * longest cached prefix of the next request wins: the session's own live
 * slot, else a slot another hearth session left (least recently used first),
 * else an empty one, else the least cached one.  Busy slots are skipped.
 * Returns the slot id or -1; *why says which rule chose it.
 */
int llama_slotmap_choose(const struct llama_slotmap *m, const char *session, int restoring,
			 const struct llama_slot *slots, size_t n, enum llama_slotmap_why *why);

#endif

/*
 * kv: a key-value store driven by text commands.  Replies:
 *   SET key value   -> OK
 *   GET key         -> the value, or (nil)
 *   DEL key         -> 1 or 0
 *   COUNT           -> the number of keys
 *   INCR key        -> the new value: a missing key counts as 0; a value that is not
 *                      a whole number (optional '-', digits) -> ERR not an integer
 *   anything else   -> ERR unknown command; wrong word count -> ERR wrong arguments;
 *                      a bad line -> ERR syntax
 * Commands are case-insensitive; keys and values are not.
 */
#ifndef KV_H
#define KV_H
#include "map.h"

/* The reply to one command line (malloc'd). */
char *kv_exec(struct map *m, const char *line);
#endif

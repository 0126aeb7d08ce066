/*
 * pmjson: the JSON pieces of print mode's output (pmode), pure.
 *
 * Every string that goes into a cJSON value passes sanitize_utf8 first, so
 * the lines pmode prints are valid UTF-8; the stderr summary of a call
 * passes sanitize_term.
 *
 * Ownership: returned cJSON values belong to the caller (cJSON_Delete, or
 * add them to an object); the functions that add to an object or a buf
 * only append.
 */
#ifndef HEARTH_PMJSON_H
#define HEARTH_PMJSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "buf.h"
#include "microcompact.h"

/* Add member key to o: the string s (n bytes; NULL = ""), made valid UTF-8. */
void pmjson_add_str(cJSON *o, const char *key, const char *s, size_t n);
/* A new object {"type": type, "subtype": subtype} (no subtype when NULL). */
cJSON *pmjson_obj(const char *type, const char *subtype);
/* Tool arguments as a JSON value: parsed, or the raw text as a string when not JSON. */
cJSON *pmjson_input(const char *args, size_t n);
/* Append to out the call's name and its first string argument (first line, 80 bytes at most). */
void pmjson_call_summary(const struct agent_call *c, struct buf *out);
/* Add o.microcompact: events, digested, bytes before/after, and ratio (null when nothing). */
void pmjson_microcompact(cJSON *o, const struct microcompact_stats *mc);

#endif

/*
 * front/output_json: the JSON pieces of print mode's output (front_output), pure.
 *
 * Every string that goes into a cJSON value passes sanitize_utf8 first, so
 * the lines front_output prints are valid UTF-8; the stderr summary of a call
 * passes sanitize_term.
 *
 * Ownership: returned cJSON values belong to the caller (cJSON_Delete, or
 * add them to an object); the functions that add to an object or a buf
 * only append.
 */
#ifndef HEARTH_FRONT_OUTPUT_JSON_H
#define HEARTH_FRONT_OUTPUT_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "base/buf.h"
#include "agent/microcompact.h"

/* Add member key to o: the string s (n bytes; NULL = ""), made valid UTF-8. */
void front_output_json_add_str(cJSON *o, const char *key, const char *s, size_t n);
/* A new object {"type": type, "subtype": subtype} (no subtype when NULL). */
cJSON *front_output_json_obj(const char *type, const char *subtype);
/* Tool arguments as a JSON value: parsed, or the raw text as a string when not JSON. */
cJSON *front_output_json_input(const char *args, size_t n);
/* Append to out the call's name and its header (struct tool.describe: first line, 80 bytes at most). */
void front_output_json_call_summary(const struct agent_call *c, struct buf *out);
/* Add o.agent_microcompact: events, digested, bytes before/after, and ratio (null when nothing). */
void front_output_json_microcompact(cJSON *o, const struct agent_microcompact_stats *mc);

#endif

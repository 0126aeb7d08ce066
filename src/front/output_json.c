/*
 * front/output_json: the JSON pieces of print mode's output (pure; see front/output_json.h).
 */
#include "front/output_json.h"

#include <string.h>

#include "base/json.h"
#include "base/sanitize.h"
#include "llm/tool.h"

/* Add a sanitised UTF-8 string member. */
void
front_output_json_add_str(cJSON *o, const char *key, const char *s, size_t n)
{
	struct buf b = BUF_INIT;

	sanitize_utf8(&b, s ? s : "", s ? n : 0);
	cJSON_AddStringToObject(o, key, b.data);
	buf_release(&b);
}

/* A new line of JSON with type (and subtype). */
cJSON *
front_output_json_obj(const char *type, const char *subtype)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", type);
	if (subtype)
		cJSON_AddStringToObject(o, "subtype", subtype);
	return o;
}

/* Tool arguments as a JSON value (the raw text when it is not JSON). */
cJSON *
front_output_json_input(const char *args, size_t n)
{
	cJSON *v = json_parse(args, n, NULL);

	if (!v) {
		struct buf b = BUF_INIT;

		sanitize_utf8(&b, args, n);
		v = cJSON_CreateString(b.data);
		buf_release(&b);
	}
	return v;
}

/* Short description of a call's arguments for stderr: the first string value. */
void
front_output_json_call_summary(const struct agent_call *c, struct buf *out)
{
	cJSON *v = json_parse(c->args.data, c->args.len, NULL);
	struct buf d = BUF_INIT;

	buf_adds(out, c->name);
	if (cJSON_IsObject(v))
		tool_describe(c->tool ? c->tool : tool_find(c->name), v, &d);
	if (d.len) {
		size_t n = strcspn(d.data, "\n");

		buf_addch(out, ' ');
		sanitize_term(out, d.data, n > 80 ? 80 : n);
	}
	buf_release(&d);
	cJSON_Delete(v);
}

/* MicroCompact in the result: results digested and the compression ratio (digest/original bytes). */
void
front_output_json_microcompact(cJSON *o, const struct agent_microcompact_stats *mc)
{
	cJSON *m = cJSON_AddObjectToObject(o, "microcompact");

	cJSON_AddNumberToObject(m, "events", mc->events);
	cJSON_AddNumberToObject(m, "digested", mc->digested);
	cJSON_AddNumberToObject(m, "bytes_before", (double)mc->bytes_before);
	cJSON_AddNumberToObject(m, "bytes_after", (double)mc->bytes_after);
	if (mc->bytes_before > 0)
		cJSON_AddNumberToObject(m, "ratio", (double)mc->bytes_after / (double)mc->bytes_before);
	else
		cJSON_AddNullToObject(m, "ratio");
}

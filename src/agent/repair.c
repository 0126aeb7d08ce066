/* agent/repair: recover and check tool calls (see agent/repair.h). */
#include "agent/repair.h"

#include <string.h>

#include "base/json.h"
#include "llm/tool.h"

/* textcall type oracle: is `param` of `tool` string-typed in its schema? */
static int
agent_repair_param_is_string(void *ctx, const char *tool, const char *param)
{
	const struct tool *t = agent_repair_tool(ctx, tool);
	const cJSON *prop;
	cJSON *schema;
	const char *type;
	int r = -1;

	if (!t || !(schema = cJSON_Parse(t->schema_json)))
		return -1;
	prop = cJSON_GetObjectItemCaseSensitive(json_obj(schema, "properties"), param);
	if ((type = json_str(prop, "type")) != NULL)
		r = strcmp(type, "string") == 0;
	cJSON_Delete(schema);
	return r;
}

/* Recover calls from text. */
void
agent_repair_recover(const struct agent_repair_tools *t, const char *text, size_t n,
		struct textcall_result *out)
{
	memset(out, 0, sizeof *out);
	textcall_run(text, n, agent_repair_param_is_string, (void *)t, out);
}

/* Count calls in text. */
size_t
agent_repair_count(const struct agent_repair_tools *t, const char *text, size_t n)
{
	struct textcall_result out;
	size_t k;

	agent_repair_recover(t, text, n, &out);
	k = out.ncalls;
	textcall_release(&out);
	return k;
}

/* Look up an enabled tool. */
const struct tool *
agent_repair_tool(const struct agent_repair_tools *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i]->name, name))
			return t->v[i];
	return NULL;
}

/* Validate name + arguments; the problem line says what to fix. */
cJSON *
agent_repair_check(const struct agent_repair_tools *t, const char *name, const char *args, size_t len,
	      struct buf *problem)
{
	const struct tool *tool = agent_repair_tool(t, name);
	struct buf why = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *parsed = NULL;
	size_t i;

	if (!tool) {
		buf_addf(&why, "unknown tool \"%s\"; available tools:", name);
		for (i = 0; i < t->n; i++)
			buf_addf(&why, "%s %s", i ? "," : "", t->v[i]->name);
	} else if (!(parsed = json_parse(len ? args : "{}", len ? len : 2, &e))) {
		buf_addf(&why, "arguments are not valid JSON (%s)", e.msg);
	} else if (tool_validate(tool, parsed, &why) == 0) {
		buf_release(&why);
		return parsed;
	}
	cJSON_Delete(parsed);
	buf_addf(problem, "error: %s", why.data);
	if (tool)
		buf_addf(problem, "\nexpected arguments for %s (JSON Schema): %s", tool->name,
			 tool->schema_json);
	buf_release(&why);
	return NULL;
}

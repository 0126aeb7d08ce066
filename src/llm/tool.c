/*
 * llm/tool: the contract's defaults (llm/tool.h).  The jobs, the registry
 * and tool_validate live in tools/registry.c.
 */
#include "llm/tool.h"

#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"

int
tool_preview(const struct tool *t, const cJSON *args, const struct tool_env *env, struct buf *out)
{
	return t->preview ? t->preview(args, env, out) : TOOL_PREVIEW_NONE;
}

size_t
tool_paths(const struct tool *t, const cJSON *args, const char **v, size_t max)
{
	return t->paths && max ? t->paths(args, v, max) : 0;
}

int
tool_is_read_only(const struct tool *t, const cJSON *args)
{
	return t->read_only ? t->read_only(args) != 0 : (t->flags & TOOL_READ_ONLY) != 0;
}

long
tool_count_lines(const char *text)
{
	long n = 0;
	const char *p;

	for (p = text; *p; p++)
		n += *p == '\n';
	return n + (p > text && p[-1] != '\n');
}

void
tool_add_short(struct buf *out, const char *s, size_t max)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n && i < max; i++)
		buf_addch(out, s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i]);
	if (n > max)
		buf_adds(out, "…");
}

void
tool_digest(const struct tool *t, const cJSON *args, const char *text, struct buf *out)
{
	if (t->digest)
		t->digest(args, text ? text : "", out);
	else
		buf_addf(out, "%s, %ld lines, %zu bytes; run it again if needed]", t->name,
			 tool_count_lines(text ? text : ""), strlen(text ? text : ""));
}

void
tool_summary(const struct tool *t, const cJSON *args, const char *text, int is_error,
	     struct buf *out)
{
	if (t && t->summary)
		t->summary(args, text ? text : "", is_error, out);
}

void
tool_describe(const struct tool *t, const cJSON *args, struct buf *out)
{
	static const char *const keys[] = { "path", "command", "pattern", "file", "query", "url" };
	const cJSON *v;
	size_t i;
	char *s;

	if (t && t->describe) {
		t->describe(args, out);
		return;
	}
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		v = cJSON_GetObjectItemCaseSensitive(args, keys[i]);
		if (cJSON_IsString(v)) {
			buf_adds(out, v->valuestring);
			return;
		}
	}
	s = args ? cJSON_PrintUnformatted(args) : NULL;
	buf_add(out, s ? s : "", s ? (strlen(s) > 60 ? 60 : strlen(s)) : 0);
	cJSON_free(s);
}

const char *
tool_command(const struct tool *t, const cJSON *args)
{
	return t->flags & TOOL_SHELL ? json_str(args, "command") : NULL;
}

size_t
tool_path_arg(const cJSON *args, const char **v, size_t max)
{
	const char *p = json_str(args, "path");

	if (!p || !max)
		return 0;
	v[0] = p;
	return 1;
}

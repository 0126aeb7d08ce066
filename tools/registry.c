/*
 * registry: the table of built-in tools, job bookkeeping, and argument
 * validation against each tool's schema (see llm/tool.h).
 *
 * The table order is part of the prompt prefix (tool schemas are sent in
 * this order), so it never changes at run time.  Validation understands
 * the subset of JSON Schema the tools use: a top-level object with
 * "properties" (each with a "type"), "required", and unknown properties
 * refused.  A property that is not required may be null (models send
 * "offset": null for "not given"); tools treat null as absent.
 */
#include "llm/tool.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

extern const struct tool tool_read;
extern const struct tool tool_write;
extern const struct tool tool_edit;
extern const struct tool tool_bash;
extern const struct tool tool_grep;
extern const struct tool tool_find_files; /* "find"; tool_find is the lookup */
extern const struct tool tool_ls;
extern const struct tool tool_outline;
extern const struct tool tool_repo_map;
extern const struct tool tool_remember;

static const struct tool *const builtin[] = {
	&tool_read, &tool_write, &tool_edit, &tool_bash, &tool_grep, &tool_find_files, &tool_ls,
	&tool_outline, &tool_repo_map, &tool_remember,
};

static const struct tool **extra; /* registered extension tools, in order */
static size_t nextra, aextra;

/* Prepare a job with empty output. */
void
tool_job_init(struct tool_job *job, const struct tool *t, const struct tool_env *env,
	      tool_done_fn done, void *arg)
{
	memset(job, 0, sizeof *job);
	job->tool = t;
	job->env = env;
	buf_init(&job->out, 0);
	buf_init(&job->live, 0);
	job->done = done;
	job->done_arg = arg;
}

/* Free what the job owns. */
void
tool_job_release(struct tool_job *job)
{
	buf_release(&job->out);
	buf_release(&job->live);
	free(job->diff);
	job->diff = NULL;
}

/* Output so far of a running job: keep its tail, tell the watcher. */
void
tool_job_progress(struct tool_job *job, const char *d, size_t n)
{
	const char *nl;
	size_t cut;

	if (job->finished || !n)
		return;
	buf_add(&job->live, d, n);
	if (job->live.len > TOOL_LIVE_MAX) {
		cut = job->live.len - TOOL_LIVE_MAX;
		nl = memchr(job->live.data + cut, '\n', TOOL_LIVE_MAX);
		if (nl && (size_t)(nl - job->live.data) + 1 < job->live.len)
			cut = (size_t)(nl - job->live.data) + 1;
		buf_remove(&job->live, 0, cut);
	}
	if (job->progress)
		job->progress(job, job->progress_arg);
}

/* Finish once; the done callback may release or reuse the job. */
void
tool_job_done(struct tool_job *job)
{
	if (job->finished)
		return;
	job->finished = 1;
	if (job->done)
		job->done(job, job->done_arg);
}

/* Append an error line after any output so far, then finish. */
void
tool_job_fail(struct tool_job *job, const char *fmt, ...)
{
	va_list ap;

	buf_end_line(&job->out);
	va_start(ap, fmt);
	buf_vaddf(&job->out, fmt, ap);
	va_end(ap);
	job->is_error = 1;
	tool_job_done(job);
}

/* Linear search: a handful of entries. */
const struct tool *
tool_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
		if (!strcmp(builtin[i]->name, name))
			return builtin[i];
	for (i = 0; i < nextra; i++)
		if (!strcmp(extra[i]->name, name))
			return extra[i];
	return NULL;
}

/* Add an extension tool after the others. */
int
tool_register(const struct tool *t)
{
	if (tool_find(t->name))
		return -1;
	if (nextra == aextra) {
		aextra = aextra ? 2 * aextra : 16;
		extra = xrealloc(extra, aextra * sizeof *extra);
	}
	extra[nextra++] = t;
	return 0;
}

/* Remove an extension tool, keeping the order of the rest; the last one frees the array. */
void
tool_unregister(const struct tool *t)
{
	size_t i;

	for (i = 0; i < nextra; i++)
		if (extra[i] == t) {
			memmove(&extra[i], &extra[i + 1], (nextra - i - 1) * sizeof *extra);
			nextra--;
			break;
		}
	if (!nextra) {
		free(extra);
		extra = NULL;
		aextra = 0;
	}
}

/* The extension tools. */
const struct tool *const *
tool_extra(size_t *n)
{
	*n = nextra;
	return extra;
}

/* The fixed table. */
const struct tool *const *
tool_all(size_t *n)
{
	*n = sizeof builtin / sizeof builtin[0];
	return builtin;
}

/* JSON type name of a value as the model would understand it. */
static const char *
json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	if (cJSON_IsObject(v))
		return "object";
	if (cJSON_IsNumber(v))
		return v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15
			       ? "integer" : "number";
	return "invalid";
}

/* Whether v has JSON-Schema type `want`. */
static int
type_ok(const cJSON *v, const char *want)
{
	const char *got = json_type(v);

	if (!strcmp(want, got))
		return 1;
	return !strcmp(want, "number") && !strcmp(got, "integer");
}

/* "a" or "an" before a type name. */
static const char *
article(const char *type)
{
	return strchr("aeiou", type[0]) ? "an" : "a";
}

/* Separate problems with "; ". */
static void
sep(struct buf *problem)
{
	if (problem->len)
		buf_adds(problem, "; ");
}

/* Problems with required fields: absent, or null. */
static void
check_required(const cJSON *schema, const cJSON *args, struct buf *problem)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	const cJSON *r, *v, *type;

	cJSON_ArrayForEach(r, req) {
		if (!cJSON_IsString(r))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(args, r->valuestring);
		if (v && !cJSON_IsNull(v))
			continue;
		type = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(props, r->valuestring), "type");
		sep(problem);
		buf_addf(problem, "missing required field \"%s\"", r->valuestring);
		if (cJSON_IsString(type))
			buf_addf(problem, " (%s)", type->valuestring);
	}
}

/* The expected field names, comma-separated, in schema order. */
static void
expected_fields(const cJSON *props, struct buf *problem)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, props)
		buf_addf(problem, "%s%s", p == props->child ? "" : ", ", p->string);
}

/* Problems with present fields: unknown, or of the wrong type. */
static void
check_present(const cJSON *schema, const cJSON *args, struct buf *problem)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *a, *p, *type;

	cJSON_ArrayForEach(a, args) {
		p = cJSON_GetObjectItemCaseSensitive(props, a->string);
		if (!p) {
			sep(problem);
			buf_addf(problem, "unknown field \"%s\"; expected fields: ", a->string);
			expected_fields(props, problem);
			continue;
		}
		type = cJSON_GetObjectItemCaseSensitive(p, "type");
		if (!cJSON_IsString(type) || cJSON_IsNull(a) || type_ok(a, type->valuestring))
			continue;
		sep(problem);
		buf_addf(problem, "field \"%s\" must be %s %s, got %s", a->string,
			 article(type->valuestring), type->valuestring, json_type(a));
	}
}

/* Check args against t's schema (see llm/tool.h); all problems on one line. */
int
tool_validate(const struct tool *t, const cJSON *args, struct buf *problem)
{
	struct buf found = BUF_INIT;
	cJSON *schema;
	int rc;

	if (!cJSON_IsObject(args)) {
		buf_adds(problem, "arguments must be a JSON object");
		return -1;
	}
	schema = cJSON_Parse(t->schema_json);
	if (!schema) {
		buf_addf(problem, "tool %s has an invalid schema", t->name);
		return -1;
	}
	check_required(schema, args, &found);
	check_present(schema, args, &found);
	cJSON_Delete(schema);
	rc = found.len ? -1 : 0;
	buf_add(problem, found.data, found.len);
	buf_release(&found);
	return rc;
}

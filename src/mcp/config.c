/*
 * mcp/config: the MCP server list from mcp.json files (see mcp/config.h).
 *
 * Entries live in a fixed array (at most MCP_CONFIG_MAX_SERVERS); a later
 * file's entry of the same name frees and replaces the earlier one in
 * place, so the order of first appearance is kept.
 */
#include "mcp/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prompt/context.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "base/workspace.h"

#define MCP_CONFIG_MAX_FILE (4u << 20)

/* Expand ${VAR} and ${VAR:-default} in s from the environment. */
static char *
expand(const char *s)
{
	struct buf b = BUF_INIT;
	const char *p = s, *end, *dflt;
	char *name, *val;

	while (*p) {
		if (p[0] != '$' || p[1] != '{' || !(end = strchr(p + 2, '}'))) {
			buf_addch(&b, *p++);
			continue;
		}
		name = xstrndup(p + 2, (size_t)(end - p - 2));
		dflt = strstr(name, ":-");
		if (dflt)
			name[dflt - name] = '\0';
		val = getenv(name);
		if (val && *val)
			buf_adds(&b, val);
		else if (dflt)
			buf_adds(&b, dflt + 2);
		free(name);
		p = end + 1;
	}
	return buf_detach(&b, NULL);
}

/* Free one entry's strings. */
static void
server_free(struct mcp_config_server *s)
{
	char **p;

	for (p = s->argv; p && *p; p++)
		free(*p);
	for (p = s->env; p && *p; p++)
		free(*p);
	for (p = s->headers; p && *p; p++)
		free(*p);
	free(s->argv);
	free(s->env);
	free(s->headers);
	free(s->url);
	free(s->name);
	free(s->origin);
	memset(s, 0, sizeof *s);
}

/* argv from command + args; NULL + warning when a type is wrong. */
static char **
make_argv(const char *name, const cJSON *o, const char *path, struct buf *warnings)
{
	const char *cmd = json_str(o, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "args"), *a;
	char **v;
	size_t n = 1;

	if (!cmd || !*cmd) {
		buf_addf(warnings, "%s: mcp server \"%s\" has no \"command\" string; skipped\n", path, name);
		return NULL;
	}
	if (args && !cJSON_IsArray(args)) {
		buf_addf(warnings, "%s: mcp server \"%s\": \"args\" must be an array of strings; skipped\n",
			 path, name);
		return NULL;
	}
	cJSON_ArrayForEach(a, args) {
		if (!cJSON_IsString(a)) {
			buf_addf(warnings, "%s: mcp server \"%s\": \"args\" must be an array of strings; skipped\n",
				 path, name);
			return NULL;
		}
	}
	v = xcalloc((size_t)cJSON_GetArraySize(args) + 2, sizeof *v);
	v[0] = expand(cmd);
	cJSON_ArrayForEach(a, args)
		v[n++] = expand(a->valuestring);
	return v;
}

/* env as KEY=value strings; NULL + warning when a value is not a string. */
static char **
make_env(const char *name, const cJSON *o, const char *path, struct buf *warnings, int *bad)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(o, "env"), *a;
	char **v;
	size_t n = 0;

	*bad = 0;
	if (!env)
		return NULL;
	if (!cJSON_IsObject(env)) {
		*bad = 1;
		buf_addf(warnings, "%s: mcp server \"%s\": \"env\" must be an object of strings; skipped\n",
			 path, name);
		return NULL;
	}
	cJSON_ArrayForEach(a, env) {
		if (!cJSON_IsString(a) || !*a->string || strchr(a->string, '=')) {
			*bad = 1;
			buf_addf(warnings, "%s: mcp server \"%s\": env \"%s\" must be a string under a name without '='; skipped\n",
				 path, name, a->string);
			return NULL;
		}
	}
	v = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof *v);
	cJSON_ArrayForEach(a, env) {
		char *val = expand(a->valuestring);
		struct buf kv = BUF_INIT;

		buf_addf(&kv, "%s=%s", a->string, val);
		free(val);
		v[n++] = buf_detach(&kv, NULL);
	}
	return v;
}

/* The slot for name: the existing entry (freed) or a new one; NULL when full. */
static struct mcp_config_server *
slot(struct mcp_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name)) {
			server_free(&c->v[i]);
			return &c->v[i];
		}
	return c->n < MCP_CONFIG_MAX_SERVERS ? &c->v[c->n++] : NULL;
}

/* Whether the entry should be skipped before it is parsed further. */
static int
skipped(const char *name, const cJSON *o, const char *path, struct buf *warnings)
{
	const char *type = json_str(o, "type");
	int off = 0;

	if (!cJSON_IsObject(o)) {
		buf_addf(warnings, "%s: mcp server \"%s\" must be an object; skipped\n", path, name);
		return 1;
	}
	if (json_bool(o, "disabled", &off) == 0 && off)
		return 1;
	if (type && strcmp(type, "stdio") && strcmp(type, "http") && strcmp(type, "sse")) {
		buf_addf(warnings, "%s: mcp server \"%s\" is of type \"%s\"; use \"stdio\", \"http\" or \"sse\"; skipped\n",
			 path, name, type);
		return 1;
	}
	if (!*name || strlen(name) > 40) {
		buf_addf(warnings, "%s: mcp server names must be 1-40 characters; \"%.40s...\" skipped\n",
			 path, name);
		return 1;
	}
	return 0;
}

/* An http or sse entry: its url and headers; 0, or -1 with a warning. */
static int
make_remote(struct mcp_config_server *t, const char *name, const cJSON *o, const char *path,
	    struct buf *warnings)
{
	const char *url = json_str(o, "url");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "headers"), *a;
	size_t n = 0;

	if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))) {
		buf_addf(warnings, "%s: mcp server \"%s\" needs a \"url\" starting with http:// or https://; skipped\n",
			 path, name);
		return -1;
	}
	if (h && !cJSON_IsObject(h)) {
		buf_addf(warnings, "%s: mcp server \"%s\": \"headers\" must be an object of strings; skipped\n",
			 path, name);
		return -1;
	}
	cJSON_ArrayForEach(a, h) {
		if (!cJSON_IsString(a) || !*a->string || strpbrk(a->string, ": \t\r\n") ||
		    strpbrk(a->valuestring, "\r\n")) {
			buf_addf(warnings, "%s: mcp server \"%s\": header \"%s\" must be a one-line string under a name without ':' or spaces; skipped\n",
				 path, name, a->string);
			return -1;
		}
	}
	t->url = expand(url);
	t->headers = xcalloc((size_t)cJSON_GetArraySize(h) + 1, sizeof *t->headers);
	cJSON_ArrayForEach(a, h) {
		char *val = expand(a->valuestring);
		struct buf kv = BUF_INIT;

		buf_addf(&kv, "%s: %s", a->string, val);
		free(val);
		t->headers[n++] = buf_detach(&kv, NULL);
	}
	return 0;
}

/* One mcpServers entry. */
static void
add_server(struct mcp_config *c, const char *name, const cJSON *o, const char *path,
	   struct buf *warnings)
{
	struct mcp_config_server *s;
	char **argv, **env;
	const char *type;
	int bad;

	if (skipped(name, o, path, warnings))
		return;
	type = json_str(o, "type");
	if (type && (!strcmp(type, "http") || !strcmp(type, "sse"))) {
		struct mcp_config_server t = { 0 };

		if (make_remote(&t, name, o, path, warnings) < 0) {
			server_free(&t);
			return;
		}
		if (!(s = slot(c, name))) {
			buf_addf(warnings, "%s: more than %d mcp servers; \"%s\" skipped\n", path,
				 MCP_CONFIG_MAX_SERVERS, name);
			server_free(&t);
			return;
		}
		*s = t;
		s->transport = !strcmp(type, "http") ? MCP_HTTP : MCP_SSE;
		s->name = xstrdup(name);
		s->origin = xstrdup(path);
		return;
	}
	argv = make_argv(name, o, path, warnings);
	env = argv ? make_env(name, o, path, warnings, &bad) : NULL;
	if (!argv || bad || !(s = slot(c, name))) {
		struct mcp_config_server tmp = { NULL, argv, env, NULL, MCP_STDIO, NULL, NULL };

		if (argv && !bad)
			buf_addf(warnings, "%s: more than %d mcp servers; \"%s\" skipped\n", path,
				 MCP_CONFIG_MAX_SERVERS, name);
		server_free(&tmp);
		return;
	}
	s->name = xstrdup(name);
	s->argv = argv;
	s->env = env;
	s->origin = xstrdup(path);
}

/* Merge one file. */
int
mcp_config_load_file(struct mcp_config *c, const char *path, struct buf *warnings, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err pe = ERR_INIT;
	struct stat st;
	int rc;

	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISREG(st.st_mode))
		return err_set(e, "%s: not a regular file; its mcp servers are not started", path);
	if (buf_read_file(&text, path, MCP_CONFIG_MAX_FILE, &pe) < 0) {
		buf_release(&text);
		if (pe.code == ENOENT)
			return 0;
		return err_set(e, "%s", pe.msg);
	}
	rc = mcp_config_load_text(c, text.data, text.len, path, warnings, e);
	buf_release(&text);
	return rc;
}

/* Merge one configuration's text (origin names it in messages). */
int
mcp_config_load_text(struct mcp_config *c, const char *text, size_t n, const char *path, struct buf *warnings,
		     struct err *e)
{
	struct err pe = ERR_INIT;
	const cJSON *servers, *s;
	cJSON *root;

	root = json_parse(text, n, &pe);
	if (!root)
		return err_set(e, "%s: %s; fix it or delete it (its mcp servers are not started)", path, pe.msg);
	servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
	if (servers && !cJSON_IsObject(servers))
		buf_addf(warnings, "%s: \"mcpServers\" must be an object; ignored\n", path);
	else if (!servers)
		buf_addf(warnings, "%s: no \"mcpServers\" object; nothing to start\n", path);
	else
		cJSON_ArrayForEach(s, servers)
			add_server(c, s->string, s, path, warnings);
	cJSON_Delete(root);
	return 0;
}

/* The user file alone. */
void
mcp_config_load_user(struct mcp_config *c, struct buf *warnings)
{
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;

	if (prompt_context_config_dir(&path, NULL) == 0) {
		buf_adds(&path, "/mcp.json");
		if (mcp_config_load_file(c, path.data, warnings, &e) < 0)
			buf_addf(warnings, "%s\n", e.msg);
	}
	buf_release(&path);
}

/* User file, then project file. */
void
mcp_config_load(struct mcp_config *c, const char *root, struct buf *warnings)
{
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;

	mcp_config_load_user(c, warnings);
	workspace_project_file(root, ".mcp.json", &path); /* the nearest up to the repository root */
	if (mcp_config_load_file(c, path.data, warnings, &e) < 0)
		buf_addf(warnings, "%s\n", e.msg);
	buf_release(&path);
}

/* Free all entries. */
void
mcp_config_release(struct mcp_config *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		server_free(&c->v[i]);
	c->n = 0;
}

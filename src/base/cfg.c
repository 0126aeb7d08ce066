/*
 * base/cfg: settings files.  A table maps each JSON key to a field, its type
 * and its place in struct cfg, so loading, warnings and docs agree.
 * Later files override earlier ones key by key.
 */
#include "base/cfg.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/xmalloc.h"
#include "base/workspace.h"

enum cfg_type { CFG_STR, CFG_INT, CFG_DBL, CFG_BOOL, CFG_WARN_REJECT, CFG_AUTO_BOOL, CFG_LIST };

struct cfg_key {
	const char *name;
	enum cfg_type type;
	size_t off;
};

#define K(n, t, f) { n, t, offsetof(struct cfg, f) }
static const struct cfg_key cfg_keys[] = {
	K("server", CFG_STR, server_url),
	K("model", CFG_STR, model),
	K("temperature", CFG_DBL, temperature),
	K("top_p", CFG_DBL, top_p),
	K("top_k", CFG_INT, top_k),
	K("presence_penalty", CFG_DBL, presence_penalty),
	K("max_tokens", CFG_INT, max_tokens),
	K("thinking", CFG_BOOL, thinking),
	K("max_steps", CFG_INT, max_steps),
	K("allow_outside_workspace", CFG_BOOL, allow_outside_workspace),
	K("bash_timeout", CFG_INT, bash_timeout_s),
	K("id_slot", CFG_INT, id_slot),
	K("request_timeout", CFG_INT, request_timeout_s),
	K("stream_idle_timeout", CFG_INT, stream_idle_timeout_s),
	K("loading_wait", CFG_INT, loading_wait_s),
	K("slot_wait", CFG_INT, slot_wait_s),
	K("slot_save", CFG_BOOL, slot_save),
	K("slot_save_idle", CFG_INT, slot_save_idle_s),
	K("cache_prime", CFG_BOOL, cache_prime),
	K("microcompact_keep", CFG_INT, agent_microcompact_keep),
	K("context_reserve", CFG_INT, context_reserve),
	K("syntax_check", CFG_WARN_REJECT, syntax_reject),
	K("mcp_timeout", CFG_INT, mcp_timeout_s),
	K("think_word", CFG_STR, think_word),
	K("explore_cutoff", CFG_INT, explore_cutoff),
	K("defer_tools", CFG_AUTO_BOOL, defer_tools),
	K("defer_tools_min_tokens", CFG_INT, defer_tools_min_tokens),
	K("serve.model", CFG_STR, serve_model),
	K("serve.binary", CFG_STR, serve_binary),
	K("serve.ctx", CFG_INT, serve_ctx),
	K("serve.slots", CFG_INT, serve_slots),
	K("serve.cache_type", CFG_STR, serve_cache_type),
	K("serve.kv_unified", CFG_BOOL, serve_kv_unified),
	K("serve.cache_ram", CFG_INT, serve_cache_ram),
	K("serve.slot_similarity", CFG_DBL, serve_slot_similarity),
	K("serve.args", CFG_LIST, serve_args),
	K("slot_files_max_mb", CFG_INT, slot_files_max_mb),
	K("slot_save_dir", CFG_STR, slot_save_dir),
	K("theme", CFG_STR, theme),
	K("open_in", CFG_STR, open_in),
	K("sandbox", CFG_STR, sandbox),
	K("sandbox_network", CFG_BOOL, sandbox_network),
	K("env_passthrough", CFG_LIST, env_passthrough),
	K("server_context", CFG_INT, server_context),
	K("mouse", CFG_BOOL, mouse),
};
#undef K

/* Built-in defaults: the Qwen sampling recommendations, thinking off. */
void
cfg_defaults(struct cfg *c)
{
	memset(c, 0, sizeof *c);
	c->server_url = xstrdup("http://127.0.0.1:8080");
	c->temperature = 0.6;
	c->top_p = 0.95;
	c->top_k = 20;
	c->presence_penalty = 0;
	c->max_tokens = -1;
	c->thinking = 0;
	c->max_steps = 40;
	c->bash_timeout_s = 120;
	c->id_slot = -1;
	c->stream_idle_timeout_s = 120;
	c->loading_wait_s = 300;
	c->slot_wait_s = 15;
	c->mcp_timeout_s = 60;
	c->slot_save = 1;
	c->slot_save_idle_s = 60;
	c->cache_prime = 1;
	c->agent_microcompact_keep = 6;
	c->context_reserve = 4096;
	c->think_word = xstrdup("ultrathink");
	c->explore_cutoff = 6;
	c->defer_tools = 1; /* issue 14: the first turn <= 1,200 tokens */
	c->defer_tools_min_tokens = 2000;
	c->mouse = 1;
	c->serve_ctx = 32768;
	c->serve_slots = 1;
	c->serve_cache_type = xstrdup("q8_0");
	c->serve_cache_ram = -2;
	c->serve_slot_similarity = -1;
	c->slot_files_max_mb = 2048;
}

/* Free a NULL-terminated list of strings (NULL ok). */
void
cfg_list_free(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* Free the string fields. */
void
cfg_release(struct cfg *c)
{
	size_t i;

	if (c->server_api_key) {
		memset(c->server_api_key, 0, strlen(c->server_api_key));
		free(c->server_api_key);
		c->server_api_key = NULL;
	}
	for (i = 0; i < sizeof cfg_keys / sizeof cfg_keys[0]; i++)
		if (cfg_keys[i].type == CFG_LIST) {
			char ***p = (char ***)(void *)((char *)c + cfg_keys[i].off);

			cfg_list_free(*p);
			*p = NULL;
		} else if (cfg_keys[i].type == CFG_STR) {
			char **p = (char **)((char *)c + cfg_keys[i].off);

			free(*p);
			*p = NULL;
		}
}

/* Store one JSON value into its field; returns 0 or -1 on a wrong type. */
static int
cfg_set(struct cfg *c, const struct cfg_key *k, const cJSON *v)
{
	void *field = (char *)c + k->off;

	switch (k->type) {
	case CFG_STR:
		if (!cJSON_IsString(v))
			return -1;
		free(*(char **)field);
		*(char **)field = xstrdup(v->valuestring);
		return 0;
	case CFG_INT:
		if (!cJSON_IsNumber(v) || v->valuedouble < INT_MIN || v->valuedouble > INT_MAX ||
		    v->valuedouble != (double)(int)v->valuedouble)
			return -1;
		*(int *)field = (int)v->valuedouble;
		return 0;
	case CFG_DBL:
		if (!cJSON_IsNumber(v))
			return -1;
		*(double *)field = v->valuedouble;
		return 0;
	case CFG_BOOL:
		if (!cJSON_IsBool(v))
			return -1;
		*(int *)field = cJSON_IsTrue(v);
		return 0;
	case CFG_WARN_REJECT:
		if (!cJSON_IsString(v) || (strcmp(v->valuestring, "warn") && strcmp(v->valuestring, "reject")))
			return -1;
		*(int *)field = strcmp(v->valuestring, "reject") == 0;
		return 0;
	case CFG_LIST: { /* an array of strings; replaces the earlier list */
		const cJSON *it;
		char **list;
		size_t n = 0;

		if (!cJSON_IsArray(v))
			return -1;
		cJSON_ArrayForEach(it, v) {
			if (!cJSON_IsString(it) || !it->valuestring[0])
				return -1;
			n++;
		}
		list = xcalloc(n + 1, sizeof *list);
		n = 0;
		cJSON_ArrayForEach(it, v)
			list[n++] = xstrdup(it->valuestring);
		cfg_list_free(*(char ***)field);
		*(char ***)field = list;
		return 0;
	}
	case CFG_AUTO_BOOL: /* true 1, false 0, "auto" -1 */
		if (cJSON_IsString(v) && !strcmp(v->valuestring, "auto"))
			*(int *)field = -1;
		else if (cJSON_IsBool(v))
			*(int *)field = cJSON_IsTrue(v);
		else
			return -1;
		return 0;
	}
	return -1;
}

/* Name of a type for warnings. */
static const char *
cfg_type_name(enum cfg_type t)
{
	return t == CFG_STR ? "a string" : t == CFG_INT ? "an integer" :
	       t == CFG_DBL ? "a number" : t == CFG_WARN_REJECT ? "\"warn\" or \"reject\"" :
	       t == CFG_AUTO_BOOL ? "\"auto\", true or false" :
	       t == CFG_LIST ? "a list of non-empty strings" :
	       "true or false";
}

/* Set the key called name (warnings for unknown keys and wrong types). */
static void
cfg_apply(struct cfg *c, const char *path, const char *name, const cJSON *it, struct buf *warnings)
{
	size_t i;

	for (i = 0; i < sizeof cfg_keys / sizeof cfg_keys[0]; i++)
		if (strcmp(cfg_keys[i].name, name) == 0)
			break;
	if (i == sizeof cfg_keys / sizeof cfg_keys[0])
		buf_addf(warnings, "%s: unknown setting \"%s\" ignored\n", path, name);
	else if (cfg_set(c, &cfg_keys[i], it) < 0)
		buf_addf(warnings, "%s: setting \"%s\" must be %s; ignored\n", path, name,
			 cfg_type_name(cfg_keys[i].type));
}

/* {"serve": {"model": …}} sets "serve.model" and so on. */
static void
cfg_apply_group(struct cfg *c, const char *path, const cJSON *group, struct buf *warnings)
{
	const cJSON *it;
	char name[64];

	if (!cJSON_IsObject(group)) {
		buf_addf(warnings, "%s: setting \"%s\" must be an object; ignored\n", path, group->string);
		return;
	}
	cJSON_ArrayForEach(it, group) {
		snprintf(name, sizeof name, "%s.%s", group->string, it->string);
		cfg_apply(c, path, name, it, warnings);
	}
}

/* Merge one file. */
int
cfg_load_file(struct cfg *c, const char *path, struct buf *warnings, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err pe = ERR_INIT;
	cJSON *root, *it;

	struct stat st;

	if (stat(path, &st) != 0)
		return 0;
	if (!S_ISREG(st.st_mode)) /* a FIFO would block the start; a directory cannot be read */
		return err_set(e, "%s: not a regular file; using defaults", path);
	if (buf_read_file(&text, path, 1 << 20, e) < 0) {
		buf_release(&text);
		return -1;
	}
	root = json_parse(text.data, text.len, &pe);
	buf_release(&text);
	if (!root)
		return err_set(e, "%s: %s; using defaults", path, pe.msg);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return err_set(e, "%s: settings must be a JSON object; using defaults", path);
	}
	{ /* the gate reads these itself (perm/gate.c) */
		static const char *const gate_keys[] = { "approval", "permissions", "hooks" };
		size_t k;

		for (k = 0; k < sizeof gate_keys / sizeof gate_keys[0]; k++)
			while (cJSON_GetObjectItemCaseSensitive(root, gate_keys[k]))
				cJSON_DeleteItemFromObjectCaseSensitive(root, gate_keys[k]);
	}
	cJSON_ArrayForEach(it, root) {
		if (!strcmp(it->string, "routing") || !strcmp(it->string, "anthropic"))
			continue; /* their own modules read them (route_config, anthropic_config) */
		if (!strcmp(it->string, "servers")) { /* route/tiers.c reads the user's file only */
			size_t pl = strlen(path), sl = strlen("/.hearth/settings.json");

			if (pl >= sl && !strcmp(path + pl - sl, "/.hearth/settings.json"))
				buf_addf(warnings, "%s: \"servers\" is read from your own settings only (a project cannot choose the servers and keys hearth uses): ignored\n",
					 path);
			continue;
		}
		if (!strcmp(it->string, "serve"))
			cfg_apply_group(c, path, it, warnings);
		else
			cfg_apply(c, path, it->string, it, warnings);
	}
	cJSON_Delete(root);
	return 0;
}

/* Each settings file, lowest precedence first. */
void
cfg_each_file(const char *cwd, cfg_file_fn fn, void *arg, struct buf *warnings)
{
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		buf_addf(&path, "%s/hearth/settings.json", xdg);
	else if (home && *home)
		buf_addf(&path, "%s/.config/hearth/settings.json", home);
	if (path.len && fn(arg, path.data, warnings, &e) < 0)
		buf_addf(warnings, "%s\n", e.msg);
	buf_reset(&path);
	err_clear(&e);
	workspace_project_file(cwd, ".hearth/settings.json", &path); /* the nearest up to the repository root */
	if (fn(arg, path.data, warnings, &e) < 0)
		buf_addf(warnings, "%s\n", e.msg);
	buf_release(&path);
}

/* cfg_each_file adapter for cfg_load_file. */
static int
cfg_file(void *arg, const char *path, struct buf *warnings, struct err *e)
{
	return cfg_load_file(arg, path, warnings, e);
}

/* User settings, then the project's. */
void
cfg_load(struct cfg *c, const char *cwd, struct buf *warnings)
{
	cfg_each_file(cwd, cfg_file, c, warnings);
}

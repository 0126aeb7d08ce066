/*
 * anthropic/config: the "anthropic" settings (see anthropic/config.h).  Loading goes
 * through cfg_each_file like every settings reader; a file that cannot
 * be read or parsed is reported once, by cfg_load, not here.
 */
#include "anthropic/config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "base/workspace.h"

static const char *const anthropic_config_tiers[3] = { "haiku", "sonnet", "opus" };

/* Defaults. */
void
anthropic_config_defaults(struct anthropic_config *c)
{
	int i;

	memset(c, 0, sizeof *c);
	for (i = 0; i < 3; i++)
		c->models[i] = xstrdup(anthropic_wire_tier_model((enum anthropic_wire_tier)i));
	c->tier = ANTHROPIC_WIRE_SONNET;
	c->max_tokens = ANTHROPIC_WIRE_MAX_TOKENS;
	c->retries = 3;
}

/* Free. */
void
anthropic_config_release(struct anthropic_config *c)
{
	int i;

	for (i = 0; i < 3; i++)
		free(c->models[i]);
	if (c->api_key)
		memset(c->api_key, 0, strlen(c->api_key));
	free(c->api_key);
	memset(c, 0, sizeof *c);
}

/* An integer in [lo, hi], or a warning. */
static void
anthropic_config_int(const cJSON *o, const char *key, int lo, int hi, int *dst, const char *org,
	    struct buf *w)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		return;
	/* the range first: converting a double int cannot hold is undefined */
	if (cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
	    v->valuedouble == (double)(int)v->valuedouble)
		*dst = v->valueint;
	else
		buf_addf(w, "%s: anthropic.%s must be an integer from %d to %d; keeping %d\n", org,
			 key, lo, hi, *dst);
}

/* "models": {tier: id}. */
static void
anthropic_config_models(struct anthropic_config *c, const cJSON *m, const char *org, struct buf *w)
{
	const cJSON *it;
	enum anthropic_wire_tier t;

	if (!cJSON_IsObject(m)) {
		buf_addf(w, "%s: anthropic.models must be an object {\"haiku\"|\"sonnet\"|\"opus\": model id}; ignored\n", org);
		return;
	}
	cJSON_ArrayForEach(it, m) {
		if (anthropic_wire_tier_parse(it->string, &t) < 0)
			buf_addf(w, "%s: anthropic.models.%s is not a tier (haiku, sonnet, opus); ignored\n",
				 org, it->string);
		else if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) > 100)
			buf_addf(w, "%s: anthropic.models.%s must be a model id string; keeping %s\n", org,
				 it->string, c->models[t]);
		else {
			free(c->models[t]);
			c->models[t] = xstrdup(it->valuestring);
		}
	}
}

/* Merge one "anthropic" object. */
void
anthropic_config_apply(struct anthropic_config *c, const cJSON *o, const char *org, int key_ok, struct buf *w)
{
	const cJSON *v;
	enum anthropic_wire_tier t;

	org = org ? org : "settings";
	if (!cJSON_IsObject(o)) {
		buf_addf(w, "%s: anthropic must be an object; ignored\n", org);
		return;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "tier")) != NULL) {
		if (cJSON_IsString(v) && anthropic_wire_tier_parse(v->valuestring, &t) == 0)
			c->tier = t;
		else
			buf_addf(w, "%s: anthropic.tier must be \"haiku\", \"sonnet\" or \"opus\"; keeping %s\n",
				 org, anthropic_config_tiers[c->tier]);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "models")) != NULL)
		anthropic_config_models(c, v, org, w);
	anthropic_config_int(o, "max_tokens", 1024, 128000, &c->max_tokens, org, w);
	anthropic_config_int(o, "retries", 0, 10, &c->retries, org, w);
	if ((v = cJSON_GetObjectItemCaseSensitive(o, "api_key")) != NULL) {
		if (!key_ok)
			buf_addf(w, "%s: anthropic.api_key is only read from the user settings file (a project file may be committed); ignored\n", org);
		else if (!cJSON_IsString(v) || !v->valuestring[0])
			buf_addf(w, "%s: anthropic.api_key must be a non-empty string; ignored\n", org);
		else {
			free(c->api_key);
			c->api_key = xstrdup(v->valuestring);
		}
	}
}

struct anthropic_config_ctx {
	struct anthropic_config *c;
	const char *cwd;
};

/* cfg_each_file adapter: the "anthropic" member of one file. */
static int
anthropic_config_file(void *arg, const char *path, struct buf *w, struct err *e)
{
	struct anthropic_config_ctx *cx = arg;
	struct buf text = BUF_INIT, proj = BUF_INIT;
	cJSON *root;
	const cJSON *o;

	(void)e;
	if (access(path, F_OK) != 0 || buf_read_file(&text, path, 1 << 20, NULL) < 0) {
		buf_release(&text);
		return 0;
	}
	root = json_parse(text.data, text.len, NULL);
	o = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "anthropic") : NULL;
	workspace_project_file(cx->cwd, ".hearth/settings.json", &proj);
	if (o)
		anthropic_config_apply(cx->c, o, path, strcmp(path, proj.data) != 0, w);
	cJSON_Delete(root);
	buf_release(&text);
	buf_release(&proj);
	return 0;
}

/* User then project settings. */
void
anthropic_config_load(struct anthropic_config *c, const char *cwd, struct buf *w)
{
	struct anthropic_config_ctx cx = { c, cwd };

	cfg_each_file(cwd, anthropic_config_file, &cx, w);
}

/* The chosen tier's id. */
const char *
anthropic_config_model(const struct anthropic_config *c)
{
	return c->models[c->tier];
}

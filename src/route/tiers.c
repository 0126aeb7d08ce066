/*
 * route/tiers: the `servers` setting (see route/tiers.h).
 */
#include "route/tiers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xmalloc.h"

/* One entry; 0, or -1 with the reason in warnings. */
static int
tier_parse(struct route_tier *t, const cJSON *o, int i, const struct route_tiers *all, struct buf *warnings)
{
	const char *name = json_str(o, "name"), *url = json_str(o, "url"), *role = json_str(o, "role");
	const char *model = json_str(o, "model"), *key = json_str(o, "api_key_env");
	const cJSON *th = cJSON_GetObjectItemCaseSensitive(o, "thinking");

	memset(t, 0, sizeof *t);
	if (!cJSON_IsObject(o) || !name || !*name || !url || !*url) {
		buf_addf(warnings, "settings: servers[%d] needs a \"name\" and a \"url\" (left out)\n", i);
		return -1;
	}
	if (!strcmp(name, "claude") || strchr(name, ' ') || strchr(name, '@')) {
		buf_addf(warnings, "settings: servers[%d] name \"%s\" is taken or has a space or '@': pick another (left out)\n",
			 i, name);
		return -1;
	}
	if (route_tiers_find(all, name, strlen(name))) {
		buf_addf(warnings, "settings: servers[%d] name \"%s\" is used twice: the first one counts\n", i, name);
		return -1;
	}
	if (role && strcmp(role, "interactive") && strcmp(role, "workhorse")) {
		buf_addf(warnings, "settings: servers[%d] (%s) role \"%s\": use \"interactive\" or \"workhorse\" (left out)\n",
			 i, name, role);
		return -1;
	}
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		buf_addf(warnings, "settings: servers[%d] (%s) url \"%s\" must start with http:// or https:// (left out)\n",
			 i, name, url);
		return -1;
	}
	t->name = xstrdup(name);
	t->url = xstrdup(url);
	t->model = model && *model ? xstrdup(model) : NULL;
	t->api_key_env = key && *key ? xstrdup(key) : NULL;
	t->role = role && !strcmp(role, "workhorse") ? ROUTE_TIER_WORKHORSE : ROUTE_TIER_INTERACTIVE;
	t->thinking = cJSON_IsBool(th) ? cJSON_IsTrue(th) : -1;
	return 0;
}

void
route_tiers_parse(struct route_tiers *t, const cJSON *servers, struct buf *warnings)
{
	const cJSON *o;
	int i = 0;

	memset(t, 0, sizeof *t);
	if (!servers)
		return;
	if (!cJSON_IsArray(servers)) {
		buf_adds(warnings, "settings: \"servers\" must be a list of {\"name\", \"url\", \"role\"} objects (ignored)\n");
		return;
	}
	cJSON_ArrayForEach(o, servers) {
		if (t->n == ROUTE_TIERS_MAX) {
			buf_addf(warnings, "settings: servers: at most %d tiers; the rest are left out\n", ROUTE_TIERS_MAX);
			break;
		}
		if (tier_parse(&t->v[t->n], o, i++, t, warnings) == 0)
			t->n++;
	}
}

void
route_tiers_load_user(struct route_tiers *t, struct buf *warnings)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct buf path = BUF_INIT, raw = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *root;

	memset(t, 0, sizeof *t);
	if (xdg && *xdg)
		buf_addf(&path, "%s/hearth/settings.json", xdg);
	else if (home && *home)
		buf_addf(&path, "%s/.config/hearth/settings.json", home);
	else
		goto out;
	if (buf_read_file(&raw, path.data, 4u << 20, &e) < 0)
		goto out; /* missing or unreadable: cfg_load reports the file's problems */
	if ((root = json_parse(raw.data, raw.len, NULL)) != NULL) {
		route_tiers_parse(t, cJSON_GetObjectItemCaseSensitive(root, "servers"), warnings);
		cJSON_Delete(root);
	}
out:
	buf_release(&path);
	buf_release(&raw);
}

void
route_tiers_release(struct route_tiers *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].url);
		free(t->v[i].model);
		free(t->v[i].api_key_env);
	}
	memset(t, 0, sizeof *t);
}

const struct route_tier *
route_tiers_find(const struct route_tiers *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strlen(t->v[i].name) == len && !strncmp(t->v[i].name, name, len))
			return &t->v[i];
	return NULL;
}

const struct route_tier *
route_tiers_start(const struct route_tiers *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].role == ROUTE_TIER_INTERACTIVE)
			return &t->v[i];
	return t->n ? &t->v[0] : NULL;
}

const struct route_tier *
route_tiers_next(const struct route_tiers *t, const struct route_tier *tier)
{
	size_t i;

	if (!tier || tier->role == ROUTE_TIER_WORKHORSE)
		return NULL;
	for (i = 0; i < t->n; i++)
		if (t->v[i].role == ROUTE_TIER_WORKHORSE)
			return &t->v[i];
	return NULL;
}

const char *
route_tiers_role_name(enum route_tier_role r)
{
	return r == ROUTE_TIER_WORKHORSE ? "workhorse" : "interactive";
}

void
route_tiers_names(const struct route_tiers *t, struct buf *out)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", t->v[i].name);
	if (!t->n)
		buf_adds(out, "(none)");
}

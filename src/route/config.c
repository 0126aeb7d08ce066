/*
 * route/config: loading the "routing" settings object into a route_policy.
 *
 * Each key has one small setter that validates its value and either
 * stores it or writes one warning and leaves the old value in force.
 * Lists (patterns, privacy) are built completely before they replace the
 * old list, so a bad entry drops only that entry.  The rule names and the
 * default price table live here so the docs (docs/routing.md) have one
 * place to agree with.
 */
#include "route/config.h"

#include "base/cfg.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

#include "base/json.h"
#include "base/regex.h"
#include "base/xmalloc.h"

static const char *const route_config_rule_names[ROUTE_RULE_COUNT] = {
	"server_down", "tool_failures", "repeated_call", "test_failures", "max_steps", "context",
};

static const struct route_rule route_config_rule_defaults[ROUTE_RULE_COUNT] = {
	{ 1, 0, ROUTE_HANDOFF },  /* server_down */
	{ 1, 3, ROUTE_HANDOFF },  /* tool_failures */
	{ 1, 3, ROUTE_CONSULT },  /* repeated_call */
	{ 1, 3, ROUTE_CONSULT },  /* test_failures */
	{ 1, 0, ROUTE_HANDOFF },  /* max_steps */
	{ 1, 0, ROUTE_HANDOFF },  /* context */
};

static const struct {
	const char *text;
	enum route_mode mode;
} route_config_default_patterns[] = {
	{ "design", ROUTE_CONSULT },
	{ "architecture", ROUTE_CONSULT },
	{ "race condition", ROUTE_CONSULT },
	{ "deadlock", ROUTE_CONSULT },
	{ "security review", ROUTE_HANDOFF },
};

static const char *const route_config_default_privacy[] = {
	".env*", "*.pem", "*.key", "id_*", "secrets/**",
};

static const char *const route_config_default_tests[] = {
	"make test", "make check", "pytest", "cargo test", "go test", "npm test", "npm run test",
	"yarn test", "pnpm test", "ctest", "tox", "jest", "vitest", "mvn test", "gradle test",
	"gradlew test", "rspec", "phpunit", "mix test", "dotnet test", "meson test",
	"python -m unittest", "python3 -m unittest", "bun test", "deno test", "zig build test",
};

/* protocols.md B6; cache_write is the 5-minute write price. */
static const struct route_price route_config_default_prices[] = {
	{ (char *)"claude-opus-5", 5, 25, 6.25, 0.50 },
	{ (char *)"claude-opus-5-5", 4, 20, 5, 0.40 },
	{ (char *)"claude-sonnet-5", 2, 10, 2.50, 0.20 },
	{ (char *)"claude-haiku-4-5", 1, 5, 1.25, 0.10 },
	{ (char *)"claude-fable-5", 10, 50, 12.50, 1.00 },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Free a pattern list. */
static void
route_config_free_patterns(struct route_pattern *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].is_regex)
			regfree(&v[i].re);
		free(v[i].text);
		free(v[i].tier);
	}
	free(v);
}

/* Free a string list. */
static void
route_config_free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Add one pattern to a list being built; -1 (and *why) on a bad regex. */
static int
route_config_add_pattern(struct route_pattern **v, size_t *n, const char *text, int is_regex,
		     enum route_mode mode, const char *tier, char *why, size_t whylen)
{
	struct route_pattern *p;

	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	p = &(*v)[*n];
	memset(p, 0, sizeof *p);
	if (is_regex) {
		if (regex_compile(&p->re, text, REG_ICASE | REG_NOSUB, why, whylen) < 0)
			return -1;
	}
	p->text = xstrdup(text);
	p->is_regex = is_regex;
	p->mode = mode;
	p->tier = tier ? xstrdup(tier) : NULL;
	(*n)++;
	return 0;
}

/* A fresh copy of a built-in string list. */
static char **
route_config_copy_strings(const char *const *v, size_t n)
{
	char **out = xmalloc(n * sizeof *out);
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

/* Built-in policy. */
void
route_config_defaults(struct route_policy *p)
{
	size_t i;
	char why[8];

	memset(p, 0, sizeof *p);
	p->mode = ROUTE_AUTO;
	p->context_fraction = 0.9;
	memcpy(p->rules, route_config_rule_defaults, sizeof p->rules);
	for (i = 0; i < N(route_config_default_patterns); i++)
		route_config_add_pattern(&p->patterns, &p->npatterns, route_config_default_patterns[i].text,
				     0, route_config_default_patterns[i].mode, NULL, why, sizeof why);
	p->privacy = route_config_copy_strings(route_config_default_privacy, N(route_config_default_privacy));
	p->nprivacy = N(route_config_default_privacy);
	p->test_commands = route_config_copy_strings(route_config_default_tests, N(route_config_default_tests));
	p->ntest_commands = N(route_config_default_tests);
	p->spend_cap_session_usd = 2.0;
	p->spend_cap_day_usd = 10.0;
	p->prices = xmalloc(N(route_config_default_prices) * sizeof *p->prices);
	for (i = 0; i < N(route_config_default_prices); i++) {
		p->prices[i] = route_config_default_prices[i];
		p->prices[i].model = xstrdup(route_config_default_prices[i].model);
	}
	p->nprices = N(route_config_default_prices);
}

/* Free everything. */
void
route_config_release(struct route_policy *p)
{
	size_t i;

	route_config_free_patterns(p->patterns, p->npatterns);
	route_config_free_strings(p->privacy, p->nprivacy);
	route_config_free_strings(p->test_commands, p->ntest_commands);
	for (i = 0; i < p->nprices; i++)
		free(p->prices[i].model);
	free(p->prices);
	memset(p, 0, sizeof *p);
}

/* Names of the settings' enums. */
static const char *
route_config_setting_name(enum route_setting m)
{
	return m == ROUTE_ONLY_LOCAL ? "local" : m == ROUTE_ONLY_CLAUDE ? "claude" : "auto";
}

const char *
route_config_mode_name(enum route_mode m)
{
	return m == ROUTE_CONSULT ? "consult" : "handoff";
}

/* Parse "auto" / "local" / "claude". */
static int
route_config_parse_setting(const char *s, enum route_setting *out)
{
	if (!s)
		return -1;
	if (strcmp(s, "auto") == 0)
		*out = ROUTE_AUTO;
	else if (strcmp(s, "local") == 0)
		*out = ROUTE_ONLY_LOCAL;
	else if (strcmp(s, "claude") == 0)
		*out = ROUTE_ONLY_CLAUDE;
	else
		return -1;
	return 0;
}

/* Parse "handoff" / "consult". */
static int
route_config_parse_mode(const cJSON *v, enum route_mode *out)
{
	if (!cJSON_IsString(v))
		return -1;
	if (strcmp(v->valuestring, "handoff") == 0)
		*out = ROUTE_HANDOFF;
	else if (strcmp(v->valuestring, "consult") == 0)
		*out = ROUTE_CONSULT;
	else
		return -1;
	return 0;
}

/* Set the mode by name. */
int
route_config_set_mode(struct route_policy *p, const char *name, struct err *e)
{
	if (route_config_parse_setting(name, &p->mode) < 0)
		return err_set(e, "unknown route \"%s\": use auto, local or claude", name ? name : "");
	return 0;
}

/* A number >= lo (and <= hi when hi > lo) into *out, else a warning. */
static void
route_config_number(const cJSON *v, const char *org, const char *key, double lo, double hi,
		double *out, struct buf *w)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < lo || (hi > lo && v->valuedouble > hi) ||
	    v->valuedouble != v->valuedouble) {
		if (hi > lo)
			buf_addf(w, "%s: routing.%s must be a number from %g to %g; keeping %g\n",
				 org, key, lo, hi, *out);
		else
			buf_addf(w, "%s: routing.%s must be a number >= %g; keeping %g\n", org, key,
				 lo, *out);
		return;
	}
	*out = v->valuedouble;
}

/* One pattern entry: a string, or {pattern, regex?, mode?}. */
static void
route_config_pattern_entry(const cJSON *it, const char *org, struct route_pattern **v, size_t *n,
		       struct buf *w)
{
	const char *text = cJSON_IsString(it) ? it->valuestring : json_str(it, "pattern");
	enum route_mode mode = ROUTE_CONSULT;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "mode");
	const cJSON *tier = cJSON_GetObjectItemCaseSensitive(it, "tier");
	int is_regex = 0;
	char why[128];

	if (!text || !*text) {
		buf_addf(w, "%s: routing.patterns: each entry needs a non-empty \"pattern\"; "
			 "entry ignored\n", org);
		return;
	}
	if (cJSON_IsObject(it) && json_bool(it, "regex", &is_regex) < 0 &&
	    cJSON_GetObjectItemCaseSensitive(it, "regex"))
		buf_addf(w, "%s: routing.patterns \"%s\": regex must be true or false; "
			 "using a substring\n", org, text);
	if (m && route_config_parse_mode(m, &mode) < 0)
		buf_addf(w, "%s: routing.patterns \"%s\": mode must be \"handoff\" or \"consult\"; "
			 "using consult\n", org, text);
	if (tier && (!cJSON_IsString(tier) || !*tier->valuestring)) {
		buf_addf(w, "%s: routing.patterns \"%s\": tier must be the name of a tier in the servers setting; "
			 "the pattern goes to Claude\n", org, text);
		tier = NULL;
	}
	if (route_config_add_pattern(v, n, text, is_regex, mode, tier ? tier->valuestring : NULL, why, sizeof why) < 0)
		buf_addf(w, "%s: routing.patterns \"%s\": invalid regex (%s); entry ignored\n", org,
			 text, why);
}

/* Replace the pattern list. */
static void
route_config_patterns(struct route_policy *p, const cJSON *v, const char *org, struct buf *w)
{
	struct route_pattern *list = NULL;
	size_t n = 0;
	const cJSON *it;

	if (!cJSON_IsArray(v)) {
		buf_addf(w, "%s: routing.patterns must be a list; keeping the previous list\n", org);
		return;
	}
	cJSON_ArrayForEach(it, v)
		route_config_pattern_entry(it, org, &list, &n, w);
	route_config_free_patterns(p->patterns, p->npatterns);
	p->patterns = list;
	p->npatterns = n;
}

/* Replace a list of non-empty strings (privacy, test_commands). */
static void
route_config_strings(char ***listp, size_t *np, const cJSON *v, const char *org, const char *key,
		 struct buf *w)
{
	char **list;
	size_t n = 0;
	const cJSON *it;

	if (!cJSON_IsArray(v)) {
		buf_addf(w, "%s: routing.%s must be a list of strings; keeping the previous list\n",
			 org, key);
		return;
	}
	list = xmalloc(((size_t)cJSON_GetArraySize(v) + 1) * sizeof *list);
	cJSON_ArrayForEach(it, v) {
		if (cJSON_IsString(it) && *it->valuestring)
			list[n++] = xstrdup(it->valuestring);
		else
			buf_addf(w, "%s: routing.%s: entries must be non-empty strings; entry "
				 "ignored\n", org, key);
	}
	route_config_free_strings(*listp, *np);
	*listp = list;
	*np = n;
}

/* One rule object: enabled, threshold, mode. */
static void
route_config_rule(struct route_rule *r, const char *name, const cJSON *v, const char *org,
	      struct buf *w)
{
	const cJSON *it;
	int b;

	if (!cJSON_IsObject(v)) {
		buf_addf(w, "%s: routing.rules.%s must be an object; ignored\n", org, name);
		return;
	}
	cJSON_ArrayForEach(it, v) {
		const char *k = it->string, *why = NULL;

		if (strcmp(k, "enabled") == 0) {
			if (json_bool(v, "enabled", &b) == 0)
				r->enabled = b;
			else
				why = "must be true or false";
		} else if (strcmp(k, "mode") == 0) {
			if (route_config_parse_mode(it, &r->mode) < 0)
				why = "must be \"handoff\" or \"consult\"";
		} else if (strcmp(k, "threshold") == 0 && r->threshold > 0) {
			if (cJSON_IsNumber(it) && it->valuedouble >= 1 && it->valuedouble <= 1000 &&
			    it->valuedouble == (double)(int)it->valuedouble)
				r->threshold = (int)it->valuedouble;
			else
				why = "must be an integer from 1 to 1000";
		} else {
			why = "unknown key";
		}
		if (why)
			buf_addf(w, "%s: routing.rules.%s.%s %s; ignored\n", org, name, k, why);
	}
}

/* The rules object. */
static void
route_config_rules(struct route_policy *p, const cJSON *v, const char *org, struct buf *w)
{
	const cJSON *it;
	size_t i;

	if (!cJSON_IsObject(v)) {
		buf_addf(w, "%s: routing.rules must be an object; ignored\n", org);
		return;
	}
	cJSON_ArrayForEach(it, v) {
		for (i = 0; i < ROUTE_RULE_COUNT; i++)
			if (strcmp(it->string, route_config_rule_names[i]) == 0)
				break;
		if (i == ROUTE_RULE_COUNT)
			buf_addf(w, "%s: routing.rules: unknown rule \"%s\" ignored\n", org, it->string);
		else
			route_config_rule(&p->rules[i], it->string, it, org, w);
	}
}

/* The price entry for model, added when missing. */
static struct route_price *
route_config_price_slot(struct route_policy *p, const char *model)
{
	size_t i;

	for (i = 0; i < p->nprices; i++)
		if (strcmp(p->prices[i].model, model) == 0)
			return &p->prices[i];
	p->prices = xrealloc(p->prices, (p->nprices + 1) * sizeof *p->prices);
	memset(&p->prices[p->nprices], 0, sizeof *p->prices);
	p->prices[p->nprices].model = xstrdup(model);
	return &p->prices[p->nprices++];
}

/* Merge the prices table: {model: {input, output, cache_write, cache_read}}. */
static void
route_config_prices(struct route_policy *p, const cJSON *v, const char *org, struct buf *w)
{
	static const char *const keys[] = { "input", "output", "cache_write", "cache_read" };
	const cJSON *m;
	struct route_price tmp, *slot;
	double *f[4];
	size_t i;

	if (!cJSON_IsObject(v)) {
		buf_addf(w, "%s: routing.prices must be an object of model ids; ignored\n", org);
		return;
	}
	cJSON_ArrayForEach(m, v) {
		if (!cJSON_IsObject(m) || !*m->string) {
			buf_addf(w, "%s: routing.prices.%s must be an object; ignored\n", org, m->string);
			continue;
		}
		slot = route_config_price_slot(p, m->string);
		tmp = *slot;
		f[0] = &tmp.input, f[1] = &tmp.output, f[2] = &tmp.cache_write, f[3] = &tmp.cache_read;
		for (i = 0; i < 4; i++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(m, keys[i]);
			struct buf key = BUF_INIT;

			buf_addf(&key, "prices.%s.%s", m->string, keys[i]);
			if (x)
				route_config_number(x, org, key.data, 0, 0, f[i], w);
			buf_release(&key);
		}
		*slot = tmp;
	}
}

/*
 * Merge a "routing" object into p.  origin names the source in warnings
 * (a file path; NULL = "settings").  A routing value that is not an
 * object is one warning.
 */
static void
route_config_apply(struct route_policy *p, const cJSON *r, const char *org, struct buf *w)
{
	const cJSON *it;

	org = org ? org : "settings";
	if (!cJSON_IsObject(r)) {
		buf_addf(w, "%s: routing must be an object; ignored\n", org);
		return;
	}
	cJSON_ArrayForEach(it, r) {
		const char *k = it->string;

		if (strcmp(k, "mode") == 0) {
			if (route_config_parse_setting(cJSON_IsString(it) ? it->valuestring : NULL,
						   &p->mode) < 0)
				buf_addf(w, "%s: routing.mode must be \"auto\", \"local\" or "
					 "\"claude\"; keeping \"%s\"\n", org, route_config_setting_name(p->mode));
		} else if (strcmp(k, "patterns") == 0) {
			route_config_patterns(p, it, org, w);
		} else if (strcmp(k, "context_fraction") == 0) {
			route_config_number(it, org, k, 0.05, 1.0, &p->context_fraction, w);
		} else if (strcmp(k, "rules") == 0) {
			route_config_rules(p, it, org, w);
		} else if (strcmp(k, "privacy") == 0) {
			route_config_strings(&p->privacy, &p->nprivacy, it, org, k, w);
		} else if (strcmp(k, "test_commands") == 0) {
			route_config_strings(&p->test_commands, &p->ntest_commands, it, org, k, w);
		} else if (strcmp(k, "spend_cap_session_usd") == 0) {
			route_config_number(it, org, k, 0, 0, &p->spend_cap_session_usd, w);
		} else if (strcmp(k, "spend_cap_day_usd") == 0) {
			route_config_number(it, org, k, 0, 0, &p->spend_cap_day_usd, w);
		} else if (strcmp(k, "prices") == 0) {
			route_config_prices(p, it, org, w);
		} else {
			buf_addf(w, "%s: unknown setting \"routing.%s\" ignored\n", org, k);
		}
	}
}

/* Merge the routing member of a settings text. */
int
route_config_apply_text(struct route_policy *p, const char *json, size_t len, const char *org,
		    struct buf *w, struct err *e)
{
	struct err pe = ERR_INIT;
	cJSON *root = json_parse(json, len, &pe);
	const cJSON *r;

	org = org ? org : "settings";
	if (!root)
		return err_set(e, "%s: %s; routing settings not loaded", org, pe.msg);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return err_set(e, "%s: settings must be a JSON object; routing settings not loaded",
			       org);
	}
	r = cJSON_GetObjectItemCaseSensitive(root, "routing");
	if (r)
		route_config_apply(p, r, org, w);
	cJSON_Delete(root);
	return 0;
}

/* Merge the routing member of a settings file. */
static int
route_config_load_file(struct route_policy *p, const char *path, struct buf *w, struct err *e)
{
	struct buf text = BUF_INIT;
	struct stat st;
	int rc;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0; /* missing; or a FIFO (would block) or directory, which cfg reports */
	if (buf_read_file(&text, path, 1 << 20, e) < 0) {
		buf_release(&text);
		return -1;
	}
	rc = route_config_apply_text(p, text.data, text.len, path, w, e);
	buf_release(&text);
	return rc;
}

/*
 * cfg_each_file adapter for route_config_load_file.  A file that cannot be
 * read or parsed is reported by cfg_load already: say it once.
 */
static int
route_config_file(void *arg, const char *path, struct buf *w, struct err *e)
{
	struct err ignored = ERR_INIT;

	(void)e;
	route_config_load_file(arg, path, w, &ignored);
	return 0;
}

/* User then project settings. */
void
route_config_load(struct route_policy *p, const char *cwd, struct buf *w)
{
	cfg_each_file(cwd, route_config_file, p, w);
}

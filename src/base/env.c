/*
 * base/env: the children's environment (see base/env.h).  Names are
 * matched with fnmatch(3); the deny patterns with FNM_CASEFOLD so
 * `github_token` is as secret as `GITHUB_TOKEN`.
 */
#include "base/env.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

extern char **environ;

/* What every child may see (ENV_CLEAN). */
static const char *const env_allow[] = {
	"HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM", "LANG", "LANGUAGE", "LC_*", "TMPDIR", "TZ",
	"COLORTERM", "NO_COLOR",
};

/* What no child sees: credentials by their usual names (ASCII case ignored). */
static const char *const env_deny[] = {
	"*API_KEY*", "*APIKEY*", "*_KEY", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*",
	"*PASSPHRASE*", "*CREDENTIAL*", "*PRIVATE_KEY*", "*_AUTH", "*_AUTH_*", "*COOKIE*",
	"*DATABASE_URL*", "*_DSN", "ANTHROPIC_*", "CLAUDE_*", "AWS_*", "OPENAI_*", "AZURE_*",
	"GOOGLE_*", "GCP_*", "GITHUB_TOKEN", "GH_*", "HF_*", "HUGGING_FACE_*", "NPM_CONFIG_*",
};

static char **env_pass;
static size_t env_npass;

/* The name part of "NAME=value" (or all of it) into a bounded buffer; 0 when too long. */
static int
env_name(const char *s, char *out, size_t cap)
{
	size_t n = strcspn(s, "=");

	if (n >= cap)
		return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return 1;
}

/* Whether name matches one of v's patterns. */
static int
env_match(const char *const *v, size_t n, const char *name, int flags)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fnmatch(v[i], name, flags) == 0)
			return 1;
	return 0;
}

/* A secret's name. */
int
env_name_is_secret(const char *name)
{
	char nm[256];

	if (!env_name(name, nm, sizeof nm))
		return 1; /* a name this long is nobody's locale: keep it out */
	return env_match(env_deny, sizeof env_deny / sizeof env_deny[0], nm, FNM_CASEFOLD);
}

/* Replace the passthrough list. */
void
env_set_passthrough(const char *const *names, size_t n, struct buf *warnings)
{
	size_t i;

	env_clear_passthrough();
	env_pass = n ? xcalloc(n, sizeof *env_pass) : NULL;
	for (i = 0; i < n; i++) {
		env_pass[env_npass++] = xstrdup(names[i]);
		if (warnings && !strpbrk(names[i], "*?[") && env_name_is_secret(names[i]))
			buf_addf(warnings, "env_passthrough: \"%s\" is a secret's name; hearth never passes it "
				 "to bash, hooks or MCP servers (give an MCP server its own \"env\" in .mcp.json)\n",
				 names[i]);
	}
}

/* Free the list. */
void
env_clear_passthrough(void)
{
	size_t i;

	for (i = 0; i < env_npass; i++)
		free(env_pass[i]);
	free(env_pass);
	env_pass = NULL;
	env_npass = 0;
}

/* Whether the variable reaches a child. */
int
env_name_passes(const char *name, enum env_base base)
{
	char nm[256];

	if (!env_name(name, nm, sizeof nm) || !nm[0] || env_name_is_secret(nm))
		return 0;
	if (base == ENV_USER)
		return 1;
	return env_match(env_allow, sizeof env_allow / sizeof env_allow[0], nm, 0) ||
	       env_match((const char *const *)env_pass, env_npass, nm, 0);
}

/* The child's environment. */
char **
env_build(const char *const *from, const char *const *add, enum env_base base)
{
	size_t n = 0, k = 0, m = 0, i, j;
	char **v;

	if (!from)
		from = (const char *const *)environ;
	while (from[n])
		n++;
	while (add && add[k])
		k++;
	v = xcalloc(n + k + 1, sizeof *v);
	for (i = 0; i < n; i++)
		if (strchr(from[i], '=') && env_name_passes(from[i], base))
			v[m++] = (char *)from[i];
	for (j = 0; j < k; j++) {
		const char *eq = strchr(add[j], '=');
		size_t name = eq ? (size_t)(eq - add[j]) : strlen(add[j]);

		for (i = 0; i < m; i++)
			if (!strncmp(v[i], add[j], name) && v[i][name] == '=')
				break;
		if (!eq) { /* "NAME" alone unsets NAME */
			if (i < m)
				memmove(&v[i], &v[i + 1], (m-- - i) * sizeof *v);
			continue;
		}
		v[i] = (char *)add[j];
		if (i == m)
			m++;
	}
	v[m] = NULL;
	return v;
}

/* Forget our own secrets. */
size_t
env_scrub_secrets(void)
{
	size_t n = 0, i = 0;

	while (environ && environ[i]) {
		char *eq = strchr(environ[i], '=');
		char *name;

		if (!eq || !env_name_is_secret(environ[i])) {
			i++;
			continue;
		}
		name = xstrndup(environ[i], (size_t)(eq - environ[i]));
		memset(eq + 1, 0, strlen(eq + 1));
		if (unsetenv(name) < 0)
			i++; /* cannot happen for a valid name; do not loop on it */
		free(name);
		n++;
	}
	return n;
}

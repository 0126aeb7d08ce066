/*
 * front/trust: the start-up question and `hearth trust` (see front/trust.h).
 */
#include "front/trust.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/run.h"
#include "mcp/config.h"
#include "base/workspace.h"

/* Append the servers of root/.mcp.json (what would start) and its bytes for the hash. */
static void
front_trust_mcp(struct front_trust *t, const char *root)
{
	struct mcp_config c = { 0 };
	struct buf path = BUF_INIT, raw = BUF_INIT, warnings = BUF_INIT;
	struct err e = ERR_INIT;
	size_t i;

	workspace_project_file(root, ".mcp.json", &path);
	if (access(path.data, F_OK) != 0 || mcp_config_load_file(&c, path.data, &warnings, &e) < 0 || !c.n ||
	    buf_read_file(&raw, path.data, 4u << 20, &e) < 0)
		goto out; /* nothing would start: start_mcp reports the file's problems */
	buf_addf(&t->show, "  from %s:\n", path.data); /* the nearest up to the repository root */
	for (i = 0; i < c.n; i++) {
		char **a;

		buf_addf(&t->show, "    MCP server %s:", c.v[i].name);
		for (a = c.v[i].argv; a && *a; a++)
			buf_addf(&t->show, " %s", *a);
		for (a = c.v[i].env; a && *a; a++)
			buf_addf(&t->show, "%s%.*s", a == c.v[i].env ? " (env: " : ", ", (int)strcspn(*a, "="), *a);
		buf_adds(&t->show, c.v[i].env && *c.v[i].env ? ")\n" : "\n");
	}
	t->nmcp = c.n;
	buf_adds(&t->canon, "mcp ");
	buf_add(&t->canon, raw.data, raw.len);
out:
	mcp_config_release(&c);
	buf_release(&path);
	buf_release(&raw);
	buf_release(&warnings);
}

void
front_trust_collect(struct front_trust *t, const char *root)
{
	struct buf items = BUF_INIT;
	const char *p, *nl;

	memset(t, 0, sizeof *t);
	buf_init(&t->show, 0);
	buf_init(&t->canon, 0);
	buf_addf(&t->canon, "root %s\n", root);
	t->nsettings = perm_trust_settings(root, &items, &t->canon);
	if (t->nsettings) {
		struct buf proj = BUF_INIT;

		workspace_project_file(root, ".hearth/settings.json", &proj);
		buf_addf(&t->show, "  from %s:\n", proj.data);
		buf_release(&proj);
		for (p = items.data; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			buf_addf(&t->show, "    %.*s\n", (int)(nl - p), p);
		}
	}
	buf_release(&items);
	front_trust_mcp(t, root);
	perm_trust_hash(t->canon.data, t->canon.len, t->hash);
}

void
front_trust_release(struct front_trust *t)
{
	buf_release(&t->show);
	buf_release(&t->canon);
}

/* "hooks, allow rules ... in .hearth/settings.json and N MCP servers in .mcp.json" */
static void
front_trust_what(const struct front_trust *t, struct buf *out)
{
	if (t->nsettings)
		buf_addf(out, "%zu setting%s in .hearth/settings.json (hooks, allow rules or a wider approval)",
			 t->nsettings, t->nsettings == 1 ? "" : "s");
	if (t->nsettings && t->nmcp)
		buf_adds(out, " and ");
	if (t->nmcp)
		buf_addf(out, "%zu MCP server%s in .mcp.json", t->nmcp, t->nmcp == 1 ? "" : "s");
}

/* Ask on the terminal; 1 for yes. */
static int
front_trust_ask(const struct front_trust *t, const char *root, FILE *in, FILE *out)
{
	char line[64];

	fprintf(out, "\nhearth: this project's files ask for rights only you can give:\n%s", t->show.data);
	fprintf(out, "Trust them for %s?\n"
		"They are remembered until these files change (`hearth untrust` forgets).\n"
		"  y = trust and remember, n = run without them this time [y/N]: ", root);
	fflush(out);
	if (!fgets(line, sizeof line, in))
		return 0;
	return line[0] == 'y' || line[0] == 'Y';
}

int
front_trust_decide(const char *root, const char *state_dir, int yes, int can_ask, FILE *in, FILE *out)
{
	struct front_trust t;
	struct buf file = BUF_INIT, what = BUF_INIT;
	struct err e = ERR_INIT;
	int ok = 1, rc;

	front_trust_collect(&t, root);
	if (!t.nsettings && !t.nmcp)
		goto out;
	perm_trust_file(state_dir, &file);
	rc = perm_trust_check(file.data, root, t.hash, &e);
	if (rc < 0)
		fprintf(stderr, "hearth: %s\n", e.msg);
	if (rc > 0 || yes)
		goto out;
	front_trust_what(&t, &what);
	if (can_ask && front_trust_ask(&t, root, in, out)) {
		err_clear(&e);
		if (perm_trust_record(file.data, root, t.hash, &e) < 0)
			fprintf(stderr, "hearth: %s (trusted for this run only)\n", e.msg);
		goto out;
	}
	ok = 0;
	fprintf(stderr, "hearth: not using %s: not trusted yet; run `hearth trust` in %s to review and trust them, or pass --yes to trust them for this run\n",
		what.data, root);
out:
	front_trust_release(&t);
	buf_release(&file);
	buf_release(&what);
	return ok;
}

int
front_trust_main(const struct front_cli *o)
{
	struct front_trust t;
	struct buf file = BUF_INIT, state = BUF_INIT;
	struct err e = ERR_INIT;
	char root[PATH_MAX];
	int code = 0;

	if ((o->cwd && chdir(o->cwd) < 0) || !realpath(".", root)) {
		fprintf(stderr, "hearth: %s: %s\n", o->cwd ? o->cwd : ".", strerror(errno));
		return 1;
	}
	front_run_state_dir(&state);
	perm_trust_file(state.data, &file);
	if (o->trust < 0) {
		if (perm_trust_record(file.data, root, NULL, &e) < 0) {
			fprintf(stderr, "hearth: %s\n", e.msg);
			code = 1;
		} else {
			printf("hearth: %s is no longer trusted: its hooks, MCP servers and wider settings ask again\n", root);
		}
		goto out2;
	}
	front_trust_collect(&t, root);
	if (!t.nsettings && !t.nmcp) {
		printf("hearth: nothing in %s needs trust (no hooks, allow rules, wider approval in .hearth/settings.json, no servers in .mcp.json)\n",
		       root);
	} else if (perm_trust_record(file.data, root, t.hash, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 1;
	} else {
		printf("hearth: trusted for %s (until these change):\n%s", root, t.show.data);
	}
	front_trust_release(&t);
out2:
	buf_release(&file);
	buf_release(&state);
	return code;
}

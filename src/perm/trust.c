/*
 * perm/trust: the trust file and what a project's settings ask to be
 * trusted with (see perm/trust.h).
 */
#include "perm/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <git2.h>

#include "base/cfg.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/xmalloc.h"
#include "perm/perm.h"
#include "base/workspace.h"

#define PERM_TRUST_MAX_FILE (4u << 20)

/* cfg_each_file collector: the user's approval and the project file's JSON. */
struct perm_trust_files {
	const char *project; /* ROOT/.hearth/settings.json */
	enum perm_mode base; /* the mode before the project's file */
	cJSON *proj;
};

/* Parse a settings file; NULL when missing or not an object (cfg reports those). */
static cJSON *
perm_trust_read(const char *path)
{
	struct buf text = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	cJSON *root = NULL;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && buf_read_file(&text, path, 1 << 20, &e) == 0)
		root = json_parse(text.data, text.len, &e);
	buf_release(&text);
	if (root && !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

static int
perm_trust_file_cb(void *arg, const char *path, struct buf *warnings, struct err *e)
{
	struct perm_trust_files *f = arg;
	cJSON *root;
	const char *mode;

	(void)warnings;
	(void)e;
	if (!strcmp(path, f->project)) {
		cJSON_Delete(f->proj);
		f->proj = perm_trust_read(path);
		return 0;
	}
	if ((root = perm_trust_read(path)) != NULL && (mode = json_str(root, "approval")) != NULL)
		perm_mode_parse(mode, &f->base);
	cJSON_Delete(root);
	return 0;
}

/* One hook entry as its command (a string, or {"command": ...}). */
static const char *
perm_trust_hook_cmd(const cJSON *e)
{
	return cJSON_IsString(e) ? e->valuestring : json_str(e, "command");
}

/* The project settings' widening items (see perm/trust.h). */
size_t
perm_trust_settings(const char *root, struct buf *show, struct buf *canon)
{
	struct perm_trust_files f = { NULL, PERM_AUTO_EDIT, NULL };
	struct buf path = BUF_INIT, warnings = BUF_INIT;
	const cJSON *v, *it, *e;
	cJSON *c = cJSON_CreateObject();
	enum perm_mode m;
	size_t n = 0;
	char *s;

	workspace_project_file(root, ".hearth/settings.json", &path);
	f.project = path.data;
	cfg_each_file(root, perm_trust_file_cb, &f, &warnings);
	if (!f.proj)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(f.proj, "approval");
	if (cJSON_IsString(v) && perm_mode_parse(v->valuestring, &m) == 0 && m > f.base) {
		buf_addf(show, "approval mode \"%s\" (instead of \"%s\")\n", v->valuestring, perm_mode_name(f.base));
		cJSON_AddStringToObject(c, "approval", v->valuestring);
		n++;
	}
	v = json_obj(f.proj, "permissions");
	if ((v = v ? json_arr(v, "allow") : NULL) != NULL && cJSON_GetArraySize(v) > 0) {
		cJSON_ArrayForEach(it, v)
			if (cJSON_IsString(it)) {
				buf_addf(show, "allow rule: %s\n", it->valuestring);
				n++;
			}
		cJSON_AddItemToObject(c, "allow", cJSON_Duplicate(v, 1));
	}
	if ((v = json_obj(f.proj, "hooks")) != NULL && v->child) {
		cJSON_ArrayForEach(it, v) {
			if (!cJSON_IsArray(it))
				continue;
			cJSON_ArrayForEach(e, it) {
				const char *cmd = perm_trust_hook_cmd(e);

				buf_addf(show, "%s hook: %s\n", it->string, cmd ? cmd : "(no command)");
				n++;
			}
		}
		cJSON_AddItemToObject(c, "hooks", cJSON_Duplicate(v, 1));
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f.proj, "allow_outside_workspace"))) {
		buf_adds(show, "allow_outside_workspace: true (tools may change files outside the workspace)\n");
		cJSON_AddTrueToObject(c, "allow_outside_workspace");
		n++;
	}
	if ((v = json_obj(f.proj, "serve")) != NULL && (v = cJSON_GetObjectItemCaseSensitive(v, "binary")) != NULL) {
		buf_addf(show, "serve.binary: %s (a program hearth starts)\n",
			 cJSON_IsString(v) ? v->valuestring : "(not a string)");
		cJSON_AddItemToObject(c, "serve.binary", cJSON_Duplicate(v, 1));
		n++;
	}
	if (((v = json_obj(f.proj, "serve")) != NULL && (v = cJSON_GetObjectItemCaseSensitive(v, "args")) != NULL) ||
	    (v = cJSON_GetObjectItemCaseSensitive(f.proj, "serve.args")) != NULL) {
		char *a = json_print(v);

		buf_addf(show, "serve.args: %s (arguments of the llama-server hearth starts)\n", a);
		free(a);
		cJSON_AddItemToObject(c, "serve.args", cJSON_Duplicate(v, 1));
		n++;
	}
	if (n) {
		s = json_print(c);
		buf_addf(canon, "settings %s\n", s);
		free(s);
	}
out:
	cJSON_Delete(c);
	cJSON_Delete(f.proj);
	buf_release(&path);
	buf_release(&warnings);
	return n;
}

static void
perm_trust_git_init(void)
{
	git_libgit2_init();
}

/* SHA-1 of data as a git blob, in hex. */
void
perm_trust_hash(const void *data, size_t n, char out[PERM_TRUST_HEX + 1])
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	git_oid oid;

	pthread_once(&once, perm_trust_git_init);
	if (git_odb_hash(&oid, data, n, GIT_OBJECT_BLOB) < 0) {
		memset(out, '0', PERM_TRUST_HEX); /* trusts nothing: no record has this */
		out[PERM_TRUST_HEX] = '\0';
		return;
	}
	git_oid_tostr(out, PERM_TRUST_HEX + 1, &oid);
}

void
perm_trust_file(const char *state_dir, struct buf *out)
{
	buf_addf(out, "%s/trust.json", state_dir);
}

/* Load the trust file: *out (NULL when missing); -1 + e when unreadable or corrupt. */
static int
perm_trust_load(const char *file, cJSON **out, struct err *e)
{
	struct buf text = BUF_INIT;
	struct err pe = ERR_INIT;
	const cJSON *projects;
	cJSON *root;

	*out = NULL;
	if (access(file, F_OK) != 0 && errno == ENOENT)
		return 0;
	if (buf_read_file(&text, file, PERM_TRUST_MAX_FILE, &pe) < 0) {
		buf_release(&text);
		return err_set(e, "trust file %s: %s; no project is trusted until it can be read", file, pe.msg);
	}
	root = json_parse(text.data, text.len, &pe);
	buf_release(&text);
	if (!root)
		return err_set(e, "trust file %s is corrupt (%s); no project is trusted: run `hearth trust` in a project to rewrite it",
			       file, pe.msg);
	projects = json_obj(root, "projects");
	if (!projects) {
		cJSON_Delete(root);
		return err_set(e, "trust file %s has no \"projects\" object; no project is trusted: run `hearth trust` in a project to rewrite it",
			       file);
	}
	*out = root;
	return 0;
}

int
perm_trust_check(const char *file, const char *root, const char *hash, struct err *e)
{
	cJSON *t;
	const char *h;
	int yes;

	if (perm_trust_load(file, &t, e) < 0)
		return -1;
	h = t ? json_str(json_obj(t, "projects"), root) : NULL;
	yes = h && hash && strlen(h) == PERM_TRUST_HEX && !strcmp(h, hash);
	cJSON_Delete(t);
	return yes;
}

/* Write text to file through a 0600 temp file in its directory and a rename. */
static int
perm_trust_write(const char *file, const char *text, struct err *e)
{
	struct buf dir = BUF_INIT, tmp = BUF_INIT;
	const char *slash = strrchr(file, '/');
	int fd, rc = 0;

	if (slash && slash > file)
		buf_add(&dir, file, (size_t)(slash - file));
	else
		buf_adds(&dir, slash ? "/" : ".");
	if (fs_mkdirs(dir.data, e) < 0) {
		buf_release(&dir);
		return -1;
	}
	chmod(dir.data, 0700);
	buf_addf(&tmp, "%s.XXXXXX", file);
	if ((fd = mkstemp(tmp.data)) < 0) { /* mkstemp makes it 0600 */
		rc = err_errno(e, "write trust file %s", file);
	} else {
		if (fchmod(fd, 0600) < 0 || fs_write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0)
			rc = err_errno(e, "write trust file %s", file);
		if (close(fd) < 0 && rc == 0)
			rc = err_errno(e, "write trust file %s", file);
		if (rc == 0 && rename(tmp.data, file) < 0)
			rc = err_errno(e, "write trust file %s", file);
		if (rc < 0)
			unlink(tmp.data);
	}
	buf_release(&dir);
	buf_release(&tmp);
	return rc;
}

int
perm_trust_record(const char *file, const char *root, const char *hash, struct err *e)
{
	struct err le = ERR_INIT;
	cJSON *t = NULL, *projects;
	char *text;
	int rc;

	if (perm_trust_load(file, &t, &le) < 0 || !t) {
		cJSON_Delete(t);
		t = cJSON_CreateObject();
		cJSON_AddNumberToObject(t, "version", 1);
		cJSON_AddObjectToObject(t, "projects");
	}
	projects = cJSON_GetObjectItemCaseSensitive(t, "projects");
	cJSON_DeleteItemFromObjectCaseSensitive(projects, root);
	if (hash)
		cJSON_AddStringToObject(projects, root, hash);
	text = cJSON_Print(t);
	rc = perm_trust_write(file, text, e);
	free(text);
	cJSON_Delete(t);
	return rc;
}

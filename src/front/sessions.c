/* front/sessions: --export and the -r picker (see front/sessions.h). */
#include "front/sessions.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cfg.h"
#include "base/xmalloc.h"
#include "base/workspace.h"
#include "front/run.h"
#include "llama/slotfile.h"
#include "session/export.h"
#include "session/list.h"

/* --export SESSION FILE: no server, no agent. */
int
front_sessions_export(struct front_cli *o)
{
	char root[PATH_MAX];
	struct buf path = BUF_INIT, warnings = BUF_INIT;
	struct err e = ERR_INIT;
	int code = 0;

	if ((o->cwd && chdir(o->cwd) < 0) || !realpath(".", root)) {
		fprintf(stderr, "hearth: %s: %s\n", o->cwd ? o->cwd : ".", strerror(errno));
		return FRONT_CLI_EXIT_USAGE;
	}
	if (session_list_resolve(root, o->export_session, &path, &e) < 0 ||
	    session_export_file(path.data, o->export_file, &warnings, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 1;
	}
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	buf_release(&path);
	buf_release(&warnings);
	return code;
}

/* Remove path if it exists; the name goes to `gone`. -1 + e on another error. */
static int
front_sessions_unlink(const char *path, struct buf *gone, struct err *e)
{
	if (unlink(path) == 0) {
		buf_addf(gone, "\n  %s", path);
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	err_set(e, "could not delete %s: %s", path, strerror(errno));
	return -1;
}

/* Delete session arg of root with its slot files. */
int
front_sessions_delete_id(const char *root, const char *arg, struct buf *gone, struct err *e)
{
	struct buf path = BUF_INIT, state = BUF_INIT, p = BUF_INIT, name = BUF_INIT, warnings = BUF_INIT;
	struct cfg user;
	const char *base;
	char *id;
	size_t n;
	int rc = 0;

	if (!*arg || strchr(arg, '/')) {
		err_set(e, "--delete-session takes a session id or a unique prefix of one (hearth -r lists them), not a path");
		return -2;
	}
	if (session_list_resolve(root, arg, &path, e) < 0)
		return -1;
	base = strrchr(path.data, '/') ? strrchr(path.data, '/') + 1 : path.data;
	n = strlen(base);
	id = xstrndup(base, n > 6 && !strcmp(base + n - 6, ".jsonl") ? n - 6 : n);
	buf_addf(gone, "%s", id);
	if (front_sessions_unlink(path.data, gone, e) < 0) {
		buf_reset(gone); /* nothing went */
		free(id);
		buf_release(&path);
		return -1;
	}
	/* the slot files: hearth's own server's, the record of what they hold, an external server's the user named */
	front_run_state_dir(&state);
	llama_slotfile_filename(id, &name);
	buf_addf(&p, "%s/slots/%s", state.data, name.data);
	rc |= front_sessions_unlink(p.data, gone, e);
	buf_reset(&p);
	buf_addf(&p, "%s/slotfiles", state.data);
	{
		struct buf rec = BUF_INIT;

		llama_slotfile_rec_path(p.data, id, &rec);
		rc |= front_sessions_unlink(rec.data, gone, e);
		buf_release(&rec);
	}
	front_run_user_cfg(root, &user, &warnings); /* where an external server keeps slot files: the user's own */
	if (user.slot_save_dir && *user.slot_save_dir) {
		buf_reset(&p);
		buf_addf(&p, "%s/%s", user.slot_save_dir, name.data);
		rc |= front_sessions_unlink(p.data, gone, e);
	}
	cfg_release(&user);
	free(id);
	buf_release(&path);
	buf_release(&state);
	buf_release(&p);
	buf_release(&name);
	buf_release(&warnings);
	return rc ? -1 : 0;
}

/* --delete-session ID */
int
front_sessions_delete(struct front_cli *o)
{
	char root[PATH_MAX];
	struct buf gone = BUF_INIT;
	struct err e = ERR_INIT;
	const char *nl;
	int rc;

	if ((o->cwd && chdir(o->cwd) < 0) || !realpath(".", root)) {
		fprintf(stderr, "hearth: %s: %s\n", o->cwd ? o->cwd : ".", strerror(errno));
		return FRONT_CLI_EXIT_USAGE;
	}
	rc = front_sessions_delete_id(root, o->delete_session, &gone, &e);
	if (rc == -2 || (rc < 0 && !gone.len)) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		buf_release(&gone);
		return rc == -2 ? FRONT_CLI_EXIT_USAGE : 1;
	}
	nl = strchr(gone.data, '\n');
	printf("deleted session %.*s:%s\n", nl ? (int)(nl - gone.data) : (int)gone.len, gone.data,
	       nl ? nl : "");
	if (rc < 0)
		fprintf(stderr, "hearth: %s\n", e.msg);
	buf_release(&gone);
	return rc < 0 ? 1 : 0;
}

/* This directory's sessions, newest first (errors are printed). */
int
front_sessions_sessions(struct front_cli *o, char *root, struct session_list_info **v, size_t *n)
{
	struct err e = ERR_INIT;

	if ((o->cwd && chdir(o->cwd) < 0) || !realpath(".", root) ||
	    session_list_list(root, v, n, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg[0] ? e.msg : strerror(errno));
		return -1;
	}
	if (!*n) {
		fprintf(stderr, "hearth: no saved sessions for %s\n", root);
		session_list_free(*v, *n);
		*v = NULL;
		return -1;
	}
	return 0;
}

/*
 * -r without an id: show the sessions of this directory, newest first; on
 * a terminal, read the number of the one to resume.  Returns -1 to go on
 * (o->resume_id set) or an exit code.
 */
int
front_sessions_pick(struct front_cli *o, char *chosen, size_t chosen_size)
{
	struct session_list_info *v = NULL;
	char root[PATH_MAX], line[32];
	size_t n = 0, i;
	long k;
	int code = -1;

	if (front_sessions_sessions(o, root, &v, &n) < 0)
		return 1;
	for (i = 0; i < n && i < 20; i++)
		fprintf(stderr, "%3zu  %s  %4zu msgs  %ldm ago  %s\n", i + 1, v[i].id, v[i].nmsgs,
			(long)(time(NULL) - v[i].mtime) / 60, v[i].first_prompt ? v[i].first_prompt : "");
	if (o->print || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "hearth: pass the session to resume: hearth -r ID\n");
		code = FRONT_CLI_EXIT_USAGE;
	} else {
		fprintf(stderr, "resume which? [1-%zu] ", n < 20 ? n : 20);
		k = fgets(line, sizeof line, stdin) ? strtol(line, NULL, 10) : 0;
		if (k < 1 || (size_t)k > n || k > 20) {
			code = FRONT_CLI_EXIT_USAGE;
		} else {
			snprintf(chosen, chosen_size, "%s", v[k - 1].id);
			o->resume_id = chosen;
		}
	}
	session_list_free(v, n);
	return code;
}


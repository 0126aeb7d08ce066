/* front/sessions: --export and the -r picker (see front/sessions.h). */
#include "front/sessions.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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


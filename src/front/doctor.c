/*
 * front/doctor: `hearth doctor` (see front/doctor.h).
 */
#include "front/doctor.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cfg.h"
#include "front/run.h"
#include "io/http.h"
#include "io/loop.h"
#include "llama/doctor.h"

#define DOCTOR_TIMEOUT_MS 15000

int
front_doctor_main(const struct front_cli *o)
{
	struct cfg cfg;
	struct buf warnings = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	struct loop *l = NULL;
	struct http *h = NULL;
	char root[PATH_MAX];
	int rc, code;

	if ((o->cwd && chdir(o->cwd) < 0) || !realpath(".", root)) {
		fprintf(stderr, "hearth: %s: %s\n", o->cwd ? o->cwd : ".", strerror(errno));
		return 1;
	}
	cfg_defaults(&cfg);
	cfg_load(&cfg, root, &warnings);
	if (warnings.len) {
		buf_rtrim(&warnings);
		fprintf(stderr, "hearth: %s\n", warnings.data);
	}
	front_run_server_env(&cfg, o->server);
	if (o->model) {
		free(cfg.model);
		cfg.model = strdup(o->model);
	}
	if (!(l = loop_new(&e)) || !(h = http_new(l, &e))) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 1;
		goto out;
	}
	rc = llama_doctor_run(l, h, &cfg, 0, DOCTOR_TIMEOUT_MS, &out, &e);
	if (rc < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 3;
		goto out;
	}
	fputs(out.data ? out.data : "", stdout);
	if (rc)
		printf("%d thing%s to change.\n", rc, rc == 1 ? "" : "s");
	else
		printf("nothing to change.\n");
	code = rc ? 1 : 0;
out:
	http_free(h);
	if (l)
		loop_free(l);
	buf_release(&warnings);
	buf_release(&out);
	cfg_release(&cfg);
	return code;
}

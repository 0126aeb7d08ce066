/*
 * main: the modes.  Start-up stays lazy so `hearth --version` costs little
 * more than the dynamic loader: arguments are parsed first, and the loop,
 * curl, the settings files and the tools are only touched once a run needs
 * them (front/run.c).  Print mode lives in front/print.c, the sessions in
 * front/line.c and ui/app; all three run their turns through front/turn.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "io/loop.h"
#include "io/proc.h"
#include "front/line.h"
#include "ui/app/app.h"
#include "ui/app/demo.h"
#include "ui/app/picker.h"
#include "front/sessions.h"

#include "front/print.h"
#include "front/run.h"
#include "front/trust.h"
#include "front/doctor.h"
#include "front/bench.h"

/* Largest piped input read (16 MiB) and how long a task given as arguments waits for it. */
#define STDIN_MAX (16u << 20)
#define STDIN_WAIT_MS 3000

/*
 * Read stdin as a stream when it is not a terminal: a pipe, a file, or a
 * socket (what Node's child_process gives; /dev/stdin cannot be opened on
 * one).  With no task in the arguments the piped text is the task, and we
 * wait for it as long as it takes.  With a task, the piped text follows it
 * after a blank line (`cat f | hearth -p "explain"`, as Claude Code does);
 * when nothing arrives within STDIN_WAIT_MS the task goes on alone, since a
 * caller may leave stdin open without writing to it.
 */
static int
read_stdin_task(struct buf *task)
{
	struct buf in = BUF_INIT;
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	char chunk[65536];
	int wait_ms = task->len ? STDIN_WAIT_MS : -1, rc = 0;

	if (isatty(STDIN_FILENO) || fcntl(STDIN_FILENO, F_GETFL) < 0)
		return 0;
	for (;;) {
		ssize_t n;
		int pr = poll(&pfd, 1, wait_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			fprintf(stderr, "hearth: nothing on stdin within %d s; going on with the task alone "
				"(give stdin </dev/null to skip the wait)\n", STDIN_WAIT_MS / 1000);
			break;
		}
		wait_ms = -1; /* data started: read it to the end */
		n = read(STDIN_FILENO, chunk, sizeof chunk);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < 0) {
			fprintf(stderr, "hearth: reading the task from stdin: %s\n", strerror(errno));
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		if (in.len + (size_t)n > STDIN_MAX) {
			fprintf(stderr, "hearth: stdin holds more than %u MiB; pass a large file as @path in the task instead\n",
				STDIN_MAX >> 20);
			rc = -1;
			break;
		}
		buf_add(&in, chunk, (size_t)n);
	}
	buf_rtrim(&in);
	if (rc == 0 && in.len) {
		if (task->len)
			buf_adds(task, "\n\n");
		buf_add(task, in.data, in.len);
	}
	buf_release(&in);
	return rc;
}

/* Interactive session: the full screen on a terminal, else (or with --line) line mode. */
static int
run_interactive(struct front_cli *o)
{
	struct front_run r;
	struct front_session d;
	int code;

	if ((code = front_run_open(&r, o)) >= 0)
		return code;
	loop_set_before_sleep(r.loop, NULL, NULL);
	front_run_session(&r, &d);
	code = 1;
	if (o->tui || (!o->line && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
		code = app_run(&d); /* 1: the terminal could not be taken over, d untouched */
	if (code == 1 && !o->tui)
		code = front_line_run(&d);
	front_run_release(&r);
	return code;
}

/* `hearth stats`: what escalation cost and bought. */
static int
print_stats(void)
{
	struct buf dir = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	int code = 0;

	front_run_state_dir(&dir);
	if (route_escalate_stats(dir.data, &out, &e) < 0) {
		fprintf(stderr, "hearth: %s\n", e.msg);
		code = 1;
	} else {
		fputs(out.data, stdout);
	}
	buf_release(&dir);
	buf_release(&out);
	return code;
}

/* Entry point. */
int
main(int argc, char **argv)
{
	struct front_cli o;
	const char *logp;
	char chosen[64];
	int code;

	/* `hearth bench` has its own options (front/bench.h): it runs agents, it is not one */
	if (argc >= 2 && strcmp(argv[1], "bench") == 0)
		return front_bench_main(argc - 1, argv + 1);
	memset(&o, 0, sizeof o);
	o.thinking = -1;
	buf_init(&o.task, 0);
	buf_init(&o.allowed_tools, 0);
	buf_init(&o.disallowed_tools, 0);
	if ((code = front_cli_parse(argc, argv, &o)) >= 0)
		goto out;
	logp = o.log_path ? o.log_path : getenv("HEARTH_LOG");
	if (logp && *logp) {
		struct err e = ERR_INIT;

		if (log_open(logp, &e) < 0)
			fprintf(stderr, "hearth: %s (continuing without a log)\n", e.msg);
	}
	if (o.export_session) {
		code = front_sessions_export(&o);
		goto out;
	}
	if (o.delete_session) {
		code = front_sessions_delete(&o);
		goto out;
	}
	if (o.demo) {
		code = app_demo_run(o.theme);
		goto out;
	}
	if (o.stats) {
		code = print_stats();
		goto out;
	}
	if (o.trust) {
		code = front_trust_main(&o);
		goto out;
	}
	if (o.doctor) {
		code = front_doctor_main(&o);
		goto out;
	}
	{
		struct err e = ERR_INIT;

		/* before any thread: the guardian is forked (children die with hearth, even by SIGKILL) */
		if (proc_guard_start(&e) < 0)
			fprintf(stderr, "hearth: %s (children may outlive a killed hearth)\n", e.msg);
	}
	if (o.resume && !o.resume_id && (code = !o.print && !o.line && isatty(STDIN_FILENO) &&
	    isatty(STDOUT_FILENO) ? app_picker_main(&o, chosen, sizeof chosen)
	    : front_sessions_pick(&o, chosen, sizeof chosen)) >= 0)
		goto out;
	if (!o.print) {
		code = run_interactive(&o);
		goto out;
	}
	if (o.input_stream_json) { /* stdin carries the turns (front/print.c) */
		code = front_print_main(&o);
		goto out;
	}
	if (read_stdin_task(&o.task) < 0) {
		code = FRONT_CLI_EXIT_USAGE;
		goto out;
	}
	if (!o.task.len) {
		code = front_cli_usage_error("%s", "no task: pass it as arguments (hearth -p \"task\") or on stdin");
		goto out;
	}
	code = front_print_main(&o);
out:
	front_cli_release(&o);
	log_close();
	return code;
}

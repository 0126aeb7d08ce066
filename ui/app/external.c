/*
 * ui/app/external: running the user's editor (see ui/app/external.h).
 *
 * run_wait() is the one place that forks: the child gets base/env.h's
 * ENV_USER environment (ours without secrets), restores default
 * signal dispositions and an empty mask, gets a blocking stdin, and execs
 * /bin/sh -c 'CMD "$@"' sh ARGS...; the parent waits, retrying on EINTR,
 * with SIGINT/SIGQUIT ignored around the wait and restored afterwards.
 * The tmux pane command is one shell string (tmux runs it through the
 * shell of its server), built with every argument single-quoted.
 */
#include "ui/app/external.h"

#include "base/env.h"
#include "base/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The editor command. */
const char *
app_external_editor(void)
{
	const char *v = getenv("VISUAL");

	if (!v || !*v)
		v = getenv("EDITOR");
	return v && *v ? v : "vi";
}

/* In the child: default signals, empty mask, blocking stdin; then exec with envp. */
static void
child_exec(const char *const *argv, char **envp)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE, SIGTSTP,
		SIGCHLD };
	sigset_t none;
	size_t i;
	int fl = fcntl(STDIN_FILENO, F_GETFL);

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fl >= 0)
		fcntl(STDIN_FILENO, F_SETFL, fl & ~O_NONBLOCK);
	execve("/bin/sh", (char *const *)(uintptr_t)argv, envp);
	_exit(127);
}

/* Run argv (argv[0] = "/bin/sh"...) and wait; the exit status or -1 + e. */
static int
run_wait(const char *const *argv, struct err *e)
{
	struct sigaction ign, old_int, old_quit;
	pid_t pid, w;
	int st = 0, fl = fcntl(STDIN_FILENO, F_GETFL); /* the child shares stdin's flags */
	char **envp = env_build(NULL, NULL, ENV_USER); /* the user's editor: all but secrets (base/env.h) */

	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0)
		child_exec(argv, envp);
	free(envp);
	if (pid > 0)
		while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (fl >= 0)
		fcntl(STDIN_FILENO, F_SETFL, fl);
	if (pid < 0)
		return err_errno(e, "start the editor");
	if (WIFSIGNALED(st))
		return err_set(e, "editor '%s' was killed by signal %d", app_external_editor(),
		    WTERMSIG(st));
	return WEXITSTATUS(st);
}

/* Run the editor on `file` (line > 0: "+LINE" first) with the terminal. */
static int
run_editor(struct term *t, const char *file, long line, struct err *e)
{
	char cmd[1024], plus[32];
	const char *argv[7];
	size_t k = 0;
	int rc;
	struct err re = ERR_INIT;

	snprintf(cmd, sizeof cmd, "%s \"$@\"", app_external_editor());
	snprintf(plus, sizeof plus, "+%ld", line);
	argv[k++] = "/bin/sh";
	argv[k++] = "-c";
	argv[k++] = cmd;
	argv[k++] = "sh";
	if (line > 0)
		argv[k++] = plus;
	argv[k++] = file;
	argv[k] = NULL;
	if (t && term_suspend(t, e) < 0)
		return -1;
	rc = run_wait(argv, e);
	if (t && term_resume(t, &re) < 0 && rc == 0) {
		*e = re;
		return -1;
	}
	if (rc == 127)
		return err_set(e, "editor '%s' not found; set $VISUAL or $EDITOR", app_external_editor());
	if (rc > 0)
		return err_set(e, "editor '%s' exited with status %d; nothing changed",
		    app_external_editor(), rc);
	return rc < 0 ? -1 : 0;
}

/* Write all of s to fd; 0 or -1. */
static int
write_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Edit text through a temporary file. */
int
app_external_text(struct term *t, const char *text, size_t n, struct buf *out, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	char path[1024];
	struct buf b = BUF_INIT;
	int fd, rc;

	snprintf(path, sizeof path, "%s/hearth-prompt-XXXXXX.md", dir && *dir ? dir : "/tmp");
	fd = mkstemps(path, 3); /* mode 0600 */
	if (fd < 0)
		return err_errno(e, "create a temporary file for the editor in %s",
		    dir && *dir ? dir : "/tmp");
	if (write_all(fd, text, n) < 0 || close(fd) < 0) {
		err_errno(e, "write %s", path);
		unlink(path);
		return -1;
	}
	rc = run_editor(t, path, 0, e);
	if (rc == 0 && buf_read_file(&b, path, APP_EXTERNAL_MAX_BYTES, e) < 0)
		rc = -1;
	unlink(path);
	if (rc < 0) {
		buf_release(&b);
		return -1;
	}
	if (b.len && b.data[b.len - 1] == '\n')
		buf_setlen(&b, b.len - 1);
	buf_reset(out);
	buf_add(out, b.data ? b.data : "", b.len);
	buf_release(&b);
	return 0;
}

/* Open a file in the foreground editor. */
static int
app_external_file(struct term *t, const char *path, long line, struct err *e)
{
	return run_editor(t, path, line, e);
}

/* Open a file in a new tmux pane. */
int
app_external_tmux(const char *dir, const char *path, long line, struct err *e)
{
	struct buf cmd = BUF_INIT;
	char plus[32];
	const char *argv[9];
	int rc;

	if (!getenv("TMUX") || !*getenv("TMUX"))
		return err_set(e, "open in a tmux pane: not running inside tmux ($TMUX is unset)");
	buf_addf(&cmd, "%s", app_external_editor());
	if (line > 0) {
		snprintf(plus, sizeof plus, "+%ld", line);
		buf_addch(&cmd, ' ');
		buf_add_shquoted(&cmd, plus);
	}
	buf_addch(&cmd, ' ');
	buf_add_shquoted(&cmd, path);
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = "exec tmux split-window -h -c \"$1\" \"$2\" </dev/null >/dev/null";
	argv[3] = "sh";
	argv[4] = dir;
	argv[5] = cmd.data;
	argv[6] = NULL;
	rc = run_wait(argv, e);
	buf_release(&cmd);
	if (rc > 0)
		return err_set(e, "tmux split-window failed (status %d)", rc);
	return rc < 0 ? -1 : 0;
}

/* Parse "FILE[:LINE]". */
int
app_external_target(const char *args, struct buf *path, long *line, struct err *e)
{
	size_t n, c;

	buf_reset(path);
	*line = 0;
	while (*args == ' ' || *args == '\t')
		args++;
	n = strlen(args);
	while (n && (args[n - 1] == ' ' || args[n - 1] == '\t' || args[n - 1] == '\n'))
		n--;
	if (!n)
		return err_set(e, "/open: give a file, as in /open src/main.c:42");
	for (c = n; c > 0 && args[c - 1] >= '0' && args[c - 1] <= '9'; c--)
		;
	if (c > 1 && c < n && args[c - 1] == ':' && n - c < 10) {
		*line = strtol(args + c, NULL, 10);
		n = c - 1;
	}
	buf_add(path, args, n);
	return 0;
}

/* /open FILE[:LINE]. */
enum cmd_result
app_external_open_cmd(struct term *t, const char *root, const char *open_in, const char *args,
    struct buf *out)
{
	struct buf name = BUF_INIT, abs = BUF_INIT;
	struct err e = ERR_INIT;
	struct stat st;
	long line;
	int pane = open_in && !strcmp(open_in, "tmux-pane"), rc = -1;

	if (open_in && *open_in && !pane && strcmp(open_in, "editor"))
		err_set(&e, "setting open_in: unknown value \"%s\"; use \"editor\" or \"tmux-pane\"",
		    open_in);
	else if (app_external_target(args, &name, &line, &e) == 0 &&
	    workspace_resolve(root, 1, name.data, &abs, &e) == 0) {
		if (stat(abs.data, &st) < 0)
			err_errno(&e, "/open %s", name.data);
		else if (S_ISDIR(st.st_mode))
			err_set(&e, "/open %s: is a directory; give a file", name.data);
		else if (pane && getenv("TMUX") && *getenv("TMUX"))
			rc = app_external_tmux(root, abs.data, line, &e);
		else
			rc = app_external_file(t, abs.data, line, &e);
	}
	if (rc == 0)
		buf_addf(out, "opened %s%s%.0ld in %s", name.data, line ? ":" : "", line,
		    pane && getenv("TMUX") ? "a tmux pane" : app_external_editor());
	else
		buf_adds(out, e.msg);
	buf_release(&name);
	buf_release(&abs);
	return rc == 0 ? CMD_DONE : CMD_ERROR;
}

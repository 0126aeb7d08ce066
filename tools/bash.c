/*
 * bash: the model's shell, `bash{command, timeout?}` (design.md §4).
 *
 * Runs `/bin/sh -c command` through proc (own session and process group,
 * stdin /dev/null, stdout+stderr merged, in the workspace root) and
 * finishes the job from the proc's exit callback, so the UI stays live.
 * With env->sandbox the command runs as sandbox_wrap says (bwrap around
 * it, or landlock entered through proc's pre_exec hook, TMPDIR private);
 * after it, sandbox_after removes what the sandbox left or the command
 * made in a protected place, and sandbox_hint tells the model once what
 * is writable when its output shows a write the sandbox refused.
 *
 * Output: a bash_run keeps everything in `mem` while the total is at most
 * BASH_KEEP bytes.  Past that it opens a save file under state_dir, writes
 * what it had plus every later byte there (byte-exact), and lets `mem`
 * hold only a tail window (trimmed when it grows past 4 * BASH_KEEP, so
 * memory stays bounded while copying stays amortised).  The result shows
 * the last BASH_KEEP bytes cut at a line start, as valid UTF-8 (invalid
 * bytes and NULs become U+FFFD), and names the save file.
 *
 * Errors: a non-zero exit is an ordinary result (is_error 0); a spawn
 * failure, a timeout or a cancel sets is_error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/loop.h"
#include "io/proc.h"
#include "io/sandbox.h"
#include "base/json.h"
#include "base/sanitize.h"
#include "tools/bash_readonly.h"
#include "llm/tool.h"
#include "base/xmalloc.h"

#define BASH_KEEP (50 * 1024)            /* bytes of output shown to the model */
#define BASH_SAVE_MAX ((uint64_t)256 << 20) /* the save file stops growing here */
#define BASH_TIMEOUT_S 120
#define BASH_TIMEOUT_MAX_S 600

struct bash_run {
	struct tool_job *job;
	struct proc *proc;
	struct buf mem;      /* all output, or (once saving) a tail of it */
	uint64_t total;      /* bytes the command wrote */
	int save_fd;         /* -1 until the output passes BASH_KEEP */
	char *save_path;     /* malloc'd; NULL when not saved */
	uint64_t saved;      /* bytes in the save file */
	char save_err[256];  /* why the full output is not (all) saved; "" = fine */
	int timeout_s;
	struct sandbox_cmd sc; /* the command as the sandbox wraps it (io/sandbox) */
	struct sandbox_strv env;
};

/* Environment for commands that must never wait for a person. */
static const char *const bash_env[] = {
	"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "TERM=dumb",
	NULL
};

/* mkdir -p with mode 0700 for the directories it creates. */
static int
bash_mkdirs(const char *dir)
{
	char *p = xstrdup(dir), *s, c;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

/* Open the save file: state_dir (created 0700), else $TMPDIR or /tmp. */
static void
bash_save_open(struct bash_run *r)
{
	const char *dir = r->job->env->state_dir;
	struct buf path = BUF_INIT;
	int fd;

	if (!dir || !*dir) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	} else if (bash_mkdirs(dir) < 0) {
		snprintf(r->save_err, sizeof r->save_err, "create %s: %s", dir, strerror(errno));
		return;
	}
	buf_addf(&path, "%s/bash-output-XXXXXX.log", dir);
	fd = mkstemps(path.data, 4);
	if (fd < 0) {
		snprintf(r->save_err, sizeof r->save_err, "create a file in %s: %s", dir,
			 strerror(errno));
		buf_release(&path);
		return;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	r->save_fd = fd;
	r->save_path = buf_detach(&path, NULL);
}

/* Append to the save file; on failure or at the cap, stop saving and say why. */
static void
bash_save_write(struct bash_run *r, const char *d, size_t n)
{
	if (r->saved + n > BASH_SAVE_MAX) {
		n = (size_t)(BASH_SAVE_MAX - r->saved);
		snprintf(r->save_err, sizeof r->save_err, "the saved copy stops at its first %llu MB",
			 (unsigned long long)(BASH_SAVE_MAX >> 20));
	}
	while (n > 0) {
		ssize_t w = write(r->save_fd, d, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(r->save_err, sizeof r->save_err, "the saved copy is incomplete: %s",
				 w < 0 ? strerror(errno) : "short write");
			break;
		}
		r->saved += (uint64_t)w;
		d += w;
		n -= (size_t)w;
	}
	if (r->save_err[0]) {
		close(r->save_fd);
		r->save_fd = -1;
	}
}

/* proc callback: keep the output in memory and, past BASH_KEEP, on disk. */
static void
bash_output(struct proc *p, const char *d, size_t n, void *arg)
{
	struct bash_run *r = arg;

	(void)p;
	r->total += n;
	if (r->total > BASH_KEEP && !r->save_path && !r->save_err[0]) {
		bash_save_open(r);
		if (r->save_fd >= 0)
			bash_save_write(r, r->mem.data, r->mem.len);
	}
	if (r->save_fd >= 0)
		bash_save_write(r, d, n);
	buf_add(&r->mem, d, n);
	if (r->mem.len > 4 * BASH_KEEP)
		buf_remove(&r->mem, 0, r->mem.len - BASH_KEEP);
	tool_job_progress(r->job, d, n);
}

/* Append text as valid UTF-8: invalid bytes and NULs become U+FFFD. */
static void
bash_add_clean(struct buf *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;

	buf_grow(out, n);
	while (i < n) {
		k = u[i] ? sanitize_utf8_len(u + i, n - i) : 0;
		if (k) {
			buf_add(out, u + i, k);
			i += k;
		} else {
			buf_adds(out, "\xef\xbf\xbd");
			i++;
		}
	}
}

/* Where the shown tail starts: the last BASH_KEEP bytes, from a line start. */
static size_t
bash_tail_start(const struct buf *mem)
{
	size_t start = mem->len - BASH_KEEP, i;
	const char *nl = memchr(mem->data + start, '\n', BASH_KEEP);

	if (nl && (size_t)(nl - mem->data) + 1 < mem->len)
		return (size_t)(nl - mem->data) + 1;
	for (i = 0; i < 3 && ((unsigned char)mem->data[start] & 0xc0) == 0x80; i++)
		start++; /* one long line: at least do not split a character */
	return start;
}

/* The output part of the result: the note when cut, then the text. */
static void
bash_render_output(struct bash_run *r, struct buf *out)
{
	size_t start = 0;

	if (r->total > BASH_KEEP) {
		buf_addf(out, "[output was %llu bytes; showing the last 50 KB; ",
			 (unsigned long long)r->total);
		if (!r->save_path)
			buf_addf(out, "the full output could not be saved: %s]\n", r->save_err);
		else if (r->save_err[0])
			buf_addf(out, "output saved to %s, but %s — read it with the read tool]\n",
				 r->save_path, r->save_err);
		else
			buf_addf(out, "full output saved to %s — read it with the read tool]\n",
				 r->save_path);
		start = bash_tail_start(&r->mem);
	}
	if (!r->total) {
		buf_adds(out, "(no output)\n");
		return;
	}
	bash_add_clean(out, r->mem.data + start, r->mem.len - start);
	if (out->len && out->data[out->len - 1] != '\n')
		buf_addch(out, '\n');
}

/* A signal's name for the footer, when it is a common one. */
static const char *
bash_signame(int sig)
{
	switch (sig) {
	case SIGHUP: return " (SIGHUP)";
	case SIGINT: return " (SIGINT)";
	case SIGQUIT: return " (SIGQUIT)";
	case SIGILL: return " (SIGILL)";
	case SIGABRT: return " (SIGABRT)";
	case SIGBUS: return " (SIGBUS)";
	case SIGFPE: return " (SIGFPE)";
	case SIGKILL: return " (SIGKILL)";
	case SIGSEGV: return " (SIGSEGV)";
	case SIGPIPE: return " (SIGPIPE)";
	case SIGTERM: return " (SIGTERM)";
	default: return "";
	}
}

/* The last line: how the command ended. */
static void
bash_render_footer(struct bash_run *r, struct buf *out)
{
	struct proc *p = r->proc;

	if (proc_lingered(p))
		buf_adds(out, "[the command exited but background processes still held its output "
			      "open; they were killed. To keep one running, redirect its output: "
			      "cmd > file 2>&1 &]\n");
	if (proc_timed_out(p))
		buf_addf(out, "timed out after %d s; the process group was killed", r->timeout_s);
	else if (proc_signal(p))
		buf_addf(out, "killed by signal %d%s", proc_signal(p), bash_signame(proc_signal(p)));
	else if (proc_status(p) < 0)
		buf_adds(out, "exit code: unknown");
	else
		buf_addf(out, "exit code: %d", proc_status(p));
}

/* Release the run (the proc is freed; the job is not touched). */
static void
bash_run_free(struct bash_run *r)
{
	proc_free(r->proc);
	if (r->save_fd >= 0)
		close(r->save_fd);
	free(r->save_path);
	buf_release(&r->mem);
	sandbox_cmd_release(&r->sc);
	sandbox_strv_release(&r->env);
	free(r);
}

/* proc callback: the command finished; write the result and finish the job. */
static void
bash_exit(struct proc *p, void *arg)
{
	struct bash_run *r = arg;
	struct tool_job *job = r->job;

	bash_render_output(r, &job->out);
	sandbox_after(job->env->sandbox, &r->sc, &job->out);
	sandbox_hint(job->env->sandbox, r->mem.data, r->mem.len, &job->out);
	bash_render_footer(r, &job->out);
	job->is_error = proc_timed_out(p);
	job->priv = NULL;
	bash_run_free(r);
	tool_job_done(job);
}

/* The timeout in seconds: the model's, capped, else the configured default. */
static int
bash_timeout(const struct tool_env *env, const cJSON *args)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, "timeout");
	int def = env->bash_timeout_s > 0 ? env->bash_timeout_s : BASH_TIMEOUT_S;
	int max = def > BASH_TIMEOUT_MAX_S ? def : BASH_TIMEOUT_MAX_S;

	if (!cJSON_IsNumber(t) || t->valuedouble < 1)
		return def;
	return t->valuedouble >= max ? max : (int)t->valuedouble;
}

/* Entry point: check the command, start it, finish later from bash_exit. */
static void
bash_start(struct tool_job *job, const cJSON *args)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
	const char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct proc_spec spec = { argv, job->env->root, bash_env, 0, bash_output, bash_exit, NULL, 0, 0, 1, NULL, NULL, 0 };
	struct err e = ERR_INIT;
	struct bash_run *r;
	size_t i;

	if (!cJSON_IsString(cmd) || !cmd->valuestring[strspn(cmd->valuestring, " \t\r\n")]) {
		tool_job_fail(job, "missing required field \"command\" (a non-empty shell command)");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->job = job;
	r->save_fd = -1;
	r->timeout_s = bash_timeout(job->env, args);
	buf_init(&r->mem, 0);
	argv[2] = cmd->valuestring;
	r->sc.ruleset_fd = -1;
	if (sandbox_wrap(job->env->sandbox, argv, &r->sc, &e) < 0) {
		bash_run_free(r);
		tool_job_fail(job, "could not start the command: %s", e.msg);
		return;
	}
	for (i = 0; bash_env[i]; i++)
		sandbox_strv_add(&r->env, bash_env[i]);
	for (i = 0; i < r->sc.env.n; i++)
		sandbox_strv_add(&r->env, r->sc.env.v[i]);
	spec.argv = (const char *const *)r->sc.argv.v;
	spec.env = (const char *const *)r->env.v;
	spec.pre_exec = r->sc.pre_exec;
	spec.pre_exec_arg = r->sc.pre_exec_arg;
	spec.timeout_ms = (uint64_t)r->timeout_s * 1000u;
	spec.arg = r;
	job->priv = r;
	r->proc = proc_spawn(job->env->loop, &spec, &e);
	if (!r->proc) {
		job->priv = NULL;
		bash_run_free(r);
		tool_job_fail(job, "could not start the command: %s", e.msg);
	}
}

/* Stop a running command: SIGKILL its group, keep what it printed. */
static void
bash_cancel(struct tool_job *job)
{
	struct bash_run *r = job->priv;

	if (!r || job->finished)
		return;
	bash_render_output(r, &job->out);
	proc_free(r->proc); /* kills the whole group (and bwrap's sandbox with it) */
	r->proc = NULL;
	sandbox_after(job->env->sandbox, &r->sc, &job->out);
	buf_adds(&job->out, "[aborted]");
	job->is_error = 1;
	job->priv = NULL;
	bash_run_free(r); /* proc_free kills the whole group */
	tool_job_done(job);
}

#define BASH_DIGEST_TAIL 3

/* Start of the last n lines of text[0..len). */
static const char *
bash_tail(const char *text, size_t len, int n)
{
	const char *p = text + len;

	while (p > text) {
		if (p[-1] == '\n' && p != text + len && --n == 0)
			break;
		p--;
	}
	return p;
}

/* bash: the command, how it ended (the last line) and the output lines before it. */
static void
bash_digest(const cJSON *args, const char *text, struct buf *out)
{
	const char *cmd = json_str(args, "command");
	size_t len = strlen(text);
	const char *tail;

	while (len > 0 && text[len - 1] == '\n')
		len--;
	tail = bash_tail(text, len, BASH_DIGEST_TAIL + 1);
	buf_adds(out, "bash `");
	tool_add_short(out, cmd ? cmd : "?", TOOL_DIGEST_ARG_MAX);
	buf_addf(out, "`, %ld lines of output, the last ones:\n", tool_count_lines(text));
	buf_add(out, tail, (size_t)(text + len - tail));
	buf_adds(out, "]");
}

/* preview: the command itself. */
static int
bash_preview(const cJSON *args, const struct tool_env *env, struct buf *out)
{
	const char *cmd = json_str(args, "command");

	(void)env;
	if (!cmd)
		return TOOL_PREVIEW_NONE;
	buf_adds(out, cmd);
	return TOOL_PREVIEW_TEXT;
}

/* read_only: a command made only of known read-only programs (tools/bash_readonly). */
static int
bash_read_only(const cJSON *args)
{
	return tool_bash_readonly_is_read_only(json_str(args, "command"));
}

const struct tool tool_bash = {
	.name = "bash",
	.description =
		"Run a command with /bin/sh -c in the workspace root; returns its output and "
		"exit code. No terminal, no stdin: use non-interactive flags. Killed after "
		"timeout seconds (default 120). Redirect the output of a background job (cmd "
		"> f 2>&1 &).",
	.schema_json =
		"{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},"
		"\"timeout\":{\"type\":\"integer\"}},\"required\":[\"command\"]}",
	.flags = TOOL_MUTATES | TOOL_NEEDS_APPROVAL | TOOL_SHELL | TOOL_CORE,
	.start = bash_start,
	.cancel = bash_cancel,
	.preview = bash_preview,
	.read_only = bash_read_only,
	.digest = bash_digest,
};

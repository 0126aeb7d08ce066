/*
 * io/sandbox: the operating system's confinement for the model's shell
 * commands (docs/permissions.md, "Sandbox").
 *
 * Policy (struct sandbox_spec, from the caller): a mode (workspace-write:
 * the workspace and a private temp dir are writable; read-only: only the
 * private temp dir; off), the workspace root, more writable dirs, paths
 * inside the workspace kept read-only (.git/config, .git/hooks, .hearth,
 * .mcp.json by default), paths hidden (hearth's own config and state,
 * ~/.ssh, ~/.gnupg, cloud credentials, ... by default) and whether the
 * network is on.
 *
 * Mechanisms, best first:
 *  - bwrap (bubblewrap): the whole file system read-only, a new /dev and
 *    /proc, the workspace bound writable, the protected paths bound
 *    read-only over it (a missing protected directory gets an empty
 *    read-only placeholder, removed after the command; a missing protected
 *    file that a command creates is removed after it, when every process
 *    of the command is dead), hidden paths covered (tmpfs over
 *    directories, an empty file over files), all namespaces unshared
 *    (network too unless allowed), every capability dropped, a new
 *    session, and the whole process tree killed with bwrap (pid
 *    namespace) or with hearth (--die-with-parent).
 *  - landlock (where user namespaces are off): in the child between fork
 *    and exec, writes are limited to the workspace (workspace-write) and
 *    the private temp dir, TCP is off without network (ABI >= 4).  Reads
 *    are not limited: nothing is hidden, and the protected paths inside
 *    the workspace are writable (landlock can only add rights beneath a
 *    directory, never take them away), so in workspace-write mode a
 *    landlock sandbox does not count as confining (sandbox_confines).
 *  - none: the caller asks as it did before.
 *
 * The probe (does bwrap run here? landlock's ABI?) runs once on its own
 * thread (sandbox_probe_start); sandbox_kind waits for it (bounded: a
 * bwrap that hangs is killed after SANDBOX_PROBE_MS, or spec.probe_ms,
 * and tried once more for 3x as long: on a loaded machine a bwrap can
 * take seconds to start, and a probe that gave up would leave the whole
 * session unsandboxed, asking before every command).
 *
 * Lifetime: sandbox_new copies the spec; sandbox_free removes the private
 * temp dir.  A struct sandbox_cmd lives from sandbox_wrap until
 * sandbox_cmd_release, across the run of the command.  Single-threaded
 * use (the loop thread) apart from the probe.
 */
#ifndef HEARTH_IO_SANDBOX_H
#define HEARTH_IO_SANDBOX_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

enum sandbox_mode { SANDBOX_WORKSPACE_WRITE, SANDBOX_READ_ONLY, SANDBOX_OFF };
enum sandbox_kind { SANDBOX_NONE, SANDBOX_BWRAP, SANDBOX_LANDLOCK };

#define SANDBOX_PROBE_MS 5000

struct sandbox_spec {
	enum sandbox_mode mode;
	int network;                  /* 1: the network namespace is shared */
	const char *root;             /* the workspace, absolute and canonical */
	const char *state_dir;        /* hearth's state dir (hidden); NULL = none */
	const char *const *writable;  /* more writable dirs (absolute); NULL-terminated; NULL = none */
	const char *const *protect;   /* relative to root: kept read-only ("x/": a directory that
				       * gets an empty placeholder when missing); NULL = the defaults */
	const char *const *pin;       /* relative to root: directories bound onto themselves so they
				       * cannot be renamed away (".git"); NULL = the defaults */
	const char *const *hide;      /* absolute: hidden when they exist; NULL = the defaults */
	const char *bwrap;            /* the bwrap program; NULL = "bwrap" from PATH */
	int no_bwrap, no_landlock;    /* 1: do not use that mechanism (tests, HEARTH_SANDBOX_FORCE) */
	int probe_ms;                 /* the probe's limit; 0 = SANDBOX_PROBE_MS (tests set less) */
};

/* A NULL-terminated vector of owned strings. */
struct sandbox_strv {
	char **v;
	size_t n, cap;
};

/* One wrapped command. */
struct sandbox_cmd {
	struct sandbox_strv argv;   /* run this instead of the command */
	struct sandbox_strv env;    /* "NAME=value" to set in the child (TMPDIR) */
	int (*pre_exec)(void *arg); /* for proc_spec.pre_exec (landlock); NULL = none */
	void *pre_exec_arg;
	struct sandbox_strv made;   /* placeholders bwrap creates: removed after */
	struct sandbox_strv absent; /* protected files that did not exist: removed if created */
	int ruleset_fd;             /* landlock: the ruleset (-1 = none) */
};

struct sandbox;

int sandbox_mode_parse(const char *s, enum sandbox_mode *out);
const char *sandbox_mode_name(enum sandbox_mode m);
const char *sandbox_kind_name(enum sandbox_kind k);

/* A sandbox with a copy of spec (lists resolved: NULL ones get the defaults). */
struct sandbox *sandbox_new(const struct sandbox_spec *spec);
/* Wait for the probe, remove the private temp dir, free.  NULL ok. */
void sandbox_free(struct sandbox *sb);
/* Start the probe on its own thread (once; later calls do nothing). */
void sandbox_probe_start(struct sandbox *sb);
/* The mechanism commands run under (waits for the probe); NONE when the mode is off. */
enum sandbox_kind sandbox_kind(struct sandbox *sb);
enum sandbox_mode sandbox_mode(const struct sandbox *sb);
/* Whether the probe has ended (or is not needed), so sandbox_kind will not wait.  Never waits. */
int sandbox_probed(struct sandbox *sb);
/*
 * Whether a command's writes are confined so that it may run without
 * asking: bwrap in either mode, or landlock in read-only mode.  0 for NULL.
 */
int sandbox_confines(struct sandbox *sb);
/* Whether the network is on inside the sandbox (the setting). */
int sandbox_network(const struct sandbox *sb);
/*
 * Network for the next wrapped command only (1), or withdraw that (0):
 * the gate grants it to a command the user approved or an allow rule
 * covers; sandbox_wrap consumes it.  NULL ok.
 */
void sandbox_grant_network(struct sandbox *sb, int on);
/*
 * One line for the status line and /approval: "workspace-write (bwrap)",
 * "read-only (landlock)", "off", "none: asking" (appended to out).
 */
void sandbox_describe(struct sandbox *sb, struct buf *out);
/* Why no mechanism works ("" when one does), for the one notice. */
const char *sandbox_why_none(struct sandbox *sb);

/*
 * Wrap cmd (argv, NULL-terminated) for running in the sandbox: fills *c
 * (release with sandbox_cmd_release).  When the kind is NONE, c->argv is
 * a copy of cmd.  -1 + e when the private temp dir or the landlock
 * ruleset cannot be made.
 */
int sandbox_wrap(struct sandbox *sb, const char *const *cmd, struct sandbox_cmd *c, struct err *e);
/*
 * After the command (all its processes dead): remove the placeholders and
 * any protected file the command created; one line per removal in notes.
 */
void sandbox_after(struct sandbox *sb, struct sandbox_cmd *c, struct buf *notes);
void sandbox_cmd_release(struct sandbox_cmd *c);
/*
 * The hint for a command whose output shows a write the sandbox refused
 * ("Read-only file system", "Permission denied" under landlock): appended
 * once per sandbox (the first time output shows one); 1 when appended.
 */
int sandbox_hint(struct sandbox *sb, const char *output, size_t n, struct buf *out);

/*
 * The bwrap command line for spec around cmd (pure apart from stat()s):
 * sbdir is the sandbox's own directory (its tmp/ is bound at /tmp, its
 * "empty" file and "emptydir" are the placeholders); missing protected
 * directories whose parent exists go to made, missing protected files
 * to absent.  Exposed for the tests.
 */
void sandbox_bwrap_argv(const struct sandbox_spec *spec, const char *sbdir, const char *const *cmd,
			struct sandbox_strv *argv, struct sandbox_strv *made, struct sandbox_strv *absent);

void sandbox_strv_add(struct sandbox_strv *v, const char *s);
void sandbox_strv_release(struct sandbox_strv *v);

#endif

/*
 * front/cli: the command line.  Parsing only: nothing here touches the network,
 * the settings files or the terminal, so `hearth --version` stays cheap.
 * Exit codes (front_cli_parse and the usage error): 0 for --help/--version, 2
 * for a usage error; -1 means "run".
 */
#ifndef HEARTH_FRONT_CLI_H
#define HEARTH_FRONT_CLI_H

#include <stdio.h>

#include "base/buf.h"
#include "base/err.h"
#include "front/output.h"

#define FRONT_CLI_EXIT_USAGE 2

struct front_cli {
	int print;
	const char *server, *model, *cwd, *tools, *system_prompt_file, *log_path;
	int max_steps;
	int no_tools;
	int thinking; /* -1 unset */
	int think;    /* --think: thinking for this task's turn only */
	const char *serve; /* --serve MODEL.gguf: start llama-server with it */
	int verbose;
	int cont;                 /* -c: the latest session */
	int resume;               /* -r [ID] */
	const char *approval;     /* --approval ask|auto-edit|yolo */
	const char *sandbox;      /* --sandbox workspace-write|read-only|off */
	const char *resume_id;
	const char *export_session, *export_file;
	const char *delete_session; /* --delete-session ID (front/sessions.h) */
	const char *route;        /* --route auto|local|claude */
	const char *theme;        /* --theme NAME|FILE */
	int stats;                /* `hearth stats` */
	int trust;                /* `hearth trust`: 1; `hearth untrust`: -1 (front/trust.h) */
	int doctor;               /* `hearth doctor` (front/doctor.h) */
	int tui, line;            /* force the full screen / the line session */
	int demo;                 /* --demo: replay a recorded session (ui/app/demo.h) */
	int yes;                  /* -y, --yes: print mode confirms what a command asks */
	enum front_output_format format;
	int input_stream_json;    /* --input-format stream-json: user messages as JSON lines on stdin */
	const char *append_system_prompt; /* --append-system-prompt TEXT */
	const char *system_prompt; /* --system-prompt TEXT: replaces hearth's prompt (empty: ignored) */
	const char *mcp_config;   /* --mcp-config JSON|FILE: servers besides .mcp.json's */
	struct buf allowed_tools, disallowed_tools; /* --allowedTools / --disallowedTools: rules, '\n'-separated */
	struct buf task;
};

/*
 * Parse argv into o (o->task collects the positional words); -1 or an exit code.
 * Claude Code's headless flags are aliases (docs/headless.md): --max-turns of
 * --max-steps, --permission-mode of --approval, --allowedTools/--disallowedTools
 * add allow/deny rules, --resume ID; the flags its Agent SDK passes that
 * hearth has no use for are accepted and ignored (the list is in the doc).
 */
int front_cli_parse(int argc, char **argv, struct front_cli *o);
/*
 * The i-th long option's name (without "--"), NULL past the last: the
 * table front_cli_parse uses.  *has_arg: 0 none, 1 required, 2 optional;
 * *hidden: accepted for Claude's Agent SDK and ignored (not completed).
 * The shell completions in completions/ are checked against it.
 */
const char *front_cli_option(size_t i, int *has_arg, int *hidden);
/* Free what front_cli_parse allocated (the task and the rule lists). */
void front_cli_release(struct front_cli *o);
/*
 * Split a Claude Code tool list ("Read,Bash(git log:*) Edit") into rules,
 * one per line appended to out: separators are commas and blanks outside
 * parentheses; Claude Code's names that differ from hearth's are mapped
 * (Glob → find, MultiEdit → edit, LS → ls).
 */
void front_cli_tool_rules(const char *list, struct buf *out);
/* "hearth: <message> (see hearth --help)" on stderr; returns FRONT_CLI_EXIT_USAGE. */
int front_cli_usage_error(const char *fmt, ...) ERR_PRINTF(1, 2);

#endif

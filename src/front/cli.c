/* front/cli: command-line parsing (see front/cli.h). */
#include "front/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE FRONT_CLI_EXIT_USAGE

/* Print usage to f. */
static void
front_cli_usage(FILE *f)
{
	fputs("usage: hearth [options]                 interactive session\n"
	      "       hearth -p [options] [task ...]   run one task and print the answer\n"
	      "\n"
	      "  -p, --print                 print mode (the task is the arguments, or stdin;\n"
	      "                              piped text follows a task given as arguments)\n"
	      "  -c, --continue              continue the latest session of this directory\n"
	      "  -r, --resume [ID]           resume a session by id (prefix); without ID, list them\n"
	      "  -y, --yes                   answer yes to what would ask (tool approvals, /commit)\n"
	      "      --export SESSION FILE   write a session as Markdown, or HTML for *.html\n"
	      "      --delete-session ID     delete a session (id or unique prefix, as -r lists\n"
	      "                              them) with its saved server caches (slot files)\n",
	      f);
	fputs(
	      "      --route MODE            auto (the routing policy), local, claude, or the\n"
	      "                              name of a tier in the servers setting\n"
	      "      --line, --tui           line-mode session / full screen (default: full\n"
	      "                              screen when stdin and stdout are terminals)\n"
	      "                              (a task starting with @claude goes to Claude)\n"
	      "      --approval MODE         ask | auto-edit (default) | yolo: which tool calls\n"
	      "                              ask first; print mode refuses those unless -y/--yes\n"
	      "      --sandbox MODE          workspace-write (default) | read-only | off: where\n"
	      "                              bash commands may write (docs/permissions.md)\n"
	      "  hearth stats                what escalations to Claude cost and bought\n"
	      "  hearth trust                trust this project's hooks, MCP servers and wider\n"
	      "                              settings (shows them; asked again when they change)\n"
	      "  hearth untrust              forget that trust\n"
	      "  hearth doctor               check how the server was started: each\n"
	      "                              misconfiguration with the flag to change, and\n"
	      "                              the recommended llama-server command line\n"
	      "  hearth bench [options]      score agents and servers on the shipped problems\n"
	      "                              (hearth bench --help; docs/bench.md)\n"
	      "      --server URL            server base URL, with or without /v1 (env\n"
	      "                              HEARTH_SERVER, OPENAI_BASE_URL; default\n"
	      "                              http://127.0.0.1:8080; key: OPENAI_API_KEY)\n"
	      "      --model ID              model id to request\n"
	      "      --demo                  replay a recorded session in the full screen (no\n"
	      "                              server, no key needed): a first look\n"
	      "      --theme NAME            colour theme of the full screen: default, dark,\n"
	      "                              light, high-contrast, or a theme file\n"
	      "      --max-steps N           model requests per task (default 40)\n"
	      "      --cwd DIR               workspace root (default: current directory)\n"
	      "      --tools a,b             enable only these tools\n"
	      "      --no-tools              no tools at all\n"
	      "      --system-prompt-file F  use F as the system prompt\n"
	      "      --thinking on|off       model thinking (default off)\n"
	      "      --think                 thinking on for this task only (print mode)\n"
	      "      --serve MODEL.gguf      start llama-server with the model, stop it on exit\n"
	      "      --output-format FMT     text | json | stream-json (print mode)\n"
	      "      --input-format FMT      text | stream-json: user messages as JSON lines on\n"
	      "                              stdin, one turn each, in one process (print mode)\n"
	      "      --append-system-prompt T  add T to the system prompt\n"
	      "      --system-prompt T       use T as the system prompt (empty: hearth's own)\n"
	      "  Claude Code's flags: --max-turns N (= --max-steps), --permission-mode M\n"
	      "  (default, acceptEdits, bypassPermissions, plan, dontAsk), --allowedTools and\n"
	      "  --disallowedTools LIST (allow / deny rules), --resume ID, --mcp-config\n"
	      "  JSON|FILE (more MCP servers), and the flags its\n"
	      "  Agent SDK passes (docs/headless.md)\n"
	      "      --verbose               progress and tool calls on stderr\n"
	      "      --log FILE              write a debug log (env HEARTH_LOG)\n"
	      "      --version               print the version\n"
	      "  -h, --help                  this help\n"
	      "\n"
	      "exit codes: 0 done, 1 the agent or model failed, 2 usage error,\n"
	      "            3 no server reachable, 130 interrupted\n",
	      f);
}

/* Report a usage error and return the usage exit code. */
int
front_cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hearth: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see hearth --help)\n", stderr);
	return EXIT_USAGE;
}

/* Parse a positive integer option. */
static int
parse_int(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > 100000)
		return -1;
	*out = (int)v;
	return 0;
}

enum {
	OPT_SERVER = 256, OPT_MODEL, OPT_THEME, OPT_MAX_STEPS, OPT_CWD, OPT_TOOLS, OPT_NO_TOOLS,
	OPT_SYSPROMPT, OPT_THINKING, OPT_FORMAT, OPT_VERBOSE, OPT_VERSION, OPT_LOG, OPT_EXPORT, OPT_DELETE, OPT_ROUTE, OPT_TUI, OPT_LINE,
	OPT_THINK, OPT_SERVE
};

/* Claude Code's flags (numbered apart from the lists above and below). */
enum {
	OPT_INPUT_FORMAT = 768, OPT_PERMISSION_MODE, OPT_ALLOWED, OPT_DISALLOWED, OPT_APPEND_SP,
	OPT_DANGEROUS, OPT_IGNORED_ARG, OPT_IGNORED_FLAG, OPT_MCP_CONFIG, OPT_SYSTEM_PROMPT
};

/* --permission-mode: Claude Code's modes as hearth approval modes; NULL for an unknown one. */
static const char *
front_cli_permission_mode(const char *m)
{
	static const char *const map[][2] = {
		{ "default", "ask" }, { "acceptEdits", "auto-edit" }, { "bypassPermissions", "yolo" },
		{ "plan", "ask" }, { "dontAsk", "ask" },
	};
	size_t i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(m, map[i][0]))
			return map[i][1];
	return NULL;
}

/* Claude Code's tool name as hearth's (the rule's tool part; the rest is kept). */
static void
front_cli_tool_rule(const char *s, size_t n, struct buf *out)
{
	static const char *const names[][2] = { { "Glob", "find" }, { "MultiEdit", "edit" }, { "LS", "ls" } };
	size_t k = 0, i;

	while (k < n && s[k] != '(')
		k++;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i][0]) == k && !strncmp(s, names[i][0], k)) {
			buf_adds(out, names[i][1]);
			buf_add(out, s + k, n - k);
			buf_addch(out, '\n');
			return;
		}
	buf_add(out, s, n);
	buf_addch(out, '\n');
}

void
front_cli_tool_rules(const char *list, struct buf *out)
{
	const char *s = list, *start = NULL;
	int depth = 0;

	for (;; s++) {
		int sep = !*s || (depth == 0 && (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n'));

		if (sep && start) {
			front_cli_tool_rule(start, (size_t)(s - start), out);
			start = NULL;
		} else if (!sep && !start) {
			start = s;
		}
		if (!*s)
			break;
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth > 0)
			depth--;
	}
}

/*
 * Whether a word after -r is a session id rather than the task: ids look
 * like 20261122-005913-123-abcd1234 (any prefix of at least 4 characters
 * of digits, lowercase hex and '-'), or a path to a .jsonl file.
 */
static int
front_cli_looks_like_id(const char *w)
{
	size_t n = strlen(w), i;

	if (n > 6 && strcmp(w + n - 6, ".jsonl") == 0)
		return 1;
	if (n < 4)
		return 0;
	for (i = 0; i < n; i++)
		if (!((w[i] >= '0' && w[i] <= '9') || (w[i] >= 'a' && w[i] <= 'f') || w[i] == '-'))
			return 0;
	return w[0] >= '0' && w[0] <= '9';
}

/* --approval (numbered apart from the list above). */
enum { OPT_APPROVAL = 512, OPT_SANDBOX, OPT_DEMO };

/* The long options: the one table of them (getopt_long reads it; front_cli_option shows it). */
static const struct option front_cli_longs[] = {
	{ "print", no_argument, NULL, 'p' },
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "tools", required_argument, NULL, OPT_TOOLS },
	{ "no-tools", no_argument, NULL, OPT_NO_TOOLS },
	{ "system-prompt-file", required_argument, NULL, OPT_SYSPROMPT },
	{ "thinking", required_argument, NULL, OPT_THINKING },
	{ "think", no_argument, NULL, OPT_THINK },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "output-format", required_argument, NULL, OPT_FORMAT },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "continue", no_argument, NULL, 'c' },
	{ "resume", optional_argument, NULL, 'r' },
	{ "approval", required_argument, NULL, OPT_APPROVAL },
	{ "sandbox", required_argument, NULL, OPT_SANDBOX },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "delete-session", required_argument, NULL, OPT_DELETE },
	{ "route", required_argument, NULL, OPT_ROUTE },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "demo", no_argument, NULL, OPT_DEMO },
	{ "line", no_argument, NULL, OPT_LINE },
	{ "yes", no_argument, NULL, 'y' },
	{ "help", no_argument, NULL, 'h' },
	/* Claude Code's headless flags (docs/headless.md) */
	{ "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
	{ "max-turns", required_argument, NULL, OPT_MAX_STEPS },
	{ "permission-mode", required_argument, NULL, OPT_PERMISSION_MODE },
	{ "allowedTools", required_argument, NULL, OPT_ALLOWED },
	{ "allowed-tools", required_argument, NULL, OPT_ALLOWED },
	{ "disallowedTools", required_argument, NULL, OPT_DISALLOWED },
	{ "disallowed-tools", required_argument, NULL, OPT_DISALLOWED },
	{ "append-system-prompt", required_argument, NULL, OPT_APPEND_SP },
	{ "system-prompt", required_argument, NULL, OPT_SYSTEM_PROMPT },
	{ "dangerously-skip-permissions", no_argument, NULL, OPT_DANGEROUS },
	/* passed by the Claude Agent SDK, meaningless here: accepted, ignored */
	{ "setting-sources", required_argument, NULL, OPT_IGNORED_ARG },
	{ "permission-prompt-tool", required_argument, NULL, OPT_IGNORED_ARG },
	{ "mcp-config", required_argument, NULL, OPT_MCP_CONFIG },
	{ "fallback-model", required_argument, NULL, OPT_IGNORED_ARG },
	{ "max-thinking-tokens", required_argument, NULL, OPT_IGNORED_ARG },
	{ "add-dir", required_argument, NULL, OPT_IGNORED_ARG },
	{ "session-id", required_argument, NULL, OPT_IGNORED_ARG },
	{ "betas", required_argument, NULL, OPT_IGNORED_ARG },
	{ "max-budget-usd", required_argument, NULL, OPT_IGNORED_ARG },
	{ "thinking-display", required_argument, NULL, OPT_IGNORED_ARG },
	{ "effort", required_argument, NULL, OPT_IGNORED_ARG },
	{ "debug-file", required_argument, NULL, OPT_IGNORED_ARG },
	{ "strict-mcp-config", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "include-partial-messages", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "include-hook-events", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "fork-session", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "no-session-persistence", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "debug-to-stderr", no_argument, NULL, OPT_IGNORED_FLAG },
	{ "allow-dangerously-skip-permissions", no_argument, NULL, OPT_IGNORED_FLAG },
	{ NULL, 0, NULL, 0 },
};

const char *
front_cli_option(size_t i, int *has_arg, int *hidden)
{
	if (i >= sizeof front_cli_longs / sizeof front_cli_longs[0] - 1)
		return NULL;
	if (has_arg)
		*has_arg = front_cli_longs[i].has_arg;
	if (hidden)
		*hidden = front_cli_longs[i].val == OPT_IGNORED_ARG || front_cli_longs[i].val == OPT_IGNORED_FLAG;
	return front_cli_longs[i].name;
}

/* getopt_long over argv into o; -1 to continue or an exit code. */
int
front_cli_parse(int argc, char **argv, struct front_cli *o)
{
	int c, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "phcry", front_cli_longs, NULL)) != -1) {
		switch (c) {
		case 'p': o->print = 1; break;
		case OPT_SERVER: o->server = optarg; break;
		case OPT_MODEL: o->model = optarg; break;
		case OPT_THEME: o->theme = optarg; break;
		case OPT_MAX_STEPS:
			if (parse_int(optarg, &o->max_steps) < 0)
				return front_cli_usage_error("--max-steps needs a positive number, got \"%s\"", optarg);
			break;
		case OPT_CWD: o->cwd = optarg; break;
		case OPT_TOOLS: o->tools = optarg; break;
		case OPT_NO_TOOLS: o->no_tools = 1; break;
		case OPT_SYSPROMPT: o->system_prompt_file = optarg; break;
		case OPT_THINKING:
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				return front_cli_usage_error("--thinking takes on or off, got \"%s\"", optarg);
			o->thinking = !strcmp(optarg, "on");
			break;
		case OPT_THINK: o->think = 1; break;
		case OPT_SERVE: o->serve = optarg; break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = FRONT_OUTPUT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = FRONT_OUTPUT_JSON;
			else if (!strcmp(optarg, "stream-json"))
				o->format = FRONT_OUTPUT_STREAM_JSON;
			else
				return front_cli_usage_error("--output-format takes text, json or stream-json, got \"%s\"", optarg);
			break;
		case OPT_VERBOSE: o->verbose = 1; break;
		case OPT_LOG: o->log_path = optarg; break;
		case 'c': o->cont = 1; break;
		case 'r':
			o->resume = 1;
			if (optarg)
				o->resume_id = optarg;
			break;
		case OPT_INPUT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "stream-json"))
				return front_cli_usage_error("--input-format takes text or stream-json, got \"%s\"", optarg);
			o->input_stream_json = !strcmp(optarg, "stream-json");
			break;
		case OPT_PERMISSION_MODE:
			if (!(o->approval = front_cli_permission_mode(optarg)))
				return front_cli_usage_error("--permission-mode takes default, acceptEdits, bypassPermissions, "
							     "plan or dontAsk, got \"%s\"", optarg);
			break;
		case OPT_DANGEROUS: o->approval = "yolo"; break;
		case OPT_ALLOWED: front_cli_tool_rules(optarg, &o->allowed_tools); break;
		case OPT_DISALLOWED: front_cli_tool_rules(optarg, &o->disallowed_tools); break;
		case OPT_APPEND_SP: o->append_system_prompt = optarg; break;
		case OPT_SYSTEM_PROMPT: o->system_prompt = optarg; break;
		case OPT_MCP_CONFIG: o->mcp_config = optarg; break;
		case OPT_IGNORED_ARG:
		case OPT_IGNORED_FLAG:
			break;
		case OPT_APPROVAL:
			if (strcmp(optarg, "ask") && strcmp(optarg, "auto-edit") && strcmp(optarg, "yolo"))
				return front_cli_usage_error("--approval takes ask, auto-edit or yolo, got \"%s\"", optarg);
			o->approval = optarg;
			break;
		case OPT_SANDBOX:
			if (strcmp(optarg, "workspace-write") && strcmp(optarg, "read-only") && strcmp(optarg, "off"))
				return front_cli_usage_error("--sandbox takes workspace-write, read-only or off, got \"%s\"", optarg);
			o->sandbox = optarg;
			break;
		case OPT_EXPORT: o->export_session = optarg; break;
		case OPT_DELETE: o->delete_session = optarg; break;
		case OPT_TUI: o->tui = 1; break;
		case OPT_DEMO: o->demo = 1; break;
		case OPT_LINE: o->line = 1; break;
		case 'y': o->yes = 1; break;
		case OPT_ROUTE:
			if (!*optarg)
				return front_cli_usage_error("%s", "--route takes auto, local, claude or a tier's name (the servers setting)");
			o->route = optarg; /* a tier's name is checked against the settings (front/run.c) */
			break;
		case OPT_VERSION:
			printf("hearth %s\n", HEARTH_VERSION);
			return 0;
		case 'h':
			front_cli_usage(stdout);
			return 0;
		default:
			return front_cli_usage_error("unknown option \"%s\"", argv[optind - 1]);
		}
	}
	if (o->input_stream_json && o->format != FRONT_OUTPUT_STREAM_JSON)
		return front_cli_usage_error("%s", "--input-format stream-json needs --output-format stream-json");
	if (o->input_stream_json)
		o->print = 1; /* as Claude Code: the SDK does not pass -p */
	if (o->resume && !o->resume_id && optind < argc && front_cli_looks_like_id(argv[optind]))
		o->resume_id = argv[optind++];
	if (!o->print && optind < argc && strcmp(argv[optind], "stats") == 0 && optind + 1 == argc) {
		o->stats = 1;
		optind++;
	}
	if (!o->print && optind + 1 == argc && !strcmp(argv[optind], "doctor")) {
		o->doctor = 1;
		optind++;
	}
	if (!o->print && optind + 1 == argc && (!strcmp(argv[optind], "trust") || !strcmp(argv[optind], "untrust"))) {
		o->trust = !strcmp(argv[optind], "trust") ? 1 : -1;
		optind++;
	}
	if (o->export_session) {
		if (optind >= argc)
			return front_cli_usage_error("%s", "--export needs the output file: --export SESSION FILE");
		o->export_file = argv[optind++];
	}
	for (i = optind; i < argc; i++) {
		if (o->task.len)
			buf_addch(&o->task, ' ');
		buf_adds(&o->task, argv[i]);
	}
	return -1;
}

void
front_cli_release(struct front_cli *o)
{
	buf_release(&o->task);
	buf_release(&o->allowed_tools);
	buf_release(&o->disallowed_tools);
}

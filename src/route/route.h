/*
 * route/route: the routing policy (issue 5) — local model or Claude, and why.
 *
 * Pure decisions: route_decide looks at a loaded struct route_policy
 * (settings, see route/config.h and docs/routing.md) and a struct
 * route_signals (what the session observed) and fills a struct
 * route_decision.  Nothing here does I/O except the outcomes log
 * (route_outcome_append, route_stats, route_spent_day).
 *
 * Order of a decision: an explicit /local wins; an explicit /claude or
 * @claude, or routing mode "claude", asks for Claude (handoff); in mode
 * "auto" the first rule that fires asks for Claude in that rule's mode,
 * checked in this order: server down, tool-call failures, repeated call,
 * test still failing, max steps without a change, context size, task
 * patterns.  Then the guards: routing mode "local", no API key, the
 * session and the daily spend caps each keep the turn local, with
 * blocked = 1 and one line in blocked_why.
 *
 * Ownership: the policy owns its strings and compiled regexes
 * (route_config_release frees them).  Signals, calls and tests are borrowed
 * for the duration of the call.  A decision is a plain value.
 */
#ifndef HEARTH_ROUTE_ROUTE_H
#define HEARTH_ROUTE_ROUTE_H

#include <regex.h>
#include <stddef.h>
#include <time.h>

#include "base/buf.h"
#include "base/err.h"

enum route_target { ROUTE_LOCAL, ROUTE_CLAUDE };
enum route_mode { ROUTE_HANDOFF, ROUTE_CONSULT };
/* The "mode" setting (also --route and /route). */
enum route_setting { ROUTE_AUTO, ROUTE_ONLY_LOCAL, ROUTE_ONLY_CLAUDE };

/* The failure-signal rules, in the order route_decide checks them. */
enum route_rule_id {
	ROUTE_RULE_SERVER_DOWN,
	ROUTE_RULE_TOOL_FAILURES,
	ROUTE_RULE_REPEATED_CALL,
	ROUTE_RULE_TEST_FAILURES,
	ROUTE_RULE_MAX_STEPS,
	ROUTE_RULE_CONTEXT,
	ROUTE_RULE_COUNT
};

struct route_rule {
	int enabled;
	int threshold;         /* count rules; unused by server_down, max_steps, context */
	enum route_mode mode;
};

/* A task pattern: case-insensitive substring, or POSIX ERE when is_regex. */
struct route_pattern {
	char *text;
	int is_regex;
	regex_t re;            /* compiled when is_regex (REG_EXTENDED|REG_ICASE|REG_NOSUB) */
	enum route_mode mode;
};

/* USD per million tokens for one model id (or id prefix). */
struct route_price {
	char *model;
	double input, output, cache_write, cache_read;
};

struct route_policy {
	enum route_setting mode;             /* auto */
	struct route_pattern *patterns;
	size_t npatterns;
	double context_fraction;             /* 0.9 */
	struct route_rule rules[ROUTE_RULE_COUNT];
	char **privacy;                      /* globs */
	size_t nprivacy;
	double spend_cap_session_usd;        /* 2.00; 0 = never spend */
	double spend_cap_day_usd;            /* 10.00 */
	struct route_price *prices;
	size_t nprices;
	char **test_commands;                /* what route_is_test_command recognises */
	size_t ntest_commands;
};

/* One recent tool call: name and canonical arguments (route_canon_args). */
struct route_call {
	const char *name;
	const char *args;
};

/* One run of a test command (see route_is_test_command). */
struct route_test {
	const char *command;
	int passed;
	int after_edit;        /* files were changed since the previous run of this command */
};

/* Bits of route_signals.told / route_decision.told: what the user was told. */
#define ROUTE_TOLD_LOCAL   1u
#define ROUTE_TOLD_NO_KEY  2u
#define ROUTE_TOLD_CAP     4u

struct route_signals {
	const char *task;                  /* the user's text this turn (NULL ok) */
	long prompt_tokens;                /* estimated size of the next local prompt */
	long n_ctx;                        /* local per-slot context; <= 0 unknown */
	int consecutive_tool_failures;     /* agent_stats.consecutive_tool_failures */
	const struct route_call *calls;    /* recent calls of this turn, oldest first */
	size_t ncalls;
	int max_steps_hit;                 /* the turn ended at --max-steps */
	int files_changed;                 /* ...and changed files on the way */
	const struct route_test *tests;    /* test runs of this turn, oldest first */
	size_t ntests;
	int server_down;                   /* local server unreachable or unhealthy */
	int have_key;                      /* ANTHROPIC_API_KEY (or settings key) present */
	double spent_session_usd, spent_day_usd;
	unsigned told;                     /* ROUTE_TOLD_* already shown this session */
};

/* An explicit request for this turn. */
enum route_request {
	ROUTE_REQ_NONE,
	ROUTE_REQ_LOCAL,       /* /local */
	ROUTE_REQ_CLAUDE,      /* /claude (for the next turn) */
	ROUTE_REQ_AT_CLAUDE    /* the prompt started with @claude */
};

#define ROUTE_REASON_MAX 160

struct route_decision {
	enum route_target target;
	enum route_mode mode;             /* meaningful when target == ROUTE_CLAUDE */
	char reason[ROUTE_REASON_MAX];    /* why ("" when local by default); when
					     blocked, the escalation that was refused */
	int blocked;                      /* Claude was wanted but a guard kept it local */
	char blocked_why[ROUTE_REASON_MAX * 3];
	int notify;                       /* blocked_why is news: show it (once per kind) */
	unsigned told;                    /* signals.told plus what notify adds; store it */
};

/*
 * Decide where this turn (or this step) goes.  Never fails; any NULL
 * pointer inside signals reads as "nothing observed".
 */
void route_decide(const struct route_policy *p, const struct route_signals *s,
		  enum route_request req, struct route_decision *d);

/*
 * When text starts with "@claude" (case-insensitive, after leading
 * blanks) followed by the end, a blank, ':' or ',', the text after the
 * prefix and its blanks; NULL otherwise.  Borrowed from text.
 */
const char *route_strip_at_claude(const char *text);

/*
 * Canonical form of a tool call's JSON arguments, for repeat detection:
 * object keys sorted, no whitespace.  Text that is not JSON is copied as
 * is.  Appends to out.
 */
void route_canon_args(const char *json, struct buf *out);

/*
 * Whether a shell command runs tests: one of the policy's test_commands
 * ("make test", "pytest", ...) occurs in it as whole words.
 */
int route_is_test_command(const struct route_policy *p, const char *cmd);

/* Token usage of one request or a whole turn. */
struct route_usage {
	long input, output, cache_write, cache_read;
};

/*
 * Cost in USD of usage on model (exact id, else the longest price id
 * that prefixes it up to a '-' or '@', so "claude-haiku-4-5" prices
 * "claude-haiku-4-5-20251001").  Returns 0, or -1 when the model has no
 * price: then *usd uses the highest price of each kind in the table, so
 * spend caps still hold (0 when the table is empty).
 */
int route_cost_usd(const struct route_policy *p, const char *model,
		   const struct route_usage *u, double *usd);

/*
 * Whether path (relative to the workspace, '/'-separated) is covered by
 * the privacy globs.  Patterns without '/' match the basename; patterns
 * with '/' match the path or any tail of it starting after a '/', so
 * the default secrets glob also covers "a/b/secrets/x".
 */
int route_privacy_match(const struct route_policy *p, const char *path);

/*
 * What Claude sees of a file: when path is private, a one-line notice
 * replaces content (returns 1); otherwise content is appended as is
 * (returns 0).  Appends to out.
 */
int route_redact(const struct route_policy *p, const char *path, const char *content,
		 size_t len, struct buf *out);

/* One finished turn, for the outcomes log. */
struct route_outcome {
	enum route_target target;
	enum route_mode mode;
	const char *reason;    /* NULL or "" for a default local turn */
	int steps;
	int answered;          /* the turn ended with an answer (AGENT_END_OK) */
	int files_changed;
	struct route_usage tokens;
	double cost_usd;
	double wall_s;
	time_t ts;             /* 0 = now */
};

/*
 * Append o as one JSON line to path (created 0600, parent directories
 * made), with O_APPEND and fsync.  0 / -1 + e; the file is never
 * truncated or rewritten.
 */
int route_outcome_append(const char *path, const struct route_outcome *o, struct err *e);

/*
 * A summary table of the outcomes log: turns, tokens, cost and wall time
 * per route, and what escalations bought (answered, files changed).
 * Unreadable lines are skipped and counted.  A missing file is a short
 * note, not an error.  0 / -1 + e when the file cannot be read.
 */
int route_stats(const char *path, struct buf *out, struct err *e);

/*
 * What the log records as spent (cost_usd summed) on the UTC calendar day
 * of `now`, for route_signals.spent_day_usd.  A missing log is 0 spent.
 * 0 / -1 + e (then *usd = 0).
 */
int route_spent_day(const char *path, time_t now, double *usd, struct err *e);

/* "local" or "claude". */
const char *route_target_name(enum route_target t);

#endif

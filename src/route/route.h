/*
 * route/route: the routing policy (issue 5) — local model or Claude, and why.
 *
 * Pure decisions: route_decide looks at a loaded struct route_policy
 * (settings, see route/config.h and docs/routing.md) and a struct
 * route_signals (what the session observed) and fills a struct
 * route_decision.  Nothing here does I/O.  The same policy also holds
 * the prices (route/cost.h) and the privacy globs (route/privacy.h); the
 * outcomes log is route/outcomes.h.
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

#include "base/buf.h"

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
	char *tier;            /* "tier": a tier of the servers setting takes the task (NULL: Claude) */
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
	int rule;                         /* the rule that fired (ROUTE_RULE_*), ROUTE_RULE_COUNT
					     for a task pattern, -1 for a request or the mode */
	const char *tier;                 /* a task pattern named this tier (borrowed from the
					     policy): target local, on that tier; NULL otherwise */
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



/* "local" or "claude". */
const char *route_target_name(enum route_target t);

#endif

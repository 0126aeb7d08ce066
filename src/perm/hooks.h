/*
 * hooks: user commands run at agent events (docs/permissions.md, "Hooks").
 *
 * Settings: "hooks": {"pre_tool": [{"command": "...", "matcher": "bash",
 * "timeout": 30}, ...], "post_tool": [...], "turn_end": [...],
 * "session_start": [...]} (a plain string is a command with no matcher).
 * Each command runs as `/bin/sh -c COMMAND` in the workspace root, in its
 * own process group (src/proc), with the event as one JSON object on
 * stdin and HEARTH_EVENT, HEARTH_PROJECT_DIR, HEARTH_TOOL and
 * HEARTH_SESSION_ID in its environment.  The hooks of one event run one
 * after another in settings order.
 *
 * Limits: each hook is killed (its whole group) after its timeout
 * (default 30 s); at most HOOKS_KEEP bytes of stdout and of stderr are
 * kept, and a hook that writes more than HOOKS_FLOOD bytes in all is
 * killed at once.  Neither counts as blocking.
 *
 * Outcome: a pre_tool hook that exits 2 blocks the call; its stderr is
 * the reason (the hooks after it do not run).  Any other non-zero exit,
 * a timeout, a flood or a command that cannot start is a problem line;
 * the call goes on.
 *
 * Ownership: struct hooks owns its entries and every run it started;
 * hooks_free kills what still runs (no callbacks).  Must be freed before
 * its loop.
 */
#ifndef HEARTH_HOOKS_H
#define HEARTH_HOOKS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "buf.h"

#define HOOKS_KEEP 8192            /* bytes kept of each stream */
#define HOOKS_FLOOD (1024 * 1024)  /* bytes written in all before the hook is killed */
#define HOOKS_TIMEOUT_S 30

struct loop;
struct hooks;
struct hooks_run;

enum hooks_event { HOOKS_SESSION_START, HOOKS_PRE_TOOL, HOOKS_POST_TOOL, HOOKS_TURN_END, HOOKS_NEVENTS };

struct hooks_result {
	int blocked;          /* a pre_tool hook exited 2 */
	struct buf reason;    /* its stderr (or a line naming the hook) */
	struct buf problems;  /* one line per hook that failed otherwise */
	struct buf output;    /* the kept stdout of the hooks, in order */
};

/* All hooks of a run are done.  r is valid during the call only. */
typedef void (*hooks_done_fn)(void *arg, const struct hooks_result *r);

/* What one event tells the hooks. */
struct hooks_call {
	enum hooks_event event;
	const char *tool;       /* tool events: the tool's name (for matchers and HEARTH_TOOL) */
	const char *session_id; /* may be NULL or "" */
	const char *json;       /* the event object, written to stdin */
};

struct hooks *hooks_new(struct loop *l, const char *root);
void hooks_free(struct hooks *h);
/* Merge a settings "hooks" object (entries are appended); problems to warnings. */
void hooks_load_json(struct hooks *h, const cJSON *obj, const char *where, struct buf *warnings);
/* "session_start", "pre_tool", ... */
const char *hooks_event_name(enum hooks_event ev);
/* How many hooks would run for this event and tool. */
size_t hooks_count(const struct hooks *h, enum hooks_event ev, const char *tool);
/*
 * Run the matching hooks; done (may be NULL) is called once when all
 * finished — before hooks_run returns when none matched (then NULL is
 * returned), else later from the loop.  The call's strings are copied.
 */
struct hooks_run *hooks_run(struct hooks *h, const struct hooks_call *c, hooks_done_fn done,
			    void *arg);
/* Stop a run: its hook is killed, done is not called.  NULL ok. */
void hooks_cancel(struct hooks_run *r);
/* Whether any run is still going (for waiting on notifications at exit). */
int hooks_busy(const struct hooks *h);

#endif

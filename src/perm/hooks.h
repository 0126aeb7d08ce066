/*
 * perm/hooks: user commands run at agent events (docs/permissions.md, "Hooks").
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
 * (default 30 s); at most PERM_HOOKS_KEEP bytes of stdout and of stderr are
 * kept, and a hook that writes more than PERM_HOOKS_FLOOD bytes in all is
 * killed at once.  Neither counts as blocking.
 *
 * Outcome: a pre_tool hook that exits 2 blocks the call; its stderr is
 * the reason (the hooks after it do not run).  Any other non-zero exit,
 * a timeout, a flood or a command that cannot start is a problem line;
 * the call goes on.
 *
 * Ownership: struct perm_hooks owns its entries and every run it started;
 * perm_hooks_free kills what still runs (no callbacks).  Must be freed before
 * its loop.
 */
#ifndef HEARTH_PERM_HOOKS_H
#define HEARTH_PERM_HOOKS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"

#define PERM_HOOKS_KEEP 8192            /* bytes kept of each stream */
#define PERM_HOOKS_FLOOD (1024 * 1024)  /* bytes written in all before the hook is killed */
#define PERM_HOOKS_TIMEOUT_S 30

struct loop;
struct perm_hooks;
struct perm_hooks_run;

enum perm_hooks_event { PERM_HOOKS_SESSION_START, PERM_HOOKS_PRE_TOOL, PERM_HOOKS_POST_TOOL, PERM_HOOKS_TURN_END, PERM_HOOKS_NEVENTS };

struct perm_hooks_result {
	int blocked;          /* a pre_tool hook exited 2 */
	struct buf reason;    /* its stderr (or a line naming the hook) */
	struct buf problems;  /* one line per hook that failed otherwise */
	struct buf output;    /* the kept stdout of the hooks, in order */
};

/* All hooks of a run are done.  r is valid during the call only. */
typedef void (*perm_hooks_done_fn)(void *arg, const struct perm_hooks_result *r);

/* What one event tells the hooks. */
struct perm_hooks_call {
	enum perm_hooks_event event;
	const char *tool;       /* tool events: the tool's name (for matchers and HEARTH_TOOL) */
	const char *session_id; /* may be NULL or "" */
	const char *json;       /* the event object, written to stdin */
};

struct perm_hooks *perm_hooks_new(struct loop *l, const char *root);
void perm_hooks_free(struct perm_hooks *h);
/* Merge a settings "hooks" object (entries are appended); problems to warnings. */
void perm_hooks_load_json(struct perm_hooks *h, const cJSON *obj, const char *where, struct buf *warnings);
/* "session_start", "pre_tool", ... */
const char *perm_hooks_event_name(enum perm_hooks_event ev);
/* How many hooks would run for this event and tool. */
size_t perm_hooks_count(const struct perm_hooks *h, enum perm_hooks_event ev, const char *tool);
/*
 * Run the matching hooks; done (may be NULL) is called once when all
 * finished — before perm_hooks_run returns when none matched (then NULL is
 * returned), else later from the loop.  The call's strings are copied.
 */
struct perm_hooks_run *perm_hooks_run(struct perm_hooks *h, const struct perm_hooks_call *c, perm_hooks_done_fn done,
			    void *arg);
/* Stop a run: its hook is killed, done is not called.  NULL ok. */
void perm_hooks_cancel(struct perm_hooks_run *r);
/* Whether any run is still going (for waiting on notifications at exit). */
int perm_hooks_busy(const struct perm_hooks *h);

#endif

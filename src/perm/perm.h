/*
 * perm/perm: may a tool call run without asking?  Approval modes and rules
 * (docs/permissions.md).
 *
 * Modes: ask (every change asks), auto-edit (the default: edits and
 * writes inside the workspace run; bash commands run when the sandbox
 * confines them (io/sandbox.h), else those not known to be read-only
 * ask; writes outside the workspace ask; other tools, MCP ones
 * included, run), yolo (nothing asks).  Read-only tools never ask; in mode
 * ask every tool flagged TOOL_MUTATES or TOOL_NEEDS_APPROVAL asks.
 *
 * Rules are "tool" or "tool(pattern)".  Tool names compare without case
 * (Claude Code's "Bash(...)" works), may be globs, and "mcp__server"
 * covers every tool of that MCP server.  The pattern is a glob (`*` any
 * run of characters, `/` and spaces included; `?` one character; a
 * backslash makes the next character literal); a trailing ":*" means
 * "this, or this followed by a space and anything".
 * For bash it is matched against each simple command of the command line
 * (split on ; && || | & newlines and parentheses, quotes and backslashes
 * respected ($'...' with its backslash escapes too, a backslash-newline
 * joining lines), comments skipped to the line's end, with
 * leading VAR=value words and wrappers such as sudo/env/timeout removed,
 * the command word's quotes removed as bash removes them ('rm', \rm,
 * $'\x72m'), redirections before it moved after it, blanks collapsed; a here-document's body is text, not commands, unless
 * it is expanded and runs a substitution); for tools with a "path" argument against the path
 * relative to the workspace (inside it) and the absolute path.
 *
 * Precedence: deny (refuse, never ask) > ask > protected paths > allow
 * and the session's "always" answers > the mode.  A change to a protected
 * path (perm/protect.h: .git, .hearth, .mcp.json, hearth's config and
 * state) asks in every mode but yolo; only an allow or session rule whose
 * pattern names it (contains ".git", ".hearth", ...) covers it, never a
 * bare "write" or a glob such as "write(*)".  A bash call is allowed by rules only when
 * every one of its simple commands is covered (by a rule, or read-only);
 * an allow pattern without '>' does not cover a command that redirects
 * output to a file.  These rules guard against a model's mistakes; they
 * are not a sandbox (use a pre_tool hook for more).
 *
 * Ownership: struct perm owns its rule strings; release with perm_release.
 */
#ifndef HEARTH_PERM_PERM_H
#define HEARTH_PERM_PERM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buf.h"
#include "base/err.h"
#include "llm/tool.h"

struct sandbox;

enum perm_mode { PERM_ASK, PERM_AUTO_EDIT, PERM_YOLO };
enum perm_verdict { PERM_ALLOW, PERM_QUESTION, PERM_DENY };
enum perm_list { PERM_LIST_ALLOW, PERM_LIST_ASK, PERM_LIST_DENY, PERM_LIST_SESSION };

struct perm_rule {
	char *text;    /* as written: "bash(git push*)" */
	char *tool;    /* lowercase tool name */
	char *pattern; /* NULL: the whole tool */
	char *alt;     /* "pattern *" for a ":*" pattern, else NULL */
};

struct perm_rules {
	struct perm_rule *v;
	size_t n, cap;
};

struct perm {
	enum perm_mode mode;
	struct perm_rules lists[4]; /* indexed by enum perm_list */
	struct sandbox *sandbox;    /* where shell commands run (borrowed, NULL = none): in
				     * auto-edit a confining sandbox (sandbox_confines) lets
				     * them run without asking */
};

void perm_init(struct perm *p);
void perm_release(struct perm *p);
/* "ask" | "auto-edit" | "yolo" -> *out; -1 for anything else. */
int perm_mode_parse(const char *s, enum perm_mode *out);
const char *perm_mode_name(enum perm_mode m);
/* Add a rule to a list; -1 + e ("rule \"X\": ...") when malformed. */
int perm_add_rule(struct perm *p, enum perm_list which, const char *text, struct err *e);
/*
 * Merge a settings "permissions" object ({"allow": [...], "ask": [...],
 * "deny": [...]}); problems become "where: ..." lines in warnings.
 */
void perm_load_json(struct perm *p, const cJSON *obj, const char *where, struct buf *warnings);
/*
 * Decide for tool t called with args (already validated) in workspace
 * root.  `why` gets one line: the rule that decided, or why it asks.
 */
enum perm_verdict perm_check(const struct perm *p, const struct tool *t, const cJSON *args,
			     const char *root, struct buf *why);
/*
 * Whether allow or session rules alone cover the call (for a shell tool:
 * every simple command; read-only-ness does not count).  deny and ask
 * rules are not consulted: use it after perm_check allowed the call.
 */
int perm_allowed_by_rule(const struct perm *p, const struct tool *t, const cJSON *args, const char *root);
/*
 * The session rules an "always" answer adds for this call (one or more,
 * separated by "\n"), e.g. "bash(make test:*)"; empty when every part is
 * already allowed.
 */
void perm_always_rules(const struct perm *p, const struct tool *t, const cJSON *args,
		       const char *root, struct buf *out);
/* Glob match of the whole string: `*` any run, `?` one character, `\\c` the character c. */
int perm_glob(const char *pat, const char *s);
/*
 * The simple commands of a shell command line, normalised (see above),
 * each followed by a NUL byte in out.  Returns how many.
 */
size_t perm_segments(const char *cmd, struct buf *out);

#endif

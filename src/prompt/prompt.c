/*
 * prompt/prompt: default system prompt.  Written for 9B–35B local models: short,
 * concrete, and pushing from exploring to producing (read what you need,
 * then edit; do not re-read; finish with a summary).
 */
#include "prompt/prompt.h"

#include <stddef.h>
#include <string.h>

#include "prompt/context.h"
#include "llm/conv.h"
#include "repo/info.h"
#include "prompt/memory.h"
#include "llm/tool.h"
#include "llm/toolset.h"

/* With tool_search: which tools must be loaded before they can be called. */
static void
prompt_deferred(struct buf *out, const struct tool *const *tools, size_t ntools)
{
	size_t i, n = 0;

	for (i = 0; i < ntools && !(tools[i]->flags & TOOL_DISCOVERY); i++)
		;
	if (i == ntools)
		return;
	for (i = 0; i < ntools; i++) {
		if (toolset_is_core(tools[i]) || (tools[i]->flags & TOOL_DISCOVERY))
			continue;
		buf_addf(out, "%s%s", n++ ? ", " : "Not loaded yet (call tool_search with the name first): ",
			 tools[i]->name);
	}
	if (n)
		buf_adds(out, "\n");
}

/* The default prompt (kept short: issue 14 wants the first turn <= 1,200 tokens with the tools). */
static void
prompt_build(struct buf *out, const char *root, const char *date, const struct tool *const *tools,
	     size_t ntools)
{
	size_t i;
	int deferring = 0;

	for (i = 0; i < ntools; i++)
		deferring |= (tools[i]->flags & TOOL_DISCOVERY) != 0;
	buf_adds(out,
		 "You are hearth, a coding agent in a software project on the user's machine. "
		 "The user sees every tool call and file change.\n\n");
	if (ntools && !deferring) {
		buf_adds(out, "Tools:");
		for (i = 0; i < ntools; i++)
			buf_addf(out, "%s %s", i ? "," : "", tools[i]->name);
		buf_adds(out, "\n");
	}
	prompt_deferred(out, tools, ntools);
	buf_adds(out,
		 "\nHow to work:\n"
		 "- Paths are relative to the workspace root; stay inside it.\n"
		 "- Find code with grep; read only the lines you need, each file once.\n"
		 "- Change files with edit; use write only for new files or full rewrites.\n"
		 "- Check your work with bash (build, tests) and fix what fails.\n"
		 "- When done, stop calling tools and answer briefly: what you changed and how you checked it.\n");
	/* what differs between sessions comes last, after the mark (llm/conv.h) */
	buf_adds(out, CONV_SESSION_MARK);
	buf_addf(out, "Workspace root: %s\nToday's date: %s\n", root, date);
}

/* Branch, upstream and dirty files, read once: the prompt must not change mid-session. */
static void
prompt_git(struct buf *out, const char *root)
{
	struct repo_info gi = REPO_INFO_INIT;

	if (repo_info_read(root, &gi, NULL) == 0 && gi.state != REPO_INFO_NONE) {
		buf_addch(out, '\n');
		repo_info_prompt(&gi, out);
	}
	repo_info_release(&gi);
}

/* Default prompt plus the context files, frozen for the session (until /reload). */
void
prompt_session(struct buf *out, const char *root, const char *date,
	       const struct tool *const *tools, size_t ntools, struct buf *warnings)
{
	struct buf ctx = BUF_INIT;

	prompt_build(out, root, date, tools, ntools);
	prompt_git(out, root);
	if (prompt_context_load(root, root, &ctx, warnings) > 0) {
		buf_adds(out, "\nInstructions from the user and the project (follow them):\n\n");
		buf_add(out, ctx.data, ctx.len);
	}
	prompt_memory_load(root, out, warnings);
	buf_release(&ctx);
}

/* A whole file as the prompt. */
int
prompt_load_file(struct buf *out, const char *path, struct err *e)
{
	return buf_read_file(out, path, 1 << 20, e);
}

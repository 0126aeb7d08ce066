/*
 * agent/cutoff: counting read-only steps and refusing non-producing calls
 * once the limit is reached (see agent/cutoff.h).  A step produces when one of
 * its calls is to a tool that may change files and is not a bash command
 * known to be read-only (tool_bash_readonly); such a step, even a failed edit, ends
 * the streak: the model is trying to make the change.
 */
#include "agent/cutoff.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "base/json.h"
#include "llm/tool.h"

/* A new turn starts exploring afresh. */
void
agent_cutoff_reset(struct agent_cutoff *c)
{
	c->streak = 0;
	c->active = 0;
}

/* edit, write, bash: the tools that may change files. */
static int
agent_cutoff_is_producing(const struct tool *t)
{
	return t && (t->flags & TOOL_MUTATES);
}

/* Whether call c may have changed something. */
static int
agent_cutoff_call_produces(const struct agent_call *c)
{
	cJSON *args;
	int ro;

	if (!agent_cutoff_is_producing(c->tool))
		return 0;
	args = cJSON_ParseWithLength(c->args.data ? c->args.data : "", c->args.len);
	ro = tool_is_read_only(c->tool, args);
	cJSON_Delete(args);
	return !ro;
}

/* A read-only extension (MCP) tool: its calls neither count nor are refused. */
static int
agent_cutoff_exempt(const struct tool *t)
{
	return t && (t->flags & TOOL_EXTERNAL) && (t->flags & TOOL_READ_ONLY);
}

/* Count one step; engage at the limit. */
int
agent_cutoff_after_step(struct agent_cutoff *c, const struct agent_call *calls, size_t n, struct buf *note)
{
	size_t i, exempt = 0;

	if (c->limit <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (agent_cutoff_call_produces(&calls[i])) {
			agent_cutoff_reset(c);
			return 0;
		}
		exempt += agent_cutoff_exempt(calls[i].tool);
	}
	if (n && exempt == n) /* only read-only MCP calls: not exploring the workspace */
		return 0;
	if (++c->streak < c->limit || c->active)
		return 0;
	c->active = 1;
	c->engaged++;
	buf_addf(note,
		 "[hearth] You have explored for %d steps without changing anything. Stop reading: "
		 "from now on only edit, write and bash are available. Make the change now with what "
		 "you know, or answer if the task needs no change.",
		 c->streak);
	return 1;
}

/* Refuse a look-only call while the cutoff is active. */
int
agent_cutoff_refuses(const struct agent_cutoff *c, const struct tool *t, struct buf *why)
{
	if (!c->active || !t || agent_cutoff_is_producing(t) || agent_cutoff_exempt(t))
		return 0;
	buf_addf(why,
		 "error: %s is not available now: you explored for %d steps without a change. "
		 "Make the change with edit or write, run a check with bash, or answer.",
		 t->name, c->streak);
	return 1;
}

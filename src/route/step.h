/*
 * route/step: routing between the steps of a turn (issue 5), the part of
 * escalate that follows a running turn.
 *
 * route_step_hook is the agent's step hook (agent_set_step_hook, arg = the
 * struct route_escalate).  On the local model it reads the failure signals of
 * the turn from the conv (route_failures) and the agent's counters, asks
 * route_decide, and on an escalation switches the agent to Claude for
 * the rest of the turn (handoff) or for one consult request: Claude
 * answers with tool_choice none, its answer stays in the conv, a user
 * note asks the local model to go on with that plan, and the failure
 * signals start over after it.  On Claude it only watches the spend
 * caps (at a cap the turn goes back to the local model, and says so).
 * Each decision is recorded (escalate.dec) and shown in the note
 * ("→ claude (handoff): 3 failed tool calls in a row").
 *
 * Usage is accounted per route at every hook and at the end of a turn
 * (route_step_account): the agent's counters since the last accounting
 * belong to the provider that was active, priced by route_cost_usd.
 */
#ifndef HEARTH_ROUTE_STEP_H
#define HEARTH_ROUTE_STEP_H

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "route/escalate.h"

/* The text a consult request ends with (anthropic_wire_opts.consult); reason may be "". */
void route_step_consult_text(const char *reason, struct buf *out);
/* Start (on != 0) or end a consult on the Claude provider. */
void route_step_consult(struct route_escalate *x, int on, const char *reason);
/* Attribute the usage counted since the last call to the active route. */
void route_step_account(struct route_escalate *x, const struct agent_stats *st);
/* Remember a decision (the json's "decisions"). */
void route_step_record(struct route_escalate *x, const struct route_decision *d, int step);
/* The agent's step hook (arg: struct route_escalate *). */
int route_step_hook(void *arg, struct agent *a, enum agent_step_why why, struct buf *note);
/*
 * {"decisions": [...], "routes": {"local": {...}, "claude": {...}},
 *  "cost_usd": N, "spent_day_usd": N} for print-mode json (new object,
 * the caller owns it).  Accounts st first.
 */
cJSON *route_step_json(struct route_escalate *x, const struct agent_stats *st);

#endif

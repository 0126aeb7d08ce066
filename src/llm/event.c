/* llm/event: names of event kinds. */
#include "llm/event.h"

/* Stable lowercase names (used in logs and tests). */
const char *
llm_event_kind_name(enum llm_kind k)
{
	static const char *const names[] = {
		"text", "reasoning", "tool_call_begin", "tool_call_args", "tool_call_end",
		"progress", "timings", "usage", "error", "done", "cache", "notice",
	};
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/*
 * llm/textcall_gate: decides which streamed answer text can be shown live.
 *
 * Small models often write tool calls as text (`<tool_call>…`,
 * `<function=…>`, or a bare `{"name": …}` answer).  The agent recovers
 * them when the stream ends (textcall), but by then the markup would
 * already have been streamed to the user.  The gate passes text through
 * until a tool-call marker begins and withholds everything from there
 * on; text that might be the start of a marker ("<tool_c") is held until
 * the next delta decides.  The full text is kept by the caller; the gate
 * only filters what is displayed.
 */
#ifndef HEARTH_LLM_TEXTCALL_GATE_H
#define HEARTH_LLM_TEXTCALL_GATE_H

#include <stddef.h>

#include "base/buf.h"

struct textcall_gate {
	struct buf held;  /* undecided tail */
	int shown_any;    /* non-space text has been shown */
	int closed;       /* a marker was seen: show nothing more */
};

void textcall_gate_init(struct textcall_gate *g);
void textcall_gate_release(struct textcall_gate *g);
/* Start over for a new stream. */
void textcall_gate_reset(struct textcall_gate *g);
/* Feed a delta; what may be shown now is appended to out. */
void textcall_gate_feed(struct textcall_gate *g, const char *s, size_t n, struct buf *out);
/* End of stream: release a held tail that turned out not to be a marker. */
void textcall_gate_flush(struct textcall_gate *g, struct buf *out);

#endif

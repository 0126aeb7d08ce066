/*
 * llm/textcall_gate: live-display filter for tool-call markup (see llm/textcall_gate.h).
 * Invariant: `held` is empty, or is a proper prefix of a marker, or
 * (before anything was shown) a leading run that may become `{"name"`.
 */
#include "llm/textcall_gate.h"

#include <string.h>

static const char *const textcall_gate_markers[] = { "<tool_call>", "<function=" };
#define NMARKERS (sizeof textcall_gate_markers / sizeof textcall_gate_markers[0])

/* Empty gate. */
void
textcall_gate_init(struct textcall_gate *g)
{
	buf_init(&g->held, 0);
	g->shown_any = 0;
	g->closed = 0;
}

/* Free. */
void
textcall_gate_release(struct textcall_gate *g)
{
	buf_release(&g->held);
}

/* Reuse for the next stream. */
void
textcall_gate_reset(struct textcall_gate *g)
{
	buf_reset(&g->held);
	g->shown_any = 0;
	g->closed = 0;
}

/* Whether s[0..n) is a proper prefix of some marker. */
static int
textcall_gate_is_prefix(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < NMARKERS; k++)
		if (n < strlen(textcall_gate_markers[k]) && memcmp(textcall_gate_markers[k], s, n) == 0)
			return 1;
	return 0;
}

/* Leading-JSON check: 1 tool call, 0 not, -1 undecided. */
static int
textcall_gate_leading_json(const char *s, size_t n)
{
	static const char key[] = "\"name\"";
	size_t i = 0, k = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	if (i == n)
		return -1;
	if (s[i++] != '{')
		return 0;
	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	for (; i < n && k < sizeof key - 1; i++, k++)
		if (s[i] != key[k])
			return 0;
	return k == sizeof key - 1 ? 1 : -1;
}

/* Move shown text out and account for it. */
static void
textcall_gate_show(struct textcall_gate *g, const char *s, size_t n, struct buf *out)
{
	size_t i;

	for (i = 0; i < n && !g->shown_any; i++)
		g->shown_any = s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r';
	buf_add(out, s, n);
}

/* Filter a delta. */
void
textcall_gate_feed(struct textcall_gate *g, const char *s, size_t n, struct buf *out)
{
	size_t i, k, cut;
	int lead;

	if (g->closed)
		return;
	buf_add(&g->held, s, n);
	if (!g->shown_any) {
		lead = textcall_gate_leading_json(g->held.data, g->held.len);
		if (lead == 1) {
			g->closed = 1;
			buf_reset(&g->held);
			return;
		}
		if (lead == -1)
			return;
	}
	for (i = 0; i < g->held.len; i++) {
		if (g->held.data[i] != '<')
			continue;
		for (k = 0; k < NMARKERS; k++) {
			size_t ml = strlen(textcall_gate_markers[k]);

			if (g->held.len - i >= ml && memcmp(g->held.data + i, textcall_gate_markers[k], ml) == 0) {
				textcall_gate_show(g, g->held.data, i, out);
				g->closed = 1;
				buf_reset(&g->held);
				return;
			}
		}
		if (textcall_gate_is_prefix(g->held.data + i, g->held.len - i))
			break;
	}
	cut = i; /* held.data[cut..] may still become a marker */
	textcall_gate_show(g, g->held.data, cut, out);
	buf_remove(&g->held, 0, cut);
}

/* End of stream. */
void
textcall_gate_flush(struct textcall_gate *g, struct buf *out)
{
	if (!g->closed && textcall_gate_leading_json(g->held.data, g->held.len) != 1)
		textcall_gate_show(g, g->held.data, g->held.len, out);
	buf_reset(&g->held);
}

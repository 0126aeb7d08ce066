/*
 * skeldump: a tree as text for comparing a definitions-only parse
 * (code_skeleton) with a whole one: every node as "(type start-end" and its
 * children, except that the bodies left out are not entered (their
 * children differ by design).  For Python, whose kept bodies end early,
 * no end offsets and no entering any function's body block.  Header-only,
 * shared by test_synskel and the skelcheck bench tool.
 */
#ifndef HEARTH_SKELDUMP_H
#define HEARTH_SKELDUMP_H

#include <string.h>

#include <tree_sitter/api.h>

#include "base/buf.h"
#include "code/skeleton.h"

/* Whether node is a body that h left out (Python: any function's body block). */
static int
skeldump_is_hole_body(TSNode node, const struct code_skeleton_holes *h, int python)
{
	uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
	size_t k;

	if (python) {
		TSNode p = ts_node_parent(node);
		return !ts_node_is_null(p) && !strcmp(ts_node_type(node), "block") &&
		       !strcmp(ts_node_type(p), "function_definition");
	}
	for (k = 0; k < h->n; k++)
		if (h->at[2 * k] - 1 == s && h->at[2 * k + 1] + 1 == e)
			return 1;
	return 0;
}

/* Append node's subtree to out (see the top). */
static void
skeldump(TSNode node, const struct code_skeleton_holes *h, int python, struct buf *out)
{
	uint32_t i, n = ts_node_child_count(node);

	buf_addf(out, "(%s %u", ts_node_type(node), ts_node_start_byte(node));
	if (!python)
		buf_addf(out, "-%u", ts_node_end_byte(node));
	if (!skeldump_is_hole_body(node, h, python))
		for (i = 0; i < n; i++)
			skeldump(ts_node_child(node, i), h, python, out);
	buf_adds(out, ")");
}

#endif

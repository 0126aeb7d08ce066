/*
 * code/bodies: the function bodies definitions queries skip (see code/bodies.h).
 * A static table; entries with map_only set are skipped by the repository
 * map but not by the outline.
 */
#include <string.h>

#include "code/bodies.h"

static const struct {
	const char *lang, *def, *body;
	int map_only;
} skips[] = {
	{ "c", "function_definition", "compound_statement", 0 },
	{ "cpp", "function_definition", "compound_statement", 0 },
	{ "go", "function_declaration", "block", 0 },
	{ "go", "method_declaration", "block", 0 },
	{ "rust", "function_item", "block", 0 },
	{ "java", "method_declaration", "block", 0 },
	{ "java", "constructor_declaration", "constructor_body", 0 },
	{ "python", "function_definition", "block", 1 },
	{ "javascript", "function_declaration", "statement_block", 1 },
	{ "typescript", "function_declaration", "statement_block", 1 },
	{ "tsx", "function_declaration", "statement_block", 1 },
};

#define NSKIPS (sizeof skips / sizeof skips[0])

/* Whether entry i applies to use. */
static int
applies(size_t i, enum code_bodies_use use)
{
	return use == CODE_BODIES_MAP || !skips[i].map_only;
}

/* See code/bodies.h. */
int
code_bodies_any(const char *lang, enum code_bodies_use use)
{
	size_t i;

	for (i = 0; i < NSKIPS; i++)
		if (applies(i, use) && !strcmp(skips[i].lang, lang))
			return 1;
	return 0;
}

/*
 * The ids of the fields code_bodies_find follows, for the language last
 * asked on this thread: a lookup by name compares every field name of the
 * grammar, and repomap asks for every top-level node of every file.
 */
static _Thread_local struct {
	const TSLanguage *lang;
	TSFieldId declaration, definition, body;
} fields;

/* The child of node in field id, or a null node (id 0: the grammar has no such field). */
static TSNode
child_in(TSNode node, TSFieldId id)
{
	TSNode none = { { 0, 0, 0, 0 }, NULL, NULL };

	return id ? ts_node_child_by_field_id(node, id) : none;
}

/* See code/bodies.h. */
int
code_bodies_find(const char *lang, TSNode top, enum code_bodies_use use, uint32_t *from, uint32_t *to)
{
	const TSLanguage *tl = ts_tree_language(top.tree);
	const char *type;
	TSNode body;
	size_t i;

	if (fields.lang != tl) {
		fields.lang = tl;
		fields.declaration = ts_language_field_id_for_name(tl, "declaration", 11);
		fields.definition = ts_language_field_id_for_name(tl, "definition", 10);
		fields.body = ts_language_field_id_for_name(tl, "body", 4);
	}
	if (use == CODE_BODIES_MAP) { /* export function f() {...}, @decorated def f(): ... */
		TSNode inner = child_in(top, fields.declaration);

		if (ts_node_is_null(inner))
			inner = child_in(top, fields.definition);
		if (!ts_node_is_null(inner))
			top = inner;
	}
	type = ts_node_type(top);
	for (i = 0; i < NSKIPS; i++) {
		if (!applies(i, use) || strcmp(skips[i].lang, lang) || strcmp(skips[i].def, type))
			continue;
		body = child_in(top, fields.body);
		if (ts_node_is_null(body) || strcmp(ts_node_type(body), skips[i].body))
			return 0;
		*from = ts_node_start_byte(body);
		*to = ts_node_end_byte(body);
		return 1;
	}
	return 0;
}

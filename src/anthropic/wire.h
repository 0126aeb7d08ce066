/*
 * anthropic/wire: the Anthropic Messages API wire format without I/O
 * (protocols.md B2-B6, and llama-server's /v1/messages, A7).
 *
 * Request: anthropic_wire_request builds the body from a conv
 * deterministically (same conv, tools and options → same bytes, which
 * keeps the prompt cache warm).  Conversion rules:
 *   - system → one text block; tools → {name, description, input_schema};
 *   - assistant: thinking blocks only when made by "anthropic" with a
 *     non-empty signature (sent back unchanged; name "redacted_thinking"
 *     means a redacted block whose data is the signature), then text and
 *     tool_use {id, name, input: parsed arguments, {} when not JSON};
 *     reasoning made by any other provider is never sent;
 *   - user: tool_result blocks first, then text and images;
 *   - consecutive same-role messages are merged, empty ones dropped; a
 *     tool_use without a result gets an error result, a result without
 *     its tool_use becomes text, so the body is always valid;
 *   - tool call ids that are not "toolu_" + [A-Za-z0-9_-] are mapped
 *     (anthropic_wire_tool_id), the same way for calls and results;
 *   - a consult (opts.consult): the instruction is one more text block at
 *     the end of the last user message (never in the conv) and
 *     tool_choice none, so the tools (and their cache) stay declared;
 *   - cache_control breakpoints: last tool, system, the last block of
 *     the final message and of the previous user message (at most 4);
 *   - sampling and manual thinking only for models that accept them
 *     (anthropic_wire_caps); otherwise adaptive thinking or nothing.
 */
#ifndef HEARTH_ANTHROPIC_WIRE_H
#define HEARTH_ANTHROPIC_WIRE_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "llm/provider.h"

#define ANTHROPIC_WIRE_MAX_TOKENS 16000
#define ANTHROPIC_WIRE_BUDGET 8000

struct anthropic_wire_opts {
	const char *model;   /* required */
	int max_tokens;      /* <= 0: ANTHROPIC_WIRE_MAX_TOKENS */
	int budget_tokens;   /* manual thinking budget; <= 0: ANTHROPIC_WIRE_BUDGET */
	double temperature;  /* < 0: omit (also omitted while thinking) */
	double top_p;        /* < 0: omit */
	int top_k;           /* < 0: omit (also omitted while thinking) */
	const char *consult; /* NULL, or: a consult request — this text is appended to the
				last user message and tool_choice is {"type":"none"} */
};

enum anthropic_wire_tier { ANTHROPIC_WIRE_HAIKU, ANTHROPIC_WIRE_SONNET, ANTHROPIC_WIRE_OPUS };

/* Default model id of a tier ("claude-haiku-4-5", "claude-sonnet-5", "claude-opus-5"). */
const char *anthropic_wire_tier_model(enum anthropic_wire_tier t);
/* "haiku" / "sonnet" / "opus" → tier; 0, or -1 for an unknown name. */
int anthropic_wire_tier_parse(const char *name, enum anthropic_wire_tier *out);

/* What a model accepts, from a table keyed by model-id prefix (B6). */
struct anthropic_wire_caps {
	int manual_thinking; /* thinking {type:"enabled", budget_tokens} */
	int adaptive;        /* thinking {type:"adaptive"} */
	int sampling;        /* non-default temperature / top_p / top_k */
};

/* Options with every optional field unset (defaults, sampling omitted). */
void anthropic_wire_opts_init(struct anthropic_wire_opts *o, const char *model);
/* Capabilities of model (unknown "claude-*" ids: the strict newer rules). */
void anthropic_wire_caps(const char *model, struct anthropic_wire_caps *out);
/* A valid Anthropic tool id for id (NULL ok), appended to out; deterministic. */
void anthropic_wire_tool_id(const char *id, struct buf *out);
/* The exact request body (appended to out). */
void anthropic_wire_request(const struct anthropic_wire_opts *o, const struct provider_req *req,
			   struct buf *out);
/*
 * GET /v1/models answer: 1 when model is listed (exactly, or as the alias
 * of a dated id "model-YYYYMMDD"), 0 when not, -1 + e when the body is
 * not that JSON.  The listed ids, comma separated, are appended to ids.
 */
int anthropic_wire_models_has(const char *json, size_t n, const char *model, struct buf *ids,
			     struct err *e);

#endif

/*
 * llama/template: does the server's chat template render an earlier assistant
 * turn differently from the way the model generated it?  (docs/cache.md)
 *
 * Qwen3.5/3.6 templates (and other Qwen3-family ones) start every
 * generation with an empty think block ("<think>\n\n</think>\n\n" when
 * thinking is off) and render it again while the turn runs, but drop it
 * from every assistant message before the last user message.  So at each
 * new user turn the previous turn's tokens change, and the server must
 * re-process them — on a hybrid model from the nearest checkpoint, often
 * the whole previous turn.
 *
 * The probe renders three tiny conversations with POST /apply-template:
 *   P1 = [user U1] + generation prompt
 *   P2 = [user U1, assistant A1, user U2]
 *   P3 = P2 with the assistant content written as generated: the text
 *        of P1 after the point where P1 and P2 part, then A1, and
 *        reasoning_content " " (a non-empty string that trims to nothing,
 *        so the template neither adds reasoning nor splits the content).
 * When P2 drops a non-empty prefix of the generation prompt and P3
 * starts with P1 + A1, that prefix is what an earlier assistant turn's
 * content must start with (llama_wire puts it there).  Anything else —
 * no /apply-template (old server), a template that renders earlier turns
 * as generated, one this trick cannot fix — gives NULL: no rewriting.
 *
 * Borrows http and cfg.
 */
#ifndef HEARTH_LLAMA_TEMPLATE_H
#define HEARTH_LLAMA_TEMPLATE_H

#include "base/buf.h"

struct http;
struct cfg;
struct llama_template;

/* prefix: malloc'd, the callee owns it; NULL when no rewriting applies. */
typedef void (*llama_template_fn)(char *prefix, void *arg);

/* Start the probe; done is called once from the loop.  NULL if it could not start (no call). */
struct llama_template *llama_template_start(struct http *h, const struct cfg *cfg, llama_template_fn done, void *arg);
/* Cancel (no callback).  NULL ok. */
void llama_template_cancel(struct llama_template *p);

/* Pure parts, tested on their own. */
/* The /apply-template body of probe 1, 2 or 3 (prefix used by 3). */
void llama_template_body(int which, const char *prefix, struct buf *out);
/* From P1 and P2: the dropped prefix (malloc'd) or NULL. */
char *llama_template_candidate(const char *p1, const char *p2);
/* P3 confirms the candidate: 1 or 0. */
int llama_template_confirm(const char *p1, const char *p3);

#endif

/*
 * front/trust: trust on first use at start-up (perm/trust.h has what
 * needs trust and the trust file).  What a project asks for is its
 * settings' wider rights plus the servers of its .mcp.json; their hash
 * is looked up in the trust file.  Untrusted: with --yes it is trusted
 * for this run; on a terminal (the sessions) the user is shown every item
 * and asked once, and a yes is remembered; otherwise (print mode, no
 * terminal) the run goes on without them and says so in one line on
 * stderr, with how to trust them (`hearth trust`, or --yes).
 */
#ifndef HEARTH_FRONT_TRUST_H
#define HEARTH_FRONT_TRUST_H

#include <stddef.h>
#include <stdio.h>

#include "base/buf.h"
#include "front/cli.h"
#include "perm/trust.h"

struct front_trust {
	struct buf show;     /* the items, one per line, under the file they come from */
	struct buf canon;    /* the text the hash covers */
	size_t nsettings;    /* items from .hearth/settings.json */
	size_t nmcp;         /* servers in .mcp.json */
	char hash[PERM_TRUST_HEX + 1];
};

/* What root's files ask to be trusted with (release with front_trust_release). */
void front_trust_collect(struct front_trust *t, const char *root);
void front_trust_release(struct front_trust *t);
/*
 * Whether this run may use what root's files ask for: 1 (trusted, or
 * nothing needs trust), 0 (run without them; the notice is printed).
 * can_ask: in and out are a terminal to ask on.
 */
int front_trust_decide(const char *root, const char *state_dir, int yes, int can_ask, FILE *in, FILE *out);
/* `hearth trust` (o->trust 1) and `hearth untrust` (-1) for the workspace; the exit code. */
int front_trust_main(const struct front_cli *o);

#endif

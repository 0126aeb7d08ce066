/*
 * perm/trust: trust on first use for what a project's own files would let
 * run or allow (docs/permissions.md, "Trusting a project").
 *
 * What needs trust in <root>/.hearth/settings.json (perm_trust_settings):
 * an "approval" more permissive than the user's settings give (or the
 * default auto-edit), "permissions.allow" rules, "hooks",
 * "allow_outside_workspace": true and "serve.binary".  Deny and ask rules
 * and a stricter approval only narrow rights: they apply untrusted.  The
 * front end adds the project's .mcp.json.  The user's own settings
 * (~/.config/hearth) are trusted: the user wrote them (a model's write to
 * them asks, perm/protect.h).
 *
 * The trust file, STATE_DIR/trust.json, maps a workspace root to the hash
 * of the text that was trusted: {"version": 1, "projects": {"ROOT":
 * "HEX"}}.  Mode 0600, replaced atomically (temp file + rename).  The hash
 * is SHA-1 as git computes it for a blob (libgit2's git_odb_hash, with
 * its collision detection): already linked, and a swap would need a
 * second preimage of text the user trusted, which SHA-1 still resists.
 * Any change to what needs trust changes the hash, so it asks again.
 *
 * Errors: an unreadable or corrupt trust file is reported in one line
 * (-1 + e) and every project counts as untrusted; recording replaces it.
 */
#ifndef HEARTH_PERM_TRUST_H
#define HEARTH_PERM_TRUST_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define PERM_TRUST_HEX 40 /* hex digits of a hash */

/*
 * Append what root's .hearth/settings.json would add if trusted: to show
 * one line per item ("hook session_start: ./x.sh"), to canon the text the
 * hash covers.  Returns how many items (0: nothing needs trust).
 */
size_t perm_trust_settings(const char *root, struct buf *show, struct buf *canon);
/* The hex hash of n bytes (NUL-terminated, PERM_TRUST_HEX digits). */
void perm_trust_hash(const void *data, size_t n, char out[PERM_TRUST_HEX + 1]);
/* STATE_DIR/trust.json into out (appended). */
void perm_trust_file(const char *state_dir, struct buf *out);
/* Whether file records root with hash: 1 / 0; -1 + e when file is unreadable or corrupt. */
int perm_trust_check(const char *file, const char *root, const char *hash, struct err *e);
/*
 * Record root with hash (hash NULL: forget root), creating the directory
 * (0700) and the file (0600); a corrupt file is replaced.  0 / -1 + e.
 */
int perm_trust_record(const char *file, const char *root, const char *hash, struct err *e);

#endif

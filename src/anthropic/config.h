/*
 * anthcfg: the "anthropic" object of the settings files — which Claude
 * model answers escalated turns and how requests are made
 * (docs/configuration.md):
 *
 *   "anthropic": {"tier": "sonnet",
 *                 "models": {"haiku": ID, "sonnet": ID, "opus": ID},
 *                 "max_tokens": 16000, "retries": 3, "api_key": "sk-..."}
 *
 * Files merge key by key (user file, then the project's); an invalid
 * value is one warning line ("FILE: anthropic.KEY ...; keeping X") and
 * the previous value stays.  "api_key" is read from the user settings
 * file only (a project file may be committed); ANTHROPIC_API_KEY wins.
 *
 * Ownership: a struct anthcfg owns its strings; anthcfg_release frees
 * them and leaves it zeroed.
 */
#ifndef HEARTH_ANTHCFG_H
#define HEARTH_ANTHCFG_H

#include <cjson/cJSON.h>

#include "anthropicwire.h"
#include "buf.h"

struct anthcfg {
	char *models[3];                /* per anthropicwire_tier; defaults from protocols.md */
	enum anthropicwire_tier tier;   /* sonnet */
	int max_tokens;                 /* 16000 */
	int retries;                    /* 3: at most 4 attempts */
	char *api_key;                  /* NULL unless the user file sets it */
};

/* The defaults. */
void anthcfg_defaults(struct anthcfg *c);
void anthcfg_release(struct anthcfg *c);
/* Merge an "anthropic" object; key_ok: whether this file may set api_key. */
void anthcfg_apply(struct anthcfg *c, const cJSON *o, const char *origin, int key_ok,
		   struct buf *warnings);
/* User settings then the project's (files that do not parse are cfg_load's to report). */
void anthcfg_load(struct anthcfg *c, const char *cwd, struct buf *warnings);
/* The model id of the chosen tier. */
const char *anthcfg_model(const struct anthcfg *c);

#endif

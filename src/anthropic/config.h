/*
 * anthropic/config: the "anthropic" object of the settings files — which Claude
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
 * Ownership: a struct anthropic_config owns its strings; anthropic_config_release frees
 * them and leaves it zeroed.
 */
#ifndef HEARTH_ANTHROPIC_CONFIG_H
#define HEARTH_ANTHROPIC_CONFIG_H

#include <cjson/cJSON.h>

#include "anthropic/wire.h"
#include "base/buf.h"

struct anthropic_config {
	char *models[3];                /* per anthropic_wire_tier; defaults from protocols.md */
	enum anthropic_wire_tier tier;   /* sonnet */
	int max_tokens;                 /* 16000 */
	int retries;                    /* 3: at most 4 attempts */
	char *api_key;                  /* NULL unless the user file sets it */
};

/* The defaults. */
void anthropic_config_defaults(struct anthropic_config *c);
void anthropic_config_release(struct anthropic_config *c);
/* Merge an "anthropic" object; key_ok: whether this file may set api_key. */
void anthropic_config_apply(struct anthropic_config *c, const cJSON *o, const char *origin, int key_ok,
		   struct buf *warnings);
/* User settings then the project's (files that do not parse are cfg_load's to report). */
void anthropic_config_load(struct anthropic_config *c, const char *cwd, struct buf *warnings);
/* The model id of the chosen tier. */
const char *anthropic_config_model(const struct anthropic_config *c);

#endif

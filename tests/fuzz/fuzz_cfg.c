/*
 * fuzz_cfg: libFuzzer harness for the settings loader (base/cfg.c,
 * cfg_load_file on an in-memory file).  The same text is loaded twice on
 * top of the defaults, as the user's and the project's files are; its
 * "anthropic" group goes to the provider's own reader
 * (anthropic/config.c, anthropic_config_apply) as that file's loader
 * hands it over.
 * Checks: a failure says why; warnings are whole lines; every string
 * setting is NULL or NUL-terminated text (the server URL never NULL);
 * everything frees cleanly.
 *
 * dict: "\"server\""
 * dict: "\"model\""
 * dict: "\"temperature\""
 * dict: "\"max_tokens\""
 * dict: "\"max_steps\""
 * dict: "\"bash_timeout\""
 * dict: "\"id_slot\""
 * dict: "\"stream_idle_timeout\""
 * dict: "\"syntax_check\""
 * dict: "\"defer_tools\""
 * dict: "\"serve\":{\"model\":"
 * dict: "\"theme\""
 * dict: "\"open_in\""
 * dict: "\"think_word\""
 * dict: "\"approval\""
 * dict: "\"routing\""
 * dict: "\"anthropic\":{\"tier\":\"opus\",\"max_tokens\":"
 * dict: "\"retries\""
 * dict: "\"models\":{\"haiku\":"
 * dict: "\"api_key\""
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anthropic/config.h"
#include "base/cfg.h"
#include "base/json.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_str(const char *s)
{
	if (s)
		FUZZ_CHECK(strlen(s) < (1u << 20));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg c;
	struct buf warnings = BUF_INIT;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path), k;

	cfg_defaults(&c);
	for (k = 0; k < 2; k++) {
		struct err e = ERR_INIT;

		if (cfg_load_file(&c, path, &warnings, &e) < 0)
			FUZZ_CHECK(e.msg[0]);
	}
	FUZZ_CHECK(!warnings.len || warnings.data[warnings.len - 1] == '\n');
	FUZZ_CHECK(c.server_url != NULL);
	check_str(c.server_url);
	check_str(c.model);
	check_str(c.think_word);
	check_str(c.serve_model);
	check_str(c.serve_binary);
	check_str(c.theme);
	check_str(c.open_in);
	buf_release(&warnings);
	cfg_release(&c);
	close(fd);

	/* The "anthropic" group, as anthropic_config_load hands it over. */
	{
		struct anthropic_config ac;
		cJSON *root = json_parse((const char *)data, size, NULL);
		const cJSON *o = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "anthropic") : NULL;

		anthropic_config_defaults(&ac);
		if (o)
			anthropic_config_apply(&ac, o, "fuzz.json", 1, &warnings);
		FUZZ_CHECK(anthropic_config_model(&ac) != NULL);
		FUZZ_CHECK(ac.max_tokens > 0 && ac.retries >= 0);
		anthropic_config_release(&ac);
		cJSON_Delete(root);
		buf_release(&warnings);
	}
	return 0;
}

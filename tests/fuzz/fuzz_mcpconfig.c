/*
 * fuzz_mcpconfig: libFuzzer harness for the MCP servers file loader
 * (mcp/config.c, mcp_config_load_file on an in-memory file), loaded twice
 * into one config as the user's and the project's files are.  Checks: a
 * failure says why; warnings are whole lines; at most
 * MCP_CONFIG_MAX_SERVERS servers, each with a name, an origin, a
 * NULL-terminated argv with a program and a NULL-terminated env of
 * NAME=value strings; everything frees cleanly.
 *
 * dict: "\"mcpServers\""
 * dict: "\"command\""
 * dict: "\"args\""
 * dict: "\"env\""
 * dict: "\"type\":\"stdio\""
 * dict: "\"disabled\":true"
 * dict: "${HOME}"
 * dict: "${NOPE:-x}"
 * dict: "${"
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/config.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_config c;
	struct buf warnings = BUF_INIT;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof path), k;
	size_t i, j;

	memset(&c, 0, sizeof c);
	for (k = 0; k < 2; k++) {
		struct err e = ERR_INIT;

		if (mcp_config_load_file(&c, path, &warnings, &e) < 0)
			FUZZ_CHECK(e.msg[0]);
	}
	FUZZ_CHECK(!warnings.len || warnings.data[warnings.len - 1] == '\n');
	FUZZ_CHECK(c.n <= MCP_CONFIG_MAX_SERVERS);
	for (i = 0; i < c.n; i++) {
		const struct mcp_config_server *s = &c.v[i];

		FUZZ_CHECK(s->name && s->origin);
		FUZZ_CHECK(s->transport == MCP_STDIO ? s->argv && s->argv[0] && !s->url :
			   !s->argv && s->url && !strncmp(s->url, "http", 4));
		for (j = 0; s->headers && s->headers[j]; j++)
			FUZZ_CHECK(strstr(s->headers[j], ": ") && !strpbrk(s->headers[j], "\r\n"));
		for (j = 0; s->argv && s->argv[j]; j++)
			FUZZ_CHECK(strlen(s->argv[j]) < size + 1);
		for (j = 0; s->env && s->env[j]; j++)
			FUZZ_CHECK(strchr(s->env[j], '=') != NULL);
	}
	buf_release(&warnings);
	mcp_config_release(&c);
	close(fd);
	return 0;
}

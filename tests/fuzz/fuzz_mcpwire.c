/*
 * fuzz_mcpwire: libFuzzer harness for the MCP client's wire and protocol
 * (mcp/wire.c, proto.c, tools.c).  The input is what a server writes to
 * its stdout: the first byte picks a chunk size, the rest goes through
 * the line reader, the message parser and mcp_proto_dispatch exactly as
 * mcp.c's output callback does, against a server that has just sent
 * initialize (id 1; its own requests go to /dev/null).  Once the server
 * has listed a tool, one call of it is started (its answer comes back
 * through the same input).  Every parsed result is also read directly as
 * a tools/list page and a tools/call result.  Checks: a parse failure
 * says why; a listed tool has a name, a description and an object
 * schema; a call's text stays within MCP_WIRE_MAX_OUTPUT plus its note;
 * the call job finishes at most once; mcp_free leaves no tool registered
 * and nothing leaked.  The prompts a server lists get the input as what
 * a user typed after the command (mcp_wire_prompt_args): the arguments
 * set are the prompt's own and strings, a refusal says why.
 *
 * dict: "{\"jsonrpc\":\"2.0\",\"id\":"
 * dict: "\"result\":"
 * dict: "\"error\":{\"code\":"
 * dict: "\"method\":"
 * dict: "\"protocolVersion\":\"2025-06-18\""
 * dict: "\"tools\":[{\"name\":"
 * dict: "\"inputSchema\":{\"type\":\"object\"}"
 * dict: "\"nextCursor\":"
 * dict: "\"annotations\":{\"readOnlyHint\":true}"
 * dict: "\"content\":[{\"type\":\"text\",\"text\":"
 * dict: "\"structuredContent\":"
 * dict: "\"isError\":true"
 * dict: "notifications/tools/list_changed"
 * dict: "\"ping\""
 * dict: "\x0d\x0a"
 * dict: "\"prompts\":[{\"name\":"
 * dict: "\"arguments\":[{\"name\":"
 * dict: "\"required\":true"
 * dict: "\"capabilities\":{\"prompts\":{}}"
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "io/loop.h"
#include "llm/tool.h"
#include "mcp/mcp.h"
#include "mcp/proto.h"
#include "mcp/tools.h"
#include "mcp/wire.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct loop *fuzz_loop;

/* tool_done_fn: count completions. */
static void
on_done(struct tool_job *job, void *arg)
{
	int *n = arg;

	(void)job;
	FUZZ_CHECK(++*n == 1);
}

/* The pure readers on one result. */
static void
check_result(const cJSON *result)
{
	struct mcp_wire_tool *v = NULL;
	struct buf warnings = BUF_INIT, out = BUF_INIT;
	struct err e = ERR_INIT;
	char *cursor = NULL;
	size_t n = 0, i;
	int is_error = 0;

	if (mcp_wire_tools(result, &v, &n, &cursor, &warnings, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	for (i = 0; i < n; i++) {
		cJSON *schema;

		FUZZ_CHECK(v[i].name && v[i].name[0] && v[i].description && v[i].schema);
		schema = cJSON_Parse(v[i].schema);
		FUZZ_CHECK(cJSON_IsObject(schema));
		cJSON_Delete(schema);
	}
	mcp_wire_tools_free(v, n);
	free(cursor);
	err_clear(&e);
	if (mcp_wire_call_text(result, &out, &is_error, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	FUZZ_CHECK(out.len <= MCP_WIRE_MAX_OUTPUT + 200);
	buf_reset(&out);
	err_clear(&e);
	if (mcp_wire_resources_text(result, &out, &e) < 0)
		FUZZ_CHECK(e.msg[0]);
	FUZZ_CHECK(out.len <= MCP_WIRE_MAX_OUTPUT + 200);
	buf_release(&out);
	buf_release(&warnings);
}

/* The input as the words typed after each prompt's command. */
static void
check_prompts(const struct mcp_server *s, const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	size_t i, k;

	FUZZ_CHECK(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < s->nprompts; i++) {
		cJSON *o = cJSON_CreateObject(), *a;
		struct buf err = BUF_INIT;

		if (mcp_wire_prompt_args(s->prompts[i].args, s->prompts[i].required, text, o, &err) < 0)
			FUZZ_CHECK(err.len > 0);
		cJSON_ArrayForEach(a, o) {
			int known = 0;

			for (k = 0; s->prompts[i].args[k]; k++)
				known |= !strcmp(s->prompts[i].args[k], a->string);
			FUZZ_CHECK(known && cJSON_IsString(a));
		}
		cJSON_Delete(o);
		buf_release(&err);
	}
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp *m;
	struct mcp_server *s;
	struct tool_job job;
	struct err e = ERR_INIT;
	size_t chunk, off = 0;
	int started = 0, done = 0;

	if (!size)
		return 0;
	if (!fuzz_loop && !(fuzz_loop = loop_new(&e)))
		abort();
	json_init();
	chunk = 1 + data[0] % 64;
	data++, size--;

	/* What mcp_start does for one server, without the process. */
	m = mcp_new(fuzz_loop, "/", 60);
	m->servers = calloc(2, sizeof *m->servers);
	s = &m->servers[m->nservers++];
	s->m = m;
	s->name = strdup("fuzz");
	s->err_r = -1;
	s->in_w = open("/dev/null", O_WRONLY | O_CLOEXEC);
	FUZZ_CHECK(s->in_w >= 0 && s->name);
	buf_init(&s->outq, 0);
	buf_init(&s->errtail, 0);
	mcp_wire_lines_init(&s->lines);
	(void)mcp_server_request(s, "initialize", mcp_wire_init_params("hearth", "0"), "initialize");

	/* What its output callback does, chunk by chunk. */
	while (off < size && s->state != SRV_DEAD) {
		size_t c = size - off < chunk ? size - off : chunk;
		struct mcp_wire_msg msg;
		const char *line;
		size_t len;
		int rc;

		mcp_wire_lines_add(&s->lines, (const char *)data + off, c);
		off += c;
		while (s->state != SRV_DEAD && (rc = mcp_wire_lines_next(&s->lines, &line, &len, &e)) != 0) {
			if (rc < 0 || (len && mcp_wire_parse(line, len, &msg, &e) < 0)) {
				FUZZ_CHECK(e.msg[0]);
				mcp_server_fail(s, e.msg);
				break;
			}
			if (!len)
				continue;
			if (msg.kind == MCP_WIRE_RESULT)
				check_result(msg.result);
			mcp_proto_dispatch(s, &msg);
			mcp_wire_msg_free(&msg);
			if (!started && s->nreg && s->state != SRV_DEAD) {
				cJSON *args = cJSON_CreateObject();

				started = 1;
				tool_job_init(&job, &s->reg[0]->t, NULL, on_done, &done);
				s->reg[0]->t.start(&job, args);
				cJSON_Delete(args);
			}
		}
	}
	check_prompts(s, data, size);
	mcp_free(m);
	{
		size_t nextra = 0;

		(void)tool_extra(&nextra);
		FUZZ_CHECK(nextra == 0);
	}
	if (started) {
		FUZZ_CHECK(done == 1);
		tool_job_release(&job);
	}
	return 0;
}

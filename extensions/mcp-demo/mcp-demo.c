/*
 * mcp-demo: a small MCP server over stdio (newline-delimited JSON-RPC
 * 2.0), shipped as an example and used by hearth's tests.
 *
 * Tools: echo {text}, add {a, b}, file_stat {path}, sleep {seconds,
 * progress_ms} (answers after the delay unless the client cancels the
 * request first; with progress_ms and the call's _meta.progressToken, a
 * notifications/progress every progress_ms), --many=N more read-only
 * tools gen_0 .. gen_N-1 (annotations.readOnlyHint)
 * and toggle {} (adds or removes the tool "extra" and sends
 * notifications/tools/list_changed).  tools/list is paged by
 * --page-size=N (a nextCursor per page).
 *
 * --prompts adds the prompts capability and two prompts: "brief" (topic
 * required, tone optional) and "hello" (no arguments).  prompts/get
 * answers one user message, "PROMPT <name> <arguments as JSON>", so a
 * test sees exactly what the client sent.  --init-delay=MS answers
 * initialize MS milliseconds late (a server slow to start).
 *
 * Test switches (--fail=MODE) make it misbehave on purpose:
 *   crash     exit(3) on the first tools/call, before answering
 *   garbage   answer the first tools/call with a line that is not JSON
 *   hang      never answer tools/call (and ignore SIGTERM)
 *   init      answer initialize with a line that is not JSON
 *   exit      exit(1) at once with a message on stderr
 * --log=FILE appends every line received to FILE (tests check what the
 * client sent, e.g. notifications/cancelled).
 *
 * State: the server is single-threaded; while a sleep call waits it
 * keeps reading stdin (poll) so a notifications/cancelled for that
 * request id ends the wait without an answer.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static const char *fail_mode = "";
static const char *log_path;
static int page_size = 0;
static int extra_on;
static int many; /* --many=N: N more read-only tools gen_0 .. gen_N-1 */
static int prompts; /* --prompts */
static int init_delay_ms; /* --init-delay=MS: a slow start (initialize answered late) */

static void reply(const cJSON *id, cJSON *result);
static void reply_error(const cJSON *id, int code, const char *msg);

/* prompts/list */
static void
list_prompts(const cJSON *id)
{
	reply(id, cJSON_Parse("{\"prompts\":["
			      "{\"name\":\"brief\",\"description\":\"A brief on a topic.\",\"arguments\":["
			      "{\"name\":\"topic\",\"required\":true},{\"name\":\"tone\"}]},"
			      "{\"name\":\"hello\",\"description\":\"Say hello.\"}]}"));
}

/* prompts/get: one user message naming the prompt and its arguments. */
static void
get_prompt(const cJSON *id, const cJSON *params)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	char *a = args ? cJSON_PrintUnformatted(args) : NULL;
	cJSON *r, *msgs, *m, *c;
	char text[4096];

	if (!name || (strcmp(name, "brief") && strcmp(name, "hello"))) {
		free(a);
		reply_error(id, -32602, "unknown prompt");
		return;
	}
	snprintf(text, sizeof text, "PROMPT %s %s", name, a ? a : "{}");
	free(a);
	r = cJSON_CreateObject();
	msgs = cJSON_AddArrayToObject(r, "messages");
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	c = cJSON_AddObjectToObject(m, "content");
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(msgs, m);
	reply(id, r);
}

/* Write one message as a line on stdout. */
static void
send_msg(cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	printf("%s\n", s);
	fflush(stdout);
	free(s);
	cJSON_Delete(o);
}

/* A response carrying result (consumed) for id. */
static void
reply(const cJSON *id, cJSON *result)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(o, "result", result);
	send_msg(o);
}

/* An error response for id. */
static void
reply_error(const cJSON *id, int code, const char *msg)
{
	cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddItemToObject(o, "error", e);
	send_msg(o);
}

/* A tool result with one text item. */
static cJSON *
text_result(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject(), *c = cJSON_CreateArray(), *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(c, t);
	cJSON_AddItemToObject(r, "content", c);
	if (is_error)
		cJSON_AddTrueToObject(r, "isError");
	return r;
}

static const char *const tool_defs[] = {
	"{\"name\":\"echo\",\"description\":\"Return the text unchanged.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}}",
	"{\"name\":\"add\",\"description\":\"Add two numbers.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}}",
	"{\"name\":\"file_stat\",\"description\":\"Size, type and modification time of a file.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}}",
	"{\"name\":\"sleep\",\"description\":\"Wait some seconds, then answer.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"seconds\":{\"type\":\"number\"},\"progress_ms\":{\"type\":\"number\"}},\"required\":[\"seconds\"]}}",
	"{\"name\":\"toggle\",\"description\":\"Add or remove the tool extra.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}",
	"{\"name\":\"extra\",\"description\":\"Exists after toggle.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}",
};

/* tools/list, paged when --page-size is set. */
static void
list_tools(const cJSON *id, const cJSON *params)
{
	int base = extra_on ? 6 : 5, n = base + many, start = 0, end, i;
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(params, "cursor");
	cJSON *r = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	char next[16];

	if (cJSON_IsString(cur))
		start = atoi(cur->valuestring);
	end = page_size > 0 && start + page_size < n ? start + page_size : n;
	for (i = start; i < end; i++) {
		char def[400];

		if (i < base) {
			cJSON_AddItemToArray(arr, cJSON_Parse(tool_defs[i]));
			continue;
		}
		snprintf(def, sizeof def,
			 "{\"name\":\"gen_%d\",\"description\":\"Generated read-only tool number %d.\","
			 "\"annotations\":{\"readOnlyHint\":true},"
			 "\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}", i - base, i - base);
		cJSON_AddItemToArray(arr, cJSON_Parse(def));
	}
	cJSON_AddItemToObject(r, "tools", arr);
	if (end < n) {
		snprintf(next, sizeof next, "%d", end);
		cJSON_AddStringToObject(r, "nextCursor", next);
	}
	reply(id, r);
}

/* file_stat's text. */
static cJSON *
file_stat(const char *path)
{
	struct stat st;
	char text[4200], when[32];

	if (!path || stat(path, &st) < 0) {
		snprintf(text, sizeof text, "stat %s: %s", path ? path : "(none)", strerror(errno));
		return text_result(text, 1);
	}
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&st.st_mtime));
	snprintf(text, sizeof text, "%s: %s, %lld bytes, mode %04o, modified %s", path,
		 S_ISDIR(st.st_mode) ? "directory" : S_ISREG(st.st_mode) ? "regular file" : "other",
		 (long long)st.st_size, (unsigned)(st.st_mode & 07777), when);
	return text_result(text, 0);
}

static int handle(const char *line);

/* notifications/progress for token (number or string). */
static void
send_progress(const cJSON *token, double progress, double total)
{
	cJSON *o = cJSON_CreateObject(), *p = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddStringToObject(o, "method", "notifications/progress");
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(token, 1));
	cJSON_AddNumberToObject(p, "progress", progress);
	cJSON_AddNumberToObject(p, "total", total);
	cJSON_AddItemToObject(o, "params", p);
	send_msg(o);
}

/*
 * Wait up to ms, handling other messages; 1 when request id was cancelled.
 * With a progress token and every_ms > 0, a progress notification every every_ms.
 */
static int
wait_cancellable(double ms, double id, const cJSON *token, double every_ms)
{
	struct pollfd p = { 0, POLLIN, 0 };
	struct timespec t0, t1;
	char line[65536];
	double next = every_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		double spent, until;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		spent = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (spent >= ms)
			return 0;
		if (token && every_ms > 0 && spent >= next) {
			send_progress(token, spent, ms);
			next += every_ms;
		}
		until = token && every_ms > 0 && next < ms ? next : ms;
		if (poll(&p, 1, (int)(until - spent) + 1) <= 0)
			continue;
		if (!fgets(line, sizeof line, stdin))
			exit(0);
		if (handle(line) == -2) {
			cJSON *o = cJSON_Parse(line);
			const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "params");
			const cJSON *rid = cJSON_GetObjectItemCaseSensitive(pr, "requestId");
			int hit = cJSON_IsNumber(rid) && rid->valuedouble == id;

			cJSON_Delete(o);
			if (hit)
				return 1;
		}
	}
}

/* tools/call. */
static void
call_tool(const cJSON *id, const cJSON *params)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, "a");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(args, "b");
	char text[64];

	if (!strcmp(fail_mode, "crash")) {
		fprintf(stderr, "mcp-demo: crashing on purpose\n");
		exit(3);
	}
	if (!strcmp(fail_mode, "garbage")) {
		printf("this is not json {\n");
		fflush(stdout);
		return;
	}
	if (!strcmp(fail_mode, "hang") || !name)
		return;
	if (!strcmp(name, "echo")) {
		reply(id, text_result(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "text")) ?
				      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "text")) : "", 0));
	} else if (!strcmp(name, "add") && cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
		snprintf(text, sizeof text, "%.15g", a->valuedouble + b->valuedouble);
		reply(id, text_result(text, 0));
	} else if (!strcmp(name, "file_stat")) {
		reply(id, file_stat(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "path"))));
	} else if (!strcmp(name, "sleep")) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(args, "seconds");
		const cJSON *every = cJSON_GetObjectItemCaseSensitive(args, "progress_ms");
		const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
		const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");

		if (!wait_cancellable(cJSON_IsNumber(s) ? s->valuedouble * 1e3 : 0, id->valuedouble,
				      token, cJSON_IsNumber(every) ? every->valuedouble : 0))
			reply(id, text_result("slept", 0));
	} else if (!strcmp(name, "toggle")) {
		extra_on = !extra_on;
		printf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n");
		reply(id, text_result(extra_on ? "extra added" : "extra removed", 0));
	} else if (!strncmp(name, "gen_", 4) && atoi(name + 4) < many) {
		snprintf(text, sizeof text, "generated tool %d answers", atoi(name + 4));
		reply(id, text_result(text, 0));
	} else if (!strcmp(name, "extra") && extra_on) {
		reply(id, text_result("extra here", 0));
	} else {
		reply_error(id, -32602, "unknown tool or bad arguments");
	}
}

/* One line; -2 for a cancellation notification (wait_cancellable looks at it). */
static int
handle(const char *line)
{
	cJSON *o = cJSON_Parse(line);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
	const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "method"));
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "params");
	int rc = 0;
	FILE *lf;

	if (log_path && (lf = fopen(log_path, "a"))) {
		fputs(line, lf);
		fclose(lf);
	}
	if (!o || !method) {
		if (!o)
			reply_error(NULL, -32700, "parse error");
	} else if (!strcmp(method, "initialize")) {
		if (init_delay_ms > 0) {
			struct timespec ts = { init_delay_ms / 1000, (long)(init_delay_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		if (!strcmp(fail_mode, "init")) {
			printf("<html>not json</html>\n");
			fflush(stdout);
		} else {
			reply(id, cJSON_Parse(prompts ?
			      "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":true},\"prompts\":{}},\"serverInfo\":{\"name\":\"mcp-demo\",\"version\":\"1.0\"}}" :
			      "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{\"listChanged\":true}},\"serverInfo\":{\"name\":\"mcp-demo\",\"version\":\"1.0\"}}"));
		}
	} else if (!strcmp(method, "tools/list")) {
		list_tools(id, params);
	} else if (!strcmp(method, "tools/call")) {
		call_tool(id, params);
	} else if (!strcmp(method, "prompts/list") && prompts) {
		list_prompts(id);
	} else if (!strcmp(method, "prompts/get") && prompts) {
		get_prompt(id, params);
	} else if (!strcmp(method, "ping")) {
		reply(id, cJSON_CreateObject());
	} else if (!strcmp(method, "notifications/cancelled")) {
		rc = -2;
	} else if (id) {
		reply_error(id, -32601, "method not found");
	}
	cJSON_Delete(o);
	return rc;
}

int
main(int argc, char **argv)
{
	static char line[1 << 20];
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--fail=", 7))
			fail_mode = argv[i] + 7;
		else if (!strncmp(argv[i], "--log=", 6))
			log_path = argv[i] + 6;
		else if (!strncmp(argv[i], "--page-size=", 12))
			page_size = atoi(argv[i] + 12);
		else if (!strncmp(argv[i], "--many=", 7))
			many = atoi(argv[i] + 7);
		else if (!strcmp(argv[i], "--prompts"))
			prompts = 1;
		else if (!strncmp(argv[i], "--init-delay=", 13))
			init_delay_ms = atoi(argv[i] + 13);
		else {
			fprintf(stderr, "usage: mcp-demo [--page-size=N] [--many=N] [--prompts] [--init-delay=MS] [--log=FILE] [--fail=crash|garbage|hang|init|exit]\n");
			return 2;
		}
	}
	if (!strcmp(fail_mode, "exit")) {
		fprintf(stderr, "mcp-demo: exiting at start on purpose\n");
		return 1;
	}
	if (!strcmp(fail_mode, "hang"))
		signal(SIGTERM, SIG_IGN); /* stuck for real: only SIGKILL ends it */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (fgets(line, sizeof line, stdin))
		(void)handle(line);
	return 0;
}

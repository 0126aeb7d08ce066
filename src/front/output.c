/*
 * front/output: print-mode observer.
 *
 * Data: the answer (text of the newest assistant message), a cJSON array
 * of tool call records for the json result, how the turn ended, and the
 * kind of the last stream error (to tell "no server" from other failures).
 * Every JSON string passes sanitize_utf8 before cJSON sees it and every
 * JSON line passes sanitize_json_c1 before it is written, so stdout is
 * valid UTF-8 JSON with no terminal control bytes.
 */
#include "front/output.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/json.h"
#include "front/output_json.h"
#include "base/sanitize.h"
#include "base/xmalloc.h"

struct front_output {
	struct front_output_opts o;
	struct buf answer;
	cJSON *tool_calls;
	cJSON *cache_breaks;
	cJSON *files;
	cJSON *route;
	cJSON *routing;   /* decisions, per-route usage and cost (route_step_json) */
	cJSON *tier;      /* the tier (servers setting) the local route ran on, or NULL */
	int ended;
	int length_stop;  /* the last answer stopped at the token limit (finish_reason length) */
	enum agent_end end;
	struct buf end_msg;
	enum llm_err_kind last_err;
	int had_err;
	int stdout_closed;
	int progress_shown;
	int wait_calls;   /* countdown lines since the wait began (front_output_wait) */
	struct buf scratch;
	/* Claude Code's fields (stream-json): the message being streamed, the turn's refusals */
	struct llm_usage msg_usage;  /* usage of the request that produced the next message */
	char msg_stop[32];           /* its finish reason ("stop", "tool_calls", "length") */
	unsigned msg_seq;            /* assistant messages so far: their ids */
	char *model;                 /* the model of the init line */
	cJSON *denials;              /* permission_denials: calls the gate refused this turn */
	cJSON *mcp_servers;          /* init's mcp_servers (front_output_init_extra) */
	const char *permission_mode; /* init's permissionMode */
	struct agent_stats base;     /* the totals at the last result line: a result counts its own turn */
};

/* A random RFC 4122 version 4 UUID (Claude Code's "uuid" fields). */
static void
pm_uuid(char out[37])
{
	unsigned char r[16] = { 0 };
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i, k = 0;

	if (fd < 0 || read(fd, r, sizeof r) != (ssize_t)sizeof r) {
		unsigned long v = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 20) ^ (unsigned long)clock();

		for (i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)(v >> (8 * (i % sizeof v))) ^ (unsigned char)(i * 37);
	}
	if (fd >= 0)
		close(fd);
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	for (i = 0; i < sizeof r; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		snprintf(out + k, 3, "%02x", r[i]);
		k += 2;
	}
	out[k] = '\0';
}

/* The wrapper fields every stream-json message of Claude Code's carries. */
static void
pm_wrap(struct front_output *pm, cJSON *o)
{
	char u[37];

	cJSON_AddNullToObject(o, "parent_tool_use_id");
	pm_uuid(u);
	cJSON_AddStringToObject(o, "uuid", u);
	if (pm->o.session_id)
		cJSON_AddStringToObject(o, "session_id", pm->o.session_id);
}

/* An OpenAI finish reason as an Anthropic stop_reason. */
static const char *
pm_stop_reason(const char *finish)
{
	if (!finish || !*finish)
		return NULL;
	if (!strcmp(finish, "stop") || !strcmp(finish, "end_turn"))
		return "end_turn";
	if (!strcmp(finish, "tool_calls") || !strcmp(finish, "tool_use"))
		return "tool_use";
	if (!strcmp(finish, "length") || !strcmp(finish, "max_tokens"))
		return "max_tokens";
	return finish;
}

/* Write everything or note EPIPE; never raises SIGPIPE (it is ignored). */
static void
pm_write(struct front_output *pm, int fd, const char *s, size_t n)
{
	if (fd == pm->o.out_fd && pm->stdout_closed)
		return;
	if (fs_write_all(fd, s, n) < 0 && fd == pm->o.out_fd)
		pm->stdout_closed = 1;
}

/* Print a JSON value as one line on stdout and free it. */
static void
pm_emit(struct front_output *pm, cJSON *o)
{
	char *txt = cJSON_PrintUnformatted(o);
	struct buf b = BUF_INIT;

	buf_adds(&b, txt ? txt : "{}");
	sanitize_json_c1(&b);
	buf_addch(&b, '\n');
	pm_write(pm, pm->o.out_fd, b.data, b.len);
	buf_release(&b);
	cJSON_free(txt);
	cJSON_Delete(o);
}

/* Allocate. */
struct front_output *
front_output_new(const struct front_output_opts *o)
{
	struct front_output *pm = xcalloc(1, sizeof *pm);

	pm->o = *o;
	buf_init(&pm->answer, 0);
	buf_init(&pm->end_msg, 0);
	buf_init(&pm->scratch, 0);
	pm->tool_calls = cJSON_CreateArray();
	pm->cache_breaks = cJSON_CreateArray();
	pm->files = cJSON_CreateArray();
	pm->denials = cJSON_CreateArray();
	return pm;
}

/* Free. */
void
front_output_free(struct front_output *pm)
{
	if (!pm)
		return;
	buf_release(&pm->answer);
	buf_release(&pm->end_msg);
	buf_release(&pm->scratch);
	cJSON_Delete(pm->tool_calls);
	cJSON_Delete(pm->cache_breaks);
	cJSON_Delete(pm->files);
	cJSON_Delete(pm->routing);
	cJSON_Delete(pm->route);
	cJSON_Delete(pm->tier);
	cJSON_Delete(pm->denials);
	cJSON_Delete(pm->mcp_servers);
	free(pm->model);
	free(pm);
}

/* stderr line (sanitised) regardless of verbosity. */
void
front_output_error(struct front_output *pm, const char *line)
{
	struct buf b = BUF_INIT;

	if (pm->progress_shown) {
		buf_addch(&b, '\n');
		pm->progress_shown = 0;
	}
	buf_adds(&b, "hearth: ");
	sanitize_term(&b, line, strlen(line));
	buf_addch(&b, '\n');
	pm_write(pm, pm->o.err_fd, b.data, b.len);
	buf_release(&b);
}

/* stderr line when verbose. */
void
front_output_note(struct front_output *pm, const char *line)
{
	if (pm->o.verbose)
		front_output_error(pm, line);
}

/* Prefill progress on stderr: "prefill 61% 2.4k/3.9k new, 16.0k cached, 1.5k tok/s, ETA 1.0s". */
static void
pm_progress(struct front_output *pm, const struct llm_progress *p)
{
	long todo = p->total - p->cache, done = p->processed - p->cache;
	double rate = p->time_ms > 0 ? done * 1000.0 / (double)p->time_ms : 0;
	char line[160];

	if (!pm->o.verbose || todo <= 0)
		return;
	snprintf(line, sizeof line, "prefill %3ld%%  %ld/%ld new, %ld cached, %.0f tok/s",
		 done * 100 / todo, done, todo, p->cache, rate);
	if (rate > 0 && done < todo) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof line - l, ", ETA %.1fs", (double)(todo - done) / rate);
	}
	if (pm->o.err_is_tty) { /* one line, rewritten in place */
		pm_write(pm, pm->o.err_fd, "\r", 1);
		pm_write(pm, pm->o.err_fd, line, strlen(line));
		if (done >= todo)
			pm_write(pm, pm->o.err_fd, "\n", 1);
		pm->progress_shown = done < todo;
	} else if (done > 0) { /* a log: one line per batch, no 0% line */
		front_output_error(pm, line);
	}
}

/* A cache report or a server notice: stderr when verbose, a record for json. */
static void
pm_server_note(struct front_output *pm, const struct llm_event *ev)
{
	cJSON *o;
	char line[512];

	if (ev->kind == LLM_NOTICE) {
		snprintf(line, sizeof line, "%.*s", (int)ev->text.len, ev->text.p);
		front_output_note(pm, line);
		if (pm->o.format == FRONT_OUTPUT_STREAM_JSON) {
			o = front_output_json_obj("system", "notice");
			front_output_json_add_str(o, "text", ev->text.p, ev->text.len);
			pm_emit(pm, o);
		}
		return;
	}
	if (!ev->cache.is_break)
		return;
	snprintf(line, sizeof line, "cache break: %s (reused %.0f%% of the prompt, expected %.0f%%)",
		 ev->cache.cause, ev->cache.reuse * 100, ev->cache.expected * 100);
	front_output_note(pm, line);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "reuse", ev->cache.reuse);
	cJSON_AddNumberToObject(o, "expected", ev->cache.expected);
	cJSON_AddNumberToObject(o, "cache_n", (double)ev->cache.cache_n);
	cJSON_AddNumberToObject(o, "prompt_n", (double)ev->cache.prompt_n);
	cJSON_AddBoolToObject(o, "planned", ev->cache.planned);
	front_output_json_add_str(o, "cause", ev->cache.cause, strlen(ev->cache.cause));
	if (pm->o.format == FRONT_OUTPUT_STREAM_JSON) {
		cJSON *line_obj = front_output_json_obj("system", "cache_break");

		cJSON_AddItemToObject(line_obj, "cache", cJSON_Duplicate(o, 1));
		pm_emit(pm, line_obj);
	}
	cJSON_AddItemToArray(pm->cache_breaks, o);
}

/* Stream events: deltas for stream-json, progress for stderr. */
static void
pm_on_event(void *arg, const struct llm_event *ev)
{
	struct front_output *pm = arg;
	cJSON *o, *e, *d;

	if (ev->kind == LLM_ERROR) {
		pm->last_err = ev->error.kind;
		pm->had_err = 1;
	}
	if (ev->kind == LLM_DONE) {
		pm->length_stop = ev->stop_reason && !strcmp(ev->stop_reason, "length");
		snprintf(pm->msg_stop, sizeof pm->msg_stop, "%s", ev->stop_reason ? ev->stop_reason : "stop");
	}
	if (ev->kind == LLM_USAGE) {
		pm->msg_usage.prompt_tokens += ev->usage.prompt_tokens;
		pm->msg_usage.completion_tokens += ev->usage.completion_tokens;
		pm->msg_usage.cached_tokens += ev->usage.cached_tokens;
		pm->msg_usage.cache_write_tokens += ev->usage.cache_write_tokens;
	}
	if (ev->kind == LLM_CACHE || ev->kind == LLM_NOTICE) {
		pm_server_note(pm, ev);
		return;
	}
	if (ev->kind == LLM_PROGRESS) {
		pm_progress(pm, &ev->progress);
		if (pm->o.format == FRONT_OUTPUT_STREAM_JSON) {
			o = front_output_json_obj("system", "progress");
			e = cJSON_AddObjectToObject(o, "prompt_progress");
			cJSON_AddNumberToObject(e, "total", (double)ev->progress.total);
			cJSON_AddNumberToObject(e, "cache", (double)ev->progress.cache);
			cJSON_AddNumberToObject(e, "processed", (double)ev->progress.processed);
			cJSON_AddNumberToObject(e, "time_ms", (double)ev->progress.time_ms);
			if (pm->o.session_id)
				cJSON_AddStringToObject(o, "session_id", pm->o.session_id);
			pm_emit(pm, o);
		}
		return;
	}
	if (pm->o.format != FRONT_OUTPUT_STREAM_JSON || (ev->kind != LLM_TEXT && ev->kind != LLM_REASONING))
		return;
	o = front_output_json_obj("stream_event", NULL);
	e = cJSON_AddObjectToObject(o, "event");
	cJSON_AddStringToObject(e, "type", "content_block_delta");
	cJSON_AddNumberToObject(e, "index", 0);
	d = cJSON_AddObjectToObject(e, "delta");
	cJSON_AddStringToObject(d, "type", ev->kind == LLM_TEXT ? "text_delta" : "thinking_delta");
	front_output_json_add_str(d, ev->kind == LLM_TEXT ? "text" : "thinking", ev->text.p, ev->text.len);
	if (pm->o.session_id)
		cJSON_AddStringToObject(o, "session_id", pm->o.session_id);
	pm_emit(pm, o);
}

/* An assistant message: remember its text as the answer; stream-json line. */
static void
pm_on_message(void *arg, const struct conv_msg *m)
{
	struct front_output *pm = arg;
	cJSON *o, *msg, *content, *blk;
	size_t i;

	buf_reset(&pm->answer);
	conv_msg_text(m, &pm->answer);
	if (pm->o.format != FRONT_OUTPUT_STREAM_JSON)
		return;
	o = front_output_json_obj("assistant", NULL);
	msg = cJSON_AddObjectToObject(o, "message");
	{ /* shaped like a Messages API message: id, type, role, model, content, stop_reason, usage */
		struct buf id = BUF_INIT;

		buf_addf(&id, "msg_%s_%u", pm->o.session_id ? pm->o.session_id : "hearth", ++pm->msg_seq);
		front_output_json_add_str(msg, "id", id.data, id.len);
		buf_release(&id);
	}
	cJSON_AddStringToObject(msg, "type", "message");
	cJSON_AddStringToObject(msg, "role", "assistant");
	front_output_json_add_str(msg, "model", pm->model, pm->model ? strlen(pm->model) : 0);
	content = cJSON_AddArrayToObject(msg, "content");
	for (i = 0; i < m->nblocks; i++) {
		const struct conv_block *b = &m->blocks[i];

		if (b->kind != CONV_TEXT && b->kind != CONV_TOOL_CALL && b->kind != CONV_REASONING)
			continue;
		blk = cJSON_CreateObject();
		if (b->kind == CONV_TEXT) {
			cJSON_AddStringToObject(blk, "type", "text");
			front_output_json_add_str(blk, "text", b->text, strlen(b->text));
		} else if (b->kind == CONV_REASONING) {
			cJSON_AddStringToObject(blk, "type", "thinking");
			front_output_json_add_str(blk, "thinking", b->text, strlen(b->text));
		} else {
			cJSON_AddStringToObject(blk, "type", "tool_use");
			front_output_json_add_str(blk, "id", b->id, b->id ? strlen(b->id) : 0);
			front_output_json_add_str(blk, "name", b->name, b->name ? strlen(b->name) : 0);
			cJSON_AddItemToObject(blk, "input", front_output_json_input(b->text, strlen(b->text)));
		}
		cJSON_AddItemToArray(content, blk);
	}
	{
		const char *stop = pm_stop_reason(m->aborted ? NULL : pm->msg_stop);
		cJSON *u;

		if (stop)
			cJSON_AddStringToObject(msg, "stop_reason", stop);
		else
			cJSON_AddNullToObject(msg, "stop_reason");
		cJSON_AddNullToObject(msg, "stop_sequence");
		u = cJSON_AddObjectToObject(msg, "usage");
		/* Anthropic counts input without the cached part; OpenAI's prompt_tokens include it */
		cJSON_AddNumberToObject(u, "input_tokens", (double)(pm->msg_usage.prompt_tokens - pm->msg_usage.cached_tokens > 0
								 ? pm->msg_usage.prompt_tokens - pm->msg_usage.cached_tokens : 0));
		cJSON_AddNumberToObject(u, "output_tokens", (double)pm->msg_usage.completion_tokens);
		cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)pm->msg_usage.cached_tokens);
		cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)pm->msg_usage.cache_write_tokens);
	}
	memset(&pm->msg_usage, 0, sizeof pm->msg_usage);
	pm->msg_stop[0] = '\0';
	pm_wrap(pm, o);
	pm_emit(pm, o);
}

/* Tool started: a line on stderr when verbose. */
static void
pm_on_tool_start(void *arg, const struct agent_call *c)
{
	struct front_output *pm = arg;

	if (!pm->o.verbose)
		return;
	buf_reset(&pm->scratch);
	buf_adds(&pm->scratch, "● ");
	front_output_json_call_summary(c, &pm->scratch);
	front_output_error(pm, pm->scratch.data);
}

/* Tool finished: record for json, tool_result line for stream-json. */
static void
pm_on_tool_done(void *arg, const struct agent_call *c)
{
	struct front_output *pm = arg;
	cJSON *rec = cJSON_CreateObject(), *o, *msg, *content, *blk;
	char line[128];

	front_output_json_add_str(rec, "id", c->id, strlen(c->id));
	front_output_json_add_str(rec, "name", c->name, strlen(c->name));
	cJSON_AddItemToObject(rec, "input", front_output_json_input(c->args.data, c->args.len));
	cJSON_AddBoolToObject(rec, "is_error", c->job.is_error);
	cJSON_AddNumberToObject(rec, "duration_ms", (double)(c->t_end_ms - c->t_start_ms));
	cJSON_AddItemToArray(pm->tool_calls, rec);
	if (c->refused) { /* Claude Code's permission_denials */
		cJSON *d = cJSON_CreateObject();

		front_output_json_add_str(d, "tool_name", c->name, strlen(c->name));
		front_output_json_add_str(d, "tool_use_id", c->id, strlen(c->id));
		cJSON_AddItemToObject(d, "tool_input", front_output_json_input(c->args.data, c->args.len));
		cJSON_AddItemToArray(pm->denials, d);
	}
	if (pm->o.verbose) {
		snprintf(line, sizeof line, "  %s %s (%.1fs)", c->job.is_error ? "✗" : "✓", c->name,
			 (double)(c->t_end_ms - c->t_start_ms) / 1000.0);
		front_output_error(pm, line);
	}
	if (pm->o.format != FRONT_OUTPUT_STREAM_JSON)
		return;
	o = front_output_json_obj("user", NULL);
	msg = cJSON_AddObjectToObject(o, "message");
	cJSON_AddStringToObject(msg, "role", "user");
	content = cJSON_AddArrayToObject(msg, "content");
	blk = cJSON_CreateObject();
	cJSON_AddStringToObject(blk, "type", "tool_result");
	front_output_json_add_str(blk, "tool_use_id", c->id, strlen(c->id));
	front_output_json_add_str(blk, "content", c->job.out.data, c->job.out.len);
	cJSON_AddBoolToObject(blk, "is_error", c->job.is_error);
	cJSON_AddItemToArray(content, blk);
	pm_wrap(pm, o);
	pm_emit(pm, o);
}

/* A countdown on stderr, verbose or not: in place on a terminal, else every 30th line. */
void
front_output_wait(struct front_output *pm, const char *line)
{
	struct buf b = BUF_INIT;

	if (!line) {
		if (pm->wait_calls && pm->o.err_is_tty && pm->progress_shown) {
			pm_write(pm, pm->o.err_fd, "\n", 1);
			pm->progress_shown = 0;
		}
		pm->wait_calls = 0;
		return;
	}
	if (pm->o.err_is_tty) {
		buf_adds(&b, "\rhearth: ");
		sanitize_term(&b, line, strlen(line));
		buf_adds(&b, "\x1b[K"); /* the line may have got shorter */
		pm_write(pm, pm->o.err_fd, b.data, b.len);
		pm->progress_shown = 1;
	} else if (pm->wait_calls % 30 == 0) {
		front_output_error(pm, line);
	}
	pm->wait_calls++;
	buf_release(&b);
}

static void
pm_on_wait(void *arg, const char *line)
{
	front_output_wait(arg, line);
}

/* Notices go to stderr when verbose. */
static void
pm_on_notice(void *arg, const char *line)
{
	front_output_note(arg, line);
}

/* The turn ended. */
static void
pm_on_end(void *arg, enum agent_end end, const char *message)
{
	struct front_output *pm = arg;

	pm->ended = 1;
	pm->end = end;
	buf_reset(&pm->end_msg);
	buf_adds(&pm->end_msg, message);
}

/* Observer wiring. */
struct agent_observer
front_output_observer(struct front_output *pm)
{
	struct agent_observer obs = { 0 };

	obs.arg = pm;
	obs.on_event = pm_on_event;
	obs.on_message = pm_on_message;
	obs.on_tool_start = pm_on_tool_start;
	obs.on_tool_done = pm_on_tool_done;
	obs.on_notice = pm_on_notice;
	obs.on_wait = pm_on_wait;
	obs.on_end = pm_on_end;
	return obs;
}

/* stream-json init line. */
void
front_output_init(struct front_output *pm, const char *model, const struct tool *const *tools, size_t n)
{
	cJSON *o, *arr;
	size_t i;

	free(pm->model);
	pm->model = model ? xstrdup(model) : NULL;
	if (pm->o.format != FRONT_OUTPUT_STREAM_JSON)
		return;
	o = front_output_json_obj("system", "init");
	front_output_json_add_str(o, "cwd", pm->o.cwd, strlen(pm->o.cwd));
	cJSON_AddStringToObject(o, "session_id", pm->o.session_id ? pm->o.session_id : "");
	arr = cJSON_AddArrayToObject(o, "tools");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(tools[i]->name));
	cJSON_AddItemToObject(o, "mcp_servers", pm->mcp_servers ? cJSON_Duplicate(pm->mcp_servers, 1)
								 : cJSON_CreateArray());
	front_output_json_add_str(o, "model", model ? model : "", model ? strlen(model) : 0);
	cJSON_AddStringToObject(o, "permissionMode", pm->permission_mode ? pm->permission_mode : "default");
	cJSON_AddStringToObject(o, "apiKeySource", "none");
	cJSON_AddStringToObject(o, "claude_code_version", "hearth " HEARTH_VERSION);
	cJSON_AddItemToObject(o, "slash_commands", cJSON_CreateArray());
	cJSON_AddStringToObject(o, "output_style", "default");
	cJSON_AddItemToObject(o, "skills", cJSON_CreateArray());
	cJSON_AddItemToObject(o, "plugins", cJSON_CreateArray());
	{
		char u[37];

		pm_uuid(u);
		cJSON_AddStringToObject(o, "uuid", u);
	}
	pm_emit(pm, o);
}

/* Exit code for how the run ended. */
static int
pm_exit_code(const struct front_output *pm)
{
	if (!pm->ended)
		return 1;
	switch (pm->end) {
	case AGENT_END_OK:
		return 0;
	case AGENT_END_ABORTED:
		return 130;
	case AGENT_END_ERROR:
		return pm->had_err && pm->last_err == LLM_ERR_CONNECT ? 3 : 1;
	default:
		return 1;
	}
}

/*
 * The fields of Claude Code's result that consumers read: stop_reason,
 * total_cost_usd (Claude's share, from the routing summary; local models
 * cost nothing), duration_api_ms (the server's prompt and generation
 * time), modelUsage, permission_denials, errors (error subtypes), uuid.
 */
static void
pm_result_claude(struct front_output *pm, cJSON *o, const struct agent_stats *st, const char *model, int code)
{
	const cJSON *c = pm->routing ? cJSON_GetObjectItemCaseSensitive(pm->routing, "cost_usd") : NULL;
	double cost = cJSON_IsNumber(c) ? c->valuedouble : 0.0;
	cJSON *mu, *m, *u = cJSON_GetObjectItemCaseSensitive(o, "usage");
	const char *stop = pm_stop_reason(pm->ended && pm->end == AGENT_END_OK ? "stop" : NULL);
	char uu[37];

	if (stop)
		cJSON_AddStringToObject(o, "stop_reason", stop);
	else
		cJSON_AddNullToObject(o, "stop_reason");
	cJSON_AddNumberToObject(o, "total_cost_usd", cost);
	cJSON_AddNumberToObject(o, "duration_api_ms", st->prompt_ms + st->predicted_ms);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)st->cache_write_tokens);
	mu = cJSON_AddObjectToObject(o, "modelUsage");
	m = cJSON_AddObjectToObject(mu, model && *model ? model : "unknown");
	cJSON_AddNumberToObject(m, "inputTokens", (double)st->prompt_tokens);
	cJSON_AddNumberToObject(m, "outputTokens", (double)st->completion_tokens);
	cJSON_AddNumberToObject(m, "cacheReadInputTokens", (double)st->cached_tokens);
	cJSON_AddNumberToObject(m, "cacheCreationInputTokens", (double)st->cache_write_tokens);
	cJSON_AddNumberToObject(m, "webSearchRequests", 0);
	cJSON_AddNumberToObject(m, "costUSD", cost);
	cJSON_AddNumberToObject(m, "contextWindow", 0);
	cJSON_AddNumberToObject(m, "maxOutputTokens", 0);
	cJSON_AddItemReferenceToObject(o, "permission_denials", pm->denials);
	if (code) {
		cJSON *errs = cJSON_AddArrayToObject(o, "errors");

		if (pm->end_msg.len) {
			struct buf b = BUF_INIT;

			sanitize_utf8(&b, pm->end_msg.data, pm->end_msg.len);
			cJSON_AddItemToArray(errs, cJSON_CreateString(b.data));
			buf_release(&b);
		}
	}
	pm_uuid(uu);
	cJSON_AddStringToObject(o, "uuid", uu);
}

/* The json / stream-json result object. */
static cJSON *
pm_result(struct front_output *pm, const struct agent_stats *st, const char *model, uint64_t duration_ms,
	  int code)
{
	static const char *const subtypes[] = { "success", "error_max_turns",
						"error_during_execution", "error_during_execution" };
	cJSON *o = front_output_json_obj("result", subtypes[pm->ended ? pm->end : AGENT_END_ERROR]), *u, *t;
	const struct llm_timings *tm = &st->last_timings;
	long seen = tm->cache_n + tm->prompt_n;

	cJSON_AddBoolToObject(o, "is_error", code != 0);
	front_output_json_add_str(o, "result", pm->answer.data, pm->answer.len);
	if (code)
		front_output_json_add_str(o, "error", pm->end_msg.data, pm->end_msg.len);
	cJSON_AddNumberToObject(o, "num_turns", st->requests);
	cJSON_AddStringToObject(o, "session_id", pm->o.session_id ? pm->o.session_id : "");
	cJSON_AddNumberToObject(o, "duration_ms", (double)duration_ms);
	cJSON_AddItemReferenceToObject(o, "tool_calls", pm->tool_calls);
	u = cJSON_AddObjectToObject(o, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", (double)st->prompt_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", (double)st->completion_tokens);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)st->cached_tokens);
	t = cJSON_AddObjectToObject(o, "timings");
	cJSON_AddNumberToObject(t, "prompt_ms", st->prompt_ms);
	cJSON_AddNumberToObject(t, "predicted_ms", st->predicted_ms);
	cJSON_AddNumberToObject(t, "prompt_per_second", tm->prompt_per_second);
	cJSON_AddNumberToObject(t, "predicted_per_second", tm->predicted_per_second);
	if (st->have_timings && seen > 0)
		cJSON_AddNumberToObject(o, "cache_reuse", (double)tm->cache_n / (double)seen);
	else
		cJSON_AddNullToObject(o, "cache_reuse");
	cJSON_AddNumberToObject(o, "tool_failures", st->tool_failures);
	front_output_json_microcompact(o, &st->mc);
	t = cJSON_AddObjectToObject(o, "discipline");
	cJSON_AddNumberToObject(t, "explore_cutoffs", st->explore_cutoffs);
	cJSON_AddNumberToObject(t, "think_turns", st->think_turns);
	cJSON_AddNumberToObject(t, "tools_loaded", st->tools_loaded);
	cJSON_AddNumberToObject(t, "schema_tokens_saved", (double)st->schema_tokens_saved);
	cJSON_AddItemReferenceToObject(o, "cache_breaks", pm->cache_breaks);
	cJSON_AddItemReferenceToObject(o, "files_changed", pm->files);
	if (pm->route)
		cJSON_AddItemReferenceToObject(o, "route", pm->route);
	if (pm->routing)
		cJSON_AddItemReferenceToObject(o, "routing", pm->routing);
	if (pm->tier) { /* the local route's time and tokens are this tier's */
		const cJSON *loc = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(pm->routing, "routes"), "local");
		cJSON *t2 = cJSON_Duplicate(pm->tier, 1);
		double in = (double)st->prompt_tokens, outk = (double)st->completion_tokens;

		if (cJSON_IsObject(loc)) {
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(loc, "input_tokens");
			const cJSON *b = cJSON_GetObjectItemCaseSensitive(loc, "output_tokens");

			in = cJSON_IsNumber(a) ? a->valuedouble : in;
			outk = cJSON_IsNumber(b) ? b->valuedouble : outk;
		}
		cJSON_AddNumberToObject(t2, "input_tokens", in);
		cJSON_AddNumberToObject(t2, "output_tokens", outk);
		cJSON_AddNumberToObject(t2, "prompt_ms", st->prompt_ms);
		cJSON_AddNumberToObject(t2, "predicted_ms", st->predicted_ms);
		cJSON_AddItemToObject(o, "tier", t2);
	}
	front_output_json_add_str(o, "model", model ? model : "", model ? strlen(model) : 0);
	pm_result_claude(pm, o, st, model, code);
	return o;
}

/* This turn's share of the session's stats: st less the totals at the last result line. */
static void
pm_turn_stats(const struct front_output *pm, const struct agent_stats *st, struct agent_stats *d)
{
	const struct agent_stats *b = &pm->base;

	*d = *st;
	d->steps -= b->steps, d->requests -= b->requests, d->tool_calls -= b->tool_calls;
	d->tool_failures -= b->tool_failures;
	d->prompt_tokens -= b->prompt_tokens, d->completion_tokens -= b->completion_tokens;
	d->cached_tokens -= b->cached_tokens, d->cache_write_tokens -= b->cache_write_tokens;
	d->prompt_ms -= b->prompt_ms, d->predicted_ms -= b->predicted_ms;
}

/* Final output and exit code. */
int
front_output_finish(struct front_output *pm, const struct agent_stats *st, const char *model,
	     uint64_t duration_ms)
{
	int code = pm_exit_code(pm);
	struct agent_stats turn;

	if (code && code != 130 && pm->end_msg.len)
		front_output_error(pm, pm->end_msg.data);
	/* a length stop still prints what was answered (the note on stderr says it is cut off) */
	if (pm->o.format == FRONT_OUTPUT_TEXT && (code == 0 || (code == 1 && pm->length_stop))) {
		struct buf b = BUF_INIT;

		sanitize_term(&b, pm->answer.data, pm->answer.len);
		buf_end_line(&b);
		pm_write(pm, pm->o.out_fd, b.data, b.len);
		buf_release(&b);
	} else if (pm->o.format != FRONT_OUTPUT_TEXT) {
		/* usage, num_turns, modelUsage and duration_api_ms are the turn's, as Claude Code's
		 * result (several turns in one process with --input-format stream-json) */
		pm_turn_stats(pm, st, &turn);
		pm_emit(pm, pm_result(pm, &turn, model, duration_ms, code));
		pm->base = *st;
	}
	return code;
}

/* Whether on_end ran. */
int
front_output_ended(const struct front_output *pm)
{
	return pm->ended;
}

/* Whether stdout was closed under us. */
int
front_output_stdout_closed(const struct front_output *pm)
{
	return pm->stdout_closed;
}

/* Record a failure that happened before any turn (no server, ...). */
void
front_output_fail(struct front_output *pm, enum llm_err_kind kind, const char *message)
{
	pm->had_err = 1;
	pm->last_err = kind;
	pm_on_end(pm, AGENT_END_ERROR, message);
}

/* Record one changed file for the result. */
void
front_output_file_changed(struct front_output *pm, const char *path, int status, int added, int removed)
{
	cJSON *f = cJSON_CreateObject();
	char st[2] = { (char)status, '\0' };

	front_output_json_add_str(f, "path", path, strlen(path));
	cJSON_AddStringToObject(f, "status", st);
	cJSON_AddNumberToObject(f, "added", added);
	cJSON_AddNumberToObject(f, "removed", removed);
	cJSON_AddItemToArray(pm->files, f);
}

/* Remember the turn's route for the result. */
void
front_output_route(struct front_output *pm, const char *target, const char *reason)
{
	cJSON_Delete(pm->route);
	pm->route = cJSON_CreateObject();
	cJSON_AddStringToObject(pm->route, "target", target);
	front_output_json_add_str(pm->route, "reason", reason ? reason : "", reason ? strlen(reason) : 0);
}

/* The tier (servers setting) this run's local route talks to, and why. */
void
front_output_tier(struct front_output *pm, const char *name, const char *role, const char *url,
		  const char *why)
{
	cJSON_Delete(pm->tier);
	pm->tier = cJSON_CreateObject();
	cJSON_AddStringToObject(pm->tier, "name", name);
	cJSON_AddStringToObject(pm->tier, "role", role);
	cJSON_AddStringToObject(pm->tier, "url", url);
	cJSON_AddStringToObject(pm->tier, "why", why);
}

/* Keep the routing summary for the result (owned from now on). */
void
front_output_routing(struct front_output *pm, struct cJSON *routing)
{
	cJSON_Delete(pm->routing);
	pm->routing = routing;
}

/* What init says besides the tools: the MCP servers (owned from now on) and the approval mode. */
void
front_output_init_extra(struct front_output *pm, struct cJSON *mcp_servers, const char *permission_mode)
{
	cJSON_Delete(pm->mcp_servers);
	pm->mcp_servers = mcp_servers;
	pm->permission_mode = permission_mode;
}

/* Forget the finished turn (stream-json input: the next message starts another). */
void
front_output_next_turn(struct front_output *pm)
{
	pm->ended = 0;
	pm->had_err = 0;
	pm->length_stop = 0;
	buf_reset(&pm->answer);
	buf_reset(&pm->end_msg);
	cJSON_Delete(pm->tool_calls);
	cJSON_Delete(pm->cache_breaks);
	cJSON_Delete(pm->files);
	cJSON_Delete(pm->denials);
	pm->tool_calls = cJSON_CreateArray();
	pm->cache_breaks = cJSON_CreateArray();
	pm->files = cJSON_CreateArray();
	pm->denials = cJSON_CreateArray();
}

/* One line on stdout as it is (stream-json input's control responses). */
void
front_output_line(struct front_output *pm, struct cJSON *o)
{
	pm_emit(pm, o);
}

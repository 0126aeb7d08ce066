/*
 * llama/doctor: `hearth doctor` — checks on a server's own answers (see
 * llama/doctor.h).
 *
 * Data: llama_doctor_check parses each answer once into struct doc (what
 * the checks read), then runs the checks in the order the report shows
 * them; llama_doctor_run collects the answers with http_fetch (all at
 * once, each into its own buf) and runs the loop until they are in.
 */
#include "llama/doctor.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "base/json.h"
#include "base/str.h"
#include "base/xmalloc.h"
#include "io/http.h"
#include "io/loop.h"
#include "llama/disco.h"
#include "llama/wire.h"

/* What the checks read, parsed from the answers. */
struct doc {
	cJSON *props, *slots, *models;
	const cJSON *caps;      /* props.chat_template_caps */
	const char *tpl;        /* props.chat_template */
	const char *path;       /* props.model_path */
	const char *build;
	const char *id;         /* /v1/models data[0].id */
	long n_ctx, n_ctx_train, ctx_meta;
	int total_slots, nslots, naliases;
	int problems;
};

/* Substrings that name hybrid (recurrent + attention) architectures in model files and ids. */
static const char *const hybrid_names[] = { "qwen3-next", "qwen3.5", "qwen3_5", "qwen35", "granite-4",
					    "granite4", "jamba", "nemotron-h", "lfm2", "mamba", "rwkv",
					    "falcon-h1", "plamo2", "hunyuan-a13b" };

/* Case-insensitive substring. */
static int
has_ci(const char *h, const char *n)
{
	size_t ln = strlen(n), i;

	for (; h && *h; h++) {
		for (i = 0; i < ln && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)n[i]); i++)
			;
		if (i == ln)
			return 1;
	}
	return 0;
}

/* A problem line: what, why, the flag. */
static void
bad(struct doc *d, struct buf *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
bad(struct doc *d, struct buf *out, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	buf_addf(out, "  ✗ %s\n", line);
	d->problems++;
}

/* Parse an answer when it is a 200 with JSON. */
static cJSON *
parse(const struct llama_doctor_ans *a)
{
	return a->status == 200 && a->body ? json_parse(a->body, a->len, NULL) : NULL;
}

/* The file name without directories and .gguf (the alias hearth suggests). */
static void
base_name(const char *path, char *dst, size_t n)
{
	const char *b = strrchr(path, '/');
	size_t len;

	b = b ? b + 1 : path;
	len = strlen(b);
	if (len > 5 && !strcmp(b + len - 5, ".gguf"))
		len -= 5;
	snprintf(dst, n, "%.*s", (int)len, b);
}

/* Fill d from the answers. */
static void
doc_parse(struct doc *d, const struct llama_doctor_in *in)
{
	const cJSON *dgs, *data, *first, *it;
	struct llama_info info = { 0 };
	long v;

	memset(d, 0, sizeof *d);
	d->props = parse(&in->props);
	if (d->props && !cJSON_IsObject(d->props)) {
		cJSON_Delete(d->props);
		d->props = NULL;
	}
	d->slots = parse(&in->slots);
	d->models = parse(&in->models);
	dgs = cJSON_GetObjectItemCaseSensitive(d->props, "default_generation_settings");
	if (json_long(dgs, "n_ctx", &v) == 0)
		d->n_ctx = v;
	if (json_long(d->props, "total_slots", &v) == 0)
		d->total_slots = (int)v;
	d->caps = cJSON_GetObjectItemCaseSensitive(d->props, "chat_template_caps");
	if (!cJSON_IsObject(d->caps))
		d->caps = NULL;
	d->tpl = json_str(d->props, "chat_template");
	d->path = json_str(d->props, "model_path");
	d->build = json_str(d->props, "build_info");
	if (cJSON_IsArray(d->slots))
		d->nslots = cJSON_GetArraySize(d->slots);
	if (in->models.status == 200 && in->models.body &&
	    llama_wire_models(in->models.body, in->models.len, &info, NULL) == 0) {
		d->n_ctx_train = info.n_ctx_train;
		d->ctx_meta = info.ctx_meta;
	}
	llama_wire_info_release(&info);
	data = cJSON_GetObjectItemCaseSensitive(d->models, "data");
	first = cJSON_IsArray(data) ? cJSON_GetArrayItem(data, 0) : NULL;
	d->id = json_str(first, "id");
	it = cJSON_GetObjectItemCaseSensitive(first, "aliases");
	d->naliases = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : 0;
}

/* The model's name as the checks and the command line use it. */
static const char *
doc_model(const struct doc *d)
{
	return d->path ? d->path : d->id ? d->id : "MODEL.gguf";
}

/* Whether the model is a hybrid (recurrent layers: no cache reuse past a divergence). */
static int
doc_hybrid(const struct doc *d)
{
	size_t i;

	for (i = 0; i < sizeof hybrid_names / sizeof hybrid_names[0]; i++)
		if (has_ci(d->path, hybrid_names[i]) || has_ci(d->id, hybrid_names[i]))
			return 1;
	return 0;
}

/* A KV cache type /props states (newer servers), or NULL. */
static const char *
doc_kv_type(const struct doc *d)
{
	static const char *const keys[] = { "cache_type_k", "type_k", "kv_cache_type_k" };
	const cJSON *dgs = cJSON_GetObjectItemCaseSensitive(d->props, "default_generation_settings");
	const char *s;
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if ((s = json_str(d->props, keys[i])) != NULL || (s = json_str(dgs, keys[i])) != NULL)
			return s;
	return NULL;
}

/* The checks on llama-server's answers. */
static void
doc_llama(struct doc *d, const struct llama_doctor_in *in, struct buf *out)
{
	const cJSON *tc = d->caps ? cJSON_GetObjectItemCaseSensitive(d->caps, "supports_tool_calls") : NULL;
	cJSON *tr = parse(&in->render);
	const char *rp = json_str(tr, "prompt"), *open = rp ? strstr(rp, "<think>") : NULL;
	/* the engine's default, as the template renders a request that does not say: "<think>\n" left open */
	int thinks = open != NULL, off = open && strstr(open, "</think>");
	const char *kv = doc_kv_type(d);
	char alias[128];

	/* slots: -np auto gives 4 sharing one KV pool; one user then moves between them */
	if (in->slots.status == 501)
		bad(d, out, "/slots is off (--no-slots): hearth cannot pick an idle slot or show the server's load → drop --no-slots");
	if (d->total_slots > 1)
		bad(d, out, "slots: %d%s: one user's session moves between them and each move re-processes the whole prompt → -np 1 (a team: -np N with -kvu, one per concurrent user)",
		    d->total_slots, d->total_slots == 4 ? " (what -np auto picks)" : "");
	else if (d->total_slots == 1)
		buf_adds(out, "  ✓ slots: 1 (-np 1)\n");
	/* context per slot against what a session sends */
	if (d->n_ctx > 0 && (d->n_ctx < LLAMA_DOCTOR_CTX_MIN || (in->turn_max > 0 && in->turn_max > d->n_ctx * 8 / 10)))
		bad(d, out, "context per slot: %ld tokens; %s → -c %d%s",
		    d->n_ctx, in->turn_max > 0 ? "" : "hearth's first request alone is ~2.5k tokens and a coding session's turns grow past 30k",
		    LLAMA_DOCTOR_CTX_GOOD, d->total_slots > 1 ? " per slot (-c is split between the -np slots)" : "");
	if (d->n_ctx > 0 && in->turn_max > d->n_ctx * 8 / 10)
		buf_addf(out, "      (the largest request of a session here was %ld tokens)\n", in->turn_max);
	else if (d->n_ctx >= LLAMA_DOCTOR_CTX_MIN)
		buf_addf(out, "  ✓ context per slot: %ld tokens\n", d->n_ctx);
	/* thinking on at the engine */
	if (thinks && !off)
		bad(d, out, "thinking is on at the engine (--reasoning auto): a request that does not send enable_thinking:false thinks first, slowly → --reasoning off (or --chat-template-kwargs '{\"enable_thinking\":false}'); hearth turns it on per turn when asked");
	else if (thinks)
		buf_adds(out, "  ✓ thinking off at the engine (--reasoning off)\n");
	cJSON_Delete(tr);
	/* --jinja: the server parses tool calls */
	if (!d->caps || (in->render.status >= 400 && in->render.body &&
			 str_find(str_make(in->render.body, in->render.len), "jinja", 5) >= 0))
		bad(d, out, "no Jinja chat template (--no-jinja): requests with tools fail, or tool calls land in the text → --jinja");
	else if (cJSON_IsFalse(tc))
		bad(d, out, "the chat template cannot call tools → --jinja --chat-template-file FILE (the model's own template with tool support)");
	else
		buf_adds(out, "  ✓ --jinja: the server parses tool calls\n");
	/* KV cache type */
	if (kv && (!strncmp(kv, "q4", 2) || !strncmp(kv, "iq4", 3) || !strncmp(kv, "q5", 2)))
		bad(d, out, "KV cache type %s: long agent prompts lose precision (wrong tool arguments) → -ctk q8_0 -ctv q8_0", kv);
	else if (kv)
		buf_addf(out, "  ✓ KV cache type %s\n", kv);
	else
		buf_adds(out, "  · KV cache type: /props does not say (the server log does); hearth's advice: -ctk q8_0 -ctv q8_0 (half of f16, no visible loss)\n");
	/* slot save/restore */
	if (in->save.status == 501)
		bad(d, out, "no --slot-save-path: a resumed session re-processes its whole prompt instead of restoring its slot → --slot-save-path DIR (an existing directory)");
	else if (in->save.status == 400 || in->save.status == 404 || in->save.status == 200)
		buf_adds(out, "  ✓ --slot-save-path: slots are saved and restored\n");
	buf_adds(out, "  · --cache-ram: not visible from outside; keep it on (default 8192 MiB): a slot handed to another prompt keeps its cache in RAM\n");
	if (d->total_slots > 1)
		buf_adds(out, "  · --slot-prompt-similarity (default 0.10): with several slots a request goes to the slot whose cache matches; hearth pins its own slot (id_slot)\n");
	/* hybrid models */
	if (doc_hybrid(d))
		buf_adds(out, "  · hybrid model (recurrent layers): a change to an earlier message re-processes from the last checkpoint → --ctx-checkpoints 64 and --cache-ram on; hearth's cache priming (cache_prime) keeps the next turn's prefix ready\n");
	/* the model id: the file name unless --alias */
	if (d->id && (strchr(d->id, '/') || has_ci(d->id, ".gguf"))) {
		base_name(d->id, alias, sizeof alias);
		bad(d, out, "the model id is the file name (%s): it changes when the file is renamed or re-quantized, and sessions, settings and route rules that name it break → --alias %s",
		    d->id, alias);
	} else if (d->id) {
		buf_addf(out, "  ✓ model id %s (an --alias)\n", d->id);
	}
	if (d->naliases > 1)
		buf_addf(out, "  · %d aliases: /v1/models shows the alphabetically first (%s), whatever order --alias gave\n",
			 d->naliases, d->id ? d->id : "?");
	if (in->metrics.status == 501)
		buf_adds(out, "  · /metrics is off → --metrics (throughput and queue figures for monitoring)\n");
}

/* "host:port" of the URL for --host/--port (defaults when it has none). */
static void
url_host_port(const char *url, char *host, size_t hn, int *port)
{
	const char *p = strstr(url, "://"), *end, *colon;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "/?#");
	colon = memchr(p, ':', (size_t)(end - p));
	snprintf(host, hn, "%.*s", (int)((colon ? colon : end) - p), p);
	*port = colon ? atoi(colon + 1) : 8080;
	if (!*host)
		snprintf(host, hn, "127.0.0.1");
}

/* The command line hearth recommends for the model it sees. */
static void
doc_command(const struct doc *d, const struct llama_doctor_in *in, struct buf *out)
{
	char host[128], alias[128];
	long ctx = d->n_ctx > LLAMA_DOCTOR_CTX_GOOD ? d->n_ctx : LLAMA_DOCTOR_CTX_GOOD;
	int port;

	if (in->turn_max > 0 && in->turn_max * 2 > ctx)
		ctx = (in->turn_max * 2 + 8191) / 8192 * 8192;
	if (d->n_ctx_train > 0 && ctx > d->n_ctx_train)
		ctx = d->n_ctx_train;
	url_host_port(in->url, host, sizeof host, &port);
	if (d->id && !strchr(d->id, '/') && !has_ci(d->id, ".gguf"))
		snprintf(alias, sizeof alias, "%s", d->id);
	else
		base_name(doc_model(d), alias, sizeof alias);
	buf_addf(out, "recommended:\n  llama-server -m %s --host %s --port %d --jinja --reasoning off -np 1 -c %ld -ngl 99 -fa on -ctk q8_0 -ctv q8_0 --slot-save-path ~/.local/state/hearth/slots --cache-ram 8192 --alias %s --metrics%s\n",
		 doc_model(d), host, port, ctx, alias, doc_hybrid(d) ? " --ctx-checkpoints 64" : "");
}

/* Check one server's answers. */
int
llama_doctor_check(const struct llama_doctor_in *in, struct buf *out)
{
	struct doc d;
	int problems;

	doc_parse(&d, in);
	buf_addf(out, "server %s", in->url);
	if (d.props) {
		buf_addf(out, " · llama-server %s · model %s · %d slot%s · %ld tokens per slot\n",
			 d.build ? d.build : "?", d.id ? d.id : doc_model(&d), d.total_slots,
			 d.total_slots == 1 ? "" : "s", d.n_ctx);
		doc_llama(&d, in, out);
		doc_command(&d, in, out);
	} else {
		buf_addf(out, " · no /props (HTTP %d): not llama-server; checking what /v1/models states\n",
			 in->props.status);
		if (in->models.status != 200 || !d.id)
			bad(&d, out, "GET /v1/models answered HTTP %d without a model: pass the server's base URL, e.g. --server http://HOST:PORT/v1 (and OPENAI_API_KEY if it wants a key)",
			    in->models.status);
		else if (d.ctx_meta > 0)
			buf_addf(out, "  ✓ model %s, context %ld tokens (from /v1/models)\n", d.id, d.ctx_meta);
		else
			bad(&d, out, "model %s: /v1/models states no context, so hearth cannot tell when to compact → \"server_context\": N in settings (the server's context per request)",
			    d.id);
		buf_adds(out, "  · no /slots, no prompt_progress, no timings: hearth shows a spinner and counts usage; llama-server (or vLLM/SGLang with prefix caching) serves an agent's growing prompt from cache\n");
	}
	problems = d.problems;
	cJSON_Delete(d.props);
	cJSON_Delete(d.slots);
	cJSON_Delete(d.models);
	return problems;
}

/* ---- fetching -------------------------------------------------------- */

struct doc_run {
	struct loop *loop;
	struct buf body[6];
	int status[6];
	int done[6];
	struct http_req *reqs[6];
	int pending;
};

struct doc_part {
	struct doc_run *run;
	int i;
};

/* One answer in. */
static void
doc_on_answer(int status, enum http_fail fail, const struct err *e, const struct buf *body, void *arg)
{
	struct doc_part *p = arg;

	(void)fail;
	(void)e;
	p->run->status[p->i] = status;
	p->run->done[p->i] = 1;
	if (body && body->len)
		buf_add(&p->run->body[p->i], body->data, body->len);
	if (--p->run->pending == 0)
		loop_stop(p->run->loop);
}

/* The wait ran out. */
static void
doc_on_timeout(struct loop *l, long id, void *arg)
{
	(void)id;
	(void)arg;
	loop_stop(l);
}

/* Ask every endpoint once; 0, or -1 when the loop failed. */
static int
doc_fetch(struct loop *l, struct http *h, const struct cfg *cfg, struct doc_run *run, long timeout_ms,
	  struct err *e)
{
	static const char *const paths[6] = { "/props", "/slots", "/metrics", "/v1/models",
					      "/slots/0?action=save", "/apply-template" };
	static const char save_body[] = "{\"filename\":\"../hearth-doctor-probe\"}";
	static const char render_body[] = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
		"\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"ls\",\"description\":\"list\","
		"\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]}";
	static const char *const json_hdr[] = { "Content-Type: application/json", NULL };
	struct doc_part parts[6];
	long t;
	int i, rc;

	run->loop = l;
	run->pending = 0;
	for (i = 0; i < 6; i++) {
		struct buf url = BUF_INIT;
		struct http_opts o = { 0 };

		buf_reset(&run->body[i]);
		run->status[i] = run->done[i] = 0;
		parts[i].run = run;
		parts[i].i = i;
		llama_disco_url(cfg, paths[i], &url);
		o.url = url.data;
		o.timeout_ms = timeout_ms;
		o.connect_timeout_ms = 5000;
		if (i >= 4) { /* an invalid name: refused before anything is written; a render: nothing runs */
			o.method = "POST";
			o.body = i == 4 ? save_body : render_body;
			o.body_len = strlen(o.body);
			o.headers = json_hdr;
		}
		if ((run->reqs[i] = http_fetch(h, &o, doc_on_answer, &parts[i], NULL)) != NULL)
			run->pending++;
		else
			run->done[i] = 1;
		buf_release(&url);
	}
	if (!run->pending)
		return 0;
	t = loop_timer_add(l, (uint64_t)timeout_ms, doc_on_timeout, run);
	rc = loop_run(l, e);
	loop_timer_del(l, t);
	for (i = 0; i < 6; i++) /* still out after the wait: give up on them (no callback) */
		if (!run->done[i])
			http_cancel(run->reqs[i]);
	return rc;
}

/* Fetch cfg's server's answers and check them. */
int
llama_doctor_run(struct loop *l, struct http *h, const struct cfg *cfg, long turn_max, long timeout_ms,
		 struct buf *out, struct err *e)
{
	struct doc_run run;
	struct llama_doctor_in in;
	int i, rc = -1, want_key = 0;

	memset(&run, 0, sizeof run);
	for (i = 0; i < 6; i++)
		buf_init(&run.body[i], 0);
	if (doc_fetch(l, h, cfg, &run, timeout_ms, e) < 0)
		goto out;
	for (i = 0; i < 4; i++)
		want_key |= run.status[i] == 401 || run.status[i] == 403;
	if (want_key && cfg->server_api_key && *cfg->server_api_key) {
		struct buf base = BUF_INIT;

		buf_add(&base, cfg->server_url, llama_disco_base_len(cfg->server_url));
		http_set_bearer(h, base.data, cfg->server_api_key);
		buf_release(&base);
		if (doc_fetch(l, h, cfg, &run, timeout_ms, e) < 0)
			goto out;
	}
	if (!run.status[0] && !run.status[3]) {
		err_set(e, "no server at %s answered GET /props or /v1/models: start one, or pass --server", cfg->server_url);
		goto out;
	}
	if (run.status[0] == 401 || run.status[3] == 401) {
		err_set(e, "server at %s wants an API key: set OPENAI_API_KEY to it (llama-server --api-key)",
			cfg->server_url);
		goto out;
	}
	memset(&in, 0, sizeof in);
	in.url = cfg->server_url;
	in.turn_max = turn_max;
#define ANS(f, i) do { in.f.status = run.status[i]; in.f.body = run.body[i].data; in.f.len = run.body[i].len; } while (0)
	ANS(props, 0);
	ANS(slots, 1);
	ANS(metrics, 2);
	ANS(models, 3);
	ANS(save, 4);
	ANS(render, 5);
#undef ANS
	rc = llama_doctor_check(&in, out);
out:
	for (i = 0; i < 6; i++)
		buf_release(&run.body[i]);
	return rc;
}

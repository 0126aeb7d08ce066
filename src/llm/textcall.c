/*
 * llm/textcall: tool calls recovered from answer text (contract in
 * llm/textcall.h).
 *
 * One left-to-right scan over the text.  `finder`s cache the next
 * occurrence of each tag, so finding candidates costs O(n) in total as
 * long as queries move forward; every candidate that fails to parse moves
 * the scan past everything it examined, so no byte is parsed twice by
 * the same kind of candidate (fenced content is scanned once more, by a
 * nested scan without fences).  Visible text is copied segment by segment
 * between removed blocks; `sep` records that a block was just removed so
 * the blank lines around it collapse.
 */
#include "llm/textcall.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/str.h"
#include "base/xmalloc.h"

#define NAME_MAX_LEN 256

struct finder {
	const char *pat;
	size_t len;
	size_t from, next; /* no occurrence in [from, next); next == n: none */
	int valid;
};

enum { F_CALL, F_CALL_END, F_FUNC, F_FUNC_END, F_PARAM, F_PARAM_END, F_FENCE, F_COUNT };

struct scan {
	const char *s;
	size_t n;
	struct finder f[F_COUNT];
	struct textcall_result *out;
	struct buf *vis;
	textcall_type_fn type_fn;
	void *ctx;
	int sep;
};

static const char *const patterns[F_COUNT] = {
	"<tool_call>", "</tool_call>", "<function=", "</function>",
	"<parameter=", "</parameter>", "```",
};

/* Whether c is ASCII whitespace. */
static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Position of the first non-space byte at or after p. */
static size_t
skip_ws(const struct scan *sc, size_t p)
{
	while (p < sc->n && is_space(sc->s[p]))
		p++;
	return p;
}

/* Whether the text at p starts with the literal lit. */
static int
at(const struct scan *sc, size_t p, const char *lit)
{
	size_t k = strlen(lit);

	return p <= sc->n && sc->n - p >= k && memcmp(sc->s + p, lit, k) == 0;
}

/* Next occurrence of pattern k at or after from (sc->n when none). */
static size_t
find(struct scan *sc, int k, size_t from)
{
	struct finder *f = &sc->f[k];
	long r;

	if (f->valid && from >= f->from && from <= f->next)
		return f->next;
	if (from > sc->n)
		from = sc->n;
	r = str_find(str_make(sc->s + from, sc->n - from), f->pat, f->len);
	f->from = from;
	f->next = r < 0 ? sc->n : from + (size_t)r;
	f->valid = 1;
	return f->next;
}

/* Set up a scan of s[0..n) writing calls to out and visible text to vis. */
static void
scan_init(struct scan *sc, const char *s, size_t n, struct textcall_result *out,
	  struct buf *vis)
{
	int k;

	memset(sc, 0, sizeof *sc);
	sc->s = s;
	sc->n = n;
	sc->out = out;
	sc->vis = vis;
	for (k = 0; k < F_COUNT; k++) {
		sc->f[k].pat = patterns[k];
		sc->f[k].len = strlen(patterns[k]);
	}
}

/* Append one call (taking ownership of both strings). */
static void
add_call(struct textcall_result *r, char *name, char *args)
{
	r->calls = xrealloc(r->calls, (r->ncalls + 1) * sizeof *r->calls);
	r->calls[r->ncalls].name = name;
	r->calls[r->ncalls].args_json = args;
	r->ncalls++;
}

/* A plausible tool name: 1..NAME_MAX_LEN bytes, no spaces, quotes or tags. */
static int
name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > NAME_MAX_LEN)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == '<' || s[i] == '>' || s[i] == '"' ||
		    s[i] == 0x7f)
			return 0;
	return 1;
}

/* Whether every key of o is one a tool-call object may have. */
static int
strict_keys(const cJSON *o)
{
	static const char *const ok[] = { "name", "arguments", "parameters", "id", "type",
					  "function" };
	const cJSON *it;
	size_t i;

	cJSON_ArrayForEach(it, o) {
		for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
			if (strcmp(it->string, ok[i]) == 0)
				break;
		if (i == sizeof ok / sizeof ok[0])
			return 0;
	}
	return 1;
}

/*
 * Turn a parsed object into a call when it has the shape; strict limits
 * the keys (for fences and bare objects, where prose JSON is likely).
 */
static int
call_from_json(struct textcall_result *r, const cJSON *v, int strict)
{
	const cJSON *fn = json_obj(v, "function"), *args;
	const char *name;
	cJSON *parsed = NULL;
	int ok = 0;

	if (!cJSON_IsObject(v) || (strict && !strict_keys(v)))
		return 0;
	if (!json_str(v, "name") && fn && (!strict || strict_keys(fn)))
		v = fn;
	name = json_str(v, "name");
	if (!name || !name_ok(name, strlen(name)))
		return 0;
	args = cJSON_GetObjectItemCaseSensitive(v, "arguments");
	if (!args)
		args = cJSON_GetObjectItemCaseSensitive(v, "parameters");
	if (cJSON_IsNull(args))
		args = NULL;
	if (cJSON_IsString(args)) {
		args = parsed = json_parse(args->valuestring, strlen(args->valuestring), NULL);
		if (!parsed)
			return 0;
	}
	if (!args) {
		add_call(r, xstrdup(name), xstrdup("{}"));
		ok = 1;
	} else if (cJSON_IsObject(args)) {
		add_call(r, xstrdup(name), json_print(args));
		ok = 1;
	}
	cJSON_Delete(parsed);
	return ok;
}

/*
 * One or more call objects starting at p (after whitespace), none reaching
 * past bound.  Returns the end of the last call, or 0 with *fail set to
 * where parsing stopped.
 */
static size_t
json_calls(struct scan *sc, size_t p, size_t bound, int strict, size_t *fail)
{
	const char *end;
	size_t last = 0;
	cJSON *v;

	for (;;) {
		p = skip_ws(sc, p);
		if (p >= bound || sc->s[p] != '{')
			break;
		end = NULL;
		v = cJSON_ParseWithLengthOpts(sc->s + p, bound - p, &end, 0);
		if (!v || !call_from_json(sc->out, v, strict)) {
			*fail = end && end > sc->s + p ? (size_t)(end - sc->s) : p + 1;
			cJSON_Delete(v);
			break;
		}
		cJSON_Delete(v);
		p = last = (size_t)(end - sc->s);
	}
	return last;
}

/* Consume an optional closing tag (after whitespace) at p. */
static size_t
eat_close(const struct scan *sc, size_t p, const char *tag)
{
	size_t q = skip_ws(sc, p);

	return at(sc, q, tag) ? q + strlen(tag) : p;
}

/* Value of an XML parameter as JSON, following the typing rule in the header. */
static cJSON *
param_value(struct scan *sc, const char *tool, const char *key, const char *v, size_t n)
{
	int t = sc->type_fn ? sc->type_fn(sc->ctx, tool, key) : -1;
	cJSON *j = NULL, *s;
	char *copy;

	if (t != 1 && n > 0)
		j = json_parse(v, n, NULL);
	if (j && (t == 0 || !(cJSON_IsString(j) || cJSON_IsNull(j))))
		return j;
	cJSON_Delete(j);
	copy = xstrndup(v, n);
	s = cJSON_CreateString(copy);
	free(copy);
	return s;
}

/*
 * Read "NAME>" at p (the part after "<function=" or "<parameter="):
 * returns the position after '>' or 0, with the name in *name.
 */
static size_t
tag_name(const struct scan *sc, size_t p, struct str *name)
{
	size_t i;

	for (i = p; i < sc->n && i - p <= NAME_MAX_LEN; i++) {
		if (sc->s[i] == '>') {
			*name = str_trim(str_make(sc->s + p, i - p));
			return name_ok(name->p, name->len) ? i + 1 : 0;
		}
		if (sc->s[i] == '\n' || sc->s[i] == '<')
			return 0;
	}
	return 0;
}

/* One <parameter=K>V</parameter> at p into args; returns the end or 0. */
static size_t
xml_param(struct scan *sc, size_t p, const char *tool, cJSON *args)
{
	struct str key;
	size_t vend, next;
	char *k;

	p = tag_name(sc, p + strlen("<parameter="), &key);
	if (!p)
		return 0;
	/* The closer, unless the next parameter opens first (closer forgotten). */
	vend = find(sc, F_PARAM_END, p);
	next = vend + strlen("</parameter>");
	if (find(sc, F_PARAM, p) < vend)
		next = vend = find(sc, F_PARAM, p);
	else if (vend == sc->n && find(sc, F_FUNC_END, p) < vend)
		next = vend = find(sc, F_FUNC_END, p); /* truncated */
	else if (vend == sc->n)
		next = vend;
	if (vend > p && sc->s[p] == '\n')
		p++;
	if (vend > p && sc->s[vend - 1] == '\n')
		vend--;
	k = str_dup(key);
	cJSON_DeleteItemFromObjectCaseSensitive(args, k);
	cJSON_AddItemToObject(args, k, param_value(sc, tool, k, sc->s + p, vend - p));
	free(k);
	return next;
}

/*
 * A Qwen3-Coder call at p ("<function=").  Returns the end (closing tags
 * consumed) or 0 with *fail set past what was examined.
 */
static size_t
xml_call(struct scan *sc, size_t p, size_t *fail)
{
	cJSON *args = NULL;
	struct str nm;
	char *name = NULL;
	size_t q;

	*fail = p + 1;
	p = tag_name(sc, p + strlen("<function="), &nm);
	if (!p)
		return 0;
	name = str_dup(nm);
	args = cJSON_CreateObject();
	for (;;) {
		p = skip_ws(sc, p);
		*fail = p;
		if (at(sc, p, "<parameter=")) {
			if (!(q = xml_param(sc, p, name, args)))
				goto fail;
			p = q;
		} else if (at(sc, p, "</function>")) {
			p += strlen("</function>");
			break;
		} else if (p == sc->n) {
			break;
		} else {
			goto fail;
		}
	}
	add_call(sc->out, name, json_print(args));
	cJSON_Delete(args);
	return eat_close(sc, p, "</tool_call>");
fail:
	free(name);
	cJSON_Delete(args);
	return 0;
}

/* A <tool_call> block at p: JSON or XML inside.  Same result as xml_call. */
static size_t
tool_call(struct scan *sc, size_t p, size_t *fail)
{
	size_t q = skip_ws(sc, p + strlen("<tool_call>")), end;

	*fail = p + strlen("<tool_call>");
	if (at(sc, q, "<function="))
		return xml_call(sc, q, fail);
	end = json_calls(sc, q, find(sc, F_CALL, q), 0, fail);
	return end ? eat_close(sc, end, "</tool_call>") : 0;
}

static void scan_run(struct scan *sc, int fences);

/*
 * A fence opening a line at p: returns its end when its content was only
 * tool calls (recorded), else 0 with *fail after the fence (its content
 * stays text).  The closing fence must open a line too.
 */
static size_t
fence(struct scan *sc, size_t p, size_t *fail)
{
	size_t info = p + 3, body, close, end, before = sc->out->ncalls;
	struct str lang;
	struct scan inner;
	struct buf rest = BUF_INIT;
	cJSON *v;

	for (body = info; body < sc->n && sc->s[body] != '\n'; body++)
		;
	lang = str_trim(str_make(sc->s + info, body - info));
	close = find(sc, F_FENCE, body);
	while (close < sc->n && !str_at_line_start(sc->s, close))
		close = find(sc, F_FENCE, close + 3);
	end = close == sc->n ? sc->n : close + 3;
	*fail = end;
	if (lang.len && !str_eq(lang, "json") && !str_eq(lang, "JSON") && !str_eq(lang, "xml") &&
	    !str_eq(lang, "tool_call"))
		return 0;
	v = json_parse(sc->s + body, close - body, NULL);
	if (v) {
		int ok = call_from_json(sc->out, v, 1);

		cJSON_Delete(v);
		return ok ? end : 0;
	}
	scan_init(&inner, sc->s + body, close - body, sc->out, &rest);
	inner.type_fn = sc->type_fn;
	inner.ctx = sc->ctx;
	scan_run(&inner, 0);
	if (sc->out->ncalls > before && rest.len == 0) {
		buf_release(&rest);
		return end;
	}
	while (sc->out->ncalls > before) {
		sc->out->ncalls--;
		free(sc->out->calls[sc->out->ncalls].name);
		free(sc->out->calls[sc->out->ncalls].args_json);
	}
	buf_release(&rest);
	return 0;
}

/* Copy s[a..b) to the visible text, collapsing blank lines after a cut. */
static void
vis_add(struct scan *sc, size_t a, size_t b)
{
	size_t i;

	if (sc->sep) {
		size_t nl = 0;

		for (i = a; i < b && is_space(sc->s[i]); i++)
			if (sc->s[i] == '\n')
				nl = i + 1;
		if (i == b)
			return; /* only whitespace: keep waiting */
		a = nl ? nl : i; /* keep the indentation of a new line */
		if (sc->vis->len)
			buf_add(sc->vis, "\n\n", 2);
		sc->sep = 0;
	}
	buf_add(sc->vis, sc->s + a, b - a);
}

/* A block was removed: drop the whitespace before it. */
static void
vis_cut(struct scan *sc)
{
	buf_rtrim(sc->vis);
	sc->sep = 1;
}

/* Earliest candidate at or after pos; *kind gets its finder index. */
static size_t
next_candidate(struct scan *sc, size_t pos, int fences, int *kind)
{
	static const int kinds[] = { F_CALL, F_FUNC, F_FENCE };
	size_t best = sc->n, c;
	size_t i;

	*kind = -1;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (kinds[i] == F_FENCE && !fences)
			continue;
		c = find(sc, kinds[i], pos);
		if (c < best) {
			best = c;
			*kind = kinds[i];
		}
	}
	return best;
}

/* The whole scan: leading bare object, then tags and fences in order. */
static void
scan_run(struct scan *sc, int fences)
{
	size_t pos = 0, seg = 0, c, end, fail = 0;
	int kind;

	c = skip_ws(sc, 0);
	if (c < sc->n && sc->s[c] == '{') {
		end = json_calls(sc, c, find(sc, F_CALL, c), 1, &fail);
		if (end) {
			pos = seg = eat_close(sc, end, "</tool_call>");
			vis_cut(sc);
		}
	}
	while ((c = next_candidate(sc, pos, fences, &kind)) < sc->n) {
		if (kind == F_FENCE && !str_at_line_start(sc->s, c)) {
			pos = c + 3; /* an inline ``` is not a fence */
			continue;
		}
		if (kind == F_CALL)
			end = tool_call(sc, c, &fail);
		else if (kind == F_FUNC)
			end = xml_call(sc, c, &fail);
		else
			end = fence(sc, c, &fail);
		if (!end) {
			pos = fail > c ? fail : c + 1;
			continue;
		}
		vis_add(sc, seg, c);
		vis_cut(sc);
		pos = seg = end;
	}
	vis_add(sc, seg, sc->n);
	buf_rtrim(sc->vis);
}

/* Move leaked thinking to r->reasoning; returns where the answer starts. */
static size_t
split_think(const char *s, size_t n, struct textcall_result *r)
{
	struct str all = str_make(s, n), t = str_trim(all);
	long close;
	size_t start = (size_t)(t.p - s), from;

	if (t.len && str_startswith(t, "<think>")) {
		from = start + strlen("<think>");
		close = str_find(str_make(s + from, n - from), "</think>", 8);
		t = str_make(s + from, close < 0 ? n - from : (size_t)close);
		buf_add(&r->reasoning, str_trim(t).p, str_trim(t).len);
		return close < 0 ? n : from + (size_t)close + 8;
	}
	close = str_find(all, "</think>", 8);
	if (close < 0 || str_find(str_make(s, (size_t)close), "<think>", 7) >= 0)
		return 0;
	t = str_trim(str_make(s, (size_t)close));
	buf_add(&r->reasoning, t.p, t.len);
	return (size_t)close + 8;
}

/* Drop leading blank lines (not the indentation of the first text line). */
static void
drop_leading_blank(struct buf *b)
{
	size_t i, cut = 0;

	for (i = 0; i < b->len && is_space(b->data[i]); i++)
		if (b->data[i] == '\n')
			cut = i + 1;
	if (i == b->len)
		cut = b->len;
	buf_remove(b, 0, cut);
}

/* Entry point: see llm/textcall.h. */
void
textcall_run(const char *text, size_t n, textcall_type_fn type_fn, void *ctx,
	      struct textcall_result *out)
{
	struct scan sc;
	size_t start;

	memset(out, 0, sizeof *out);
	buf_init(&out->text, 0);
	buf_init(&out->reasoning, 0);
	if (!text)
		n = 0;
	if (n == 0)
		return;
	json_init();
	start = split_think(text, n, out);
	scan_init(&sc, text + start, n - start, out, &out->text);
	sc.type_fn = type_fn;
	sc.ctx = ctx;
	scan_run(&sc, 1);
	drop_leading_blank(&out->text);
}

/* Free calls and buffers. */
void
textcall_release(struct textcall_result *r)
{
	size_t i;

	for (i = 0; i < r->ncalls; i++) {
		free(r->calls[i].name);
		free(r->calls[i].args_json);
	}
	free(r->calls);
	r->calls = NULL;
	r->ncalls = 0;
	buf_release(&r->text);
	buf_release(&r->reasoning);
}

/*
 * ui/term/theme: loading and resolving themes (see ui/term/theme.h, docs/themes.md).
 *
 * Loading goes in two passes.  Parsing fills a table of `struct spec`,
 * one per role, holding colours as written (THEME_DEFAULT, an index
 * 0–255, or THEME_RGB|rgb) and whether the file gave the role at all.
 * Resolving then walks each role's fallback chain to the first given
 * spec and maps its colours down to the depth (resolve_color).  The
 * built-in theme is the text of themes/default.json compiled in below and
 * goes through the very same parser, so both can never disagree on
 * meaning; test_theme checks the texts give the same styles.
 */
#include "ui/term/theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/log.h"

#define THEME_FILE_MAX (1 << 20)

struct spec {
	int given;
	int32_t fg, bg;
	unsigned attrs;
};

static const char *const role_names[THEME_ROLE_COUNT] = {
	"text", "dim", "accent", "border", "selection", "error", "warning",
	"user", "assistant", "reasoning", "tool_header", "tool_ok", "tool_err",
	"diff_add", "diff_del", "diff_add_word", "diff_del_word", "diff_hunk", "line_no",
	"status_bg", "status_fg", "ctx_ok", "ctx_warn", "ctx_crit",
	"progress_cached", "progress_new", "progress_empty",
	"slot_idle", "slot_prefill", "slot_decode",
	"keyword", "string", "comment", "number", "function", "type", "variable",
	"constant", "operator", "punctuation"
};

static const char *const color_names[16] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright_black", "bright_red", "bright_green", "bright_yellow", "bright_blue",
	"bright_magenta", "bright_cyan", "bright_white"
};

/* xterm's default palette for indices 0–15. */
static const uint32_t base16[16] = {
	0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
	0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff
};

/* themes/default.json, compacted (test_theme keeps the two in step). */
static const char builtin_json[] =
"{\"name\":\"default\",\"roles\":{"
	"\"text\":{\"fg\":\"default\",\"bg\":\"default\"},"
	"\"dim\":{\"fg\":244},"
	"\"accent\":{\"fg\":75,\"attrs\":[\"bold\"]},"
	"\"border\":{\"fg\":238},"
	"\"selection\":{\"bg\":237},"
	"\"error\":{\"fg\":167,\"attrs\":[\"bold\"]},"
	"\"warning\":{\"fg\":179},"
	"\"user\":{\"fg\":117,\"attrs\":[\"bold\"]},"
	"\"assistant\":{\"fg\":\"default\"},"
	"\"reasoning\":{\"fg\":243,\"attrs\":[\"italic\"]},"
	"\"tool_header\":{\"fg\":180,\"attrs\":[\"bold\"]},"
	"\"tool_ok\":{\"fg\":108},"
	"\"tool_err\":{\"fg\":167},"
	"\"diff_add\":{\"fg\":114,\"bg\":22},"
	"\"diff_del\":{\"fg\":174,\"bg\":52},"
	"\"diff_add_word\":{\"fg\":157,\"bg\":28,\"attrs\":[\"bold\"]},"
	"\"diff_del_word\":{\"fg\":217,\"bg\":88,\"attrs\":[\"bold\"]},"
	"\"diff_hunk\":{\"fg\":67},"
	"\"line_no\":{\"fg\":240},"
	"\"status_bg\":{\"fg\":250,\"bg\":236},"
	"\"status_fg\":{\"fg\":253,\"bg\":236,\"attrs\":[\"bold\"]},"
	"\"ctx_ok\":{\"fg\":108,\"bg\":236},"
	"\"ctx_warn\":{\"fg\":179,\"bg\":236},"
	"\"ctx_crit\":{\"fg\":167,\"bg\":236,\"attrs\":[\"bold\"]},"
	"\"progress_cached\":{\"fg\":67},"
	"\"progress_new\":{\"fg\":179},"
	"\"progress_empty\":{\"fg\":238},"
	"\"slot_idle\":{\"fg\":242},"
	"\"slot_prefill\":{\"fg\":179,\"attrs\":[\"bold\"]},"
	"\"slot_decode\":{\"fg\":114,\"attrs\":[\"bold\"]},"
	"\"keyword\":{\"fg\":176},"
	"\"string\":{\"fg\":150},"
	"\"comment\":{\"fg\":243,\"attrs\":[\"italic\"]},"
	"\"number\":{\"fg\":209},"
	"\"function\":{\"fg\":110},"
	"\"type\":{\"fg\":180},"
	"\"variable\":{\"fg\":\"default\"},"
	"\"constant\":{\"fg\":209},"
	"\"operator\":{\"fg\":247},"
	"\"punctuation\":{\"fg\":245}"
	"},\"captures\":{\"boolean\":\"constant\",\"character\":\"string\",\"escape\":\"constant\",\"property\":\"variable\",\"field\":\"variable\",\"parameter\":\"variable\",\"label\":\"constant\",\"attribute\":\"type\",\"constructor\":\"type\",\"module\":\"type\",\"namespace\":\"type\",\"tag\":\"keyword\",\"embedded\":\"text\",\"text\":\"text\",\"markup\":\"text\"}}";

/* Role whose style a missing role borrows (THEME_TEXT's is itself). */
static int
role_parent(int r)
{
	switch (r) {
	case THEME_DIFF_ADD_WORD: return THEME_DIFF_ADD;
	case THEME_DIFF_DEL_WORD: return THEME_DIFF_DEL;
	case THEME_CTX_OK: case THEME_CTX_WARN: case THEME_CTX_CRIT: return THEME_STATUS_FG;
	case THEME_STATUS_FG: return THEME_STATUS_BG;
	case THEME_SLOT_IDLE: case THEME_SLOT_PREFILL: case THEME_SLOT_DECODE:
	case THEME_PROGRESS_CACHED: case THEME_PROGRESS_NEW: case THEME_PROGRESS_EMPTY:
		return THEME_DIM;
	default: return THEME_TEXT;
	}
}

/* Name lookup over the role table. */
int
theme_role_by_name(const char *name)
{
	int r;

	for (r = 0; name && r < THEME_ROLE_COUNT; r++)
		if (strcmp(role_names[r], name) == 0)
			return r;
	return -1;
}

/* Role id → name. */
const char *
theme_role_name(int role)
{
	return role >= 0 && role < THEME_ROLE_COUNT ? role_names[role] : "text";
}

/* RGB of a 256-colour index. */
static uint32_t
index_rgb(int idx)
{
	static const int lv[6] = { 0, 95, 135, 175, 215, 255 };
	int g;

	if (idx < 16)
		return base16[idx];
	if (idx >= 232) {
		g = 8 + 10 * (idx - 232);
		return (uint32_t)(g << 16 | g << 8 | g);
	}
	idx -= 16;
	return (uint32_t)(lv[idx / 36] << 16 | lv[idx / 6 % 6] << 8 | lv[idx % 6]);
}

/* Squared distance between two colours. */
static long
dist(uint32_t a, uint32_t b)
{
	long dr = (long)(a >> 16 & 0xff) - (long)(b >> 16 & 0xff);
	long dg = (long)(a >> 8 & 0xff) - (long)(b >> 8 & 0xff);
	long db = (long)(a & 0xff) - (long)(b & 0xff);

	return dr * dr + dg * dg + db * db;
}

/* Nearest index among [lo, hi) of the 256-colour palette. */
static int
nearest(uint32_t rgb, int lo, int hi)
{
	int i, best = lo;
	long d, bd = -1;

	for (i = lo; i < hi; i++) {
		d = dist(rgb, index_rgb(i));
		if (bd < 0 || d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

/* The spread of a colour's channels (0: a grey). */
static int
chroma(uint32_t c)
{
	int r = (int)(c >> 16 & 0xff), g = (int)(c >> 8 & 0xff), b = (int)(c & 0xff);
	int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);

	return hi - lo;
}

/*
 * #rrggbb → 16..255 (the fixed cube and grey ramp, never the 16 themable
 * ones).  A coloured shade stays coloured: when the nearest entry is a grey
 * but the colour is not (a spread of 16 or more), the nearest of the cube
 * is taken, so dark tints such as the diff backgrounds #1e3a1e / #3a1e1e do
 * not both become the same grey.
 */
int
theme_rgb_to_256(uint32_t rgb)
{
	int i = nearest(rgb & 0xffffff, 16, 256);

	if (chroma(rgb) >= 16 && chroma(index_rgb(i)) == 0)
		i = nearest(rgb & 0xffffff, 16, 232);
	return i;
}

/* 0..255 → #rrggbb (the xterm palette). */
uint32_t
theme_256_to_rgb(int idx)
{
	return idx < 0 || idx > 255 ? 0 : index_rgb(idx);
}

/*
 * 256 → 8 basic colours.  Greys (and near-greys) go to black or white by
 * brightness: by plain distance a mid grey is nearer yellow than white.
 */
int
theme_256_to_8(int idx)
{
	uint32_t c;
	int r, g, b, hi, lo;

	if (idx < 0 || idx > 255)
		return THEME_DEFAULT;
	if (idx < 8)
		return idx;
	c = index_rgb(idx);
	r = (int)(c >> 16 & 0xff);
	g = (int)(c >> 8 & 0xff);
	b = (int)(c & 0xff);
	hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
	lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
	if (hi - lo < 48)
		return hi < 64 ? 0 : 7;
	/* by hue: the channels stretched to 0..255, so a dark green is green, not black */
	r = (r - lo) * 255 / (hi - lo);
	g = (g - lo) * 255 / (hi - lo);
	b = (b - lo) * 255 / (hi - lo);
	return nearest((uint32_t)(r << 16 | g << 8 | b), 1, 7);
}

/* Map a colour as written to what the depth can show. */
static int32_t
resolve_color(int32_t c, enum theme_depth depth)
{
	if (c == THEME_DEFAULT || depth == THEME_DEPTH_NONE)
		return THEME_DEFAULT;
	if (c & THEME_RGB) {
		if (depth == THEME_DEPTH_TRUE)
			return c;
		c = theme_rgb_to_256((uint32_t)c);
	}
	return depth == THEME_DEPTH_8 ? theme_256_to_8(c) : c;
}

/* Fill t->roles from the parsed specs. */
static void
resolve(struct theme *t, const struct spec *sp, enum theme_depth depth)
{
	int r, s;

	t->depth = depth;
	for (r = 0; r < THEME_ROLE_COUNT; r++) {
		for (s = r; !sp[s].given && s != THEME_TEXT; s = role_parent(s))
			;
		t->roles[r].fg = sp[s].given ? resolve_color(sp[s].fg, depth) : THEME_DEFAULT;
		t->roles[r].bg = sp[s].given ? resolve_color(sp[s].bg, depth) : THEME_DEFAULT;
		t->roles[r].attrs = sp[s].given ? sp[s].attrs : 0;
		if (depth == THEME_DEPTH_8 && t->roles[r].bg != THEME_DEFAULT &&
		    t->roles[r].fg == t->roles[r].bg) /* a tint and its text met: the text on the terminal's own */
			t->roles[r].bg = THEME_DEFAULT;
		if (depth == THEME_DEPTH_NONE &&
		    (r == THEME_SELECTION || (r >= THEME_STATUS_BG && r <= THEME_CTX_CRIT)))
			t->roles[r].attrs |= THEME_REVERSE;
	}
}

/* A colour string: "default", a name, or "#rrggbb"; -1 if none of those. */
static int
color_string(const char *v, int32_t *out)
{
	unsigned rgb;
	int i, n = 0;

	if (strcmp(v, "default") == 0) {
		*out = THEME_DEFAULT;
		return 0;
	}
	for (i = 0; i < 16; i++) {
		if (strcmp(v, color_names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	if (v[0] == '#' && strspn(v + 1, "0123456789abcdefABCDEF") == 6 && v[7] == '\0' &&
	    sscanf(v, "#%6x%n", &rgb, &n) == 1 && n == 7) {
		*out = (int32_t)(THEME_RGB | rgb);
		return 0;
	}
	return -1;
}

/* Parse a colour value (absent: the default); -1 + e on a wrong type. */
static int
parse_color(const cJSON *v, const char *where, int32_t *out, struct err *e)
{
	*out = THEME_DEFAULT;
	if (!v)
		return 0;
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 255 &&
	    v->valuedouble == (double)(int)v->valuedouble) {
		*out = (int32_t)v->valuedouble;
		return 0;
	}
	if (cJSON_IsString(v) && color_string(v->valuestring, out) == 0)
		return 0;
	return err_set(e, "%s: expected a colour (0-255, a colour name, \"default\" or "
	    "\"#rrggbb\")", where);
}

/* Parse an attrs array; unknown names are logged and ignored. */
static int
parse_attrs(const cJSON *v, const char *where, unsigned *out, struct err *e)
{
	static const char *const names[] = { "bold", "dim", "italic", "underline", "reverse" };
	const cJSON *a;
	size_t i;

	*out = 0;
	if (!v)
		return 0;
	if (!cJSON_IsArray(v))
		return err_set(e, "%s: expected an array of attribute names", where);
	cJSON_ArrayForEach(a, v) {
		if (!cJSON_IsString(a))
			return err_set(e, "%s: expected an array of attribute names", where);
		for (i = 0; i < 5 && strcmp(a->valuestring, names[i]) != 0; i++)
			;
		if (i < 5)
			*out |= 1u << i;
		else
			log_msg("theme: %s: unknown attribute \"%s\" ignored", where, a->valuestring);
	}
	return 0;
}

/* Parse one role's style object. */
static int
parse_role(const cJSON *v, struct spec *sp, struct err *e)
{
	char where[80];

	snprintf(where, sizeof where, "roles.%s", v->string);
	if (!cJSON_IsObject(v))
		return err_set(e, "%s: expected an object with fg, bg, attrs", where);
	snprintf(where, sizeof where, "roles.%s.fg", v->string);
	if (parse_color(cJSON_GetObjectItemCaseSensitive(v, "fg"),
	    where, &sp->fg, e) < 0)
		return -1;
	snprintf(where, sizeof where, "roles.%s.bg", v->string);
	if (parse_color(cJSON_GetObjectItemCaseSensitive(v, "bg"), where, &sp->bg, e) < 0)
		return -1;
	snprintf(where, sizeof where, "roles.%s.attrs", v->string);
	if (parse_attrs(cJSON_GetObjectItemCaseSensitive(v, "attrs"), where, &sp->attrs, e) < 0)
		return -1;
	sp->given = 1;
	return 0;
}

/* The "captures" map: capture name → role name. */
static int
parse_captures(struct theme *t, const cJSON *caps, struct err *e)
{
	const cJSON *c;
	int r;

	t->ncaptures = 0;
	if (!caps)
		return 0;
	if (!cJSON_IsObject(caps))
		return err_set(e, "captures: expected an object of capture → role names");
	cJSON_ArrayForEach(c, caps) {
		if (!cJSON_IsString(c))
			return err_set(e, "captures.%s: expected a role name", c->string);
		r = theme_role_by_name(c->valuestring);
		if (r < 0 || strlen(c->string) >= sizeof t->captures[0].name ||
		    t->ncaptures == THEME_CAPTURES_MAX) {
			log_msg("theme: captures.%s ignored", c->string);
			continue;
		}
		memcpy(t->captures[t->ncaptures].name, c->string, strlen(c->string) + 1);
		t->captures[t->ncaptures++].role = (uint16_t)r;
	}
	return 0;
}

/* Walk the document: name, roles, captures. */
static int
parse_doc(struct theme *t, const cJSON *doc, struct spec *sp, struct err *e)
{
	const cJSON *roles, *v;
	const char *name;
	int r;

	if (!cJSON_IsObject(doc))
		return err_set(e, "expected a JSON object with \"roles\"");
	roles = cJSON_GetObjectItemCaseSensitive(doc, "roles");
	if (roles && !cJSON_IsObject(roles))
		return err_set(e, "roles: expected an object");
	cJSON_ArrayForEach(v, roles) {
		r = theme_role_by_name(v->string);
		if (r < 0) {
			log_msg("theme: unknown role \"%s\" ignored", v->string);
			continue;
		}
		if (parse_role(v, &sp[r], e) < 0)
			return -1;
	}
	name = json_str(doc, "name");
	snprintf(t->name, sizeof t->name, "%s", name ? name : "unnamed");
	return parse_captures(t, cJSON_GetObjectItemCaseSensitive(doc, "captures"), e);
}

/* Prefix e's message with the file (and position of a syntax error). */
static int
fail(struct theme *t, const char *path, enum theme_depth depth, struct err *e)
{
	char msg[ERR_MSG_MAX];
	size_t line, col;
	int off = 0;

	snprintf(msg, sizeof msg, "%s", e ? e->msg : "");
	if (sscanf(msg, "invalid JSON at line %zu, column %zu: %n", &line, &col, &off) == 2 &&
	    off > 0)
		err_set(e, "%s:%zu:%zu: invalid JSON: %s; using the built-in theme", path, line,
		    col, msg + off);
	else
		err_set(e, "%s: %s; using the built-in theme", path, msg);
	theme_default(t, depth);
	return -1;
}

/* Parse JSON text into t, or the built-in theme with e set. */
int
theme_parse(struct theme *t, const char *path, const char *json, size_t n,
    enum theme_depth depth, struct err *e)
{
	struct spec sp[THEME_ROLE_COUNT];
	struct err pe = ERR_INIT;
	cJSON *doc;
	int rc;

	memset(sp, 0, sizeof sp);
	memset(t, 0, sizeof *t);
	doc = json_parse(json, n, &pe);
	rc = doc ? parse_doc(t, doc, sp, &pe) : -1;
	cJSON_Delete(doc);
	if (rc < 0) {
		if (e)
			*e = pe;
		else
			e = &pe;
		return fail(t, path, depth, e);
	}
	resolve(t, sp, depth);
	return 0;
}

/* The compiled-in theme. */
void
theme_default(struct theme *t, enum theme_depth depth)
{
	if (theme_parse(t, "built-in", builtin_json, sizeof builtin_json - 1, depth, NULL) < 0)
		fatal("built-in theme does not parse"); /* a bug, caught by test_theme */
}

/* Read and parse a theme file. */
int
theme_load(struct theme *t, const char *path, enum theme_depth depth, struct err *e)
{
	struct buf b = BUF_INIT;
	struct err re = ERR_INIT;
	int rc;

	if (buf_read_file(&b, path, THEME_FILE_MAX, &re) < 0) {
		buf_release(&b);
		err_set(e, "%s; using the built-in theme", re.msg);
		theme_default(t, depth);
		return -1;
	}
	rc = theme_parse(t, path, b.data, b.len, depth, e);
	buf_release(&b);
	return rc;
}

/* Depth from explicit environment values. */
enum theme_depth
theme_depth_detect(const char *term, const char *colorterm, const char *no_color)
{
	if (no_color && *no_color)
		return THEME_DEPTH_NONE;
	if (!term || !*term || strcmp(term, "dumb") == 0)
		return THEME_DEPTH_NONE;
	if (colorterm && (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0))
		return THEME_DEPTH_TRUE;
	if (strstr(term, "direct"))
		return THEME_DEPTH_TRUE;
	if (strstr(term, "256color"))
		return THEME_DEPTH_256;
	return THEME_DEPTH_8;
}

/* Depth from the process environment. */
enum theme_depth
theme_depth_env(void)
{
	return theme_depth_detect(getenv("TERM"), getenv("COLORTERM"), getenv("NO_COLOR"));
}

/* Capture name → role by first component, then the captures map. */
int
theme_capture_role(const struct theme *t, const char *capture)
{
	char first[24];
	size_t n = strcspn(capture, ".");
	int r, i;

	if (n >= sizeof first)
		return THEME_TEXT;
	memcpy(first, capture, n);
	first[n] = '\0';
	r = theme_role_by_name(first);
	if (r >= THEME_KEYWORD)
		return r;
	for (i = 0; i < t->ncaptures; i++)
		if (strcmp(t->captures[i].name, first) == 0)
			return t->captures[i].role;
	return THEME_TEXT;
}

/* Resolve a plain or mixed style id (see THEME_MIX). */
void
theme_style_of(const struct theme *t, unsigned style, struct theme_style *out)
{
	int fg = THEME_MIX_FG(style), bg = THEME_MIX_BG(style);
	const struct theme_style *f, *b;

	if (style < THEME_ROLE_COUNT) {
		*out = t->roles[style];
		return;
	}
	if (fg >= THEME_ROLE_COUNT || bg < 0 || bg >= THEME_ROLE_COUNT) {
		*out = t->roles[THEME_TEXT];
		return;
	}
	f = &t->roles[fg];
	b = &t->roles[bg];
	out->fg = f->fg != THEME_DEFAULT && f->fg != b->bg ? f->fg : b->fg;
	out->bg = b->bg;
	out->attrs = f->attrs | b->attrs;
}

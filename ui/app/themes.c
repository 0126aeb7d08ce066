/*
 * ui/app/themes: theme lookup by name (see ui/app/themes.h).
 *
 * `shipped` is the table of compiled-in themes: name → JSON text; the
 * built-in "default" comes from ui/term/theme.c (theme_default).  The user
 * directory is read with opendir for the list and probed with access(2)
 * for a load; file errors are theme_load's one-line messages.
 */
#include "ui/app/themes.h"

#include "ui/view/highlight.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* themes/dark.json, compacted. */
static const char theme_dark[] =
	"{\"name\":\"dark\",\"description\":\"for dark terminals: 24-bit colours (mapped to 256 where ne"
	"eded) on the terminal background\",\"version\":1,\"roles\":{\"text\":{\"fg\":\"#d4d4d4\",\"bg\":\"defa"
	"ult\"},\"dim\":{\"fg\":\"#808080\"},\"accent\":{\"fg\":\"#5fafff\",\"attrs\":[\"bold\"]},\"border\":{\"fg\":\""
	"#444444\"},\"selection\":{\"bg\":\"#3a3a3a\"},\"error\":{\"fg\":\"#f07070\",\"attrs\":[\"bold\"]},\"warnin"
	"g\":{\"fg\":\"#e5c07b\"},\"user\":{\"fg\":\"#87d7ff\",\"attrs\":[\"bold\"]},\"assistant\":{\"fg\":\"#d4d4d4\""
	"},\"reasoning\":{\"fg\":\"#767676\",\"attrs\":[\"italic\"]},\"tool_header\":{\"fg\":\"#d7af87\",\"attrs\":"
	"[\"bold\"]},\"tool_ok\":{\"fg\":\"#87af87\"},\"tool_err\":{\"fg\":\"#f07070\"},\"diff_add\":{\"fg\":\"#a8e0"
	"a8\",\"bg\":\"#1e3a1e\"},\"diff_del\":{\"fg\":\"#f0a8a8\",\"bg\":\"#3a1e1e\"},\"diff_add_word\":{\"fg\":\"#d"
	"0ffd0\",\"bg\":\"#2e6a2e\",\"attrs\":[\"bold\"]},\"diff_del_word\":{\"fg\":\"#ffd0d0\",\"bg\":\"#7a2e2e\",\""
	"attrs\":[\"bold\"]},\"diff_hunk\":{\"fg\":\"#5f87af\"},\"line_no\":{\"fg\":\"#585858\"},\"status_bg\":{\"f"
	"g\":\"#bcbcbc\",\"bg\":\"#303030\"},\"status_fg\":{\"fg\":\"#eeeeee\",\"bg\":\"#303030\",\"attrs\":[\"bold\"]"
	"},\"ctx_ok\":{\"fg\":\"#87af87\",\"bg\":\"#303030\"},\"ctx_warn\":{\"fg\":\"#e5c07b\",\"bg\":\"#303030\"},\"c"
	"tx_crit\":{\"fg\":\"#f07070\",\"bg\":\"#303030\",\"attrs\":[\"bold\"]},\"progress_cached\":{\"fg\":\"#5f87"
	"af\"},\"progress_new\":{\"fg\":\"#e5c07b\"},\"progress_empty\":{\"fg\":\"#444444\"},\"slot_idle\":{\"fg\""
	":\"#6c6c6c\"},\"slot_prefill\":{\"fg\":\"#e5c07b\",\"attrs\":[\"bold\"]},\"slot_decode\":{\"fg\":\"#87d78"
	"7\",\"attrs\":[\"bold\"]},\"keyword\":{\"fg\":\"#c678dd\"},\"string\":{\"fg\":\"#98c379\"},\"comment\":{\"fg"
	"\":\"#7f848e\",\"attrs\":[\"italic\"]},\"number\":{\"fg\":\"#d19a66\"},\"function\":{\"fg\":\"#61afef\"},\"t"
	"ype\":{\"fg\":\"#e5c07b\"},\"variable\":{\"fg\":\"#d4d4d4\"},\"constant\":{\"fg\":\"#d19a66\"},\"operator\""
	":{\"fg\":\"#abb2bf\"},\"punctuation\":{\"fg\":\"#9da5b4\"}},\"captures\":{\"boolean\":\"constant\",\"char"
	"acter\":\"string\",\"escape\":\"constant\",\"property\":\"variable\",\"field\":\"variable\",\"parameter\""
	":\"variable\",\"label\":\"constant\",\"attribute\":\"type\",\"constructor\":\"type\",\"module\":\"type\",\""
	"namespace\":\"type\",\"tag\":\"keyword\",\"embedded\":\"text\",\"text\":\"text\",\"markup\":\"text\"}}";

/* themes/light.json, compacted. */
static const char theme_light[] =
	"{\"name\":\"light\",\"description\":\"for light terminals: 24-bit colours (mapped to 256 where "
	"needed) on the terminal background\",\"version\":1,\"roles\":{\"text\":{\"fg\":\"#1f1f1f\",\"bg\":\"de"
	"fault\"},\"dim\":{\"fg\":\"#767676\"},\"accent\":{\"fg\":\"#005fd7\",\"attrs\":[\"bold\"]},\"border\":{\"fg\""
	":\"#bcbcbc\"},\"selection\":{\"bg\":\"#dadada\"},\"error\":{\"fg\":\"#c00000\",\"attrs\":[\"bold\"]},\"warn"
	"ing\":{\"fg\":\"#875f00\"},\"user\":{\"fg\":\"#005f87\",\"attrs\":[\"bold\"]},\"assistant\":{\"fg\":\"#1f1f1"
	"f\"},\"reasoning\":{\"fg\":\"#808080\",\"attrs\":[\"italic\"]},\"tool_header\":{\"fg\":\"#875f00\",\"attrs"
	"\":[\"bold\"]},\"tool_ok\":{\"fg\":\"#005f00\"},\"tool_err\":{\"fg\":\"#c00000\"},\"diff_add\":{\"fg\":\"#00"
	"4d00\",\"bg\":\"#dcf5dc\"},\"diff_del\":{\"fg\":\"#6b0000\",\"bg\":\"#fadcdc\"},\"diff_add_word\":{\"fg\":\""
	"#003300\",\"bg\":\"#a8e6a8\",\"attrs\":[\"bold\"]},\"diff_del_word\":{\"fg\":\"#4d0000\",\"bg\":\"#f5a8a8\""
	",\"attrs\":[\"bold\"]},\"diff_hunk\":{\"fg\":\"#005f87\"},\"line_no\":{\"fg\":\"#a8a8a8\"},\"status_bg\":{"
	"\"fg\":\"#3a3a3a\",\"bg\":\"#e4e4e4\"},\"status_fg\":{\"fg\":\"#000000\",\"bg\":\"#e4e4e4\",\"attrs\":[\"bold"
	"\"]},\"ctx_ok\":{\"fg\":\"#005f00\",\"bg\":\"#e4e4e4\"},\"ctx_warn\":{\"fg\":\"#875f00\",\"bg\":\"#e4e4e4\"},"
	"\"ctx_crit\":{\"fg\":\"#c00000\",\"bg\":\"#e4e4e4\",\"attrs\":[\"bold\"]},\"progress_cached\":{\"fg\":\"#00"
	"5f87\"},\"progress_new\":{\"fg\":\"#af8700\"},\"progress_empty\":{\"fg\":\"#d0d0d0\"},\"slot_idle\":{\"f"
	"g\":\"#8a8a8a\"},\"slot_prefill\":{\"fg\":\"#875f00\",\"attrs\":[\"bold\"]},\"slot_decode\":{\"fg\":\"#005"
	"f00\",\"attrs\":[\"bold\"]},\"keyword\":{\"fg\":\"#8700af\"},\"string\":{\"fg\":\"#005f00\"},\"comment\":{\""
	"fg\":\"#808080\",\"attrs\":[\"italic\"]},\"number\":{\"fg\":\"#af5f00\"},\"function\":{\"fg\":\"#005fd7\"},"
	"\"type\":{\"fg\":\"#875f00\"},\"variable\":{\"fg\":\"#1f1f1f\"},\"constant\":{\"fg\":\"#af5f00\"},\"operato"
	"r\":{\"fg\":\"#4e4e4e\"},\"punctuation\":{\"fg\":\"#585858\"}},\"captures\":{\"boolean\":\"constant\",\"ch"
	"aracter\":\"string\",\"escape\":\"constant\",\"property\":\"variable\",\"field\":\"variable\",\"paramete"
	"r\":\"variable\",\"label\":\"constant\",\"attribute\":\"type\",\"constructor\":\"type\",\"module\":\"type\""
	",\"namespace\":\"type\",\"tag\":\"keyword\",\"embedded\":\"text\",\"text\":\"text\",\"markup\":\"text\"}}";

/* themes/high-contrast.json, compacted. */
static const char theme_high_contrast[] =
	"{\"name\":\"high-contrast\",\"description\":\"for dark terminals: the 16 basic colours, bold an"
	"d underline for emphasis\",\"version\":1,\"roles\":{\"text\":{\"fg\":\"bright_white\",\"bg\":\"default"
	"\"},\"dim\":{\"fg\":\"white\"},\"accent\":{\"fg\":\"bright_cyan\",\"attrs\":[\"bold\"]},\"border\":{\"fg\":\"w"
	"hite\"},\"selection\":{\"fg\":\"black\",\"bg\":\"bright_white\"},\"error\":{\"fg\":\"bright_red\",\"attrs\""
	":[\"bold\",\"underline\"]},\"warning\":{\"fg\":\"bright_yellow\",\"attrs\":[\"bold\"]},\"user\":{\"fg\":\"b"
	"right_cyan\",\"attrs\":[\"bold\"]},\"assistant\":{\"fg\":\"bright_white\"},\"reasoning\":{\"fg\":\"white"
	"\",\"attrs\":[\"italic\"]},\"tool_header\":{\"fg\":\"bright_yellow\",\"attrs\":[\"bold\"]},\"tool_ok\":{\""
	"fg\":\"bright_green\",\"attrs\":[\"bold\"]},\"tool_err\":{\"fg\":\"bright_red\",\"attrs\":[\"bold\"]},\"di"
	"ff_add\":{\"fg\":\"black\",\"bg\":\"bright_green\"},\"diff_del\":{\"fg\":\"black\",\"bg\":\"bright_red\"},\""
	"diff_add_word\":{\"fg\":\"bright_white\",\"bg\":\"green\",\"attrs\":[\"bold\",\"underline\"]},\"diff_del"
	"_word\":{\"fg\":\"bright_white\",\"bg\":\"red\",\"attrs\":[\"bold\",\"underline\"]},\"diff_hunk\":{\"fg\":\""
	"bright_cyan\",\"attrs\":[\"bold\"]},\"line_no\":{\"fg\":\"white\"},\"status_bg\":{\"fg\":\"black\",\"bg\":\""
	"bright_white\"},\"status_fg\":{\"fg\":\"black\",\"bg\":\"bright_white\",\"attrs\":[\"bold\"]},\"ctx_ok\":"
	"{\"fg\":\"black\",\"bg\":\"bright_green\"},\"ctx_warn\":{\"fg\":\"black\",\"bg\":\"bright_yellow\",\"attrs\""
	":[\"bold\"]},\"ctx_crit\":{\"fg\":\"bright_white\",\"bg\":\"red\",\"attrs\":[\"bold\"]},\"progress_cached"
	"\":{\"fg\":\"bright_blue\"},\"progress_new\":{\"fg\":\"bright_yellow\"},\"progress_empty\":{\"fg\":\"whi"
	"te\"},\"slot_idle\":{\"fg\":\"white\"},\"slot_prefill\":{\"fg\":\"bright_yellow\",\"attrs\":[\"bold\"]},\""
	"slot_decode\":{\"fg\":\"bright_green\",\"attrs\":[\"bold\"]},\"keyword\":{\"fg\":\"bright_magenta\",\"at"
	"trs\":[\"bold\"]},\"string\":{\"fg\":\"bright_green\"},\"comment\":{\"fg\":\"white\",\"attrs\":[\"italic\"]"
	"},\"number\":{\"fg\":\"bright_yellow\"},\"function\":{\"fg\":\"bright_cyan\"},\"type\":{\"fg\":\"bright_y"
	"ellow\"},\"variable\":{\"fg\":\"bright_white\"},\"constant\":{\"fg\":\"bright_yellow\"},\"operator\":{\""
	"fg\":\"bright_white\",\"attrs\":[\"bold\"]},\"punctuation\":{\"fg\":\"bright_white\"}},\"captures\":{\"b"
	"oolean\":\"constant\",\"character\":\"string\",\"escape\":\"constant\",\"property\":\"variable\",\"field"
	"\":\"variable\",\"parameter\":\"variable\",\"label\":\"constant\",\"attribute\":\"type\",\"constructor\":"
	"\"type\",\"module\":\"type\",\"namespace\":\"type\",\"tag\":\"keyword\",\"embedded\":\"text\",\"text\":\"text"
	"\",\"markup\":\"text\"}}";

static const struct {
	const char *name;
	const char *json;
} shipped[] = {
	{ "dark", theme_dark }, { "light", theme_light }, { "high-contrast", theme_high_contrast },
};

#define NSHIPPED (sizeof shipped / sizeof shipped[0])

/* The compiled-in text of a shipped theme. */
const char *
app_themes_shipped(const char *name)
{
	size_t i;

	for (i = 0; name && i < NSHIPPED; i++)
		if (!strcmp(shipped[i].name, name))
			return shipped[i].json;
	return NULL;
}

/* The user's theme directory into out ("" when there is no home). */
static void
user_dir(char *out, size_t cap)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && *x == '/')
		snprintf(out, cap, "%s/hearth/themes", x);
	else if (h && *h)
		snprintf(out, cap, "%s/.config/hearth/themes", h);
	else
		out[0] = '\0';
}

/* Whether name is a plain theme name (no path separators, not hidden). */
static int
plain_name(const char *name)
{
	return *name && *name != '.' && !strchr(name, '/');
}

/* Load a theme by name or path. */
int
app_themes_load(struct theme *t, const char *name, enum theme_depth depth, struct err *e)
{
	char dir[1024], path[1200];
	const char *json;
	struct buf names = BUF_INIT;
	size_t n = name ? strlen(name) : 0;

	if (!n || !strcmp(name, "default")) {
		theme_default(t, depth);
		return 0;
	}
	if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".json")))
		return theme_load(t, name, depth, e);
	user_dir(dir, sizeof dir);
	if (*dir && plain_name(name)) {
		snprintf(path, sizeof path, "%s/%s.json", dir, name);
		if (access(path, F_OK) == 0)
			return theme_load(t, path, depth, e);
	}
	if ((json = app_themes_shipped(name)) != NULL)
		return theme_parse(t, name, json, strlen(json), depth, e);
	app_themes_list(&names);
	err_set(e, "unknown theme '%s' (available: %s); using the built-in theme", name,
	    names.data);
	buf_release(&names);
	theme_default(t, depth);
	return -1;
}

/* Whether `name` is already in the comma-separated list. */
static int
listed(const struct buf *out, const char *name, size_t n)
{
	const char *p = out->data;

	while (p && *p) {
		size_t k = strcspn(p, ",");
		if (k == n && !memcmp(p, name, n))
			return 1;
		p += k;
		p += strspn(p, ", ");
	}
	return 0;
}

/* List the names: default, the shipped ones, then the user's files. */
void
app_themes_list(struct buf *out)
{
	char dir[1024];
	struct dirent *de;
	DIR *d;
	size_t i, n;

	buf_adds(out, "default");
	for (i = 0; i < NSHIPPED; i++)
		buf_addf(out, ", %s", shipped[i].name);
	user_dir(dir, sizeof dir);
	if (!*dir || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 5 || strcmp(de->d_name + n - 5, ".json") || de->d_name[0] == '.' ||
		    listed(out, de->d_name, n - 5))
			continue;
		buf_addf(out, ", %.*s", (int)(n - 5), de->d_name);
	}
	closedir(d);
}

/* /theme [NAME]: list or switch. */
enum cmd_result
app_themes_cmd(struct theme *th, struct term *term, struct grid *g, const char *args,
    struct buf *out)
{
	struct theme nt;
	struct err e = ERR_INIT;
	char name[THEME_NAME_MAX + 8];
	size_t n;

	while (*args == ' ')
		args++;
	n = strcspn(args, " \t\n");
	if (!n) {
		buf_addf(out, "theme: %s (available: ", th->name);
		app_themes_list(out);
		buf_adds(out, "; /theme NAME switches)");
		return CMD_DONE;
	}
	snprintf(name, sizeof name, "%.*s", (int)(n < THEME_NAME_MAX ? n : THEME_NAME_MAX), args);
	if (app_themes_load(&nt, name, th->depth, &e) < 0) {
		buf_adds(out, e.msg);
		return CMD_ERROR;
	}
	*th = nt;
	if (term)
		term_set_theme(term, th);
	if (g)
		grid_touch(g);
	highlight_set_theme(th);
	buf_addf(out, "theme: %s", th->name);
	return CMD_DONE;
}

/*
 * The colour depth: the environment's (theme_depth_env), or 24-bit inside
 * tmux when tmux says its client terminal has RGB ("#{client_termfeatures}",
 * tmux 3.2 on; set from the outer terminal's Tc/RGB or COLORTERM), which
 * COLORTERM inside the pane often does not say.  One short tmux call at
 * start-up, before the loop runs.
 */
enum theme_depth
app_themes_depth(void)
{
	enum theme_depth d = theme_depth_env();
	char line[512];
	FILE *f;

	if (d == THEME_DEPTH_TRUE || d == THEME_DEPTH_NONE || !getenv("TMUX") || !*getenv("TMUX"))
		return d;
	if (!(f = popen("tmux display-message -p '#{client_termfeatures}' 2>/dev/null", "r")))
		return d;
	if (fgets(line, sizeof line, f) && app_themes_has_rgb(line))
		d = THEME_DEPTH_TRUE;
	pclose(f);
	return d;
}

/* Whether a tmux feature list ("256,RGB,title,...") has RGB. */
int
app_themes_has_rgb(const char *features)
{
	const char *p = features;
	size_t n;

	while (*p) {
		n = strcspn(p, ",\n ");
		if (n == 3 && !strncmp(p, "RGB", 3))
			return 1;
		p += n;
		p += strspn(p, ",\n ");
	}
	return 0;
}

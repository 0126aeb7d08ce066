/*
 * codehl: tree-sitter colours for code lines (see codehl.h).  `kept` is a
 * ring of CODEHL_KEEP entries {language, line text, spans}; a hit costs a
 * string compare, a miss one parse of the line.
 */
#include "codehl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "markdown.h"
#include "synhl.h"
#include "xmalloc.h"

struct kept {
	const struct syn_lang *lang;
	char *text;
	size_t n;
	struct syn_span *spans;
	size_t nspans;
};

static struct theme g_theme;
static struct kept g_kept[CODEHL_KEEP];
static size_t g_next;

/* Install the hook with a copy of the theme. */
void
codehl_install(const struct theme *th)
{
	g_theme = *th;
	markdown_code_hook = codehl_line;
}

/* Remove the hook; free the kept spans. */
void
codehl_uninstall(void)
{
	size_t i;

	if (markdown_code_hook == codehl_line)
		markdown_code_hook = NULL;
	for (i = 0; i < CODEHL_KEEP; i++) {
		free(g_kept[i].text);
		free(g_kept[i].spans);
	}
	memset(g_kept, 0, sizeof g_kept);
	g_next = 0;
}

/* The language of a fence's info word: a name, else an extension. */
static const struct syn_lang *
fence_lang(const char *lang)
{
	const struct syn_lang *l;
	char path[48];

	if (!lang || !*lang || strlen(lang) > 32)
		return NULL;
	if ((l = syn_lang_by_name(lang)) != NULL)
		return l;
	snprintf(path, sizeof path, "x.%s", lang);
	return syn_lang_for_path(path);
}

/* The kept spans of the line, highlighting it first when it is new (NULL: none). */
static const struct kept *
spans_for(const struct syn_lang *l, const char *s, size_t n)
{
	struct kept *k;
	size_t i;

	for (i = 0; i < CODEHL_KEEP; i++)
		if (g_kept[i].lang == l && g_kept[i].n == n && !memcmp(g_kept[i].text, s, n))
			return &g_kept[i];
	k = &g_kept[g_next++ % CODEHL_KEEP];
	free(k->text);
	free(k->spans);
	memset(k, 0, sizeof *k);
	if (syn_highlight(l, s, n, &k->spans, &k->nspans, NULL) < 0)
		return NULL;
	k->lang = l;
	k->text = xmalloc(n + 1);
	memcpy(k->text, s, n);
	k->text[n] = '\0';
	k->n = n;
	return k;
}

/* Recolour the cells of the spans (the hook). */
void
codehl_line(struct grid *g, int x, int y, int w, const char *lang, const char *s, size_t n)
{
	const struct syn_lang *l = fence_lang(lang);
	const struct kept *k;
	size_t i;
	int c, c0, c1, role;

	if (!l || !n || y < 0 || y >= g->h || (k = spans_for(l, s, n)) == NULL)
		return;
	for (i = 0; i < k->nspans; i++) {
		role = theme_capture_role(&g_theme, k->spans[i].capture);
		if (role == THEME_TEXT)
			continue;
		c0 = draw_width(s, k->spans[i].start);
		c1 = draw_width(s, k->spans[i].end);
		for (c = c0; c < c1 && c < w && x + c < g->w; c++)
			if (x + c >= 0)
				g->cells[(size_t)y * (size_t)g->w + (size_t)(x + c)].style = (uint16_t)role;
		if (c0 < w && !g->dirty[y])
			g->dirty[y] = 1;
	}
}

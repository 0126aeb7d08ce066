/*
 * synbrace: function bodies of brace languages by a lexical prescan (see
 * synbrace.h for the rules).
 *
 * Data structures (the lexical layer, struct synlex, is synlex's):
 *  - struct head: what the tokens since the last ";", "{" or "}" at the
 *    current level say about the next "{" (parenthesis depth, an "=",
 *    keywords, whether ")" ended it).  Braces inside parentheses are
 *    groups, never levels.
 *  - `kinds`: one K_* per open brace level; inside a K_OTHER level (a
 *    body the scan did not skip, an initializer, a struct) nothing is a
 *    hole, so control statements are never taken for functions.
 */
#include "synbrace.h"

#include <string.h>

#include "synlex.h"

enum kind { K_TOP, K_CONT, K_CLASS, K_OTHER, K_BODY };

#define MAX_LEVELS 256

struct head {
	int paren;  /* ( [ and braces inside them */
	int eq;     /* "=" outside parentheses */
	int tail;   /* 0; 1 right after ")" or a qualifier; 2 in a return type or throws list */
	int fn;     /* the function keyword of the language */
	int cont;   /* a container keyword (namespace, impl, interface, ...) */
	int cls;    /* JavaScript "class" */
	int arrow;  /* ended with "=>" */
	int gotype; /* Go: the last word was struct or interface */
	int words;
	/* JavaScript inside parentheses (callbacks): */
	int pfn;    /* depth of the last "function" word, 0 none */
	int pready; /* ")" just closed that function's parameters, or "=>" just passed */
};

static const struct {
	const char *lang;
	enum synlex_fam fam;
} fams[] = {
	{ "c", SYNLEX_C }, { "cpp", SYNLEX_CPP }, { "java", SYNLEX_JAVA }, { "go", SYNLEX_GO }, { "rust", SYNLEX_RUST },
	{ "javascript", SYNLEX_JS }, { "typescript", SYNLEX_JS }, { "tsx", SYNLEX_JS },
};

/* The family of a language name. */
static enum synlex_fam
fam_of(const char *lang)
{
	size_t i;

	for (i = 0; i < sizeof fams / sizeof fams[0]; i++)
		if (!strcmp(fams[i].lang, lang))
			return fams[i].fam;
	return SYNLEX_NONE;
}

/* See synbrace.h. */
int
synbrace_knows(const char *lang)
{
	return fam_of(lang) != SYNLEX_NONE;
}

/* Forget the head: a new declaration starts. */
static void
head_reset(struct head *hd)
{
	memset(hd, 0, sizeof *hd);
}

/* Apply the word [i, j) outside parentheses to the head. */
static void
head_word(const struct synlex *x, struct head *hd, size_t i, size_t j)
{
	static const char *const quals[] = { "const", "override", "final", "noexcept",
					     "volatile", "mutable", "throw", NULL };
	static const char *const cont_c[] = { "extern", NULL };
	static const char *const cont_cpp[] = { "namespace", "class", "struct", "union", "extern",
						NULL };
	static const char *const cont_java[] = { "class", "interface", "enum", "record", NULL };
	static const char *const cont_rust[] = { "impl", "trait", "mod", "extern", NULL };
	static const char *const cont_js[] = { "namespace", "module", "global", NULL };
	static const char *const go_types[] = { "struct", "interface", NULL };
	const char *w = x->s + i;
	size_t n = j - i;
	const char *const *cont = NULL;

	hd->words++;
	hd->arrow = 0;
	if (hd->tail == 1 && !synlex_word_in(w, n, quals))
		hd->tail = x->fam == SYNLEX_JAVA && n == 6 && !memcmp(w, "throws", 6) ? 2 : 0;
	switch (x->fam) {
	case SYNLEX_C: cont = cont_c; break;
	case SYNLEX_CPP: cont = cont_cpp; break;
	case SYNLEX_JAVA: cont = cont_java; break;
	case SYNLEX_GO:
		if (hd->words == 1 && n == 4 && !memcmp(w, "func", 4))
			hd->fn = 1;
		hd->gotype = synlex_word_in(w, n, go_types);
		break;
	case SYNLEX_RUST:
		cont = cont_rust;
		if (n == 2 && !memcmp(w, "fn", 2))
			hd->fn = 1;
		break;
	case SYNLEX_JS:
		cont = cont_js;
		if (n == 8 && !memcmp(w, "function", 8))
			hd->fn = 1;
		if (n == 5 && !memcmp(w, "class", 5))
			hd->cls = 1;
		break;
	default:
		break;
	}
	if (cont && synlex_word_in(w, n, cont))
		hd->cont = 1;
}

/* What a "{" outside parentheses opens, by the head and the enclosing level. */
static enum kind
classify(const struct synlex *x, const struct head *hd, enum kind parent)
{
	switch (x->fam) {
	case SYNLEX_C:
	case SYNLEX_CPP:
		if (hd->tail && !hd->eq)
			return K_BODY;
		return hd->cont && !hd->eq ? K_CONT : K_OTHER;
	case SYNLEX_JAVA:
		if (hd->cont && !hd->eq)
			return K_CONT;
		return hd->tail && !hd->eq ? K_BODY : K_OTHER;
	case SYNLEX_GO:
		return hd->fn && !hd->gotype && !hd->eq ? K_BODY : K_OTHER;
	case SYNLEX_RUST:
		if (hd->fn && !hd->eq)
			return K_BODY;
		return hd->cont && !hd->eq ? K_CONT : K_OTHER;
	case SYNLEX_JS:
		if (hd->arrow || hd->fn)
			return K_BODY;
		if (hd->cls)
			return K_CLASS;
		if (hd->cont && !hd->eq)
			return K_CONT;
		return parent == K_CLASS && hd->tail ? K_BODY : K_OTHER;
	default:
		return K_OTHER;
	}
}

/* Whether Go ends a statement at a newline after the byte prev (its semicolon rule). */
static int
go_line_ends(char prev)
{
	return prev == 'a' || prev == '"' || prev == ')' || prev == ']' || prev == '}';
}

/* Apply a punctuation byte c at i outside parentheses; returns how many bytes it took. */
static size_t
head_punct(struct synlex *x, struct head *hd, size_t i)
{
	char c = x->s[i], d = i + 1 < x->n ? x->s[i + 1] : 0;

	if (c == '=' && d == '>') {
		hd->arrow = 1, hd->tail = 0;
		return 2;
	}
	hd->arrow = 0;
	if (c == '-' && d == '>') {
		if (hd->tail == 1)
			hd->tail = 2;
		return 2;
	}
	if (c == ':' && d == ':') {
		if (hd->tail != 2)
			hd->tail = 0;
		return 2;
	}
	if (c == ':' && hd->tail == 1 && (x->fam == SYNLEX_JS || x->fam == SYNLEX_CPP))
		hd->tail = 2; /* a TypeScript return type, a C++ initializer list */
	else if (c == '=')
		hd->eq = 1, hd->tail = 0;
	else if (hd->tail != 2)
		hd->tail = 0;
	return 1;
}

/*
 * Whether the body [from, to) of a top-level function looks whole: no line
 * inside it starts with "}" (in formatted code only a top-level body's own
 * closing brace does, so one inside means the brace matching went wrong).
 */
static int
body_plausible(const struct synlex *x, size_t from, size_t to)
{
	const char *p = x->s + from, *end = x->s + to;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL && p + 1 < end)
		if (*++p == '}')
			return 0;
	return 1;
}

/*
 * Leave out the body whose "{" is at i (a top-level one only when it looks
 * whole): the index after its "}", or 0 when that ends the scan.
 */
static size_t
body_hole(struct synlex *x, struct synskel_holes *h, size_t i, int top_level)
{
	size_t j = synlex_match_brace(x, i + 1);

	if (x->bad || (top_level && !body_plausible(x, i + 1, j)))
		return 0;
	synskel_hole(h, (uint32_t)(i + 1), (uint32_t)j);
	return j + 1;
}

/*
 * The scan proper.  Trouble (a construct running to the end, a brace that
 * closes nothing, a conditional directive inside a body, an implausible
 * body) ends it: the holes found before stand, the rest is parsed whole.
 */
static void
scan(struct synlex *x, struct synskel_holes *h)
{
	unsigned char kinds[MAX_LEVELS];
	int depth = 0, other = 0;
	struct head hd;
	size_t i = 0, j;

	head_reset(&hd);
	while (i < x->n && !x->bad) {
		char c = x->s[i];
		if ((j = synlex_skip(x, i)) != i) {
			if (c == '#')
				head_reset(&hd); /* a directive ends what came before */
			i = j;
			continue;
		}
		if (synlex_is_word((unsigned char)c)) {
			size_t raw;
			j = synlex_word_end(x, i);
			if ((raw = synlex_raw(x, i, j)) != 0) {
				i = raw;
				continue;
			}
			if (hd.paren == 0)
				head_word(x, &hd, i, j);
			else {
				hd.pready = 0;
				if (j - i == 8 && !memcmp(x->s + i, "function", 8))
					hd.pfn = hd.paren;
			}
			synlex_saw_word(x, i, j);
			i = j;
			continue;
		}
		if (c == '{' && hd.paren > 0 && hd.pready && x->fam == SYNLEX_JS) {
			if ((i = body_hole(x, h, i, 0)) == 0) /* a callback's body */
				return;
			hd.pready = 0;
			continue;
		}
		if (hd.paren > 0 && c == '=' && i + 1 < x->n && x->s[i + 1] == '>') {
			hd.pready = 1;
			x->prev = '>', x->prev_kw = 0;
			i += 2;
			continue;
		}
		if (!synlex_is_space(c))
			hd.pready = 0;
		if (c == '(' || c == '[' || (c == '{' && hd.paren > 0)) {
			hd.paren++;
		} else if (c == ')' || c == ']' || (c == '}' && hd.paren > 0)) {
			if (hd.paren > 0 && --hd.paren == 0)
				hd.tail = c == ')' ? 1 : hd.tail == 2 ? 2 : 0;
			if (c == ')' && hd.pfn && hd.paren == hd.pfn) {
				hd.pready = 1;
				hd.pfn = 0;
			}
		} else if (c == '{') {
			enum kind k = other ? K_OTHER :
				classify(x, &hd, depth ? (enum kind)kinds[depth - 1] : K_TOP);
			head_reset(&hd);
			if (k == K_BODY) {
				if ((i = body_hole(x, h, i, depth == 0)) == 0)
					return;
				continue;
			}
			if (depth == MAX_LEVELS)
				return;
			kinds[depth++] = (unsigned char)k;
			other += k == K_OTHER;
		} else if (c == '}') {
			if (depth == 0)
				return;
			other -= kinds[--depth] == K_OTHER;
			head_reset(&hd);
		} else if (c == ';' && hd.paren == 0) {
			head_reset(&hd);
		} else if (c == '\n') {
			if (x->fam == SYNLEX_GO && hd.paren == 0 && go_line_ends(x->prev))
				head_reset(&hd);
		} else if (!synlex_is_space(c) && hd.paren == 0) {
			size_t took = head_punct(x, &hd, i);
			x->prev = x->s[i + took - 1], x->prev_kw = 0;
			i += took;
			continue;
		}
		if (!synlex_is_space(c))
			x->prev = c, x->prev_kw = 0;
		i++;
	}
}

/* See synbrace.h. */
int
synbrace_holes(const char *lang, const char *text, size_t n, struct synskel_holes *h)
{
	struct synlex x;

	memset(&x, 0, sizeof x);
	x.s = text, x.n = n, x.fam = fam_of(lang);
	if (x.fam == SYNLEX_NONE) {
		synskel_holes_release(h);
		return -1;
	}
	scan(&x, h);
	return 0;
}

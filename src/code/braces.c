/*
 * code/braces: function bodies of brace languages by a lexical prescan (see
 * code/braces.h for the rules).
 *
 * Data structures (the lexical layer, struct code_lexer, is code_lexer's):
 *  - struct head: what the tokens since the last ";", "{" or "}" at the
 *    current level say about the next "{" (parenthesis depth, an "=",
 *    keywords, whether ")" ended it).  Braces inside parentheses are
 *    groups, never levels.
 *  - `kinds`: one K_* per open brace level; inside a K_OTHER level (a
 *    body the scan did not skip, an initializer, a struct) nothing is a
 *    hole, so control statements are never taken for functions.
 */
#include "code/braces.h"

#include <string.h>

#include "code/lexer.h"

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
	enum code_lexer_fam fam;
} fams[] = {
	{ "c", CODE_LEXER_C }, { "cpp", CODE_LEXER_CPP }, { "java", CODE_LEXER_JAVA }, { "go", CODE_LEXER_GO }, { "rust", CODE_LEXER_RUST },
	{ "javascript", CODE_LEXER_JS }, { "typescript", CODE_LEXER_JS }, { "tsx", CODE_LEXER_JS },
};

/* The family of a language name. */
static enum code_lexer_fam
fam_of(const char *lang)
{
	size_t i;

	for (i = 0; i < sizeof fams / sizeof fams[0]; i++)
		if (!strcmp(fams[i].lang, lang))
			return fams[i].fam;
	return CODE_LEXER_NONE;
}

/* See code/braces.h. */
int
code_braces_knows(const char *lang)
{
	return fam_of(lang) != CODE_LEXER_NONE;
}

/* Forget the head: a new declaration starts. */
static void
head_reset(struct head *hd)
{
	memset(hd, 0, sizeof *hd);
}

/* Apply the word [i, j) outside parentheses to the head. */
static void
head_word(const struct code_lexer *x, struct head *hd, size_t i, size_t j)
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
	if (hd->tail == 1 && !code_lexer_word_in(w, n, quals))
		hd->tail = x->fam == CODE_LEXER_JAVA && n == 6 && !memcmp(w, "throws", 6) ? 2 : 0;
	switch (x->fam) {
	case CODE_LEXER_C: cont = cont_c; break;
	case CODE_LEXER_CPP: cont = cont_cpp; break;
	case CODE_LEXER_JAVA: cont = cont_java; break;
	case CODE_LEXER_GO:
		if (hd->words == 1 && n == 4 && !memcmp(w, "func", 4))
			hd->fn = 1;
		hd->gotype = code_lexer_word_in(w, n, go_types);
		break;
	case CODE_LEXER_RUST:
		cont = cont_rust;
		if (n == 2 && !memcmp(w, "fn", 2))
			hd->fn = 1;
		break;
	case CODE_LEXER_JS:
		cont = cont_js;
		if (n == 8 && !memcmp(w, "function", 8))
			hd->fn = 1;
		if (n == 5 && !memcmp(w, "class", 5))
			hd->cls = 1;
		break;
	default:
		break;
	}
	if (cont && code_lexer_word_in(w, n, cont))
		hd->cont = 1;
}

/* What a "{" outside parentheses opens, by the head and the enclosing level. */
static enum kind
classify(const struct code_lexer *x, const struct head *hd, enum kind parent)
{
	switch (x->fam) {
	case CODE_LEXER_C:
	case CODE_LEXER_CPP:
		if (hd->tail && !hd->eq)
			return K_BODY;
		return hd->cont && !hd->eq ? K_CONT : K_OTHER;
	case CODE_LEXER_JAVA:
		if (hd->cont && !hd->eq)
			return K_CONT;
		return hd->tail && !hd->eq ? K_BODY : K_OTHER;
	case CODE_LEXER_GO:
		return hd->fn && !hd->gotype && !hd->eq ? K_BODY : K_OTHER;
	case CODE_LEXER_RUST:
		if (hd->fn && !hd->eq)
			return K_BODY;
		return hd->cont && !hd->eq ? K_CONT : K_OTHER;
	case CODE_LEXER_JS:
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
head_punct(struct code_lexer *x, struct head *hd, size_t i)
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
	if (c == ':' && hd->tail == 1 && (x->fam == CODE_LEXER_JS || x->fam == CODE_LEXER_CPP))
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
body_plausible(const struct code_lexer *x, size_t from, size_t to)
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
body_hole(struct code_lexer *x, struct code_skeleton_holes *h, size_t i, int top_level)
{
	size_t j = code_lexer_match_brace(x, i + 1);

	if (x->bad || (top_level && !body_plausible(x, i + 1, j)))
		return 0;
	code_skeleton_hole(h, (uint32_t)(i + 1), (uint32_t)j);
	return j + 1;
}

/*
 * The scan proper.  Trouble (a construct running to the end, a brace that
 * closes nothing, a conditional directive inside a body, an implausible
 * body) ends it: the holes found before stand, the rest is parsed whole.
 */
static void
scan(struct code_lexer *x, struct code_skeleton_holes *h)
{
	unsigned char kinds[MAX_LEVELS];
	int depth = 0, other = 0;
	struct head hd;
	size_t i = 0, j;

	head_reset(&hd);
	while (i < x->n && !x->bad) {
		char c = x->s[i];
		if ((j = code_lexer_skip(x, i)) != i) {
			if (c == '#')
				head_reset(&hd); /* a directive ends what came before */
			i = j;
			continue;
		}
		if (code_lexer_is_word((unsigned char)c)) {
			size_t raw;
			j = code_lexer_word_end(x, i);
			if ((raw = code_lexer_raw(x, i, j)) != 0) {
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
			code_lexer_saw_word(x, i, j);
			i = j;
			continue;
		}
		if (c == '{' && hd.paren > 0 && hd.pready && x->fam == CODE_LEXER_JS) {
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
		if (!code_lexer_is_space(c))
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
			if (x->fam == CODE_LEXER_GO && hd.paren == 0 && go_line_ends(x->prev))
				head_reset(&hd);
		} else if (!code_lexer_is_space(c) && hd.paren == 0) {
			size_t took = head_punct(x, &hd, i);
			x->prev = x->s[i + took - 1], x->prev_kw = 0;
			i += took;
			continue;
		}
		if (!code_lexer_is_space(c))
			x->prev = c, x->prev_kw = 0;
		i++;
	}
}

/* See code/braces.h. */
int
code_braces_holes(const char *lang, const char *text, size_t n, struct code_skeleton_holes *h)
{
	struct code_lexer x;

	memset(&x, 0, sizeof x);
	x.s = text, x.n = n, x.fam = fam_of(lang);
	if (x.fam == CODE_LEXER_NONE) {
		code_skeleton_holes_release(h);
		return -1;
	}
	scan(&x, h);
	return 0;
}

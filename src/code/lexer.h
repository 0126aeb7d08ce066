/*
 * synlex: the lexical layer of synbrace's prescan (see synbrace.h): it
 * steps over what cannot hold a code brace — comments, strings (raw,
 * text-block and template forms), character literals, regular expressions
 * and C preprocessor lines — and matches braces.
 *
 * struct synlex holds the text, its family, the last significant byte
 * (`prev`: 'a' after a word, '"' after a literal; JavaScript decides by it
 * whether "/" starts a regular expression), the template-literal nesting,
 * and `bad`, set when a construct runs to the end of the text (the caller
 * then stops trusting what follows).
 */
#ifndef HEARTH_SYNLEX_H
#define HEARTH_SYNLEX_H

#include <stddef.h>

enum synlex_fam {
	SYNLEX_NONE, SYNLEX_C, SYNLEX_CPP, SYNLEX_JAVA, SYNLEX_GO, SYNLEX_RUST, SYNLEX_JS
};

struct synlex {
	const char *s;
	size_t n;
	enum synlex_fam fam;
	char prev;
	int prev_kw; /* the last word lets a regular expression follow (return, typeof, ...) */
	int nest;    /* template literals being matched */
	int bad;
};

/* Whether c can be part of a word (UTF-8 bytes count as letters). */
int synlex_is_word(unsigned char c);
/* Whether c is white space. */
int synlex_is_space(char c);
/* Whether the n bytes at w are one of the words in list (NULL-terminated). */
int synlex_word_in(const char *w, size_t n, const char *const *list);
/* Past a comment, literal, regular expression or directive starting at i; i if none does. */
size_t synlex_skip(struct synlex *x, size_t i);
/* Past a raw string whose prefix is the word [i, j) (C++ R"x(...)x", Rust r#"..."#); 0 if none. */
size_t synlex_raw(struct synlex *x, size_t i, size_t j);
/* The end of the word at i. */
size_t synlex_word_end(const struct synlex *x, size_t i);
/* Note the word [i, j) as the last token (for regular expressions). */
void synlex_saw_word(struct synlex *x, size_t i, size_t j);
/* The index of the "}" matching a "{" just before i; the text's end with bad set if none. */
size_t synlex_match_brace(struct synlex *x, size_t i);

#endif

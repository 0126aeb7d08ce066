/*
 * code/lexer: the lexical layer of code_braces's prescan (see code/braces.h): it
 * steps over what cannot hold a code brace — comments, strings (raw,
 * text-block and template forms), character literals, regular expressions
 * and C preprocessor lines — and matches braces.
 *
 * struct code_lexer holds the text, its family, the last significant byte
 * (`prev`: 'a' after a word, '"' after a literal; JavaScript decides by it
 * whether "/" starts a regular expression), the template-literal nesting,
 * and `bad`, set when a construct runs to the end of the text (the caller
 * then stops trusting what follows).
 */
#ifndef HEARTH_CODE_LEXER_H
#define HEARTH_CODE_LEXER_H

#include <stddef.h>

enum code_lexer_fam {
	CODE_LEXER_NONE, CODE_LEXER_C, CODE_LEXER_CPP, CODE_LEXER_JAVA, CODE_LEXER_GO, CODE_LEXER_RUST, CODE_LEXER_JS
};

struct code_lexer {
	const char *s;
	size_t n;
	enum code_lexer_fam fam;
	char prev;
	int prev_kw; /* the last word lets a regular expression follow (return, typeof, ...) */
	int nest;    /* template literals being matched */
	int bad;
};

/* Whether c can be part of a word (UTF-8 bytes count as letters). */
int code_lexer_is_word(unsigned char c);
/* Whether c is white space. */
int code_lexer_is_space(char c);
/* Whether the n bytes at w are one of the words in list (NULL-terminated). */
int code_lexer_word_in(const char *w, size_t n, const char *const *list);
/* Past a comment, literal, regular expression or directive starting at i; i if none does. */
size_t code_lexer_skip(struct code_lexer *x, size_t i);
/* Past a raw string whose prefix is the word [i, j) (C++ R"x(...)x", Rust r#"..."#); 0 if none. */
size_t code_lexer_raw(struct code_lexer *x, size_t i, size_t j);
/* The end of the word at i. */
size_t code_lexer_word_end(const struct code_lexer *x, size_t i);
/* Note the word [i, j) as the last token (for regular expressions). */
void code_lexer_saw_word(struct code_lexer *x, size_t i, size_t j);
/* The index of the "}" matching a "{" just before i; the text's end with bad set if none. */
size_t code_lexer_match_brace(struct code_lexer *x, size_t i);

#endif

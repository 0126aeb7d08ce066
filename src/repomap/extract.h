/*
 * repomap/extract: what repomap needs from one source file — its definitions
 * (@definition.* captures of the language's tags query with their @name:
 * line and the trimmed source line, cut at 100 bytes, as signature) and
 * the identifiers it uses (every identifier in its text, comments and
 * strings included, that is not one of its own definition names, sorted
 * and unique: a lexical scan, several times cheaper than walking the
 * syntax tree; a mention in a comment counts as a use).
 *
 * In C, C++, Go, Rust, Java, Python, JavaScript and TypeScript function
 * bodies are left out of the parse (code/skeleton.h: methods' and callbacks'
 * too) and the query does not enter what is left of them (as the outline
 * tool does for the first five): definitions nested in function bodies
 * are not listed (class bodies are entered, so methods are).  A ".h"
 * header is read as C++ when its text is (code_lang_for_file).  The tags queries are compiled once per language with the patterns that
 * capture no definition disabled (uses come from the lexical
 * scan), and each gets a stamp: a hash of the language's name, grammar
 * ABI version, query text and this module's extraction version, so a disk cache (repomap_store) made with another
 * grammar or query is not used.
 *
 * Thread-safe: the compiled queries are made under a lock and never
 * changed after, so several threads may extract at once (repomap parses on
 * two or more); repomap_extract_free only while none does.
 *
 * The result holds no copies: names and signatures are byte ranges of the
 * text (repomap keeps interned names and the signatures' offsets, and
 * reads a signature back from the file when it prints it).
 */
#ifndef HEARTH_REPOMAP_EXTRACT_H
#define HEARTH_REPOMAP_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "code/code.h"

/* One definition: its name and its signature as ranges of the text, and its line. */
struct repomap_extract_def {
	uint32_t name_off, sig_off;
	uint32_t line;        /* 1-based */
	uint8_t name_len;     /* 1..80 */
	uint8_t sig_len;      /* 0..100: the trimmed line, cut on a UTF-8 boundary */
};

/* What one file yields. */
struct repomap_extract {
	struct repomap_extract_def *defs; /* line order */
	size_t ndefs;
	uint32_t *ref_off;   /* the used names: distinct byte ranges of the text, */
	uint8_t *ref_len;    /* in no particular order */
	size_t nrefs;
	int skipped;         /* 1: it cannot be parsed */
};

/*
 * Whether lang has a tags query; its stamp to *stamp.  The query is
 * compiled when a file of the language is first extracted (a new process
 * answering from the disk cache compiles none); one that does not compile
 * makes its files unparsable (skipped = 1).
 */
int repomap_extract_supported(const struct code_lang *lang, uint64_t *stamp);
/*
 * Parse len bytes of text as lang (supported) and fill r (zeroed by the
 * caller; free it with repomap_extract_release).
 */
void repomap_extract_file(const struct code_lang *lang, const char *text, size_t len,
		    struct repomap_extract *r);
/* Free r's arrays and zero it. */
void repomap_extract_release(struct repomap_extract *r);
/* Free the compiled queries (for leak checkers). */
void repomap_extract_free(void);

#endif
